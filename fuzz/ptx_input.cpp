#include "fuzz/fuzz_inputs.h"

#include <string>

#include "model/ptx/ptx_parser.h"

namespace tlmgpu::fuzz {

void ptx_input(const uint8_t* data, size_t size) {
  try {
    const ptx::Module m = ptx::parse_ptx(input_text(data, size), "fuzz.ptx");
    // A module that parsed is one the simulator can launch: every entry
    // point and branch target inside the decoded code.
    for (const ptx::Function& f : m.functions)
      require(f.entry_pc <= m.code.size(), "a function's entry lies past the decoded code");
  } catch (const ptx::PtxError& e) {
    require(!e.diagnostics().empty(), "PtxError without a diagnostic");
    for (const ptx::PtxDiagnostic& d : e.diagnostics())
      require(d.file == "fuzz.ptx" && !d.message.empty(), "a PTX diagnostic that names no file or says nothing");
  }
}

}  // namespace tlmgpu::fuzz
