// Launch files: running a checked plan on a device. First the checks that
// need the PTX module (kernel names, argument count and sizes, symbol names),
// then buffers, textures and symbols, the launch steps, dumps and
// expectations.
#pragma once

#include "platform/gpu_device.h"
#include "platform/launch_file.h"
#include "platform/launch_file_plan.h"

namespace tlmgpu::platform::launch_file {

/// Runs `plan` on `device`, as LaunchFile::run describes (the same
/// exceptions; a failed expectation is LaunchFileResult::verified == false).
LaunchFileResult run_launch_plan(const LaunchPlan& plan, GpuDevice& device, const LaunchFileOptions& options);

}  // namespace tlmgpu::platform::launch_file
