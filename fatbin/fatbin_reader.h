// The CUDA fat binary: the containers nvcc embeds in a program's .nv_fatbin
// section (and, for -rdc=true, __nv_relfatbin), each holding PTX text and
// cubins (device ELF) for some architectures. The reader takes bytes from any
// program a user runs: every size is checked against the bytes given, and
// nothing outside them is read.
//
// Layout (little-endian):
//   container header, 16 bytes: u32 magic 0xBA55ED50, u16 version (1),
//     u16 header size, u64 size of the entries after the header.
//   entry header, >= 64 bytes: u16 kind (1 PTX, 2 ELF), u16 (0x0101),
//     u32 header size, u64 payload size (padded to 8), u32 compressed size
//     @16, u32 @20, u16 PTX ISA minor @24, u16 major @26, u32 arch @28
//     (75 for sm_75), u32 name offset @32, u32 name length @36, u64 flags @40
//     (0x2000: LZ4 block, CUDA 11/12 and `-compress-mode=speed`; 0x8000:
//     zstd frame, CUDA 13's default), u64 @48, u64 uncompressed size @56.
//   The payload follows the entry header; the next entry follows the payload.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

namespace tlmgpu::fatbin {

/// Malformed fat-binary or ELF bytes. what() says what is wrong and where:
/// "<problem> at byte offset N" (N counted from the start of the bytes given
/// to the reader, or of the file for inspect_program_*).
class FatbinError : public std::runtime_error {
 public:
  FatbinError(const std::string& problem, uint64_t offset);
  const std::string& problem() const { return problem_; }
  uint64_t offset() const { return offset_; }

 private:
  std::string problem_;
  uint64_t offset_;
};

constexpr uint32_t kContainerMagic = 0xBA55ED50;
/// __fatBinC_Wrapper_t::magic (section .nvFatBinSegment of the host object).
constexpr uint32_t kWrapperMagic = 0x466243b1;
constexpr uint16_t kEntryKindPtx = 1;
constexpr uint16_t kEntryKindElf = 2;
constexpr uint64_t kEntryFlagLz4 = 0x2000;
constexpr uint64_t kEntryFlagZstd = 0x8000;
/// A larger uncompressed entry is refused rather than allocated.
constexpr uint64_t kMaxUncompressedSize = uint64_t(256) << 20;

struct PtxEntry {
  uint32_t arch = 0;       ///< 75 for compute_75
  uint32_t ptx_major = 0;  ///< PTX ISA version (9.0 for CUDA 13)
  uint32_t ptx_minor = 0;
  std::string text;        ///< decompressed, trailing NULs stripped
};

struct CubinEntry {
  uint32_t arch = 0;
  /// Function name (mangled) -> registers ptxas allocated, for every
  /// function with a section .text.<name>: the kernels and the device
  /// functions not inlined.
  std::map<std::string, uint32_t> kernel_registers;
};

struct FatbinContainer {
  std::vector<PtxEntry> ptx;
  std::vector<CubinEntry> cubins;
  uint64_t bytes = 0;  ///< header + entries
};

/// One container at `data`; `available` bytes may be read (the container
/// may be shorter: its `bytes` says how long). Entries of other kinds are
/// skipped. Throws FatbinError.
FatbinContainer read_container(const uint8_t* data, size_t available);

/// A whole .nv_fatbin (or __nv_relfatbin) section: containers one after the
/// other, each starting 8-byte aligned; zero padding between and after
/// them is skipped. An empty section has no containers. Throws FatbinError.
std::vector<FatbinContainer> read_containers(const uint8_t* data, size_t size);

/// The PTX to run on a GPU of `target_arch`: the newest (highest arch, then
/// highest ISA version) whose arch <= target; else the oldest; nullptr when
/// the container holds no PTX.
const PtxEntry* choose_ptx(const FatbinContainer& container, uint32_t target_arch = 75);

/// The register counts of a cubin (ELF64 little-endian): bits 24-31 of
/// sh_info of each section .text.<name> (what cuobjdump reports as REG).
/// Throws FatbinError (offsets within the ELF image).
std::map<std::string, uint32_t> cubin_registers(const uint8_t* elf, size_t size);

}  // namespace tlmgpu::fatbin
