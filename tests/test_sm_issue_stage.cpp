// The SM's issue stage on its own, over real CTA slots, fetch, collectors,
// pipes and writeback but without the SM around it: a scheduler is
// evaluated only when something its choice depends on changed, the cycles
// it is not keep its last stall class, sm.issue_width issues that many per
// scheduler, and a scheduler without live warps is idle.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "model/sm/issue_stage.h"
#include "sm_stage_test_support.h"

namespace tlmgpu::sm {
namespace {

using schedulers::StallClass;

class NoDispatcher : public CtaCompletionIf {
 public:
  void cta_finished(uint32_t, uint64_t, uint64_t) override {}
};

InstructionTiming sp(int dst = -1) {
  InstructionTiming t;
  if (dst >= 0) {
    t.num_dst = 1;
    t.dst[0] = uint32_t(dst);
  }
  return t;
}

InstructionTiming sfu_reading(uint32_t src) {
  InstructionTiming t;
  t.pipe = Pipe::Sfu;
  t.unit = ptx::UnitClass::SFU;
  t.num_src = 1;
  t.src[0] = src;
  return t;
}

core::GpuConfig small_gpu(uint32_t schedulers, uint32_t issue_width, uint32_t sp_collectors) {
  core::GpuConfig c;
  c.sm = test::one_collector_per_class(schedulers);
  c.sm.collectors_sp = sp_collectors;
  c.sm.max_warps = 4;
  c.sm.max_ctas = 2;
  c.sm.issue_width = issue_width;
  c.sm.ibuffer_depth = 2;
  c.scheduler = "lrr";
  return c;
}

/// An SM's stages around its issue stage, running CTAs of `warps_per_cta`
/// warps whose code has `timing`.
struct Fixture {
  Fixture(const core::GpuConfig& gpu, uint32_t warps_per_cta, std::vector<InstructionTiming> timing)
      : config(gpu),
        kernel(warps_per_cta, std::move(timing)),
        warps(config.sm.max_warps),
        ctas(0, config.sm),
        fetch(config, warps),
        collectors(config.sm),
        issue(0, "sm0", config, warps, ctas, fetch, collectors, pipes, writeback) {
    issue.create_schedulers();
    issue.begin_device(0);
    SmLaunch launch;
    launch.source = &kernel;
    launch.timing = &kernel.timing();
    launch.warps_per_cta = warps_per_cta;
    ctas.begin_launch(launch, &dispatcher);
    issue.begin_launch();
  }
  void start_cta(uint64_t cycle) {
    ctas.start(0, exec::Dim3{}, cycle, warps, [&](uint32_t slot, WarpSlot& w) {
      issue.warp_started(slot, w, cycle, cycle);
      fetch.warp_started(slot, cycle, true);
    });
    issue.touch_all();
  }
  /// Writes back what is due at `now`, telling the issue stage as the SM does.
  void write_back(uint64_t now) {
    writeback.writeback(now, warps, kernel.timing(),
                        [&](const WritebackStage::Completion& c, const InstructionTiming& t) {
                          issue.written_back(c.slot, c.pc, t.unit, now);
                        });
  }
  /// Scheduler `s`'s cycles of stall class `c` so far.
  double cycles(uint32_t s, StallClass c) const {
    core::StatMap out;
    out = tlmgpu::core::values_of(*issue.schedulers()[s]);
    return out.at(schedulers::to_string(c));
  }

