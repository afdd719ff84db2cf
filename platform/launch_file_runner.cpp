#include "platform/launch_file_runner.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "model/ptx/ptx_ir.h"
#include "platform/launch_file_checker.h"

namespace tlmgpu::platform::launch_file {
namespace {

namespace fs = std::filesystem;

bool is_float_type(ptx::DataType t) { return t == ptx::DataType::F32 || t == ptx::DataType::F64 || t == ptx::DataType::F16; }
bool is_int_type(ptx::DataType t) {
  using D = ptx::DataType;
  return t == D::U8 || t == D::U16 || t == D::U32 || t == D::U64 || t == D::S8 || t == D::S16 || t == D::S32 ||
         t == D::S64;
}

std::string kernel_list(const ptx::Module& m) {
  std::string s;
  for (const ptx::Function& f : m.functions)
    if (f.is_entry) s += (s.empty() ? "" : ", ") + f.name;
  return s.empty() ? "none" : s;
}

// Runs a checked plan against one device.
class Runner {
 public:
  Runner(const Checker& ck, const LaunchPlan& plan, GpuDevice& device, LaunchFileResult& result)
      : ck_(ck), plan_(plan), device_(device), result_(result) {}

  void check_module(const ptx::Module& m) const { check_steps(plan_.root.steps, m); }

  static const ptx::ModuleVariable* find_variable(const ptx::Module& m, const std::string& name) {
    for (const auto* list : {&m.globals, &m.consts})
      for (const ptx::ModuleVariable& v : *list)
        if (v.name == name) return &v;
    return nullptr;
  }

  void check_symbols(const ptx::Module& m) const {
    for (const SymbolSpec& s : plan_.symbols) {
      const ptx::ModuleVariable* var = find_variable(m, s.symbol);
      if (!var)
        ck_.fail(key_path(s.path, "symbol"), "no .global or .const variable " + quote(s.symbol) + " in " + plan_.ptx_path);
      uint64_t bytes = s.buffer >= 0 ? 8 : s.bytes.size();
      if (s.offset + bytes > var->size)
        ck_.fail(s.path, "writes " + std::to_string(bytes) + " bytes at offset " + std::to_string(s.offset) +
                             " but " + quote(s.symbol) + " has " + std::to_string(var->size) + " bytes");
    }
  }

  void allocate() {
    for (const BufferSpec& b : plan_.buffers) {
      uint64_t bytes = b.count * b.elem_bytes;
      uint64_t addr = device_.allocate(bytes, b.name);
      // Allocations start zeroed.
      if (b.init.source.kind != Source::Kind::Zeros || !b.init.fields.empty()) {
        std::vector<uint8_t> data = materialise_buffer(b, b.init);
        device_.copy_to_device(addr, data.data(), data.size());
      }
      address_.push_back(addr);
    }
  }

  /// Texture and surface objects over the allocated buffers (the resource must fit in its buffer).
  void create_textures() {
    for (const TextureSpec& t : plan_.textures) {
      exec::TexResource r = t.resource;
      r.base = address_[t.buffer];
      const BufferSpec& b = plan_.buffers[t.buffer];
      try {
        exec::validate_tex_resource(r);
        if (r.size_bytes() > b.count * info(b.type).bytes)
          ck_.fail(t.path, "needs " + std::to_string(r.size_bytes()) + " bytes but buffer " + quote(b.name) + " has " +
                               std::to_string(b.count * info(b.type).bytes));
        handles_.push_back(t.surface ? device_.create_surface_object(r) : device_.create_texture_object(r, t.sampler));
      } catch (const std::invalid_argument& e) {
        ck_.fail(t.path, e.what());
      } catch (const LaunchError& e) {
        ck_.fail(t.path, e.what());
      }
    }
  }

