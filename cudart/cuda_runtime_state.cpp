#include "cudart/cuda_runtime_state.h"

#include <link.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <sstream>
#include <stdexcept>

#include <systemc>

#include "cudart/ptx_join.h"
#include "model/ptx/ptx_parser.h"
#include "platform/cli_support.h"
#include "platform/config_keys.h"
#include "platform/run_statistics_report.h"
#include "platform/timing_gpu.h"
#include "schedulers/policy_registry.h"

namespace tlmgpu::cudart {

namespace {

std::string program_name() {
  char path[4096];
  const ssize_t n = readlink("/proc/self/exe", path, sizeof(path) - 1);
  if (n <= 0) return "the program";
  path[n] = '\0';
  return path;
}

/// The program's arguments after its name (/proc/self/cmdline).
std::vector<std::string> program_arguments() {
  std::vector<std::string> args;
  std::ifstream in("/proc/self/cmdline", std::ios::binary);
  std::string arg;
  while (std::getline(in, arg, '\0')) args.push_back(arg);
  if (!args.empty()) args.erase(args.begin());
  return args;
}

/// Ends the program over input it cannot run (exit code 2, as every tlmgpu
/// command exits for bad input): a corrupt fat binary, one without PTX,
/// TLMGPU_* variables with bad values.
[[noreturn]] void refuse_program(const std::string& message) {
  std::fflush(stdout);
  std::cerr << "tlmgpu: " << program_name() << ": " << message << std::endl;
  std::exit(platform::cli::kExitBadInput);
}

/// Bytes readable from `p` to the end of the loaded segment holding it
/// (0 when no loaded object holds it): the bound for reading a fat binary
/// whose length only its own header states.
size_t readable_bytes_after(const void* p) {
  struct Query {
    uintptr_t address;
    size_t bytes;
  } q{reinterpret_cast<uintptr_t>(p), 0};
  dl_iterate_phdr(
      [](dl_phdr_info* info, size_t, void* data) {
        auto* query = static_cast<Query*>(data);
        for (int i = 0; i < info->dlpi_phnum; ++i) {
          const ElfW(Phdr)& ph = info->dlpi_phdr[i];
          if (ph.p_type != PT_LOAD) continue;
          const uintptr_t start = info->dlpi_addr + ph.p_vaddr, end = start + ph.p_memsz;
          if (query->address >= start && query->address < end) {
            query->bytes = end - query->address;
            return 1;
          }
        }
        return 0;
      },
      &q);
  return q.bytes;
}

fatbin::FatbinContainer read_container_at(const void* data, const char* what) {
  const size_t available = readable_bytes_after(data);
  if (available == 0) refuse_program(std::string(what) + " does not point into the program's loaded image");
  try {
    return fatbin::read_container(static_cast<const uint8_t*>(data), available);
  } catch (const fatbin::FatbinError& e) {
    refuse_program(std::string("corrupt fat binary (") + what + "): " + e.what());
  }
}

/// __fatBinC_Wrapper_t, as nvcc's host code lays it out.
struct FatbinWrapper {
  int magic;
  int version;
  const unsigned long long* data;
  void* filename_or_fatbins;
};

const char* env(const char* name) {
  const char* v = std::getenv(name);
  return v && *v ? v : nullptr;
}

uint64_t env_u64(const char* name, uint64_t min) {
  const std::string text = env(name);
  if (text.empty() || text.size() > 20 || text.find_first_not_of("0123456789") != std::string::npos)
    throw std::invalid_argument(std::string(name) + "='" + text + "': expected an integer >= " + std::to_string(min));
  const unsigned long long v = std::strtoull(text.c_str(), nullptr, 10);
  if (v < min)
    throw std::invalid_argument(std::string(name) + "='" + text + "': expected an integer >= " + std::to_string(min));
  return v;
}

std::vector<std::string> split(const std::string& text, char separator) {
  std::vector<std::string> parts;
  std::string part;
  std::istringstream in(text);
  while (std::getline(in, part, separator))
    if (!part.empty()) parts.push_back(part);
  return parts;
}

cudaError_t code_for_fault(exec::FaultKind kind) {
  switch (kind) {
    case exec::FaultKind::OutOfBounds: return cudaErrorIllegalAddress;
    case exec::FaultKind::Misaligned: return cudaErrorMisalignedAddress;
    case exec::FaultKind::AssertionFailed: return cudaErrorAssert;
    case exec::FaultKind::Deadlock:
    case exec::FaultKind::NoForwardProgress: return cudaErrorLaunchTimeout;
    case exec::FaultKind::Trap:
    case exec::FaultKind::Unsupported: break;
  }
  return cudaErrorLaunchFailure;
}

/// CUDA's code for a launch the device refused (a LaunchError's message says why).
cudaError_t code_for_launch_error(const std::string& message) {
  auto has = [&](const char* s) { return message.find(s) != std::string::npos; };
  if (has("cooperative")) return cudaErrorCooperativeLaunchTooLarge;
  if (has("registers")) return cudaErrorLaunchOutOfResources;
  if (has("shared memory")) return cudaErrorInvalidValue;
  if (has("grid") || has("block")) return cudaErrorInvalidConfiguration;
  return cudaErrorInvalidValue;
}

/// Where managed and mapped host memory is placed: a range of the host's
/// address space that neither the model's shared and local windows
/// (0x7e..., 0x7f...) nor its device heap (from 4 GiB up) use.
constexpr uint64_t kSharedHostBase = 0x0000200000000000ull;
constexpr uint64_t kSharedHostLimit = 0x0000300000000000ull;

}  // namespace

// ------------------------------------------------------------------ options

RuntimeOptions options_from_environment() {
  RuntimeOptions o;
  if (const char* mode = env("TLMGPU_MODE")) {
    o.mode_name = mode;
    if (o.mode_name == "timing") o.device.mode = platform::SimulationMode::Timing;
    else if (o.mode_name == "lt") o.device.mode = platform::SimulationMode::Lt;
    else if (o.mode_name != "functional")
      throw std::invalid_argument("TLMGPU_MODE='" + o.mode_name + "' (allowed: functional, timing, lt)");
  }
  const std::string preset = env("TLMGPU_PRESET") ? env("TLMGPU_PRESET") : "gtx480";
  std::vector<std::string> files, sets;
  if (env("TLMGPU_CONFIG")) files = split(env("TLMGPU_CONFIG"), ':');
  if (env("TLMGPU_SET")) sets = split(env("TLMGPU_SET"), ';');
  if (env("TLMGPU_SCHEDULER")) sets.push_back(std::string("gpu.scheduler=") + env("TLMGPU_SCHEDULER"));
  if (env("TLMGPU_FETCH_SCHEDULER")) sets.push_back(std::string("sm.fetch_policy=") + env("TLMGPU_FETCH_SCHEDULER"));
  try {
    o.device.config = platform::resolve_config(preset, files, sets);
    schedulers::make_policy(o.device.config.scheduler, schedulers::PolicyContext{});
  } catch (const std::exception& e) {
    throw std::invalid_argument("TLMGPU_PRESET / TLMGPU_CONFIG / TLMGPU_SET / TLMGPU_SCHEDULER: " +
                                platform::cli::describe_error(e));
  }
  // Arbitrary sm_75 programs may rely on Volta's independent thread scheduling.
  o.device.divergence = exec::DivergenceMode::Its;
  if (const char* d = env("TLMGPU_DIVERGENCE")) {
    auto mode = platform::cli::parse_divergence(d);
    if (!mode) throw std::invalid_argument(std::string("TLMGPU_DIVERGENCE='") + d + "' (allowed: ipdom, its)");
    o.device.divergence = *mode;
  }
  if (env("TLMGPU_WATCHDOG")) o.device.watchdog_instructions = env_u64("TLMGPU_WATCHDOG", 1);
  if (env("TLMGPU_STARVATION")) o.device.starvation_cycles = env_u64("TLMGPU_STARVATION", 0);
  if (env("TLMGPU_REGS_PER_THREAD")) o.device.regs_per_thread = uint32_t(env_u64("TLMGPU_REGS_PER_THREAD", 1));
  if (env("TLMGPU_STATS")) o.stats_file = env("TLMGPU_STATS");
  const bool timing = o.device.mode == platform::SimulationMode::Timing;
  if (env("TLMGPU_VCD")) {
    if (!timing) throw std::invalid_argument("TLMGPU_VCD applies to TLMGPU_MODE=timing only");
    o.device.vcd_path = env("TLMGPU_VCD");
  }
  if (env("TLMGPU_TIMELINE")) {
    if (!timing) throw std::invalid_argument("TLMGPU_TIMELINE applies to TLMGPU_MODE=timing only");
    o.timeline_file = env("TLMGPU_TIMELINE");
    const uint64_t interval = env("TLMGPU_TIMELINE_INTERVAL") ? env_u64("TLMGPU_TIMELINE_INTERVAL", 1) : 100;
    platform::record_timeline(interval);
  }
  return o;
}

// ------------------------------------------------------------------ errors

cudaError_t& last_error() {
  thread_local cudaError_t error = cudaSuccess;
  return error;
}

cudaError_t set_error(cudaError_t code) {
  if (code != cudaSuccess) last_error() = code;
  return code;
}

void report(const char* name, const std::string& message) {
  static const bool quiet = [] {
    const char* q = env("TLMGPU_QUIET");
    return q && std::string(q) == "1";
  }();
  if (quiet) return;
  std::fflush(stdout);
  std::cerr << "tlmgpu: " << name << ": " << message << std::endl;
}

cudaError_t not_supported(const char* name) {
  CudaRuntime& rt = CudaRuntime::get();
  std::lock_guard<std::recursive_mutex> lock(rt.mutex());
  if (rt.first_time(std::string("unsupported ") + name))
    report(name, "not supported by tlmgpu's CUDA runtime (returns cudaErrorNotSupported; docs/CUDA_RUNTIME.md)");
  return set_error(cudaErrorNotSupported);
}

cudaError_t code_for(const std::exception& e) {
  if (dynamic_cast<const platform::LaunchError*>(&e)) return code_for_launch_error(e.what());
  if (dynamic_cast<const std::out_of_range*>(&e)) return cudaErrorInvalidValue;
  if (dynamic_cast<const std::invalid_argument*>(&e)) return cudaErrorInvalidValue;
  if (dynamic_cast<const std::bad_alloc*>(&e)) return cudaErrorMemoryAllocation;
  if (dynamic_cast<const ptx::PtxError*>(&e)) return cudaErrorInvalidPtx;
  return cudaErrorUnknown;
}

// ------------------------------------------------------------------ runtime

CudaRuntime& CudaRuntime::get() {
  // Never destroyed: nvcc's host code unregisters its fat binaries from
  // atexit handlers that may run after static destructors.
  static CudaRuntime* runtime = new CudaRuntime();
  return *runtime;
}

const RuntimeOptions& CudaRuntime::options() {
  if (!options_) {
    try {
      options_ = options_from_environment();
    } catch (const std::exception& e) {
      refuse_program(e.what());
    }
  }
  return *options_;
}

platform::GpuDevice& CudaRuntime::device() {
  if (!device_) {
    // SystemC's informational messages (the VCD's timescale) would land in
    // the program's stdout.
    sc_core::sc_report_handler::set_actions(sc_core::SC_INFO, sc_core::SC_DO_NOTHING);
    device_ = std::make_unique<platform::GpuDevice>(options().device);
  }
  return *device_;
}

void CudaRuntime::reset_device() {
  flush_device_output();
  for (auto& [base, block] : shared_blocks_) munmap(reinterpret_cast<void*>(base), block.mapped_bytes);
  shared_blocks_.clear();
  device_.reset();
  for (auto& b : binaries_) {
    b->module.reset();
    b->registers_applied = false;
  }
  sticky_error_ = cudaSuccess;
  call_stack_.clear();
}

void CudaRuntime::check_sticky() const {
  if (sticky_error_ != cudaSuccess) throw CudaFailure(sticky_error_);
}

void CudaRuntime::flush_device_output() {
  if (!device_) return;
  const std::string text = device_->take_printf_output();
  if (text.empty()) return;
  std::fwrite(text.data(), 1, text.size(), stdout);
  std::fflush(stdout);
}

// ------------------------------------------------------------- registration

void** CudaRuntime::register_fat_binary(const void* wrapper_address) {
  if (readable_bytes_after(wrapper_address) < sizeof(FatbinWrapper))
    refuse_program("__cudaRegisterFatBinary: the fat-binary wrapper lies outside the program's image");
  const auto* wrapper = static_cast<const FatbinWrapper*>(wrapper_address);
  if (uint32_t(wrapper->magic) != fatbin::kWrapperMagic)
    refuse_program("__cudaRegisterFatBinary: not a fat-binary wrapper (magic 0x" +
                   [&] {
                     std::ostringstream os;
                     os << std::hex << uint32_t(wrapper->magic);
                     return os.str();
                   }() +
                   ")");
  auto b = std::make_unique<RegisteredBinary>();
  b->index = int(binaries_.size());
  std::vector<fatbin::FatbinContainer> containers;
  containers.push_back(read_container_at(wrapper->data, "the registered fat binary"));
  if (wrapper->version == 2 && wrapper->filename_or_fatbins) {
    // -rdc=true: the linked cubin above; each translation unit's PTX is in
    // its own prelinked container, listed up to a null pointer.
    const void* const* prelinked = static_cast<const void* const*>(wrapper->filename_or_fatbins);
    for (size_t i = 0;; ++i) {
      if (readable_bytes_after(prelinked + i) < sizeof(void*))
        refuse_program("the list of prelinked fat binaries runs past the program's image");
      if (!prelinked[i]) break;
      containers.push_back(read_container_at(prelinked[i], "a prelinked fat binary"));
    }
  }
  bool any_cubin = false;
  for (const auto& c : containers) {
    if (const fatbin::PtxEntry* ptx = fatbin::choose_ptx(c)) b->ptx_texts.push_back(ptx->text);
    for (const auto& cubin : c.cubins) {
      any_cubin = true;
      // The simulated GPU runs sm_75 code: the counts ptxas gave for sm_75 when present.
      for (const auto& [name, regs] : cubin.kernel_registers)
        if (cubin.arch == 75 || !b->registers.count(name)) b->registers[name] = regs;
    }
  }
  if (b->ptx_texts.empty()) {
    if (!any_cubin) {
      // nvcc registers an empty container for a translation unit without device code.
      binaries_.push_back(std::move(b));
      return reinterpret_cast<void**>(binaries_.back().get());
    }
    refuse_program(
        "its fat binary holds no PTX, only machine code (SASS) for real GPUs; tlmgpu runs PTX: rebuild with "
        "-arch=sm_75 (or add -gencode arch=compute_75,code=compute_75)");
  }
  binaries_.push_back(std::move(b));
  return reinterpret_cast<void**>(binaries_.back().get());
}

RegisteredBinary& CudaRuntime::binary_of(void** handle) {
  auto* b = reinterpret_cast<RegisteredBinary*>(handle);
  for (const auto& owned : binaries_)
    if (owned.get() == b) return *b;
  throw CudaFailure(cudaErrorInvalidResourceHandle, "unknown fat-binary handle");
}

void CudaRuntime::register_function(void** handle, const void* host_function, const char* device_name) {
  RegisteredBinary& b = binary_of(handle);
  auto k = std::make_unique<RegisteredKernel>();
  k->binary = &b;
  k->name = device_name;
  kernels_[host_function] = std::move(k);
}

void CudaRuntime::register_variable(void** handle, const void* host_variable, const char* device_name, uint64_t bytes,
                                    bool constant, void** managed_host_pointer) {
  RegisteredBinary& b = binary_of(handle);
  RegisteredVariable v;
  v.binary = &b;
  v.name = device_name;
  v.bytes = bytes;
  v.constant = constant;
  v.managed_host_pointer = managed_host_pointer;
  variables_[host_variable] = v;
}

void CudaRuntime::init_module(void** handle) {
  RegisteredBinary& b = binary_of(handle);
  if (!b.ptx_texts.empty()) load_module(b);
}

void CudaRuntime::unregister_fat_binary(void** handle) {
  // The program is ending: its launches' device output must not be lost.
  flush_device_output();
  (void)handle;
}

void CudaRuntime::load_module(RegisteredBinary& b) {
  if (b.module) return;
  platform::GpuDevice& dev = device();
  const std::string name = program_name() + " (fat binary " + std::to_string(b.index) + ")";
  const std::string source = b.ptx_texts.size() == 1 ? b.ptx_texts[0] : join_ptx_modules(b.ptx_texts);
  try {
    b.module = dev.load_module(source, name);
  } catch (const ptx::PtxError& e) {
    // Bad input: none of the module's kernels or variables can be used.
    refuse_program("cannot load the program's PTX:\n" + platform::cli::describe_error(e));
  } catch (const platform::LaunchError& e) {
    refuse_program(std::string("cannot load the program's PTX: ") + e.what());
  }
  // __managed__ variables: the host code reaches them through a pointer the
  // runtime sets; it points at the device's own bytes of the variable, so
  // that the host and kernels share them.
  for (auto& [host, v] : variables_) {
    if (v.binary != &b || !v.managed_host_pointer) continue;
    const uint64_t address = dev.symbol_address(*b.module, v.name);
    *v.managed_host_pointer = dev.memory().translate(address, v.bytes);
  }
}

// ------------------------------------------------------------------ kernels

RegisteredKernel& CudaRuntime::kernel_for(const void* host_function) {
  auto it = kernels_.find(host_function);
  if (it == kernels_.end())
    throw CudaFailure(cudaErrorInvalidDeviceFunction, "no kernel is registered at this host function address");
  return *it->second;
}

RegisteredKernel& CudaRuntime::kernel_of(cudaKernel_t handle) {
  for (auto& [host, k] : kernels_)
    if (reinterpret_cast<cudaKernel_t>(k.get()) == handle) return *k;
  throw CudaFailure(cudaErrorInvalidDeviceFunction, "unknown kernel handle");
}

platform::ModuleHandle CudaRuntime::module_of(RegisteredKernel& k) {
  if (k.binary->ptx_texts.empty())
    throw CudaFailure(cudaErrorNoKernelImageForDevice, "kernel '" + k.name + "' has no PTX");
  load_module(*k.binary);
  return *k.binary->module;
}

const ptx::Function& CudaRuntime::function_of(RegisteredKernel& k) {
  const ptx::Module& m = device().module(module_of(k));
  auto it = m.function_index.find(k.name);
  if (it == m.function_index.end() || !m.functions[it->second].is_entry)
    throw CudaFailure(cudaErrorInvalidDeviceFunction, "the program's PTX has no kernel '" + k.name + "'");
  return m.functions[it->second];
}

uint32_t CudaRuntime::registers_of(RegisteredKernel& k) {
  const platform::ModuleHandle m = module_of(k);
  RegisteredBinary& b = *k.binary;
  if (!b.registers_applied) {
    // The counts ptxas allocated, as the workloads record theirs: timing
    // mode's occupancy then matches the binary's, not the PTX estimate.
    const ptx::Module& mod = device().module(m);
    for (const auto& [name, regs] : b.registers) {
      auto it = mod.function_index.find(name);
      if (it != mod.function_index.end() && mod.functions[it->second].is_entry && regs > 0)
        device().set_kernel_registers(m, name, regs);
    }
    b.registers_applied = true;
  }
  auto it = b.registers.find(k.name);
  if (it != b.registers.end() && it->second > 0) return it->second;
  return function_of(k).regs_per_thread;
}

void CudaRuntime::push_call_configuration(dim3 grid, dim3 block, size_t shared, void* stream) {
  call_stack_.push_back({grid, block, shared, stream});
}

bool CudaRuntime::pop_call_configuration(dim3* grid, dim3* block, size_t* shared, void** stream) {
  if (call_stack_.empty()) return false;
  const CallConfiguration c = call_stack_.back();
  call_stack_.pop_back();
  if (grid) *grid = c.grid;
  if (block) *block = c.block;
  if (shared) *shared = c.shared;
  if (stream) *stream = c.stream;
  return true;
}

void CudaRuntime::record_fault(const exec::DeviceFault& f, LaunchRecord& record) {
  record.fault = f.what();
  sticky_error_ = code_for_fault(f.kind());
  std::fflush(stdout);
  std::cerr << "tlmgpu: " << f.what() << std::endl;
}

void CudaRuntime::launch(RegisteredKernel& k, dim3 grid, dim3 block, void** args, size_t dynamic_shared,
                         cudaStream_t stream, bool cooperative) {
  check_sticky();
  // A launch shows the device output of the launches before it (CUDA
  // flushes the printf buffer at a launch's start).
  flush_device_output();
  platform::GpuDevice& dev = device();
  const platform::ModuleHandle m = module_of(k);
  const ptx::Function& f = function_of(k);
  platform::KernelArgs kernel_args;
  if (!f.params.empty() && !args)
    throw CudaFailure(cudaErrorInvalidValue, "launch of '" + k.name + "': no argument array");
  for (size_t i = 0; i < f.params.size(); ++i) {
    const auto* bytes = static_cast<const uint8_t*>(args[i]);
    if (!bytes)
      throw CudaFailure(cudaErrorInvalidValue,
                        "launch of '" + k.name + "': argument " + std::to_string(i) + " is a null pointer");
    kernel_args.raw(std::vector<uint8_t>(bytes, bytes + f.params[i].size));
  }
  if (dynamic_shared > UINT32_MAX) throw CudaFailure(cudaErrorInvalidValue, "dynamic shared memory too large");
  if (k.max_dynamic_shared >= 0 && dynamic_shared > size_t(k.max_dynamic_shared))
    throw CudaFailure(cudaErrorInvalidValue, "launch of '" + k.name + "': " + std::to_string(dynamic_shared) +
                                                 " bytes of dynamic shared memory, more than the " +
                                                 std::to_string(k.max_dynamic_shared) + " its attribute allows");
  // The cubin's register counts become the kernels' recorded counts, which
  // a launch given 0 uses (as for the workloads' own launches).
  registers_of(k);
  dev.set_preferred_shared_carveout(m, k.name, k.preferred_carveout);
  LaunchRecord record;
  record.kernel = k.name;
  record.grid = {grid.x, grid.y, grid.z};
  record.block = {block.x, block.y, block.z};
  record.dynamic_shared_bytes = uint32_t(dynamic_shared);
  record.stream = stream_id(stream);
  record.cooperative = cooperative;
  const platform::DeviceStats before = dev.stats();
  try {
    if (cooperative)
      dev.launch_cooperative(m, k.name, record.grid, record.block, uint32_t(dynamic_shared), kernel_args, 0);
    else
      dev.launch(m, k.name, record.grid, record.block, uint32_t(dynamic_shared), kernel_args, 0);
  } catch (const platform::LaunchError& e) {
    throw CudaFailure(code_for_launch_error(e.what()), e.what());
  } catch (const exec::DeviceFault& fault) {
    record_fault(fault, record);
  }
  const platform::DeviceStats& after = dev.stats();
  record.ctas = after.ctas - before.ctas;
  record.warp_insts = after.warp_insts - before.warp_insts;
  record.thread_insts = after.thread_insts - before.thread_insts;
  record.cycles = after.sim_cycles - before.sim_cycles;
  device_cycles_ += record.cycles;
  launches_.push_back(std::move(record));
  if (launches_.size() == 1) {
    // The timing GPU and the statistics' sources are function-local statics
    // made by the first launch; exit() destroys them in the reverse order of
    // their construction, so a handler registered after them runs first,
    // while they still exist.
    // on_exit (glibc) is atexit with the exit status.
    on_exit(
        [](int status, void*) {
          CudaRuntime& rt = CudaRuntime::get();
          std::lock_guard<std::recursive_mutex> lock(rt.mutex());
          rt.write_outputs(status);
        },
        nullptr);
  }
}

// ---------------------------------------------------------------- variables

RegisteredVariable& CudaRuntime::variable_for(const void* host_variable) {
  auto it = variables_.find(host_variable);
  if (it == variables_.end())
    throw CudaFailure(cudaErrorInvalidSymbol, "no __device__ or __constant__ variable is registered at this address");
  return it->second;
}

platform::ModuleHandle CudaRuntime::module_of(RegisteredVariable& v) {
  if (v.binary->ptx_texts.empty()) throw CudaFailure(cudaErrorInvalidSymbol, "variable '" + v.name + "' has no PTX");
  load_module(*v.binary);
  return *v.binary->module;
}

uint64_t CudaRuntime::variable_address(RegisteredVariable& v) {
  return device().symbol_address(module_of(v), v.name);
}

// ------------------------------------------------------ shared host memory

void* CudaRuntime::allocate_shared_host(uint64_t bytes, bool managed) {
  const uint64_t page = uint64_t(sysconf(_SC_PAGESIZE));
  const uint64_t mapped = (std::max<uint64_t>(bytes, 1) + page - 1) / page * page;
  // The next free range above the last block (first fit from the base).
  uint64_t at = kSharedHostBase;
  for (const auto& [base, block] : shared_blocks_) {
    if (base >= at + mapped + page) break;
    at = std::max(at, base + block.mapped_bytes + page);  // a guard page between blocks
  }
  if (at + mapped > kSharedHostLimit) throw CudaFailure(cudaErrorMemoryAllocation, "shared host memory exhausted");
  void* p = mmap(reinterpret_cast<void*>(at), mapped, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
  if (p == MAP_FAILED || p != reinterpret_cast<void*>(at)) {
    if (p != MAP_FAILED) munmap(p, mapped);
    throw CudaFailure(cudaErrorMemoryAllocation, "cannot map " + std::to_string(bytes) + " bytes of host memory");
  }
  device().adopt_host_memory(p, bytes, managed ? "managed" : "host");
  shared_blocks_[at] = SharedHostBlock{bytes, mapped, managed};
  return p;
}

bool CudaRuntime::free_shared_host(void* p) {
  auto it = shared_blocks_.find(reinterpret_cast<uint64_t>(p));
  if (it == shared_blocks_.end()) return false;
  device().free(it->first);
  munmap(p, it->second.mapped_bytes);
  shared_blocks_.erase(it);
  return true;
}

const SharedHostBlock* CudaRuntime::shared_block_containing(const void* p, uint64_t* base) const {
  const uint64_t a = reinterpret_cast<uint64_t>(p);
  auto it = shared_blocks_.upper_bound(a);
  if (it == shared_blocks_.begin()) return nullptr;
  --it;
  if (a >= it->first + it->second.bytes) return nullptr;
  if (base) *base = it->first;
  return &it->second;
}

bool CudaRuntime::is_device_range(uint64_t p, uint64_t bytes) {
  return device().memory().translate(p, std::max<uint64_t>(bytes, 1)) != nullptr;
}

// ------------------------------------------------------- streams and events

cudaStream_t CudaRuntime::create_stream() {
  streams_.push_back(std::make_unique<StreamState>());
  streams_.back()->id = next_stream_id_++;
  return reinterpret_cast<cudaStream_t>(streams_.back().get());
}

void CudaRuntime::destroy_stream(cudaStream_t s) {
  auto it = std::find_if(streams_.begin(), streams_.end(),
                         [&](const auto& p) { return reinterpret_cast<cudaStream_t>(p.get()) == s; });
  if (it == streams_.end()) throw CudaFailure(cudaErrorInvalidResourceHandle, "unknown stream");
  streams_.erase(it);
}

uint64_t CudaRuntime::stream_id(cudaStream_t s) const {
  // 0 is the legacy default stream; 1 and 2 are cudaStreamLegacy and cudaStreamPerThread.
  const auto handle = reinterpret_cast<uintptr_t>(s);
  if (handle <= 2) return 0;
  for (const auto& p : streams_)
    if (reinterpret_cast<cudaStream_t>(p.get()) == s) return p->id;
  throw CudaFailure(cudaErrorInvalidResourceHandle, "unknown stream");
}

cudaEvent_t CudaRuntime::create_event() {
  events_.push_back(std::make_unique<EventState>());
  return reinterpret_cast<cudaEvent_t>(events_.back().get());
}

EventState& CudaRuntime::event(cudaEvent_t e) {
  for (const auto& p : events_)
    if (reinterpret_cast<cudaEvent_t>(p.get()) == e) return *p;
  throw CudaFailure(cudaErrorInvalidResourceHandle, "unknown event");
}

void CudaRuntime::destroy_event(cudaEvent_t e) {
  auto it = std::find_if(events_.begin(), events_.end(),
                         [&](const auto& p) { return reinterpret_cast<cudaEvent_t>(p.get()) == e; });
  if (it == events_.end()) throw CudaFailure(cudaErrorInvalidResourceHandle, "unknown event");
  events_.erase(it);
}

// ------------------------------------------------------------------ outputs

void CudaRuntime::write_outputs(int exit_status) {
  if (outputs_written_) return;
  outputs_written_ = true;
  flush_device_output();
  if (!options_) return;  // the program never used the GPU
  const RuntimeOptions& o = *options_;
  if (!o.timeline_file.empty()) platform::write_timeline(o.timeline_file);
  if (o.stats_file.empty()) return;
  platform::DeviceStats counters;
  if (device_) counters = device_->stats();
  platform::RunStatistics stats;
  stats.add("program", program_name());
  stats.add("arguments", program_arguments());
  if (exit_status >= 0) stats.add("exit_status", exit_status);
  stats.add("mode", o.mode_name);
  stats.add("preset", o.device.config.preset);
  stats.add("scheduler", o.device.config.scheduler);
  stats.add("divergence", platform::cli::divergence_name(o.device.divergence));
  stats.add("watchdog_instructions", o.device.watchdog_instructions);
  platform::add_device_counters(stats, counters, counters.kernel_host_seconds);
  if (o.device.mode == platform::SimulationMode::Timing)
    platform::add_timing_statistics(stats, o.device.config, counters);
  if (o.device.mode == platform::SimulationMode::Lt && device_)
    platform::add_lt_statistics(stats, o.device.config, *device_);
  nlohmann::ordered_json rows = nlohmann::ordered_json::array();
  uint64_t faulted = 0;
  for (const LaunchRecord& r : launches_) {
    nlohmann::ordered_json row;
    row["kernel"] = r.kernel;
    row["grid"] = {r.grid.x, r.grid.y, r.grid.z};
    row["block"] = {r.block.x, r.block.y, r.block.z};
    row["dynamic_shared_bytes"] = r.dynamic_shared_bytes;
    row["stream"] = r.stream;
    if (r.cooperative) row["cooperative"] = true;
    row["ctas"] = r.ctas;
    row["warp_insts"] = r.warp_insts;
    row["thread_insts"] = r.thread_insts;
    row["cycles"] = r.cycles;
    if (!r.fault.empty()) {
      row["fault"] = r.fault;
      ++faulted;
    }
    rows.push_back(std::move(row));
  }
  stats.add("faulted_launches", faulted);
  stats.add("kernel_launches", rows);
  try {
    platform::cli::write_json_file(o.stats_file, stats.to_json());
    platform::write_files_beside_statistics(o.stats_file, o.device);
  } catch (const std::exception& e) {
    std::cerr << "tlmgpu: TLMGPU_STATS: " << e.what() << std::endl;
  }
}

}  // namespace tlmgpu::cudart
