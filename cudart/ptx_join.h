// -rdc=true programs carry one PTX module per translation unit; the model
// loads one module per fat binary, so the texts are joined into one.
#pragma once

#include <string>
#include <vector>

namespace tlmgpu::cudart {

/// One PTX text from several: the first text's .version / .target /
/// .address_size header, then every text's body in order. `.extern`
/// declarations of functions and variables that another text defines are
/// dropped (the definition is in the joined text; PTX references resolve
/// once the whole module is read).
std::string join_ptx_modules(const std::vector<std::string>& texts);

}  // namespace tlmgpu::cudart
