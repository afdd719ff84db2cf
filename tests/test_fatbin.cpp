// The fat-binary reader and the program inspector (fatbin/): containers
// built here byte by byte (PTX plain, zstd- and LZ4-compressed; cubins as
// minimal ELF images whose .text.<kernel> sections carry register counts),
// every kind of corruption, and, when nvcc is installed, programs nvcc built
// (CMakeLists.txt, tests/cuda/fatbin/).
#include <gtest/gtest.h>
#include <lz4.h>
#include <zstd.h>

#include <cstdint>
#include <algorithm>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "fatbin/fatbin_reader.h"
#include "fatbin/program_inspector.h"

using namespace tlmgpu::fatbin;
using Bytes = std::vector<uint8_t>;

namespace {

void put16(Bytes& b, size_t at, uint16_t v) {
  for (int i = 0; i < 2; ++i) b[at + i] = uint8_t(v >> (8 * i));
}
void put32(Bytes& b, size_t at, uint32_t v) {
  for (int i = 0; i < 4; ++i) b[at + i] = uint8_t(v >> (8 * i));
}
void put64(Bytes& b, size_t at, uint64_t v) {
  for (int i = 0; i < 8; ++i) b[at + i] = uint8_t(v >> (8 * i));
}
// An element at a time: GCC 12 under LTO warns (-Wstringop-overread) about
// the inlined memcpy of a range insert it cannot size.
void append(Bytes& b, const Bytes& more) {
  b.reserve(b.size() + more.size());
  for (uint8_t byte : more) b.push_back(byte);
}
void pad8(Bytes& b) { b.resize((b.size() + 7) / 8 * 8, 0); }
Bytes text_bytes(const std::string& s) { return Bytes(s.begin(), s.end()); }

enum class Compress { None, Zstd, Lz4 };

struct Entry {
  uint16_t kind = kEntryKindPtx;
  uint32_t arch = 75;
  uint16_t major = 9, minor = 0;
  Bytes content;  // uncompressed
  Compress compress = Compress::None;
  uint32_t header_size = 0;  // 0: 80 for PTX, 64 for ELF, as nvcc writes them
};

Bytes compressed(const Bytes& in, Compress how) {
  Bytes out;
  if (how == Compress::Zstd) {
    out.resize(ZSTD_compressBound(in.size()));
    const size_t n = ZSTD_compress(out.data(), out.size(), in.data(), in.size(), 19);
    EXPECT_FALSE(ZSTD_isError(n));
    out.resize(n);
  } else {
    out.resize(size_t(LZ4_compressBound(int(in.size()))));
    const int n = LZ4_compress_default(reinterpret_cast<const char*>(in.data()), reinterpret_cast<char*>(out.data()),
                                       int(in.size()), int(out.size()));
    EXPECT_GT(n, 0);
    out.resize(size_t(n));
  }
  return out;
}

/// An entry as nvcc's fatbinary writes it: header, payload padded to 8.
Bytes entry_bytes(const Entry& e) {
  const uint32_t hs = e.header_size ? e.header_size : (e.kind == kEntryKindPtx ? 80 : 64);
  Bytes payload = e.content;
  uint32_t csize = 0;
  uint64_t usize = 0;
  uint64_t flags = 0x11;
  if (e.compress != Compress::None) {
    payload = compressed(e.content, e.compress);
    csize = uint32_t(payload.size());
    usize = e.content.size();
    flags |= e.compress == Compress::Zstd ? kEntryFlagZstd : kEntryFlagLz4;
  }
  pad8(payload);
  Bytes h(hs, 0);
  put16(h, 0, e.kind);
  put16(h, 2, 0x0101);
  put32(h, 4, hs);
  put64(h, 8, payload.size());
  put32(h, 16, csize);
  put32(h, 20, e.kind == kEntryKindPtx ? 0x40 : 0);
  put16(h, 24, e.minor);
  put16(h, 26, e.major);
  put32(h, 28, e.arch);
  put64(h, 40, flags);
  put64(h, 56, usize);
  if (hs >= 68) put32(h, 64, 0x48);
  append(h, payload);
  return h;
}

Bytes container_bytes(const std::vector<Entry>& entries) {
  Bytes body;
  for (const Entry& e : entries) append(body, entry_bytes(e));
  Bytes c(16, 0);
  put32(c, 0, kContainerMagic);
  put16(c, 4, 1);
  put16(c, 6, 16);
  put64(c, 8, body.size());
  append(c, body);
  return c;
}

struct ElfSection {
  std::string name;
  uint32_t type = 1;  // PROGBITS
  Bytes data;
  uint32_t link = 0;  // index in the final table (0 = null section)
  uint32_t info = 0;
  uint64_t entsize = 0;
};

/// A minimal ELF64 little-endian image: header, section contents, the
/// section-name table, the section headers. Section i of `sections` has
/// index i + 1.
Bytes elf_bytes(const std::vector<ElfSection>& sections, uint16_t machine = 190 /* EM_CUDA */) {
  Bytes out(64, 0);
  const uint8_t ident[] = {0x7f, 'E', 'L', 'F', 2, 1, 1};
  std::memcpy(out.data(), ident, sizeof ident);
  put16(out, 16, 2);  // ET_EXEC
  put16(out, 18, machine);
  put32(out, 20, 1);
  put16(out, 52, 64);
  std::vector<std::pair<uint64_t, uint64_t>> placed;
  Bytes names(1, 0);
  std::vector<uint32_t> name_at;
  for (const ElfSection& s : sections) {
    pad8(out);
    placed.emplace_back(out.size(), s.data.size());
    append(out, s.data);
    name_at.push_back(uint32_t(names.size()));
    append(names, text_bytes(s.name));
    names.push_back(0);
  }
  const uint32_t shstrtab_name = uint32_t(names.size());
  append(names, text_bytes(".shstrtab"));
  names.push_back(0);
  const uint64_t names_at = out.size();
  append(out, names);
  pad8(out);
  const uint64_t shoff = out.size();
  const uint16_t shnum = uint16_t(sections.size() + 2);
  out.resize(out.size() + 64 * size_t(shnum), 0);
  for (size_t i = 0; i < sections.size(); ++i) {
    const size_t h = shoff + 64 * (i + 1);
    put32(out, h, name_at[i]);
    put32(out, h + 4, sections[i].type);
    put64(out, h + 24, placed[i].first);
    put64(out, h + 32, placed[i].second);
    put32(out, h + 40, sections[i].link);
    put32(out, h + 44, sections[i].info);
    put64(out, h + 56, sections[i].entsize);
  }
  const size_t h = shoff + 64 * (shnum - 1);
  put32(out, h, shstrtab_name);
  put32(out, h + 4, 3);
  put64(out, h + 24, names_at);
  put64(out, h + 32, names.size());
  put64(out, 40, shoff);
  put16(out, 58, 64);
  put16(out, 60, shnum);
  put16(out, 62, uint16_t(shnum - 1));
  return out;
}

/// A cubin whose kernels' .text sections carry their register counts
/// (sh_info bits 24-31; the low bits are the symbol index).
Bytes cubin_bytes(const std::vector<std::pair<std::string, uint32_t>>& kernels) {
  std::vector<ElfSection> sections;
  uint32_t symbol = 3;
  for (const auto& [name, regs] : kernels) {
    ElfSection s;
    s.name = ".text." + name;
    s.data = Bytes(32, 0xaa);
    s.info = (regs << 24) | symbol++;
    sections.push_back(s);
    ElfSection info;
    info.name = ".nv.info." + name;
    info.data = Bytes(8, 0);
    sections.push_back(info);
  }
  return elf_bytes(sections);
}

const std::string kPtx =
    "//\n// Generated by hand\n//\n.version 9.0\n.target sm_75\n.address_size 64\n\n"
    ".visible .entry _Z5scalefPKfPfi(\n  .param .f32 a\n)\n{\n  ret;\n}\n";

/// A container with every kind of entry: PTX plain, zstd and LZ4, a plain
/// and a zstd cubin.
Bytes rich_container() {
  Entry p1{kEntryKindPtx, 75, 9, 0, text_bytes(kPtx), Compress::Zstd, 0};
  Entry p2{kEntryKindPtx, 52, 8, 5, text_bytes(kPtx + "// lz4\n"), Compress::Lz4, 0};
  Entry p3{kEntryKindPtx, 80, 9, 0, text_bytes(kPtx + "// plain\n"), Compress::None, 0};
  Entry e1{kEntryKindElf, 75, 1, 8, cubin_bytes({{"_Z5scalefPKfPfi", 10}, {"_Z4polyPKdPdi", 38}}), Compress::None, 0};
  Entry e2{kEntryKindElf, 86, 1, 8, cubin_bytes({{"k", 255}}), Compress::Zstd, 0};
  return container_bytes({p1, p2, p3, e1, e2});
}

/// Reads `n` bytes from a heap copy of exactly that size, so a sanitizer
/// sees any read past them.
FatbinContainer read_exact(const Bytes& b, size_t n) {
  std::unique_ptr<uint8_t[]> copy(new uint8_t[n ? n : 1]);
  if (n) std::memcpy(copy.get(), b.data(), n);
  return read_container(copy.get(), n);
}

template <typename F>
std::string error_of(F f) {
  try {
    f();
  } catch (const FatbinError& e) {
    return e.what();
  }
  return "no FatbinError";
}

}  // namespace

