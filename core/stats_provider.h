// Modules that keep statistics implement this; the GPU top collects them by
// walking the SystemC hierarchy, under each module's hierarchical name.
#pragma once

#include <map>
#include <string>

namespace tlmgpu::stats {

/// name -> value, e.g. {"hits", 1234}, {"avg_queue_depth", 3.5}.
using StatMap = std::map<std::string, double>;

class StatsProvider {
 public:
  virtual ~StatsProvider() = default;
  /// Adds this module's statistics (names follow GPGPU-Sim where one exists).
  virtual void report_stats(StatMap& out) const = 0;
};

}  // namespace tlmgpu::stats
