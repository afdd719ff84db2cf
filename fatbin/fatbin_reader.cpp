#include "fatbin/fatbin_reader.h"

#include <lz4.h>
#include <zstd.h>

#include <algorithm>
#include <memory>
#include <new>

#include "fatbin/elf64.h"

namespace tlmgpu::fatbin {

using elf::le16;
using elf::le32;
using elf::le64;

FatbinError::FatbinError(const std::string& problem, uint64_t offset)
    : std::runtime_error(problem + " at byte offset " + std::to_string(offset)), problem_(problem), offset_(offset) {}

namespace {

constexpr size_t kContainerHeaderSize = 16;
constexpr size_t kEntryHeaderSize = 64;
constexpr uint64_t kMaxZstdRatio = 1024;

std::string hex(uint64_t v) {
  static const char digits[] = "0123456789abcdef";
  std::string s;
  do {
    s.insert(s.begin(), digits[v & 0xf]);
    v >>= 4;
  } while (v);
  return "0x" + s;
}

/// An entry's payload as the reader uses it: the bytes in the container, or
/// the decompressed copy.
struct Payload {
  std::vector<uint8_t> owned;
  const uint8_t* data = nullptr;
  size_t size = 0;
};

/// Decompresses zstd frames into `out`, exactly `uncompressed` bytes. The
/// buffer grows with the output rather than being sized from the header: a
/// header claiming 256 MB over a few bytes of data costs a few bytes.
void zstd_decompress(const uint8_t* src, size_t size, uint64_t uncompressed, uint64_t at, std::vector<uint8_t>& out) {
  // A frame that states its size must state the header's: refused before
  // any work.
  const unsigned long long stated = ZSTD_getFrameContentSize(src, size);
  if (stated == ZSTD_CONTENTSIZE_ERROR) throw FatbinError("zstd data of the entry is not a zstd frame", at);
  if (stated != ZSTD_CONTENTSIZE_UNKNOWN && stated != uncompressed)
    throw FatbinError("zstd frame holds " + std::to_string(stated) + " bytes, the header says " +
                          std::to_string(uncompressed),
                      at);
  // zstd can expand a few bytes to 128 KB, and the decoder allocates its
  // window from the frame header before any data: a few bytes could cost a
  // large allocation. PTX and cubins compress 3-10 times; a claim of over
  // kMaxZstdRatio times is refused, and the window may not exceed the
  // output (nvcc's frames state their size: window = content).
  if (uncompressed > uint64_t(size) * kMaxZstdRatio + (uint64_t(64) << 10))
    throw FatbinError("zstd data of " + std::to_string(size) + " bytes claims " + std::to_string(uncompressed) +
                          " uncompressed, over " + std::to_string(kMaxZstdRatio) + " times as large",
                      at);
  int window_log = 10;
  while (window_log < 30 && (uint64_t(1) << window_log) < uncompressed) ++window_log;
  std::unique_ptr<ZSTD_DCtx, size_t (*)(ZSTD_DCtx*)> stream(ZSTD_createDCtx(), ZSTD_freeDCtx);
  if (!stream || ZSTD_isError(ZSTD_DCtx_setParameter(stream.get(), ZSTD_d_windowLogMax, window_log)))
    throw std::bad_alloc();
  // One byte over the expected size: output reaching it is too much.
  const uint64_t limit = uncompressed + 1;
  out.resize(size_t(std::min<uint64_t>(limit, std::max<uint64_t>(uint64_t(64) << 10, uint64_t(size) * 8))));
  ZSTD_inBuffer in{src, size, 0};
  size_t produced = 0;
  for (;;) {
    ZSTD_outBuffer o{out.data(), out.size(), produced};
    const size_t in_before = in.pos;
    const size_t left = ZSTD_decompressStream(stream.get(), &o, &in);
    if (ZSTD_isError(left))
      throw FatbinError(std::string("zstd data of the entry is corrupt (") + ZSTD_getErrorName(left) + ")", at);
    const bool progress = o.pos != produced || in.pos != in_before;
    produced = o.pos;
    if (produced > uncompressed)
      throw FatbinError("zstd data decompresses to more than the " + std::to_string(uncompressed) +
                            " bytes the header says",
                        at);
    if (left == 0 && in.pos == in.size) break;  // the last frame ended with the input
    if (produced == out.size()) {
      out.resize(size_t(std::min<uint64_t>(limit, uint64_t(out.size()) * 2)));
    } else if (in.pos == in.size) {
      throw FatbinError("zstd data of the entry ends inside a frame", at);
    } else if (!progress) {
      throw FatbinError("zstd data of the entry makes no progress", at);
    }
  }
  if (produced != uncompressed)
    throw FatbinError("zstd data decompresses to " + std::to_string(produced) + " bytes, the header says " +
                          std::to_string(uncompressed),
                      at);
  out.resize(produced);
}

/// `entry` is the entry header's offset from the start of the caller's
/// bytes, for messages.
Payload payload_of(const uint8_t* header, const uint8_t* payload, uint64_t payload_size, uint64_t entry) {
  const uint64_t flags = le64(header + 40);
  const bool lz4 = flags & kEntryFlagLz4;
  const bool zstd = flags & kEntryFlagZstd;
  Payload p;
  if (!lz4 && !zstd) {
    p.data = payload;
    p.size = size_t(payload_size);
    return p;
  }
  if (lz4 && zstd) throw FatbinError("entry flags " + hex(flags) + " ask for both LZ4 and zstd", entry + 40);
  const uint32_t compressed = le32(header + 16);
  const uint64_t uncompressed = le64(header + 56);
  if (compressed == 0 || compressed > payload_size)
    throw FatbinError("compressed size " + std::to_string(compressed) + " outside the payload of " +
                          std::to_string(payload_size) + " bytes",
                      entry + 16);
  if (uncompressed == 0 || uncompressed > kMaxUncompressedSize)
    throw FatbinError("uncompressed size " + std::to_string(uncompressed) + " outside 1.." +
                          std::to_string(kMaxUncompressedSize),
                      entry + 56);
  const uint64_t at = entry + le32(header + 4);  // the payload, for messages
  if (lz4) {
    // A raw LZ4 block (no frame header). Each input byte yields at most 255
    // output bytes: a larger claim is refused before anything is allocated.
    if (uncompressed > uint64_t(compressed) * 255 + 64)
      throw FatbinError("LZ4 data of " + std::to_string(compressed) + " bytes cannot hold the " +
                            std::to_string(uncompressed) + " the header says",
                        entry + 56);
    p.owned.resize(size_t(uncompressed));
    // Both sizes fit an int: checked above.
    const int n = LZ4_decompress_safe(reinterpret_cast<const char*>(payload), reinterpret_cast<char*>(p.owned.data()),
                                      int(compressed), int(uncompressed));
    if (n < 0) throw FatbinError("LZ4 data of the entry is corrupt", at);
    if (uint64_t(n) != uncompressed)
      throw FatbinError("LZ4 data decompresses to " + std::to_string(n) + " bytes, the header says " +
                            std::to_string(uncompressed),
                        at);
  } else {
    zstd_decompress(payload, compressed, uncompressed, at, p.owned);
  }
  p.data = p.owned.data();
  p.size = p.owned.size();
  return p;
}

/// The container at data[0..available); `base` is its offset in the
/// caller's bytes, for messages.
FatbinContainer read_at(const uint8_t* data, size_t available, uint64_t base) {
  if (available < kContainerHeaderSize)
    throw FatbinError("fatbin container header cut short (" + std::to_string(available) + " of 16 bytes)", base);
  const uint32_t magic = le32(data);
  if (magic != kContainerMagic)
    throw FatbinError("bad fatbin container magic " + hex(magic) + " (expected " + hex(kContainerMagic) + ")", base);
  const uint16_t version = le16(data + 4);
  if (version != 1) throw FatbinError("unsupported fatbin container version " + std::to_string(version), base + 4);
  const uint16_t header_size = le16(data + 6);
  if (header_size < kContainerHeaderSize)
    throw FatbinError("fatbin container header size " + std::to_string(header_size) + " below 16", base + 6);
  const uint64_t entries_size = le64(data + 8);
  if (header_size > available || entries_size > available - header_size)
    throw FatbinError("fatbin container of " + std::to_string(entries_size) + " bytes of entries runs past the end (" +
                          std::to_string(available) + " bytes available)",
                      base + 8);

  FatbinContainer c;
  c.bytes = header_size + entries_size;
  uint64_t at = header_size;
  while (at < c.bytes) {
    const uint64_t left = c.bytes - at;
    const uint64_t entry = base + at;
    if (left < kEntryHeaderSize)
      throw FatbinError("fatbin entry header cut short (" + std::to_string(left) + " of 64 bytes)", entry);
    const uint8_t* h = data + at;
    const uint16_t kind = le16(h);
    const uint32_t entry_header_size = le32(h + 4);
    const uint64_t payload_size = le64(h + 8);
    if (entry_header_size < kEntryHeaderSize)
      throw FatbinError("fatbin entry header size " + std::to_string(entry_header_size) + " below 64", entry + 4);
    if (entry_header_size > left || payload_size > left - entry_header_size)
      throw FatbinError("fatbin entry of " + std::to_string(payload_size) + " bytes runs past its container's end",
                        entry + 8);
    const uint8_t* payload = h + entry_header_size;
    const uint32_t arch = le32(h + 28);
    if (kind == kEntryKindPtx) {
      const Payload p = payload_of(h, payload, payload_size, entry);
      size_t n = p.size;
      while (n > 0 && p.data[n - 1] == 0) --n;  // padding to 8 bytes
      PtxEntry e;
      e.arch = arch;
      e.ptx_minor = le16(h + 24);
      e.ptx_major = le16(h + 26);
      e.text.assign(reinterpret_cast<const char*>(p.data), n);
      c.ptx.push_back(std::move(e));
    } else if (kind == kEntryKindElf) {
      const Payload p = payload_of(h, payload, payload_size, entry);
      CubinEntry e;
      e.arch = arch;
      try {
        e.kernel_registers = cubin_registers(p.data, p.size);
      } catch (const FatbinError& err) {
        // Offsets inside a decompressed image do not map to the caller's
        // bytes: name the entry and the place inside the image.
        throw FatbinError("cubin of the entry: " + err.problem() + " (ELF offset " + std::to_string(err.offset()) + ")",
                          entry);
      }
      c.cubins.push_back(std::move(e));
    }
    // Other kinds (LTO IR, ...) mean nothing to the simulator.
    at += entry_header_size + payload_size;
  }
  return c;
}

}  // namespace

FatbinContainer read_container(const uint8_t* data, size_t available) { return read_at(data, available, 0); }

std::vector<FatbinContainer> read_containers(const uint8_t* data, size_t size) {
  std::vector<FatbinContainer> out;
  uint64_t at = 0;
  while (at < size) {
    // Each container starts 8-byte aligned (the linker pads between the
    // objects' sections); a zero word is padding.
    if (size - at >= 8 && le64(data + at) == 0) {
      at += 8;
      continue;
    }
    if (size - at < 8) {
      bool zeros = true;
      for (uint64_t i = at; i < size; ++i) zeros = zeros && data[i] == 0;
      if (zeros) break;
    }
    FatbinContainer c = read_at(data + at, size_t(size - at), at);
    at += c.bytes;
    at += (8 - at % 8) % 8;
    out.push_back(std::move(c));
  }
  return out;
}

const PtxEntry* choose_ptx(const FatbinContainer& container, uint32_t target_arch) {
  const PtxEntry* best = nullptr;   // newest with arch <= target
  const PtxEntry* oldest = nullptr;
  auto newer = [](const PtxEntry& a, const PtxEntry& b) {
    if (a.arch != b.arch) return a.arch > b.arch;
    if (a.ptx_major != b.ptx_major) return a.ptx_major > b.ptx_major;
    return a.ptx_minor > b.ptx_minor;
  };
  for (const PtxEntry& e : container.ptx) {
    if (e.arch <= target_arch && (!best || newer(e, *best))) best = &e;
    if (!oldest || newer(*oldest, e)) oldest = &e;
  }
  return best ? best : oldest;
}

std::map<std::string, uint32_t> cubin_registers(const uint8_t* data, size_t size) {
  const elf::Image image(data, size, 0);
  std::map<std::string, uint32_t> regs;
  static const std::string prefix = ".text.";
  for (const elf::Section& s : image.sections())
    if (s.type == elf::kShtProgbits && s.name.size() > prefix.size() && s.name.compare(0, prefix.size(), prefix) == 0)
      regs[s.name.substr(prefix.size())] = s.info >> 24;
  return regs;
}

}  // namespace tlmgpu::fatbin
