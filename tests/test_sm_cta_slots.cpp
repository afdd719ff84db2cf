// The SM's CTA slots on their own: occupancy limits, where a CTA's warps
// go, and warp and CTA retirement (occupancy freed, the dispatcher told once
// per CTA, when its last warp retires).
#include <gtest/gtest.h>

#include <vector>

#include "model/sm/cta_slots.h"
#include "sm_stage_test_support.h"

namespace tlmgpu::sm {
namespace {

using test::StandInCta;
using test::StandInKernel;

struct Finished {
  uint32_t sm;
  uint64_t cta_id, cycle;
  bool operator==(const Finished& o) const { return sm == o.sm && cta_id == o.cta_id && cycle == o.cycle; }
};

class RecordingDispatcher : public CtaCompletionIf {
 public:
  void cta_finished(uint32_t sm, uint64_t cta_id, uint64_t cycle) override { finished.push_back({sm, cta_id, cycle}); }
  std::vector<Finished> finished;
};

/// An SM (index 3) with 8 warp slots and 4 CTA slots running CTAs of
/// `warps_per_cta` warps.
struct Fixture {
  explicit Fixture(uint32_t warps_per_cta, core::SmConfig config = small_sm())
      : smc(config), kernel(warps_per_cta, {InstructionTiming{}}), slots(3, smc), warps(smc.max_warps) {
    launch.source = &kernel;
    launch.timing = &kernel.timing();
    launch.warps_per_cta = warps_per_cta;
    launch.threads_per_cta = warps_per_cta * ptx::kWarpSize;
  }
  static core::SmConfig small_sm() {
    core::SmConfig c;
    c.max_warps = 8;
    c.max_ctas = 4;
    return c;
  }
  /// Starts CTA `id`; returns the warp slots placed, in the order they were handed over.
  std::vector<uint32_t> start(uint64_t id, uint64_t cycle = 0) {
    std::vector<uint32_t> placed;
    last_cta_slot = slots.start(id, exec::Dim3{uint32_t(id), 1, 1}, cycle, warps, [&](uint32_t s, WarpSlot& w) {
      EXPECT_EQ(&w, &warps[s]);
      placed.push_back(s);
    });
    return placed;
  }

