// The issue stage's scheduler-view cache on its own: what a warp's entry
// says (ready, waiting on the scoreboard, on a busy collector, on an empty or
// undecoded buffer, at a barrier, finished), the summary masks, that an
// entry is refreshed only when its warp was marked (or its head decoded
// since), and that a view is rebuilt in slot order when its warps change.
#include <gtest/gtest.h>

#include <vector>

#include "model/sm/scheduler_view_cache.h"
#include "sm_stage_test_support.h"

namespace tlmgpu::sm {
namespace {

using schedulers::WarpWait;

struct Fixture {
  Fixture()
      : collectors(test::one_collector_per_class(1)), warps(4), cache(0, "sm0", 1, warps, collectors, pipes) {
    // PC 0: r2 = r0 + r1 (SP); PC 1: reads r2; PC 2: a trace instruction on the DP pipe.
    InstructionTiming add;
    add.src[add.num_src++] = 0;
    add.src[add.num_src++] = 1;
    add.dst[add.num_dst++] = 2;
    InstructionTiming use = add;
    use.src[0] = 2;
    use.dst[0] = 3;
    InstructionTiming traced;
    traced.pipe = Pipe::Dp;
    traced.fixed_latency = 10;
    traced.fixed_interval = 4;
    timing = {add, use, traced};
    cache.begin_launch(&timing);
  }
  /// Warp `slot` is live with `pc` at its buffer's head, decoded at `ready`.
  void live(uint32_t slot, uint32_t pc, uint64_t ready = 0) {
    WarpSlot& w = warps[slot];
    w = WarpSlot{};
    w.active = true;
    w.age = slot;
    w.scoreboard.reset(8);
    w.push_instruction(pc, ready);
    cache.mark(slot);
  }
  WarpWait wait(uint32_t index) const { return cache.view(0).warps[index].wait; }

