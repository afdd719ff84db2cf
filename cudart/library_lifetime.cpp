// The library's start and end in the program: the statistics, timeline and
// the last device output are written when the program ends.
#include "cudart/cuda_runtime_state.h"

namespace {

// Programs that launch write their outputs from an atexit handler (the
// first launch registers it, CudaRuntime::launch); this destructor of the
// library writes them for a program that launched nothing, after the
// program's own atexit handlers (which unregister its fat binaries).
__attribute__((destructor)) void write_outputs_at_exit() {
  tlmgpu::cudart::CudaRuntime& rt = tlmgpu::cudart::CudaRuntime::get();
  std::lock_guard<std::recursive_mutex> lock(rt.mutex());
  rt.write_outputs();
}

}  // namespace

extern "C" {

/// libsystemc defines main() and refers to sc_main, which the dynamic loader
/// must resolve when it loads libsystemc; the CUDA program's own main() is
/// the one that runs, so this is never called.
int sc_main(int, char*[]) { return 1; }

/// Called by the generated stubs of the entry points not implemented
/// (unsupported_entry_points.cpp, made from entry_points.txt).
cudaError_t tlmgpu_cudart_not_supported(const char* name) { return tlmgpu::cudart::not_supported(name); }

}  // extern "C"
