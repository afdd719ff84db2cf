// Registers per thread that ptxas allocates for each workload kernel: facts
// from `ptxas -arch=sm_75 -v workloads/NAME/NAME.ptx` (CUDA 13.0), as
// GPGPU-Sim takes them for its occupancy. Timing-mode launches of workload
// kernels use these counts (capped at sm.max_regs_per_thread: a Fermi
// compile would spill beyond 63); the PTX estimate
// (model/ptx/register_allocation.h) serves kernels with no recorded count.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "platform/gpu_device.h"

namespace tlmgpu::workloads {

/// Kernel name -> ptxas's count, for every kernel of every workload.
const std::map<std::string, uint32_t>& ptxas_registers();
/// ptxas's count for `kernel` of `workload` (WORKLOAD/KERNEL first, then KERNEL).
std::optional<uint32_t> ptxas_registers_of(const std::string& workload, const std::string& kernel);

/// Loads workload `name`'s committed PTX into `device` and records ptxas's
/// register count for each of its kernels (GpuDevice::set_kernel_registers).
platform::ModuleHandle load_workload_module(platform::GpuDevice& device, const std::string& name);

}  // namespace tlmgpu::workloads
