// The process-wide cycle-level GPU. SystemC elaborates once per process, so
// every GpuDevice in timing mode shares one GPU (and one configuration).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/stats_provider.h"
#include "model/exec/kernel_context.h"
#include "platform/config_keys.h"
#include "platform/occupancy.h"

namespace tlmgpu::trace {
struct WarpTrace;
}
namespace tlmgpu::sm {
struct InstructionTiming;
}

namespace tlmgpu::platform {

struct DeviceOptions;
struct HostCopy;

/// Statistics of one timing-mode launch.
struct TimingLaunchStats {
  uint64_t sim_cycles = 0;
  uint64_t warp_insts = 0;
  uint64_t thread_insts = 0;
};

/// Where a GpuDevice's timing-mode launches run (GpuDevice::set_timing_backend):
/// by default the process-wide GPU below; a SoC peripheral runs them on its
/// own GpuTop inside the running simulation. The arguments are those of
/// run_timing_launch.
class TimingBackend {
 public:
  virtual ~TimingBackend() = default;
  virtual TimingLaunchStats run_launch(const DeviceOptions& options, const exec::KernelContext& ctx,
                                       std::shared_ptr<void>& module_cache, uint64_t device_id,
                                       const std::vector<HostCopy>& host_copies, uint32_t launch_regs_per_thread) = 0;
};

/// The per-module analysis (cached in `module_cache`) and the registers per
/// thread a timing launch runs with (see run_timing_launch).
struct TimingLaunchSetup {
  const std::vector<sm::InstructionTiming>* timing = nullptr;
  uint32_t regs_per_thread = 0;
  RegisterSource regs_source = RegisterSource::Estimate;
};
TimingLaunchSetup prepare_timing_launch(const DeviceOptions& options, const exec::KernelContext& ctx,
                                        std::shared_ptr<void>& module_cache, uint32_t launch_regs_per_thread);

/// Runs one launch on the process-wide GPU for options.config (elaborated at
/// the first call). `module_cache` keeps per-module analysis between launches;
/// `device_id` identifies the caller (the L2 starts empty for each new device);
/// `host_copies` (the device's copies since its last launch) are left in the
/// L2 before the launch starts. Registers per thread for occupancy:
/// options.regs_per_thread when set, else `launch_regs_per_thread` when not 0,
/// else the kernel's PTX estimate capped at sm.max_regs_per_thread.
/// Throws LaunchError (CTA does not fit, another configuration was already
/// elaborated) or exec::DeviceFault.
TimingLaunchStats run_timing_launch(const DeviceOptions& options, const exec::KernelContext& ctx,
                                    std::shared_ptr<void>& module_cache, uint64_t device_id,
                                    const std::vector<HostCopy>& host_copies, uint32_t launch_regs_per_thread);

/// Runs `ctas` CTAs of a text trace (each runs all the trace's warps) on the
/// process-wide GPU for options.config; `trace` must outlive the call.
TimingLaunchStats run_trace_launch(const DeviceOptions& options, const trace::WarpTrace& trace, uint32_t ctas);

/// One launch of the process-wide GPU: when each CTA ran, and where.
struct TimingLaunchRecord {
  std::string kernel;
  uint64_t start_cycle = 0;   ///< absolute cycle of the launch's first tick
  uint64_t cycles = 0;
  uint64_t last_cta_execution_time = 0;  ///< last CTA's dispatch to the kernel's end (seed 002)
  Occupancy occupancy;  ///< CTAs per SM and what limits them
  /// A unified L1D / shared array (sm.unified_l1_bytes): the launch's
  /// shared-memory carve-out and the L1D left (choose_carveout); -1 / 0 without one.
  int32_t shared_carveout_kb = -1;
  uint32_t l1d_bytes = 0;
  bool faulted = false;  ///< ended in a device fault: cycles up to it
  struct Cta {
    uint32_t sm = 0;
    uint64_t start = 0, end = 0;  ///< cycles relative to the launch start
  };
  std::vector<Cta> ctas;  ///< by linear CTA id
};

class GpuTop;
/// The process-wide GPU for `config`, built now if it was not (the first
/// launch would build it): a test or an integrator binds to its memory
/// system (MemorySystem::bind_foreign_channel) before the first launch.
/// Throws LaunchError when another configuration was already built.
GpuTop& timing_gpu_top(const core::GpuConfig& config);
/// Every launch the process-wide GPU ran, in order.
const std::vector<TimingLaunchRecord>& timing_launches();

}  // namespace tlmgpu::platform
namespace tlmgpu::schedulers {
class WarpSchedulerPolicy;
}
namespace tlmgpu::platform {

/// Every warp scheduler's policy with the scheduler's hierarchical name
/// (gpu.sm0.sched0 ...), for policy-specific reports.
std::vector<std::pair<std::string, const schedulers::WarpSchedulerPolicy*>> timing_policies();

/// Statistics of every module of the process-wide GPU, by hierarchical name
/// (empty when no GPU was elaborated); with `descriptions`, what each counts.
std::map<std::string, double> timing_stats(core::StatDescriptions* descriptions = nullptr);

/// From now on, records a timeline of every launch the process-wide GPU
/// completes, sampled every `interval_cycles` (> 0) cycles
/// (platform/timeline_recorder.h). Without this call the GPU does no
/// timeline work at all.
void record_timeline(uint64_t interval_cycles);

/// Writes what record_timeline() recorded (the Chrome trace event format) to
/// `path`; throws std::runtime_error when it cannot be written, or
/// std::logic_error when no timeline is being recorded.
void write_timeline(const std::string& path);

}  // namespace tlmgpu::platform
