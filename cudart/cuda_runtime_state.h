// The state behind libcudart.so.13: one simulated GPU per process (a
// platform::GpuDevice configured from TLMGPU_* environment variables), the
// fat binaries, kernels and variables the program registered, streams,
// events, the sticky error and every launch's statistics. The extern "C"
// entry points (cudart/api_*.cpp) translate CUDA's calls into calls on it.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "cudart/cuda_abi.h"
#include "fatbin/fatbin_reader.h"
#include "platform/gpu_device.h"

namespace tlmgpu::cudart {

/// An error an entry point returns: its CUDA code and, when the user
/// should see why, a message for stderr.
class CudaFailure : public std::exception {
 public:
  CudaFailure(cudaError_t code, std::string message = {}) : code_(code), message_(std::move(message)) {}
  cudaError_t code() const { return code_; }
  const char* what() const noexcept override { return message_.c_str(); }

 private:
  cudaError_t code_;
  std::string message_;
};

/// What the environment asks for (docs/CUDA_RUNTIME.md lists every variable).
struct RuntimeOptions {
  platform::DeviceOptions device;
  std::string mode_name = "functional";
  std::string stats_file;
  std::string timeline_file;
};
/// Reads TLMGPU_MODE, TLMGPU_PRESET, TLMGPU_CONFIG, TLMGPU_SET,
/// TLMGPU_SCHEDULER, TLMGPU_FETCH_SCHEDULER, TLMGPU_DIVERGENCE,
/// TLMGPU_WATCHDOG, TLMGPU_STARVATION, TLMGPU_REGS_PER_THREAD, TLMGPU_STATS,
/// TLMGPU_VCD, TLMGPU_TIMELINE, TLMGPU_TIMELINE_INTERVAL (TLMGPU_QUIET: report()).
/// Throws std::invalid_argument naming the variable for a bad value.
RuntimeOptions options_from_environment();

struct RegisteredBinary;

/// A kernel the program registered (its host stub's address maps to it); a
/// cudaKernel_t points at one.
struct RegisteredKernel {
  RegisteredBinary* binary = nullptr;
  std::string name;  ///< mangled, as in the PTX
  /// cudaFuncSetAttribute(MaxDynamicSharedMemorySize): what the program opted into.
  int max_dynamic_shared = -1;
  /// cudaFuncSetAttribute(PreferredSharedMemoryCarveout): percent of the largest carve-out, -1 none.
  int preferred_carveout = -1;
};

/// A __device__, __constant__ or __managed__ variable the program registered.
struct RegisteredVariable {
  RegisteredBinary* binary = nullptr;
  std::string name;
  uint64_t bytes = 0;
  bool constant = false;
  void** managed_host_pointer = nullptr;  ///< __managed__: where the host code finds the variable
};

/// One __cudaRegisterFatBinary: its PTX (several texts for -rdc=true), the
/// registers ptxas gave its kernels, the module once loaded.
struct RegisteredBinary {
  int index = 0;  ///< registration order, for messages
  std::vector<std::string> ptx_texts;
  std::map<std::string, uint32_t> registers;
  std::optional<platform::ModuleHandle> module;
  bool registers_applied = false;
};

struct StreamState {
  uint64_t id = 0;  ///< 0: the default stream
};
struct EventState {
  bool timing = true;  ///< false: cudaEventDisableTiming
  bool recorded = false;
  uint64_t cycles = 0;  ///< the device's simulated cycles when it was recorded
};

/// One launch in --stats' "kernel_launches".
struct LaunchRecord {
  std::string kernel;
  exec::Dim3 grid, block;
  uint32_t dynamic_shared_bytes = 0;
  uint64_t stream = 0;
  bool cooperative = false;
  uint64_t ctas = 0, warp_insts = 0, thread_insts = 0, cycles = 0;
  std::string fault;
};

/// Memory the host and the device share at one address (cudaMallocManaged,
/// cudaMallocHost / cudaHostAlloc): host pages mapped at an address the
/// device memory adopts, so both see every write without copies.
struct SharedHostBlock {
  uint64_t bytes = 0;
  uint64_t mapped_bytes = 0;
  bool managed = false;
};

class CudaRuntime {
 public:
  /// The process's runtime (made at the first call).
  static CudaRuntime& get();
  std::recursive_mutex& mutex() { return mutex_; }

  // --- registration (nvcc's host code, at program start) ---
  void** register_fat_binary(const void* wrapper);
  void register_function(void** handle, const void* host_function, const char* device_name);
  void register_variable(void** handle, const void* host_variable, const char* device_name, uint64_t bytes,
                         bool constant, void** managed_host_pointer);
  /// __cudaInitModule: loads the module (and places its managed variables).
  void init_module(void** handle);
  void unregister_fat_binary(void** handle);

  // --- the device ---
  platform::GpuDevice& device();
  const RuntimeOptions& options();
  const core::GpuConfig& config() { return options().device.config; }
  /// cudaDeviceReset: a new device; registrations stay, modules reload.
  void reset_device();
  /// The error a fault left: every later call returns it (cudaSuccess when none).
  cudaError_t sticky_error() const { return sticky_error_; }
  void check_sticky() const;
  /// Device printf output not yet shown goes to stdout (at synchronising calls
  /// and at the next launch's start, as on a GPU).
  void flush_device_output();
  /// Simulated core cycles of every launch so far (timing: simulated; LT: estimated).
  uint64_t device_cycles() const { return device_cycles_; }

