#include "memory/coalescer.h"

#include <algorithm>
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
  std::vector<uint64_t> words;
  words.reserve(64);
  const uint32_t bytes = std::max<uint32_t>(access.bytes, 1);
  for (uint32_t lane = 0; lane < uint32_t(access.addr.size()); ++lane) {
    if (!(access.mask >> lane & 1u)) continue;
    const uint64_t first = access.addr[lane] / bank_width_bytes;
    const uint64_t last = (access.addr[lane] + bytes - 1) / bank_width_bytes;
    for (uint64_t w = first; w <= last; ++w) words.push_back(w);
  }
  std::sort(words.begin(), words.end());
  words.erase(std::unique(words.begin(), words.end()), words.end());
  std::vector<uint32_t> per_bank(banks, 0);
  uint32_t worst = 1;
  for (uint64_t w : words) worst = std::max(worst, ++per_bank[w % banks]);
  return worst;
}

}  // namespace tlmgpu::memory
