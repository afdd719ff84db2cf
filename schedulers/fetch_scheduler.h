// The fetch stage's warp scheduler (gpu.smN.fetch): which fetch-ready warp
// requests instructions from the L1I next. Seed 003's three policies: lrr
// (loose round robin), gtlrr (greedy, then loose round robin), gtlo (greedy,
// then the oldest warp). A warp is fetch-ready when it has no i-cache miss
// outstanding and room in its instruction buffer (the SM decides).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <systemc>

#include "core/stats_provider.h"

namespace tlmgpu::schedulers {

class FetchScheduler : public sc_core::sc_module, public core::StatsProvider {
 public:
  enum class Policy : uint8_t { Lrr, Gtlrr, Gtlo };
  /// `policy`: "lrr", "gtlrr" or "gtlo"; throws std::invalid_argument otherwise.
  FetchScheduler(sc_core::sc_module_name name, const std::string& policy);

  /// The warp to fetch for among `ready` (bit per warp slot), or -1.
  /// `age[slot]` is the warp's dispatch order (smaller is older).
  int select(uint64_t ready, const std::vector<uint64_t>& age) const;
  /// A fetch was sent for `slot`: the greedy and round-robin state follow it.
  void fetched(uint32_t slot);
  /// A new GPU context: no greedy or round-robin history.
  void reset() { last_ = -1; }

  Policy policy() const { return policy_; }
  void report_stats(core::StatReport& out) const override;

  static Policy parse(const std::string& policy);

 private:
  Policy policy_;
  int last_ = -1;        // last warp fetched for
  uint64_t fetches_ = 0;
  uint64_t greedy_fetches_ = 0;
};

}  // namespace tlmgpu::schedulers
