// The process-wide cycle-level GPU. SystemC elaborates once per process, so
// every GpuDevice in timing mode shares one GpuTop (and one configuration).
#pragma once

#include "platform/gpu_config.h"
#include "platform/gpu_top.h"

namespace tlmgpu::platform {

/// The GPU for `config`, elaborated at the first call. Throws LaunchError if
/// a later call asks for a different configuration.
GpuTop& timing_gpu(const GpuConfig& config);

/// The GPU if one was elaborated, else nullptr.
GpuTop* existing_timing_gpu();

}  // namespace tlmgpu::platform
