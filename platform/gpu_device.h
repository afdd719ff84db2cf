// The host API: what a CUDA program's host side does, against the model.
#pragma once

#include <cstdint>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "memory/device_memory.h"
#include "model/exec/device_runtime.h"
#include "model/exec/kernel_context.h"
#include "model/exec/texture_unit.h"
#include "model/ptx/ptx_ir.h"
#include "platform/config_keys.h"
#include "platform/lt_cost_model.h"

namespace tlmgpu::platform {

using exec::Dim3;

/// A launch or API call the user got wrong (unknown kernel, wrong arguments,
/// block too large...). Bad input: exit code 2.
class LaunchError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// A launch its owner stopped before it ended (a SoC peripheral's reset
/// input): neither a fault of the kernel nor bad input.
class LaunchAborted : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Told how a functional or LT launch advances, between rounds of warp
/// slices: lets the launch's owner pass simulated time meanwhile (a SoC
/// peripheral, so that the rest of the SoC runs while a long launch does)
/// and stop it.
class LaunchPacer {
 public:
  virtual ~LaunchPacer() = default;
  /// `warp_insts`: the launch's warp instructions so far. False ends the
  /// launch with LaunchAborted.
  virtual bool keep_running(uint64_t warp_insts) = 0;
};

/// Kernel arguments in declaration order; each is checked against the
/// kernel's .param list (count and size) at launch.
class KernelArgs {
 public:
  template <typename T>
  KernelArgs& add(T value) {
    static_assert(std::is_trivially_copyable_v<T>, "kernel arguments are plain values");
    Arg a;
    a.bytes.resize(sizeof(T));
    std::memcpy(a.bytes.data(), &value, sizeof(T));
    args_.push_back(std::move(a));
    return *this;
  }
  /// A device pointer (as returned by GpuDevice::allocate).
  KernelArgs& ptr(uint64_t device_address) { return add<uint64_t>(device_address); }
  KernelArgs& raw(std::vector<uint8_t> bytes) {
    args_.push_back(Arg{std::move(bytes)});
    return *this;
  }

  struct Arg {
    std::vector<uint8_t> bytes;
  };
  const std::vector<Arg>& args() const { return args_; }

 private:
  std::vector<Arg> args_;
};

enum class SimulationMode : uint8_t {
  Functional,  ///< instructions execute in order per warp; no timing
  Timing,      ///< the cycle-level GPU in SystemC (GpuConfig)
  /// Loosely timed: functional execution, with each launch's cycles
  /// estimated by the cost model (platform/lt_cost_model.h, lt.* keys)
  Lt,
};

struct DeviceOptions {
  SimulationMode mode = SimulationMode::Functional;
  /// Timing mode: the GPU. One configuration per process (SystemC elaborates once).
  core::GpuConfig config;
  /// Timing mode: registers per thread for occupancy of every launch (0: the
  /// launch's own count when given, else the PTX register estimate).
  uint32_t regs_per_thread = 0;
  /// Timing mode: write a VCD trace here ("" = off).
  std::string vcd_path;
  exec::DivergenceMode divergence = exec::DivergenceMode::Ipdom;
  /// CTAs run concurrently by the functional engine (interleaved warps).
  uint32_t resident_ctas = 8;
  /// Warp instructions without forward progress (a value-changing store or
  /// atomic, a lane exit, a barrier release) before the watchdog ends the run.
  uint64_t watchdog_instructions = 20'000'000;
  /// Timing mode: cycles a warp may be held ready to issue without being
  /// chosen before the watchdog ends the run as starved (0: never).
  uint64_t starvation_cycles = 10'000'000;
};

/// Shared memory one CTA may declare: CUDA's 48 KB per block on every
/// compute capability the presets model (larger needs an opt-in this model
/// does not have), and never more than an SM holds (sm.shared_bytes).
uint32_t max_shared_bytes_per_cta(const core::GpuConfig& config);

/// A host-to-device copy's destination range.
struct HostCopy {
  uint64_t address = 0;
  uint64_t bytes = 0;
};

/// Totals since the device was created.
struct DeviceStats {
  uint64_t kernels_launched = 0;
  uint64_t ctas = 0;
  uint64_t warp_insts = 0;
  uint64_t thread_insts = 0;
  /// Host time spent inside launch(): the simulator's own speed, without
  /// input generation or reference checks.
  double kernel_host_seconds = 0;
  /// Timing mode: core cycles of all launches; LT mode: their estimate.
  uint64_t sim_cycles = 0;
};

/// Handle to a loaded PTX module.
struct ModuleHandle {
  uint32_t index = 0;
};

class TimingBackend;

class GpuDevice {
 public:
  GpuDevice();
  explicit GpuDevice(const DeviceOptions& options);
  /// A device whose global memory is `external` (a SoC's memory behind a TLM
  /// socket): the owner of that memory allocates; allocate()/free() are
  /// LaunchErrors, and modules' .global variables go into the heap given by
  /// set_global_heap(). `external` must outlive the device.
  GpuDevice(const DeviceOptions& options, memory::GlobalMemoryIf& external);
  ~GpuDevice();
  GpuDevice(const GpuDevice&) = delete;
  GpuDevice& operator=(const GpuDevice&) = delete;

