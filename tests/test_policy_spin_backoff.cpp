// spin_backoff (seed 001): detection on hand-built setp / branch events,
// back-off in the order, the all-backed-off fallback, registry and stats.
#include <gtest/gtest.h>

#include <array>

#include "platform/config_keys.h"
#include "policy_test_support.h"
#include "schedulers/policy_registry.h"
#include "schedulers/policy_spin_backoff.h"
#include "workloads/workload.h"

namespace {

using namespace tlmgpu::schedulers;
using Order = std::vector<uint32_t>;
using Lanes = std::array<uint64_t, 32>;

constexpr uint32_t kAll = 0xffffffffu;

/// Ready warps in slots 0..n-1, age = slot (so gto's order is 0, 1, 2, ...).
SchedulerView view_of(uint32_t n, uint64_t cycle) {
  SchedulerView v;
  v.cycle = cycle;
  for (uint32_t s = 0; s < n; ++s) {
    WarpView w;
    w.slot = s;
    w.age = s;
    w.wait = WarpWait::Ready;
    v.warps.push_back(w);
  }
  return v;
}

using namespace policy_test;

std::unique_ptr<WarpSchedulerPolicy> policy(const std::string& spec) { return make_test_policy(spec, 8); }

SpinBackoffPolicy& as_spin(WarpSchedulerPolicy& p) { return dynamic_cast<SpinBackoffPolicy&>(p); }

Order slots(WarpSchedulerPolicy& p, const SchedulerView& v) { return order_slots(p, v); }

void setp(WarpSchedulerPolicy& p, uint32_t slot, uint64_t cycle, uint32_t pc, const Lanes& a, const Lanes& b,
          uint32_t mask = kAll) {
  IssueEvent e;
  e.cycle = cycle;
  e.slot = slot;
  e.pc = pc;
  e.op = tlmgpu::ptx::Opcode::Setp;
  e.active_mask = mask;
  e.is_setp = true;
  e.setp_a = a.data();
  e.setp_b = b.data();
  p.on_issue(e);
}

void branch(WarpSchedulerPolicy& p, uint32_t slot, uint64_t cycle, uint32_t pc, bool taken = true,
            bool backward = true) {
  IssueEvent e;
  e.cycle = cycle;
  e.slot = slot;
  e.pc = pc;
  e.op = tlmgpu::ptx::Opcode::Bra;
  e.active_mask = kAll;
  e.is_branch = true;
  e.taken = taken;
  e.backward = backward;
  p.on_issue(e);
}

Lanes filled(uint64_t value) {
  Lanes l;
  l.fill(value);
  return l;
}



// ------------------------------------------------------------ history detector

TEST(SpinBackoffHistory, IdenticalPairsForAWindowAreDetected) {
  auto p = policy("spin_backoff:window=5,backoff=100");
  const Lanes a = filled(1), b = filled(0);
  for (uint64_t c = 1; c <= 4; ++c) setp(*p, 2, c * 10, 0x40, a, b);
  EXPECT_EQ(p->stats().at("spin_detections"), 0.0) << "4 of 5 pairs: the window is not full yet";
  EXPECT_FALSE(as_spin(*p).backed_off(2, 41));
  setp(*p, 2, 50, 0x40, a, b);
  EXPECT_EQ(p->stats().at("spin_detections"), 1.0);
  EXPECT_TRUE(as_spin(*p).backed_off(2, 51));
  EXPECT_EQ(as_spin(*p).wake_cycle(2), 151u);
}

TEST(SpinBackoffHistory, ChangingOperandsAreNotDetected) {
  auto p = policy("spin_backoff:window=3");
  for (uint64_t c = 0; c < 10; ++c) setp(*p, 0, c, 0x40, filled(c), filled(7));  // a loop counter
  EXPECT_EQ(p->stats().at("spin_detections"), 0.0);
  // A change restarts the window: 2 repeats after it are not enough, 3 are.
  auto q = policy("spin_backoff:window=3");
  setp(*q, 0, 1, 0x40, filled(1), filled(0));
  setp(*q, 0, 2, 0x40, filled(1), filled(0));
  setp(*q, 0, 3, 0x40, filled(1), filled(1));
  setp(*q, 0, 4, 0x40, filled(1), filled(1));
  EXPECT_EQ(q->stats().at("spin_detections"), 0.0);
  setp(*q, 0, 5, 0x40, filled(1), filled(1));
  EXPECT_EQ(q->stats().at("spin_detections"), 1.0);
}

TEST(SpinBackoffHistory, OneLaneDifferingPreventsWarpDetection) {
  auto p = policy("spin_backoff:window=2");
  Lanes a = filled(5);
  for (uint64_t c = 0; c < 6; ++c) {
    a[17] = c;  // lane 17 makes progress (e.g. got the lock)
    setp(*p, 1, c, 0x80, a, filled(0));
  }
  EXPECT_EQ(p->stats().at("spin_detections"), 0.0);
  EXPECT_FALSE(as_spin(*p).backed_off(1, 6));
}

TEST(SpinBackoffHistory, OnlyActiveLanesMustSpin) {
  // Lane 3 is inactive and its operand garbage changes: the warp still spins.
  auto p = policy("spin_backoff:window=2");
  Lanes a = filled(1);
  for (uint64_t c = 0; c < 2; ++c) {
    a[3] = 100 + c;
    setp(*p, 0, c, 0x80, a, filled(0), kAll & ~(1u << 3));
  }
  EXPECT_EQ(p->stats().at("spin_detections"), 1.0);
}

TEST(SpinBackoffHistory, RowsArePerPc) {
  // Alternating between two setp PCs with the same pair: each row fills on its own.
  auto p = policy("spin_backoff:window=3");
  for (uint64_t c = 0; c < 4; ++c) setp(*p, 0, c, c % 2 ? 0x10 : 0x20, filled(1), filled(0));
  EXPECT_EQ(p->stats().at("spin_detections"), 0.0) << "2 pairs per row so far";
  setp(*p, 0, 4, 0x20, filled(1), filled(0));
  EXPECT_EQ(p->stats().at("spin_detections"), 1.0);
}

TEST(SpinBackoffHistory, WarpsHaveTheirOwnHistory) {
  auto p = policy("spin_backoff:window=2");
  setp(*p, 0, 1, 0x10, filled(1), filled(0));
  setp(*p, 1, 2, 0x10, filled(1), filled(0));
  EXPECT_EQ(p->stats().at("spin_detections"), 0.0);
}

TEST(SpinBackoffHistory, NewWarpInASlotStartsFresh) {
  auto p = policy("spin_backoff:window=2,backoff=50");
  setp(*p, 0, 1, 0x10, filled(1), filled(0));
  p->on_warp_finish(0, 2);
  p->on_warp_start(0, 3);
  setp(*p, 0, 4, 0x10, filled(1), filled(0));
  EXPECT_EQ(p->stats().at("spin_detections"), 0.0);
  setp(*p, 0, 5, 0x10, filled(1), filled(0));
  EXPECT_EQ(p->stats().at("spin_detections"), 1.0);
  p->on_warp_finish(0, 6);  // a finished warp is no longer backed off
  EXPECT_FALSE(as_spin(*p).backed_off(0, 7));
}

// ------------------------------------------------------------------- back-off

TEST(SpinBackoffOrder, BackedOffWarpIsLeftOutUntilItsWakeCycle) {
  auto p = policy("spin_backoff:window=1,backoff=10");
  EXPECT_EQ(slots(*p, view_of(3, 0)), (Order{0, 1, 2}));
  setp(*p, 0, 5, 0x10, filled(1), filled(0));  // window=1: detected at once
  EXPECT_EQ(slots(*p, view_of(3, 6)), (Order{1, 2}));
  EXPECT_EQ(slots(*p, view_of(3, 15)), (Order{1, 2})) << "out for cycles 6..15";
  EXPECT_EQ(slots(*p, view_of(3, 16)), (Order{0, 1, 2}));
}

TEST(SpinBackoffOrder, WakesInWakeCycleOrder) {
  auto p = policy("spin_backoff:window=1,backoff=10");
  setp(*p, 2, 3, 0x10, filled(1), filled(0));  // wakes at 14
  setp(*p, 1, 1, 0x10, filled(1), filled(0));  // wakes at 12
  // gto keeps warp 1 (issued last) first once it is back.
  EXPECT_EQ(slots(*p, view_of(4, 11)), (Order{0, 3}));
  EXPECT_EQ(slots(*p, view_of(4, 12)), (Order{1, 0, 3}));
  EXPECT_EQ(slots(*p, view_of(4, 13)), (Order{1, 0, 3}));
  EXPECT_EQ(slots(*p, view_of(4, 14)), (Order{1, 0, 2, 3}));
}

TEST(SpinBackoffOrder, AllBackedOffFallsBackToTheBaseOrder) {
  auto p = policy("spin_backoff:window=1,backoff=10");
  setp(*p, 1, 1, 0x10, filled(1), filled(0));
  setp(*p, 0, 2, 0x10, filled(1), filled(0));
  // gto: warp 0 issued last, so it comes first, then the oldest.
  auto v = view_of(3, 5);
  EXPECT_EQ(slots(*p, v), (Order{2})) << "warp 2 is awake";
  v.warps[2].wait = WarpWait::Finished;  // finished warps do not count as awake
  EXPECT_EQ(slots(*p, v), (Order{0, 1, 2}));
  v.warps[2].wait = WarpWait::Scoreboard;  // a stalled but live warp does
  EXPECT_EQ(slots(*p, v), (Order{2}));
}

TEST(SpinBackoffOrder, BaseIsSelectable) {
  // gty (greedy then youngest) orders 2, 1, 0; the back-off removes 1.
  auto p = policy("spin_backoff:base=gty");
  EXPECT_EQ(p->name(), "spin_backoff");
  setp(*p, 1, 1, 0x10, filled(1), filled(0));  // one pair: no detection
  EXPECT_EQ(slots(*p, view_of(3, 2)), (Order{1, 2, 0})) << "greedy: 1 issued last, then youngest";
  auto q = policy("spin_backoff:base=gty,window=2,backoff=10");
  setp(*q, 1, 1, 0x10, filled(1), filled(0));
  setp(*q, 1, 2, 0x10, filled(1), filled(0));
  EXPECT_EQ(slots(*q, view_of(3, 3)), (Order{2, 0}));
}

TEST(SpinBackoffOrder, ZeroBackoffOnlyCounts) {
  auto p = policy("spin_backoff:window=1,backoff=0");
  setp(*p, 0, 1, 0x10, filled(1), filled(0));
  EXPECT_EQ(p->stats().at("spin_detections"), 1.0);
  EXPECT_EQ(slots(*p, view_of(2, 2)), (Order{0, 1}));
}

// ---------------------------------------------------------------- statistics

TEST(SpinBackoffStats, CountsDetectionsAndBackoffCycles) {
  auto p = policy("spin_backoff:window=2,backoff=30");
  const auto s0 = p->stats();
  EXPECT_EQ(s0.at("spin_detections"), 0.0);
  EXPECT_EQ(s0.at("spin_backoffs"), 0.0);
  EXPECT_EQ(s0.at("backoff_cycles"), 0.0);
  for (uint64_t c = 0; c < 4; ++c) setp(*p, 0, c, 0x10, filled(1), filled(0));  // detected at 2nd, 3rd, 4th
  setp(*p, 1, 5, 0x10, filled(1), filled(0));
  setp(*p, 1, 6, 0x10, filled(1), filled(0));
  const auto s = p->stats();
  EXPECT_EQ(s.at("spin_detections"), 4.0);
  EXPECT_EQ(s.at("spin_backoffs"), 4.0);
  EXPECT_EQ(s.at("backoff_cycles"), 120.0);
}

// A memory instruction of warp `slot` writing `addr` in every lane of `mask`.
void write_word(WarpSchedulerPolicy& p, uint32_t slot, uint64_t cycle, tlmgpu::ptx::AtomOp atom, uint64_t addr,
                uint32_t mask, uint32_t cas_written = 0) {
  static Lanes addresses;
  addresses.fill(addr);
  IssueEvent e;
  e.cycle = cycle;
  e.slot = slot;
  e.op = atom == tlmgpu::ptx::AtomOp::None ? tlmgpu::ptx::Opcode::St : tlmgpu::ptx::Opcode::Atom;
  e.active_mask = mask;
  e.addresses = addresses.data();
  e.address_mask = mask;
  e.writes_memory = true;
  e.atom = atom;
  e.cas_written = cas_written;
  p.on_issue(e);
}

// A warp backed off while one of its lanes holds the lock the others spin
// for (intra-warp contention under independent thread scheduling) is a
// false positive; once that lane released the word, a back-off is not.
TEST(SpinBackoffStats, CountsBackoffsOfWarpsHoldingTheirLock) {
  using tlmgpu::ptx::AtomOp;
  auto p = policy("spin_backoff:window=2,backoff=10");
  constexpr uint64_t kLock = 0x1000;
  // Lane 0 takes the lock; lanes 1..31 fail on it and spin.
  write_word(*p, 0, 1, AtomOp::Cas, kLock, kAll, 0x1);
  setp(*p, 0, 2, 0x10, filled(1), filled(0), kAll & ~1u);
  write_word(*p, 0, 3, AtomOp::Cas, kLock, kAll & ~1u, 0);
  setp(*p, 0, 4, 0x10, filled(1), filled(0), kAll & ~1u);
  EXPECT_EQ(p->stats().at("spin_backoffs"), 1.0);
  EXPECT_EQ(p->stats().at("false_positive_backoffs"), 1.0);
  // Lane 0 releases (atom.exch); the others keep failing: true spinning now.
  write_word(*p, 0, 20, AtomOp::Exch, kLock, 0x1);
  write_word(*p, 0, 21, AtomOp::Cas, kLock, kAll & ~1u, 0);
  setp(*p, 0, 22, 0x10, filled(1), filled(0), kAll & ~1u);
  EXPECT_EQ(p->stats().at("spin_backoffs"), 2.0);
  EXPECT_EQ(p->stats().at("false_positive_backoffs"), 1.0);
  // Another warp's lock is not this warp's: holding word B while spinning on A is no false positive.
  write_word(*p, 1, 30, AtomOp::Cas, 0x2000, 0x1, 0x1);
  write_word(*p, 1, 31, AtomOp::Cas, kLock, kAll & ~1u, 0);
  setp(*p, 1, 32, 0x10, filled(1), filled(0), kAll & ~1u);
  setp(*p, 1, 33, 0x10, filled(1), filled(0), kAll & ~1u);
  EXPECT_EQ(p->stats().at("spin_backoffs"), 3.0);
  EXPECT_EQ(p->stats().at("false_positive_backoffs"), 1.0);
  // A plain store releases too: warp 2 takes kLock, stores to it, then spins on it.
  write_word(*p, 2, 40, AtomOp::Cas, kLock, 0x1, 0x1);
  write_word(*p, 2, 41, AtomOp::None, kLock, 0x1);
  write_word(*p, 2, 42, AtomOp::Cas, kLock, kAll & ~1u, 0);
  setp(*p, 2, 43, 0x10, filled(1), filled(0), kAll & ~1u);
  setp(*p, 2, 44, 0x10, filled(1), filled(0), kAll & ~1u);
  EXPECT_EQ(p->stats().at("spin_backoffs"), 4.0);
  EXPECT_EQ(p->stats().at("false_positive_backoffs"), 1.0);
}

// ------------------------------------------------------------------ registry

TEST(SpinBackoffRegistry, ListedWithParameters) {
  bool found = false;
  for (const auto& d : registered_policies())
    if (d.name == "spin_backoff") {
      found = true;
      EXPECT_TRUE(contains(d.description, "base=gto")) << d.description;
      EXPECT_TRUE(contains(d.description, "backoff=1000")) << d.description;
      EXPECT_TRUE(contains(d.description, "window=5")) << d.description;
    }
  EXPECT_TRUE(found);
}

TEST(SpinBackoffRegistry, DefaultsAreWindow5AndBackoff1000) {
  auto p = policy("spin_backoff");
  for (uint64_t c = 1; c <= 4; ++c) setp(*p, 0, c, 0x10, filled(1), filled(0));
  EXPECT_EQ(p->stats().at("spin_detections"), 0.0);
  setp(*p, 0, 5, 0x10, filled(1), filled(0));
  EXPECT_EQ(p->stats().at("spin_detections"), 1.0);
  EXPECT_EQ(as_spin(*p).wake_cycle(0), 1006u);
}

TEST(SpinBackoffRegistry, BadParametersAreErrors) {
  EXPECT_TRUE(contains(error_of("spin_backoff:window=0"), "window=0")) << error_of("spin_backoff:window=0");
  EXPECT_TRUE(contains(error_of("spin_backoff:backoff=-1"), "backoff=-1"));
  EXPECT_TRUE(contains(error_of("spin_backoff:detector=oracle"), "history or table"));
  EXPECT_TRUE(contains(error_of("spin_backoff:base=fifo"), "unknown scheduler policy 'fifo'"));
  EXPECT_TRUE(contains(error_of("spin_backoff:base=spin_backoff"), "not allowed"));
  EXPECT_TRUE(contains(error_of("spin_backoff:confidence=3"), "only to detector=table"));
  EXPECT_TRUE(contains(error_of("spin_backoff:group=4"), "it accepts: base"));
  EXPECT_EQ(error_of("spin_backoff:base=lrr,detector=table,confidence=4,backoff=7,window=9"), "");
}

// ------------------------------------------------------------- table detector

TEST(SpinBackoffTable, SpinningWarpBacksOffAtAConfidentBackwardBranch) {
  auto p = policy("spin_backoff:detector=table,confidence=2,window=2,backoff=10");
  auto& s = as_spin(*p);
  setp(*p, 0, 1, 0x10, filled(1), filled(0));
  setp(*p, 0, 2, 0x10, filled(1), filled(0));
  EXPECT_TRUE(s.spinning(0));
  EXPECT_FALSE(s.backed_off(0, 3)) << "the table detector backs off at branches, not at setp";
  branch(*p, 0, 3, 0x30);
  EXPECT_EQ(s.branch_confidence(0x30), 1u);
  EXPECT_FALSE(s.backed_off(0, 4)) << "confidence 1 < 2";
  branch(*p, 0, 4, 0x30, /*taken=*/false);
  branch(*p, 0, 5, 0x30, /*taken=*/true, /*backward=*/false);
  EXPECT_EQ(s.branch_confidence(0x30), 1u) << "only taken backward branches count";
  branch(*p, 0, 6, 0x30);
  EXPECT_EQ(s.branch_confidence(0x30), 2u);
  EXPECT_TRUE(s.backed_off(0, 7));
  EXPECT_EQ(s.wake_cycle(0), 17u);
  EXPECT_EQ(p->stats().at("spin_backoffs"), 1.0);
}

TEST(SpinBackoffTable, NonSpinningWarpLowersConfidence) {
  auto p = policy("spin_backoff:detector=table,confidence=2,window=1,backoff=10");
  auto& s = as_spin(*p);
  setp(*p, 0, 1, 0x10, filled(1), filled(0));  // warp 0 spins (window=1)
  branch(*p, 0, 2, 0x30);
  branch(*p, 1, 3, 0x30);  // warp 1 never spun
  EXPECT_EQ(s.branch_confidence(0x30), 0u);
  EXPECT_FALSE(s.spinning(1));
  branch(*p, 1, 4, 0x50);  // not in the table: stays out of it
  EXPECT_EQ(s.branch_confidence(0x50), 0u);
  // A setp where a lane changes clears the warp's spinning state.
  auto q = policy("spin_backoff:detector=table,confidence=1,window=2,backoff=10");
  Lanes a = filled(1);
  setp(*q, 0, 1, 0x10, a, filled(0));
  setp(*q, 0, 2, 0x10, a, filled(0));
  EXPECT_TRUE(as_spin(*q).spinning(0));
  a[0] = 9;
  setp(*q, 0, 3, 0x10, a, filled(0));
  EXPECT_FALSE(as_spin(*q).spinning(0));
  branch(*q, 0, 4, 0x30);
  EXPECT_FALSE(as_spin(*q).backed_off(0, 5));
}

// --------------------------------------------------------------- end to end

// The lock workloads of seed 001 on the cycle-level GPU: backing warps off
// must not change results (a warp left out forever would hang the run).
// One configuration only: SystemC elaborates one GPU per process.
TEST(SpinBackoffWorkloads, LockWorkloadsVerify) {
  using namespace tlmgpu;
  for (const char* name : {"global_increment", "transactions"})
    for (const char* spec : {"spin_backoff:backoff=200"}) {
      const workloads::WorkloadInfo* info = workloads::find_workload(name);
      ASSERT_NE(info, nullptr) << name;
      platform::DeviceOptions options;
      options.mode = platform::SimulationMode::Timing;
      options.config = platform::preset_config("gtx480");
      options.config.scheduler = spec;
      options.divergence = info->ipdom_safe ? exec::DivergenceMode::Ipdom : exec::DivergenceMode::Its;
      platform::GpuDevice device(options);
      const workloads::WorkloadResult r = info->make()->run(device, workloads::Size::Small, 1);
      EXPECT_TRUE(r.verified) << name << " " << spec << ": " << r.detail;
      EXPECT_GT(device.stats().sim_cycles, 0u) << name << " " << spec;
    }
}

}  // namespace
