// The device: properties and attributes from the preset's configuration,
// limits, synchronisation and reset, function attributes and occupancy.
#include <algorithm>
#include <cstring>
#include <string>

#include "cudart/cuda_runtime_state.h"
#include "platform/occupancy.h"

using tlmgpu::cudart::api_call;
using tlmgpu::cudart::CudaFailure;
using tlmgpu::cudart::CudaRuntime;

namespace {

/// What the configuration keys do not say about the GPU a preset models.
struct DeviceIdentity {
  const char* name;
  int major, minor;     ///< compute capability
  uint64_t memory_bytes;
};

/// Sources: NVIDIA's product pages and the CUDA C Programming Guide's
/// compute capability table (GTX 480: 2.0, 1536 MB; TITAN X (Pascal): 6.1,
/// 12 GB; Tesla V100: 7.0, 16 GB; GeForce RTX 2060: 7.5, 6 GB; GeForce
/// RTX 3070: 8.6, 8 GB). Vortex is not an NVIDIA GPU: it runs the sm_75 PTX
/// the programs carry, so it reports 7.5, with the 4 GB its FPGA boards have.
DeviceIdentity identity_of(const std::string& preset) {
  if (preset == "gtx480" || preset == "gtx480_14sm") return {"NVIDIA GeForce GTX 480 (tlmgpu model)", 2, 0, 1536ull << 20};
  if (preset == "titanx_pascal") return {"NVIDIA TITAN X (Pascal) (tlmgpu model)", 6, 1, 12ull << 30};
  if (preset == "qv100") return {"Tesla V100 (tlmgpu model)", 7, 0, 16ull << 30};
  if (preset == "rtx2060") return {"NVIDIA GeForce RTX 2060 (tlmgpu model)", 7, 5, 6ull << 30};
  if (preset == "rtx3070") return {"NVIDIA GeForce RTX 3070 (tlmgpu model)", 8, 6, 8ull << 30};
  if (preset == "vortex_1sm") return {"Vortex, one SM (tlmgpu model)", 7, 5, 4ull << 30};
  return {"tlmgpu model", 7, 5, 4ull << 30};
}

int check_device(int device) {
  if (device != 0) throw CudaFailure(cudaErrorInvalidDevice, "device " + std::to_string(device) + " (the model has one, 0)");
  return device;
}

/// deviceQuery's "memory clock": the data rate over two (DDR), in kHz.
int memory_clock_khz(const tlmgpu::core::GpuConfig& c) { return int(c.dram.clock_mhz * c.dram.data_rate / 2 * 1000); }
int memory_bus_bits(const tlmgpu::core::GpuConfig& c) { return int(c.dram.channels * c.dram.bus_bytes * 8); }
uint64_t l2_bytes(const tlmgpu::core::GpuConfig& c) { return uint64_t(c.l2.size_bytes) * c.l2_slices; }

void fill_properties(cudaDeviceProp& p, const tlmgpu::core::GpuConfig& c) {
  std::memset(&p, 0, sizeof(p));
  const DeviceIdentity id = identity_of(c.preset);
  std::strncpy(p.name, id.name, sizeof(p.name) - 1);
  p.totalGlobalMem = id.memory_bytes;
  p.sharedMemPerBlock = tlmgpu::platform::max_shared_bytes_per_cta(c);
  p.regsPerBlock = int(std::min<uint32_t>(c.sm.registers, 65536));
  p.warpSize = 32;
  p.memPitch = 2147483647;
  p.maxThreadsPerBlock = int(std::min<uint32_t>(1024, c.sm.max_threads));
  p.maxThreadsDim[0] = p.maxThreadsDim[1] = 1024;
  p.maxThreadsDim[2] = 64;
  p.maxGridSize[0] = 2147483647;
  p.maxGridSize[1] = p.maxGridSize[2] = 65535;
  p.totalConstMem = 65536;
  p.major = id.major;
  p.minor = id.minor;
  p.textureAlignment = 512;
  p.texturePitchAlignment = 32;
  p.multiProcessorCount = int(c.num_sms);
  p.canMapHostMemory = 1;
  p.maxTexture1D = 65536;
  p.maxTexture2D[0] = 65536;
  p.maxTexture2D[1] = 65536;
  p.maxTexture3D[0] = p.maxTexture3D[1] = p.maxTexture3D[2] = 4096;
  p.maxSurface1D = 65536;
  p.maxSurface2D[0] = p.maxSurface2D[1] = 65536;
  p.surfaceAlignment = 512;
  p.concurrentKernels = 1;
  p.asyncEngineCount = 1;
  p.unifiedAddressing = 1;
  p.memoryBusWidth = memory_bus_bits(c);
  p.l2CacheSize = int(l2_bytes(c));
  p.maxThreadsPerMultiProcessor = int(c.sm.max_threads);
  p.globalL1CacheSupported = 1;
  p.localL1CacheSupported = 1;
  p.sharedMemPerMultiprocessor = c.sm.shared_bytes;
  p.regsPerMultiprocessor = int(c.sm.registers);
  p.managedMemory = 1;
  p.concurrentManagedAccess = 0;
  p.cooperativeLaunch = 1;
  p.sharedMemPerBlockOptin = tlmgpu::platform::max_shared_bytes_per_cta(c);
  p.maxBlocksPerMultiProcessor = int(c.sm.max_ctas);
  p.memoryPoolsSupported = 1;
}

int attribute_value(cudaDeviceAttr attr, const tlmgpu::core::GpuConfig& c) {
  cudaDeviceProp p;
  fill_properties(p, c);
  switch (attr) {
    case cudaDevAttrMaxThreadsPerBlock: return p.maxThreadsPerBlock;
    case cudaDevAttrMaxBlockDimX: return p.maxThreadsDim[0];
    case cudaDevAttrMaxBlockDimY: return p.maxThreadsDim[1];
    case cudaDevAttrMaxBlockDimZ: return p.maxThreadsDim[2];
    case cudaDevAttrMaxGridDimX: return p.maxGridSize[0];
    case cudaDevAttrMaxGridDimY: return p.maxGridSize[1];
    case cudaDevAttrMaxGridDimZ: return p.maxGridSize[2];
    case cudaDevAttrMaxSharedMemoryPerBlock: return int(p.sharedMemPerBlock);
    case cudaDevAttrTotalConstantMemory: return int(p.totalConstMem);
    case cudaDevAttrWarpSize: return p.warpSize;
    case cudaDevAttrMaxPitch: return int(p.memPitch);
    case cudaDevAttrMaxRegistersPerBlock: return p.regsPerBlock;
    case cudaDevAttrClockRate: return int(c.core_clock_mhz * 1000);
    case cudaDevAttrTextureAlignment: return int(p.textureAlignment);
    case cudaDevAttrGpuOverlap: return 1;
    case cudaDevAttrMultiProcessorCount: return p.multiProcessorCount;
    case cudaDevAttrKernelExecTimeout: return 0;
    case cudaDevAttrIntegrated: return 0;
    case cudaDevAttrCanMapHostMemory: return 1;
    case cudaDevAttrComputeMode: return 0;
    case cudaDevAttrConcurrentKernels: return 1;
    case cudaDevAttrEccEnabled: return 0;
    case cudaDevAttrMemoryClockRate: return memory_clock_khz(c);
    case cudaDevAttrGlobalMemoryBusWidth: return p.memoryBusWidth;
    case cudaDevAttrL2CacheSize: return p.l2CacheSize;
    case cudaDevAttrMaxThreadsPerMultiProcessor: return p.maxThreadsPerMultiProcessor;
    case cudaDevAttrAsyncEngineCount: return p.asyncEngineCount;
    case cudaDevAttrUnifiedAddressing: return 1;
    case cudaDevAttrTexturePitchAlignment: return int(p.texturePitchAlignment);
    case cudaDevAttrComputeCapabilityMajor: return p.major;
    case cudaDevAttrComputeCapabilityMinor: return p.minor;
    case cudaDevAttrGlobalL1CacheSupported: return 1;
    case cudaDevAttrLocalL1CacheSupported: return 1;
    case cudaDevAttrMaxSharedMemoryPerMultiprocessor: return int(p.sharedMemPerMultiprocessor);
    case cudaDevAttrMaxRegistersPerMultiprocessor: return p.regsPerMultiprocessor;
    case cudaDevAttrManagedMemory: return 1;
    case cudaDevAttrIsMultiGpuBoard: return 0;
    case cudaDevAttrConcurrentManagedAccess: return 0;
    case cudaDevAttrCooperativeLaunch: return 1;
    case cudaDevAttrMaxSharedMemoryPerBlockOptin: return int(p.sharedMemPerBlockOptin);
    case cudaDevAttrMaxBlocksPerMultiprocessor: return p.maxBlocksPerMultiProcessor;
    case cudaDevAttrMemoryPoolsSupported: return 1;
  }
  throw CudaFailure(cudaErrorNotSupported, "device attribute " + std::to_string(int(attr)) + " is not modelled");
}

/// CTAs of `k` one SM holds with `threads` threads and `dynamic_shared` bytes (0 when none fits).
uint32_t ctas_per_sm(CudaRuntime& rt, tlmgpu::cudart::RegisteredKernel& k, uint32_t threads, size_t dynamic_shared) {
  const uint32_t static_shared = rt.function_of(k).static_shared_bytes;
  const uint32_t regs = rt.registers_of(k);
  try {
    const uint32_t shared = uint32_t(static_shared + dynamic_shared);
    return tlmgpu::platform::compute_occupancy(tlmgpu::platform::launch_sm(rt.config(), shared, k.preferred_carveout),
                                               k.name, threads, shared, regs,
                                               tlmgpu::platform::RegisterSource::Launch)
        .ctas_per_sm;
  } catch (const tlmgpu::platform::LaunchError&) {
    return 0;
  }
}

}  // namespace

