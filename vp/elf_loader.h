// Loads a statically linked little-endian RV64 ELF executable and returns its
// entry point. `write_memory(address, data, bytes)` stores one segment and
// returns false when the range is not memory. Bad files throw
// std::runtime_error naming the problem.
#ifndef TLMGPU_VP_ELF_LOADER_H
#define TLMGPU_VP_ELF_LOADER_H

#include <cstdint>
#include <string>

#include <functional>

namespace tlmgpu::vp {

struct LoadedElf {
  uint64_t entry = 0;
  uint64_t bytes_loaded = 0;
};

using MemoryWriter = std::function<bool(uint64_t address, const uint8_t* data, uint64_t bytes)>;
LoadedElf load_elf(const std::string& path, const MemoryWriter& write_memory);

} // namespace tlmgpu::vp

#endif
