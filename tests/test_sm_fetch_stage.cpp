// The SM's fetch stage on its own, against a stand-in L1I: line fetches
// filling the instruction buffer when answered, hits told from misses,
// flushes dropping stale answers, refused fetches and their skipped retries,
// per-instruction fetch, and SWaS's fetch at issue.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "memory/memory_interfaces.h"
#include "model/sm/fetch_stage.h"
#include "sm_stage_test_support.h"

namespace tlmgpu::sm {
namespace {

using test::StandInWarp;

/// Takes every fetch (unless refusing); a hit is answered at once, as the L1I does.
class StandInL1i : public memory::CacheAccessIf {
 public:
  FetchStage* stage = nullptr;
  bool accept = true, hit = false;
  uint32_t hit_latency = 2;
  uint64_t release_cycle = FetchStage::kNever;
  std::vector<memory::LineAccess> taken;
  std::vector<std::pair<uint64_t, uint64_t>> skipped;
  bool try_access(const memory::LineAccess& a, uint64_t cycle) override {
    if (!accept) return false;
    taken.push_back(a);
    if (hit) stage->note_answer(cycle + hit_latency);
    return true;
  }
  uint64_t next_release_cycle() const override { return release_cycle; }
  void count_skipped_retries(uint64_t refused_at, uint64_t cycle) override { skipped.push_back({refused_at, cycle}); }
};

core::GpuConfig config() {
  core::GpuConfig c;
  c.sm.max_warps = 4;
  c.sm.ibuffer_depth = 4;
  c.sm.decode_latency = 1;
  c.sm.fetch_width = 1;
  c.sm.fetch_instructions = 0;
  c.sm.fetch_policy = "lrr";
  c.l1i.line_bytes = 64;  // 8 instructions
  c.l1i.hit_latency = 2;
  return c;
}

struct Fixture {
  explicit Fixture(const core::GpuConfig& c = config()) : warps(c.sm.max_warps), fetch(c, warps) {
    l1i.stage = &fetch;
    fetch.connect(&l1i);
  }
  /// Warp `slot` starts at PC `pc` with code up to `end`.
  void start(uint32_t slot, uint32_t pc, uint32_t end, bool prefilled = false) {
    executors[slot].at = pc;
    WarpSlot& w = warps[slot];
    w = WarpSlot{};
    w.warp = &executors[slot];
    w.active = true;
    w.age = slot;
    w.fetch_pc = pc;
    w.code_end = end;
    fetch.warp_started(slot, 0, prefilled);
  }
  std::vector<WarpSlot> warps;
  std::array<StandInWarp, 4> executors;
  StandInL1i l1i;
  FetchStage fetch;
};

TEST(SmFetchStage, ALineFetchFillsTheBufferToTheLineEndWhenAnswered) {
  Fixture f;
  f.start(0, 6, 40);
  EXPECT_TRUE(f.fetch.fetch(10));
  ASSERT_EQ(f.l1i.taken.size(), 1u);
  EXPECT_EQ(f.l1i.taken[0].line_addr, FetchStage::kCodeBase);  // PC 6 * 8 is in the first 64-byte line
  EXPECT_EQ(f.l1i.taken[0].kind, memory::AccessKind::InstructionFetch);
  EXPECT_TRUE(FetchStage::is_fetch(f.l1i.taken[0].id));
  EXPECT_EQ(FetchStage::slot_of(f.l1i.taken[0].id), 0u);
  const WarpSlot& w = f.warps[0];
  EXPECT_TRUE(w.fetch_pending);
  EXPECT_TRUE(w.fetch_missed);               // not answered inside try_access
  EXPECT_EQ(w.oracle_blocked_until, FetchStage::kNever);
  EXPECT_FALSE(f.fetch.fetch(11));           // one fetch outstanding per warp
  uint64_t decoded_at = 0;
  ASSERT_TRUE(f.fetch.answer(f.l1i.taken[0].id, 30, decoded_at));
  EXPECT_EQ(decoded_at, 31u);
  ASSERT_EQ(w.ib_count, 2);  // PCs 6 and 7: the line ends there
  EXPECT_EQ(w.ibuffer[0].pc, 6u);
  EXPECT_EQ(w.ibuffer[1].pc, 7u);
  EXPECT_EQ(w.ibuffer[1].ready_cycle, 31u);
  EXPECT_EQ(w.fetch_pc, 8u);
  EXPECT_EQ(w.oracle_blocked_until, 30u + 1 + 2);
  EXPECT_TRUE(f.fetch.fetch(32));  // the next line
  EXPECT_EQ(f.l1i.taken.back().line_addr, FetchStage::kCodeBase + 64);
}

TEST(SmFetchStage, AHitIsAnsweredInsideTheRequest) {
  Fixture f;
  f.l1i.hit = true;
  f.start(1, 0, 40);
  EXPECT_TRUE(f.fetch.fetch(5));
  EXPECT_FALSE(f.warps[1].fetch_missed);
  EXPECT_NE(f.warps[1].oracle_blocked_until, FetchStage::kNever);
}

TEST(SmFetchStage, AFlushEmptiesTheBufferAndDropsTheAnswerStillToCome) {
  Fixture f;
  f.start(0, 0, 40, true);  // prefilled: PCs 0..3
  ASSERT_EQ(f.warps[0].ib_count, 4);
  f.warps[0].pop_instruction();
  f.warps[0].pop_instruction();
  EXPECT_TRUE(f.fetch.fetch(3));  // room for two
  const uint64_t stale = f.l1i.taken.back().id;
  f.executors[0].at = 20;  // a taken branch
  f.fetch.flush(0, 7);
  EXPECT_EQ(f.warps[0].ib_count, 0);
  EXPECT_EQ(f.warps[0].fetch_pc, 20u);
  EXPECT_FALSE(f.warps[0].fetch_pending);
  EXPECT_EQ(f.fetch.flushes(), 1u);
  uint64_t decoded_at = 0;
  EXPECT_FALSE(f.fetch.answer(stale, 9, decoded_at));
  EXPECT_EQ(decoded_at, FetchStage::kNever);
  EXPECT_EQ(f.warps[0].ib_count, 0);
  EXPECT_TRUE(f.fetch.fetch(8));  // from the new PC at once
  EXPECT_EQ(f.l1i.taken.back().line_addr, FetchStage::kCodeBase + 20 * 8 / 64 * 64);
}

TEST(SmFetchStage, ARefusedFetchWaitsForAnMshrAndReportsItsSkippedRetries) {
  Fixture f;
  f.start(0, 0, 40);
  f.l1i.accept = false;
  f.l1i.release_cycle = 25;
  EXPECT_FALSE(f.fetch.fetch(10));
  EXPECT_EQ(f.fetch.next_retry_cycle(), 25u);
  EXPECT_TRUE(f.fetch.waiting_for_release());  // the SM counts as waiting on memory
  f.l1i.accept = true;
  EXPECT_TRUE(f.fetch.fetch(25));
  EXPECT_FALSE(f.fetch.waiting_for_release());
  ASSERT_EQ(f.l1i.skipped.size(), 1u);
  EXPECT_EQ(f.l1i.skipped[0], std::make_pair(uint64_t(10), uint64_t(25)));
  EXPECT_EQ(f.fetch.next_retry_cycle(), FetchStage::kNever);
}

TEST(SmFetchStage, PerInstructionFetchBuffersEntriesThatDecodeWhenAnswered) {
  core::GpuConfig c = config();
  c.sm.fetch_instructions = 2;
  Fixture f(c);
  f.l1i.hit = true;
  f.start(0, 0, 40);
  EXPECT_TRUE(f.fetch.fetch(1));
  const WarpSlot& w = f.warps[0];
  ASSERT_EQ(w.ib_count, 2);
  EXPECT_GT(w.ibuffer[0].ready_cycle, 1000u);  // not answered yet
  EXPECT_FALSE(w.fetch_pending);               // a hit: the next fetch may follow at once
  EXPECT_TRUE(f.fetch.fetch(2));
  EXPECT_EQ(w.ib_count, 4);
  uint64_t decoded_at = 0;
  ASSERT_TRUE(f.fetch.answer(f.l1i.taken[0].id, 3, decoded_at));
  EXPECT_EQ(decoded_at, 4u);
  EXPECT_EQ(w.ibuffer[0].ready_cycle, 4u);
  EXPECT_EQ(w.ibuffer[1].ready_cycle, 4u);
  EXPECT_GT(w.ibuffer[2].ready_cycle, 1000u);  // the second request's
}

TEST(SmFetchStage, SwasBuffersStartFullOfNopsAndIssueFetchesOneEntry) {
  Fixture f;
  f.fetch.set_fetch_with_issue(true);
  f.start(2, 0, 40);
  WarpSlot& w = f.warps[2];
  ASSERT_EQ(w.ib_count, 4);
  EXPECT_EQ(w.ibuffer[3].pc, kNopPc);
  EXPECT_FALSE(f.fetch.fetch_for_issue(2, 5));  // full: nothing to fetch
  w.pop_instruction();
  f.l1i.hit = true;
  EXPECT_TRUE(f.fetch.fetch_for_issue(2, 5));
  EXPECT_EQ(w.buffered(3).pc, 0u);
  EXPECT_EQ(w.buffered(3).ready_cycle, 5u + 2 + 1);
  w.pop_instruction();
  f.l1i.hit = false;  // a miss: a NOP goes in and the warp is suspended
  EXPECT_TRUE(f.fetch.fetch_for_issue(2, 6));
  EXPECT_EQ(w.buffered(3).pc, kNopPc);
  EXPECT_TRUE(w.fetch_pending);
  uint64_t decoded_at = 0;
  ASSERT_TRUE(f.fetch.answer(f.l1i.taken.back().id, 40, decoded_at));
  EXPECT_FALSE(w.fetch_pending);
  EXPECT_EQ(decoded_at, FetchStage::kNever);
  // A flush turns the wrong path into NOPs instead of emptying the buffer.
  f.executors[2].at = 30;
  f.fetch.flush(2, 41);
  EXPECT_EQ(w.ib_count, 4);
  for (uint32_t k = 0; k < 4; ++k) EXPECT_EQ(w.buffered(k).pc, kNopPc);
  EXPECT_EQ(f.fetch.flushes(), 1u);  // PC 0 was a real instruction
  EXPECT_EQ(w.fetch_pc, 30u);
}

}  // namespace
}  // namespace tlmgpu::sm