namespace ptx = tlmgpu::ptx;

extern "C" {

cudaError_t cudaGetDeviceCount(int* count) {
  return api_call("cudaGetDeviceCount", [&](CudaRuntime&) {
    if (!count) throw CudaFailure(cudaErrorInvalidValue);
    *count = 1;
  });
}

cudaError_t cudaGetDevice(int* device) {
  return api_call("cudaGetDevice", [&](CudaRuntime&) {
    if (!device) throw CudaFailure(cudaErrorInvalidValue);
    *device = 0;
  });
}

cudaError_t cudaSetDevice(int device) {
  return api_call("cudaSetDevice", [&](CudaRuntime&) { check_device(device); });
}

cudaError_t cudaInitDevice(int device, unsigned int, unsigned int) {
  return api_call("cudaInitDevice", [&](CudaRuntime& rt) {
    check_device(device);
    rt.device();
  });
}

cudaError_t cudaSetDeviceFlags(unsigned int) { return cudaSuccess; }
cudaError_t cudaGetDeviceFlags(unsigned int* flags) {
  if (flags) *flags = 0;
  return cudaSuccess;
}

cudaError_t cudaGetDeviceProperties(cudaDeviceProp* prop, int device) {
  return api_call("cudaGetDeviceProperties", [&](CudaRuntime& rt) {
    check_device(device);
    if (!prop) throw CudaFailure(cudaErrorInvalidValue);
    fill_properties(*prop, rt.config());
  });
}

cudaError_t cudaDeviceGetAttribute(int* value, cudaDeviceAttr attr, int device) {
  return api_call("cudaDeviceGetAttribute", [&](CudaRuntime& rt) {
    check_device(device);
    if (!value) throw CudaFailure(cudaErrorInvalidValue);
    *value = attribute_value(attr, rt.config());
  });
}

cudaError_t cudaMemGetInfo(size_t* free_bytes, size_t* total_bytes) {
  return api_call("cudaMemGetInfo", [&](CudaRuntime& rt) {
    const uint64_t total = identity_of(rt.config().preset).memory_bytes;
    const uint64_t used = rt.device().memory().bytes_allocated();
    if (total_bytes) *total_bytes = total;
    if (free_bytes) *free_bytes = used < total ? total - used : 0;
  });
}

cudaError_t cudaDeviceSynchronize() {
  return api_call("cudaDeviceSynchronize", [&](CudaRuntime& rt) {
    rt.flush_device_output();
    rt.check_sticky();
  });
}

cudaError_t cudaThreadSynchronize() { return cudaDeviceSynchronize(); }

cudaError_t cudaDeviceReset() {
  return api_call("cudaDeviceReset", [&](CudaRuntime& rt) { rt.reset_device(); });
}

cudaError_t cudaDeviceSetLimit(cudaLimit limit, size_t value) {
  return api_call("cudaDeviceSetLimit", [&](CudaRuntime& rt) {
    switch (limit) {
      case cudaLimitMallocHeapSize:
        // The heap is carved out at the first launch of a module calling malloc.
        if (value > UINT32_MAX) throw CudaFailure(cudaErrorInvalidValue, "heap larger than 4 GiB");
        rt.device().set_malloc_heap_bytes(uint32_t(value));
        return;
      case cudaLimitPrintfFifoSize: rt.printf_fifo_bytes = value; return;
      case cudaLimitStackSize: rt.stack_bytes = value; return;
      default: throw CudaFailure(cudaErrorUnsupportedLimit, "limit " + std::to_string(int(limit)));
    }
  });
}

cudaError_t cudaDeviceGetLimit(size_t* value, cudaLimit limit) {
  return api_call("cudaDeviceGetLimit", [&](CudaRuntime& rt) {
    if (!value) throw CudaFailure(cudaErrorInvalidValue);
    switch (limit) {
      case cudaLimitMallocHeapSize: *value = rt.device().options().config.malloc_heap_bytes; return;
      case cudaLimitPrintfFifoSize: *value = rt.printf_fifo_bytes; return;
      case cudaLimitStackSize: *value = rt.stack_bytes; return;
      default: throw CudaFailure(cudaErrorUnsupportedLimit, "limit " + std::to_string(int(limit)));
    }
  });
}

cudaError_t cudaDeviceSetCacheConfig(int) { return cudaSuccess; }
cudaError_t cudaDeviceGetCacheConfig(int* config) {
  if (config) *config = 0;
  return cudaSuccess;
}
cudaError_t cudaFuncSetCacheConfig(const void*, int) { return cudaSuccess; }
cudaError_t cudaDeviceSetSharedMemConfig(int) { return cudaSuccess; }

cudaError_t cudaDriverGetVersion(int* version) {
  if (!version) return tlmgpu::cudart::set_error(cudaErrorInvalidValue);
  *version = 13000;
  return cudaSuccess;
}
cudaError_t cudaRuntimeGetVersion(int* version) {
  if (!version) return tlmgpu::cudart::set_error(cudaErrorInvalidValue);
  *version = 13000;
  return cudaSuccess;
}

cudaError_t cudaFuncGetAttributes(cudaFuncAttributes* attr, const void* func) {
  return api_call("cudaFuncGetAttributes", [&](CudaRuntime& rt) {
    if (!attr) throw CudaFailure(cudaErrorInvalidValue);
    auto& k = rt.kernel_for(func);
    const ptx::Function& f = rt.function_of(k);
    const auto& mod = rt.device().module(rt.module_of(k));
    std::memset(attr, 0, sizeof(*attr));
    attr->sharedSizeBytes = f.static_shared_bytes;
    attr->localSizeBytes = mod.local_bytes_per_thread;
    attr->numRegs = int(rt.registers_of(k));
    uint32_t max_threads = 1024;
    if (f.maxntid[0]) max_threads = f.maxntid[0] * std::max(f.maxntid[1], 1u) * std::max(f.maxntid[2], 1u);
    // The most threads one CTA may have with these registers on this SM.
    while (max_threads > 32 && ctas_per_sm(rt, k, max_threads, 0) == 0) max_threads -= 32;
    attr->maxThreadsPerBlock = int(max_threads);
    attr->ptxVersion = 75;
    attr->binaryVersion = 75;
    attr->maxDynamicSharedSizeBytes =
        k.max_dynamic_shared >= 0
            ? k.max_dynamic_shared
            : int(tlmgpu::platform::max_shared_bytes_per_cta(rt.config()) - f.static_shared_bytes);
    attr->preferredShmemCarveout = k.preferred_carveout;
  });
}

cudaError_t cudaFuncSetAttribute(const void* func, cudaFuncAttribute attr, int value) {
  return api_call("cudaFuncSetAttribute", [&](CudaRuntime& rt) {
    auto& k = rt.kernel_for(func);
    if (attr == cudaFuncAttributeMaxDynamicSharedMemorySize) {
      const auto limit = tlmgpu::platform::max_shared_bytes_per_cta(rt.config());
      if (value < 0 || uint32_t(value) > limit)
        throw CudaFailure(cudaErrorInvalidValue, std::to_string(value) + " bytes of dynamic shared memory (the " +
                                                     rt.config().preset + " preset allows " + std::to_string(limit) + ")");
      k.max_dynamic_shared = value;
    } else if (attr == cudaFuncAttributePreferredSharedMemoryCarveout) {
      // cudaSharedmemCarveoutDefault (-1), MaxL1 (0) .. MaxShared (100)
      if (value < -1 || value > 100)
        throw CudaFailure(cudaErrorInvalidValue,
                          "preferred shared-memory carve-out " + std::to_string(value) + " (a percentage 0..100, or -1)");
      k.preferred_carveout = value;
    } else {
      throw CudaFailure(cudaErrorInvalidValue, "function attribute " + std::to_string(int(attr)));
    }
  });
}

cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(int* blocks, const void* func, int block_size,
                                                                   size_t dynamic_shared, unsigned int) {
  return api_call("cudaOccupancyMaxActiveBlocksPerMultiprocessor", [&](CudaRuntime& rt) {
    if (!blocks || block_size <= 0) throw CudaFailure(cudaErrorInvalidValue);
    *blocks = int(ctas_per_sm(rt, rt.kernel_for(func), uint32_t(block_size), dynamic_shared));
  });
}

cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int* blocks, const void* func, int block_size,
                                                          size_t dynamic_shared) {
  return cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(blocks, func, block_size, dynamic_shared, 0);
}

// cudaOccupancyMaxPotentialBlockSize is a template in CUDA's header, built
// on the occupancy query, cudaFuncGetAttributes and cudaDeviceGetAttribute.
cudaError_t cudaOccupancyAvailableDynamicSMemPerBlock(size_t* bytes, const void* func, int num_blocks, int block_size) {
  return api_call("cudaOccupancyAvailableDynamicSMemPerBlock", [&](CudaRuntime& rt) {
    if (!bytes || num_blocks <= 0 || block_size <= 0) throw CudaFailure(cudaErrorInvalidValue);
    auto& k = rt.kernel_for(func);
    const uint32_t static_shared = rt.function_of(k).static_shared_bytes;
    const uint64_t per_sm = rt.config().sm.shared_bytes / uint64_t(num_blocks);
    const uint64_t cap = std::min<uint64_t>(per_sm, tlmgpu::platform::max_shared_bytes_per_cta(rt.config()));
    *bytes = cap > static_shared ? cap - static_shared : 0;
  });
}

}  // extern "C"