TEST(FatbinReader, ReadsPtxPlainZstdAndLz4) {
  const Bytes c = rich_container();
  const FatbinContainer r = read_container(c.data(), c.size());
  EXPECT_EQ(r.bytes, c.size());
  ASSERT_EQ(r.ptx.size(), 3u);
  EXPECT_EQ(r.ptx[0].text, kPtx);
  EXPECT_EQ(r.ptx[0].arch, 75u);
  EXPECT_EQ(r.ptx[0].ptx_major, 9u);
  EXPECT_EQ(r.ptx[0].ptx_minor, 0u);
  EXPECT_EQ(r.ptx[1].text, kPtx + "// lz4\n");
  EXPECT_EQ(r.ptx[1].arch, 52u);
  EXPECT_EQ(r.ptx[1].ptx_major, 8u);
  EXPECT_EQ(r.ptx[1].ptx_minor, 5u);
  // The uncompressed payload was NUL-padded to 8 bytes; the text is not.
  EXPECT_EQ(r.ptx[2].text, kPtx + "// plain\n");
}

TEST(FatbinReader, ReadsCubinRegisterCountsPlainAndCompressed) {
  const Bytes c = rich_container();
  const FatbinContainer r = read_container(c.data(), c.size());
  ASSERT_EQ(r.cubins.size(), 2u);
  EXPECT_EQ(r.cubins[0].arch, 75u);
  const std::map<std::string, uint32_t> want = {{"_Z5scalefPKfPfi", 10}, {"_Z4polyPKdPdi", 38}};
  EXPECT_EQ(r.cubins[0].kernel_registers, want);
  EXPECT_EQ(r.cubins[1].arch, 86u);
  EXPECT_EQ(r.cubins[1].kernel_registers, (std::map<std::string, uint32_t>{{"k", 255}}));
}

