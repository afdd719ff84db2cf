// Runs a kernel functionally: CTAs in launch order, a window of them
// resident at once, their warps interleaved in short slices.
#pragma once

#include <cstdint>

#include "model/exec/kernel_context.h"
#include "platform/gpu_device.h"

namespace tlmgpu::platform {

class FunctionalEngine {
 public:
  struct Totals {
    uint64_t warp_insts = 0;
    uint64_t thread_insts = 0;
  };

  FunctionalEngine(const exec::KernelContext& ctx, const DeviceOptions& options) : ctx_(ctx), options_(options) {}
  /// Runs every CTA to completion. Throws exec::DeviceFault on a fault, a
  /// barrier deadlock, or when the watchdog sees no forward progress.
  Totals run();

 private:
  const exec::KernelContext& ctx_;
  const DeviceOptions& options_;
};

}  // namespace tlmgpu::platform
