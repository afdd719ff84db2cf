// kaws (seed 002): the base order until the last CTA is dispatched, then
// CTAs with the least progress first.
#include <gtest/gtest.h>

#include <memory>
#include <vector>

#include "policy_test_support.h"
#include "schedulers/policy_registry.h"
#include "schedulers/warp_scheduler_policy.h"

namespace tlmgpu::schedulers {
namespace {

// Four ready warps: slots 0,1 in CTA slot 0 (launch id 0), slots 2,3 in CTA
// slot 1 (launch id 5); ages follow the slots.
using policy_test::order_of;

SchedulerView view_with(uint64_t progress_cta0, uint64_t progress_cta1, bool last_dispatched) {
  SchedulerView v;
  v.cycle = 100;
  v.last_cta_dispatched = last_dispatched;
  for (uint32_t s = 0; s < 4; ++s) {
    WarpView w;
    w.slot = s;
    w.wait = WarpWait::Ready;
    w.cta_slot = s / 2;
    w.cta_id = s < 2 ? 0 : 5;
    w.age = s;
    v.warps.push_back(w);
  }
  for (uint32_t c = 0; c < 2; ++c) {
    CtaView cv;
    cv.slot = c;
    cv.valid = true;
    cv.cta_id = c == 0 ? 0 : 5;
    cv.insts_issued = c == 0 ? progress_cta0 : progress_cta1;
    v.ctas.push_back(cv);
  }
  return v;
}


TEST(PaperPolicyKaws, BaseOrderUntilTheLastCtaIsDispatched) {
  auto p = make_policy("kaws", PolicyContext{});
  EXPECT_TRUE(p->wants_cta_view());
  // gto with nothing issued yet: oldest first, whatever the progress.
  EXPECT_EQ(order_of(*p, view_with(500, 10, false)), (std::vector<uint32_t>{0, 1, 2, 3}));
}

TEST(PaperPolicyKaws, LeastProgressedCtaFirstAfterTheSwitch) {
  auto p = make_policy("kaws", PolicyContext{});
  EXPECT_EQ(order_of(*p, view_with(500, 10, true)), (std::vector<uint32_t>{2, 3, 0, 1}));
  EXPECT_EQ(order_of(*p, view_with(10, 500, true)), (std::vector<uint32_t>{0, 1, 2, 3}));
  // Equal progress: the younger CTA (larger launch id) first.
  EXPECT_EQ(order_of(*p, view_with(7, 7, true)), (std::vector<uint32_t>{2, 3, 0, 1}));
  EXPECT_EQ(p->stats().at("kaws_switch_cycle"), 100.0);
}

TEST(PaperPolicyKaws, BaseIsGtoOrLrrAndSharingOnOrOff) {
  EXPECT_NO_THROW(make_policy("kaws:base=lrr", PolicyContext{}));
  EXPECT_THROW(make_policy("kaws:base=srr", PolicyContext{}), std::invalid_argument);
  EXPECT_TRUE(make_policy("kaws", PolicyContext{})->shares_warps());
  EXPECT_TRUE(make_policy("kaws:sharing=on", PolicyContext{})->shares_warps());
  EXPECT_FALSE(make_policy("kaws:base=lrr,sharing=off", PolicyContext{})->shares_warps());
  EXPECT_THROW(make_policy("kaws:sharing=yes", PolicyContext{}), std::invalid_argument);
  EXPECT_THROW(make_policy("kaws:share=on", PolicyContext{}), std::invalid_argument);
  // Only kaws asks the SM for warp sharing.
  EXPECT_FALSE(make_policy("gto", PolicyContext{})->shares_warps());
}

}  // namespace
}  // namespace tlmgpu::schedulers