TEST(FatbinReader, ContainerMayBeFollowedByMoreBytes) {
  Bytes c = rich_container();
  const size_t n = c.size();
  c.resize(n + 100, 0x5a);
  EXPECT_EQ(read_container(c.data(), c.size()).bytes, n);
}

TEST(FatbinReader, SkipsEntriesOfOtherKinds) {
  Entry other{4 /* e.g. LTO IR */, 75, 9, 0, Bytes(40, 0x77), Compress::None, 64};
  Entry ptx{kEntryKindPtx, 75, 9, 0, text_bytes(kPtx), Compress::None, 0};
  const Bytes c = container_bytes({other, ptx});
  const FatbinContainer r = read_container(c.data(), c.size());
  ASSERT_EQ(r.ptx.size(), 1u);
  EXPECT_EQ(r.ptx[0].text, kPtx);
  EXPECT_TRUE(r.cubins.empty());
}

TEST(FatbinReader, SectionOfSeveralContainersWithPadding) {
  // A container whose length is not a multiple of 8 (an entry of another
  // kind with 5 bytes of payload): the next one starts 8-byte aligned.
  Bytes odd = container_bytes({Entry{4, 75, 9, 0, Bytes(5, 0x33), Compress::None, 64}});
  odd.resize(16 + 64 + 5);
  put64(odd, 16 + 8, 5);
  put64(odd, 8, 64 + 5);
  Bytes section = odd;
  pad8(section);
  append(section, container_bytes({Entry{kEntryKindPtx, 75, 9, 0, text_bytes("A"), Compress::None, 0}}));
  section.resize(section.size() + 8, 0);  // a zero word between containers
  append(section, container_bytes({Entry{kEntryKindElf, 75, 1, 8, cubin_bytes({{"k", 7}}), Compress::None, 0}}));
  section.resize(section.size() + 4, 0);  // padding at the end, shorter than a word
  const std::vector<FatbinContainer> r = read_containers(section.data(), section.size());
  ASSERT_EQ(r.size(), 3u);
  EXPECT_EQ(r[0].bytes, 16u + 64 + 5);
  EXPECT_TRUE(r[0].ptx.empty());
  ASSERT_EQ(r[1].ptx.size(), 1u);
  EXPECT_EQ(r[1].ptx[0].text, "A");
  ASSERT_EQ(r[2].cubins.size(), 1u);
  EXPECT_EQ(r[2].cubins[0].kernel_registers.at("k"), 7u);
  EXPECT_TRUE(read_containers(nullptr, 0).empty());
  const Bytes zeros(24, 0);
  EXPECT_TRUE(read_containers(zeros.data(), zeros.size()).empty());
}

