// One launch in LT mode: the functional engine runs it and counts, then the
// cost model estimates its cycles on the configured GPU.
#pragma once

#include <cstdint>

#include "model/exec/kernel_context.h"
#include "platform/functional_engine.h"
#include "platform/gpu_device.h"
#include "platform/lt_cost_model.h"

namespace tlmgpu::platform {

/// Runs the launch in `ctx` to completion and fills `record` with its counts
/// and estimate; the instruction totals go to `totals`. Registers per thread
/// for occupancy as in timing mode: DeviceOptions::regs_per_thread, else
/// `launch_regs_per_thread`, else the PTX estimate capped at
/// sm.max_regs_per_thread. LaunchError when no CTA fits an SM. A device fault
/// is rethrown (as functional mode) after `record` has been filled with the
/// estimate of what ran before it (faulted set; the fault's executed_cycles
/// that estimate). `pacer` as FunctionalEngine's.
void run_lt_launch(const DeviceOptions& options, const exec::KernelContext& ctx, uint32_t launch_regs_per_thread,
                   FunctionalEngine::Totals& totals, LtLaunchRecord& record, LaunchPacer* pacer = nullptr);

}  // namespace tlmgpu::platform
