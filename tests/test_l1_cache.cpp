// L1 cache: hit / miss latency, sector misses, MSHR merging and reservation
// fails, LRU replacement, Fermi write policy, atomics bypassing the L1.
#include <gtest/gtest.h>

#include <memory>

#include "memory/l1_cache.h"
#include "memory_test_support.h"

namespace {

using namespace tlmgpu_memtest;
using tlmgpu::memory::L1Cache;

constexpr uint32_t kMemLatency = 20;

// 1 KB, 2 ways, 128-byte lines of 32-byte sectors: 4 sets, lines 512 bytes
// apart share a set. 4 MSHRs of at most 2 requests each.
tlmgpu::core::CacheConfig small_l1() { return {1024, 2, 128, 32, 1, 4, 2, false}; }

struct Bench {
  L1Cache cache;
  TestSm sm{"sm"};
  TestMemory mem;
  explicit Bench(const tlmgpu::core::CacheConfig& config = small_l1())
      : cache("l1d", config, period()), mem("mem", kMemLatency) {
    sm.cache.bind(cache.access_export);
    cache.response_port.bind(sm);
    cache.socket.bind(mem.socket);
  }
  double stat(const char* name) const {
    tlmgpu::core::StatMap m;
    m = tlmgpu::core::values_of(cache);
    return m.at(name);
  }
};

// A miss reaches memory the cycle after the access and completes hit_latency
// cycles after the data arrives.
constexpr uint64_t miss_done(uint64_t cycle) { return cycle + 1 + kMemLatency + 1; }

TEST(L1Cache, HitVsMissLatencyAndSectorMiss) {
  Bench b;
  b.sm.script = {{10, line_access(1, AccessKind::Load, 0x0, 0x3)},
                 {40, line_access(2, AccessKind::Load, 0x0, 0xf)},  // sectors 2, 3 missing
                 {80, line_access(3, AccessKind::Load, 0x0, 0xf)},
                 {81, line_access(4, AccessKind::Load, 0x40, 0x4)}};
  run_cycles(200);
  EXPECT_EQ(b.sm.done.at(1), miss_done(10));
  EXPECT_EQ(b.sm.done.at(2), miss_done(40));
  EXPECT_EQ(b.sm.done.at(3), 81u);
  EXPECT_EQ(b.sm.done.at(4), 82u);
  ASSERT_EQ(b.mem.seen.size(), 2u);
  EXPECT_EQ(b.mem.seen[0].cycle, 11u);
  EXPECT_EQ(b.mem.seen[0].mask, 0x3u);
  EXPECT_EQ(b.mem.seen[1].mask, 0xcu);
  EXPECT_EQ(b.stat("accesses"), 4);
  EXPECT_EQ(b.stat("hits"), 2);
  EXPECT_EQ(b.stat("misses"), 2);
  EXPECT_EQ(b.sm.not_in_future, 0);
  EXPECT_EQ(b.sm.duplicates, 0);
}

TEST(L1Cache, MshrMergeSendsOneRequestAndCompletesBoth) {
  Bench b;
  b.sm.script = {{10, line_access(1, AccessKind::Load, 0x1000, 0x1)},
                 {12, line_access(2, AccessKind::Load, 0x1000, 0x1)}};
  run_cycles(100);
  ASSERT_EQ(b.mem.seen.size(), 1u);
  EXPECT_EQ(b.sm.done.at(1), miss_done(10));
  EXPECT_EQ(b.sm.done.at(2), miss_done(10));
  EXPECT_EQ(b.stat("mshr_merges"), 1);
  EXPECT_EQ(b.stat("misses"), 1);
}

TEST(L1Cache, MshrsFullAndMergeSlotsFullAreReservationFails) {
  Bench b;
  b.sm.script = {{10, line_access(1, AccessKind::Load, 0x0000)},
                 {10, line_access(2, AccessKind::Load, 0x0080)},
                 {10, line_access(3, AccessKind::Load, 0x0100)},
                 {10, line_access(4, AccessKind::Load, 0x0180)},
                 {11, line_access(5, AccessKind::Load, 0x0200)},  // 5th line: no MSHR
                 {11, line_access(6, AccessKind::Load, 0x0000)},  // merges (2nd request of the entry)
                 {11, line_access(7, AccessKind::Load, 0x0000)},  // entry holds 2 requests already
                 {11, line_access(8, AccessKind::Store, 0x0300)}, // a store allocates nothing: accepted
                 {60, line_access(9, AccessKind::Load, 0x0200)}}; // after the fills: accepted
  run_cycles(200);
  const std::vector<bool> expected = {true, true, true, true, false, true, false, true, true};
  EXPECT_EQ(b.sm.accepted, expected);
  EXPECT_EQ(b.stat("reservation_fails"), 2);
  EXPECT_EQ(b.sm.done.count(5), 0u);
  EXPECT_EQ(b.sm.done.at(6), miss_done(10));
  EXPECT_EQ(b.sm.done.at(9), miss_done(60));
  EXPECT_EQ(b.cache.outstanding(), 0u);
}

// The requester learns, as soon as the cache does, the cycle an answer frees
// its MSHR: an SM sleeps on a refused line until then (release_at).
TEST(L1Cache, AnAnswerTellsTheRequesterWhenItsMshrFrees) {
  tlmgpu::core::CacheConfig one_mshr = small_l1();
  one_mshr.mshrs = 1;
  Bench b(one_mshr);
  b.sm.script = {{10, line_access(1, AccessKind::Load, 0x0000)},
                 {11, line_access(2, AccessKind::Load, 0x0080)},   // no MSHR
                 {20, line_access(3, AccessKind::Atomic, 0x0100)},  // needs none: bypasses the cache
                 {miss_done(10) - 2, line_access(4, AccessKind::Load, 0x0080)},
                 {miss_done(10) - 1, line_access(5, AccessKind::Load, 0x0080)}};
  run_cycles(200);
  // The fill arrives hit_latency before the data completes the load.
  const uint64_t freed = miss_done(10) - 1;
  ASSERT_FALSE(b.sm.releases.empty());
  EXPECT_EQ(b.sm.releases.front(), freed);
  EXPECT_EQ(b.sm.releases.size(), 3u);  // one per answer below the cache: load 1, the atomic, load 5
  const std::vector<bool> expected = {true, false, true, false, true};
  EXPECT_EQ(b.sm.accepted, expected);
  EXPECT_EQ(b.sm.releases.back(), miss_done(freed) - 1);
}

// A Fermi L1 has whole-line (128-byte) sectors, which widen a load's miss to
// the line; what bypasses the L1 keeps exactly the 32-byte units its lanes
// touch, so a full-warp store writes the whole line and a scattered atomic
// carries one unit, not a line, across the interconnect.
TEST(L1Cache, StoresAndAtomicsKeepTheirOwnUnitsWhateverTheSectorSize) {
  tlmgpu::core::CacheConfig fermi = small_l1();
  fermi.sector_bytes = 128;
  Bench b(fermi);
  b.sm.script = {{10, line_access(1, AccessKind::Store, 0x0000, 0xf)},
                 {11, line_access(2, AccessKind::Atomic, 0x0100, 0x4)},
                 {12, line_access(3, AccessKind::Load, 0x0200, 0x2)}};
  run_cycles(200);
  ASSERT_EQ(b.mem.seen.size(), 3u);
  EXPECT_EQ(b.mem.seen[0].mask, 0xfu);
  EXPECT_EQ(b.mem.seen[1].mask, 0x4u);
  EXPECT_EQ(b.mem.seen[2].mask, 0xfu);  // the load's miss fills the whole sector
}

TEST(L1Cache, LruEvictsLeastRecentlyUsedWay) {
  Bench b;
  // A, B, C map to set 0 (512 bytes apart); the set has 2 ways.
  b.sm.script = {{10, line_access(1, AccessKind::Load, 0x000)},   // A miss
                 {40, line_access(2, AccessKind::Load, 0x200)},   // B miss
                 {70, line_access(3, AccessKind::Load, 0x000)},   // A hit: B is now LRU
                 {71, line_access(4, AccessKind::Load, 0x400)},   // C miss, evicts B on fill
                 {100, line_access(5, AccessKind::Load, 0x000)},  // A hit
                 {101, line_access(6, AccessKind::Load, 0x200)}}; // B miss again
  run_cycles(200);
  EXPECT_EQ(b.sm.done.at(3), 71u);
  EXPECT_EQ(b.sm.done.at(5), 101u);
  EXPECT_EQ(b.sm.done.at(6), miss_done(101));
  EXPECT_EQ(b.stat("evictions"), 2);  // B by C's fill, then C (filled at 92, A used at 100) by B's
  EXPECT_EQ(b.mem.seen.size(), 4u);
}

TEST(L1Cache, StoresWriteThroughWithoutAllocateAndEvictOnHit) {
  Bench b;
  b.sm.script = {{10, line_access(1, AccessKind::Store, 0x800, 0x1)},  // miss: no allocate
                 {11, line_access(2, AccessKind::Load, 0x800, 0x1)},   // still a miss
                 {40, line_access(3, AccessKind::Load, 0x800, 0x1)},   // hit after the fill
                 {41, line_access(4, AccessKind::Store, 0x800, 0x1)},  // hit: evicts the line
                 {42, line_access(5, AccessKind::Load, 0x800, 0x1)}};  // miss again
  run_cycles(200);
  ASSERT_EQ(b.mem.seen.size(), 4u);
  EXPECT_EQ(b.mem.seen[0].kind, AccessKind::Store);
  EXPECT_EQ(b.mem.seen[1].kind, AccessKind::Load);
  EXPECT_EQ(b.mem.seen[2].kind, AccessKind::Store);
  EXPECT_EQ(b.mem.seen[3].kind, AccessKind::Load);
  // A store completes when the L2's acknowledgement is back.
  EXPECT_EQ(b.sm.done.at(1), miss_done(10));
  EXPECT_EQ(b.sm.done.at(3), 41u);
  EXPECT_EQ(b.sm.done.at(5), miss_done(42));
  EXPECT_EQ(b.stat("writes"), 2);
  EXPECT_EQ(b.stat("write_evicts"), 1);
  EXPECT_EQ(b.stat("hits"), 1);
}

TEST(L1Cache, AnAllocatingL1MakesWholeWrittenSectorsValidWithoutAFetch) {
  tlmgpu::core::CacheConfig c = small_l1();
  c.write_allocate = true;
  Bench b(c);
  auto store = [](uint64_t id, uint64_t line, uint32_t mask, uint32_t full) {
    LineAccess a = line_access(id, AccessKind::Store, line, mask);
    a.full_mask = full;
    return a;
  };
  b.sm.script = {{10, store(1, 0x800, 0x3, 0x1)},                     // sector 0 whole, sector 1 in part
                 {11, line_access(2, AccessKind::Load, 0x800, 0x1)},   // hit: no fetch
                 {12, line_access(3, AccessKind::Load, 0x800, 0x2)},   // the partial sector misses
                 {13, store(4, 0xa00, 0x4, 0x0)},                       // nothing whole: no allocation
                 {14, line_access(5, AccessKind::Load, 0xa00, 0x4)},   // miss
                 {40, store(6, 0x800, 0x4, 0x4)},                       // a hit adds its whole sector
                 {41, line_access(7, AccessKind::Load, 0x800, 0x7)}};  // all three now valid
  run_cycles(200);
  EXPECT_EQ(b.sm.done.at(2), 12u);
  EXPECT_EQ(b.sm.done.at(3), miss_done(12));
  EXPECT_EQ(b.sm.done.at(5), miss_done(14));
  EXPECT_EQ(b.sm.done.at(7), 42u);
  // Every store still writes through: three stores and two fills below.
  ASSERT_EQ(b.mem.seen.size(), 5u);
  EXPECT_EQ(b.stat("write_allocations"), 1);
  EXPECT_EQ(b.stat("write_evicts"), 0);
  EXPECT_EQ(b.stat("writes"), 3);
}

TEST(L1Cache, AtomicsAndBypassingLoadsGoToL2WithoutTouchingTheLine) {
  Bench b;
  LineAccess cg = line_access(3, AccessKind::Load, 0x900, 0x1);
  cg.bypass_l1 = true;
  b.sm.script = {{10, line_access(1, AccessKind::Load, 0x900, 0x1)},
                 {40, line_access(2, AccessKind::Atomic, 0x900, 0x1)},
                 {41, cg},
                 {42, line_access(4, AccessKind::Load, 0x900, 0x1)}};
  run_cycles(200);
  ASSERT_EQ(b.mem.seen.size(), 3u);
  EXPECT_EQ(b.mem.seen[1].kind, AccessKind::Atomic);
  EXPECT_EQ(b.sm.done.at(2), miss_done(40));
  EXPECT_EQ(b.sm.done.at(3), miss_done(41));
  EXPECT_EQ(b.sm.done.at(4), 43u);  // the line is still there
  EXPECT_EQ(b.stat("bypasses"), 2);
}

TEST(L1Cache, InstructionCacheWithWholeLineSectorsFetchesTheLine) {
  Bench b({512, 2, 128, 128, 3, 2, 4, false});
  b.sm.script = {{10, line_access(1, AccessKind::InstructionFetch, 0x100, 0x1)},
                 {40, line_access(2, AccessKind::InstructionFetch, 0x100, 0xffffffffu)}};
  run_cycles(100);
  ASSERT_EQ(b.mem.seen.size(), 1u);
  EXPECT_EQ(b.mem.seen[0].mask, 0xfu);
  EXPECT_EQ(b.sm.done.at(1), 10u + 1 + kMemLatency + 3);
  EXPECT_EQ(b.sm.done.at(2), 43u);
}

}  // namespace
