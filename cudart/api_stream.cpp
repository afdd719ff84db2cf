// Streams, events, host callbacks and the error API. The model runs each
// operation to completion when it is issued, in the program's order: a
// legal schedule of every stream (work in one stream stays in order;
// different streams may run in any order). Events carry the simulated
// cycles of the launches before them, so cudaEventElapsedTime measures the
// simulated GPU in timing and LT mode (0 in functional mode).
#include <cstring>

#include "cudart/cuda_runtime_state.h"

using tlmgpu::cudart::api_call;
using tlmgpu::cudart::CudaFailure;
using tlmgpu::cudart::CudaRuntime;

namespace {

struct ErrorText {
  cudaError_t code;
  const char* name;
  const char* description;
};

// CUDA's names for its codes; the descriptions are this library's own.
constexpr ErrorText kErrors[] = {
    {0, "cudaSuccess", "no error"},
    {1, "cudaErrorInvalidValue", "invalid argument"},
    {2, "cudaErrorMemoryAllocation", "out of memory"},
    {3, "cudaErrorInitializationError", "initialization error"},
    {4, "cudaErrorCudartUnloading", "driver shutting down"},
    {9, "cudaErrorInvalidConfiguration", "invalid configuration argument"},
    {12, "cudaErrorInvalidPitchValue", "invalid pitch argument"},
    {13, "cudaErrorInvalidSymbol", "invalid device symbol"},
    {16, "cudaErrorInvalidHostPointer", "invalid host pointer"},
    {17, "cudaErrorInvalidDevicePointer", "invalid device pointer"},
    {18, "cudaErrorInvalidTexture", "invalid texture reference"},
    {20, "cudaErrorInvalidChannelDescriptor", "invalid channel descriptor"},
    {21, "cudaErrorInvalidMemcpyDirection", "invalid copy direction for memcpy"},
    {34, "cudaErrorStubLibrary", "CUDA driver is a stub library"},
    {35, "cudaErrorInsufficientDriver", "CUDA driver version is insufficient for CUDA runtime version"},
    {52, "cudaErrorMissingConfiguration", "__global__ function call is not configured"},
    {53, "cudaErrorPriorLaunchFailure", "unspecified launch failure in prior launch"},
    {98, "cudaErrorInvalidDeviceFunction", "invalid device function"},
    {100, "cudaErrorNoDevice", "no CUDA-capable device is detected"},
    {101, "cudaErrorInvalidDevice", "invalid device ordinal"},
    {200, "cudaErrorInvalidKernelImage", "device kernel image is invalid"},
    {209, "cudaErrorNoKernelImageForDevice", "no kernel image is available for execution on the device"},
    {215, "cudaErrorUnsupportedLimit", "limit is not supported on this architecture"},
    {218, "cudaErrorInvalidPtx", "a PTX JIT compilation failed"},
    {222, "cudaErrorUnsupportedPtxVersion", "the provided PTX was compiled with an unsupported toolchain"},
    {400, "cudaErrorInvalidResourceHandle", "invalid resource handle"},
    {401, "cudaErrorIllegalState", "the operation is not permitted in the current state"},
    {500, "cudaErrorSymbolNotFound", "named symbol not found"},
    {600, "cudaErrorNotReady", "device not ready"},
    {700, "cudaErrorIllegalAddress", "an illegal memory access was encountered"},
    {701, "cudaErrorLaunchOutOfResources", "too many resources requested for launch"},
    {702, "cudaErrorLaunchTimeout", "the launch timed out and was terminated"},
    {710, "cudaErrorAssert", "device-side assert triggered"},
    {715, "cudaErrorIllegalInstruction", "an illegal instruction was encountered"},
    {716, "cudaErrorMisalignedAddress", "misaligned address"},
    {719, "cudaErrorLaunchFailure", "unspecified launch failure"},
    {720, "cudaErrorCooperativeLaunchTooLarge", "too many blocks in cooperative launch"},
    {800, "cudaErrorNotPermitted", "operation not permitted"},
    {801, "cudaErrorNotSupported", "operation not supported"},
    {900, "cudaErrorStreamCaptureUnsupported", "operation not permitted when stream is capturing"},
    {999, "cudaErrorUnknown", "unknown error"},
};

const ErrorText* find_error(cudaError_t code) {
  for (const ErrorText& e : kErrors)
    if (e.code == code) return &e;
  return nullptr;
}

/// Work in `stream` has completed (all of it has when it was issued);
/// what remains is its device output and the sticky error.
void synchronise(CudaRuntime& rt, cudaStream_t stream) {
  rt.stream_id(stream);
  rt.flush_device_output();
  rt.check_sticky();
}

}  // namespace

