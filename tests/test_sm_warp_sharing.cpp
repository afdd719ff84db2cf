// Seed 002's warp sharing as a hook of the issue stage, on its own (under
// KAWS, whose sharing is on by default): a scheduler that issued nothing of
// its own and has a free collector takes another scheduler's warp stalled on
// that scheduler's busy collector, in that scheduler's priority order, at
// most one per receiver and cycle.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "model/sm/warp_sharing.h"
#include "sm_stage_test_support.h"

namespace tlmgpu::sm {
namespace {

using schedulers::WarpWait;

struct Fixture {
  Fixture() : collectors(test::one_collector_per_class(2)), warps(4), views(0, "sm0", 2, warps, collectors, pipes) {
    schedulers::PolicyContext ctx;
    ctx.num_schedulers = 2;
    ctx.max_warps_per_scheduler = 2;
    for (uint32_t s = 0; s < 2; ++s) {
      ctx.scheduler_index = s;
      schedulers.push_back(
          std::make_unique<schedulers::WarpScheduler>(("sched" + std::to_string(s)).c_str(), "kaws", ctx));
    }
    InstructionTiming sp;  // PC 0: an SP instruction
    InstructionTiming dp;  // PC 1: a DP instruction
    dp.pipe = Pipe::Dp;
    timing = {sp, dp};
    views.begin_launch(&timing);
    sharing = std::make_unique<WarpSharing>(schedulers, warps, views, collectors);
  }
  /// Warp `slot` (scheduler slot mod 2) is live with `pc` decoded at its head.
  void live(uint32_t slot, uint32_t pc) {
    WarpSlot& w = warps[slot];
    w = WarpSlot{};
    w.active = true;
    w.age = slot;
    w.scoreboard.reset(4);
    w.push_instruction(pc, 0);
    views.mark(slot);
  }
  /// Scheduler `s` looks at its live warps `live` at `now` (and picks nothing: they wait on its collector).
  void look(uint32_t s, uint64_t live, uint64_t now) {
    views.update_view(s, live, now);
    EXPECT_EQ(schedulers[s]->select(views.view(s)), -1);
  }
  std::vector<std::pair<uint32_t, uint32_t>> share(uint64_t cycle, bool accept = true) {
    std::vector<std::pair<uint32_t, uint32_t>> issued;
    sharing->share(cycle, [&](uint32_t slot, uint32_t receiver) {
      issued.push_back({slot, receiver});
      return accept;
    });
    return issued;
  }
  uint64_t shared_sp(uint32_t s) const {
    core::StatMap m;
    m = tlmgpu::core::values_of(*schedulers[s]);
    return uint64_t(m["shared_issues_sp"]);
  }

  OperandCollectors collectors;
  ExecutionPipes pipes;
  std::vector<WarpSlot> warps;
  std::vector<InstructionTiming> timing;
  SchedulerViewCache views;
  std::vector<std::unique_ptr<schedulers::WarpScheduler>> schedulers;
  std::unique_ptr<WarpSharing> sharing;
};

TEST(SmWarpSharingHook, AnIdleSchedulerTakesAWarpStalledOnAnotherSchedulersCollector) {
  Fixture f;
  f.live(0, 0);
  f.live(2, 0);
  f.collectors.claim(0, kSpCollector, 0, 2, 0);  // scheduler 0's only SP collector is busy
  f.look(0, 0b0101, 5);
  EXPECT_EQ(f.views.view(0).warps[0].wait, WarpWait::UnitBusy);
  f.sharing->begin_cycle();
  const auto issued = f.share(5);
  ASSERT_EQ(issued.size(), 1u) << "one warp per receiver and cycle";
  EXPECT_EQ(issued[0].second, 1u);
  // The first of scheduler 0's warps in its own priority order.
  EXPECT_EQ(issued[0].first, f.views.view(0).warps[f.schedulers[0]->last_order()[0]].slot);
  EXPECT_EQ(f.shared_sp(1), 1u);
  EXPECT_EQ(f.shared_sp(0), 0u);
}

TEST(SmWarpSharingHook, NoSharingWhenTheReceiverIssuedItsOwnOrHasNoFreeCollectorOrForDp) {
  Fixture f;
  f.live(0, 0);
  f.collectors.claim(0, kSpCollector, 0, 2, 0);
  f.look(0, 0b0001, 5);
  f.sharing->begin_cycle();
  f.sharing->issued_own(1);
  EXPECT_TRUE(f.share(5).empty());
  f.sharing->begin_cycle();
  f.collectors.claim(1, kSpCollector, 0, 3, 0);  // the receiver's SP collector is busy too
  EXPECT_TRUE(f.share(6).empty());
  // A DP instruction is not shared (the paper shares SP, SFU and MEM).
  Fixture g;
  g.live(0, 1);
  g.collectors.claim(0, kDpCollector, 0, 2, 1);
  g.look(0, 0b0001, 5);
  EXPECT_EQ(g.views.view(0).warps[0].wait, WarpWait::UnitBusy);
  g.sharing->begin_cycle();
  EXPECT_TRUE(g.share(5).empty());
}

TEST(SmWarpSharingHook, ARefusedIssueIsNotCountedAndAChangedWarpWaitsForItsSchedulersLook) {
  Fixture f;
  f.live(0, 0);
  f.collectors.claim(0, kSpCollector, 0, 2, 0);
  f.look(0, 0b0001, 5);
  f.sharing->begin_cycle();
  EXPECT_EQ(f.share(5, false).size(), 1u);
  EXPECT_EQ(f.shared_sp(1), 0u);
  f.views.mark(0);  // the warp changed since its scheduler looked
  EXPECT_TRUE(f.share(6).empty());
}

}  // namespace
}  // namespace tlmgpu::sm