  core::SmConfig smc;
  StandInKernel kernel;
  CtaSlots slots;
  std::vector<WarpSlot> warps;
  SmLaunch launch;
  RecordingDispatcher dispatcher;
  uint32_t last_cta_slot = 0;
};

TEST(SmCtaSlots, AcceptsNothingBeforeALaunch) {
  Fixture f(2);
  EXPECT_FALSE(f.slots.can_accept());
  f.slots.begin_launch(f.launch, &f.dispatcher);
  EXPECT_TRUE(f.slots.can_accept());
}

TEST(SmCtaSlots, WarpSlotsLimitResidency) {
  Fixture f(3);  // 3 + 3 warps fit in 8, a third CTA does not
  f.slots.begin_launch(f.launch, &f.dispatcher);
  f.start(0);
  EXPECT_TRUE(f.slots.can_accept());
  f.start(1);
  EXPECT_FALSE(f.slots.can_accept());
  EXPECT_EQ(f.slots.used_warps(), 6u);
  EXPECT_EQ(f.slots.live_ctas(), 2u);
}

TEST(SmCtaSlots, CtaSlotsLimitResidency) {
  core::SmConfig c = Fixture::small_sm();
  c.max_ctas = 2;
  Fixture f(1, c);
  f.slots.begin_launch(f.launch, &f.dispatcher);
  f.start(0);
  f.start(1);
  EXPECT_FALSE(f.slots.can_accept());
}

TEST(SmCtaSlots, ThreadsRegistersAndSharedMemoryLimitResidencyButNeverTheFirstCta) {
  for (int limit = 0; limit < 3; ++limit) {
    core::SmConfig c = Fixture::small_sm();
    Fixture f(1, c);
    if (limit == 0) f.smc.max_threads = 48;  // one 32-thread CTA fits, not two
    if (limit == 1) {
      f.smc.registers = 100;
      f.launch.regs_per_cta = 160;  // above the file: the first CTA still runs alone
    }
    if (limit == 2) {
      f.smc.shared_bytes = 1000;
      f.launch.shared_per_cta = 600;
    }
    f.slots.begin_launch(f.launch, &f.dispatcher);
    EXPECT_TRUE(f.slots.can_accept()) << limit;
    f.start(0);
    EXPECT_FALSE(f.slots.can_accept()) << limit;
  }
}

TEST(SmCtaSlots, WarpsTakeTheLowestFreeSlotsWithIncreasingAges) {
  Fixture f(2);
  f.slots.begin_launch(f.launch, &f.dispatcher);
  EXPECT_EQ(f.start(10, 5), (std::vector<uint32_t>{0, 1}));
  EXPECT_EQ(f.start(11, 6), (std::vector<uint32_t>{2, 3}));
  EXPECT_EQ(f.last_cta_slot, 1u);
  const CtaSlots::Slot& c = f.slots.slot(1);
  EXPECT_TRUE(c.valid);
  EXPECT_EQ(c.cta_id, 11u);
  EXPECT_EQ(c.warp_slots, (std::vector<uint32_t>{2, 3}));
  EXPECT_EQ(c.start_cycle, 6u);
  for (uint32_t s = 0; s < 4; ++s) {
    EXPECT_TRUE(f.warps[s].active);
    EXPECT_EQ(f.warps[s].age, s);
    EXPECT_EQ(f.warps[s].cta_slot, s / 2);
    EXPECT_EQ(f.warps[s].cta_id, 10u + s / 2);
    EXPECT_EQ(f.warps[s].warp, &f.slots.slot(s / 2).cta->warp(s % 2));
  }
  EXPECT_FALSE(f.warps[4].active);

  // Slot 1 frees: the next CTA takes it and slot 4, and CTA slot 2.
  f.slots.retire_warp(f.warps[1], 7);
  EXPECT_EQ(f.start(12, 8), (std::vector<uint32_t>{1, 4}));
  EXPECT_EQ(f.last_cta_slot, 2u);
  EXPECT_EQ(f.slots.slot(2).warp_slots, (std::vector<uint32_t>{1, 4}));
  EXPECT_EQ(f.warps[1].age, 4u);
  EXPECT_EQ(f.warps[4].age, 5u);
}

TEST(SmCtaSlots, RetirementFreesTheOccupancyAndTellsTheDispatcherOncePerCta) {
  Fixture f(2);
  f.smc.max_ctas = 2;
  f.slots.begin_launch(f.launch, &f.dispatcher);
  f.start(20);
  f.start(21);
  EXPECT_FALSE(f.slots.can_accept());
  // Warps retire in slot order; each CTA finishes with its last warp.
  EXPECT_FALSE(f.slots.retire_warp(f.warps[0], 100));
  EXPECT_FALSE(f.warps[0].active);
  EXPECT_FALSE(f.slots.retire_warp(f.warps[2], 101));
  EXPECT_TRUE(f.dispatcher.finished.empty());
  EXPECT_FALSE(f.slots.can_accept());
  EXPECT_TRUE(f.slots.retire_warp(f.warps[1], 102));
  EXPECT_EQ(f.dispatcher.finished, (std::vector<Finished>{{3, 20, 102}}));
  EXPECT_FALSE(f.slots.slot(0).valid);
  EXPECT_EQ(f.slots.used_warps(), 2u);
  EXPECT_EQ(f.slots.live_ctas(), 1u);
  EXPECT_TRUE(f.slots.can_accept());
  EXPECT_TRUE(f.slots.retire_warp(f.warps[3], 103));
  EXPECT_EQ(f.dispatcher.finished, (std::vector<Finished>{{3, 20, 102}, {3, 21, 103}}));
  EXPECT_EQ(f.slots.used_warps(), 0u);
  EXPECT_EQ(f.slots.live_ctas(), 0u);
  EXPECT_EQ(f.slots.ctas_finished(), 2u);
}

TEST(SmCtaSlots, AFreedSlotReusesItsCtaAndALaunchStartsEmpty) {
  Fixture f(1);
  f.slots.begin_launch(f.launch, &f.dispatcher);
  f.start(0);
  f.slots.retire_warp(f.warps[0], 1);
  f.start(1);
  ASSERT_EQ(f.kernel.made.size(), 1u);
  EXPECT_EQ(f.kernel.made[0]->restarts, 1u);
  f.slots.begin_launch(f.launch, &f.dispatcher);  // a new launch makes its own CTAs
  EXPECT_EQ(f.slots.live_ctas(), 0u);
  EXPECT_EQ(f.slots.used_warps(), 0u);
  EXPECT_FALSE(f.slots.slot(0).valid);
  for (WarpSlot& w : f.warps) w = WarpSlot{};
  f.start(2);
  EXPECT_EQ(f.kernel.made.size(), 2u);
}

TEST(SmCtaSlots, ProgressCountsResidentAndFinishedCtas) {
  Fixture f(1);
  f.slots.begin_launch(f.launch, &f.dispatcher);
  f.start(0);
  f.start(1);
  f.kernel.made[0]->progress = 5;
  f.kernel.made[1]->progress = 7;
  EXPECT_EQ(f.slots.progress_events(), 12u);
  f.slots.retire_warp(f.warps[0], 1);  // CTA 0 finished: it counts one, not its own events
  EXPECT_EQ(f.slots.progress_events(), 8u);
}

}  // namespace
}  // namespace tlmgpu::sm
