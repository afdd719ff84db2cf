// PTX layout phase: offsets of variables and parameters.
#include "model/ptx/ptx_layout.h"

#include <algorithm>
#include <unordered_map>

namespace tlmgpu::ptx {

namespace {

class ModuleLayout : PhaseReporter {
 public:
  ModuleLayout(SyntaxTree& tree, Module& module, DiagnosticLog& log)
      : PhaseReporter(log), mod_(module), module_decls_(tree.module_decls), funcs_(tree.funcs) {}

  void layout() {
    // Module variables, in declaration order.
    uint32_t shared_end = 0;
    uint32_t extern_align = 0;
    std::vector<Decl*> extern_shared;
    for (auto& d : module_decls_) {
      ModuleVariable v;
      v.name = d.name;
      v.space = d.space;
      v.size = d.size();
      v.align = d.alignment();
      v.is_extern = d.is_extern && d.space == StateSpace::Shared && d.elems == 0;
      encode_init(d, v.init);
      if (d.space == StateSpace::Global) {
        d.offset = align_up(mod_.global_segment_bytes, v.align);
        mod_.global_segment_bytes = uint32_t(d.offset) + v.size;
        d.global_index = int32_t(mod_.globals.size());
        v.offset = d.offset;
        mod_.globals.push_back(std::move(v));
      } else if (d.space == StateSpace::Const) {
        d.offset = align_up(mod_.const_bank_bytes, v.align);
        mod_.const_bank_bytes = uint32_t(d.offset) + v.size;
        mod_.const_bank.resize(mod_.const_bank_bytes, 0);
        std::copy(v.init.begin(), v.init.end(), mod_.const_bank.begin() + long(d.offset));
        v.offset = d.offset;
        mod_.consts.push_back(std::move(v));
      } else if (d.space == StateSpace::Shared) {
        if (v.is_extern) {
          extern_align = std::max(extern_align, v.align);
          extern_shared.push_back(&d);
          mod_.shareds.push_back(std::move(v));
          shared_index_[&d] = mod_.shareds.size() - 1;
        } else {
          d.offset = align_up(shared_end, v.align);
          shared_end = uint32_t(d.offset) + v.size;
          v.offset = d.offset;
          mod_.shareds.push_back(std::move(v));
        }
      } else if (d.space == StateSpace::Local) {
        d.offset = alloc_local(d);
      }
    }
    // Function-level shared: device functions may be reached from any kernel,
    // so theirs is common; each kernel's own shared overlaps other kernels'.
    auto place_shared = [&](FuncDef& f, uint32_t& end) {
      for (auto& it : f.items) {
        if (it.kind != ItemKind::Decl) continue;
        Decl& d = f.decls[it.decl];
        if (d.space != StateSpace::Shared) continue;
        ModuleVariable v;
        v.name = d.name;
        v.space = StateSpace::Shared;
        v.size = d.size();
        v.align = d.alignment();
        v.is_extern = d.elems == 0;
        if (v.is_extern) {
          extern_align = std::max(extern_align, v.align);
          extern_shared.push_back(&d);
          mod_.shareds.push_back(std::move(v));
          shared_index_[&d] = mod_.shareds.size() - 1;
          continue;
        }
        d.offset = align_up(end, v.align);
        end = uint32_t(d.offset) + v.size;
        v.offset = d.offset;
        mod_.shareds.push_back(std::move(v));
      }
    };
    for (auto& f : funcs_)
      if (f.has_body && !f.is_entry) place_shared(f, shared_end);
    uint32_t static_end = shared_end;
    for (auto& f : funcs_) {
      if (!f.has_body || !f.is_entry) continue;
      uint32_t end = shared_end;
      place_shared(f, end);
      static_end = std::max(static_end, end);
    }
    if (extern_align) static_end = align_up(static_end, extern_align);
    mod_.static_shared_bytes = static_end;
    for (Decl* d : extern_shared) {
      d->offset = static_end;
      mod_.shareds[shared_index_[d]].offset = static_end;
    }

    // Parameters and .local data: kernel params in the launch buffer, all
    // other params and locals at static per-thread local offsets.
    for (auto& f : funcs_) {
      if (!f.has_body) continue;
      f.module_index = int32_t(mod_.functions.size());
      Function fn;
      fn.name = f.name;
      fn.is_entry = f.is_entry;
      fn.loc = f.loc;
      fn.maxntid = f.maxntid;
      fn.reqntid = f.reqntid;
      fn.minnctapersm = f.minnctapersm;
      fn.maxnreg = f.maxnreg;
      fn.pragmas = f.pragmas;
      fn.local_first = mod_.local_bytes_per_thread;
      for (uint32_t i : f.rets) {
        f.decls[i].offset = alloc_local(f.decls[i]);
        fn.ret_slots.push_back(ParamCopy{uint32_t(f.decls[i].offset), 0, f.decls[i].size()});
      }
      for (uint32_t i : f.params) {
        Decl& d = f.decls[i];
        if (f.is_entry) {
          d.offset = align_up(fn.param_bytes, d.alignment());
          fn.param_bytes = uint32_t(d.offset) + d.size();
          KernelParam kp;
          kp.name = d.name;
          kp.type = d.type;
          kp.size = d.size();
          kp.align = d.alignment();
          kp.offset = uint32_t(d.offset);
          fn.params.push_back(std::move(kp));
        } else {
          d.offset = alloc_local(d);
          fn.param_slots.push_back(ParamCopy{0, uint32_t(d.offset), d.size()});
        }
      }
      for (auto& it : f.items) {
        if (it.kind != ItemKind::Decl) continue;
        Decl& d = f.decls[it.decl];
        if (d.space == StateSpace::Local || d.space == StateSpace::Param) d.offset = alloc_local(d);
      }
      fn.local_end = mod_.local_bytes_per_thread;
      mod_.function_index[f.name] = uint32_t(mod_.functions.size());
      mod_.functions.push_back(std::move(fn));
    }
  }

  uint32_t alloc_local(const Decl& d) {
    uint32_t off = align_up(mod_.local_bytes_per_thread, d.alignment());
    mod_.local_bytes_per_thread = off + d.size();
    return off;
  }

  void encode_init(const Decl& d, std::vector<uint8_t>& out) {
    if (!d.has_init) return;
    const unsigned w = d.elem_bytes();
    out.assign(d.size(), 0);
    for (size_t i = 0; i < d.init.size() && (i + 1) * w <= out.size(); ++i) {
      uint64_t bits = 0;
      if (d.init[i].kind == Literal::SymbolAddress) continue;  // resolve_address_initializers
      if (!literal_bits(d.init[i], d.type, bits)) {
        error_at(d.loc.line, d.loc.column,
                 "initializer of '" + d.name + "' does not match its type " + type_name(d.type));
        return;
      }
      for (unsigned b = 0; b < w; ++b) out[i * w + b] = uint8_t(bits >> (8 * b));
    }
  }

 private:
  Module& mod_;
  std::vector<Decl>& module_decls_;
  std::vector<FuncDef>& funcs_;
  /// Extern .shared declarations -> their Module::shareds entry, given its
  /// offset once the static part's size is known.
  std::unordered_map<const Decl*, size_t> shared_index_;
};

}  // namespace

void lay_out_module(SyntaxTree& tree, Module& module, DiagnosticLog& log) {
  ModuleLayout(tree, module, log).layout();
}

}  // namespace tlmgpu::ptx