  void write_symbols(ModuleHandle mod) {
    for (const SymbolSpec& s : plan_.symbols) {
      std::vector<uint8_t> bytes = s.bytes;
      if (s.buffer >= 0) {
        bytes.resize(8);
        store_bits(bytes.data(), 8, address_[size_t(s.buffer)]);
      }
      try {
        device_.write_symbol(mod, s.symbol, bytes.data(), bytes.size(), s.offset);
      } catch (const LaunchError& e) {
        ck_.fail(s.path, e.what());
      }
    }
  }

  void run_group(const Group& g, ModuleHandle mod) {
    if (!g.repeat) {
      run_steps(g.steps, mod);
      return;
    }
    const RepeatSpec& r = *g.repeat;
    if (!r.flag) {
      for (uint64_t it = 0; it < r.times; ++it) {
        apply_resets(r);
        run_steps(g.steps, mod);
        record_iteration(g.path);
      }
      return;
    }
    const BufferSpec& flag = plan_.buffers[*r.flag];
    const unsigned fw = info(flag.type).bytes;
    for (uint64_t it = 1;; ++it) {
      set_first(*r.flag, 0);
      apply_resets(r);
      run_steps(g.steps, mod);
      record_iteration(g.path);
      uint8_t raw[8] = {};
      device_.copy_from_device(raw, address_[*r.flag], fw);
      if (is_zero(flag.type, load_bits(raw, fw))) return;
      if (it == r.max_iterations)
        throw LaunchFileRunError("launch file " + ck_.file() + ": " + r.path + ": flag buffer " + quote(flag.name) +
                                 " is still non-zero after max_iterations (" + std::to_string(r.max_iterations) +
                                 ") iterations");
    }
  }

  void apply_resets(const RepeatSpec& r) {
    for (const ResetSpec& rs : r.resets) {
      if (rs.fill) {
        Source c;
        c.kind = Source::Kind::Constant;
        c.constant = rs.bits;
        const BufferSpec& b = plan_.buffers[rs.buffer];
        std::vector<uint8_t> data = materialise(c, b.type, b.count);
        device_.copy_to_device(address_[rs.buffer], data.data(), data.size());
      } else {
        set_first(rs.buffer, rs.bits);
      }
    }
  }

  void dump() {
    for (const DumpSpec& d : plan_.dumps) {
      const BufferSpec& b = plan_.buffers[d.buffer];
      const unsigned w = unsigned(b.elem_bytes);
      std::vector<uint8_t> data(b.count * w);
      device_.copy_from_device(data.data(), address_[d.buffer], data.size());
      fs::path out(d.file);
      if (!out.is_absolute()) out = fs::path(output_dir_.empty() ? plan_.base_dir : output_dir_) / out;
      std::error_code ec;
      if (out.has_parent_path()) fs::create_directories(out.parent_path(), ec);
      std::ofstream f(out, d.text ? std::ios::out : std::ios::binary);
      if (!f) ck_.fail(key_path(d.path, "file"), "cannot write " + out.string() + ": " + std::strerror(errno));
      if (d.text) {
        for (uint64_t i = 0; i < b.count; ++i) f << to_text(b.type, load_bits(&data[i * w], w)) << '\n';
      } else {
        f.write(reinterpret_cast<const char*>(data.data()), std::streamsize(data.size()));
      }
      f.close();
      if (!f) ck_.fail(key_path(d.path, "file"), "cannot write " + out.string());
      result_.dumped.push_back(out.string());
    }
  }

  void verify() {
    result_.expectations = plan_.expects.size();
    uint64_t elements = 0;
    for (const ExpectSpec& x : plan_.expects) {
      std::vector<uint64_t> got = selected_values(x);
      elements += got.size();
      std::string failure = check_expectation(x, got);
      if (!failure.empty() && result_.verified) {
        result_.verified = false;
        result_.detail = x.path + ": " + failure;
      }
    }
    if (result_.verified)
      result_.detail = plan_.expects.empty()
                           ? "no expectations"
                           : std::to_string(plan_.expects.size()) +
                                 (plan_.expects.size() == 1 ? " expectation holds (" : " expectations hold (") +
                                 std::to_string(elements) + " elements)";
  }