  // --- memory (cudaMalloc / cudaMemcpy / cudaMemset) ---
  /// External memory only: where modules loaded from now on place their
  /// .global variables ([base, base + bytes), handed out upwards). A module
  /// with variables that do not fit is a LaunchError.
  void set_global_heap(uint64_t base, uint64_t bytes);
  uint64_t allocate(uint64_t bytes, const std::string& label = {});
  void free(uint64_t device_address);
  /// Host memory that kernels use at its own address (DeviceMemory::adopt_host_memory);
  /// free() releases it from the device (the memory stays the caller's).
  void adopt_host_memory(void* host, uint64_t bytes, const std::string& label = {});
  void copy_to_device(uint64_t dst, const void* src, uint64_t bytes);
  void copy_from_device(void* dst, uint64_t src, uint64_t bytes);
  void memset(uint64_t dst, uint8_t value, uint64_t bytes);

  template <typename T>
  uint64_t upload(const std::vector<T>& host, const std::string& label = {}) {
    uint64_t d = allocate(host.size() * sizeof(T), label);
    copy_to_device(d, host.data(), host.size() * sizeof(T));
    return d;
  }
  template <typename T>
  std::vector<T> download(uint64_t src, size_t count) {
    std::vector<T> host(count);
    copy_from_device(host.data(), src, count * sizeof(T));
    return host;
  }

  // --- modules ---
  /// Parses PTX; throws ptx::PtxError on errors.
  ModuleHandle load_module_file(const std::string& path);
  ModuleHandle load_module(const std::string& ptx_source, const std::string& name);
  /// Loads a module parsed elsewhere (places its .global variables).
  ModuleHandle load_parsed_module(ptx::Module&& parsed) { return add_module(std::move(parsed)); }
  const ptx::Module& module(ModuleHandle m) const;
  /// cudaMemcpyToSymbol / FromSymbol for a module's .global or .const variable.
  void write_symbol(ModuleHandle m, const std::string& symbol, const void* src, uint64_t bytes,
                    uint64_t offset = 0);
  void read_symbol(ModuleHandle m, const std::string& symbol, void* dst, uint64_t bytes,
                   uint64_t offset = 0);
  /// cudaGetSymbolAddress: the device address of a module's .global or
  /// .const variable. A .const variable's address is in a copy of the
  /// module's constant bank in device memory, made at the first such call;
  /// what the host writes there reaches the bank at the next launch.
  /// LaunchError for an unknown symbol.
  uint64_t symbol_address(ModuleHandle m, const std::string& symbol);

