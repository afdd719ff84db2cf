// PTX link phase: address initializers and the call graph.
#include "model/ptx/ptx_link.h"

namespace tlmgpu::ptx {

void resolve_address_initializers(const SyntaxTree& tree, Module& module, DiagnosticLog& log) {
  for (const Decl& d : tree.module_decls) {
    for (size_t i = 0; i < d.init.size(); ++i) {
      const Literal& lit = d.init[i];
      if (lit.kind != Literal::SymbolAddress) continue;
      if (d.elem_bytes() != 8 || d.space != StateSpace::Global) {
        log.error_at(lit.loc.line, lit.loc.column,
                     "address of '" + lit.symbol + "' as initial value needs a 64-bit element of a .global variable");
        continue;
      }
      ModuleVariable& var = module.globals[size_t(d.global_index)];
      const uint32_t at = uint32_t(i * 8);
      if (auto f = tree.func_names.find(lit.symbol); f != tree.func_names.end()) {
        const FuncDef& fn = tree.funcs[f->second];
        if (fn.module_index < 0) {
          log.error_at(lit.loc.line, lit.loc.column, "address of function '" + lit.symbol + "' which has no body here");
          continue;
        }
        const uint64_t a = function_address(uint32_t(fn.module_index));
        if (var.init.size() < at + 8) var.init.resize(d.size(), 0);
        for (unsigned b = 0; b < 8; ++b) var.init[at + b] = uint8_t(a >> (8 * b));
        continue;
      }
      auto g = tree.module_names.find(lit.symbol);
      if (g == tree.module_names.end() || tree.module_decls[g->second].space != StateSpace::Global) {
        log.error_at(lit.loc.line, lit.loc.column,
                     "initial value '" + lit.symbol + "' is not a function or .global variable of this module");
        continue;
      }
      if (var.init.size() < at + 8) var.init.resize(d.size(), 0);
      var.address_inits.push_back({at, uint32_t(tree.module_decls[g->second].global_index)});
    }
  }
}

void CallGraph::add_call(int32_t caller, int32_t callee, SourceLoc where) {
  edges_.push_back({caller, callee, where});
}

void CallGraph::mark_recursive(Module& module) const {
  const size_t n = module.functions.size();
  std::vector<std::vector<uint32_t>> out(n);
  for (auto& c : edges_) out[size_t(c.from)].push_back(uint32_t(c.to));
  // f is recursive when f reaches itself.
  for (size_t f = 0; f < n; ++f) {
    std::vector<uint8_t> seen(n, 0);
    std::vector<uint32_t> work(out[f].begin(), out[f].end());
    while (!work.empty() && !module.functions[f].recursive) {
      const uint32_t g = work.back();
      work.pop_back();
      if (g == f) module.functions[f].recursive = true;
      if (seen[g]) continue;
      seen[g] = 1;
      work.insert(work.end(), out[g].begin(), out[g].end());
    }
  }
}

}  // namespace tlmgpu::ptx
