// Modules that keep statistics implement this; the GPU top collects them by
// walking the SystemC hierarchy, under each module's hierarchical name.
// Every statistic is declared once, where its module reports it: name,
// value, unit and a one-line description together, so a statistic cannot be
// reported without saying what it counts (`tlmgpu run --stats-describe`
// prints the descriptions).
#pragma once

#include <cstdint>
#include <map>
#include <string>

namespace tlmgpu::core {

/// name -> value, e.g. {"hits", 1234}, {"avg_queue_depth", 3.5}.
using StatMap = std::map<std::string, double>;

/// What a statistic's number counts or measures.
enum class Unit : uint8_t {
  Count,        ///< events (accesses, instructions, packets, commands)
  Cycles,       ///< cycles of the module's clock (the core clock but for DRAM's own)
  DramCycles,   ///< cycles of the DRAM command clock
  Bytes,
  Sectors,      ///< 32-byte units of a cache line
  Ratio,        ///< a fraction in [0, 1]
  Average,      ///< a mean over the events it names
  GigabytesPerSecond,
  Flag,         ///< 0 or 1
  Entries,      ///< occupancy of a structure at the end of the run
};
const char* unit_name(Unit unit);

struct StatDescription {
  Unit unit = Unit::Count;
  std::string description;
};
/// name -> its unit and description.
using StatDescriptions = std::map<std::string, StatDescription>;

/// Where a module reports its statistics: the values, and (when asked for)
/// their descriptions. The names are the module's own ("hits"); the GPU top
/// prefixes its hierarchical name.
class StatReport {
 public:
  explicit StatReport(StatMap& values, StatDescriptions* descriptions = nullptr)
      : values_(values), descriptions_(descriptions) {}
  /// Reports `name` = `value` (a name reported again takes the new value).
  void add(const std::string& name, double value, Unit unit, const char* description) {
    values_[name] = value;
    if (descriptions_) (*descriptions_)[name] = StatDescription{unit, description};
  }
  /// value / total, or 0 when total is 0.
  static double ratio(uint64_t value, uint64_t total) { return total ? double(value) / double(total) : 0.0; }

 private:
  StatMap& values_;
  StatDescriptions* descriptions_;
};

class StatsProvider {
 public:
  virtual ~StatsProvider() = default;
  /// Adds this module's statistics (names follow GPGPU-Sim where one exists).
  virtual void report_stats(StatReport& out) const = 0;
};

/// The values `provider.report_stats` reports (tests and tools).
template <class Provider>
StatMap values_of(const Provider& provider) {
  StatMap values;
  StatReport report(values);
  provider.report_stats(report);
  return values;
}

inline const char* unit_name(Unit unit) {
  switch (unit) {
    case Unit::Count: return "count";
    case Unit::Cycles: return "cycles";
    case Unit::DramCycles: return "DRAM cycles";
    case Unit::Bytes: return "bytes";
    case Unit::Sectors: return "sectors";
    case Unit::Ratio: return "ratio";
    case Unit::Average: return "average";
    case Unit::GigabytesPerSecond: return "GB/s";
    case Unit::Flag: return "0/1";
    case Unit::Entries: return "entries";
  }
  return "?";
}

}  // namespace tlmgpu::core
