// Temporary while the cycle-level modules are integrated (this session).
#include "platform/gpu_device.h"
#include "platform/timing_gpu.h"

namespace tlmgpu::platform {
TimingLaunchStats run_timing_launch(const DeviceOptions&, const exec::KernelContext&, std::shared_ptr<void>&) {
  throw LaunchError("timing mode is not available in this build yet");
}
}  // namespace tlmgpu::platform