  // --- texture and surface objects (cudaCreateTextureObject / cudaCreateSurfaceObject) ---
  /// A handle (cudaTextureObject_t) for sampling `resource` with `sampler`;
  /// pass it as a .u64 kernel argument. The resource must lie inside one
  /// allocation. LaunchError for an invalid description.
  uint64_t create_texture_object(const exec::TexResource& resource, const exec::TexSampler& sampler);
  /// A handle (cudaSurfaceObject_t) for suld/sust on `resource` (an array or pitch-2D resource).
  uint64_t create_surface_object(const exec::TexResource& resource);
  /// cudaDestroyTextureObject / cudaDestroySurfaceObject; LaunchError for an unknown handle.
  void destroy_texture_object(uint64_t handle);
  void destroy_surface_object(uint64_t handle) { destroy_texture_object(handle); }
  const exec::TextureTable& textures() const { return textures_; }

  // --- launch ---
  /// Runs the kernel to completion. Throws LaunchError for a bad launch,
  /// exec::DeviceFault for a fault, deadlock or no forward progress, and
  /// LaunchAborted when the launch pacer (or a timing backend) stops it.
  /// Timing mode: `regs_per_thread` (0: the kernel's recorded count, else
  /// the PTX estimate) sets this launch's registers per thread for
  /// occupancy; DeviceOptions::regs_per_thread overrides it.
  void launch(ModuleHandle m, const std::string& kernel, Dim3 grid, Dim3 block,
              uint32_t dynamic_shared_bytes, const KernelArgs& args, uint32_t regs_per_thread = 0);
  /// cudaLaunchCooperativeKernel: launch() with every CTA of the grid
  /// resident at once, so that a grid barrier (cooperative_groups::
  /// this_grid().sync()) can complete. LaunchError when the grid does not fit
  /// co-resident on the configured GPU (CTAs per SM from the occupancy
  /// calculation x gpu.num_sms). The barrier's workspace is a zeroed device
  /// word pair whose address goes to %envreg1 (high) / %envreg2 (low).
  void launch_cooperative(ModuleHandle m, const std::string& kernel, Dim3 grid, Dim3 block,
                          uint32_t dynamic_shared_bytes, const KernelArgs& args, uint32_t regs_per_thread = 0);
  /// Records the registers per thread ptxas allocates for `kernel` of module
  /// `m` (workloads record theirs): timing-mode launches that give no count
  /// of their own use it instead of the PTX estimate. LaunchError for an
  /// unknown kernel.
  void set_kernel_registers(ModuleHandle m, const std::string& kernel, uint32_t regs_per_thread);
  /// cudaFuncAttributePreferredSharedMemoryCarveout for `kernel` of module
  /// `m`: the percent (0..100) of the largest shared-memory carve-out its
  /// launches prefer, -1 for none. On a preset with a unified L1D / shared
  /// array it sets the launches' carve-out and with it their CTAs per SM
  /// (platform/occupancy.h, choose_carveout); elsewhere it changes nothing,
  /// as on GPUs without one. LaunchError for an unknown kernel or percent.
  void set_preferred_shared_carveout(ModuleHandle m, const std::string& kernel, int percent);
  /// launch() with the kernel's parameter buffer as it is laid out in
  /// memory (a launch descriptor's): LaunchError unless its size is the
  /// kernel's parameter size.
  void launch_with_param_buffer(ModuleHandle m, const std::string& kernel, Dim3 grid, Dim3 block,
                                uint32_t dynamic_shared_bytes, const std::vector<uint8_t>& params);
  /// Timing-mode launches run on `backend` instead of the process-wide GPU
  /// (nullptr: that GPU again). The backend must outlive its use.
  void set_timing_backend(TimingBackend* backend) { timing_backend_ = backend; }
  /// Functional and LT launches report their progress to `pacer` (nullptr:
  /// nobody), which may stop them. The pacer must outlive its use.
  void set_launch_pacer(LaunchPacer* pacer) { pacer_ = pacer; }

