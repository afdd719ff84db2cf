#include "platform/gpu_device.h"

#include <algorithm>
#include <chrono>
#include <map>
#include <sstream>

#include "model/exec/cta.h"
#include "model/ptx/ptx_parser.h"
#include "platform/functional_engine.h"
#include "platform/lt_launch.h"
#include "platform/occupancy.h"
#include "platform/timing_gpu.h"

namespace tlmgpu::platform {

struct GpuDevice::LoadedModule {
  ptx::Module module;
  std::shared_ptr<void> timing;  // timing mode: per-PC pipeline facts, worked out at the first launch
  uint64_t global_segment = 0;       // device address of the module's .global variables
  std::vector<uint8_t> const_bank;   // written by write_symbol on .const variables
  /// A copy of the constant bank in device memory, made when the program
  /// asks for a .const variable's address (cudaGetSymbolAddress): what is
  /// written there reaches the bank at the next launch (0: none).
  uint64_t const_mirror = 0;
  std::map<std::string, uint32_t> kernel_registers;  // set_kernel_registers: ptxas's counts
  std::map<std::string, int> preferred_carveouts;    // set_preferred_shared_carveout: percent
};

namespace {
uint64_t next_device_id() {
  static uint64_t next = 0;
  return ++next;
}
}  // namespace

uint32_t max_shared_bytes_per_cta(const core::GpuConfig& config) {
  return std::min<uint32_t>(48 * 1024, config.sm.shared_bytes);
}

GpuDevice::GpuDevice() : GpuDevice(DeviceOptions{}) {}
GpuDevice::GpuDevice(const DeviceOptions& options)
    : options_(options),
      id_(next_device_id()),
      own_memory_(std::make_unique<memory::DeviceMemory>()),
      global_(own_memory_.get()),
      runtime_(std::make_unique<exec::DeviceRuntime>()) {}
GpuDevice::GpuDevice(const DeviceOptions& options, memory::GlobalMemoryIf& external)
    : options_(options), id_(next_device_id()), global_(&external),
      runtime_(std::make_unique<exec::DeviceRuntime>()) {}
GpuDevice::~GpuDevice() = default;

memory::DeviceMemory& GpuDevice::own_memory(const char* what) {
  if (!own_memory_)
    throw LaunchError(std::string(what) + ": this device's global memory is external (its owner allocates)");
  return *own_memory_;
}
memory::DeviceMemory& GpuDevice::memory() { return own_memory("memory()"); }

void GpuDevice::set_global_heap(uint64_t base, uint64_t bytes) {
  if (own_memory_) throw LaunchError("set_global_heap: this device allocates from its own memory");
  heap_next_ = base;
  heap_end_ = base + bytes < base ? ~0ull : base + bytes;
}

uint64_t GpuDevice::allocate(uint64_t bytes, const std::string& label) {
  return own_memory("allocate").allocate(bytes, label);
}
void GpuDevice::free(uint64_t device_address) { own_memory("free").free(device_address); }
void GpuDevice::adopt_host_memory(void* host, uint64_t bytes, const std::string& label) {
  own_memory("adopt_host_memory").adopt_host_memory(static_cast<uint8_t*>(host), bytes, label);
}
void GpuDevice::copy_to_device(uint64_t dst, const void* src, uint64_t bytes) {
  if (own_memory_) {
    own_memory_->copy_to_device(dst, src, bytes);
  } else if (!global_->write(dst, src, bytes)) {
    throw std::out_of_range("copy to device: " + std::to_string(bytes) + " bytes at " + std::to_string(dst) +
                            " refused by memory " + global_->describe(dst));
  }
  note_host_copy(dst, bytes);
}
void GpuDevice::note_host_copy(uint64_t dst, uint64_t bytes) {
  if (options_.mode == SimulationMode::Timing && options_.config.l2_fill_on_host_copy && bytes)
    host_copies_.push_back({dst, bytes});
}
void GpuDevice::copy_from_device(void* dst, uint64_t src, uint64_t bytes) {
  if (own_memory_) {
    own_memory_->copy_from_device(dst, src, bytes);
  } else if (!global_->read(src, dst, bytes)) {
    throw std::out_of_range("copy from device: " + std::to_string(bytes) + " bytes at " + std::to_string(src) +
                            " refused by memory " + global_->describe(src));
  }
}
void GpuDevice::memset(uint64_t dst, uint8_t value, uint64_t bytes) {
  if (own_memory_) {
    own_memory_->memset(dst, value, bytes);
  } else {
    const std::vector<uint8_t> fill(bytes, value);
    copy_to_device(dst, fill.data(), bytes);
  }
}

ModuleHandle GpuDevice::load_module_file(const std::string& path) {
  return add_module(ptx::parse_ptx_file(path));
}

ModuleHandle GpuDevice::load_module(const std::string& ptx_source, const std::string& name) {
  return add_module(ptx::parse_ptx(ptx_source, name));
}

ModuleHandle GpuDevice::add_module(ptx::Module&& parsed) {
  auto lm = std::make_unique<LoadedModule>();
  lm->module = std::move(parsed);
  ptx::Module& mod = lm->module;
  lm->const_bank = mod.const_bank;
  // Link: place the .global variables in device memory, initialise them, and
  // turn every reference to one into an absolute address.
  if (!mod.globals.empty()) {
    const uint64_t bytes = std::max<uint32_t>(mod.global_segment_bytes, 1);
    if (own_memory_) {
      lm->global_segment = own_memory_->allocate(bytes, mod.file + " .global variables");
    } else {
      // The heap carve-out, handed out upwards in 256-byte aligned pieces.
      const uint64_t base = (heap_next_ + 255) & ~uint64_t(255);
      if (heap_end_ <= heap_next_ || base < heap_next_ || base > heap_end_ || heap_end_ - base < bytes)
        throw LaunchError("module '" + mod.file + "' has " + std::to_string(bytes) +
                          " bytes of .global variables and the global heap has no room for them (" +
                          std::to_string(heap_end_ > heap_next_ ? heap_end_ - heap_next_ : 0) + " bytes left)");
      lm->global_segment = base;
      heap_next_ = base + bytes;
      // Variables without an initialiser start as zero, as the loader clears them.
      const std::vector<uint8_t> zero(bytes, 0);
      copy_to_device(base, zero.data(), bytes);
    }
    for (ptx::ModuleVariable& v : mod.globals) {
      // Initial values naming a .global variable (pointer tables) get its address.
      for (const ptx::ModuleVariable::AddressInit& a : v.address_inits) {
        const uint64_t address = lm->global_segment + mod.globals[a.global].offset;
        for (unsigned b = 0; b < 8; ++b) v.init[a.offset + b] = uint8_t(address >> (8 * b));
      }
      if (!v.init.empty()) copy_to_device(lm->global_segment + v.offset, v.init.data(), v.init.size());
    }
  }
  auto patch = [&](ptx::Operand& o) {
    if (o.symbol < 0) return;
    o.imm += lm->global_segment + mod.globals[size_t(o.symbol)].offset;
    if (o.kind == ptx::OperandKind::Symbol) o.kind = ptx::OperandKind::Imm;
    o.symbol = -1;
  };
  for (ptx::Instruction& in : mod.code) {
    patch(in.dst);
    patch(in.dst2);
    for (ptx::Operand& o : in.src) patch(o);
  }
  modules_.push_back(std::move(lm));
  return ModuleHandle{uint32_t(modules_.size() - 1)};
}

GpuDevice::LoadedModule& GpuDevice::loaded(ModuleHandle m) {
  if (m.index >= modules_.size()) throw LaunchError("invalid module handle");
  return *modules_[m.index];
}

const ptx::Module& GpuDevice::module(ModuleHandle m) const {
  if (m.index >= modules_.size()) throw LaunchError("invalid module handle");
  return modules_[m.index]->module;
}

namespace {

const ptx::ModuleVariable* find_variable(const std::vector<ptx::ModuleVariable>& vars, const std::string& name) {
  for (const ptx::ModuleVariable& v : vars)
    if (v.name == name) return &v;
  return nullptr;
}

void check_symbol_range(const ptx::ModuleVariable& v, uint64_t bytes, uint64_t offset) {
  if (offset + bytes > v.size) {
    throw LaunchError("symbol '" + v.name + "' has " + std::to_string(v.size) + " bytes; access of " +
                      std::to_string(bytes) + " bytes at offset " + std::to_string(offset) + " is outside it");
  }
}

}  // namespace

void GpuDevice::write_symbol(ModuleHandle m, const std::string& symbol, const void* src, uint64_t bytes,
                             uint64_t offset) {
  LoadedModule& lm = loaded(m);
  if (const ptx::ModuleVariable* v = find_variable(lm.module.globals, symbol)) {
    check_symbol_range(*v, bytes, offset);
    copy_to_device(lm.global_segment + v->offset + offset, src, bytes);
  } else if (const ptx::ModuleVariable* c = find_variable(lm.module.consts, symbol)) {
    check_symbol_range(*c, bytes, offset);
    std::memcpy(lm.const_bank.data() + c->offset + offset, src, bytes);
    if (lm.const_mirror) own_memory("write_symbol").copy_to_device(lm.const_mirror + c->offset + offset, src, bytes);
  } else {
    throw LaunchError("module '" + lm.module.file + "' has no .global or .const variable '" + symbol + "'");
  }
}

uint64_t GpuDevice::symbol_address(ModuleHandle m, const std::string& symbol) {
  LoadedModule& lm = loaded(m);
  if (const ptx::ModuleVariable* v = find_variable(lm.module.globals, symbol)) return lm.global_segment + v->offset;
  if (const ptx::ModuleVariable* c = find_variable(lm.module.consts, symbol)) {
    if (!lm.const_mirror) {
      memory::DeviceMemory& mem = own_memory("symbol_address");
      lm.const_mirror = mem.allocate(lm.const_bank.size(), "constant bank of " + lm.module.file);
      mem.copy_to_device(lm.const_mirror, lm.const_bank.data(), lm.const_bank.size());
    }
    return lm.const_mirror + c->offset;
  }
  throw LaunchError("module '" + lm.module.file + "' has no .global or .const variable '" + symbol + "'");
}

void GpuDevice::read_symbol(ModuleHandle m, const std::string& symbol, void* dst, uint64_t bytes, uint64_t offset) {
  LoadedModule& lm = loaded(m);
  if (const ptx::ModuleVariable* v = find_variable(lm.module.globals, symbol)) {
    check_symbol_range(*v, bytes, offset);
    copy_from_device(dst, lm.global_segment + v->offset + offset, bytes);
  } else if (const ptx::ModuleVariable* c = find_variable(lm.module.consts, symbol)) {
    check_symbol_range(*c, bytes, offset);
    if (lm.const_mirror) own_memory_->copy_from_device(lm.const_bank.data(), lm.const_mirror, lm.const_bank.size());
    std::memcpy(dst, lm.const_bank.data() + c->offset + offset, bytes);
  } else {
    throw LaunchError("module '" + lm.module.file + "' has no .global or .const variable '" + symbol + "'");
  }
}

std::vector<uint8_t> GpuDevice::pack_arguments(const ptx::Function& kernel, const KernelArgs& args) const {
  const auto& given = args.args();
  if (given.size() != kernel.params.size()) {
    throw LaunchError("kernel '" + kernel.name + "' takes " + std::to_string(kernel.params.size()) +
                      " parameters, " + std::to_string(given.size()) + " given");
  }
  std::vector<uint8_t> buffer(kernel.param_bytes, 0);
  for (size_t i = 0; i < given.size(); ++i) {
    const ptx::KernelParam& p = kernel.params[i];
    if (given[i].bytes.size() != p.size) {
      throw LaunchError("kernel '" + kernel.name + "' parameter " + std::to_string(i) + " ('" + p.name + "') is " +
                        std::to_string(p.size) + " bytes, argument has " + std::to_string(given[i].bytes.size()));
    }
    std::memcpy(buffer.data() + p.offset, given[i].bytes.data(), p.size);
  }
  return buffer;
}

namespace {

std::string dim_text(Dim3 d) {
  std::ostringstream os;
  os << "(" << d.x << "," << d.y << "," << d.z << ")";
  return os.str();
}

void check_launch_shape(const ptx::Function& k, Dim3 grid, Dim3 block) {
  if (block.x == 0 || block.y == 0 || block.z == 0 || grid.x == 0 || grid.y == 0 || grid.z == 0)
    throw LaunchError("launch of '" + k.name + "': grid " + dim_text(grid) + " and block " + dim_text(block) +
                      " must have every dimension >= 1");
  if (block.x > 1024 || block.y > 1024 || block.z > 64 || block.count() > 1024)
    throw LaunchError("launch of '" + k.name + "': block " + dim_text(block) +
                      " exceeds the limits (x,y <= 1024, z <= 64, at most 1024 threads)");
  if (grid.y > 65535 || grid.z > 65535)
    throw LaunchError("launch of '" + k.name + "': grid " + dim_text(grid) + " exceeds y,z <= 65535");
  if (k.reqntid[0] != 0) {
    Dim3 req{k.reqntid[0], std::max(k.reqntid[1], 1u), std::max(k.reqntid[2], 1u)};
    if (!(req == block))
      throw LaunchError("launch of '" + k.name + "': block " + dim_text(block) + " differs from .reqntid " +
                        dim_text(req));
  }
  if (k.maxntid[0] != 0) {
    const uint64_t limit = uint64_t(k.maxntid[0]) * std::max(k.maxntid[1], 1u) * std::max(k.maxntid[2], 1u);
    if (block.count() > limit)
      throw LaunchError("launch of '" + k.name + "': block " + dim_text(block) + " has more threads than .maxntid " +
                        std::to_string(limit));
  }
}

}  // namespace

void GpuDevice::set_kernel_registers(ModuleHandle m, const std::string& kernel, uint32_t regs_per_thread) {
  LoadedModule& lm = loaded(m);
  if (!lm.module.function_index.count(kernel))
    throw LaunchError("module '" + lm.module.file + "' has no kernel '" + kernel + "'");
  lm.kernel_registers[kernel] = regs_per_thread;
}

void GpuDevice::set_preferred_shared_carveout(ModuleHandle m, const std::string& kernel, int percent) {
  LoadedModule& lm = loaded(m);
  if (!lm.module.function_index.count(kernel))
    throw LaunchError("module '" + lm.module.file + "' has no kernel '" + kernel + "'");
  if (percent < -1 || percent > 100)
    throw LaunchError("preferred shared-memory carve-out of '" + kernel + "': " + std::to_string(percent) +
                      " (a percentage 0..100, or -1 for none)");
  lm.preferred_carveouts[kernel] = percent;
}

const ptx::Function& GpuDevice::entry(const LoadedModule& lm, const std::string& kernel) const {
  const ptx::Module& mod = lm.module;
  auto it = mod.function_index.find(kernel);
  if (it == mod.function_index.end() || !mod.functions[it->second].is_entry) {
    std::string names;
    for (const ptx::Function& f : mod.functions)
      if (f.is_entry) names += (names.empty() ? "" : ", ") + f.name;
    throw LaunchError("module '" + mod.file + "' has no kernel '" + kernel + "' (kernels: " + names + ")");
  }
  return mod.functions[it->second];
}

void GpuDevice::launch(ModuleHandle m, const std::string& kernel, Dim3 grid, Dim3 block,
                       uint32_t dynamic_shared_bytes, const KernelArgs& args, uint32_t regs_per_thread) {
  LoadedModule& lm = loaded(m);
  if (regs_per_thread == 0)
    if (auto recorded = lm.kernel_registers.find(kernel); recorded != lm.kernel_registers.end())
      regs_per_thread = recorded->second;
  const ptx::Function& k = entry(lm, kernel);
  check_launch_shape(k, grid, block);
  run_launch(lm, k, grid, block, dynamic_shared_bytes, pack_arguments(k, args), regs_per_thread);
}

void GpuDevice::launch_with_param_buffer(ModuleHandle m, const std::string& kernel, Dim3 grid, Dim3 block,
                                         uint32_t dynamic_shared_bytes, const std::vector<uint8_t>& params) {
  LoadedModule& lm = loaded(m);
  uint32_t regs_per_thread = 0;
  if (auto recorded = lm.kernel_registers.find(kernel); recorded != lm.kernel_registers.end())
    regs_per_thread = recorded->second;
  const ptx::Function& k = entry(lm, kernel);
  check_launch_shape(k, grid, block);
  if (params.size() != k.param_bytes)
    throw LaunchError("kernel '" + k.name + "' has " + std::to_string(k.param_bytes) +
                      " bytes of parameters, the launch gives " + std::to_string(params.size()));
  run_launch(lm, k, grid, block, dynamic_shared_bytes, params, regs_per_thread);
}

void GpuDevice::check_tex_resource(const exec::TexResource& resource) {
  try {
    exec::validate_tex_resource(resource);
  } catch (const std::invalid_argument& e) {
    throw LaunchError(e.what());
  }
  // The device's own memory says where allocations end; external memory is the owner's business.
  if (own_memory_ && own_memory_->translate(resource.base, resource.size_bytes()) == nullptr) {
    std::ostringstream os;
    os << "texture/surface resource of " << resource.size_bytes() << " bytes at 0x" << std::hex << resource.base
       << " is not inside one allocation";
    throw LaunchError(os.str());
  }
}

uint64_t GpuDevice::create_texture_object(const exec::TexResource& resource, const exec::TexSampler& sampler) {
  check_tex_resource(resource);
  try {
    return textures_.create_texture(exec::TextureObject{resource, sampler});
  } catch (const std::invalid_argument& e) {
    throw LaunchError(e.what());
  }
}

uint64_t GpuDevice::create_surface_object(const exec::TexResource& resource) {
  check_tex_resource(resource);
  if (resource.kind == exec::TexResourceKind::Linear)
    throw LaunchError("surface objects need an array or pitch-2D resource, not a linear one");
  return textures_.create_surface(resource);
}

void GpuDevice::destroy_texture_object(uint64_t handle) {
  try {
    textures_.destroy(handle);
  } catch (const std::invalid_argument& e) {
    throw LaunchError(e.what());
  }
}

void GpuDevice::run_launch(LoadedModule& lm, const ptx::Function& k, Dim3 grid, Dim3 block,
                           uint32_t dynamic_shared_bytes, const std::vector<uint8_t>& params,
                           uint32_t regs_per_thread) {
  const ptx::Module& mod = lm.module;
  // Charged: what this kernel's CTAs use; the address window also spans the
  // other kernels' static shared variables (the module's one layout).
  const uint64_t shared = uint64_t(k.static_shared_bytes) + dynamic_shared_bytes;
  if (shared > max_shared_bytes_per_cta(options_.config)) {
    throw LaunchError("launch of '" + k.name + "': " + std::to_string(shared) + " bytes of shared memory (" +
                      std::to_string(k.static_shared_bytes) + " static + " + std::to_string(dynamic_shared_bytes) +
                      " dynamic) exceed the " + std::to_string(max_shared_bytes_per_cta(options_.config)) +
                      " per CTA");
  }

  exec::KernelContext ctx;
  ctx.module = &mod;
  ctx.kernel = &k;
  ctx.params = params.data();
  ctx.global = global_;
  if (lm.const_mirror) own_memory_->copy_from_device(lm.const_bank.data(), lm.const_mirror, lm.const_bank.size());
  ctx.const_bank = lm.const_bank.data();
  ctx.const_bytes = uint32_t(lm.const_bank.size());
  ctx.grid = grid;
  ctx.block = block;
  ctx.shared_bytes = uint32_t(shared);
  ctx.shared_window_bytes = mod.static_shared_bytes + dynamic_shared_bytes;
  ctx.local_bytes_per_thread = mod.local_bytes_per_thread;
  if (const auto pref = lm.preferred_carveouts.find(k.name); pref != lm.preferred_carveouts.end())
    ctx.preferred_shared_carveout = pref->second;
  ctx.divergence = options_.divergence;
  ctx.num_sms = options_.config.num_sms;
  ctx.grid_id = uint32_t(stats_.kernels_launched + 1);
  ctx.textures = &textures_;
  ensure_device_heap(mod);
  ctx.runtime = runtime_.get();
  if (cooperative_launch_) prepare_cooperative(k, ctx, regs_per_thread);

  const auto started = std::chrono::steady_clock::now();
  last_launch_cycles_ = 0;
  try {
    run_engine(lm, ctx, regs_per_thread);
  } catch (exec::DeviceFault& fault) {
    printf_output_ += runtime_->take_launch_output();
    // A launch that ends in a fault counts as launched (its whole grid),
    // with what it executed (and simulated) up to the fault.
    ++stats_.kernels_launched;
    stats_.ctas += grid.count();
    stats_.warp_insts += fault.executed_warp_insts();
    stats_.thread_insts += fault.executed_thread_insts();
    stats_.sim_cycles += fault.executed_cycles();
    stats_.kernel_host_seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    throw;
  } catch (const LaunchAborted&) {
    // Whatever the aborted launch printed is gone with it, not left for the next one.
    runtime_->take_launch_output();
    throw;
  }
  printf_output_ += runtime_->take_launch_output();
  stats_.kernel_host_seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  ++stats_.kernels_launched;
  stats_.ctas += grid.count();
}

void GpuDevice::launch_cooperative(ModuleHandle m, const std::string& kernel, Dim3 grid, Dim3 block,
                                   uint32_t dynamic_shared_bytes, const KernelArgs& args, uint32_t regs_per_thread) {
  struct Reset {
    bool& flag;
    ~Reset() { flag = false; }
  } reset{cooperative_launch_};
  cooperative_launch_ = true;
  launch(m, kernel, grid, block, dynamic_shared_bytes, args, regs_per_thread);
}

void GpuDevice::prepare_cooperative(const ptx::Function& k, exec::KernelContext& ctx, uint32_t regs_per_thread) {
  const core::GpuConfig& cfg = options_.config;
  uint32_t regs = options_.regs_per_thread ? options_.regs_per_thread
                                           : regs_per_thread ? regs_per_thread : k.regs_per_thread;
  regs = std::min(std::max(regs, 1u), cfg.sm.max_regs_per_thread);
  const Occupancy occ = compute_occupancy(launch_sm(cfg, ctx.shared_bytes, ctx.preferred_shared_carveout), k.name,
                                          uint32_t(ctx.block.count()), ctx.shared_bytes, regs, RegisterSource::Estimate);
  const uint64_t fit = uint64_t(occ.ctas_per_sm) * cfg.num_sms;
  if (ctx.grid.count() > fit)
    throw LaunchError("cooperative launch of '" + k.name + "': the grid's " + std::to_string(ctx.grid.count()) +
                      " CTAs do not fit co-resident (" + std::to_string(occ.ctas_per_sm) + " CTAs per SM, limited by " +
                      occ.limited_by + ", x " + std::to_string(cfg.num_sms) + " SMs = " + std::to_string(fit) + ")");
  if (grid_barrier_workspace_ == 0) {
    if (own_memory_) {
      grid_barrier_workspace_ = own_memory_->allocate(16, "grid barrier workspace");
    } else {
      const uint64_t base = (heap_next_ + 255) & ~uint64_t(255);
      if (heap_end_ <= heap_next_ || base > heap_end_ || heap_end_ - base < 16)
        throw LaunchError("the grid barrier workspace does not fit in the global heap");
      grid_barrier_workspace_ = base;
      heap_next_ = base + 16;
    }
  }
  const uint8_t zero[16] = {};
  copy_to_device(grid_barrier_workspace_, zero, sizeof zero);
  ctx.envreg[1] = uint32_t(grid_barrier_workspace_ >> 32);
  ctx.envreg[2] = uint32_t(grid_barrier_workspace_);
  ctx.cooperative = true;
}

std::string GpuDevice::take_printf_output() {
  std::string out;
  out.swap(printf_output_);
  return out;
}

void GpuDevice::set_malloc_heap_bytes(uint32_t bytes) {
  if (runtime_->heap.ready()) throw LaunchError("the device malloc heap is in use: its size is set before the first launch that uses it");
  options_.config.malloc_heap_bytes = bytes;
}

void GpuDevice::ensure_device_heap(const ptx::Module& mod) {
  if (runtime_->heap.ready()) return;
  const bool uses_heap = std::any_of(mod.calls.begin(), mod.calls.end(), [](const ptx::CallSite& c) {
    return c.builtin == ptx::BuiltinFunction::Malloc || c.builtin == ptx::BuiltinFunction::Free;
  });
  const uint64_t bytes = options_.config.malloc_heap_bytes;
  if (!uses_heap || bytes == 0) return;
  uint64_t base = 0;
  if (own_memory_) {
    base = own_memory_->allocate(bytes, "device malloc heap");
  } else {
    base = (heap_next_ + 255) & ~uint64_t(255);
    if (heap_end_ <= heap_next_ || base > heap_end_ || heap_end_ - base < bytes)
      throw LaunchError("the device malloc heap (" + std::to_string(bytes) +
                        " bytes, gpu.malloc_heap_bytes) does not fit in the global heap");
    heap_next_ = base + bytes;
  }
  runtime_->heap.reset(base, bytes);
}

void GpuDevice::run_engine(LoadedModule& lm, const exec::KernelContext& ctx, uint32_t regs_per_thread) {
  if (options_.mode == SimulationMode::Functional) {
    FunctionalEngine engine(ctx, options_, nullptr, pacer_);
    const FunctionalEngine::Totals t = engine.run();
    stats_.warp_insts += t.warp_insts;
    stats_.thread_insts += t.thread_insts;
  } else if (options_.mode == SimulationMode::Lt) {
    FunctionalEngine::Totals t;
    LtLaunchRecord record;
    try {
      run_lt_launch(options_, ctx, regs_per_thread, t, record, pacer_);
    } catch (const exec::DeviceFault& fault) {
      last_launch_cycles_ = fault.executed_cycles();
      lt_launches_.push_back(std::move(record));
      throw;
    }
    lt_launches_.push_back(std::move(record));
    stats_.warp_insts += t.warp_insts;
    stats_.thread_insts += t.thread_insts;
    last_launch_cycles_ = lt_launches_.back().estimate.cycles;
    stats_.sim_cycles += last_launch_cycles_;
  } else {
    TimingLaunchStats t;
    try {
      t = timing_backend_ ? timing_backend_->run_launch(options_, ctx, lm.timing, id_, host_copies_, regs_per_thread)
                          : run_timing_launch(options_, ctx, lm.timing, id_, host_copies_, regs_per_thread);
    } catch (const exec::DeviceFault& fault) {
      last_launch_cycles_ = fault.executed_cycles();
      throw;
    }
    host_copies_.clear();
    stats_.warp_insts += t.warp_insts;
    stats_.thread_insts += t.thread_insts;
    stats_.sim_cycles += t.sim_cycles;
    last_launch_cycles_ = t.sim_cycles;
  }
}

}  // namespace tlmgpu::platform