  OperandCollectors collectors;
  ExecutionPipes pipes;
  std::vector<WarpSlot> warps;
  std::vector<InstructionTiming> timing;
  SchedulerViewCache cache;
};

TEST(SmSchedulerViewCache, ADecodedHeadIsReadyWhileItsCollectorClassHasAFreeCollector) {
  Fixture f;
  f.live(0, 0);
  f.cache.update_view(0, 0b1, 5);
  const schedulers::SchedulerView& v = f.cache.view(0);
  ASSERT_EQ(v.warps.size(), 1u);
  EXPECT_EQ(v.warps[0].slot, 0u);
  EXPECT_EQ(v.warps[0].head_pc, 0u);
  EXPECT_EQ(f.wait(0), WarpWait::Ready);
  EXPECT_EQ(v.ready, 0b1u);
  EXPECT_EQ(f.cache.unit_waiters(), 0b1u);  // ready once an SP collector is free
  f.collectors.claim(0, kSpCollector, 0, 3, 0);  // the only SP collector is busy now
  f.cache.update_view(0, 0b1, 6);               // no mark needed: units are judged every look
  EXPECT_EQ(f.wait(0), WarpWait::UnitBusy);
  EXPECT_EQ(v.ready, 0u);
  EXPECT_EQ(v.unit_busy, 0b1u);
}

TEST(SmSchedulerViewCache, AWarpWaitsOnTheScoreboardUntilMarkedAfterItsWriteback) {
  Fixture f;
  f.live(1, 1);
  f.warps[1].scoreboard.set_pending(2);  // PC 1 reads r2, still being written
  f.cache.update_view(0, 0b10, 5);
  EXPECT_EQ(f.wait(0), WarpWait::Scoreboard);
  EXPECT_TRUE(f.cache.waits_on_scoreboard(1));
  EXPECT_EQ(f.cache.view(0).scoreboard, 0b1u);  // by view position
  f.warps[1].scoreboard.clear_pending(2);
  f.cache.update_view(0, 0b10, 6);
  EXPECT_EQ(f.wait(0), WarpWait::Scoreboard) << "an unmarked warp's entry is kept";
  f.cache.mark(1);
  f.cache.update_view(0, 0b10, 7);
  EXPECT_EQ(f.wait(0), WarpWait::Ready);
  EXPECT_FALSE(f.cache.waits_on_scoreboard(1));
  EXPECT_FALSE(f.cache.dirty(1));
}

TEST(SmSchedulerViewCache, AnUndecodedHeadIsSeenOnceDecodedWithoutAMark) {
  Fixture f;
  f.live(0, 1, 10);  // decoded at cycle 10
  f.cache.update_view(0, 0b1, 8);
  EXPECT_EQ(f.wait(0), WarpWait::EmptyBuffer);
  EXPECT_EQ(f.cache.view(0).warps[0].head_pc, schedulers::WarpView{}.head_pc);
  f.cache.update_view(0, 0b1, 10);
  EXPECT_EQ(f.wait(0), WarpWait::Ready);
  EXPECT_EQ(f.cache.view(0).warps[0].head_pc, 1u);
}

TEST(SmSchedulerViewCache, BarrierMembarAndFinishedWarpsAndTraceInstructionsPipes) {
  Fixture f;
  f.live(0, 0);
  f.live(1, 0);
  f.live(2, 0);
  f.live(3, 2);
  f.warps[0].at_barrier = true;
  f.warps[1].membar_wait = true;
  f.warps[2].finished = true;
  f.pipes.occupy_fixed(0, Pipe::Dp, 0, 4);
  f.cache.update_view(0, 0b1111, 2);
  EXPECT_EQ(f.wait(0), WarpWait::Barrier);
  EXPECT_EQ(f.wait(1), WarpWait::Membar);
  EXPECT_EQ(f.wait(2), WarpWait::Finished);
  EXPECT_EQ(f.wait(3), WarpWait::UnitBusy);  // its pipe accepts from cycle 4
  f.cache.update_view(0, 0b1111, 4);
  EXPECT_EQ(f.wait(3), WarpWait::Ready);
  EXPECT_EQ(f.cache.view(0).ready, 0b1000u);
}

TEST(SmSchedulerViewCache, TheViewIsRebuiltInSlotOrderWhenItsWarpsChange) {
  Fixture f;
  f.live(2, 0);
  f.cache.update_view(0, 0b100, 1);
  f.live(0, 1);
  f.warps[0].scoreboard.set_pending(2);
  f.cache.update_view(0, 0b101, 2);
  const schedulers::SchedulerView& v = f.cache.view(0);
  ASSERT_EQ(v.warps.size(), 2u);
  EXPECT_EQ(v.warps[0].slot, 0u);
  EXPECT_EQ(v.warps[1].slot, 2u);
  EXPECT_EQ(v.slot_order_members, 0b101u);
  EXPECT_EQ(v.slot_index[2], 1);
  EXPECT_EQ(v.scoreboard, 0b01u);
  EXPECT_EQ(v.ready, 0b10u);
  f.cache.clear(0);
  EXPECT_TRUE(v.warps.empty());
  f.cache.update_view(0, 0b100, 3);  // rebuilt after a clear
  ASSERT_EQ(v.warps.size(), 1u);
  EXPECT_EQ(v.warps[0].slot, 2u);
}

TEST(SmSchedulerViewCache, UnderSwasAWarpWithAMissOutstandingIsSuspended) {
  Fixture f;
  f.cache.set_fetch_with_issue(true);
  f.live(0, kNopPc);
  f.warps[0].fetch_pending = true;
  f.cache.update_view(0, 0b1, 3);
  EXPECT_EQ(f.wait(0), WarpWait::EmptyBuffer);
  f.warps[0].fetch_pending = false;
  f.cache.mark(0);
  f.cache.update_view(0, 0b1, 4);
  EXPECT_EQ(f.wait(0), WarpWait::Ready);  // a NOP needs no unit
  EXPECT_EQ(f.cache.unit_waiters(), 0u);
}

}  // namespace
}  // namespace tlmgpu::sm