  // --- kernels and launches ---
  RegisteredKernel& kernel_for(const void* host_function);
  RegisteredKernel& kernel_of(cudaKernel_t handle);
  /// The kernel's module, loaded on first use.
  platform::ModuleHandle module_of(RegisteredKernel& k);
  const ptx::Function& function_of(RegisteredKernel& k);
  void launch(RegisteredKernel& k, dim3 grid, dim3 block, void** args, size_t dynamic_shared, cudaStream_t stream,
              bool cooperative);
  void push_call_configuration(dim3 grid, dim3 block, size_t shared, void* stream);
  bool pop_call_configuration(dim3* grid, dim3* block, size_t* shared, void** stream);
  /// Registers per thread the kernel's cubin says ptxas allocated, else the PTX estimate.
  uint32_t registers_of(RegisteredKernel& k);

  // --- variables ---
  RegisteredVariable& variable_for(const void* host_variable);
  platform::ModuleHandle module_of(RegisteredVariable& v);
  /// Device address of a __device__ variable (cudaGetSymbolAddress).
  uint64_t variable_address(RegisteredVariable& v);

  // --- memory shared with the host ---
  void* allocate_shared_host(uint64_t bytes, bool managed);
  /// False when `p` is not the start of such a block.
  bool free_shared_host(void* p);
  /// The block containing `p`, or nullptr.
  const SharedHostBlock* shared_block_containing(const void* p, uint64_t* base = nullptr) const;
  /// Whether [p, p+bytes) lies in one allocation the device knows (device memory or shared host memory).
  bool is_device_range(uint64_t p, uint64_t bytes);

  // --- streams and events ---
  cudaStream_t create_stream();
  void destroy_stream(cudaStream_t s);
  uint64_t stream_id(cudaStream_t s) const;
  cudaEvent_t create_event();
  EventState& event(cudaEvent_t e);
  void destroy_event(cudaEvent_t e);

  // --- limits ---
  size_t printf_fifo_bytes = 1 << 20;
  size_t stack_bytes = 1024;

  /// Writes --stats (TLMGPU_STATS) and --timeline; called once at exit,
  /// with the program's exit status when known (-1: not).
  void write_outputs(int exit_status = -1);
  /// A message the user should see, once per `key` (unsupported entry points).
  bool first_time(const std::string& key) { return said_.insert(key).second; }

 private:
  CudaRuntime() = default;
  RegisteredBinary& binary_of(void** handle);
  void load_module(RegisteredBinary& b);
  void record_fault(const exec::DeviceFault& f, LaunchRecord& record);

  std::recursive_mutex mutex_;
  std::optional<RuntimeOptions> options_;
  std::unique_ptr<platform::GpuDevice> device_;
  std::vector<std::unique_ptr<RegisteredBinary>> binaries_;
  std::map<const void*, std::unique_ptr<RegisteredKernel>> kernels_;
  std::map<const void*, RegisteredVariable> variables_;
  std::vector<std::unique_ptr<StreamState>> streams_;
  std::vector<std::unique_ptr<EventState>> events_;
  std::map<uint64_t, SharedHostBlock> shared_blocks_;  // by address
  struct CallConfiguration {
    dim3 grid, block;
    size_t shared;
    void* stream;
  };
  std::vector<CallConfiguration> call_stack_;
  cudaError_t sticky_error_ = cudaSuccess;
  uint64_t device_cycles_ = 0;
  uint64_t next_stream_id_ = 1;
  std::vector<LaunchRecord> launches_;
  std::set<std::string> said_;
  bool outputs_written_ = false;
};

/// The error the calling thread's last failing call left (cudaGetLastError).
cudaError_t& last_error();

/// Runs `body` under the runtime's lock; returns cudaSuccess, or the code of
/// the CudaFailure / other exception it threw (recorded as the last error,
/// its message on stderr).
template <typename Body>
cudaError_t api_call(const char* name, Body&& body);

/// Records `code` as the last error when it is one; returns it.
cudaError_t set_error(cudaError_t code);
/// The stderr line for a failure: "tlmgpu: cudaXxx: message" (none with
/// TLMGPU_QUIET=1; device faults are reported whatever it says).
void report(const char* name, const std::string& message);
/// An entry point this library does not implement: names itself once on
/// stderr, returns cudaErrorNotSupported (recorded as the last error).
cudaError_t not_supported(const char* name);

/// The CUDA code for an exception escaping an entry point.
cudaError_t code_for(const std::exception& e);

template <typename Body>
cudaError_t api_call(const char* name, Body&& body) {
  CudaRuntime& rt = CudaRuntime::get();
  std::lock_guard<std::recursive_mutex> lock(rt.mutex());
  try {
    body(rt);
    return cudaSuccess;
  } catch (const CudaFailure& f) {
    if (*f.what()) report(name, f.what());
    return set_error(f.code());
  } catch (const std::exception& e) {
    report(name, e.what());
    return set_error(code_for(e));
  }
}

}  // namespace tlmgpu::cudart
