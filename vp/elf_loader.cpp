#include "vp/elf_loader.h"

#include <algorithm>
#include <cstring>
#include <fstream>
#include <iterator>
#include <sstream>
#include <stdexcept>
#include <vector>

namespace tlmgpu::vp {
namespace {

// The ELF64 layouts we read (from the System V ABI; elf.h is not portable).
struct Elf64Header {
  unsigned char ident[16];
  uint16_t type, machine;
  uint32_t version;
  uint64_t entry, phoff, shoff;
  uint32_t flags;
  uint16_t ehsize, phentsize, phnum, shentsize, shnum, shstrndx;
};
struct Elf64ProgramHeader {
  uint32_t type, flags;
  uint64_t offset, vaddr, paddr, filesz, memsz, align;
};
constexpr uint16_t kExecutable = 2;
constexpr uint16_t kMachineRiscv = 243;
constexpr uint32_t kLoad = 1;

[[noreturn]] void fail(const std::string& path, const std::string& why) {
  throw std::runtime_error("firmware '" + path + "': " + why);
}

} // namespace

LoadedElf load_elf(const std::string& path, const MemoryWriter& write_memory) {
  std::ifstream file(path, std::ios::binary);
  if (!file) {
    fail(path, "cannot be opened");
  }
  const std::vector<uint8_t> image((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  Elf64Header header;
  if (image.size() < sizeof header || std::memcmp(image.data(), "\x7f" "ELF", 4) != 0) {
    fail(path, "not an ELF file");
  }
  std::memcpy(&header, image.data(), sizeof header);
  if (header.ident[4] != 2 || header.ident[5] != 1) {
    fail(path, "not a 64-bit little-endian ELF file");
  }
  if (header.machine != kMachineRiscv || header.type != kExecutable) {
    fail(path, "not a RISC-V executable");
  }
  if (header.phentsize != sizeof(Elf64ProgramHeader) ||
      header.phoff + uint64_t{header.phnum} * sizeof(Elf64ProgramHeader) > image.size()) {
    fail(path, "program headers are truncated");
  }
  LoadedElf loaded;
  loaded.entry = header.entry;
  for (unsigned i = 0; i < header.phnum; ++i) {
    Elf64ProgramHeader ph;
    std::memcpy(&ph, image.data() + header.phoff + i * sizeof ph, sizeof ph);
    if (ph.type != kLoad || ph.memsz == 0) {
      continue;
    }
    if (ph.filesz > ph.memsz || ph.offset > image.size() || ph.filesz > image.size() - ph.offset) {
      fail(path, "a loadable segment is truncated");
    }
    // File bytes, then zeros up to the segment's memory size (.bss).
    std::vector<uint8_t> segment(ph.memsz, 0);
    std::memcpy(segment.data(), image.data() + ph.offset, ph.filesz);
    if (!write_memory(ph.paddr, segment.data(), segment.size())) {
      std::ostringstream msg;
      msg << "the segment at 0x" << std::hex << ph.paddr << " (0x" << ph.memsz
          << " bytes) does not fit in the platform's RAM";
      fail(path, msg.str());
    }
    loaded.bytes_loaded += ph.memsz;
  }
  if (loaded.bytes_loaded == 0) {
    fail(path, "has no loadable segments");
  }
  return loaded;
}

} // namespace tlmgpu::vp