  void set_output_dir(std::string dir) { output_dir_ = std::move(dir); }

  // An expected fault happened: it must be of the expected kind and carry
  // the expected text, else the run fails (exit 1) saying what happened.
  void check_fault(const FaultExpect& want, const exec::DeviceFault& f) {
    const std::string report = f.what();
    const bool kind_ok = !want.kind || *want.kind == f.kind();
    const bool text_ok = report.find(want.message_contains) != std::string::npos;
    if (kind_ok && text_ok) {
      ++result_.expected_faults;
      result_.faults_as_expected.push_back(
          ExpectedFaultRecord{want.path, last_kernel_, fault_kind_name(f.kind()), report.substr(0, report.find('\n'))});
      return;
    }
    throw LaunchFileRunError("launch file " + ck_.file() + ": " + want.path + ": expected " + describe(want) +
                             ", got a fault of kind " + fault_kind_name(f.kind()) + ": " + report);
  }

  LaunchFileRunError missing_fault(const FaultExpect& want, const std::string& what) const {
    return LaunchFileRunError("launch file " + ck_.file() + ": " + want.path + ": expected " + describe(want) +
                              ", but " + what + " without a fault");
  }

 private:
  static std::string describe(const FaultExpect& f) {
    std::string s = f.kind ? std::string("a fault of kind ") + fault_kind_name(*f.kind) : std::string("a device fault");
    if (!f.message_contains.empty()) s += " whose report contains " + quote(f.message_contains);
    return s;
  }

  static bool matches(Elem e, uint64_t got, uint64_t want, const ExpectSpec& x) {
    if (x.tolerance == 0 && x.relative_tolerance == 0 && !info(e).is_float) return got == want;
    if (info(e).is_float) {
      double g = to_double(e, got), w = to_double(e, want);
      if (std::isnan(g) || std::isnan(w)) return std::isnan(g) && std::isnan(w);
      if (g == w) return true;  // also equal infinities
      return std::fabs(g - w) <= x.tolerance + x.relative_tolerance * std::fabs(w);
    }
    long double g = info(e).is_signed ? (long double)to_signed(e, got) : (long double)got;
    long double w = info(e).is_signed ? (long double)to_signed(e, want) : (long double)want;
    return std::fabs(g - w) <= x.tolerance + x.relative_tolerance * std::fabs(w);
  }

  // The values an expectation looks at, in selection order (struct i's
  // field elements adjacent), as bits of x.type.
  std::vector<uint64_t> selected_values(const ExpectSpec& x) const {
    const BufferSpec& b = plan_.buffers[x.buffer];
    std::vector<uint8_t> raw(b.count * b.elem_bytes);
    device_.copy_from_device(raw.data(), address_[x.buffer], raw.size());
    const unsigned w = info(x.type).bytes;
    const uint64_t per = x.field ? x.field->count : 1, base = x.field ? x.field->offset : 0;
    std::vector<uint64_t> out;
    out.reserve(x.count * per);
    for (uint64_t i = 0; i < x.count; ++i)
      for (uint64_t k = 0; k < per; ++k)
        out.push_back(load_bits(&raw[(x.start + i * x.stride) * b.elem_bytes + base + k * w], w));
    return out;
  }

  // "p[5].pos.y" / "a[7]" / "p[2].tags[1]" for the j-th selected value.
  std::string value_label(const ExpectSpec& x, uint64_t j) const {
    const uint64_t per = x.field ? x.field->count : 1;
    std::string s = plan_.buffers[x.buffer].name + "[" + std::to_string(x.start + (j / per) * x.stride) + "]";
    if (x.field) {
      s += "." + x.field->name;
      if (per > 1) s += "[" + std::to_string(j % per) + "]";
    }
    return s;
  }

