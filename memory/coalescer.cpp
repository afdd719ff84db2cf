#include "memory/coalescer.h"

#include <algorithm>
#include <array>
#include <bitset>

namespace tlmgpu::memory {

CoalescerResult coalesce(const exec::MemAccess& access, uint32_t line_bytes, uint32_t sector_bytes,
                         std::vector<LineAccess>& out) {
  out.clear();
  CoalescerResult result;
  if (line_bytes == 0 || sector_bytes == 0) return result;
  AccessKind kind = access.is_atomic ? AccessKind::Atomic : access.is_store ? AccessKind::Store : AccessKind::Load;
  const uint32_t bytes = std::max<uint32_t>(access.bytes, 1);
  for (uint32_t lane = 0; lane < uint32_t(access.addr.size()); ++lane) {
    if (!(access.mask >> lane & 1u)) continue;
    const uint64_t first = access.addr[lane];
    const uint64_t last = first + bytes - 1;
    // A lane's bytes may straddle sectors and (misaligned vectors) lines.
    for (uint64_t sector = first / sector_bytes; sector <= last / sector_bytes; ++sector) {
      const uint64_t byte = sector * sector_bytes;
      const uint64_t line = byte - byte % line_bytes;
      const uint32_t bit = uint32_t((byte - line) / sector_bytes);
      auto it = std::find_if(out.begin(), out.end(), [&](const LineAccess& l) { return l.line_addr == line; });
      if (it == out.end()) {
        LineAccess l;
        l.kind = kind;
        l.line_addr = line;
        l.bypass_l1 = access.is_atomic;
        out.push_back(l);
        it = out.end() - 1;
      }
      it->sector_mask |= 1u << bit;
    }
  }
  std::sort(out.begin(), out.end(), [](const LineAccess& a, const LineAccess& b) { return a.line_addr < b.line_addr; });
  result.lines = uint32_t(out.size());
  for (const LineAccess& l : out) result.sectors += uint32_t(std::bitset<32>(l.sector_mask).count());
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