extern "C" {

// ------------------------------------------------------------------ errors

cudaError_t cudaGetLastError() {
  CudaRuntime& rt = CudaRuntime::get();
  std::lock_guard<std::recursive_mutex> lock(rt.mutex());
  // A fault is sticky: it stays the answer; other errors are reset by reading them.
  if (rt.sticky_error() != cudaSuccess) return rt.sticky_error();
  const cudaError_t e = tlmgpu::cudart::last_error();
  tlmgpu::cudart::last_error() = cudaSuccess;
  return e;
}

cudaError_t cudaPeekAtLastError() {
  CudaRuntime& rt = CudaRuntime::get();
  std::lock_guard<std::recursive_mutex> lock(rt.mutex());
  if (rt.sticky_error() != cudaSuccess) return rt.sticky_error();
  return tlmgpu::cudart::last_error();
}

const char* cudaGetErrorName(cudaError_t code) {
  const ErrorText* e = find_error(code);
  return e ? e->name : "cudaErrorUnknown";
}

const char* cudaGetErrorString(cudaError_t code) {
  const ErrorText* e = find_error(code);
  return e ? e->description : "unrecognized error code";
}

// ----------------------------------------------------------------- streams

cudaError_t cudaStreamCreate(cudaStream_t* stream) {
  return api_call("cudaStreamCreate", [&](CudaRuntime& rt) {
    if (!stream) throw CudaFailure(cudaErrorInvalidValue);
    *stream = rt.create_stream();
  });
}

cudaError_t cudaStreamCreateWithFlags(cudaStream_t* stream, unsigned int) { return cudaStreamCreate(stream); }
cudaError_t cudaStreamCreateWithPriority(cudaStream_t* stream, unsigned int, int) { return cudaStreamCreate(stream); }

cudaError_t cudaStreamDestroy(cudaStream_t stream) {
  return api_call("cudaStreamDestroy", [&](CudaRuntime& rt) { rt.destroy_stream(stream); });
}

cudaError_t cudaStreamSynchronize(cudaStream_t stream) {
  return api_call("cudaStreamSynchronize", [&](CudaRuntime& rt) { synchronise(rt, stream); });
}

cudaError_t cudaStreamQuery(cudaStream_t stream) {
  return api_call("cudaStreamQuery", [&](CudaRuntime& rt) {
    rt.stream_id(stream);
    rt.check_sticky();
  });
}

cudaError_t cudaStreamWaitEvent(cudaStream_t stream, cudaEvent_t event, unsigned int) {
  return api_call("cudaStreamWaitEvent", [&](CudaRuntime& rt) {
    rt.stream_id(stream);
    rt.event(event);
  });
}

cudaError_t cudaStreamGetPriority(cudaStream_t stream, int* priority) {
  return api_call("cudaStreamGetPriority", [&](CudaRuntime& rt) {
    rt.stream_id(stream);
    if (priority) *priority = 0;
  });
}

cudaError_t cudaStreamGetFlags(cudaStream_t stream, unsigned int* flags) {
  return api_call("cudaStreamGetFlags", [&](CudaRuntime& rt) {
    rt.stream_id(stream);
    if (flags) *flags = 0;
  });
}

cudaError_t cudaDeviceGetStreamPriorityRange(int* least, int* greatest) {
  if (least) *least = 0;
  if (greatest) *greatest = 0;
  return cudaSuccess;
}

cudaError_t cudaLaunchHostFunc(cudaStream_t stream, cudaHostFn_t fn, void* user_data) {
  // The work before it in the stream is done: the function runs now.
  const cudaError_t e = api_call("cudaLaunchHostFunc", [&](CudaRuntime& rt) {
    rt.stream_id(stream);
    rt.check_sticky();
    if (!fn) throw CudaFailure(cudaErrorInvalidValue);
  });
  if (e == cudaSuccess) fn(user_data);
  return e;
}

cudaError_t cudaStreamAddCallback(cudaStream_t stream, cudaStreamCallback_t callback, void* user_data,
                                  unsigned int flags) {
  cudaError_t status = cudaSuccess;
  const cudaError_t e = api_call("cudaStreamAddCallback", [&](CudaRuntime& rt) {
    rt.stream_id(stream);
    if (!callback || flags != 0) throw CudaFailure(cudaErrorInvalidValue);
    status = rt.sticky_error();
  });
  if (e == cudaSuccess) callback(stream, status, user_data);
  return e;
}

// ------------------------------------------------------------------ events

cudaError_t cudaEventCreate(cudaEvent_t* event) {
  return api_call("cudaEventCreate", [&](CudaRuntime& rt) {
    if (!event) throw CudaFailure(cudaErrorInvalidValue);
    *event = rt.create_event();
  });
}

cudaError_t cudaEventCreateWithFlags(cudaEvent_t* event, unsigned int) { return cudaEventCreate(event); }

cudaError_t cudaEventDestroy(cudaEvent_t event) {
  return api_call("cudaEventDestroy", [&](CudaRuntime& rt) { rt.destroy_event(event); });
}

cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream) {
  return api_call("cudaEventRecord", [&](CudaRuntime& rt) {
    rt.stream_id(stream);
    auto& e = rt.event(event);
    e.recorded = true;
    e.cycles = rt.device_cycles();
  });
}

cudaError_t cudaEventRecordWithFlags(cudaEvent_t event, cudaStream_t stream, unsigned int) {
  return cudaEventRecord(event, stream);
}

cudaError_t cudaEventSynchronize(cudaEvent_t event) {
  return api_call("cudaEventSynchronize", [&](CudaRuntime& rt) {
    rt.event(event);
    rt.flush_device_output();
    rt.check_sticky();
  });
}

cudaError_t cudaEventQuery(cudaEvent_t event) {
  return api_call("cudaEventQuery", [&](CudaRuntime& rt) {
    rt.event(event);
    rt.check_sticky();
  });
}

cudaError_t cudaEventElapsedTime(float* ms, cudaEvent_t start, cudaEvent_t end) {
  return api_call("cudaEventElapsedTime", [&](CudaRuntime& rt) {
    if (!ms) throw CudaFailure(cudaErrorInvalidValue);
    const auto& a = rt.event(start);
    const auto& b = rt.event(end);
    if (!a.recorded || !b.recorded) throw CudaFailure(cudaErrorInvalidResourceHandle, "an event was not recorded");
    const double cycles = double(b.cycles) - double(a.cycles);
    *ms = float(cycles / (rt.config().core_clock_mhz * 1000.0));
  });
}

}  // extern "C"
