// One bank of an SM's register file, as the operand collectors see it: one
// operand read per cycle; a second request in the same cycle is a conflict.
#pragma once

#include <cstdint>

#include <systemc>

#include "core/stats_provider.h"

namespace tlmgpu::sm {

/// A bank's read port. The SM keeps all its banks' ports in one array
/// (the collectors ask several banks every cycle); the bank module reports them.
struct RegisterBankPort {
  uint64_t busy_cycle = ~uint64_t(0);  ///< cycle of the last granted read
  uint64_t reads = 0;
  uint64_t conflicts = 0;

  /// Grants a read in `cycle` if the port is still free this cycle.
  bool try_read(uint64_t cycle) {
    if (busy_cycle == cycle) {
      ++conflicts;
      return false;
    }
    busy_cycle = cycle;
    ++reads;
    return true;
  }
};

class RegisterFileBank : public sc_core::sc_module, public core::StatsProvider {
 public:
  RegisterFileBank(sc_core::sc_module_name name, const RegisterBankPort& port)
      : sc_core::sc_module(name), port_(port) {}

  void report_stats(core::StatReport& out) const override {
    out.add("reads", double(port_.reads), core::Unit::Count, "register reads the bank served for operand collectors");
    out.add("conflicts", double(port_.conflicts), core::Unit::Count,
            "read requests refused because the bank already served one that cycle (retried)");
  }

 private:
  const RegisterBankPort& port_;
};

}  // namespace tlmgpu::sm
