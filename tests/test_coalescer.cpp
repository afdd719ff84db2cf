// Coalescer transaction counts and shared-memory bank conflicts.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>
#include <vector>

#include "memory/coalescer.h"

namespace {

using tlmgpu::memory::MemAccess;
using tlmgpu::memory::AccessKind;
using tlmgpu::memory::coalesce;
using tlmgpu::memory::LineAccess;
using tlmgpu::memory::shared_bank_cycles;

MemAccess strided(uint64_t base, uint64_t stride, uint8_t bytes, uint32_t mask = 0xffffffffu) {
  MemAccess a;
  a.mask = mask;
  a.bytes = bytes;
  for (uint32_t lane = 0; lane < 32; ++lane) a.addr[lane] = base + lane * stride;
  return a;
}

TEST(Coalescer, FullyCoalesced32x4BytesIsOneLineFourSectors) {
  std::vector<LineAccess> out;
  const auto r = coalesce(strided(0x1000, 4, 4), 128, 32, out);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].line_addr, 0x1000u);
  EXPECT_EQ(out[0].sector_mask, 0xfu);
  EXPECT_EQ(out[0].kind, AccessKind::Load);
  EXPECT_EQ(r.lines, 1u);
  EXPECT_EQ(r.sectors, 4u);
}

TEST(Coalescer, Stride2IsTwoLines) {
  std::vector<LineAccess> out;
  const auto r = coalesce(strided(0x2000, 8, 4), 128, 32, out);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].line_addr, 0x2000u);
  EXPECT_EQ(out[1].line_addr, 0x2080u);
  EXPECT_EQ(out[0].sector_mask, 0xfu);
  EXPECT_EQ(out[1].sector_mask, 0xfu);
  EXPECT_EQ(r.sectors, 8u);
}

TEST(Coalescer, ScatteredLanesGiveOneLinePerLaneInAscendingOrder) {
  MemAccess a = strided(0, 0, 4);
  for (uint32_t lane = 0; lane < 32; ++lane) a.addr[lane] = 0x100000 - lane * 4096 + (lane % 4) * 32;
  std::vector<LineAccess> out;
  const auto r = coalesce(a, 128, 32, out);
  ASSERT_EQ(out.size(), 32u);
  for (size_t i = 1; i < out.size(); ++i) EXPECT_LT(out[i - 1].line_addr, out[i].line_addr);
  EXPECT_EQ(r.sectors, 32u);
  // Lane 0 (largest address) is last; its sector is the first of its line.
  EXPECT_EQ(out.back().line_addr, 0x100000u);
  EXPECT_EQ(out.back().sector_mask, 0x1u);
  EXPECT_EQ(out.front().sector_mask, 1u << 3);  // lane 31: offset 3 * 32
}

TEST(Coalescer, EightByteAccessesSpanTwoLines) {
  std::vector<LineAccess> out;
  coalesce(strided(0x3000, 8, 8), 128, 32, out);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].sector_mask, 0xfu);
  EXPECT_EQ(out[1].sector_mask, 0xfu);
}

TEST(Coalescer, Vector16ByteAccessesSpanFourLines) {
  std::vector<LineAccess> out;
  const auto r = coalesce(strided(0x4000, 16, 16), 128, 32, out);
  ASSERT_EQ(out.size(), 4u);
  EXPECT_EQ(r.sectors, 16u);
  EXPECT_EQ(out[3].line_addr, 0x4180u);
}

TEST(Coalescer, PartialMaskTouchesOnlyActiveLanesSectors) {
  std::vector<LineAccess> out;
  // Lanes 0..7 and 24..31 active: sectors 0 and 3 of the line.
  const auto r = coalesce(strided(0x5000, 4, 4, 0xff0000ffu), 128, 32, out);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].sector_mask, 0x9u);
  EXPECT_EQ(r.sectors, 2u);
  out.push_back({});
  coalesce(strided(0x5000, 4, 4, 0), 128, 32, out);
  EXPECT_TRUE(out.empty());
}

TEST(Coalescer, MisalignedLaneStraddlesSectorsAndLines) {
  MemAccess a = strided(0, 0, 8, 0x3u);
  a.addr[0] = 0x107c;  // bytes 0x107c..0x1083: last sector of one line, first of the next
  a.addr[1] = 0x201c;  // bytes 0x201c..0x2023: sectors 0 and 1
  std::vector<LineAccess> out;
  coalesce(a, 128, 32, out);
  ASSERT_EQ(out.size(), 3u);
  EXPECT_EQ(out[0].line_addr, 0x1000u);
  EXPECT_EQ(out[0].sector_mask, 0x8u);
  EXPECT_EQ(out[1].line_addr, 0x1080u);
  EXPECT_EQ(out[1].sector_mask, 0x1u);
  EXPECT_EQ(out[2].sector_mask, 0x3u);
}

