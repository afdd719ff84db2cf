// A bounds-checked view of an ELF64 little-endian image's section table,
// shared by the cubin reader and the program inspector. Only what they need:
// section names, types and contents, the dynamic table, symbol tables.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace tlmgpu::fatbin::elf {

constexpr uint32_t kShtProgbits = 1;
constexpr uint32_t kShtSymtab = 2;
constexpr uint32_t kShtStrtab = 3;
constexpr uint32_t kShtDynamic = 6;
constexpr uint32_t kShtNobits = 8;
constexpr uint32_t kShtDynsym = 11;
constexpr int64_t kDtNull = 0;
constexpr int64_t kDtNeeded = 1;
constexpr uint16_t kShnUndef = 0;
constexpr uint8_t kSttFunc = 2;

/// Little-endian loads from a place the caller has bounds-checked.
inline uint16_t le16(const uint8_t* p) { return uint16_t(p[0] | (p[1] << 8)); }
inline uint32_t le32(const uint8_t* p) { return uint32_t(le16(p)) | (uint32_t(le16(p + 2)) << 16); }
inline uint64_t le64(const uint8_t* p) { return uint64_t(le32(p)) | (uint64_t(le32(p + 4)) << 32); }

/// True when the bytes start with the identification of an ELF64
/// little-endian file.
bool is_elf64_le(const uint8_t* data, size_t size);

struct Section {
  std::string name;
  uint32_t type = 0;
  uint32_t link = 0;
  uint32_t info = 0;
  uint64_t offset = 0;  ///< in the file; checked: offset + size lies inside (unless NOBITS)
  uint64_t size = 0;
  uint64_t entsize = 0;
};

/// The section table of an ELF64 little-endian image. Throws FatbinError
/// with offsets relative to `data` plus `base` (where the image lies in the
/// bytes the caller was given).
class Image {
 public:
  Image(const uint8_t* data, size_t size, uint64_t base);

  const std::vector<Section>& sections() const { return sections_; }
  /// The first section named `name`, or nullptr.
  const Section* find(const std::string& name) const;
  /// The section's bytes (none for NOBITS).
  const uint8_t* bytes(const Section& s) const { return data_ + s.offset; }
  uint64_t file_size(const Section& s) const { return s.type == kShtNobits ? 0 : s.size; }

  /// The NUL-terminated string at `offset` of string-table section `index`.
  std::string string_at(uint32_t index, uint64_t offset) const;
  /// DT_NEEDED entries of every SHT_DYNAMIC section.
  std::vector<std::string> needed() const;
  /// True when SHT_SYMTAB or SHT_DYNSYM section `symtab` defines a
  /// function named one of `names`.
  bool defines_function(const Section& symtab, const std::vector<std::string>& names) const;

 private:
  [[noreturn]] void fail(const std::string& problem, uint64_t offset) const;

  const uint8_t* data_;
  uint64_t base_;
  std::vector<Section> sections_;
};

}  // namespace tlmgpu::fatbin::elf