TEST(FatbinReader, ChoosesTheNewestPtxNotAboveTheTarget) {
  FatbinContainer c;
  EXPECT_EQ(choose_ptx(c), nullptr);
  c.ptx = {PtxEntry{52, 8, 0, "a"}, PtxEntry{75, 8, 5, "b"}, PtxEntry{75, 9, 0, "c"}, PtxEntry{86, 9, 0, "d"},
           PtxEntry{61, 9, 0, "e"}};
  EXPECT_EQ(choose_ptx(c)->text, "c");
  EXPECT_EQ(choose_ptx(c, 70)->text, "e");
  EXPECT_EQ(choose_ptx(c, 90)->text, "d");
  // Every PTX newer than the target: the oldest.
  EXPECT_EQ(choose_ptx(c, 50)->text, "a");
}

TEST(FatbinCorruption, TruncationAtEveryByteIsAnError) {
  const Bytes c = rich_container();
  for (size_t n = 0; n < c.size(); ++n) {
    SCOPED_TRACE(n);
    EXPECT_THROW(read_exact(c, n), FatbinError);
  }
  EXPECT_EQ(read_exact(c, c.size()).ptx.size(), 3u);
}

TEST(FatbinCorruption, TruncatedSectionIsAnError) {
  Bytes section = rich_container();
  pad8(section);
  append(section, rich_container());
  const size_t first = rich_container().size();
  for (size_t n = first + 8; n < section.size(); n += 7) {
    SCOPED_TRACE(n);
    std::unique_ptr<uint8_t[]> copy(new uint8_t[n]);
    std::memcpy(copy.get(), section.data(), n);
    EXPECT_THROW(read_containers(copy.get(), n), FatbinError);
  }
}

TEST(FatbinCorruption, HeaderFieldsOutOfRangeAreErrorsNamingTheOffset) {
  const Bytes good = container_bytes({Entry{kEntryKindPtx, 75, 9, 0, text_bytes(kPtx), Compress::Zstd, 0}});
  auto with = [&](auto change) {
    Bytes b = good;
    change(b);
    return error_of([&] { read_container(b.data(), b.size()); });
  };
  EXPECT_EQ(with([](Bytes& b) { put32(b, 0, 0xBA55ED51); }),
            "bad fatbin container magic 0xba55ed51 (expected 0xba55ed50) at byte offset 0");
  EXPECT_EQ(with([](Bytes& b) { put16(b, 4, 2); }), "unsupported fatbin container version 2 at byte offset 4");
  EXPECT_EQ(with([](Bytes& b) { put16(b, 6, 8); }), "fatbin container header size 8 below 16 at byte offset 6");
  EXPECT_NE(with([](Bytes& b) { put64(b, 8, ~uint64_t(0)); }).find("runs past the end"), std::string::npos);
  EXPECT_NE(with([](Bytes& b) { put64(b, 8, ~uint64_t(0) - 8); }).find("runs past the end"), std::string::npos);
  EXPECT_NE(with([](Bytes& b) { put16(b, 6, 0xffff); }).find("runs past the end"), std::string::npos);
  EXPECT_EQ(with([](Bytes& b) { put32(b, 16 + 4, 32); }), "fatbin entry header size 32 below 64 at byte offset 20");
  EXPECT_NE(with([](Bytes& b) { put32(b, 16 + 4, 0xffffffff); }).find("runs past its container's end"),
            std::string::npos);
  EXPECT_NE(with([](Bytes& b) { put64(b, 16 + 8, ~uint64_t(0)); }).find("at byte offset 24"), std::string::npos);
  EXPECT_NE(with([](Bytes& b) { put64(b, 16 + 8, ~uint64_t(0) - 70); }).find("runs past"), std::string::npos);
  // Entries' size ends inside an entry header.
  EXPECT_NE(with([](Bytes& b) { put64(b, 8, 40); }).find("entry header cut short"), std::string::npos);
}