  std::string tolerance_text(const ExpectSpec& x) const {
    if (x.tolerance == 0 && x.relative_tolerance == 0) return "";
    std::ostringstream os;
    os << " (tolerance " << x.tolerance << ", relative " << x.relative_tolerance << ")";
    return os.str();
  }

  // "" when the expectation holds, else what differs.
  std::string check_expectation(const ExpectSpec& x, const std::vector<uint64_t>& got) const {
    const Elem e = x.type;
    const uint64_t n = got.size();
    std::ostringstream os;
    if (x.check == ExpectSpec::Check::Sum) {
      const Elem st = sum_type(e);
      // Floats add up in double, in selection order; integers exactly (64-bit).
      uint64_t total = 0;
      double ftotal = 0;
      for (uint64_t v : got) {
        if (info(e).is_float) ftotal += to_double(e, v);
        else total += info(e).is_signed ? uint64_t(to_signed(e, v)) : v;
      }
      if (info(e).is_float) total = from_double(st, ftotal);
      if (matches(st, total, x.sum, x)) return "";
      os << "sum of " << n << " values " << (x.field ? "of field " + x.field->name + " " : std::string()) << "is "
         << to_text(st, total) << ", expected " << to_text(st, x.sum) << tolerance_text(x);
      return os.str();
    }
    if (x.check == ExpectSpec::Check::Range) {
      uint64_t bad = 0, first = 0;
      for (uint64_t j = 0; j < n; ++j) {
        const bool nan = info(e).is_float && std::isnan(to_double(e, got[j]));
        const bool ok = !nan && (!x.min || compare_values(e, got[j], *x.min) >= 0) &&
                        (!x.max || compare_values(e, got[j], *x.max) <= 0);
        if (!ok && bad++ == 0) first = j;
      }
      if (!bad) return "";
      os << value_label(x, first) << " = " << to_text(e, got[first]) << ", expected within ["
         << (x.min ? to_text(e, *x.min) : std::string("-inf")) << ", " << (x.max ? to_text(e, *x.max) : std::string("inf"))
         << "]; " << bad << " of " << n << " elements out of range";
      return os.str();
    }
    const std::vector<uint8_t> want_raw = materialise(x.want, e, n);
    const unsigned w = info(e).bytes;
    std::vector<uint64_t> want(n);
    for (uint64_t j = 0; j < n; ++j) want[j] = load_bits(&want_raw[j * w], w);
    std::vector<uint64_t> have = got;
    const bool sorted = x.check == ExpectSpec::Check::Sorted;
    if (sorted) {
      // Order-independent: compare the sorted contents with the sorted reference.
      auto less = [e](uint64_t a, uint64_t b) { return compare_values(e, a, b) < 0; };
      std::sort(have.begin(), have.end(), less);
      std::sort(want.begin(), want.end(), less);
    }
    uint64_t bad = 0, first = 0;
    for (uint64_t j = 0; j < n; ++j)
      if (!matches(e, have[j], want[j], x) && bad++ == 0) first = j;
    if (!bad) return "";
    if (sorted)
      os << "as a sorted multiset, element " << first << " of " << plan_.buffers[x.buffer].name
         << (x.field ? "." + x.field->name : std::string()) << " is " << to_text(e, have[first]) << ", expected "
         << to_text(e, want[first]);
    else
      os << value_label(x, first) << " = " << to_text(e, have[first]) << ", expected " << to_text(e, want[first]);
    os << tolerance_text(x) << "; " << bad << " of " << n << " elements differ";
    return os.str();
  }

