// How many CTAs of a launch one SM holds at once, and which resource limits
// it, as NVIDIA's CUDA occupancy calculator computes it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

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

/// The unified L1D / shared-memory array's split for one launch
/// (sm.unified_l1_bytes): the shared-memory carve-out and the L1D left.
struct L1Carveout {
  uint32_t shared_kb = 0;
  uint32_t l1_ways = 0;
  uint32_t l1_bytes = 0;
};

/// Parses sm.shared_carveouts_kb ("0,8,16": ascending KB values); false with
/// `error` set on bad text.
bool parse_carveouts(const std::string& text, std::vector<uint32_t>& kb, std::string& error);

/// The L1D ways a carve-out of `shared_kb` leaves of the unified array:
/// round(l1d.ways x (1 - carve-out / array)).
uint32_t carveout_l1_ways(const core::GpuConfig& config, uint32_t shared_kb);

/// The carve-out of a launch on a unified array. Without a preference
/// (`preferred_percent` < 0), GPGPU-Sim's adaptive rule
/// (shader_core_config::max_cta): the first carve-out that holds
/// `resident_ctas` CTAs of `shared_per_cta` bytes. With one
/// (cudaFuncAttributePreferredSharedMemoryCarveout, percent of the largest
/// carve-out), the CUDA guide's rule: the first carve-out at least that
/// large ("the next larger capacity is used"), raised to the first that holds
/// one CTA when it does not. The L1D keeps its sets and round(ways x (1 -
/// carve-out / array)) of its ways. Requires config.sm.unified_l1_bytes != 0
/// (validate_config checks the rest).
L1Carveout choose_carveout(const core::GpuConfig& config, uint32_t shared_per_cta, uint32_t resident_ctas,
                           int preferred_percent = -1);

/// The SM as a launch sees it for occupancy: with a preferred carve-out
/// (`preferred_percent` 0..100) on a unified array, its shared memory is
/// that launch's carve-out (choose_carveout), so the preference can lower
/// the CTAs per SM; otherwise config.sm as it is.
core::SmConfig launch_sm(const core::GpuConfig& config, uint32_t shared_per_cta, int preferred_percent);

}  // namespace tlmgpu::platform
