// Seed 003's oracle schedulers as a hook of the issue stage, on their own:
// osched1 sees past every empty buffer to the warp's next instruction,
// osched2 only past those not explained by a recent miss or taken branch;
// each counts the cycles its pick differs from the real scheduler's.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "model/sm/oracle_judge.h"
#include "schedulers/warp_scheduler.h"
#include "sm_stage_test_support.h"

namespace tlmgpu::sm {
namespace {

using schedulers::WarpWait;
using test::StandInWarp;  // at PC 0: the oracles read only its PC

core::SmConfig one_scheduler() {
  core::SmConfig smc;
  smc.num_schedulers = 1;
  smc.register_banks = 2;
  return smc;
}

struct Fixture {
  Fixture()
      : collectors(one_scheduler()),
        warps(1),
        views(0, "sm0", 1, warps, collectors, pipes),
        judge(warps, views, collectors) {
    schedulers::PolicyContext ctx;
    ctx.num_schedulers = 1;
    ctx.max_warps_per_scheduler = 1;
    scheduler = std::make_unique<schedulers::WarpScheduler>("sched0", "gto", ctx);
    scheduler->enable_oracles("gto", ctx);
    InstructionTiming add;  // PC 0: r1 = r0 + r0
    add.src[add.num_src++] = 0;
    add.dst[add.num_dst++] = 1;
    timing = {add};
    views.begin_launch(&timing);
    judge.begin_launch(&timing);
    WarpSlot& w = warps[0];
    w.warp = &executor;
    w.active = true;
    w.scoreboard.reset(2);  // an empty buffer: the fetch is outstanding
  }
  /// The real scheduler looks at `now` (its buffer is empty: it issues nothing); the oracles judge that.
  void cycle(uint64_t now) {
    views.mark(0);
    views.update_view(0, 0b1, now);
    ASSERT_EQ(views.view(0).warps[0].wait, WarpWait::EmptyBuffer);
    const int pick = scheduler->select(views.view(0));
    ASSERT_EQ(pick, -1);
    judge.judge(*scheduler, 0, views.view(0), pick, now);
  }
  std::pair<uint64_t, uint64_t> counts() const {
    core::StatMap m;
    m = tlmgpu::core::values_of(*scheduler);
    return {uint64_t(m["discrepancies"]), uint64_t(m["errors"])};
  }

  StandInWarp executor;
  OperandCollectors collectors;
  ExecutionPipes pipes;
  std::vector<WarpSlot> warps;
  std::vector<InstructionTiming> timing;
  SchedulerViewCache views;
  OracleJudge judge;
  std::unique_ptr<schedulers::WarpScheduler> scheduler;
};

TEST(SmOracleJudge, BothOraclesWouldIssueTheNextInstructionOfAnUnexplainedEmptyBuffer) {
  Fixture f;
  f.cycle(10);
  EXPECT_EQ(f.counts(), std::make_pair(uint64_t(1), uint64_t(1)));
}

TEST(SmOracleJudge, OnlyOsched1SeesPastAMissOrTakenBranchWindow) {
  Fixture f;
  f.warps[0].oracle_blocked_until = 20;
  f.cycle(10);
  EXPECT_EQ(f.counts(), std::make_pair(uint64_t(1), uint64_t(0)));
  f.cycle(20);  // the window has passed
  EXPECT_EQ(f.counts(), std::make_pair(uint64_t(2), uint64_t(1)));
}

TEST(SmOracleJudge, NeitherOracleIssuesAnInstructionWhoseOperandsAreNotReady) {
  Fixture f;
  f.warps[0].scoreboard.set_pending(0);
  f.cycle(10);
  EXPECT_EQ(f.counts(), std::make_pair(uint64_t(0), uint64_t(0)));
  f.warps[0].scoreboard.clear_pending(0);
  while (f.collectors.free_collector(0, kSpCollector) >= 0)  // every SP collector busy
    f.collectors.claim(0, kSpCollector, uint32_t(f.collectors.free_collector(0, kSpCollector)), 0, 0);
  f.cycle(11);
  EXPECT_EQ(f.counts(), std::make_pair(uint64_t(0), uint64_t(0)));
}

}  // namespace
}  // namespace tlmgpu::sm
