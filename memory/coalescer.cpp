#include "memory/coalescer.h"

#include <algorithm>
#include <array>

namespace tlmgpu::memory {

CoalescerResult coalesce(const exec::MemAccess& access, uint32_t line_bytes, uint32_t sector_bytes,
                         std::vector<LineAccess>& out) {
  out.clear();
  CoalescerResult result;
  if (line_bytes == 0 || sector_bytes == 0) return result;
  AccessKind kind = access.is_atomic ? AccessKind::Atomic : access.is_store ? AccessKind::Store : AccessKind::Load;
  const uint32_t bytes = std::max<uint32_t>(access.bytes, 1);
  // Called for every global / local instruction: neighbouring lanes almost
  // always share a line, so the line of the previous sector is tried first.
  size_t cur = 0;
  // Power-of-two geometry (every preset) needs no division.
  const bool pow2 = (line_bytes & (line_bytes - 1)) == 0 && (sector_bytes & (sector_bytes - 1)) == 0;
  const uint32_t sector_shift = uint32_t(__builtin_ctz(sector_bytes));
  if (pow2 && access.mask && line_bytes >= sector_bytes && line_bytes / sector_bytes <= 32) {
    // The common case, a warp whose lanes all fall in one line: one mask.
    uint64_t lo = ~uint64_t(0), hi = 0;
    for (uint32_t m = access.mask; m; m &= m - 1) {
      const uint64_t a = access.addr[uint32_t(__builtin_ctz(m))];
      lo = std::min(lo, a);
      hi = std::max(hi, a);
    }
    const uint64_t line = lo & ~uint64_t(line_bytes - 1);
    if (((hi + bytes - 1) & ~uint64_t(line_bytes - 1)) == line && hi + bytes - 1 >= hi) {
      uint32_t mask = 0;
      for (uint32_t m = access.mask; m; m &= m - 1) {
        const uint64_t a = access.addr[uint32_t(__builtin_ctz(m))] - line;
        const uint32_t first = uint32_t(a >> sector_shift), last = uint32_t((a + bytes - 1) >> sector_shift);
        mask |= (last >= 31 ? ~0u : (2u << last) - 1) & ~((1u << first) - 1);  // bits first..last
      }
      LineAccess l;
      l.kind = kind;
      l.line_addr = line;
      l.bypass_l1 = access.is_atomic;
      l.sector_mask = mask;
      out.push_back(l);
      result.lines = 1;
      result.sectors = uint32_t(__builtin_popcount(mask));
      return result;
    }
  }
  for (uint32_t m = access.mask; m; m &= m - 1) {
    const uint32_t lane = uint32_t(__builtin_ctz(m));
    const uint64_t first = access.addr[lane];
    const uint64_t last = first + bytes - 1;
    // A lane's bytes may straddle sectors and (misaligned vectors) lines.
    const uint64_t first_sector = pow2 ? first >> sector_shift : first / sector_bytes;
    const uint64_t last_sector = pow2 ? last >> sector_shift : last / sector_bytes;
    for (uint64_t sector = first_sector; sector <= last_sector; ++sector) {
      const uint64_t byte = sector * sector_bytes;
      const uint64_t line = pow2 ? byte & ~uint64_t(line_bytes - 1) : byte - byte % line_bytes;
      const uint32_t bit = pow2 ? uint32_t((byte - line) >> sector_shift) : uint32_t((byte - line) / sector_bytes);
      if (cur >= out.size() || out[cur].line_addr != line) {
        cur = 0;
        while (cur < out.size() && out[cur].line_addr != line) ++cur;
        if (cur == out.size()) {
          LineAccess l;
          l.kind = kind;
          l.line_addr = line;
          l.bypass_l1 = access.is_atomic;
          out.push_back(l);
        }
      }
      out[cur].sector_mask |= 1u << bit;
    }
  }
  // Lanes usually ascend through memory: sort only when they did not.
  const auto by_line = [](const LineAccess& a, const LineAccess& b) { return a.line_addr < b.line_addr; };
  if (!std::is_sorted(out.begin(), out.end(), by_line)) std::sort(out.begin(), out.end(), by_line);
  result.lines = uint32_t(out.size());
  for (const LineAccess& l : out) result.sectors += uint32_t(__builtin_popcount(l.sector_mask));
  return result;
}

uint32_t shared_bank_cycles(const exec::MemAccess& access, uint32_t banks, uint32_t bank_width_bytes) {
  if (banks == 0 || bank_width_bytes == 0) return 1;
  // Called for every shared-memory instruction: no allocation, no sort. Each
  // bank keeps the distinct words asked of it; the busiest bank sets the
  // cycles (the same word for several lanes is a broadcast).
  constexpr uint32_t kMaxBanks = 64;
  constexpr uint32_t kMaxWordsPerBank = 32 * 5;
  if (banks > kMaxBanks) banks = kMaxBanks;
  uint64_t words[kMaxBanks][kMaxWordsPerBank];
  uint8_t count[kMaxBanks] = {};
  uint32_t worst = 1;
  const uint32_t bytes = std::max<uint32_t>(access.bytes, 1);
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

}  // namespace tlmgpu::memory
