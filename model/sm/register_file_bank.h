// One bank of an SM's register file, as the operand collectors see it: one
// operand read per cycle; a second request in the same cycle is a conflict.
#pragma once

#include <cstdint>

#include <systemc>

#include "model/stats/stats_provider.h"

namespace tlmgpu::sm {

class RegisterFileBank : public sc_core::sc_module, public stats::StatsProvider {
 public:
  explicit RegisterFileBank(sc_core::sc_module_name name) : sc_core::sc_module(name) {}

  /// Grants a read in `cycle` if the bank's port is still free this cycle.
  bool try_read(uint64_t cycle) {
    if (busy_cycle_ == cycle && any_read_) {
      ++conflicts_;
      return false;
    }
    busy_cycle_ = cycle;
    any_read_ = true;
    ++reads_;
    return true;
  }

  void report_stats(stats::StatMap& out) const override {
    out["reads"] = double(reads_);
    out["conflicts"] = double(conflicts_);
  }

 private:
  uint64_t busy_cycle_ = 0;
  bool any_read_ = false;
  uint64_t reads_ = 0;
  uint64_t conflicts_ = 0;
};

}  // namespace tlmgpu::sm