  void check_steps(const std::vector<Step>& steps, const ptx::Module& m) const {
    for (const Step& s : steps) {
      if (s.kind == Step::Kind::Group) {
        check_steps(s.group->steps, m);
        continue;
      }
      if (s.kind == Step::Kind::Copy && s.copy.kind != CopySpec::Kind::Buffers) symbol_copy_elements(s.copy, s.path, m);
      if (s.kind != Step::Kind::Launch) continue;
      const LaunchSpec& l = s.launch;
      auto fi = m.function_index.find(l.kernel);
      if (fi == m.function_index.end() || !m.functions[fi->second].is_entry)
        ck_.fail(key_path(l.path, "kernel"), "no kernel " + quote(l.kernel) + " in " + plan_.ptx_path +
                                                 " (kernels: " + kernel_list(m) + ")");
      const ptx::Function& f = m.functions[fi->second];
      if (f.params.size() != l.args.size())
        ck_.fail(key_path(l.path, "args"), "kernel " + quote(l.kernel) + " takes " + std::to_string(f.params.size()) +
                                               " argument" + (f.params.size() == 1 ? "" : "s") + ", got " +
                                               std::to_string(l.args.size()));
      for (size_t i = 0; i < l.args.size(); ++i) {
        const ArgSpec& a = l.args[i];
        const ptx::KernelParam& p = f.params[i];
        uint64_t bytes = a.kind == ArgSpec::Kind::Buffer || a.kind == ArgSpec::Kind::Texture ? 8
                         : a.kind == ArgSpec::Kind::Bytes ? a.bytes.size()
                                                          : info(a.type).bytes;
        std::string what = a.kind == ArgSpec::Kind::Buffer    ? std::string("a buffer address")
                           : a.kind == ArgSpec::Kind::Texture ? std::string("a texture handle")
                           : a.kind == ArgSpec::Kind::Bytes ? std::string("raw bytes")
                                                            : std::string("type ") + info(a.type).name;
        std::string param = "parameter " + std::to_string(i) + " (" + p.name + ", " + ptx::type_name(p.type) +
                            ", " + std::to_string(p.size) + " bytes)";
        if (a.struct_type >= 0) {
          const StructType& st = plan_.types.type(size_t(a.struct_type));
          what = "struct " + quote(st.name) + " (" + std::to_string(st.size) + " bytes, alignment " +
                 std::to_string(st.align) + ")";
          // nvcc passes a struct as .param .align A .b8 name[size]: a layout
          // that disagrees with the kernel's is a wrong declaration.
          if (bytes != p.size || (p.type == ptx::DataType::B8 && p.align != st.align))
            ck_.fail(a.path, what + " does not match " + param + " (.align " + std::to_string(p.align) + ")");
        }
        if (bytes != p.size)
          ck_.fail(a.path, what + " is " + std::to_string(bytes) + " bytes but " + param + " is not");
        if (a.kind == ArgSpec::Kind::Scalar &&
            ((info(a.type).is_float && is_int_type(p.type)) || (!info(a.type).is_float && is_float_type(p.type))))
          ck_.fail(a.path, what + " does not match " + param);
      }
    }
  }

  void run_steps(const std::vector<Step>& steps, ModuleHandle mod) {
    for (const Step& s : steps) {
      switch (s.kind) {
        case Step::Kind::Group:
          run_group(*s.group, mod);
          break;
        case Step::Kind::Copy:
          run_copy(s.copy, s.path, mod);
          break;
        case Step::Kind::Fill: {
          const BufferSpec& b = plan_.buffers[s.fill.buffer];
          std::vector<uint8_t> data = materialise_buffer(b, s.fill.init);
          device_.copy_to_device(address_[s.fill.buffer], data.data(), data.size());
          break;
        }
        case Step::Kind::Swap:
          // Names are bindings to storage: swapping exchanges the storage, so
          // later arguments, flags, dumps and expectations follow it.
          std::swap(address_[s.swap[0]], address_[s.swap[1]]);
          break;
        case Step::Kind::Launch:
          run_launch(s.launch, mod);
          break;
      }
    }
  }