TEST(FatbinCorruption, CompressionFieldsAreChecked) {
  const Bytes good = container_bytes({Entry{kEntryKindPtx, 75, 9, 0, text_bytes(kPtx), Compress::Zstd, 0}});
  const Bytes good_lz4 = container_bytes({Entry{kEntryKindPtx, 75, 9, 0, text_bytes(kPtx), Compress::Lz4, 0}});
  auto with = [&](const Bytes& base, auto change) {
    Bytes b = base;
    change(b);
    return error_of([&] { read_container(b.data(), b.size()); });
  };
  const size_t e = 16;
  EXPECT_NE(with(good, [&](Bytes& b) { put64(b, e + 40, 0x11 | kEntryFlagLz4 | kEntryFlagZstd); }).find("both"),
            std::string::npos);
  EXPECT_NE(with(good, [&](Bytes& b) { put32(b, e + 16, 0); }).find("compressed size 0 outside"), std::string::npos);
  EXPECT_NE(with(good, [&](Bytes& b) { put32(b, e + 16, 0xffffffff); }).find("compressed size"), std::string::npos);
  EXPECT_NE(with(good, [&](Bytes& b) { put64(b, e + 56, 0); }).find("uncompressed size 0"), std::string::npos);
  EXPECT_NE(with(good, [&](Bytes& b) { put64(b, e + 56, kMaxUncompressedSize + 1); }).find("uncompressed size"),
            std::string::npos);
  // The frame states its size, and the header another.
  EXPECT_NE(with(good, [&](Bytes& b) { put64(b, e + 56, kPtx.size() + 1); }).find("the header says"),
            std::string::npos);
  EXPECT_NE(with(good, [&](Bytes& b) { put64(b, e + 56, kPtx.size() - 1); }).find("the header says"),
            std::string::npos);
  EXPECT_NE(with(good, [&](Bytes& b) { put32(b, e + 80, 0x12345678); }).find("not a zstd frame"), std::string::npos);
  // Cut short: the compressed size says less than the frame has.
  EXPECT_NE(with(good, [&](Bytes& b) { put32(b, e + 16, 20); }).find("zstd data"), std::string::npos);
  EXPECT_NE(with(good_lz4, [&](Bytes& b) { put64(b, e + 56, kPtx.size() + 8); }).find("LZ4 data"),
            std::string::npos);
  EXPECT_NE(with(good_lz4, [&](Bytes& b) { put64(b, e + 56, kPtx.size() - 8); }).find("LZ4 data"),
            std::string::npos);
  EXPECT_NE(with(good_lz4, [&](Bytes& b) { put32(b, e + 16, 10); }).find("LZ4 data"), std::string::npos);
  // More than an LZ4 block can expand to (255 bytes a byte): refused before
  // anything is allocated (fuzz_fatbin's first finding: 256 MB claimed by
  // a few hundred bytes took over a second under AddressSanitizer).
  EXPECT_NE(with(good_lz4, [&](Bytes& b) { put64(b, e + 56, kMaxUncompressedSize); }).find("cannot hold"),
            std::string::npos);
  // A zstd frame stating 256 MB over a few bytes: over 1024 times as large.
  {
    Bytes frame = {0x28, 0xb5, 0x2f, 0xfd, 0xe0};  // single segment, 8-byte content size
    for (int i = 0; i < 8; ++i) frame.push_back(uint8_t(kMaxUncompressedSize >> (8 * i)));
    const uint32_t block = (100u << 3) | (1u << 1) | 1u;  // last block, RLE, 100 bytes
    frame.insert(frame.end(), {uint8_t(block), uint8_t(block >> 8), uint8_t(block >> 16), 'A'});
    Bytes b = good;
    b.resize(e + 80);
    const uint32_t csize = uint32_t(frame.size());
    append(b, frame);
    pad8(b);
    put64(b, 8, b.size() - 16);
    put64(b, e + 8, b.size() - e - 80);
    put32(b, e + 16, csize);
    put64(b, e + 56, kMaxUncompressedSize);
    EXPECT_NE(error_of([&] { read_container(b.data(), b.size()); }).find("over 1024 times as large"),
              std::string::npos);
    // Within the ratio, the stated size and the header's must agree.
    put64(b, e + 56, 100);
    EXPECT_NE(error_of([&] { read_container(b.data(), b.size()); }).find("the header says 100"), std::string::npos);
  }
  // A frame whose window (56 MB) is larger than its output (fuzz_fatbin's
  // second finding: the decoder allocated the window before any data).
  {
    const Bytes frame = {0x28, 0xb5, 0x2f, 0xfd, 0x00, 0x7e, 0x01, 0x00, 0x00};  // + a last raw block of 0 bytes
    Bytes b = good;
    b.resize(e + 80);
    append(b, frame);
    pad8(b);
    put64(b, 8, b.size() - 16);
    put64(b, e + 8, b.size() - e - 80);
    put32(b, e + 16, uint32_t(frame.size()));
    put64(b, e + 56, 4096);
    EXPECT_NE(error_of([&] { read_container(b.data(), b.size()); }).find("zstd data of the entry is corrupt"),
              std::string::npos);
  }
  // Garbage in the whole LZ4 block.
  EXPECT_NE(with(good_lz4,
                 [&](Bytes& b) {
                   for (size_t i = e + 80; i < b.size(); ++i) b[i] = uint8_t(0xf0 ^ i);
                 })
                .find("LZ4 data"),
            std::string::npos);
}

