// Baseline policies on hand-built views, the registry, spec parsing, the
// per-cycle stall classes and the scheduler module.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <systemc>

#include "policy_test_support.h"
#include "schedulers/issue_arbiter.h"
#include "schedulers/policy_registry.h"
#include "schedulers/warp_scheduler.h"

namespace {

using namespace tlmgpu::schedulers;
using tlmgpu::ptx::Opcode;
using W = WarpWait;

/// Warps in slots 0..n-1 with the given states; age = slot unless `ages` says otherwise.
SchedulerView view_of(std::initializer_list<WarpWait> waits, std::vector<uint64_t> ages = {}) {
  SchedulerView v;
  uint32_t slot = 0;
  for (const auto wait : waits) {
    WarpView w;
    w.slot = slot;
    w.wait = wait;
    w.age = slot < ages.size() ? ages[slot] : slot;
    w.head_class = tlmgpu::core::HeadClass::ShortAlu;
    v.warps.push_back(w);
    ++slot;
  }
  return v;
}

SchedulerView all_ready(uint32_t n, std::vector<uint64_t> ages = {}) {
  SchedulerView v;
  for (uint32_t s = 0; s < n; ++s) {
    WarpView w;
    w.slot = s;
    w.wait = W::Ready;
    w.age = s < ages.size() ? ages[s] : s;
    w.head_class = tlmgpu::core::HeadClass::ShortAlu;
    v.warps.push_back(w);
  }
  return v;
}

using namespace policy_test;

std::unique_ptr<WarpSchedulerPolicy> policy(const std::string& spec, uint32_t warps = 8) {
  return make_test_policy(spec, warps);
}


/// Slots of the view entries in `order`.
std::vector<uint32_t> slots_of(const SchedulerView& v, const std::vector<uint32_t>& order) {
  std::vector<uint32_t> s;
  for (const auto i : order) s.push_back(v.warps.at(i).slot);
  return s;
}


using Order = std::vector<uint32_t>;



// ------------------------------------------------------------------ registry

TEST(PolicyRegistry, ListsTheBaselinePoliciesSortedByName) {
  std::vector<std::string> names;
  for (const auto& p : registered_policies()) {
    names.push_back(p.name);
    EXPECT_FALSE(p.description.empty()) << p.name;
    EXPECT_EQ(p.description.find('\n'), std::string::npos) << p.name;
  }
  EXPECT_EQ(names, (std::vector<std::string>{"gtlrr", "gto", "gty", "kaws", "lfws", "llos", "lpi", "lrr", "oldest", "pro", "spin_backoff", "srr", "swas", "two_level", "two_level_opt"}));
  for (const auto& n : names) EXPECT_EQ(policy(n)->name(), n);
}

TEST(PolicyRegistry, DescriptionShowsParametersAndDefaults) {
  std::map<std::string, std::string> by_name;
  for (const auto& p : registered_policies()) by_name[p.name] = p.description;
  EXPECT_TRUE(contains(by_name["two_level"], "[group=8: ")) << by_name["two_level"];
  EXPECT_TRUE(contains(by_name["lrr"], "[probe=0: ")) << by_name["lrr"];
  EXPECT_FALSE(contains(by_name["gto"], "[")) << by_name["gto"];
}

TEST(PolicyRegistry, UnknownPolicyListsTheKnownNames) {
  const auto msg = error_of("fifo");
  EXPECT_TRUE(contains(msg, "unknown scheduler policy 'fifo'")) << msg;
  EXPECT_TRUE(contains(msg, "gtlrr, gto, gty, kaws, lfws, llos, lpi, lrr, oldest, pro, spin_backoff, srr, swas, two_level, two_level_opt")) << msg;
}

TEST(PolicyRegistry, UnknownParameterNamesTheAcceptedOnes) {
  auto msg = error_of("two_level:grp=4");
  EXPECT_TRUE(contains(msg, "has no parameter 'grp'")) << msg;
  EXPECT_TRUE(contains(msg, "it accepts: group")) << msg;
  msg = error_of("gto:group=4");
  EXPECT_TRUE(contains(msg, "it takes no parameters")) << msg;
}

TEST(PolicyRegistry, BadValuesAreErrors) {
  for (const char* spec : {"two_level:group=0", "two_level:group=abc", "two_level:group=-3", "two_level:group=1.5",
                           "two_level:group=99999999999999999999"}) {
    const auto msg = error_of(spec);
    EXPECT_TRUE(contains(msg, "parameter group=")) << spec << ": " << msg;
    EXPECT_TRUE(contains(msg, "must be an integer in [1, 1024]")) << spec << ": " << msg;
  }
  EXPECT_NO_THROW(policy("two_level:group=1"));
  EXPECT_NO_THROW(policy("lrr:probe=2"));
}

TEST(PolicySpec, ParsesNameAndParameters) {
  auto s = parse_policy_spec("two_level:group=8");
  EXPECT_EQ(s.name, "two_level");
  EXPECT_EQ(s.params, (std::map<std::string, std::string>{{"group", "8"}}));
  s = parse_policy_spec("lrr");
  EXPECT_EQ(s.name, "lrr");
  EXPECT_TRUE(s.params.empty());
  s = parse_policy_spec(" x_1 : a=1 , b=two ");
  EXPECT_EQ(s.name, "x_1");
  EXPECT_EQ(s.params, (std::map<std::string, std::string>{{"a", "1"}, {"b", "two"}}));
}

TEST(PolicySpec, MalformedTextIsAnError) {
  const std::pair<const char*, const char*> cases[] = {
      {"", "empty"},
      {":group=8", "policy name ''"},
      {"Two_Level", "policy name 'Two_Level'"},
      {"two_level:", "no parameters after ':'"},
      {"two_level:group", "has no '='"},
      {"two_level:group=", "has no value"},
      {"two_level:=8", "parameter name ''"},
      {"two_level:group=8,", "empty parameter"},
      {"two_level:group=8,group=4", "given twice"},
      {"two_level:group=8:x", "contains '=' or ':'"},
  };
  for (const auto& [text, why] : cases) {
    try {
      parse_policy_spec(text);
      ADD_FAILURE() << "no error for '" << text << "'";
    } catch (const std::invalid_argument& e) {
      EXPECT_TRUE(contains(e.what(), why)) << text << ": " << e.what();
      EXPECT_TRUE(contains(e.what(), "expected NAME or NAME:key=value")) << e.what();
    }
  }
  // make_policy reports the same problems.
  EXPECT_TRUE(contains(error_of("gto:"), "no parameters after ':'"));
}

// ------------------------------------------------------------------ policies

TEST(PolicyLrr, StartsAfterTheLastIssuedWarp) {
  auto p = policy("lrr");
  const auto v = all_ready(4);
  EXPECT_EQ(order_of(*p, v), (Order{0, 1, 2, 3}));
  issue(*p, 1);
  EXPECT_EQ(order_of(*p, v), (Order{2, 3, 0, 1}));
  issue(*p, 3);
  EXPECT_EQ(order_of(*p, v), (Order{0, 1, 2, 3}));
}

TEST(PolicyLrr, FollowsSlotsNotViewPositions) {
  // Scheduler 1 of 2: it sees slots 1, 3, 5, 7.
  auto p = policy("lrr");
  SchedulerView v = all_ready(4);
  for (uint32_t i = 0; i < 4; ++i) v.warps[i].slot = 2 * i + 1;
  issue(*p, 5);
  EXPECT_EQ(slots_of(v, order_of(*p, v)), (Order{7, 1, 3, 5}));
}

TEST(PolicyLrr, ArbiterSkipsWarpsThatAreNotReady) {
  IssueArbiter a(policy("lrr"));
  auto v = view_of({W::Ready, W::Scoreboard, W::Ready, W::Ready});
  std::vector<int> issued;
  for (int c = 0; c < 5; ++c) {
    const int i = a.select(v);
    issued.push_back(i);
    IssueEvent e;
    e.slot = v.warps[i].slot;
    a.notify_issue(e);
  }
  EXPECT_EQ(issued, (std::vector<int>{0, 2, 3, 0, 2}));
}

TEST(PolicyLrr, ProbeLimitsTheWarpsExaminedPerCycle) {
  auto p = policy("lrr:probe=2");
  const auto v = view_of({W::Scoreboard, W::Scoreboard, W::Ready, W::Finished, W::Ready});
  EXPECT_EQ(order_of(*p, v), (Order{0, 1}));  // nothing ready among them: the pointer moves on
  EXPECT_EQ(order_of(*p, v), (Order{2, 4}));  // the finished warp is not in the rotation
  issue(*p, 2);
  EXPECT_EQ(order_of(*p, v), (Order{4, 0}));
}

TEST(PolicySrr, HoldsTheTurnUntilTheWarpIssues) {
  IssueArbiter a(policy("srr"));
  auto v = view_of({W::Scoreboard, W::Ready, W::Ready});
  EXPECT_EQ(a.select(v), -1);  // warp 0 has the turn; 1 and 2 wait although ready
  EXPECT_EQ(a.last_class(), StallClass::Pipeline);
  EXPECT_EQ(a.select(v), -1);
  v.warps[0].wait = W::Ready;
  EXPECT_EQ(a.select(v), 0);
  IssueEvent e;
  e.slot = 0;
  a.notify_issue(e);
  EXPECT_EQ(a.select(v), 1);  // the turn moved to the next slot
  e.slot = 1;
  a.notify_issue(e);
  v.warps[0].wait = W::Scoreboard;
  EXPECT_EQ(a.select(v), 2);
  e.slot = 2;
  a.notify_issue(e);
  EXPECT_EQ(a.select(v), -1);  // back to warp 0, which stalls
}

TEST(PolicySrr, TurnSkipsWarpsAtBarriersAndFinishedWarps) {
  auto p = policy("srr");
  const auto v = view_of({W::Barrier, W::Finished, W::Unused, W::EmptyBuffer, W::Ready});
  EXPECT_EQ(order_of(*p, v), (Order{3}));  // an empty buffer keeps the turn; a barrier would deadlock
  issue(*p, 3);
  EXPECT_EQ(order_of(*p, v), (Order{4}));
  issue(*p, 4);
  EXPECT_EQ(order_of(*p, v), (Order{3}));
  EXPECT_TRUE(order_of(*p, view_of({W::Barrier, W::Finished})).empty());
}

TEST(PolicyGto, GreedyThenOldest) {
  auto p = policy("gto");
  const auto v = all_ready(4, {30, 10, 20, 40});
  EXPECT_EQ(order_of(*p, v), (Order{1, 2, 0, 3}));
  issue(*p, 3);
  EXPECT_EQ(order_of(*p, v), (Order{3, 1, 2, 0}));  // sticks to the last issued warp
  issue(*p, 0);
  EXPECT_EQ(order_of(*p, v), (Order{0, 1, 2, 3}));
  p->on_warp_finish(0, 5);  // a new warp in slot 0 does not inherit the greed
  EXPECT_EQ(order_of(*p, v), (Order{1, 2, 0, 3}));
}

TEST(PolicyGto, EqualAgesGoToTheLowerSlot) {
  auto p = policy("gto");
  EXPECT_EQ(order_of(*p, all_ready(4, {7, 5, 5, 7})), (Order{1, 2, 0, 3}));
}

TEST(PolicyGto, RanksAgainWhenAgesChange) {
  auto p = policy("gto");
  auto v = all_ready(3, {1, 2, 3});
  EXPECT_EQ(order_of(*p, v), (Order{0, 1, 2}));
  v.warps[0].age = 9;  // slot 0 got a new (younger) warp
  EXPECT_EQ(order_of(*p, v), (Order{1, 2, 0}));
}

TEST(PolicyGty, GreedyThenYoungest) {
  auto p = policy("gty");
  const auto v = all_ready(4, {30, 10, 20, 40});
  EXPECT_EQ(order_of(*p, v), (Order{3, 0, 2, 1}));
  issue(*p, 1);
  EXPECT_EQ(order_of(*p, v), (Order{1, 3, 0, 2}));
  p->on_warp_finish(1, 9);
  EXPECT_EQ(order_of(*p, v), (Order{3, 0, 2, 1}));
}

TEST(PolicyGtlrr, GreedyThenTheWarpsAfterIt) {
  auto p = policy("gtlrr");
  const auto v = all_ready(4);
  EXPECT_EQ(order_of(*p, v), (Order{0, 1, 2, 3}));
  issue(*p, 2);
  EXPECT_EQ(order_of(*p, v), (Order{2, 3, 0, 1}));
  p->on_warp_finish(2, 3);
  EXPECT_EQ(order_of(*p, v), (Order{3, 0, 1, 2}));
}

TEST(PolicyOldest, AlwaysOldestFirstWithoutGreed) {
  auto p = policy("oldest");
  const auto v = all_ready(4, {3, 2, 1, 0});
  EXPECT_EQ(order_of(*p, v), (Order{3, 2, 1, 0}));
  issue(*p, 1);
  EXPECT_EQ(order_of(*p, v), (Order{3, 2, 1, 0}));
}

TEST(PolicyTwoLevel, RoundRobinInsideTheActiveSet) {
  auto p = policy("two_level:group=2");
  const auto v = all_ready(4);
  EXPECT_EQ(order_of(*p, v), (Order{0, 1}));  // warps 2 and 3 pend
  issue(*p, 0);
  EXPECT_EQ(order_of(*p, v), (Order{1, 0}));
  issue(*p, 1);
  EXPECT_EQ(order_of(*p, v), (Order{0, 1}));
}

TEST(PolicyTwoLevel, LongLatencyStallRotatesTheGroups) {
  auto p = policy("two_level:group=2");
  auto v = all_ready(4);
  v.warps[0].head_class = tlmgpu::core::HeadClass::LongMem;
  EXPECT_EQ(order_of(*p, v), (Order{0, 1}));
  issue(*p, 0, Opcode::Ld, /*pc=*/7);  // a global load is now outstanding

  v.warps[0].wait = W::Scoreboard;  // its next instruction needs the load
  EXPECT_EQ(order_of(*p, v), (Order{1, 2}));  // 0 leaves for the pending tail, 2 enters

  v.warps[1].wait = W::Barrier;  // 1 leaves too; 3 enters behind 2
  EXPECT_EQ(order_of(*p, v), (Order{2, 3}));

  CompleteEvent done;
  done.slot = 0;
  done.pc = 7;
  done.unit = tlmgpu::ptx::UnitClass::MEM;
  p->on_complete(done);
  v.warps[0].wait = W::Ready;
  EXPECT_EQ(order_of(*p, v), (Order{2, 3}));  // 0 may run again, but waits for a free place

  v.warps[2].wait = W::Finished;  // 2 leaves for good: 0 (pending head) enters
  EXPECT_EQ(order_of(*p, v), (Order{3, 0}));
  const auto stats = p->stats();
  EXPECT_EQ(stats.at("two_level_demotions"), 2);
  EXPECT_EQ(stats.at("two_level_promotions"), 5);
}

TEST(PolicyTwoLevel, ShortStallsAndStoresStayActive) {
  auto p = policy("two_level:group=2");
  auto v = all_ready(3);
  v.warps[0].head_class = tlmgpu::core::HeadClass::LongMem;
  v.warps[1].head_class = tlmgpu::core::HeadClass::ShortAlu;
  EXPECT_EQ(order_of(*p, v), (Order{0, 1}));
  issue(*p, 0, Opcode::St, 3);  // a global store writes no register
  issue(*p, 1, Opcode::Add, 4);
  v.warps[0].wait = W::Scoreboard;
  v.warps[1].wait = W::Scoreboard;
  EXPECT_EQ(order_of(*p, v), (Order{0, 1}));
  EXPECT_EQ(p->stats().at("two_level_demotions"), 0);
}

TEST(PolicyTwoLevel, DefaultGroupIsEight) {
  auto p = policy("two_level");
  EXPECT_EQ(order_of(*p, all_ready(10)).size(), 8u);
}

// ------------------------------------------------------------- stall classes

StallClass class_of(const SchedulerView& v, const std::string& spec = "lrr") {
  IssueArbiter a(policy(spec));
  a.select(v);
  return a.last_class();
}

TEST(SchedulerStall, IssuedWhenAWarpIsReady) {
  EXPECT_EQ(class_of(view_of({W::Scoreboard, W::UnitBusy, W::Ready})), StallClass::Issued);
}

TEST(SchedulerStall, PipelineWhenAReadyWarpsUnitIsBusy) {
  EXPECT_EQ(class_of(view_of({W::Scoreboard, W::UnitBusy, W::Barrier})), StallClass::Pipeline);
}

TEST(SchedulerStall, ScoreboardWhenOperandsAreNotReady) {
  EXPECT_EQ(class_of(view_of({W::Scoreboard, W::EmptyBuffer, W::Barrier})), StallClass::Scoreboard);
}

TEST(SchedulerStall, IdleWithoutValidInstructions) {
  EXPECT_EQ(class_of(view_of({W::EmptyBuffer, W::Barrier, W::Membar, W::Atomic, W::Initializing, W::Finished,
                              W::Unused})),
            StallClass::Idle);
  EXPECT_EQ(class_of(view_of({})), StallClass::Idle);
}

TEST(SchedulerStall, ReadyWarpHeldBackByThePolicyIsPipeline) {
  EXPECT_EQ(class_of(view_of({W::Scoreboard, W::Ready}), "srr"), StallClass::Pipeline);
}

TEST(SchedulerStall, CountsEveryCycleOnceIncludingSkippedOnes) {
  IssueArbiter a(policy("gto"));
  a.select(view_of({W::Ready}));
  a.select(view_of({W::Scoreboard}));
  a.select(view_of({W::UnitBusy}));
  a.select(view_of({W::Barrier}));
  a.account_cycles(StallClass::Idle, 10);
  EXPECT_EQ(a.select_again(view_of({W::Ready})), 0);  // second issue in one cycle: no cycle counted
  tlmgpu::core::StatMap s;
  s = tlmgpu::core::values_of(a);
  EXPECT_EQ(s.at("issued"), 1);
  EXPECT_EQ(s.at("scoreboard"), 1);
  EXPECT_EQ(s.at("pipeline"), 1);
  EXPECT_EQ(s.at("idle"), 11);
  EXPECT_EQ(s.at("warp_insts"), 2);
}

// ------------------------------------------------------------- the module

struct SmStub : sc_core::sc_module {
  SC_HAS_PROCESS(SmStub);
  explicit SmStub(sc_core::sc_module_name n)
      : sc_core::sc_module(n), clk("clk"), sched("sched1", "lrr", PolicyContext{1, 0, 4}) {
    SC_METHOD(tick);
    sensitive << clk.posedge_event();
    dont_initialize();
  }
  void tick() {
    // Warp 1 stalls on its operands every other cycle; warp 0 is at a barrier.
    SchedulerView v = view_of({W::Barrier, cycle % 2 ? W::Scoreboard : W::Ready});
    v.cycle = cycle;
    const int i = sched.select(v);
    if (i >= 0) {
      IssueEvent e;
      e.cycle = cycle;
      e.slot = v.warps[i].slot;
      sched.notify_issue(e);
    }
    ++cycle;
  }
  sc_core::sc_clock clk;
  WarpScheduler sched;
  uint64_t cycle = 0;
};

TEST(SchedulerModule, HierarchicalNameStatsAndVcd) {
  const std::string vcd_base = ::testing::TempDir() + "tlmgpu_sched_trace";
  std::remove((vcd_base + ".vcd").c_str());
  SmStub sm("sm3");
  EXPECT_STREQ(sm.sched.name(), "sm3.sched1");
  EXPECT_EQ(sm.sched.policy_name(), "lrr");
  auto* tf = sc_core::sc_create_vcd_trace_file(vcd_base.c_str());
  sm.sched.enable_trace(tf);
  sc_core::sc_start(10, sc_core::SC_NS);  // the default clock has a 1 ns period
  sc_core::sc_close_vcd_trace_file(tf);
  sm.sched.account_idle_cycles(3);
  sm.sched.account_cycles(0, 2);  // a zero-initialized class is idle
  sm.sched.account_cycles(static_cast<int>(StallClass::Scoreboard), 3);  // the SM skipped 3 stalled cycles
  EXPECT_EQ(sm.sched.last_class(), 2);
  EXPECT_THROW(sm.sched.account_cycles(7, 1), std::invalid_argument);
  EXPECT_FALSE(sm.sched.wants_cta_view());

  tlmgpu::core::StatMap s;
  s = tlmgpu::core::values_of(sm.sched);
  EXPECT_EQ(s.at("issued") + s.at("scoreboard") - 3, static_cast<double>(sm.cycle));
  EXPECT_EQ(s.at("issued"), static_cast<double>((sm.cycle + 1) / 2));
  EXPECT_EQ(s.at("idle"), 5);
  EXPECT_EQ(s.at("pipeline"), 0);

  std::ifstream in(vcd_base + ".vcd");
  std::stringstream text;
  text << in.rdbuf();
  EXPECT_TRUE(contains(text.str(), "$scope module sched1 $end")) << text.str().substr(0, 600);
  EXPECT_TRUE(contains(text.str(), "issued_warp")) << text.str().substr(0, 600);
  EXPECT_TRUE(contains(text.str(), "stall_class"));
  // Both values change: an issue (class 1) alternates with a scoreboard stall (class 2).
  EXPECT_TRUE(contains(text.str(), "b10 ")) << text.str();
}

}  // namespace
