#include "fatbin/elf64.h"

#include <algorithm>
#include <cstring>

#include "fatbin/fatbin_reader.h"

namespace tlmgpu::fatbin::elf {

namespace {

constexpr size_t kHeaderSize = 64;
constexpr size_t kSectionHeaderSize = 64;
constexpr size_t kSymbolSize = 24;
constexpr size_t kDynamicSize = 16;
constexpr uint16_t kShnXindex = 0xffff;
// Names are scanned for their NUL at most this far: a crafted file with
// many names pointing at one long unterminated run must not make the scan
// quadratic in the file size. Mangled template names stay far below it.
constexpr size_t kMaxName = 64 * 1024;

/// offset + size <= limit, without overflow.
bool fits(uint64_t offset, uint64_t size, uint64_t limit) { return offset <= limit && size <= limit - offset; }

}  // namespace

bool is_elf64_le(const uint8_t* data, size_t size) {
  return size >= kHeaderSize && data[0] == 0x7f && data[1] == 'E' && data[2] == 'L' && data[3] == 'F' &&
         data[4] == 2 /* ELFCLASS64 */ && data[5] == 1 /* ELFDATA2LSB */;
}

void Image::fail(const std::string& problem, uint64_t offset) const { throw FatbinError(problem, base_ + offset); }

Image::Image(const uint8_t* data, size_t size, uint64_t base) : data_(data), base_(base) {
  if (!is_elf64_le(data, size)) fail("not an ELF64 little-endian image", 0);
  const uint64_t shoff = le64(data + 40);
  const uint16_t shentsize = le16(data + 58);
  uint64_t shnum = le16(data + 60);
  uint32_t shstrndx = le16(data + 62);
  if (shoff == 0) return;  // no section table
  if (shentsize < kSectionHeaderSize) fail("ELF section header size " + std::to_string(shentsize) + " below 64", 58);
  if (!fits(shoff, kSectionHeaderSize, size)) fail("ELF section table past the end of the image", 40);
  // Extended numbering: more sections than fit in e_shnum, or a name table
  // index >= SHN_LORESERVE, live in section 0's sh_size and sh_link.
  if (shnum == 0) shnum = le64(data + shoff + 32);
  if (shstrndx == kShnXindex) shstrndx = le32(data + shoff + 40);
  if (shnum > (size - shoff) / shentsize) fail("ELF section table past the end of the image", 40);

  sections_.resize(shnum);
  std::vector<uint32_t> name_offsets(shnum);
  for (uint64_t i = 0; i < shnum; ++i) {
    const uint64_t at = shoff + i * shentsize;
    const uint8_t* h = data + at;
    Section& s = sections_[i];
    name_offsets[i] = le32(h);
    s.type = le32(h + 4);
    s.offset = le64(h + 24);
    s.size = le64(h + 32);
    s.link = le32(h + 40);
    s.info = le32(h + 44);
    s.entsize = le64(h + 56);
    if (s.type == kShtNobits)
      s.offset = std::min<uint64_t>(s.offset, size);  // no bytes in the file: a place inside for bytes()
    else if (!fits(s.offset, s.size, size))
      fail("ELF section " + std::to_string(i) + " lies past the end of the image", at + 24);
  }
  if (shstrndx == 0) return;  // no names
  if (shstrndx >= shnum) fail("ELF section-name table index " + std::to_string(shstrndx) + " out of range", 62);
  for (uint64_t i = 0; i < shnum; ++i) sections_[i].name = string_at(shstrndx, name_offsets[i]);
}

const Section* Image::find(const std::string& name) const {
  for (const Section& s : sections_)
    if (s.name == name) return &s;
  return nullptr;
}

std::string Image::string_at(uint32_t index, uint64_t offset) const {
  if (index >= sections_.size()) fail("ELF string table index " + std::to_string(index) + " out of range", 0);
  const Section& t = sections_[index];
  const uint64_t n = file_size(t);
  if (offset >= n) fail("ELF string offset " + std::to_string(offset) + " past its table's end", t.offset);
  const char* p = reinterpret_cast<const char*>(data_ + t.offset + offset);
  const size_t scan = size_t(std::min<uint64_t>(n - offset, kMaxName));
  const void* nul = std::memchr(p, 0, scan);
  if (!nul) fail("ELF string without its terminating NUL", t.offset + offset);
  return std::string(p, static_cast<const char*>(nul));
}

std::vector<std::string> Image::needed() const {
  std::vector<std::string> out;
  for (const Section& s : sections_) {
    if (s.type != kShtDynamic) continue;
    for (uint64_t at = 0; at + kDynamicSize <= file_size(s); at += kDynamicSize) {
      const uint8_t* d = data_ + s.offset + at;
      const int64_t tag = int64_t(le64(d));
      if (tag == kDtNull) break;
      if (tag == kDtNeeded) out.push_back(string_at(s.link, le64(d + 8)));
    }
  }
  return out;
}

bool Image::defines_function(const Section& symtab, const std::vector<std::string>& names) const {
  if (symtab.link >= sections_.size()) fail("ELF symbol table's string table index out of range", symtab.offset);
  const Section& strings = sections_[symtab.link];
  const uint64_t strings_size = file_size(strings);
  for (uint64_t at = 0; at + kSymbolSize <= file_size(symtab); at += kSymbolSize) {
    const uint8_t* sym = data_ + symtab.offset + at;
    if ((sym[4] & 0xf) != kSttFunc || le16(sym + 6) == kShnUndef) continue;
    const uint64_t name = le32(sym);
    // Compared in place: building every name would cost a string per symbol.
    for (const std::string& wanted : names) {
      if (!fits(name, wanted.size() + 1, strings_size)) continue;
      const uint8_t* p = data_ + strings.offset + name;
      if (std::memcmp(p, wanted.data(), wanted.size()) == 0 && p[wanted.size()] == 0) return true;
    }
  }
  return false;
}

}  // namespace tlmgpu::fatbin::elf