TEST(Coalescer, StoresAndAtomicsKeepTheirKind) {
  std::vector<LineAccess> out;
  MemAccess a = strided(0x6000, 4, 4);
  a.is_store = true;
  coalesce(a, 128, 32, out);
  EXPECT_EQ(out[0].kind, AccessKind::Store);
  EXPECT_FALSE(out[0].bypass_l1);
  a.is_store = false;
  a.is_atomic = true;
  coalesce(a, 128, 32, out);
  EXPECT_EQ(out[0].kind, AccessKind::Atomic);
  EXPECT_TRUE(out[0].bypass_l1);
}

// The coalescer has a one-line fast path and a general path; both must give
// what a plain per-lane, per-sector walk gives.
TEST(Coalescer, MatchesAPerSectorReferenceOnRandomAccesses) {
  std::mt19937_64 rng(7);
  std::vector<LineAccess> out;
  for (int iter = 0; iter < 20000; ++iter) {
    MemAccess a;
    const uint8_t sizes[] = {1, 2, 4, 8, 16};
    a.bytes = sizes[rng() % 5];
    a.mask = iter % 3 == 0 ? 0xffffffffu : uint32_t(rng());
    a.is_store = iter % 5 == 1;
    const uint64_t base = (rng() % 4096) * 4;
    const uint64_t spread = iter % 4 == 0 ? 4096 : iter % 4 == 1 ? 128 : 32;  // scattered .. within a line
    for (uint32_t lane = 0; lane < 32; ++lane) a.addr[lane] = base + rng() % spread;
    const uint32_t line_bytes = iter % 7 == 0 ? 96 : 128;  // not a power of two: the general path
    std::map<uint64_t, uint32_t> want;
    for (uint32_t lane = 0; lane < 32; ++lane) {
      if (!(a.mask >> lane & 1u)) continue;
      for (uint64_t s = a.addr[lane] / 32; s <= (a.addr[lane] + a.bytes - 1) / 32; ++s) {
        const uint64_t line = s * 32 - s * 32 % line_bytes;
        want[line] |= 1u << ((s * 32 - line) / 32);
      }
    }
    const auto r = coalesce(a, line_bytes, 32, out);
    ASSERT_EQ(out.size(), want.size()) << iter;
    ASSERT_EQ(r.lines, want.size());
    uint32_t sectors = 0;
    size_t i = 0;
    for (const auto& [line, mask] : want) {
      EXPECT_EQ(out[i].line_addr, line) << iter;
      EXPECT_EQ(out[i].sector_mask, mask) << iter;
      EXPECT_EQ(out[i].kind, a.is_store ? AccessKind::Store : AccessKind::Load);
      sectors += uint32_t(__builtin_popcount(mask));
      ++i;
    }
    EXPECT_EQ(r.sectors, sectors);
  }
}

TEST(Coalescer, SharedBankConflicts) {
  EXPECT_EQ(shared_bank_cycles(strided(0, 4, 4), 32), 1u);        // stride 1 word
  EXPECT_EQ(shared_bank_cycles(strided(0, 8, 4), 32), 2u);        // stride 2: two lanes per bank
  EXPECT_EQ(shared_bank_cycles(strided(0, 128, 4), 32), 32u);     // stride 32: all in bank 0
  EXPECT_EQ(shared_bank_cycles(strided(64, 0, 4), 32), 1u);       // broadcast
  EXPECT_EQ(shared_bank_cycles(strided(0, 4, 4, 0), 32), 1u);     // no lane: still one cycle
  // Half the lanes read one word, the other half another word of the same bank.
  MemAccess a = strided(0, 0, 4);
  for (uint32_t lane = 16; lane < 32; ++lane) a.addr[lane] = 128;
  EXPECT_EQ(shared_bank_cycles(a, 32), 2u);
  // 8-byte accesses with stride 8 touch 64 distinct words: two per bank.
  EXPECT_EQ(shared_bank_cycles(strided(0, 8, 8), 32), 2u);
  // sgemm's 16x16 tiles: a warp is two rows. as[ty][i]: two words (16 apart,
  // other banks) each broadcast to 16 lanes; bs[i][tx]: 16 words, each read twice.
  MemAccess rows = strided(0, 0, 4);
  for (uint32_t lane = 16; lane < 32; ++lane) rows.addr[lane] = 64;
  EXPECT_EQ(shared_bank_cycles(rows, 32), 1u);
  MemAccess cols = strided(0, 4, 4);
  for (uint32_t lane = 16; lane < 32; ++lane) cols.addr[lane] = (lane - 16) * 4;
  EXPECT_EQ(shared_bank_cycles(cols, 32), 1u);
  // A lane straddling two words touches both: word 0 + 2 bytes, four bytes wide.
  EXPECT_EQ(shared_bank_cycles(strided(2, 4, 4), 32), 2u);  // words 0..32: bank 0 twice
}

