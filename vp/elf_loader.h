// Loads a statically linked little-endian RV64 ELF executable into the SoC
// through a bus's debug transport (so it lands wherever the address map puts
// memory) and returns its entry point. Bad files throw std::runtime_error
// naming the problem.
#ifndef TLMGPU_VP_ELF_LOADER_H
#define TLMGPU_VP_ELF_LOADER_H

#include <cstdint>
#include <string>

#include "vp/bus.h"

namespace tlmgpu::vp {

struct LoadedElf {
  uint64_t entry = 0;
  uint64_t bytes_loaded = 0;
};

LoadedElf load_elf(const std::string& path, Bus& bus);

} // namespace tlmgpu::vp

#endif