  // Elements a copy between a buffer and a module variable moves: `count`,
  // or as many as fit in both; the variable must exist and hold them.
  uint64_t symbol_copy_elements(const CopySpec& c, const std::string& step_path, const ptx::Module& m) const {
    const std::string cp = key_path(step_path, "copy");
    const bool from_symbol = c.kind == CopySpec::Kind::FromSymbol;
    const std::string symbol_path = key_path(cp, from_symbol ? "from_symbol" : "to_symbol");
    const ptx::ModuleVariable* var = find_variable(m, c.symbol);
    if (!var) ck_.fail(symbol_path, "no .global or .const variable " + quote(c.symbol) + " in " + plan_.ptx_path);
    const BufferSpec& b = plan_.buffers[from_symbol ? c.to : c.from];
    const uint64_t in_buffer = b.count - (from_symbol ? c.to_offset : c.from_offset);
    const uint64_t in_variable = c.symbol_offset < var->size ? (var->size - c.symbol_offset) / b.elem_bytes : 0;
    const uint64_t n = c.count ? c.count : std::min(in_buffer, in_variable);
    if (n == 0 || n > in_variable)
      ck_.fail(cp, "copies " + std::to_string(std::max<uint64_t>(n, 1) * b.elem_bytes) + " bytes at symbol_offset " +
                       std::to_string(c.symbol_offset) + " but " + quote(c.symbol) + " has " +
                       std::to_string(var->size) + " bytes");
    return n;
  }

  void run_copy(const CopySpec& c, const std::string& step_path, ModuleHandle mod) {
    if (c.kind != CopySpec::Kind::Buffers) {
      const bool from_symbol = c.kind == CopySpec::Kind::FromSymbol;
      const size_t buffer = from_symbol ? c.to : c.from;
      const uint64_t w = plan_.buffers[buffer].elem_bytes;
      std::vector<uint8_t> data(symbol_copy_elements(c, step_path, device_.module(mod)) * w);
      const uint64_t at = address_[buffer] + (from_symbol ? c.to_offset : c.from_offset) * w;
      if (from_symbol) {
        device_.read_symbol(mod, c.symbol, data.data(), data.size(), c.symbol_offset);
        device_.copy_to_device(at, data.data(), data.size());
      } else {
        device_.copy_from_device(data.data(), at, data.size());
        device_.write_symbol(mod, c.symbol, data.data(), data.size(), c.symbol_offset);
      }
      return;
    }
    const uint64_t w = plan_.buffers[c.from].elem_bytes;
    std::vector<uint8_t> data(c.count * w);
    device_.copy_from_device(data.data(), address_[c.from] + c.from_offset * w, data.size());
    device_.copy_to_device(address_[c.to] + c.to_offset * w, data.data(), data.size());
  }

  // A launch; with expect_fault it must end in that fault (the run goes on).
  void run_launch(const LaunchSpec& l, ModuleHandle mod) {
    KernelArgs args;
    for (const ArgSpec& a : l.args) {
      if (a.kind == ArgSpec::Kind::Buffer) {
        args.ptr(address_[a.buffer] + a.offset * plan_.buffers[a.buffer].elem_bytes);
      } else if (a.kind == ArgSpec::Kind::Texture) {
        args.add<uint64_t>(handles_[a.buffer]);
      } else if (a.kind == ArgSpec::Kind::Bytes) {
        args.raw(a.bytes);
      } else {
        std::vector<uint8_t> bytes(info(a.type).bytes);
        store_bits(bytes.data(), unsigned(bytes.size()), a.bits);
        args.raw(std::move(bytes));
      }
    }
    const DeviceStats before = device_.stats();
    last_kernel_ = l.kernel;
    bool faulted = false;
    try {
      device_.set_preferred_shared_carveout(mod, l.kernel, l.preferred_shared_carveout);
      if (l.cooperative)
        device_.launch_cooperative(mod, l.kernel, l.grid, l.block, l.shared_bytes, args, l.regs_per_thread);
      else
        device_.launch(mod, l.kernel, l.grid, l.block, l.shared_bytes, args, l.regs_per_thread);
    } catch (const LaunchError& e) {
      ck_.fail(l.path, e.what());
    } catch (const exec::DeviceFault& f) {
      // A faulted launch counts as launched, as in the device's statistics,
      // whether or not anything expects the fault.
      record_launch(l.kernel, before, true);
      if (!l.expect_fault) throw;
      check_fault(*l.expect_fault, f);
      faulted = true;
    }
    if (!faulted) record_launch(l.kernel, before, false);
    if (l.expect_fault && !faulted) throw missing_fault(*l.expect_fault, "kernel " + quote(l.kernel) + " completed");
  }