TEST(Coalescer, SharedBankCyclesCountDistinctWordsPerBank) {
  // Against a plain count (a set of words per bank), on random accesses that
  // are often conflict-free, often broadcast and sometimes neither.
  std::mt19937 rng(5);
  for (int trial = 0; trial < 20000; ++trial) {
    const uint32_t banks = rng() % 2 ? 32 : 16;
    const uint32_t width = rng() % 3 == 0 ? 8 : 4;
    static constexpr uint8_t kSizes[] = {1, 2, 4, 8, 16};
    MemAccess a;
    a.bytes = kSizes[rng() % 5];
    a.mask = rng() % 4 == 0 ? uint32_t(rng()) : 0xffffffffu;
    const uint64_t stride = rng() % 3 == 0 ? 0 : a.bytes * (1 + rng() % 3);
    const uint64_t spread = rng() % 4 == 0 ? 512 : 0;  // some lanes elsewhere
    for (uint32_t lane = 0; lane < 32; ++lane) {
      const uint64_t at = lane * stride + (spread && rng() % 8 == 0 ? rng() % spread : 0);
      a.addr[lane] = rng() % 16 == 0 ? at + 2 : at / a.bytes * a.bytes;  // a few straddle
    }
    std::map<uint32_t, std::vector<uint64_t>> words;
    for (uint32_t lane = 0; lane < 32; ++lane) {
      if (!(a.mask >> lane & 1)) continue;
      for (uint64_t w = a.addr[lane] / width; w <= (a.addr[lane] + a.bytes - 1) / width; ++w) {
        auto& in_bank = words[uint32_t(w % banks)];
        if (std::find(in_bank.begin(), in_bank.end(), w) == in_bank.end()) in_bank.push_back(w);
      }
    }
    uint32_t expected = 1;
    for (const auto& [bank, list] : words) expected = std::max(expected, uint32_t(list.size()));
    ASSERT_EQ(shared_bank_cycles(a, banks, width), expected) << "trial " << trial;
  }
}

}  // namespace

namespace {

TEST(Coalescer, SameAddressAtomicsCountTheMostUpdatedAddressPerLine) {
  // Lanes 0-19 update 0x1000, lanes 20-23 0x1004, lanes 24-31 one address in
  // the next line each but lanes 28-31, which share 0x1090.
  MemAccess a;
  a.mask = 0xffffffffu;
  a.bytes = 4;
  a.is_atomic = true;
  for (uint32_t lane = 0; lane < 32; ++lane)
    a.addr[lane] = lane < 20 ? 0x1000 : lane < 24 ? 0x1004 : lane < 28 ? 0x1080 + 4 * (lane - 24) : 0x1090;
  std::vector<LineAccess> lines;
  coalesce(a, 128, 32, lines);
  ASSERT_EQ(lines.size(), 2u);
  tlmgpu::memory::count_same_address_atomics(a, 128, lines);
  EXPECT_EQ(lines[0].atomic_same_address_ops, 20u);
  EXPECT_EQ(lines[0].atomic_address, 0x1000u);
  EXPECT_EQ(lines[1].atomic_same_address_ops, 4u);
  EXPECT_EQ(lines[1].atomic_address, 0x1090u);
  // Inactive lanes do not count.
  a.mask = 0x000000ffu;
  coalesce(a, 128, 32, lines);
  tlmgpu::memory::count_same_address_atomics(a, 128, lines);
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0].atomic_same_address_ops, 8u);
}

TEST(Coalescer, StoresMarkTheUnitsTheyWriteWhole) {
  // 32 lanes x 4 bytes from 0x2010: bytes 0x2010..0x208f, over two lines.
  // Line 0x2000: units 1, 2, 3 whole, unit 0 in part; line 0x2080: unit 0 in part.
  MemAccess a;
  a.mask = 0xffffffffu;
  a.bytes = 4;
  a.is_store = true;
  for (uint32_t lane = 0; lane < 32; ++lane) a.addr[lane] = 0x2010 + 4 * lane;
  std::vector<LineAccess> lines;
  coalesce(a, 128, 32, lines);
  ASSERT_EQ(lines.size(), 2u);
  tlmgpu::memory::mark_fully_written_units(a, 128, lines);
  EXPECT_EQ(lines[0].sector_mask, 0xfu);
  EXPECT_EQ(lines[0].full_mask, 0xeu);
  EXPECT_EQ(lines[1].sector_mask, 0x1u);
  EXPECT_EQ(lines[1].full_mask, 0x0u);
  // An inactive lane leaves a hole in its unit.
  a.mask = 0xffffffffu & ~(1u << 10);  // lane 10 writes 0x2038..0x203b (unit 1)
  coalesce(a, 128, 32, lines);
  tlmgpu::memory::mark_fully_written_units(a, 128, lines);
  EXPECT_EQ(lines[0].full_mask, 0xcu);
}

}  // namespace
