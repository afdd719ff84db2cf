// The SM's LD/ST unit on its own, against stand-in caches: shared-memory bank
// conflicts, coalesced lines queued one per cycle to the L1D or the texture
// cache, refused lines and their skipped retries, atomics, and the
// memory-operation table completing an instruction with its last line.
#include <gtest/gtest.h>

#include <vector>

#include "memory/memory_interfaces.h"
#include "model/sm/load_store_unit.h"

namespace tlmgpu::sm {
namespace {

using memory::AccessKind;
using memory::LineAccess;

/// Takes (or refuses) what it is offered and records it.
class StandInCache : public memory::CacheAccessIf {
 public:
  bool accept = true;
  uint64_t release_cycle = LoadStoreUnit::kNever;
  std::vector<std::pair<LineAccess, uint64_t>> taken;
  std::vector<std::pair<uint64_t, uint64_t>> skipped;  // (refused_at, cycle)
  bool try_access(const LineAccess& a, uint64_t cycle) override {
    if (!accept) return false;
    taken.push_back({a, cycle});
    return true;
  }
  uint64_t next_release_cycle() const override { return release_cycle; }
  void count_skipped_retries(uint64_t refused_at, uint64_t cycle) override { skipped.push_back({refused_at, cycle}); }
};

exec::MemAccess access(ptx::StateSpace space, uint64_t base, uint64_t stride) {
  exec::MemAccess a;
  a.space = space;
  a.mask = 0xffffffffu;
  a.bytes = 4;
  for (uint32_t lane = 0; lane < ptx::kWarpSize; ++lane) a.addr[lane] = base + lane * stride;
  return a;
}

core::GpuConfig config() {
  core::GpuConfig c;
  c.sm.shared_latency = 20;
  c.sm.shared_banks = 32;
  c.sm.sp.latency = 6;
  return c;
}

TEST(SmLoadStoreUnit, SharedAccessesCostTheirBankConflictDegree) {
  LoadStoreUnit lsu(config());
  uint64_t pipe_free = 0;
  // Consecutive words: one cycle.
  EXPECT_EQ(lsu.start(access(ptx::StateSpace::Shared, 0, 4), false, 0, 0, 100, 8, pipe_free), 100u + 20 - 1 + 1);
  EXPECT_EQ(pipe_free, 101u);
  // A 128-byte stride puts every lane in bank 0: 32 cycles.
  EXPECT_EQ(lsu.start(access(ptx::StateSpace::Shared, 0, 128), false, 0, 0, 200, 8, pipe_free), 200u + 20 + 32 - 1);
  EXPECT_EQ(pipe_free, 232u);
  EXPECT_EQ(lsu.shared_accesses(), 2u);
  EXPECT_EQ(lsu.shared_bank_cycles(), 33u);
  EXPECT_FALSE(lsu.waiting());
}

TEST(SmLoadStoreUnit, ConstantAndParamAccessesAreConstantCacheHits) {
  LoadStoreUnit lsu(config());
  uint64_t pipe_free = 7;
  EXPECT_EQ(lsu.start(access(ptx::StateSpace::Const, 0, 0), false, 0, 0, 50, 8, pipe_free), 56u);
  EXPECT_EQ(lsu.start(access(ptx::StateSpace::Param, 0, 4), false, 0, 0, 50, 8, pipe_free), 56u);
  EXPECT_EQ(pipe_free, 7u);
  EXPECT_FALSE(lsu.waiting());
}

TEST(SmLoadStoreUnit, GlobalLinesGoToTheL1dOnePerCycleAndCompleteWithTheLast) {
  LoadStoreUnit lsu(config());
  StandInCache l1d, tex;
  uint64_t pipe_free = 0;
  // Lanes 64 bytes apart: 16 lines of 128 bytes.
  ASSERT_EQ(lsu.start(access(ptx::StateSpace::Global, 0x10000, 64), false, 5, 42, 10, 8, pipe_free),
            LoadStoreUnit::kQueued);
  EXPECT_TRUE(lsu.waiting());
  for (uint64_t cycle = 11; cycle < 11 + 16; ++cycle) EXPECT_TRUE(lsu.send_lines(cycle, l1d, tex));
  EXPECT_FALSE(lsu.send_lines(30, l1d, tex));
  ASSERT_EQ(l1d.taken.size(), 16u);
  EXPECT_TRUE(tex.taken.empty());
  const uint64_t id = l1d.taken[0].first.id;
  for (size_t i = 0; i < l1d.taken.size(); ++i) {
    const LineAccess& l = l1d.taken[i].first;
    EXPECT_EQ(l1d.taken[i].second, 11 + i);
    EXPECT_EQ(l.line_addr, 0x10000u + i * 128);
    EXPECT_EQ(l.kind, AccessKind::Load);
    EXPECT_EQ(l.warp, 5u);
    EXPECT_EQ(l.id, id);
  }
  // Answers in any order: the instruction completes at the latest.
  for (size_t i = 0; i < 15; ++i) {
    uint64_t cycle = i == 3 ? 400 : 300 + i;
    EXPECT_FALSE(lsu.line_answered(id, cycle));
  }
  uint64_t cycle = 350;
  ASSERT_TRUE(lsu.line_answered(id, cycle));
  EXPECT_EQ(cycle, 400u);
  EXPECT_TRUE(lsu.waiting());
  EXPECT_EQ(lsu.retire(id), std::make_pair(5u, 42u));
  EXPECT_FALSE(lsu.waiting());
  uint64_t stale = 500;
  EXPECT_FALSE(lsu.line_answered(id, stale));  // a retired entry's answer
}

// Line masks count 32-byte units whatever the L1's sector size (Fermi's L1
// has 128-byte sectors): a full-warp store of words covers all four units of
// its line, a store of every other 32-byte chunk two.
TEST(SmLoadStoreUnit, LineMasksCount32ByteUnitsWhateverTheL1SectorSize) {
  core::GpuConfig c = config();
  c.l1d.line_bytes = 128;
  c.l1d.sector_bytes = 128;
  LoadStoreUnit lsu(c);
  StandInCache l1d, tex;
  uint64_t pipe_free = 0;
  exec::MemAccess full = access(ptx::StateSpace::Global, 0x1000, 4);
  full.is_store = true;
  ASSERT_EQ(lsu.start(full, false, 0, 0, 0, 8, pipe_free), LoadStoreUnit::kQueued);
  exec::MemAccess halves = access(ptx::StateSpace::Global, 0x2000, 0);
  halves.is_store = true;
  for (uint32_t lane = 0; lane < ptx::kWarpSize; ++lane) halves.addr[lane] = 0x2000 + (lane % 2) * 64;
  ASSERT_EQ(lsu.start(halves, false, 1, 0, 0, 8, pipe_free), LoadStoreUnit::kQueued);
  EXPECT_TRUE(lsu.send_lines(1, l1d, tex));
  EXPECT_TRUE(lsu.send_lines(2, l1d, tex));
  ASSERT_EQ(l1d.taken.size(), 2u);
  EXPECT_EQ(l1d.taken[0].first.sector_mask, 0xfu);
  EXPECT_EQ(l1d.taken[1].first.sector_mask, 0x5u);
}

TEST(SmLoadStoreUnit, TexturesUseTheirCacheAndAtomicsBypassTheL1) {
  LoadStoreUnit lsu(config());
  StandInCache l1d, tex;
  uint64_t pipe_free = 0;
  ASSERT_EQ(lsu.start(access(ptx::StateSpace::Global, 0x2000, 4), true, 1, 3, 0, 8, pipe_free),
            LoadStoreUnit::kQueued);
  exec::MemAccess atom = access(ptx::StateSpace::Global, 0x4000, 0);  // every lane the same word
  atom.is_atomic = true;
  ASSERT_EQ(lsu.start(atom, false, 2, 4, 0, 8, pipe_free), LoadStoreUnit::kQueued);
  EXPECT_TRUE(lsu.send_lines(1, l1d, tex));
  ASSERT_EQ(tex.taken.size(), 1u);
  ASSERT_EQ(l1d.taken.size(), 1u);
  EXPECT_EQ(tex.taken[0].first.kind, AccessKind::Load);
  EXPECT_EQ(l1d.taken[0].first.kind, AccessKind::Atomic);
  EXPECT_TRUE(l1d.taken[0].first.bypass_l1);
  EXPECT_NE(tex.taken[0].first.id, l1d.taken[0].first.id);  // two table entries
  exec::MemAccess store = access(ptx::StateSpace::Local, 0x8000, 4);
  store.is_store = true;
  ASSERT_EQ(lsu.start(store, false, 2, 5, 2, 8, pipe_free), LoadStoreUnit::kQueued);
  lsu.send_lines(2, l1d, tex);
  EXPECT_EQ(l1d.taken.back().first.kind, AccessKind::Store);
}

TEST(SmLoadStoreUnit, ARefusedLineWaitsAndItsSkippedRetriesAreReported) {
  LoadStoreUnit lsu(config());
  StandInCache l1d, tex;
  uint64_t pipe_free = 0;
  lsu.start(access(ptx::StateSpace::Global, 0, 4), false, 0, 0, 0, 8, pipe_free);
  EXPECT_EQ(lsu.next_retry_cycle(l1d, tex), LoadStoreUnit::kNever);  // (the stand-in frees nothing yet)
  l1d.accept = false;
  l1d.release_cycle = 40;
  EXPECT_FALSE(lsu.send_lines(10, l1d, tex));
  EXPECT_EQ(lsu.next_retry_cycle(l1d, tex), 40u);
  EXPECT_TRUE(l1d.skipped.empty());
  l1d.accept = true;
  EXPECT_TRUE(lsu.send_lines(40, l1d, tex));
  ASSERT_EQ(l1d.skipped.size(), 1u);
  EXPECT_EQ(l1d.skipped[0], std::make_pair(uint64_t(10), uint64_t(40)));
  EXPECT_EQ(lsu.next_retry_cycle(l1d, tex), LoadStoreUnit::kNever);  // nothing queued
}

TEST(SmLoadStoreUnit, AResetForgetsThePreviousDevicesInstructions) {
  LoadStoreUnit lsu(config());
  StandInCache l1d, tex;
  uint64_t pipe_free = 0;
  lsu.start(access(ptx::StateSpace::Global, 0, 4), false, 0, 0, 0, 8, pipe_free);
  EXPECT_NE(lsu.describe("sm0"), "");
  lsu.reset();
  EXPECT_FALSE(lsu.waiting());
  EXPECT_EQ(lsu.describe("sm0"), "");
  uint64_t cycle = 5;
  EXPECT_FALSE(lsu.line_answered(0, cycle));
  EXPECT_FALSE(lsu.send_lines(1, l1d, tex));
  EXPECT_TRUE(l1d.taken.empty());
}

}  // namespace
}  // namespace tlmgpu::sm
