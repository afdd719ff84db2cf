// What `tlmgpu exec PROGRAM` must know about a CUDA program before running
// it against the simulator's libcudart.so.13: whether it can reach that
// library at all (it cannot when NVIDIA's runtime is linked in, nvcc's
// default `-cudart static`) and whether it carries PTX (the simulator runs
// PTX, not SASS). Reads the program's ELF section table only: nothing runs.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "fatbin/fatbin_reader.h"

namespace tlmgpu::fatbin {

struct ProgramInfo {
  bool is_elf = false;               ///< ELF64 little-endian; nothing else is inspected
  std::vector<std::string> needed;   ///< DT_NEEDED, in order
  bool has_fatbin = false;           ///< a non-empty .nv_fatbin section
  /// CUDA code with NVIDIA's runtime linked in: a .nv_fatbin section and no
  /// libcudart.so* in DT_NEEDED, or cudart's own functions defined.
  bool cudart_static = false;
  bool has_ptx = false;              ///< some container of .nv_fatbin or __nv_relfatbin (-rdc=true) holds PTX
  /// Why the simulator cannot run the program, with the nvcc flags that
  /// fix it; empty when it can.
  std::string problem;
  /// The containers of .nv_fatbin, then those of __nv_relfatbin.
  std::vector<FatbinContainer> containers;
};

/// Inspects a program's bytes. Not ELF64 little-endian: is_elf false and a
/// problem. Throws FatbinError for a malformed ELF or fat binary (offsets in
/// the file).
ProgramInfo inspect_program_bytes(const uint8_t* data, size_t size);

/// Reads and inspects a file. Throws std::runtime_error naming the path for
/// an unreadable file, FatbinError naming it for malformed contents.
ProgramInfo inspect_program_file(const std::string& path);

}  // namespace tlmgpu::fatbin