  void record_launch(const std::string& kernel, const DeviceStats& before, bool faulted) {
    const DeviceStats& after = device_.stats();
    ++result_.kernel_launches;
    auto [it, fresh] = kernel_slot_.emplace(kernel, result_.kernels.size());
    if (fresh) result_.kernels.push_back(KernelRecord{kernel, 0, 0, 0, 0});
    KernelRecord& k = result_.kernels[it->second];
    ++k.launches;
    k.faulted += faulted ? 1 : 0;
    k.warp_insts += after.warp_insts - before.warp_insts;
    k.thread_insts += after.thread_insts - before.thread_insts;
  }

  void set_first(size_t buffer, uint64_t bits) {
    uint8_t raw[8];
    // (Elements are at most 8 bytes; the bound lets the compiler see it.)
    const unsigned w = std::min<unsigned>(info(plan_.buffers[buffer].type).bytes, sizeof raw);
    store_bits(raw, w, bits);
    device_.copy_to_device(address_[buffer], raw, w);
  }

  void record_iteration(const std::string& path) {
    auto [it, fresh] = repeat_slot_.emplace(path, result_.repeats.size());
    if (fresh) result_.repeats.push_back(RepeatRecord{path, 0});
    ++result_.repeats[it->second].iterations;
  }

  const Checker& ck_;
  const LaunchPlan& plan_;
  GpuDevice& device_;
  LaunchFileResult& result_;
  std::vector<uint64_t> address_;
  std::vector<uint64_t> handles_;  ///< per plan_.textures entry
  std::string output_dir_;
  std::map<std::string, size_t> kernel_slot_;
  std::map<std::string, size_t> repeat_slot_;
  std::string last_kernel_;  ///< of the launch running or last run
};

}  // namespace

LaunchFileResult run_launch_plan(const LaunchPlan& p, GpuDevice& device, const LaunchFileOptions& options) {
  Checker ck(p.display_name, p.base_dir);
  LaunchFileResult result;
  Runner runner(ck, p, device, result);
  runner.set_output_dir(options.output_dir);

  ModuleHandle mod = device.load_module_file(p.ptx_path);
  const ptx::Module& m = device.module(mod);
  runner.check_module(m);
  runner.check_symbols(m);

  runner.allocate();
  runner.create_textures();
  runner.write_symbols(mod);
  try {
    if (!p.expect_fault) {
      runner.run_group(p.root, mod);
    } else {
      // The file as a whole expects a fault: the run ends at it, then dumps
      // and expectations describe the memory the fault left behind.
      bool faulted = false;
      try {
        runner.run_group(p.root, mod);
      } catch (const exec::DeviceFault& f) {
        runner.check_fault(*p.expect_fault, f);
        faulted = true;
      }
      if (!faulted) throw runner.missing_fault(*p.expect_fault, "every launch completed");
    }
  } catch (const exec::DeviceFault&) {
    if (options.result_on_error) *options.result_on_error = result;
    throw;
  } catch (const LaunchFileRunError&) {
    if (options.result_on_error) *options.result_on_error = result;
    throw;
  }
  runner.dump();
  runner.verify();
  return result;
}

}  // namespace tlmgpu::platform::launch_file
