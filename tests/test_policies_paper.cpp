// The papers' policies that need only the policy interface: lfws, lpi, llos,
// two_level_opt (seed 004) and pro (seed 000). Hand-built views and the
// trace harness (seed 004 Fig. 1); every expected order is worked out by
// hand from the rules in docs/SCHEDULERS.md.
#include <gtest/gtest.h>

#include <map>
#include <sstream>

#include "model/trace/warp_trace.h"
#include "policy_test_support.h"
#include "schedulers/issue_arbiter.h"
#include "schedulers/policy_pro.h"
#include "schedulers/policy_registry.h"
#include "schedulers/trace_issue_model.h"

namespace {

using namespace tlmgpu::schedulers;
using tlmgpu::ptx::Opcode;
using W = WarpWait;
using H = tlmgpu::core::HeadClass;
using Order = std::vector<uint32_t>;

struct Spec {
  WarpWait wait = W::Ready;
  tlmgpu::core::HeadClass head = H::ShortAlu;
  uint64_t age = ~uint64_t{0};  // default: the slot
};

/// Warps in slots 0..n-1.
SchedulerView view_of(std::initializer_list<Spec> specs) {
  SchedulerView v;
  uint32_t slot = 0;
  for (const auto& s : specs) {
    WarpView w;
    w.slot = slot;
    w.wait = s.wait;
    w.head_class = s.head;
    w.age = s.age == ~uint64_t{0} ? slot : s.age;
    v.warps.push_back(w);
    ++slot;
  }
  return v;
}

using namespace policy_test;

std::unique_ptr<WarpSchedulerPolicy> policy(const std::string& spec, uint32_t warps = 16) {
  return make_test_policy(spec, warps);
}

Order slots(WarpSchedulerPolicy& p, const SchedulerView& v) { return order_slots(p, v); }


void complete(WarpSchedulerPolicy& p, uint32_t slot, uint32_t pc) {
  CompleteEvent e;
  e.slot = slot;
  e.pc = pc;
  p.on_complete(e);
}



tlmgpu::trace::WarpTrace fig1() {
  return tlmgpu::trace::load_warp_trace(std::string(TLMGPU_SOURCE_DIR) + "/tests/traces/seed004_fig1.trace");
}

// ------------------------------------------------------------------ registry

TEST(PaperPolicyRegistry, NamesParametersAndErrors) {
  std::map<std::string, std::string> by_name;
  for (const auto& p : registered_policies()) by_name[p.name] = p.description;
  for (const char* n : {"lfws", "lpi", "llos", "two_level_opt", "pro"}) {
    ASSERT_TRUE(by_name.count(n)) << n;
    EXPECT_EQ(policy(n)->name(), n);
  }
  EXPECT_TRUE(contains(by_name["pro"], "[threshold=1000: ")) << by_name["pro"];
  EXPECT_TRUE(contains(by_name["two_level_opt"], "[group=8: ")) << by_name["two_level_opt"];
  for (const char* n : {"lfws", "lpi", "llos"}) EXPECT_TRUE(contains(error_of(std::string(n) + ":x=1"), "it takes no parameters")) << n;
  EXPECT_TRUE(contains(error_of("pro:thresold=5"), "it accepts: threshold"));
  EXPECT_TRUE(contains(error_of("two_level_opt:grp=5"), "it accepts: group"));
  EXPECT_TRUE(contains(error_of("pro:threshold=0"), "'pro': parameter threshold=0 must be an integer"));
  EXPECT_TRUE(contains(error_of("two_level_opt:group=0"), "'two_level_opt': parameter group=0"));
  EXPECT_NO_THROW(policy("pro:threshold=1"));
  EXPECT_NO_THROW(policy("two_level_opt:group=1024"));
  // Only pro reads the CTA view.
  EXPECT_TRUE(policy("pro")->wants_cta_view());
  for (const char* n : {"lfws", "lpi", "llos", "two_level_opt"}) EXPECT_FALSE(policy(n)->wants_cta_view()) << n;
}

// ------------------------------------------------------------------ lfws

// Seed 004 Fig. 1(d): 37 cycles, 13 pauses. By hand: cycle 0 the long group
// is warps 1, 3, 5, 6 (in warp order), so their first loads go at 0-3; the
// short warps 2 and 4 fill 4-9, each running its short ops and then its
// load greedily; the second loads of 1, 3, 5, 6 at 10-13; 2's and 4's last
// loads at 16 and 19; then each of 1, 3, 5, 6 runs short + long back to back.
TEST(PaperPolicyLfws, Seed004Figure1Takes37Cycles) {
  const auto t = fig1();
  const auto r = run_trace(t, "lfws");
  EXPECT_EQ(r.total_cycles, 37u) << r.timeline(t);
  EXPECT_EQ(r.issue_table(),
            "w1: 0 10 20 21\nw2: 4 5 6 16\nw3: 1 11 22 23\n"
            "w4: 7 8 9 19\nw5: 2 12 24 25\nw6: 3 13 26 27\n");
  EXPECT_EQ(r.total_cycles - r.issued, 13u);  // "generates only 13 pipeline pauses"
}

TEST(PaperPolicyLfws, PendingWarpsAreFilteredOut) {
  auto p = policy("lfws");
  const auto v = view_of({{W::Initializing}, {W::Barrier}, {W::Membar}, {W::Atomic}, {W::EmptyBuffer},
                          {W::Finished}, {W::Unused}, {W::Scoreboard}, {W::UnitBusy}, {W::Ready}});
  // Only warps with a valid instruction are in the ready queue.
  EXPECT_EQ(slots(*p, v), (Order{7, 8, 9}));
}

TEST(PaperPolicyLfws, LongGroupFirstThenShortEachOldestFirst) {
  auto p = policy("lfws");
  // Ages: slot 3 is the oldest warp.
  const auto v = view_of({{W::Ready, H::ShortAlu, 5},
                          {W::Ready, H::LongMem, 4},
                          {W::Scoreboard, H::Sfu, 3},
                          {W::Ready, H::LongMem, 0},
                          {W::Ready, H::SharedMem, 1},
                          {W::Scoreboard, H::LongMem, 2}});
  // Long group by age: 3 (0), 5 (2), 1 (4); short: 4 (1), 2 (3), 0 (5). Shared memory is short.
  EXPECT_EQ(slots(*p, v), (Order{3, 5, 1, 4, 2, 0}));
}

TEST(PaperPolicyLfws, GreedyWarpLeadsOnlyItsOwnGroup) {
  auto p = policy("lfws");
  auto v = view_of({{W::Ready, H::LongMem}, {W::Ready, H::ShortAlu}, {W::Ready, H::ShortAlu}, {W::Ready, H::LongMem}});
  issue(*p, 2);
  // Warp 2 issued last but its head is short: long group (0, 3) still first.
  EXPECT_EQ(slots(*p, v), (Order{0, 3, 2, 1}));
  issue(*p, 3);
  EXPECT_EQ(slots(*p, v), (Order{3, 0, 1, 2}));
  // Its next instruction is short: it leads the short group.
  v.warps[3].head_class = H::ShortAlu;
  EXPECT_EQ(slots(*p, v), (Order{0, 3, 1, 2}));
  // Forgotten when it finishes; a new warp in its slot is ranked by age.
  p->on_warp_finish(3, 0);
  EXPECT_EQ(slots(*p, v), (Order{0, 1, 2, 3}));
}

TEST(PaperPolicyLfws, CountsLongAndShortIssues) {
  auto p = policy("lfws");
  const auto v = view_of({{W::Ready, H::LongMem}, {W::Ready, H::ShortAlu}});
  slots(*p, v);
  issue(*p, 0, Opcode::Ld);
  issue(*p, 1);
  issue(*p, 1);
  const auto s = p->stats();
  EXPECT_EQ(s.at("lfws_long_issues"), 1.0);
  EXPECT_EQ(s.at("lfws_short_issues"), 2.0);
}

// ------------------------------------------------------------------ lpi

/// Gives `slot` an outstanding long load (its head is LongMem when it issues).
void start_long_load(WarpSchedulerPolicy& p, SchedulerView& v, uint32_t slot, uint32_t pc) {
  const auto saved = v.warps[slot].head_class;
  v.warps[slot].head_class = H::LongMem;
  slots(p, v);
  issue(p, slot, Opcode::Ld, pc);
  v.warps[slot].head_class = saved;
}

TEST(PaperPolicyLpi, WithoutBlockingWarpsOldestFirst) {
  auto p = policy("lpi");
  const auto v = view_of({{W::Ready, H::ShortAlu, 3}, {W::Ready, H::ShortAlu, 1}, {W::Ready, H::ShortAlu, 2},
                          {W::Finished}});
  EXPECT_EQ(slots(*p, v), (Order{1, 2, 0}));
}

TEST(PaperPolicyLpi, BlockingWarpsGoNextToTheirIdsOnePerGap) {
  auto p = policy("lpi");
  auto v = view_of({{}, {}, {}, {}, {}, {}, {}});
  // Warps 0, 1, 2 wait for long loads; 3..6 are active. Warp 0 wants the
  // gap before 3, and 1 and 2 want it too: they spread over the next gaps.
  for (uint32_t s = 0; s < 3; ++s) start_long_load(*p, v, s, 10 + s);
  EXPECT_EQ(slots(*p, v), (Order{0, 3, 1, 4, 2, 5, 6}));
  // Warp 1's load returns: it is active again, and 2 moves up a gap.
  complete(*p, 1, 11);
  EXPECT_EQ(slots(*p, v), (Order{0, 1, 2, 3, 4, 5, 6}));
}

TEST(PaperPolicyLpi, BlockingWarpsBetweenTheActiveOnesAroundTheirIds) {
  auto p = policy("lpi");
  auto v = view_of({{}, {}, {}, {}, {}});
  start_long_load(*p, v, 1, 1);
  start_long_load(*p, v, 2, 2);
  // Active 0, 3, 4: warp 1 goes between 0 and 3; 2 wants the same gap and takes the next.
  EXPECT_EQ(slots(*p, v), (Order{0, 1, 3, 2, 4}));
}

TEST(PaperPolicyLpi, LeftOverBlockingWarpsGoLast) {
  auto p = policy("lpi");
  auto v = view_of({{}, {}, {}, {}});
  for (uint32_t s = 0; s < 3; ++s) start_long_load(*p, v, s, s);
  // One active warp (3), two gaps: 0 before it, 1 after it, 2 past the end.
  EXPECT_EQ(slots(*p, v), (Order{0, 3, 1, 2}));
}

TEST(PaperPolicyLpi, BarriersBlockStoresDoNot) {
  auto p = policy("lpi");
  auto v = view_of({{W::Barrier}, {}, {}});
  // A store to global memory has nothing to wait for.
  v.warps[1].head_class = H::LongMem;
  slots(*p, v);
  issue(*p, 1, Opcode::St, 5);
  EXPECT_EQ(slots(*p, v), (Order{0, 1, 2}));
  start_long_load(*p, v, 1, 6);
  EXPECT_EQ(slots(*p, v), (Order{0, 2, 1}));
  // A new warp in slot 1 has no loads of the old one.
  p->on_warp_start(1, 0);
  EXPECT_EQ(slots(*p, v), (Order{0, 1, 2}));
}

TEST(PaperPolicyLpi, InterleavingLetsAnActiveWarpPassABlockingOne) {
  // Warps 1 and 2 each issue a load, an independent short op and a short op
  // on the load's result; warp 3 is a chain of short ops. By hand: cycle 0
  // warp 1's load, 1 its short op, 2 warp 2's load. At 3 both 1 and 2 are
  // blocking and 3 is the only active warp: 1 takes the gap before 3, 2
  // wants the same gap and gets the one after 3, so the order is 1, 3, 2
  // and warp 3's chain (3-6) goes before warp 2's ready short op (7).
  // Oldest-first issues warp 2's short op at 3 and the chain at 4-7.
  const auto t = tlmgpu::trace::parse_warp_trace(
      "latency long=10 short=1\n"
      "warp 1,2: long r1 <- r0 ; short r2 <- r0 ; short r3 <- r1\n"
      "warp 3: short r1 <- r0 ; short r2 <- r1 ; short r3 <- r2 ; short r4 <- r3\n",
      "lpi.trace");
  const auto r = run_trace(t, "lpi");
  EXPECT_EQ(r.issue_table(), "w1: 0 1 10\nw2: 2 7 12\nw3: 3 4 5 6\n") << r.timeline(t);
  EXPECT_EQ(r.total_cycles, 13u);
  EXPECT_EQ(run_trace(t, "oldest").issue_table(), "w1: 0 1 10\nw2: 2 3 12\nw3: 4 5 6 7\n");
}

TEST(PaperPolicyLpi, Seed004Figure1IsOldestFirst) {
  // Every instruction of Fig. 1 depends on the one before, so a warp with a
  // load in flight is never ready: among ready warps LPI is oldest first.
  const auto t = fig1();
  const auto r = run_trace(t, "lpi");
  EXPECT_EQ(r.total_cycles, 41u) << r.timeline(t);
  EXPECT_EQ(r.issue_table(), run_trace(t, "oldest").issue_table());
}

// ------------------------------------------------------------------ llos

TEST(PaperPolicyLlos, StalledLongWarpGuidesUntilItIssues) {
  auto p = policy("llos");
  auto v = view_of({{}, {}, {W::Scoreboard, H::LongMem}, {W::Ready, H::LongMem}});
  // Warp 2 waits on the scoreboard before a long op: guiding queue. Warp 3's
  // long op is ready at once, so it is only filling (seed 004's criticism).
  EXPECT_EQ(slots(*p, v), (Order{2, 0, 1, 3}));
  // Its operands arrive: it stays in the guiding queue and goes first.
  v.warps[2].wait = W::Ready;
  EXPECT_EQ(slots(*p, v), (Order{2, 0, 1, 3}));
  issue(*p, 2, Opcode::Ld);
  // Issued: back to the filling queue, round robin after it.
  v.warps[2].head_class = H::ShortAlu;
  EXPECT_EQ(slots(*p, v), (Order{3, 0, 1, 2}));
  EXPECT_EQ(p->stats().at("llos_guiding_entries"), 1.0);
  EXPECT_EQ(p->stats().at("llos_guiding_issues"), 1.0);
}

TEST(PaperPolicyLlos, EachQueueIsRoundRobin) {
  auto p = policy("llos");
  auto v = view_of({{W::Scoreboard, H::LongMem}, {}, {W::Scoreboard, H::LongMem}, {}, {W::Scoreboard, H::LongMem}});
  EXPECT_EQ(slots(*p, v), (Order{0, 2, 4, 1, 3}));
  v.warps[2].wait = W::Ready;
  slots(*p, v);
  issue(*p, 2, Opcode::Ld);  // guiding round robin continues after 2
  v.warps[2].head_class = H::ShortAlu;
  v.warps[2].wait = W::Ready;
  issue(*p, 1);  // filling round robin continues after 1
  EXPECT_EQ(slots(*p, v), (Order{4, 0, 2, 3, 1}));
  // A finished warp leaves both queues.
  v.warps[4].wait = W::Finished;
  p->on_warp_finish(4, 0);
  EXPECT_EQ(slots(*p, v), (Order{0, 2, 3, 1}));
}

TEST(PaperPolicyLlos, Seed004Figure1) {
  // Here the guiding queue holds each load-after-load warp while its first
  // load is in flight; the walk order equals lrr's, and so does the result.
  const auto t = fig1();
  const auto r = run_trace(t, "llos");
  EXPECT_EQ(r.total_cycles, 37u) << r.timeline(t);
  EXPECT_EQ(r.issue_table(), run_trace(t, "lrr").issue_table());
}

// ------------------------------------------------------------------ two_level_opt

TEST(PaperPolicyTwoLevelOpt, LongHeadsFirstInsideTheActiveSet) {
  auto p = policy("two_level_opt:group=4");
  auto v = view_of({{}, {W::Ready, H::LongMem}, {}, {W::Ready, H::LongMem}, {W::Ready, H::LongMem}, {}});
  // Active set: 0-3 (4 and 5 pending). Round robin 0,1,2,3 -> long first.
  EXPECT_EQ(slots(*p, v), (Order{1, 3, 0, 2}));
  issue(*p, 1, Opcode::Ld, 7);
  // Round robin now starts after 1: 2,3,0,1 -> long first: 3,1 then 2,0.
  v.warps[1].head_class = H::ShortAlu;
  EXPECT_EQ(slots(*p, v), (Order{3, 2, 0, 1}));
  // Warp 1 stalls on its load: demoted like two_level; 4 (long) comes in.
  v.warps[1].wait = W::Scoreboard;
  EXPECT_EQ(slots(*p, v), (Order{3, 4, 2, 0}));
  EXPECT_EQ(p->stats().at("two_level_demotions"), 1.0);
}

TEST(PaperPolicyTwoLevelOpt, Seed004Figure1) {
  // Group 8 holds all six warps: lfws-like start (loads of 1, 3, 5, 6 first),
  // round robin after; 37 cycles. With group 2 long-first saves two cycles
  // over two_level's 41.
  const auto t = fig1();
  const auto r = run_trace(t, "two_level_opt");
  EXPECT_EQ(r.total_cycles, 37u) << r.timeline(t);
  EXPECT_EQ(r.issue_table(),
            "w1: 0 10 20 21\nw2: 4 6 7 17\nw3: 1 11 22 23\n"
            "w4: 5 8 9 19\nw5: 2 12 24 25\nw6: 3 13 26 27\n");
  const auto small = run_trace(t, "two_level_opt:group=2");
  EXPECT_EQ(small.total_cycles, 39u) << small.timeline(t);
  EXPECT_EQ(run_trace(t, "two_level:group=2").total_cycles, 41u);
}

// ------------------------------------------------------------------ pro

struct TestWarp {
  uint32_t slot;
  uint32_t cta_slot;
  uint64_t progress;
  WarpWait wait = W::Ready;
  uint64_t age = ~uint64_t{0};  // default: the slot
};
struct TestCta {
  uint32_t slot;
  uint64_t id;
};

/// A PRO view: CtaView counts (warps, finished, at barrier, progress) are
/// derived from the warps, as the SM derives them.
SchedulerView pro_view(uint64_t cycle, bool ctas_waiting, const std::vector<TestCta>& ctas,
                       const std::vector<TestWarp>& warps) {
  SchedulerView v;
  v.cycle = cycle;
  v.ctas_waiting = ctas_waiting;
  for (const auto& c : ctas) {
    CtaView cv;
    cv.slot = c.slot;
    cv.cta_id = c.id;
    cv.valid = true;
    for (const auto& w : warps) {
      if (w.cta_slot != c.slot) continue;
      ++cv.warps;
      cv.warps_finished += w.wait == W::Finished ? 1 : 0;
      cv.warps_at_barrier += w.wait == W::Barrier ? 1 : 0;
      cv.progress += w.progress;
    }
    v.ctas.push_back(cv);
  }
  for (const auto& w : warps) {
    WarpView wv;
    wv.slot = w.slot;
    wv.cta_slot = w.cta_slot;
    for (const auto& c : ctas)
      if (c.slot == w.cta_slot) wv.cta_id = c.id;
    wv.progress = w.progress;
    wv.wait = w.wait;
    wv.age = w.age == ~uint64_t{0} ? w.slot : w.age;
    wv.active_threads = 32;
    v.warps.push_back(wv);
  }
  return v;
}

ProPolicy& as_pro(WarpSchedulerPolicy& p) { return dynamic_cast<ProPolicy&>(p); }

using Ids = std::vector<uint64_t>;
using S = ProPolicy::CtaState;
const std::vector<TestCta> kThreeCtas = {{0, 0}, {1, 1}, {2, 2}};

/// Nine warps, three per CTA, with the given progress and waits.
std::vector<TestWarp> nine(std::vector<uint64_t> progress, std::map<uint32_t, WarpWait> waits = {}) {
  std::vector<TestWarp> w;
  for (uint32_t s = 0; s < 9; ++s) {
    const auto it = waits.find(s);
    w.push_back({s, s / 3, progress.at(s), it == waits.end() ? W::Ready : it->second});
  }
  return w;
}

TEST(PaperPolicyPro, NoWaitCtasByDecreasingProgressOnlyAtReSorts) {
  auto owner = policy("pro");
  auto& p = as_pro(*owner);
  EXPECT_EQ(slots(p, pro_view(0, true, kThreeCtas, nine({0, 0, 0, 0, 0, 0, 0, 0, 0}))),
            (Order{0, 1, 2, 3, 4, 5, 6, 7, 8}));
  EXPECT_TRUE(p.fast_phase());
  EXPECT_EQ(p.state_of(1), S::NoWait);
  // CTA 2 has made the most progress, then 1, then 0; but until 1000 cycles
  // have passed the order is the initial one (CTA index, warp slot).
  const auto progressed = nine({1, 5, 3, 20, 10, 30, 100, 300, 200});
  EXPECT_EQ(slots(p, pro_view(999, true, kThreeCtas, progressed)), (Order{0, 1, 2, 3, 4, 5, 6, 7, 8}));
  EXPECT_EQ(p.resorts(), 0u);
  // Cycle 1000: sortTBs + sortWarps, both by decreasing progress.
  EXPECT_EQ(slots(p, pro_view(1000, true, kThreeCtas, progressed)), (Order{7, 8, 6, 5, 3, 4, 1, 2, 0}));
  EXPECT_EQ(p.resorts(), 1u);
  EXPECT_EQ(p.cta_order(), (Ids{2, 1, 0}));
  // Progress changes again; the order holds until cycle 2000.
  const auto later = nine({900, 5, 3, 20, 10, 30, 100, 300, 200});
  EXPECT_EQ(slots(p, pro_view(1999, true, kThreeCtas, later)), (Order{7, 8, 6, 5, 3, 4, 1, 2, 0}));
  EXPECT_EQ(slots(p, pro_view(2000, true, kThreeCtas, later)), (Order{0, 1, 2, 7, 8, 6, 5, 3, 4}));
  ASSERT_EQ(p.sort_history().size(), 2u);
  EXPECT_EQ(p.sort_history()[0].cycle, 1000u);
  EXPECT_EQ(p.sort_history()[1].cta_ids, (Ids{0, 2, 1}));
}

TEST(PaperPolicyPro, FinishWaitCtasFirstWithTheirSlowestWarpsFirst) {
  auto owner = policy("pro");
  auto& p = as_pro(*owner);
  slots(p, pro_view(0, true, kThreeCtas, nine({0, 0, 0, 0, 0, 0, 0, 0, 0})));
  // Warp 4 of CTA 1 finishes: CTA 1 -> finishWait (H), its warps by
  // increasing progress (5 has 10, 3 has 30). The others keep their order.
  EXPECT_EQ(slots(p, pro_view(10, true, kThreeCtas, nine({0, 0, 0, 30, 50, 10, 0, 0, 0}, {{4, W::Finished}}))),
            (Order{5, 3, 0, 1, 2, 6, 7, 8}));
  EXPECT_EQ(p.state_of(1), S::FinishWait);
  // Warp 7 of CTA 2 finishes too: one finished warp each, CTA 2 has more
  // progress (80 + 40 + 5 > 90) so it goes first; its warps 8 (5), 6 (40).
  EXPECT_EQ(slots(p, pro_view(20, true, kThreeCtas,
                              nine({0, 0, 0, 30, 50, 10, 40, 80, 5}, {{4, W::Finished}, {7, W::Finished}}))),
            (Order{8, 6, 5, 3, 0, 1, 2}));
  EXPECT_EQ(p.cta_order(), (Ids{2, 1, 0}));
  // A second warp of CTA 1 finishes: more finished warps wins.
  EXPECT_EQ(slots(p, pro_view(30, true, kThreeCtas,
                              nine({0, 0, 0, 30, 50, 10, 40, 80, 5},
                                   {{4, W::Finished}, {7, W::Finished}, {3, W::Finished}}))),
            (Order{5, 8, 6, 0, 1, 2}));
  // The last one: Finish, the CTA leaves the order.
  EXPECT_EQ(slots(p, pro_view(40, true, kThreeCtas,
                              nine({0, 0, 0, 30, 50, 10, 40, 80, 5},
                                   {{4, W::Finished}, {7, W::Finished}, {3, W::Finished}, {5, W::Finished}}))),
            (Order{8, 6, 0, 1, 2}));
  EXPECT_EQ(p.state_of(1), S::Finish);
  EXPECT_EQ(p.cta_order(), (Ids{2, 0}));
  EXPECT_EQ(p.stats().at("pro_finish_wait_entries"), 2.0);
}

TEST(PaperPolicyPro, BarrierWaitCtasBetweenFinishWaitAndNoWait) {
  auto owner = policy("pro");
  auto& p = as_pro(*owner);
  slots(p, pro_view(0, true, kThreeCtas, nine({0, 0, 0, 0, 0, 0, 0, 0, 0})));
  // Warp 1 of CTA 0 reaches a barrier: barrierWait (M), warps by increasing
  // progress: 0 (5), 2 (10), 1 (20).
  auto v = pro_view(10, true, kThreeCtas, nine({5, 20, 10, 1, 1, 1, 0, 0, 0}, {{1, W::Barrier}}));
  EXPECT_EQ(slots(p, v), (Order{0, 2, 1, 3, 4, 5, 6, 7, 8}));
  EXPECT_EQ(p.state_of(0), S::BarrierWait);
  // CTA 2 gets a finished warp: H above M. CTA 1 gets two warps at the
  // barrier: more warps waiting beats CTA 0's one.
  v = pro_view(20, true, kThreeCtas,
               nine({5, 20, 10, 9, 3, 7, 0, 0, 0}, {{1, W::Barrier}, {3, W::Barrier}, {5, W::Barrier}, {8, W::Finished}}));
  EXPECT_EQ(slots(p, v), (Order{6, 7, 4, 5, 3, 0, 2, 1}));
  EXPECT_EQ(p.cta_order(), (Ids{2, 1, 0}));
  // All three warps of CTA 1 arrive: back to noWait (fastTBPhase), below
  // CTA 0; the release (count back to 0) changes nothing more.
  v = pro_view(30, true, kThreeCtas,
               nine({5, 20, 10, 9, 3, 7, 0, 0, 0},
                    {{1, W::Barrier}, {3, W::Barrier}, {4, W::Barrier}, {5, W::Barrier}, {8, W::Finished}}));
  EXPECT_EQ(slots(p, v), (Order{6, 7, 0, 2, 1, 4, 5, 3}));
  EXPECT_EQ(p.state_of(1), S::NoWait);
  v = pro_view(31, true, kThreeCtas, nine({5, 20, 10, 9, 3, 7, 0, 0, 0}, {{1, W::Barrier}, {8, W::Finished}}));
  EXPECT_EQ(slots(p, v), (Order{6, 7, 0, 2, 1, 4, 5, 3}));
  EXPECT_EQ(p.state_of(1), S::NoWait);
  // CTA 0's barrier releases while none of its warps finished: noWait.
  v = pro_view(40, true, kThreeCtas, nine({5, 20, 10, 9, 3, 7, 0, 0, 0}, {{8, W::Finished}}));
  slots(p, v);
  EXPECT_EQ(p.state_of(0), S::NoWait);
  EXPECT_EQ(p.stats().at("pro_barrier_wait_entries"), 2.0);
}

TEST(PaperPolicyPro, BarrierReleaseWithFinishedWarpsReturnsToFinishWait) {
  auto owner = policy("pro");
  auto& p = as_pro(*owner);
  slots(p, pro_view(0, true, kThreeCtas, nine({0, 0, 0, 0, 0, 0, 0, 0, 0})));
  slots(p, pro_view(1, true, kThreeCtas, nine({0, 0, 0, 0, 0, 0, 0, 0, 0}, {{0, W::Finished}})));
  EXPECT_EQ(p.state_of(0), S::FinishWait);
  slots(p, pro_view(2, true, kThreeCtas, nine({0, 0, 0, 0, 0, 0, 0, 0, 0}, {{0, W::Finished}, {1, W::Barrier}})));
  EXPECT_EQ(p.state_of(0), S::BarrierWait);
  // Both live warps at the barrier: released, and the finished warp still counts.
  slots(p, pro_view(3, true, kThreeCtas,
                    nine({0, 0, 0, 0, 0, 0, 0, 0, 0}, {{0, W::Finished}, {1, W::Barrier}, {2, W::Barrier}})));
  EXPECT_EQ(p.state_of(0), S::FinishWait);
  EXPECT_EQ(p.cta_order(), (Ids{0, 1, 2}));
}

TEST(PaperPolicyPro, SlowPhaseMergesStatesAndFavoursLessProgress) {
  auto owner = policy("pro");
  auto& p = as_pro(*owner);
  slots(p, pro_view(0, true, kThreeCtas, nine({0, 0, 0, 0, 0, 0, 0, 0, 0})));
  // fastTBPhase: CTA 1 finishWait, CTA 2 barrierWait, CTA 0 noWait.
  const std::map<uint32_t, WarpWait> waits = {{4, W::Finished}, {7, W::Barrier}};
  const auto progress = std::vector<uint64_t>{50, 20, 30, 15, 5, 20, 10, 30, 20};
  EXPECT_EQ(slots(p, pro_view(10, true, kThreeCtas, nine(progress, waits))), (Order{3, 5, 6, 8, 7, 0, 1, 2}));
  // The dispatcher runs out of CTAs: slowTBPhase. noWait + finishWait ->
  // finishNoWait, re-sorted at once by increasing progress (CTA 1: 40 <
  // CTA 0: 100), warps likewise; barrierWait -> barrierWait1, still above.
  EXPECT_EQ(slots(p, pro_view(11, false, kThreeCtas, nine(progress, waits))), (Order{6, 8, 7, 3, 5, 1, 2, 0}));
  EXPECT_FALSE(p.fast_phase());
  EXPECT_EQ(p.state_of(0), S::FinishNoWait);
  EXPECT_EQ(p.state_of(1), S::FinishNoWait);
  EXPECT_EQ(p.state_of(2), S::BarrierWait1);
  EXPECT_EQ(p.stats().at("pro_phase_switches"), 1.0);
  ASSERT_EQ(p.sort_history().size(), 1u);
  EXPECT_EQ(p.sort_history()[0].cycle, 11u);
  EXPECT_EQ(p.sort_history()[0].cta_ids, (Ids{2, 1, 0}));
  // CTA 2's barrier releases: finishNoWait, placed by its progress at the
  // last re-sort (60: between CTA 1 and CTA 0). Its warps keep the barrier order.
  EXPECT_EQ(slots(p, pro_view(12, false, kThreeCtas, nine(progress, {{4, W::Finished}}))),
            (Order{3, 5, 6, 8, 7, 1, 2, 0}));
  EXPECT_EQ(p.state_of(2), S::FinishNoWait);
  EXPECT_EQ(p.cta_order(), (Ids{1, 2, 0}));
  // A barrier in slowTBPhase is barrierWait1; a finished warp changes no state.
  EXPECT_EQ(slots(p, pro_view(13, false, kThreeCtas, nine(progress, {{4, W::Finished}, {0, W::Barrier}, {6, W::Finished}}))),
            (Order{1, 2, 0, 3, 5, 8, 7}));
  EXPECT_EQ(p.state_of(0), S::BarrierWait1);
  EXPECT_EQ(p.state_of(2), S::FinishNoWait);
}

TEST(PaperPolicyPro, CtaArrivingInTheSlowPhaseIsFinishNoWait) {
  auto owner = policy("pro:threshold=100");
  auto& p = as_pro(*owner);
  std::vector<TestCta> two = {{0, 0}, {1, 1}};
  std::vector<TestWarp> warps = {{0, 0, 50}, {1, 0, 60}, {2, 1, 10}, {3, 1, 20}};
  slots(p, pro_view(0, true, two, warps));
  slots(p, pro_view(1, false, two, warps));  // switch: increasing progress: CTA 1 then 0
  EXPECT_EQ(p.cta_order(), (Ids{1, 0}));
  // CTA 0 finishes; the last CTA of the kernel (id 5) takes its slot.
  std::vector<TestCta> next = {{0, 5}, {1, 1}};
  warps = {{0, 0, 0}, {1, 0, 0}, {2, 1, 10}, {3, 1, 20}};
  EXPECT_EQ(slots(p, pro_view(2, false, next, warps)), (Order{2, 3, 0, 1}));
  EXPECT_EQ(p.state_of(5), S::FinishNoWait);
  EXPECT_EQ(p.state_of(0), S::Finish);
  // The next re-sort puts it first (least progress).
  EXPECT_EQ(slots(p, pro_view(100, false, next, warps)), (Order{0, 1, 2, 3}));
}

TEST(PaperPolicyPro, ReSortCadenceFollowsTheThresholdGrid) {
  auto owner = policy("pro:threshold=100");
  auto& p = as_pro(*owner);
  EXPECT_EQ(p.threshold(), 100u);
  const auto warps = nine({0, 0, 0, 0, 0, 0, 0, 0, 0});
  for (const uint64_t cycle : {0, 50, 99, 100, 150, 199, 250, 299, 310, 399, 400})
    slots(p, pro_view(cycle, true, kThreeCtas, warps));
  // 100; 250 (the SM skipped 200; the grid stays at multiples of 100); 310; 400.
  std::vector<uint64_t> cycles;
  for (const auto& r : p.sort_history()) cycles.push_back(r.cycle);
  EXPECT_EQ(cycles, (std::vector<uint64_t>{100, 250, 310, 400}));
  EXPECT_EQ(p.resorts(), 4u);
  EXPECT_EQ(p.stats().at("pro_resorts"), 4.0);
}

TEST(PaperPolicyPro, TiesGoToTheLowerCtaIdAndTheOlderWarp) {
  auto owner = policy("pro:threshold=10");
  auto& p = as_pro(*owner);
  // CTA slots and ids in opposite orders; equal progress everywhere.
  std::vector<TestCta> ctas = {{0, 7}, {1, 3}};
  std::vector<TestWarp> warps = {{0, 0, 10, W::Ready, 5}, {1, 0, 10, W::Ready, 4},
                                 {2, 1, 10, W::Ready, 9}, {3, 1, 10, W::Ready, 8}};
  // Before any sort: CTAs by id (3 first), warps in slot order.
  EXPECT_EQ(slots(p, pro_view(0, true, ctas, warps)), (Order{2, 3, 0, 1}));
  // After a sort: equal CTA progress -> lower id; equal warp progress -> older warp.
  EXPECT_EQ(slots(p, pro_view(10, true, ctas, warps)), (Order{3, 2, 1, 0}));
  EXPECT_EQ(p.cta_order(), (Ids{3, 7}));
}

TEST(PaperPolicyPro, TableFourCsvAndWarpsWithoutCta) {
  auto owner = policy("pro:threshold=10");
  auto& p = as_pro(*owner);
  std::vector<TestWarp> warps = nine({0, 0, 0, 1, 1, 1, 2, 2, 2});
  slots(p, pro_view(0, true, kThreeCtas, warps));
  slots(p, pro_view(10, true, kThreeCtas, warps));
  // A warp whose CTA the view does not list still gets issued, after the rest.
  warps.push_back({9, 5, 100});
  EXPECT_EQ(slots(p, pro_view(20, true, kThreeCtas, warps)), (Order{6, 7, 8, 3, 4, 5, 0, 1, 2, 9}));
  std::ostringstream csv;
  p.write_order_csv(csv);
  EXPECT_EQ(csv.str(), "cycle,1,2,3\n10,2,1,0\n20,2,1,0\n");
  EXPECT_STREQ(ProPolicy::state_name(S::BarrierWait1), "barrierWait1");
}

// Collects what policies write beside --stats, per file suffix.
class CollectedOutputs final : public PolicyOutputFiles {
 public:
  std::ostream& file(const std::string& suffix) override { return files[suffix]; }
  std::map<std::string, std::ostringstream> files;
};

TEST(PaperPolicyPro, ExtraOutputsAreTheOrderCsvUnderTheSchedulerName) {
  auto owner = policy("pro:threshold=10");
  auto& p = as_pro(*owner);
  CollectedOutputs out;
  p.write_extra_outputs("gpu.sm0.sched1", out);
  EXPECT_TRUE(out.files.empty());  // no re-sort yet: no file
  std::vector<TestWarp> warps = nine({0, 0, 0, 1, 1, 1, 2, 2, 2});
  slots(p, pro_view(0, true, kThreeCtas, warps));
  slots(p, pro_view(10, true, kThreeCtas, warps));
  p.write_extra_outputs("gpu.sm0.sched1", out);
  ASSERT_EQ(out.files.size(), 1u);
  EXPECT_EQ(out.files[".pro_order.csv"].str(), "# gpu.sm0.sched1\ncycle,1,2,3\n10,2,1,0\n");
  // Policies without records beyond stats() write nothing.
  CollectedOutputs none;
  policy("gto")->write_extra_outputs("gpu.sm0.sched0", none);
  EXPECT_TRUE(none.files.empty());
}

TEST(PaperPolicyPro, ArbiterIssuesTheFirstReadyWarpOfTheOrder) {
  auto arbiter = IssueArbiter(policy("pro"));
  // CTA 1 has a finished warp, so its ready warp 4 beats CTA 0's.
  const auto v = pro_view(5, true, kThreeCtas, nine({0, 0, 0, 0, 0, 0, 0, 0, 0}, {{3, W::Finished}}));
  EXPECT_EQ(v.warps[static_cast<size_t>(arbiter.select(v))].slot, 4u);
}

}  // namespace
