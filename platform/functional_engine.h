// Runs a kernel functionally: CTAs in launch order, a window of them
// resident at once, their warps interleaved in short slices.
#pragma once

#include <cstdint>

#include "model/exec/kernel_context.h"
#include "platform/gpu_device.h"
#include "platform/lt_cost_model.h"

namespace tlmgpu::platform {

class FunctionalEngine {
 public:
  struct Totals {
    uint64_t warp_insts = 0;
    uint64_t thread_insts = 0;
  };

  /// With `lt_counts`, also counts what LT mode's cost model needs
  /// (instructions by pipeline, coalesced lines and sectors under
  /// options.config, shared-memory bank cycles) into it. With `pacer`, tells
  /// it the warp instructions so far after each round of warp slices.
  FunctionalEngine(const exec::KernelContext& ctx, const DeviceOptions& options,
                   LtLaunchCounts* lt_counts = nullptr, LaunchPacer* pacer = nullptr)
      : ctx_(ctx), options_(options), lt_counts_(lt_counts), pacer_(pacer) {}
  /// Runs every CTA to completion. Throws exec::DeviceFault on a fault, a
  /// barrier deadlock, or when the watchdog sees no forward progress, and
  /// LaunchAborted when the pacer stops the launch.
  Totals run();

 private:
  // One loop, compiled twice, so that functional mode pays nothing for LT's counting.
  template <bool kCount>
  Totals run_ctas();

  const exec::KernelContext& ctx_;
  const DeviceOptions& options_;
  LtLaunchCounts* lt_counts_;
  LaunchPacer* pacer_;
};

}  // namespace tlmgpu::platform
