// How many CTAs of a launch one SM holds at once, and which resource limits
// it, as NVIDIA's CUDA occupancy calculator computes it.
#pragma once

#include <cstdint>
#include <string>

#include "platform/config_keys.h"

namespace tlmgpu::platform {

/// Where a launch's registers per thread came from.
enum class RegisterSource : uint8_t {
  Estimate,    ///< the PTX register estimate, capped at sm.max_regs_per_thread
  /// The launch's own count (GpuDevice::launch): a launch file's
  /// regs_per_thread, or the ptxas count a workload records for its kernel.
  Launch,
  Override,    ///< --regs-per-thread (DeviceOptions::regs_per_thread)
  Trace,       ///< a warp trace names few registers: 1 per thread
};
const char* register_source_name(RegisterSource s);

/// Registers one warp is given: regs_per_thread x 32 rounded up to
/// sm.register_allocation_unit (the warp is the allocation granularity).
uint64_t registers_per_warp(const core::SmConfig& sm, uint32_t regs_per_thread);

struct Occupancy {
  uint32_t regs_per_thread = 0;
  RegisterSource regs_source = RegisterSource::Estimate;
  uint32_t warps_per_cta = 0;
  /// Registers one warp is given: regs_per_thread x 32 rounded up to sm.register_allocation_unit.
  uint32_t regs_per_warp = 0;
  uint32_t regs_per_cta = 0;
  uint32_t shared_per_cta = 0;
  uint32_t ctas_per_sm = 0;
  uint32_t warps_per_sm = 0;
  /// Resident warps of the busiest scheduler (warp w belongs to scheduler w mod N).
  uint32_t warps_per_scheduler = 0;
  /// "threads", "warps", "cta_slots", "registers" or "shared_memory": the
  /// resource that allows the fewest CTAs (the first of these on a tie).
  std::string limited_by;
};

/// The occupancy of CTAs of `threads_per_cta` threads and `shared_bytes` of
/// shared memory with `regs_per_thread` registers per thread on an SM of
/// `sm`. Throws LaunchError naming the resource, what one CTA needs and what
/// the SM has when not even one CTA fits.
Occupancy compute_occupancy(const core::SmConfig& sm, const std::string& kernel_name, uint32_t threads_per_cta,
                            uint32_t shared_bytes, uint32_t regs_per_thread, RegisterSource regs_source);

}  // namespace tlmgpu::platform
