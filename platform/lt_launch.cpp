#include "platform/lt_launch.h"

#include <algorithm>
#include <vector>

namespace tlmgpu::platform {

void run_lt_launch(const DeviceOptions& options, const exec::KernelContext& ctx, uint32_t launch_regs_per_thread,
                   FunctionalEngine::Totals& totals, LtLaunchRecord& record, LaunchPacer* pacer) {
  // The same registers per thread as timing mode (platform/timing_gpu.cpp),
  // so that both see the same occupancy.
  uint32_t regs = std::clamp(ctx.kernel->regs_per_thread, 1u, options.config.sm.max_regs_per_thread);
  RegisterSource source = RegisterSource::Estimate;
  if (options.regs_per_thread) {
    regs = options.regs_per_thread;
    source = RegisterSource::Override;
  } else if (launch_regs_per_thread) {
    regs = launch_regs_per_thread;
    source = RegisterSource::Launch;
  }
  // Checked before running, as timing mode does: a CTA that fits no SM is a LaunchError.
  const Occupancy occupancy = compute_occupancy(launch_sm(options.config, ctx.shared_bytes, ctx.preferred_shared_carveout),
                                                ctx.kernel->name, uint32_t(ctx.block.count()),
                                                ctx.shared_bytes, regs, source);
  record = LtLaunchRecord{};
  record.kernel = ctx.kernel->name;
  // CTA i runs on SM i mod gpu.num_sms, as the cost model and the L1D tag arrays assume.
  exec::KernelContext on_config = ctx;
  on_config.num_sms = options.config.num_sms;
  FunctionalEngine engine(on_config, options, &record.counts, pacer);
  // The per-CTA counts serve the estimate; a device keeps every launch's
  // record, so they are not kept (16 bytes a CTA).
  auto estimate = [&] {
    record.estimate = estimate_lt_cycles(record.counts, occupancy, options.config);
    std::vector<uint64_t>().swap(record.counts.cta_warp_insts);
    std::vector<uint64_t>().swap(record.counts.cta_longest_warp);
  };
  try {
    totals = engine.run();
  } catch (exec::DeviceFault& fault) {
    record.faulted = true;
    estimate();  // of the counts so far
    fault.set_executed_cycles(record.estimate.cycles);
    throw;
  }
  estimate();
}

}  // namespace tlmgpu::platform
