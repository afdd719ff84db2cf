// PTX text -> decoded Module.
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

#include "model/ptx/ptx_ir.h"

namespace tlmgpu::ptx {

/// One diagnostic at a place in a PTX file.
struct PtxDiagnostic {
  std::string file;
  uint32_t line = 0;
  uint32_t column = 0;
  std::string message;   ///< e.g. "unsupported PTX instruction 'tex.2d.v4.f32.f32'"
  std::string text;      ///< the offending source line
  /// "k.ptx:120:5: error: unsupported PTX instruction 'tex.2d.v4.f32.f32'\n    <text>"
  std::string format() const;
};

/// Thrown when a module has errors; carries every diagnostic found.
class PtxError : public std::runtime_error {
 public:
  explicit PtxError(std::vector<PtxDiagnostic> diagnostics);
  const std::vector<PtxDiagnostic>& diagnostics() const { return diagnostics_; }

 private:
  std::vector<PtxDiagnostic> diagnostics_;
};

/// Parses and decodes PTX source. Throws PtxError listing every problem found
/// (syntax, unknown registers or labels, unsupported instructions).
/// Branch reconvergence points (Instruction::reconverge_pc) are filled in.
Module parse_ptx(const std::string& source, const std::string& file_name);

/// Reads a file and parses it; a missing file is a PtxError too.
Module parse_ptx_file(const std::string& path);

}  // namespace tlmgpu::ptx
