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
    w.head_class = HeadClass::ShortAlu;
    v.warps.push_back(w);
  }
  return v;
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
    ASSERT_EQ(fast.last_order(), plain.last_order()) << "cycle " << cycle;
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
    if (v.warps.empty()) continue;
    IssueEvent e;
    e.cycle = cycle;
    e.slot = v.warps[rng() % v.warps.size()].slot;
    described->on_issue(e);
    listed->on_issue(e);
  }
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