TEST(FatbinCorruption, CorruptCubinIsAnErrorNamingItsEntry) {
  Bytes elf = cubin_bytes({{"k", 12}});
  put64(elf, 40, elf.size());  // the section table past the end
  const Bytes c = container_bytes({Entry{kEntryKindElf, 75, 1, 8, elf, Compress::None, 0}});
  EXPECT_EQ(error_of([&] { read_container(c.data(), c.size()); }),
            "cubin of the entry: ELF section table past the end of the image (ELF offset 40) at byte offset 16");
  Bytes not_elf = elf;
  not_elf[1] = 'X';
  const Bytes c2 = container_bytes({Entry{kEntryKindElf, 75, 1, 8, not_elf, Compress::Zstd, 0}});
  EXPECT_NE(error_of([&] { read_container(c2.data(), c2.size()); }).find("not an ELF64"), std::string::npos);
  // A section name that runs off its table without a NUL.
  Bytes bad_name = cubin_bytes({{"k", 12}});
  const uint64_t shoff = bad_name[40] | (uint64_t(bad_name[41]) << 8);
  put32(bad_name, shoff + 64, 0xfffffff);
  EXPECT_NE(error_of([&] { cubin_registers(bad_name.data(), bad_name.size()); }).find("past its table's end"),
            std::string::npos);
}

TEST(FatbinCorruption, EveryByteChangedIsAResultOrAnError) {
  const Bytes good = rich_container();
  for (size_t i = 0; i < good.size(); ++i) {
    for (uint8_t x : {uint8_t(0xff), uint8_t(0x01), uint8_t(0x80)}) {
      Bytes b = good;
      b[i] ^= x;
      try {
        read_containers(b.data(), b.size());
      } catch (const FatbinError&) {
      }
    }
  }
}

namespace {

struct ProgramSpec {
  std::vector<std::string> needed;
  Bytes fatbin;                           // .nv_fatbin, when not empty
  Bytes relfatbin;                        // __nv_relfatbin, when not empty
  std::vector<std::string> defined;       // functions .symtab defines
  std::vector<std::string> undefined;     // and those it imports
};

Bytes program_bytes(const ProgramSpec& p) {
  std::vector<ElfSection> s;
  // [1] .dynstr, [2] .dynamic, [3] .strtab, [4] .symtab, then the fat binaries.
  ElfSection dynstr{".dynstr", 3, Bytes(1, 0), 0, 0, 0};
  ElfSection dynamic{".dynamic", 6, {}, 1, 0, 16};
  for (const std::string& lib : p.needed) {
    Bytes d(16, 0);
    put64(d, 0, 1);  // DT_NEEDED
    put64(d, 8, dynstr.data.size());
    append(dynamic.data, d);
    append(dynstr.data, text_bytes(lib));
    dynstr.data.push_back(0);
  }
  append(dynamic.data, Bytes(16, 0));  // DT_NULL
  ElfSection strtab{".strtab", 3, Bytes(1, 0), 0, 0, 0};
  ElfSection symtab{".symtab", 2, Bytes(24, 0), 3, 1, 24};
  auto add_symbol = [&](const std::string& name, uint16_t shndx) {
    Bytes sym(24, 0);
    put32(sym, 0, uint32_t(strtab.data.size()));
    sym[4] = 0x12;  // STB_GLOBAL, STT_FUNC
    put16(sym, 6, shndx);
    append(symtab.data, sym);
    append(strtab.data, text_bytes(name));
    strtab.data.push_back(0);
  };
  add_symbol("main", 5);
  for (const std::string& f : p.defined) add_symbol(f, 5);
  for (const std::string& f : p.undefined) add_symbol(f, 0);
  s = {dynstr, dynamic, strtab, symtab};
  s.push_back(ElfSection{".text", 1, Bytes(16, 0xc3), 0, 0, 0});
  if (!p.fatbin.empty()) s.push_back(ElfSection{".nv_fatbin", 1, p.fatbin, 0, 0, 0});
  if (!p.relfatbin.empty()) s.push_back(ElfSection{"__nv_relfatbin", 1, p.relfatbin, 0, 0, 0});
  return elf_bytes(s, 62 /* EM_X86_64 */);
}

Bytes ptx_fatbin() {
  Bytes f = container_bytes({Entry{kEntryKindElf, 75, 1, 8, cubin_bytes({{"k", 16}}), Compress::None, 0}});
  append(f, container_bytes({Entry{kEntryKindPtx, 75, 9, 0, text_bytes(kPtx), Compress::Zstd, 0},
                             Entry{kEntryKindElf, 75, 1, 8, cubin_bytes({{"_Z5scalefPKfPfi", 10}}),
                                   Compress::None, 0}}));
  return f;
}

Bytes sass_fatbin() {
  return container_bytes({Entry{kEntryKindElf, 75, 1, 8, cubin_bytes({{"_Z5scalefPKfPfi", 10}}), Compress::None, 0}});
}

}  // namespace

