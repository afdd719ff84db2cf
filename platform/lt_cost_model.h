// LT mode's cost model: the cycles a launch would take on the cycle-level GPU,
// estimated from what the functional engine counted while it ran the launch
// and from the configuration. A roofline: the launch is bound by issue
// throughput, by one warp's chain of dependent latencies, by DRAM
// bandwidth, or by atomics serialising on one line, whichever is largest; the lt.* keys scale each bound and add
// fixed costs per launch and per wave of CTAs (docs/LT_MODE.md).
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "platform/config_keys.h"
#include "platform/occupancy.h"

namespace tlmgpu::platform {

/// What the functional engine counts for one launch in LT mode.
struct LtLaunchCounts {
  /// Warp instructions by pipeline (index: sm::Pipe), guard-false ones
  /// included, as the timing model issues them.
  static constexpr size_t kPipes = 9;
  std::array<uint64_t, kPipes> warp_insts{};
  /// Global and local loads and atomics with an active lane (the warp waits
  /// for their data), and stores and reductions (it does not).
  uint64_t global_loads = 0;
  uint64_t global_stores = 0;
  /// Lines and 32-byte sectors those instructions touch, as the SM's
  /// coalescer forms them (l1d.line_bytes lines).
  uint64_t global_lines = 0;
  uint64_t global_sectors = 0;
  /// Loads whose lines all hit a direct-mapped tag array of the SM's L1D's
  /// size (ld only: atomics go to the L2), and those whose lines all hit
  /// one of the L2's size; the rest wait for DRAM.
  uint64_t loads_l1_hit = 0;
  uint64_t loads_l2_hit = 0;
  /// Sectors of lines the L2 tag array missed (a line never seen counts
  /// as a hit when l2.fill_on_host_copy: the host's copies left it there).
  uint64_t dram_sectors = 0;
  /// Atomic warp requests (one per line of an atom / red) on the line that
  /// received the most: they serialise at its L2 slice.
  uint64_t hottest_line_atomics = 0;
  uint64_t shared_accesses = 0;
  /// Cycles the shared-memory banks are busy (bank-conflict degree per access).
  uint64_t shared_bank_cycles = 0;
  uint64_t ctas = 0;
  uint32_t warps_per_cta = 0;
  /// Per CTA in launch order: its warp instructions and those of its longest
  /// warp (empty: the CTAs are taken as equal; run_lt_launch empties them
  /// after the estimate).
  std::vector<uint64_t> cta_warp_insts;
  std::vector<uint64_t> cta_longest_warp;

  uint64_t total_warp_insts() const;
};

/// The bounds and the estimate for one launch.
struct LtEstimate {
  Occupancy occupancy;
  uint64_t ctas_on_busiest_sm = 0;  ///< ceil(CTAs / SMs) (CTA i runs on SM i mod SMs)
  uint64_t waves = 0;               ///< ceil(ctas_on_busiest_sm / CTAs per SM)
  /// Unscaled bounds in cycles (the model's features; the calibration fits
  /// the lt.* keys against timing mode's cycles from them).
  double issue_bound = 0;
  double latency_bound = 0;
  double bandwidth_bound = 0;
  double contention_bound = 0;  ///< hottest_line_atomics x the L2 round trip
  uint64_t cycles = 0;              ///< the estimate
};

/// Load-to-use cycles of a global load that hits the L1D, hits the L2, or
/// goes to DRAM and finds its row closed, from the configuration's latencies.
struct LtLoadLatencies {
  double l1_hit = 0, l2_hit = 0, dram = 0;
};
LtLoadLatencies lt_load_latencies(const core::GpuConfig& config);

/// DRAM bytes per core cycle at peak over all channels.
double lt_dram_bytes_per_cycle(const core::GpuConfig& config);

/// The estimate for a launch with `counts` at `occupancy` on `config`.
LtEstimate estimate_lt_cycles(const LtLaunchCounts& counts, const Occupancy& occupancy, const core::GpuConfig& config);

/// One LT launch as GpuDevice records it (for --stats).
struct LtLaunchRecord {
  std::string kernel;
  LtLaunchCounts counts;
  LtEstimate estimate;
  bool faulted = false;  ///< ended in a device fault: counts and estimate of what ran before it
};

}  // namespace tlmgpu::platform
