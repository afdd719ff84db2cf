// Load-to-use latencies measured by pointer chasing on the device
// (latency_chase.cu): what `tlmgpu run --workload latency_chase` prints, and
// what the tests hold each preset's memory hierarchy to.
#pragma once

#include <string>

#include "platform/gpu_device.h"

namespace tlmgpu::workloads {

/// Cycles from a load's issue to the issue of the instruction that uses its
/// value, per level. In functional mode the clock counts the warp's
/// instructions, so the numbers only mean something in timing mode.
struct MemoryLatencies {
  double l1_hit = 0;  ///< a global load that hits in the L1D
  double l2_hit = 0;  ///< misses in the L1D, hits in the L2
  double dram = 0;    ///< misses in both, a DRAM row that is not open
  double shared = 0;  ///< shared memory, no bank conflict
  bool chains_verified = false;  ///< every chain ended on the node the host expected
  std::string detail;            ///< the four numbers, or the first chain that ended wrong
};

/// Runs the four chases (one thread each) on `device`. `timed_steps` dependent
/// loads are timed per level.
MemoryLatencies measure_memory_latencies(platform::GpuDevice& device, unsigned timed_steps = 129);

}  // namespace tlmgpu::workloads