TEST(FatbinProgram, SharedCudartWithPtxIsRunnable) {
  const Bytes p = program_bytes({{"libcudart.so.13", "libc.so.6"}, ptx_fatbin(), {}, {}, {"cudaMalloc"}});
  const ProgramInfo info = inspect_program_bytes(p.data(), p.size());
  EXPECT_TRUE(info.is_elf);
  EXPECT_EQ(info.needed, (std::vector<std::string>{"libcudart.so.13", "libc.so.6"}));
  EXPECT_TRUE(info.has_fatbin);
  EXPECT_FALSE(info.cudart_static);
  EXPECT_TRUE(info.has_ptx);
  EXPECT_EQ(info.problem, "");
  ASSERT_EQ(info.containers.size(), 2u);
  EXPECT_EQ(choose_ptx(info.containers[1])->text, kPtx);
}

TEST(FatbinProgram, StaticCudartIsDetected) {
  // No libcudart.so in DT_NEEDED.
  const Bytes p = program_bytes({{"libstdc++.so.6", "libc.so.6"}, ptx_fatbin(), {}, {}, {}});
  const ProgramInfo info = inspect_program_bytes(p.data(), p.size());
  EXPECT_TRUE(info.cudart_static);
  EXPECT_TRUE(info.has_ptx);
  EXPECT_NE(info.problem.find("-cudart shared"), std::string::npos);
  // NVIDIA's runtime defined inside, even beside a libcudart.so.
  const Bytes q =
      program_bytes({{"libcudart.so.13"}, ptx_fatbin(), {}, {"__cudaRegisterFatBinary", "cudaLaunchKernel"}, {}});
  EXPECT_TRUE(inspect_program_bytes(q.data(), q.size()).cudart_static);
}

TEST(FatbinProgram, ProgramWithoutPtxIsDetected) {
  const Bytes p = program_bytes({{"libcudart.so.13"}, sass_fatbin(), {}, {}, {}});
  const ProgramInfo info = inspect_program_bytes(p.data(), p.size());
  EXPECT_TRUE(info.has_fatbin);
  EXPECT_FALSE(info.cudart_static);
  EXPECT_FALSE(info.has_ptx);
  EXPECT_NE(info.problem.find("-arch=sm_75"), std::string::npos);
  EXPECT_NE(info.problem.find("code=compute_75"), std::string::npos);
  // -rdc=true: the translation units' PTX is in __nv_relfatbin.
  const Bytes rdc = program_bytes({{"libcudart.so.13"}, sass_fatbin(), ptx_fatbin(), {}, {}});
  const ProgramInfo r = inspect_program_bytes(rdc.data(), rdc.size());
  EXPECT_TRUE(r.has_ptx);
  EXPECT_EQ(r.problem, "");
}

TEST(FatbinProgram, ProgramWithoutDeviceCodeAndNonElf) {
  const Bytes p = program_bytes({{"libc.so.6"}, {}, {}, {}, {}});
  const ProgramInfo info = inspect_program_bytes(p.data(), p.size());
  EXPECT_TRUE(info.is_elf);
  EXPECT_FALSE(info.has_fatbin);
  EXPECT_FALSE(info.cudart_static);
  EXPECT_FALSE(info.has_ptx);
  EXPECT_EQ(info.problem, "");
  const Bytes script = text_bytes("#!/bin/sh\necho hello\n");
  const ProgramInfo s = inspect_program_bytes(script.data(), script.size());
  EXPECT_FALSE(s.is_elf);
  EXPECT_NE(s.problem, "");
  Bytes elf32 = p;
  elf32[4] = 1;  // ELFCLASS32
  EXPECT_FALSE(inspect_program_bytes(elf32.data(), elf32.size()).is_elf);
  EXPECT_FALSE(inspect_program_bytes(nullptr, 0).is_elf);
}

TEST(FatbinProgram, CorruptFatbinSectionNamesTheSectionAndFileOffset) {
  Bytes fatbin = ptx_fatbin();
  put32(fatbin, 0, 0x12345678);
  const Bytes p = program_bytes({{"libcudart.so.13"}, fatbin, {}, {}, {}});
  const std::string e = error_of([&] { inspect_program_bytes(p.data(), p.size()); });
  EXPECT_EQ(e.find(".nv_fatbin: bad fatbin container magic 0x12345678"), 0u) << e;
}

TEST(FatbinProgram, TruncatedOrChangedProgramIsAResultOrAnError) {
  const Bytes good = program_bytes({{"libcudart.so.13"}, ptx_fatbin(), sass_fatbin(), {"cudaMalloc"}, {}});
  for (size_t n = 0; n < good.size(); ++n) {
    std::unique_ptr<uint8_t[]> copy(new uint8_t[n ? n : 1]);
    if (n) std::memcpy(copy.get(), good.data(), n);
    try {
      inspect_program_bytes(copy.get(), n);
    } catch (const FatbinError&) {
    }
  }
  for (size_t i = 0; i < good.size(); ++i) {
    Bytes b = good;
    b[i] ^= 0xff;
    try {
      inspect_program_bytes(b.data(), b.size());
    } catch (const FatbinError&) {
    }
  }
}

