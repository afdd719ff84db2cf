// Keeps SystemC's copyright banner out of a program's output. libsystemc's
// main() prints it before it calls sc_main, so the variable is set from a
// static initialiser: include this header in the file that defines sc_main.
#pragma once

#include <cstdlib>

namespace tlmgpu::platform {

/// Set before main() runs; an explicit SYSTEMC_DISABLE_COPYRIGHT_MESSAGE is kept.
inline const bool systemc_banner_disabled = setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 0) == 0;

}  // namespace tlmgpu::platform
