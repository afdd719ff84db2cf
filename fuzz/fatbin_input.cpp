#include <cstring>
#include <memory>
#include <vector>

#include "fatbin/fatbin_reader.h"
#include "fatbin/program_inspector.h"
#include "fuzz/fuzz_inputs.h"

namespace tlmgpu::fuzz {

namespace {

void check_container(const fatbin::FatbinContainer& c, size_t available) {
  require(c.bytes >= 16 && c.bytes <= available, "a container's size lies outside the bytes read");
  for (const fatbin::PtxEntry& p : c.ptx)
    require(p.text.empty() || p.text.back() != '\0', "PTX text keeps its trailing NULs");
  const fatbin::PtxEntry* chosen = fatbin::choose_ptx(c);
  require((chosen == nullptr) == c.ptx.empty(), "choose_ptx chose nothing from PTX, or something from none");
}

}  // namespace

void fatbin_input(const uint8_t* data, size_t size) {
  // A heap copy of exactly the input, so AddressSanitizer sees a read one
  // byte past it (libFuzzer's own buffer may be larger in the regression
  // test's callers).
  std::unique_ptr<uint8_t[]> copy(new uint8_t[size ? size : 1]);
  if (size) std::memcpy(copy.get(), data, size);

  // The bytes as a .nv_fatbin section, and as one container.
  try {
    for (const fatbin::FatbinContainer& c : fatbin::read_containers(copy.get(), size)) check_container(c, size);
  } catch (const fatbin::FatbinError& e) {
    require(e.offset() <= size, "a FatbinError's offset lies past the section");
  }
  try {
    check_container(fatbin::read_container(copy.get(), size), size);
  } catch (const fatbin::FatbinError& e) {
    require(e.offset() <= size, "a FatbinError's offset lies past the container");
  }

  // The bytes as a program.
  try {
    const fatbin::ProgramInfo info = fatbin::inspect_program_bytes(copy.get(), size);
    require(info.is_elf || info.problem != "", "a file that is no ELF program without a problem");
    require(!info.has_ptx || !info.containers.empty(), "PTX found without a container");
    require(!info.cudart_static || info.problem != "", "a static cudart without a problem");
  } catch (const fatbin::FatbinError&) {
  }
}

}  // namespace tlmgpu::fuzz