  core::GpuConfig config;
  test::StandInKernel kernel;
  std::vector<WarpSlot> warps;
  CtaSlots ctas;
  FetchStage fetch;
  OperandCollectors collectors;
  ExecutionPipes pipes;
  WritebackStage writeback;
  IssueStage issue;
  NoDispatcher dispatcher;
};

TEST(SmIssueStage, AnUnchangedSchedulerIsNotEvaluatedAndKeepsItsLastStallClass) {
  // PC 0 writes r1, PC 1 (another collector class) reads it.
  Fixture f(small_gpu(1, 1, 1), 1, {sp(1), sfu_reading(1), sp()});
  f.start_cta(0);
  EXPECT_TRUE(f.issue.issue(0));  // PC 0
  EXPECT_EQ(f.issue.warp_insts(), 1u);
  EXPECT_FALSE(f.issue.issue(1));  // evaluated (it issued): PC 1 waits on r1
  EXPECT_EQ(f.cycles(0, StallClass::Scoreboard), 1.0);

  // r1 becomes ready behind the issue stage's back: nothing it watches
  // changed, so the scheduler does not look again and issues nothing.
  f.warps[0].scoreboard.release(f.kernel.timing()[0]);
  EXPECT_FALSE(f.issue.issue(2));
  EXPECT_FALSE(f.issue.issue(3));
  EXPECT_EQ(f.issue.warp_insts(), 1u);
  EXPECT_EQ(f.cycles(0, StallClass::Scoreboard), 1.0);  // cycles 2 and 3 not accounted yet

  // The writeback of PC 0 touches it: evaluated, it issues PC 1, and the two
  // cycles it kept its class go to that class.
  f.writeback.complete_at(4, 0, 0, false);
  f.write_back(4);
  EXPECT_TRUE(f.issue.issue(4));
  EXPECT_EQ(f.issue.warp_insts(), 2u);
  EXPECT_EQ(f.cycles(0, StallClass::Scoreboard), 3.0);
  EXPECT_EQ(f.cycles(0, StallClass::Issued), 2.0);
}

// A finished warp frees its slot before its CTA ends, so the next CTA's
// warps need not be contiguous: each CTA's counts are over its own warps,
// and its retired warps still count (their slots hold other warps now).
TEST(SmIssueStage, CtaViewCountsEachCtasOwnWarpsWhereverTheySit) {
  core::GpuConfig gpu = small_gpu(1, 1, 1);
  gpu.sm.max_warps = 6;
  gpu.sm.max_ctas = 3;
  Fixture f(gpu, 2, {sp(), sp()});
  f.start_cta(0);  // CTA slot 0: warp slots 0, 1
  f.start_cta(0);  // CTA slot 1: warp slots 2, 3
  f.warps[0].progress = 10, f.warps[0].insts_issued = 1;
  f.warps[1].progress = 20, f.warps[1].insts_issued = 2;
  f.warps[2].progress = 100, f.warps[3].progress = 200;
  f.ctas.retire_warp(f.warps[1], 5);
  f.start_cta(6);  // CTA slot 2: warp slots 1 and 4
  ASSERT_EQ(f.ctas.slot(2).warp_slots, (std::vector<uint32_t>{1, 4}));
  f.warps[1].progress = 7, f.warps[1].insts_issued = 3;
  f.warps[4].progress = 5, f.warps[4].insts_issued = 4;

  schedulers::SchedulerView view;
  f.issue.build_cta_view(view);
  ASSERT_EQ(view.ctas.size(), 3u);
  EXPECT_EQ(view.ctas[0].progress, 30u);  // its retired warp's 20 still counts, not slot 1's new 7
  EXPECT_EQ(view.ctas[0].insts_issued, 3u);
  EXPECT_EQ(view.ctas[0].warps_finished, 1u);
  EXPECT_EQ(view.ctas[1].progress, 300u);
  EXPECT_EQ(view.ctas[1].warps_finished, 0u);
  EXPECT_EQ(view.ctas[2].progress, 12u);  // slots 1 and 4, not 1 and 2
  EXPECT_EQ(view.ctas[2].insts_issued, 7u);
  EXPECT_EQ(view.ctas[2].warps_finished, 0u);
  EXPECT_EQ(view.ctas[2].warps, 2u);
}

TEST(SmIssueStage, SkippedCyclesGoToTheLastStallClassAtTheLaunchsEnd) {
  Fixture f(small_gpu(1, 1, 1), 1, {sp(1), sfu_reading(1), sp()});
  f.start_cta(0);
  f.issue.issue(0);
  f.issue.issue(1);  // Scoreboard
  f.issue.skip_cycles(10);  // the SM slept
  EXPECT_EQ(f.cycles(0, StallClass::Scoreboard), 1.0);
  f.issue.end_launch();
  EXPECT_EQ(f.cycles(0, StallClass::Scoreboard), 11.0);
  f.issue.end_launch();  // accounted once
  EXPECT_EQ(f.cycles(0, StallClass::Scoreboard), 11.0);
}

TEST(SmIssueStage, ATouchedWarpMakesItsSchedulerLookAgain) {
  Fixture f(small_gpu(1, 1, 1), 1, {sp(1), sfu_reading(1), sp()});
  f.start_cta(0);
  f.issue.issue(0);
  f.issue.issue(1);
  f.warps[0].scoreboard.release(f.kernel.timing()[0]);
  EXPECT_FALSE(f.issue.issue(2));
  f.issue.touch(0);
  EXPECT_TRUE(f.issue.issue(3));
  EXPECT_EQ(f.issue.warp_insts(), 2u);
}

TEST(SmIssueStage, IssueWidthIsHowManyOneSchedulerIssuesPerCycle) {
  for (uint32_t width = 1; width <= 3; ++width) {
    // Three independent warps, three SP collectors: only the width limits.
    Fixture f(small_gpu(1, width, 3), 3, {sp(), sp(), sp()});
    f.start_cta(0);
    EXPECT_TRUE(f.issue.issue(0));
    EXPECT_EQ(f.issue.warp_insts(), width) << "issue_width " << width;
    EXPECT_EQ(f.issue.thread_insts(), width * ptx::kWarpSize);
  }
}

TEST(SmIssueStage, IssueWidthStopsAtTheLastFreeCollector) {
  Fixture f(small_gpu(1, 2, 1), 2, {sp(), sp()});
  f.start_cta(0);
  f.issue.issue(0);
  EXPECT_EQ(f.issue.warp_insts(), 1u);  // one SP collector: the second warp waits
  EXPECT_EQ(f.collectors.free_collector(0, kSpCollector), -1);
}

TEST(SmIssueStage, ASchedulerWithoutLiveWarpsIsIdle) {
  // Two schedulers, one warp: slot 0 belongs to scheduler 0.
  Fixture f(small_gpu(2, 1, 1), 1, {sp(), sp()});
  f.start_cta(0);
  EXPECT_EQ(f.issue.live_slots(), 1u);
  f.issue.issue(0);
  EXPECT_EQ(f.cycles(0, StallClass::Issued), 1.0);
  EXPECT_EQ(f.cycles(1, StallClass::Idle), 1.0);
  f.issue.warp_finished(0, 1);
  EXPECT_EQ(f.issue.live_slots(), 0u);
  f.issue.issue(1);
  EXPECT_EQ(f.cycles(0, StallClass::Idle), 1.0);
  EXPECT_EQ(f.issue.warp_insts(), 1u);
}

TEST(SmIssueStage, AWarpThatLeavesItsPathIsFlushedAndRefetched) {
  Fixture f(small_gpu(1, 1, 1), 1, {sp(), sp(), sp()});
  f.start_cta(0);
  WarpSlot& w = f.warps[0];
  ASSERT_EQ(w.ib_count, 2u);  // prefilled: PCs 0 and 1
  static_cast<test::StraightLineWarp*>(w.warp)->at = 2;  // the warp branched to PC 2
  EXPECT_TRUE(f.issue.issue(0));  // picked, but the buffered PC 0 is not where it goes
  EXPECT_EQ(f.issue.warp_insts(), 0u);
  EXPECT_EQ(w.ib_count, 0u);
  EXPECT_EQ(w.fetch_pc, 2u);
  EXPECT_EQ(f.fetch.flushes(), 1u);
}

}  // namespace
}  // namespace tlmgpu::sm
