// What each fuzz target does with one input, shared by the libFuzzer targets
// (fuzz/fuzz_*.cpp) and by tests/test_fuzz_regressions.cpp, which feeds the
// committed findings (tests/fuzz_regressions/TARGET/) through the same code.
// Each function returns when the input was handled cleanly (accepted, or
// rejected with the project's own error type); anything else (another
// exception, a broken property) escapes or aborts, which is a finding.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>

namespace tlmgpu::fuzz {

/// A property of the code under test that an input broke.
class FuzzPropertyError : public std::logic_error {
 public:
  using std::logic_error::logic_error;
};

/// The input as text.
inline std::string input_text(const uint8_t* data, size_t size) {
  return std::string(reinterpret_cast<const char*>(data), size);
}

/// Throws FuzzPropertyError naming `property` unless it holds.
inline void require(bool holds, const std::string& property) {
  if (!holds) throw FuzzPropertyError(property);
}

/// PTX text through parse_ptx, as `tlmgpu check-ptx` and module loading run
/// it: lexer, parser, decoder, control-flow analysis, register estimate.
/// Accepts a module or a PtxError whose diagnostics name the file, a line
/// and a column.
void ptx_input(const uint8_t* data, size_t size);

/// Launch-file text through LaunchFile::parse (the schema checks; nothing
/// runs). Relative paths inside resolve against tests/launch of the source
/// tree, so the seeds find their PTX and data files. Accepts a plan or a
/// LaunchFileError.
void launch_file_input(const uint8_t* data, size_t size);

/// Configuration text: INI text (load_config_text onto the gtx480 preset),
/// optionally followed by a line "%%" and `--set` assignments, one a line
/// (apply_config_assignment), then validate_config. A valid configuration
/// must survive dump_config -> load_config_text unchanged. Accepts a valid
/// configuration or a ConfigError.
void config_input(const uint8_t* data, size_t size);

/// A sequence of register reads and writes on the GPU peripheral's `mmio`
/// socket (b_transport) and of stores into SoC memory, with bounded runs of
/// the simulation in between. SystemC elaborates once per process, so one
/// SoC (memory, driver, LT-mode peripheral) is built at the first input and
/// brought back to the same state before each input: a soft reset through
/// the RESET register, every writable register written with its power-on
/// value, and SoC memory cleared. The input format is in fuzz_inputs.cpp.
class MmioFuzzer {
 public:
  MmioFuzzer();
  ~MmioFuzzer();
  void run(const uint8_t* data, size_t size);

 private:
  struct Soc;
  std::unique_ptr<Soc> soc_;
};

/// The process's one MmioFuzzer (built at the first call).
void mmio_input(const uint8_t* data, size_t size);

/// Bytes as a fat-binary section (read_containers), as one container
/// (read_container) and as a program (inspect_program_bytes). Accepts a
/// result or a FatbinError; a container's size lies inside the input, PTX
/// text has no trailing NUL, choose_ptx picks PTX exactly when there is
/// some, a refused program says why.
void fatbin_input(const uint8_t* data, size_t size);

}  // namespace tlmgpu::fuzz
