// The issue arbiter's fast paths give the decisions of its plain path: a
// view with the SM's wait summary (bit masks) against the same view without,
// and a policy's described order (OrderSpec) against its listed order().
#include <gtest/gtest.h>

#include <random>

#include "schedulers/issue_arbiter.h"
#include "schedulers/policy_registry.h"
#include "schedulers/policy_support.h"

namespace {

using namespace tlmgpu::schedulers;

constexpr WarpWait kWaits[] = {WarpWait::Ready,       WarpWait::UnitBusy, WarpWait::Scoreboard,
                               WarpWait::EmptyBuffer, WarpWait::Barrier,  WarpWait::Finished};

/// A scheduler's warps: a random subset of slots (s, s + 2, ...), random
/// waits skewed towards not Ready, ages that change when warps come and go.
SchedulerView random_view(std::mt19937& rng, uint64_t cycle) {
  SchedulerView v;
  v.cycle = cycle;
  for (uint32_t slot = 0; slot < 48; slot += 2) {
    if (rng() % 5 == 0) continue;
    WarpView w;
    w.slot = slot;
    w.wait = kWaits[rng() % 6 == 0 ? 0 : 1 + rng() % 5];
    w.age = (slot * 7 + rng() % 3) % 64;
    w.head_class = tlmgpu::core::HeadClass::ShortAlu;
    v.warps.push_back(w);
  }
  return v;
}

/// Both policy instances are told that a random warp of `v` issued.
void issue_a_warp(std::mt19937& rng, const SchedulerView& v, WarpSchedulerPolicy& a, WarpSchedulerPolicy& b) {
  if (v.warps.empty()) return;
  IssueEvent e;
  e.cycle = v.cycle;
  e.slot = v.warps[rng() % v.warps.size()].slot;
  a.on_issue(e);
  b.on_issue(e);
}

void summarize(SchedulerView& v) {
  v.summary = true;
  v.ready = v.unit_busy = v.scoreboard = 0;
  for (uint32_t i = 0; i < v.warps.size(); ++i) v.summarize(i);
}

class ArbiterFastPath : public ::testing::TestWithParam<std::string> {};

TEST_P(ArbiterFastPath, SummaryGivesThePlainDecisionsAndOrders) {
  PolicyContext ctx;
  IssueArbiter fast(make_policy(GetParam(), ctx));
  IssueArbiter plain(make_policy(GetParam(), ctx));
  std::mt19937 rng(7);
  uint32_t issues = 0;
  for (uint64_t cycle = 0; cycle < 4000; ++cycle) {
    SchedulerView v = random_view(rng, cycle);
    SchedulerView s = v;
    summarize(s);
    const int a = fast.select(s);
    const int b = plain.select(v);
    ASSERT_EQ(a, b) << "cycle " << cycle;
    ASSERT_EQ(fast.last_class(), plain.last_class()) << "cycle " << cycle;
    // A pure policy is not asked for its order when nothing is Ready.
    if (s.ready != 0 || !fast.policy().order_is_pure())
      ASSERT_EQ(fast.last_order(), plain.last_order()) << "cycle " << cycle;
    else
      ASSERT_TRUE(fast.last_order().empty()) << "cycle " << cycle;
    if (a < 0) continue;
    ++issues;
    IssueEvent e;
    e.cycle = cycle;
    e.slot = v.warps[size_t(a)].slot;
    fast.notify_issue(e);
    plain.notify_issue(e);
  }
  for (const auto c : {StallClass::Issued, StallClass::Idle, StallClass::Scoreboard, StallClass::Pipeline})
    EXPECT_EQ(fast.cycles(c), plain.cycles(c));
  EXPECT_GT(issues, 100u);
}

TEST_P(ArbiterFastPath, DescribedOrderIsTheListedOrder) {
  PolicyContext ctx;
  auto described = make_policy(GetParam(), ctx);
  auto listed = make_policy(GetParam(), ctx);
  std::mt19937 rng(11);
  for (uint64_t cycle = 0; cycle < 2000; ++cycle) {
    const SchedulerView v = random_view(rng, cycle);
    OrderSpec spec;
    std::vector<uint32_t> from_spec, from_order;
    listed->order(v, from_order);
    if (!described->describe_order(v, spec)) {
      described->order(v, from_spec);  // keeps both instances in step
    } else {
      append_order(spec, uint32_t(v.warps.size()), from_spec);
    }
    ASSERT_EQ(from_spec, from_order) << "cycle " << cycle;
    issue_a_warp(rng, v, *described, *listed);
  }
}

TEST_P(ArbiterFastPath, AskingForAPureOrderChangesNothing) {
  // The arbiter skips a pure policy's order on cycles with no Ready warp: a
  // policy asked every cycle must give the same orders as one asked only on
  // some cycles.
  PolicyContext ctx;
  auto always = make_policy(GetParam(), ctx);
  if (!always->order_is_pure()) GTEST_SKIP() << "not pure";
  auto sometimes = make_policy(GetParam(), ctx);
  std::mt19937 rng(17);
  for (uint64_t cycle = 0; cycle < 2000; ++cycle) {
    const SchedulerView v = random_view(rng, cycle);
    std::vector<uint32_t> a, b;
    always->order(v, a);
    if (rng() % 3 == 0) continue;
    sometimes->order(v, b);
    ASSERT_EQ(a, b) << "cycle " << cycle;
    issue_a_warp(rng, v, *always, *sometimes);
  }
}

TEST_P(ArbiterFastPath, CompletionsDoNotMoveAnOrderThatSaysSo) {
  // The SM skips a scheduler after a completion that changes no warp's wait
  // when its policy's order does not follow completions: the order must then
  // be the same with or without them.
  PolicyContext ctx;
  auto told = make_policy(GetParam(), ctx);
  if (told->order_follows_completions()) GTEST_SKIP() << "follows completions";
  auto untold = make_policy(GetParam(), ctx);
  std::mt19937 rng(13);
  for (uint64_t cycle = 0; cycle < 2000; ++cycle) {
    // Long loads at a few PCs, so that completions match issued loads.
    SchedulerView v = random_view(rng, cycle);
    for (WarpView& w : v.warps) w.head_class = rng() % 3 == 0 ? tlmgpu::core::HeadClass::LongMem : tlmgpu::core::HeadClass::ShortAlu;
    for (uint32_t k = rng() % 4; k > 0 && !v.warps.empty(); --k) {
      CompleteEvent c;
      c.cycle = cycle;
      c.slot = v.warps[rng() % v.warps.size()].slot;
      c.pc = rng() % 4;
      c.unit = rng() % 2 ? tlmgpu::ptx::UnitClass::MEM : tlmgpu::ptx::UnitClass::SP;
      told->on_complete(c);
    }
    std::vector<uint32_t> a, b;
    told->order(v, a);
    untold->order(v, b);
    ASSERT_EQ(a, b) << "cycle " << cycle;
    if (v.warps.empty()) continue;
    IssueEvent e;
    e.cycle = cycle;
    e.slot = v.warps[rng() % v.warps.size()].slot;
    e.unit = rng() % 2 ? tlmgpu::ptx::UnitClass::MEM : tlmgpu::ptx::UnitClass::SP;
    e.op = tlmgpu::ptx::Opcode::Ld;
    e.pc = rng() % 4;
    told->on_issue(e);
    untold->on_issue(e);
  }
}

TEST(ArbiterFastPath, WhichPoliciesFollowCompletions) {
  PolicyContext ctx;
  for (const char* name : {"lrr", "gto", "gty", "gtlrr", "oldest", "srr", "pro"})
    EXPECT_FALSE(make_policy(name, ctx)->order_follows_completions()) << name;
  for (const char* name : {"two_level", "lpi"}) EXPECT_TRUE(make_policy(name, ctx)->order_follows_completions()) << name;
}

TEST(ArbiterFastPath, WhichOrdersArePure) {
  PolicyContext ctx;
  for (const char* name : {"lrr", "gto", "gty", "gtlrr", "oldest"})
    EXPECT_TRUE(make_policy(name, ctx)->order_is_pure()) << name;
  for (const char* name : {"lrr:probe=2", "srr", "two_level", "kaws"})
    EXPECT_FALSE(make_policy(name, ctx)->order_is_pure()) << name;
}

std::vector<std::string> policy_names() {
  std::vector<std::string> names;
  for (const auto& p : registered_policies()) names.push_back(p.name);
  names.push_back("lrr:probe=2");
  return names;
}

INSTANTIATE_TEST_SUITE_P(EveryPolicy, ArbiterFastPath, ::testing::ValuesIn(policy_names()),
                         [](const ::testing::TestParamInfo<std::string>& param) {
                           std::string n = param.param;
                           for (char& c : n)
                             if (!isalnum(static_cast<unsigned char>(c))) c = '_';
                           return n;
                         });

TEST(ArbiterFastPath, BaselinesDescribeTheirOrders) {
  // The policies the speed work relies on keep their fast path.
  PolicyContext ctx;
  SchedulerView v;
  v.warps.resize(3);
  for (uint32_t i = 0; i < 3; ++i) v.warps[i].slot = i;
  for (const char* name : {"lrr", "gto", "gty", "gtlrr", "oldest"}) {
    OrderSpec spec;
    EXPECT_TRUE(make_policy(name, ctx)->describe_order(v, spec)) << name;
  }
}

}  // namespace
