// PTX layout phase: every state space gets its static placement. Module
// .global variables get offsets in the module's global segment, .const ones in
// its const bank, .shared ones (module and function level) in the CTA's shared
// memory with the dynamic part after the static, and parameters and .local data
// either the kernel's launch buffer or static per-thread local offsets. All
// declarations are known at this point, so forward references to functions and
// symbols need no patching. Internal to the PTX front end.
#pragma once

#include "model/ptx/ptx_syntax.h"

namespace tlmgpu::ptx {

/// Fills Decl::offset (and global_index) for every declaration in `tree`,
/// creates the Module's variables, banks and one Function per defined
/// function (FuncDef::module_index), in definition order. Initializers that
/// do not fit their type are reported to `log`.
void lay_out_module(SyntaxTree& tree, Module& module, DiagnosticLog& log);

}  // namespace tlmgpu::ptx