  const DeviceStats& stats() const { return stats_; }
  /// Core cycles of the last launch (timing mode: simulated; LT mode: the
  /// cost model's estimate; functional mode: 0). A SoC peripheral advances
  /// SystemC time by them (cycles / gpu.core_clock_mhz microseconds).
  uint64_t last_launch_cycles() const { return last_launch_cycles_; }
  /// LT mode: every launch's counts and estimate, in launch order (about
  /// 300 bytes a launch).
  const std::vector<LtLaunchRecord>& lt_launches() const { return lt_launches_; }
  const DeviceOptions& options() const { return options_; }
  /// The device's own memory; LaunchError for a device on external memory.
  memory::DeviceMemory& memory();
  memory::GlobalMemoryIf& global_memory() { return *global_; }

  // --- device runtime (printf, malloc/free) ---
  /// printf output of the launches so far that nobody took yet: each
  /// launch's text ordered by linear CTA id, then linear thread id, then each
  /// thread's own printf order (also after a launch that faulted).
  const std::string& printf_output() const { return printf_output_; }
  /// printf_output(), cleared.
  std::string take_printf_output();
  /// The device malloc heap (base 0 until a module calling malloc/free runs).
  const exec::DeviceHeap& device_heap() const { return runtime_->heap; }
  /// cudaDeviceSetLimit(cudaLimitMallocHeapSize): the heap's size, before the
  /// first launch that uses it carves it out (LaunchError after).
  void set_malloc_heap_bytes(uint32_t bytes);

 private:
  struct LoadedModule;
  LoadedModule& loaded(ModuleHandle m);
  ModuleHandle add_module(ptx::Module&& parsed);
  /// Runs a prepared launch on this device's engine (functional, LT or timing).
  void run_engine(LoadedModule& lm, const exec::KernelContext& ctx, uint32_t regs_per_thread);
  std::vector<uint8_t> pack_arguments(const ptx::Function& kernel, const KernelArgs& args) const;
  /// The launch's kernel, checked to be an .entry of the module.
  const ptx::Function& entry(const LoadedModule& lm, const std::string& kernel) const;
  void run_launch(LoadedModule& lm, const ptx::Function& k, Dim3 grid, Dim3 block, uint32_t dynamic_shared_bytes,
                  const std::vector<uint8_t>& params, uint32_t regs_per_thread);
  /// The owned memory, or a LaunchError naming `what` for a device on external memory.
  memory::DeviceMemory& own_memory(const char* what);

  DeviceOptions options_;
  /// Unique per device in the process (addresses may repeat for devices
  /// created one after another): the timing GPU starts a new context per id.
  uint64_t id_;
  std::unique_ptr<memory::DeviceMemory> own_memory_;  // null on external memory
  memory::GlobalMemoryIf* global_;
  uint64_t heap_next_ = 0, heap_end_ = 0;  // external memory: the .global variables' heap
  TimingBackend* timing_backend_ = nullptr;
  LaunchPacer* pacer_ = nullptr;
  std::vector<std::unique_ptr<LoadedModule>> modules_;
  std::unique_ptr<exec::DeviceRuntime> runtime_;
  bool cooperative_launch_ = false;   // set by launch_cooperative for its launch
  uint64_t grid_barrier_workspace_ = 0;
  /// Checks that the grid fits co-resident and sets up the grid barrier's workspace.
  void prepare_cooperative(const ptx::Function& k, exec::KernelContext& ctx, uint32_t regs_per_thread);
  std::string printf_output_;
  /// Carves the malloc heap out of device memory before the first launch
  /// of a module that calls malloc or free.
  void ensure_device_heap(const ptx::Module& mod);
  DeviceStats stats_;
  uint64_t last_launch_cycles_ = 0;
  std::vector<LtLaunchRecord> lt_launches_;
  exec::TextureTable textures_;
  /// A texture/surface resource must lie in device memory (LaunchError otherwise).
  void check_tex_resource(const exec::TexResource& resource);
  /// Timing mode with l2.fill_on_host_copy: host-to-device copies since the
  /// last launch, in order; the next launch leaves them in the L2 first.
  std::vector<HostCopy> host_copies_;
  void note_host_copy(uint64_t dst, uint64_t bytes);
};

}  // namespace tlmgpu::platform
