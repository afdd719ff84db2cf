// PTX link phase: what refers across functions and variables once all are
// placed. Address initializers (`.global .u64 vtable[] = {f, generic(g)}`)
// get function addresses written in and .global addresses recorded for the
// loader; the call graph from decoded call sites marks recursive functions.
// Internal to the PTX front end.
#pragma once

#include <vector>

#include "model/ptx/ptx_syntax.h"

namespace tlmgpu::ptx {

/// Writes function addresses into .global initializers and records where a
/// .global variable's address goes (ModuleVariable::address_inits; the loader
/// adds its device address). Needs the layout (offsets, module indices).
void resolve_address_initializers(const SyntaxTree& tree, Module& module, DiagnosticLog& log);

/// Direct calls between the module's functions, as the decoder finds them.
class CallGraph {
 public:
  /// A `call` in function `caller` of function `callee` (Module::functions indices).
  void add_call(int32_t caller, int32_t callee, SourceLoc where);
  size_t calls() const { return edges_.size(); }
  /// Marks the functions on a call-graph cycle (self-calls included): their
  /// calls save and restore the activation (Function::recursive).
  void mark_recursive(Module& module) const;

 private:
  struct CallEdge {
    int32_t from, to;
    SourceLoc loc;
  };
  std::vector<CallEdge> edges_;
};

}  // namespace tlmgpu::ptx