TEST(FatbinProgram, UnreadableFileNamesThePath) {
  const std::string missing = "/nonexistent/dir/program";
  try {
    inspect_program_file(missing);
    FAIL() << "no error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find(missing), std::string::npos) << e.what();
  }
  EXPECT_THROW(inspect_program_file("/tmp"), std::runtime_error);
}

// Programs nvcc built from tests/cuda/fatbin/vector_scale.cu (CMakeLists.txt).
namespace {

#ifdef TLMGPU_FATBIN_CUDA_DIR
std::string nvcc_program(const std::string& variant) {
  return std::string(TLMGPU_FATBIN_CUDA_DIR) + "/vector_scale_" + variant;
}
#define SKIP_WITHOUT_NVCC()
#else
std::string nvcc_program(const std::string&) { return ""; }
#define SKIP_WITHOUT_NVCC() GTEST_SKIP() << "nvcc was not found when CMake configured the build"
#endif

const char kScale[] = "_Z5scalefPKfPfi";
const char kPolynomial[] = "_Z10polynomialPKdPdi";

/// Checks the PTX and the register counts of a program built with -arch=sm_75.
void expect_ptx_and_registers(const ProgramInfo& info) {
  const PtxEntry* ptx = nullptr;
  std::map<std::string, uint32_t> regs;
  for (const FatbinContainer& c : info.containers) {
    if (!ptx) ptx = choose_ptx(c);
    for (const CubinEntry& cubin : c.cubins)
      if (cubin.arch == 75) regs.insert(cubin.kernel_registers.begin(), cubin.kernel_registers.end());
  }
  ASSERT_NE(ptx, nullptr);
  EXPECT_EQ(ptx->arch, 75u);
  EXPECT_GE(ptx->ptx_major, 9u);  // CUDA 13
  EXPECT_NE(ptx->text.find(std::string(".entry ") + kScale), std::string::npos);
  EXPECT_NE(ptx->text.find(std::string(".entry ") + kPolynomial), std::string::npos);
  EXPECT_NE(ptx->text.find(".target sm_75"), std::string::npos);
  EXPECT_EQ(ptx->text.find('\0'), std::string::npos);
  ASSERT_EQ(regs.count(kScale), 1u);
  ASSERT_EQ(regs.count(kPolynomial), 1u);
  EXPECT_GT(regs.at(kScale), 0u);
  EXPECT_LE(regs.at(kScale), 255u);
  // Double-precision arithmetic and a division: more registers than a*x.
  EXPECT_GT(regs.at(kPolynomial), regs.at(kScale));
}

}  // namespace

TEST(FatbinNvcc, SharedCudartProgramHasPtxAndRegisterCounts) {
  SKIP_WITHOUT_NVCC();
  const ProgramInfo info = inspect_program_file(nvcc_program("shared"));
  EXPECT_TRUE(info.is_elf);
  EXPECT_TRUE(info.has_fatbin);
  EXPECT_FALSE(info.cudart_static);
  EXPECT_TRUE(info.has_ptx);
  EXPECT_EQ(info.problem, "");
  EXPECT_NE(std::find(info.needed.begin(), info.needed.end(), "libcudart.so.13"), info.needed.end());
  expect_ptx_and_registers(info);
}

TEST(FatbinNvcc, Lz4AndCompressedCubinVariantsReadTheSame) {
  SKIP_WITHOUT_NVCC();
  // -compress-mode=speed: LZ4-compressed PTX; =size: zstd-compressed cubins too.
  for (const char* variant : {"lz4", "size"}) {
    SCOPED_TRACE(variant);
    const ProgramInfo info = inspect_program_file(nvcc_program(variant));
    EXPECT_EQ(info.problem, "");
    expect_ptx_and_registers(info);
  }
}

TEST(FatbinNvcc, StaticCudartProgramIsDetected) {
  SKIP_WITHOUT_NVCC();
  const ProgramInfo info = inspect_program_file(nvcc_program("static"));
  EXPECT_TRUE(info.cudart_static);
  EXPECT_TRUE(info.has_ptx);
  EXPECT_NE(info.problem.find("-cudart shared"), std::string::npos);
  EXPECT_EQ(std::find(info.needed.begin(), info.needed.end(), "libcudart.so.13"), info.needed.end());
}

TEST(FatbinNvcc, SassOnlyProgramIsDetected) {
  SKIP_WITHOUT_NVCC();
  const ProgramInfo info = inspect_program_file(nvcc_program("sass"));
  EXPECT_TRUE(info.has_fatbin);
  EXPECT_FALSE(info.cudart_static);
  EXPECT_FALSE(info.has_ptx);
  EXPECT_NE(info.problem.find("-arch=sm_75"), std::string::npos);
}
