#include "memory/coalescer.h"

#include <algorithm>
#include <array>

#include "core/bit_ops.h"
#include "memory/sector_tags.h"

namespace tlmgpu::memory {

namespace {

LineAccess make_line(AccessKind kind, uint64_t line, uint32_t mask, bool bypass_l1) {
  LineAccess l;
  l.kind = kind;
  l.line_addr = line;
  l.sector_mask = mask;
  l.bypass_l1 = bypass_l1;
  return l;
}

/// Power-of-two line and sector sizes (every preset), with at most 32 sectors
/// a line: shifts and masks instead of division.
struct Geometry {
  uint64_t line_bytes;
  uint64_t line_mask;  ///< clears the offset inside a line
  uint32_t sector_shift;

  uint64_t line_of(uint64_t addr) const { return addr & line_mask; }
  /// Sectors of `line` that bytes [lo, hi] (inside the line) touch.
  uint32_t sectors(uint64_t line, uint64_t lo, uint64_t hi) const {
    return core::bit_range(uint32_t((lo - line) >> sector_shift), uint32_t((hi - line) >> sector_shift));
  }
};

/// The lanes between the lowest and the highest active one are all active and
/// read consecutive `bytes`-sized elements (c[i] with i = base + lane): their
/// bytes form one range [first, last]. False otherwise.
bool unit_stride_range(const MemAccess& access, uint32_t bytes, uint64_t& first, uint64_t& last) {
  const uint32_t lane0 = uint32_t(__builtin_ctz(access.mask));
  const uint32_t run = access.mask >> lane0;
  if (run & (run + 1)) return false;  // a hole in the mask
  const uint32_t lanes = 32 - uint32_t(__builtin_clz(access.mask)) - lane0;
  const uint64_t base = access.addr[lane0];
  // One pass with no early exit, so the compiler can vectorize it.
  uint64_t expected = base, deviation = 0;
  for (uint32_t i = lane0; i < lane0 + lanes; ++i, expected += bytes) deviation |= access.addr[i] ^ expected;
  if (deviation) return false;
  first = base;
  last = base + uint64_t(lanes) * bytes - 1;
  return last >= first;  // no wrap past the top of the address space
}

/// Every active lane's bytes inside one line: that line's sector mask.
bool single_line(const MemAccess& access, uint32_t bytes, const Geometry& g, uint64_t& line,
                 uint32_t& mask) {
  line = g.line_of(access.addr[uint32_t(__builtin_ctz(access.mask))]);
  // Offsets from the line (wrapping below it): all lie inside the line exactly
  // when their OR does, since the line size is a power of two.
  uint64_t offsets = 0;
  uint32_t m = 0;
  const uint32_t in_line = uint32_t(g.line_bytes - 1);
  for (uint32_t lanes = access.mask; lanes; lanes &= lanes - 1) {
    const uint64_t lo = access.addr[uint32_t(__builtin_ctz(lanes))] - line;
    const uint64_t hi = lo + bytes - 1;
    offsets |= lo | hi;
    // Masked so an out-of-line lane cannot shift by 32 or more; its result is dropped.
    m |= core::bit_range(uint32_t(lo & in_line) >> g.sector_shift, uint32_t(hi & in_line) >> g.sector_shift);
  }
  mask = m;
  return offsets < g.line_bytes;
}

/// Any pattern: per lane the (at most a few) lines its bytes touch, merged
/// into a small table of distinct lines, sorted when the lanes did not ascend.
void scattered(const MemAccess& access, uint32_t bytes, const Geometry& g, AccessKind kind,
               std::vector<LineAccess>& out) {
  for (uint32_t lanes = access.mask; lanes; lanes &= lanes - 1) {
    const uint64_t first = access.addr[uint32_t(__builtin_ctz(lanes))];
    const uint64_t last = first + bytes - 1;
    if (last < first) continue;  // wraps: touches no sector (as the per-sector walk found)
    for (uint64_t line = g.line_of(first);; line += g.line_bytes) {
      const uint64_t line_end = line + (g.line_bytes - 1);
      const uint32_t mask = g.sectors(line, std::max(first, line), std::min(last, line_end));
      size_t i = out.size();
      // Neighbouring lanes usually share the line last added.
      if (i && out[i - 1].line_addr == line) {
        --i;
      } else {
        i = 0;
        while (i < out.size() && out[i].line_addr != line) ++i;
      }
      if (i == out.size())
        out.push_back(make_line(kind, line, mask, access.is_atomic));
      else
        out[i].sector_mask |= mask;
      if (line_end >= last) break;
    }
  }
  const auto by_line = [](const LineAccess& a, const LineAccess& b) { return a.line_addr < b.line_addr; };
  if (!std::is_sorted(out.begin(), out.end(), by_line)) std::sort(out.begin(), out.end(), by_line);
}

/// Any geometry: the lanes' bytes sector by sector, with division.
void general(const MemAccess& access, uint32_t bytes, uint32_t line_bytes, uint32_t sector_bytes,
             AccessKind kind, std::vector<LineAccess>& out) {
  size_t cur = 0;
  for (uint32_t m = access.mask; m; m &= m - 1) {
    const uint32_t lane = uint32_t(__builtin_ctz(m));
    const uint64_t first = access.addr[lane];
    const uint64_t last = first + bytes - 1;
    for (uint64_t sector = first / sector_bytes; sector <= last / sector_bytes; ++sector) {
      const uint64_t byte = sector * sector_bytes;
      const uint64_t line = byte - byte % line_bytes;
      const uint32_t bit = uint32_t((byte - line) / sector_bytes);
      if (cur >= out.size() || out[cur].line_addr != line) {
        cur = 0;
        while (cur < out.size() && out[cur].line_addr != line) ++cur;
        if (cur == out.size()) out.push_back(make_line(kind, line, 0, access.is_atomic));
      }
      out[cur].sector_mask |= 1u << bit;
    }
  }
  const auto by_line = [](const LineAccess& a, const LineAccess& b) { return a.line_addr < b.line_addr; };
  if (!std::is_sorted(out.begin(), out.end(), by_line)) std::sort(out.begin(), out.end(), by_line);
}

}  // namespace

namespace {

/// A strided access (wmma fragments): each run coalesced on its own, then
/// the lines they share merged, so each line is requested once.
CoalescerResult coalesce_segments(const MemAccess& access, uint32_t line_bytes, uint32_t sector_bytes,
                                  std::vector<LineAccess>& out) {
  MemAccess run = access;
  run.segments = 1;
  std::vector<LineAccess> lines, all;
  for (unsigned k = 0; k < access.segments; ++k) {
    for (uint32_t m = access.mask; m; m &= m - 1) {
      const unsigned lane = unsigned(__builtin_ctz(m));
      run.addr[lane] = access.addr[lane] + k * access.segment_stride;
    }
    coalesce(run, line_bytes, sector_bytes, lines);
    all.insert(all.end(), lines.begin(), lines.end());
  }
  std::stable_sort(all.begin(), all.end(),
                   [](const LineAccess& a, const LineAccess& b) { return a.line_addr < b.line_addr; });
  out.clear();
  for (const LineAccess& l : all) {
    if (!out.empty() && out.back().line_addr == l.line_addr) {
      out.back().sector_mask |= l.sector_mask;
      continue;
    }
    out.push_back(l);
  }
  CoalescerResult result;
  result.lines = uint32_t(out.size());
  for (const LineAccess& l : out) result.sectors += core::popcount32(l.sector_mask);
  return result;
}

}  // namespace

void count_same_address_atomics(const MemAccess& access, uint32_t line_bytes, std::vector<LineAccess>& lines) {
  // At most 32 lanes: sort their addresses once, then count runs per line.
  std::array<uint64_t, ptx::kWarpSize> addrs;
  uint32_t n = 0;
  for (uint32_t m = access.mask; m; m &= m - 1) addrs[n++] = access.addr[__builtin_ctz(m)];
  std::sort(addrs.begin(), addrs.begin() + n);
  for (LineAccess& l : lines) {
    l.atomic_same_address_ops = 0;
    l.atomic_address = l.line_addr;
  }
  std::size_t li = 0;
  for (uint32_t i = 0; i < n;) {
    uint32_t j = i;
    while (j < n && addrs[j] == addrs[i]) ++j;
    const uint64_t line = addrs[i] - addrs[i] % line_bytes;
    while (li < lines.size() && lines[li].line_addr < line) ++li;
    if (li < lines.size() && lines[li].line_addr == line && j - i > lines[li].atomic_same_address_ops) {
      lines[li].atomic_same_address_ops = j - i;
      lines[li].atomic_address = addrs[i];
    }
    i = j;
  }
}

void mark_fully_written_units(const MemAccess& access, uint32_t line_bytes, std::vector<LineAccess>& lines) {
  // A byte bitmap per line (1024-byte lines at most: 16 words), set a run of
  // a lane's bytes at a time, then read 32 bytes (half a word) at a time.
  // The scratch is per host thread: the SMs of a cycle may run on several.
  static thread_local std::vector<std::array<uint64_t, 16>> written;
  written.assign(lines.size(), {});
  for (uint32_t m = access.mask; m; m &= m - 1) {
    const uint32_t lane = uint32_t(__builtin_ctz(m));
    for (uint32_t s = 0; s < access.segments; ++s) {
      uint64_t a = access.addr[lane] + uint64_t(s) * access.segment_stride;
      const uint64_t end = a + access.bytes;
      while (a < end) {
        const uint64_t line = a - a % line_bytes;
        const uint64_t upto = std::min(end, line + line_bytes);
        const auto it = std::find_if(lines.begin(), lines.end(),
                                     [line](const LineAccess& l) { return l.line_addr == line; });
        if (it != lines.end()) {
          std::array<uint64_t, 16>& bits = written[size_t(it - lines.begin())];
          for (uint64_t off = a - line; off < upto - line;) {  // up to the next word boundary at a time
            const uint64_t word_end = std::min(upto - line, (off / 64 + 1) * 64);
            const uint64_t n = word_end - off;
            bits[off / 64] |= (n == 64 ? ~uint64_t(0) : ((uint64_t(1) << n) - 1)) << (off % 64);
            off = word_end;
          }
        }
        a = upto;
      }
    }
  }
  for (size_t i = 0; i < lines.size(); ++i) {
    uint32_t full = 0;
    for (uint32_t unit = 0; unit < line_bytes / kSectorUnitBytes && unit < 32; ++unit) {
      const uint64_t bits = written[i][unit / 2] >> (32 * (unit % 2));
      if ((bits & 0xffffffffu) == 0xffffffffu) full |= 1u << unit;
    }
    lines[i].full_mask = full & lines[i].sector_mask;
  }
}

CoalescerResult coalesce(const MemAccess& access, uint32_t line_bytes, uint32_t sector_bytes,
                         std::vector<LineAccess>& out) {
  if (access.segments > 1) return coalesce_segments(access, line_bytes, sector_bytes, out);
  out.clear();
  CoalescerResult result;
  if (line_bytes == 0 || sector_bytes == 0 || access.mask == 0) return result;
  const AccessKind kind =
      access.is_atomic ? AccessKind::Atomic : access.is_store ? AccessKind::Store : AccessKind::Load;
  const uint32_t bytes = std::max<uint32_t>(access.bytes, 1);
  const bool pow2 = (line_bytes & (line_bytes - 1)) == 0 && (sector_bytes & (sector_bytes - 1)) == 0 &&
                    line_bytes >= sector_bytes && line_bytes / sector_bytes <= 32;
  if (!pow2) {
    general(access, bytes, line_bytes, sector_bytes, kind, out);
  } else {
    const Geometry g{line_bytes, ~uint64_t(line_bytes - 1), uint32_t(__builtin_ctz(sector_bytes))};
    uint64_t first = 0, last = 0, line = 0;
    uint32_t mask = 0;
    if (unit_stride_range(access, bytes, first, last)) {
      // Called for every global / local instruction; most are c[i] with
      // consecutive lanes: the sectors of one byte range, line by line.
      for (line = g.line_of(first);; line += g.line_bytes) {
        const uint64_t line_end = line + (g.line_bytes - 1);
        out.push_back(make_line(kind, line, g.sectors(line, std::max(first, line), std::min(last, line_end)),
                                access.is_atomic));
        if (line_end >= last) break;
      }
    } else if (single_line(access, bytes, g, line, mask)) {
      out.push_back(make_line(kind, line, mask, access.is_atomic));
    } else {
      scattered(access, bytes, g, kind, out);
    }
  }
  result.lines = uint32_t(out.size());
  for (const LineAccess& l : out) result.sectors += core::popcount32(l.sector_mask);
  return result;
}

namespace {

constexpr uint32_t kMaxBanks = 64;
constexpr uint32_t kMaxWordsPerBank = 32 * 5;

/// Any geometry, as the hardware sees it: each bank keeps the distinct words
/// asked of it (at most kMaxWordsPerBank counted).
uint32_t bank_cycles_general(const MemAccess& access, uint32_t banks, uint32_t bank_width_bytes,
                             uint32_t bytes) {
  uint64_t words[kMaxBanks][kMaxWordsPerBank];
  uint8_t count[kMaxBanks] = {};
  uint32_t worst = 1;
  for (uint32_t m = access.mask; m; m &= m - 1) {
    const uint32_t lane = uint32_t(__builtin_ctz(m));
    const uint64_t first = access.addr[lane] / bank_width_bytes;
    const uint64_t last = (access.addr[lane] + bytes - 1) / bank_width_bytes;
    for (uint64_t w = first; w <= last; ++w) {
      const uint32_t bank = uint32_t(w % banks);
      uint8_t& n = count[bank];
      bool seen = false;
      for (uint8_t i = 0; i < n && !seen; ++i) seen = words[bank][i] == w;
      if (seen || n == kMaxWordsPerBank) continue;
      words[bank][n++] = w;
      worst = std::max<uint32_t>(worst, n);
    }
  }
  return worst;
}

}  // namespace

uint32_t shared_bank_cycles(const MemAccess& access, uint32_t banks, uint32_t bank_width_bytes) {
  if (banks == 0 || bank_width_bytes == 0) return 1;
  if (access.segments > 1) {
    // A strided wmma fragment: one bank pass per run.
    MemAccess run = access;
    run.segments = 1;
    uint32_t cycles = 0;
    for (unsigned k = 0; k < access.segments; ++k) {
      for (uint32_t m = access.mask; m; m &= m - 1) {
        const unsigned lane = unsigned(__builtin_ctz(m));
        run.addr[lane] = access.addr[lane] + k * access.segment_stride;
      }
      cycles += shared_bank_cycles(run, banks, bank_width_bytes);
    }
    return cycles;
  }
  // Called for every shared-memory instruction: no allocation, no sort. The
  // busiest bank sets the cycles (the same word for several lanes is one
  // broadcast).
  if (banks > kMaxBanks) banks = kMaxBanks;
  const uint32_t bytes = std::max<uint32_t>(access.bytes, 1);
  const bool pow2 = (banks & (banks - 1)) == 0 && (bank_width_bytes & (bank_width_bytes - 1)) == 0;
  // Words one lane can touch; with at most kMaxWordsPerBank in all, no bank
  // reaches the cap, so the general walk's cap never matters here.
  const uint32_t words_per_lane = (bytes - 1) / bank_width_bytes + 2;
  if (!pow2 || 32 * words_per_lane > kMaxWordsPerBank)
    return bank_cycles_general(access, banks, bank_width_bytes, bytes);

  const uint32_t width_shift = uint32_t(__builtin_ctz(bank_width_bytes));
  const uint32_t bank_mask = banks - 1;
  if (bytes <= bank_width_bytes) {
    // Most accesses are one aligned word per lane and conflict-free
    // (distinct banks, or one word broadcast to several lanes). Proven in two
    // branch-free passes: every lane writes its word into its bank's entry,
    // then every lane finds its own word there unless another word of the
    // same bank overwrote it. Otherwise (or for a lane straddling two words,
    // impossible when every address is a multiple of the power-of-two size)
    // the exact count below decides.
    uint64_t word_in_bank[kMaxBanks];
    uint64_t any_address = 0, differ = 0;
    if (access.mask == 0xffffffffu) {
      for (uint32_t lane = 0; lane < 32; ++lane) {
        const uint64_t addr = access.addr[lane];
        any_address |= addr;
        word_in_bank[uint32_t(addr >> width_shift) & bank_mask] = addr >> width_shift;
      }
      for (uint32_t lane = 0; lane < 32; ++lane) {
        const uint64_t w = access.addr[lane] >> width_shift;
        differ |= word_in_bank[uint32_t(w) & bank_mask] ^ w;
      }
    } else {
      for (uint32_t m = access.mask; m; m &= m - 1) {
        const uint64_t addr = access.addr[uint32_t(__builtin_ctz(m))];
        any_address |= addr;
        word_in_bank[uint32_t(addr >> width_shift) & bank_mask] = addr >> width_shift;
      }
      for (uint32_t m = access.mask; m; m &= m - 1) {
        const uint64_t w = access.addr[uint32_t(__builtin_ctz(m))] >> width_shift;
        differ |= word_in_bank[uint32_t(w) & bank_mask] ^ w;
      }
    }
    const bool aligned = (bytes & (bytes - 1)) == 0 && (any_address & (bytes - 1)) == 0;
    if (aligned && differ == 0) return 1;
  }
  // A bank's first word is kept apart, so conflict-free accesses and
  // broadcasts never walk a list; further distinct words of a bank go into
  // a chain threaded through one small pool.
  constexpr uint8_t kEnd = 0xff;
  uint64_t first_word[kMaxBanks];
  uint8_t count[kMaxBanks];
  uint8_t chain[kMaxBanks];
  uint64_t pool[kMaxWordsPerBank];
  uint8_t next[kMaxWordsPerBank];
  uint8_t pooled = 0;
  uint64_t used = 0;  // bit per bank holding a word
  uint32_t worst = 1;
  for (uint32_t m = access.mask; m; m &= m - 1) {
    const uint64_t addr = access.addr[uint32_t(__builtin_ctz(m))];
    const uint64_t last = (addr + bytes - 1) >> width_shift;
    for (uint64_t w = addr >> width_shift; w <= last; ++w) {
      const uint32_t bank = uint32_t(w) & bank_mask;
      const uint64_t bit = uint64_t(1) << bank;
      if (!(used & bit)) {
        used |= bit;
        first_word[bank] = w;
        count[bank] = 1;
        chain[bank] = kEnd;
        continue;
      }
      if (first_word[bank] == w) continue;
      bool seen = false;
      for (uint8_t i = chain[bank]; i != kEnd && !seen; i = next[i]) seen = pool[i] == w;
      if (seen) continue;
      pool[pooled] = w;
      next[pooled] = chain[bank];
      chain[bank] = pooled++;
      worst = std::max<uint32_t>(worst, ++count[bank]);
    }
  }
  return worst;
}

CoalescerResult UnorderedCoalescer::coalesce(const MemAccess& a, uint32_t line_bytes,
                                             std::vector<LineAccess>& out) {
  out.clear();
  if (a.mask == 0) return {};
  uint64_t lo = ~uint64_t(0), hi = 0;
  for (uint32_t m = a.mask; m; m &= m - 1) {
    const uint64_t addr = a.addr[uint32_t(__builtin_ctz(m))];
    lo = std::min(lo, addr);
    hi = std::max(hi, addr);
  }
  // A lane's naturally aligned bytes (a power of two, at most 32) lie in one
  // sector; anything else, and accesses within a few lines (coalesce()'s
  // fast paths), go to coalesce().
  const bool simple_lanes = a.bytes != 0 && a.bytes <= 32 && (a.bytes & (a.bytes - 1)) == 0;
  const bool simple_line = line_bytes >= 32 && line_bytes <= 1024 && (line_bytes & (line_bytes - 1)) == 0;
  if (hi - lo < 4ull * line_bytes || !simple_lanes || !simple_line || a.segments > 1)
    return memory::coalesce(a, line_bytes, 32, out);
  if (++epoch_ == 0) {  // wrapped: forget every slot
    slot_epoch_.fill(0);
    epoch_ = 1;
  }
  const uint32_t shift = uint32_t(__builtin_ctz(line_bytes));
  for (uint32_t m = a.mask; m; m &= m - 1) {
    const uint64_t addr = a.addr[uint32_t(__builtin_ctz(m))];
    const uint64_t line = (addr >> shift) << shift;
    const uint32_t sector = 1u << ((addr - line) >> 5);
    uint32_t slot = uint32_t((line * 0x9E3779B97F4A7C15ull) >> 58);
    while (slot_epoch_[slot] == epoch_ && out[slot_index_[slot]].line_addr != line) slot = (slot + 1) & 63;
    if (slot_epoch_[slot] == epoch_) {
      out[slot_index_[slot]].sector_mask |= sector;
      continue;
    }
    slot_epoch_[slot] = epoch_;
    slot_index_[slot] = uint8_t(out.size());
    out.push_back(make_line(a.is_atomic ? AccessKind::Atomic : a.is_store ? AccessKind::Store : AccessKind::Load,
                            line, sector, a.is_atomic));
  }
  CoalescerResult r;
  r.lines = uint32_t(out.size());
  for (const LineAccess& l : out) r.sectors += uint32_t(__builtin_popcount(l.sector_mask));
  return r;
}

}  // namespace tlmgpu::memory
