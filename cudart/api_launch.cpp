// Entry points nvcc's host code calls (registration at program start, the
// <<<>>> launch path of CUDA 13) and the launch API programs call.
#include <cstring>

#include "cudart/cuda_runtime_state.h"

using tlmgpu::cudart::api_call;
using tlmgpu::cudart::CudaFailure;
using tlmgpu::cudart::CudaRuntime;

extern "C" {

void** __cudaRegisterFatBinary(void* fat_cubin) {
  CudaRuntime& rt = CudaRuntime::get();
  std::lock_guard<std::recursive_mutex> lock(rt.mutex());
  return rt.register_fat_binary(fat_cubin);
}

void __cudaRegisterFatBinaryEnd(void** /*handle*/) {}

void __cudaUnregisterFatBinary(void** handle) {
  CudaRuntime& rt = CudaRuntime::get();
  std::lock_guard<std::recursive_mutex> lock(rt.mutex());
  rt.unregister_fat_binary(handle);
}

char __cudaInitModule(void** handle) {
  return api_call("__cudaInitModule", [&](CudaRuntime& rt) { rt.init_module(handle); }) == cudaSuccess;
}

void __cudaRegisterFunction(void** handle, const char* host_function, char* device_function, const char* /*name*/,
                            int /*thread_limit*/, uint3*, uint3*, dim3*, dim3*, int*) {
  api_call("__cudaRegisterFunction", [&](CudaRuntime& rt) { rt.register_function(handle, host_function, device_function); });
}

void __cudaRegisterVar(void** handle, char* host_variable, char* device_address, const char* device_name, int /*ext*/,
                       size_t size, int constant, int /*global*/) {
  (void)device_address;
  api_call("__cudaRegisterVar", [&](CudaRuntime& rt) {
    rt.register_variable(handle, host_variable, device_name, size, constant != 0, nullptr);
  });
}

void __cudaRegisterManagedVar(void** handle, void** host_pointer_address, char* /*device_address*/,
                              const char* device_name, int /*ext*/, size_t size, int constant, int /*global*/) {
  api_call("__cudaRegisterManagedVar", [&](CudaRuntime& rt) {
    // The host code reads the variable through *host_pointer_address; the
    // same address identifies the variable to cudaMemcpyToSymbol & co.
    rt.register_variable(handle, host_pointer_address, device_name, size, constant != 0, host_pointer_address);
  });
}

void __cudaRegisterHostVar(void**, const char*, char*, size_t) {}

cudaError_t __cudaPushCallConfiguration(dim3 grid, dim3 block, size_t shared, void* stream) {
  return api_call("__cudaPushCallConfiguration",
                  [&](CudaRuntime& rt) { rt.push_call_configuration(grid, block, shared, stream); });
}

cudaError_t __cudaPopCallConfiguration(dim3* grid, dim3* block, size_t* shared, void* stream) {
  return api_call("__cudaPopCallConfiguration", [&](CudaRuntime& rt) {
    if (!rt.pop_call_configuration(grid, block, shared, static_cast<void**>(stream)))
      throw CudaFailure(cudaErrorMissingConfiguration, "a launch without <<<>>> configuration");
  });
}

cudaError_t __cudaGetKernel(cudaKernel_t* kernel, const void* host_function) {
  return api_call("__cudaGetKernel", [&](CudaRuntime& rt) {
    if (!kernel) throw CudaFailure(cudaErrorInvalidValue);
    *kernel = reinterpret_cast<cudaKernel_t>(&rt.kernel_for(host_function));
  });
}

cudaError_t __cudaLaunchKernel(cudaKernel_t kernel, dim3 grid, dim3 block, void** args, size_t shared,
                               cudaStream_t stream) {
  return api_call("__cudaLaunchKernel", [&](CudaRuntime& rt) {
    if (!kernel) throw CudaFailure(cudaErrorInvalidDeviceFunction, "launch of an unregistered kernel");
    rt.launch(rt.kernel_of(kernel), grid, block, args, shared, stream, false);
  });
}

cudaError_t __cudaLaunchKernel_ptsz(cudaKernel_t kernel, dim3 grid, dim3 block, void** args, size_t shared,
                                    cudaStream_t stream) {
  return __cudaLaunchKernel(kernel, grid, block, args, shared, stream);
}

cudaError_t cudaLaunchKernel(const void* func, dim3 grid, dim3 block, void** args, size_t shared,
                             cudaStream_t stream) {
  return api_call("cudaLaunchKernel", [&](CudaRuntime& rt) {
    rt.launch(rt.kernel_for(func), grid, block, args, shared, stream, false);
  });
}

cudaError_t cudaLaunchKernel_ptsz(const void* func, dim3 grid, dim3 block, void** args, size_t shared,
                                  cudaStream_t stream) {
  return cudaLaunchKernel(func, grid, block, args, shared, stream);
}

cudaError_t cudaLaunchCooperativeKernel(const void* func, dim3 grid, dim3 block, void** args, size_t shared,
                                        cudaStream_t stream) {
  return api_call("cudaLaunchCooperativeKernel", [&](CudaRuntime& rt) {
    rt.launch(rt.kernel_for(func), grid, block, args, shared, stream, true);
  });
}

cudaError_t cudaLaunchCooperativeKernel_ptsz(const void* func, dim3 grid, dim3 block, void** args, size_t shared,
                                             cudaStream_t stream) {
  return cudaLaunchCooperativeKernel(func, grid, block, args, shared, stream);
}

cudaError_t cudaLaunchKernelExC(const cudaLaunchConfig_t* config, const void* func, void** args) {
  return api_call("cudaLaunchKernelExC", [&](CudaRuntime& rt) {
    if (!config) throw CudaFailure(cudaErrorInvalidValue, "no launch configuration");
    bool cooperative = false;
    for (unsigned i = 0; i < config->numAttrs; ++i) {
      const cudaLaunchAttribute& a = config->attrs[i];
      int value = 0;
      std::memcpy(&value, a.value, sizeof(value));
      if (a.id == cudaLaunchAttributeCooperative) cooperative = value != 0;
      else throw CudaFailure(cudaErrorNotSupported, "launch attribute " + std::to_string(a.id) + " is not supported");
    }
    rt.launch(rt.kernel_for(func), config->gridDim, config->blockDim, args, config->dynamicSmemBytes, config->stream,
              cooperative);
  });
}

}  // extern "C"
