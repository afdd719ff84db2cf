// The clocked-module contract (engine/clock_domain.h), checked through the
// modules' clock ports: a domain runs the modules bound to its clock, at the
// cycles they ask for, stage by stage with commits after evaluations, on
// rising edges of its clock only; a second clock is a second domain.
#include <gtest/gtest.h>

#include <string>
#include <thread>
#include <vector>

#include <systemc>

#include "engine/clock_domain.h"

namespace {

using tlmgpu::engine::ClockDomain;
using tlmgpu::engine::ClockedModule;
using tlmgpu::engine::StageExecutor;

const sc_core::sc_time kNs(1, sc_core::SC_NS);

/// Asks to run every `every` cycles from cycle `first`; records what it sees.
class StubModule : public ClockedModule {
 public:
  struct Call {
    std::string what;  // "evaluate" / "commit" and the module's name
    uint64_t cycle;
    sc_core::sc_time time;
  };
  std::vector<Call>* log;  // shared by the modules of a test: the order of calls
  std::vector<uint64_t> evaluated;
  uint64_t every;
  int published = 0, pending = 0;   // commit() publishes what evaluate() computed
  uint64_t publish_every = 1;       // asks for a commit in the cycles it divides
  const StubModule* upstream = nullptr;
  std::vector<int> seen_upstream;   // upstream's published value at each evaluation

  StubModule(sc_core::sc_module_name name, uint32_t stage, const sc_core::sc_time& period, std::vector<Call>* calls,
             uint64_t first, uint64_t every_)
      : ClockedModule(name, stage, period), log(calls), every(every_) {
    has_commit();
    if (first != kNever) wake_at(first);
  }
  void evaluate(uint64_t cycle) override {
    evaluated.push_back(cycle);
    if (log) log->push_back({std::string("evaluate ") + basename(), cycle, sc_core::sc_time_stamp()});
    if (upstream) seen_upstream.push_back(upstream->published);
    pending = int(cycle) + 1;  // what it publishes for cycle c
    if (cycle % publish_every == 0) commit_this_cycle();
    if (every != 0) wake_at(cycle + every);
  }
  void commit(uint64_t cycle) override {
    published = pending;
    if (log) log->push_back({std::string("commit ") + basename(), cycle, sc_core::sc_time_stamp()});
  }
};

TEST(ClockDomain, RunsAModuleAtTheCyclesItAsksForAndSleepsInBetween) {
  sc_core::sc_clock clock("clock", kNs);
  ClockDomain domain("domain", kNs);
  domain.clk.bind(clock);
  StubModule m("m", 0, kNs, nullptr, 2, 3);
  m.clk.bind(clock);
  sc_core::sc_start(sc_core::sc_time(11.5, sc_core::SC_NS));
  EXPECT_EQ(m.evaluated, (std::vector<uint64_t>{2, 5, 8, 11}));
  EXPECT_EQ(m.domain(), &domain);
  // The first edge, then only the cycles with work: no activation in between.
  EXPECT_EQ(domain.cycles_run(), 5u);
}

TEST(ClockDomain, EvaluatesAStageThenCommitsItThenTheNextStage) {
  sc_core::sc_clock clock("clock", kNs);
  ClockDomain domain("domain", kNs);
  domain.clk.bind(clock);
  std::vector<StubModule::Call> log;
  // Built in another order than they run: stage first, then construction order.
  StubModule late("late", 1, kNs, &log, 0, 1);
  StubModule a("a", 0, kNs, &log, 0, 1);
  StubModule b("b", 0, kNs, &log, 0, 1);
  for (StubModule* m : {&late, &a, &b}) m->clk.bind(clock);
  b.upstream = &a;     // same stage: sees a's value of the cycle before
  late.upstream = &a;  // later stage: sees a's value of this cycle
  sc_core::sc_start(sc_core::sc_time(1.5, sc_core::SC_NS));  // cycles 0 and 1
  std::vector<std::string> order;
  for (const auto& c : log)
    if (c.cycle == 1) order.push_back(c.what);
  EXPECT_EQ(order, (std::vector<std::string>{"evaluate a", "evaluate b", "commit a", "commit b", "evaluate late",
                                             "commit late"}));
  EXPECT_EQ(b.seen_upstream, (std::vector<int>{0, 1}));
  EXPECT_EQ(late.seen_upstream, (std::vector<int>{1, 2}));
  ASSERT_EQ(domain.modules().size(), 3u);
  EXPECT_EQ(domain.modules()[0], &a);
  EXPECT_EQ(domain.modules()[2], &late);
}

TEST(ClockDomain, CommitsOnlyTheEvaluationsThatAskedForIt) {
  sc_core::sc_clock clock("clock", kNs);
  ClockDomain domain("domain", kNs);
  domain.clk.bind(clock);
  std::vector<StubModule::Call> log;
  StubModule m("m", 0, kNs, &log, 0, 1);
  m.publish_every = 3;
  m.clk.bind(clock);
  sc_core::sc_start(sc_core::sc_time(6.5, sc_core::SC_NS));  // cycles 0 to 6
  std::vector<uint64_t> committed;
  for (const auto& c : log)
    if (c.what == "commit m") committed.push_back(c.cycle);
  EXPECT_EQ(m.evaluated, (std::vector<uint64_t>{0, 1, 2, 3, 4, 5, 6}));
  EXPECT_EQ(committed, (std::vector<uint64_t>{0, 3, 6}));
  EXPECT_EQ(m.published, 7);  // cycle 6's value; those of 1, 2, 4 and 5 were never published
}

/// Wakes `target` from outside the domain's process at a time between edges.
class OffClockWaker : public sc_core::sc_module {
 public:
  ClockedModule* target = nullptr;
  sc_core::sc_time at;
  uint64_t cycle = 0;
  SC_HAS_PROCESS(OffClockWaker);
  explicit OffClockWaker(sc_core::sc_module_name name) : sc_module(name) { SC_THREAD(run); }

 private:
  void run() {
    sc_core::wait(at);
    target->wake_at(cycle);
  }
};

TEST(ClockDomain, AWakeUpFromOutsideRunsTheModuleAtItsCycle) {
  sc_core::sc_clock clock("clock", kNs);
  ClockDomain domain("domain", kNs);
  domain.clk.bind(clock);
  std::vector<StubModule::Call> log;
  StubModule m("m", 0, kNs, &log, 1, 0);  // runs once at cycle 1, then sleeps
  m.clk.bind(clock);
  OffClockWaker early("early"), late("late");
  early.target = late.target = &m;
  early.at = sc_core::sc_time(5.5, sc_core::SC_NS);
  early.cycle = 9;
  late.at = sc_core::sc_time(20.25, sc_core::SC_NS);
  late.cycle = 3;  // passed: the next edge
  sc_core::sc_start(30 * kNs);
  EXPECT_EQ(m.evaluated, (std::vector<uint64_t>{1, 9, 21}));
  ASSERT_EQ(log.size(), 6u);
  EXPECT_EQ(log[2].time, 9 * kNs);  // at the cycle's edge, not off it
  EXPECT_EQ(log[4].time, 21 * kNs);
}

TEST(ClockDomain, AClockHeldLowRunsNothing) {
  sc_core::sc_signal<bool> held_low("held_low", false);
  ClockDomain domain("domain", kNs);
  domain.clk.bind(held_low);
  StubModule m("m", 0, kNs, nullptr, 0, 1);
  m.clk.bind(held_low);
  OffClockWaker waker("waker");
  waker.target = &m;
  waker.at = 3 * kNs;
  waker.cycle = 4;
  sc_core::sc_start(50 * kNs);
  EXPECT_EQ(m.domain(), &domain);
  EXPECT_TRUE(m.evaluated.empty());
  EXPECT_EQ(domain.cycles_run(), 0u);
}

/// Raises and lowers `clock` with rising edges at the given times.
class EdgeDriver : public sc_core::sc_module {
 public:
  sc_core::sc_signal<bool> clock{"clock", false};
  std::vector<sc_core::sc_time> rising;
  SC_HAS_PROCESS(EdgeDriver);
  explicit EdgeDriver(sc_core::sc_module_name name) : sc_module(name) { SC_THREAD(run); }

 private:
  void run() {
    for (const sc_core::sc_time& t : rising) {
      sc_core::wait(t - sc_core::sc_time_stamp());
      clock.write(true);
      sc_core::wait(sc_core::sc_time(0.5, sc_core::SC_NS));
      clock.write(false);
    }
  }
};

TEST(ClockDomain, OnAClockSignalItRunsAtItsRisingEdgesOnly) {
  EdgeDriver driver("driver");
  driver.rising = {2 * kNs, 3 * kNs, 7 * kNs};
  ClockDomain domain("domain", kNs);
  domain.clk.bind(driver.clock);
  StubModule m("m", 0, kNs, nullptr, 0, 1);  // would run every cycle
  m.clk.bind(driver.clock);
  sc_core::sc_start(20 * kNs);
  EXPECT_EQ(m.evaluated, (std::vector<uint64_t>{2, 3, 7}));
}

TEST(ClockDomain, ASecondClockIsASecondDomainAtItsOwnPeriod) {
  const sc_core::sc_time slow(3, sc_core::SC_NS);
  sc_core::sc_clock fast_clock("fast_clock", kNs), slow_clock("slow_clock", slow);
  ClockDomain fast("fast", kNs), slow_domain("slow", slow);
  fast.clk.bind(fast_clock);
  slow_domain.clk.bind(slow_clock);
  std::vector<StubModule::Call> log;
  StubModule f("f", 0, kNs, &log, 0, 1), s("s", 0, slow, &log, 0, 1);
  f.clk.bind(fast_clock);
  s.clk.bind(slow_clock);
  sc_core::sc_start(sc_core::sc_time(11.5, sc_core::SC_NS));
  EXPECT_EQ(f.domain(), &fast);
  EXPECT_EQ(s.domain(), &slow_domain);
  EXPECT_EQ(f.evaluated.size(), 12u);
  EXPECT_EQ(s.evaluated, (std::vector<uint64_t>{0, 1, 2, 3}));
  for (const auto& c : log) {
    if (c.what == "evaluate s") {
      EXPECT_EQ(c.time, double(c.cycle) * slow) << c.cycle;
    }
  }
}

TEST(ClockDomain, AModuleOfAnotherPeriodIsRefused) {
  sc_core::sc_clock clock("clock", kNs);
  ClockDomain domain("domain", kNs);
  domain.clk.bind(clock);
  StubModule m("m", 0, 2 * kNs, nullptr, 0, 1);
  m.clk.bind(clock);
  try {
    sc_core::sc_start(kNs);
    FAIL() << "expected an elaboration error";
  } catch (const sc_core::sc_report& r) {
    EXPECT_NE(std::string(r.what()).find("counts cycles of"), std::string::npos) << r.what();
  }
}

TEST(ClockDomain, AModuleOnAClockNoDomainRunsIsRefused) {
  sc_core::sc_clock clock("clock", kNs), other("other", kNs);
  ClockDomain domain("domain", kNs);
  domain.clk.bind(clock);
  StubModule m("m", 0, kNs, nullptr, 0, 1);
  m.clk.bind(other);
  try {
    sc_core::sc_start(kNs);
    FAIL() << "expected an error: nothing runs m";
  } catch (const sc_core::sc_report& r) {
    EXPECT_NE(std::string(r.what()).find("no clock domain"), std::string::npos) << r.what();
  }
}

/// Evaluates a stage's due modules on threads of its own, in reverse order,
/// and records which modules it got at which cycle.
class ThreadedExecutor : public StageExecutor {
 public:
  std::vector<std::pair<uint64_t, std::vector<std::string>>> rounds;
  void evaluate_stage(ClockedModule* const* modules, uint32_t count, uint64_t cycle) override {
    std::vector<std::string> names;
    for (uint32_t i = 0; i < count; ++i) names.push_back(modules[i]->basename());
    rounds.emplace_back(cycle, names);
    std::vector<std::thread> threads;
    for (uint32_t i = count; i-- > 0;) threads.emplace_back([=] { modules[i]->evaluate(cycle); });
    for (std::thread& t : threads) t.join();
  }
};

TEST(ClockDomain, AStageExecutorEvaluatesTheDueModulesAndTheDomainCommitsThemInOrder) {
  sc_core::sc_clock clock("clock", kNs);
  ClockDomain domain("domain", kNs);
  domain.clk.bind(clock);
  std::vector<StubModule::Call> log;
  // a: every cycle; b: every second; c: cycle 1 only. d is in another stage.
  StubModule a("a", 1, kNs, nullptr, 0, 1), b("b", 1, kNs, nullptr, 0, 2), c("c", 1, kNs, nullptr, 1, 0);
  StubModule d("d", 2, kNs, &log, 0, 1);
  for (StubModule* m : {&a, &b, &c, &d}) m->clk.bind(clock);
  d.upstream = &c;  // a later stage sees the executor's stage committed
  ThreadedExecutor executor;
  domain.set_stage_executor(1, &executor);  // before elaboration: taken at its end
  sc_core::sc_start(sc_core::sc_time(4.5, sc_core::SC_NS));  // cycles 0..4
  using Names = std::vector<std::string>;
  ASSERT_EQ(executor.rounds.size(), 5u);
  EXPECT_EQ(executor.rounds[0], std::make_pair(uint64_t(0), Names{"a", "b"}));
  EXPECT_EQ(executor.rounds[1], std::make_pair(uint64_t(1), Names{"a", "c"}));
  EXPECT_EQ(executor.rounds[2], std::make_pair(uint64_t(2), Names{"a", "b"}));
  EXPECT_EQ(executor.rounds[4], std::make_pair(uint64_t(4), Names{"a", "b"}));
  // Wake-ups asked for on the executor's threads were read back: b every
  // second cycle, c never again.
  EXPECT_EQ(b.evaluated, (std::vector<uint64_t>{0, 2, 4}));
  EXPECT_EQ(c.evaluated, (std::vector<uint64_t>{1}));
  // c's commit of cycle 1 came before d's evaluation of cycle 1.
  EXPECT_EQ(d.seen_upstream, (std::vector<int>{0, 2, 2, 2, 2}));
  EXPECT_EQ(domain.earliest_wake_of_stage(1), 5u);
  EXPECT_EQ(domain.earliest_wake_of_stage(7), ClockDomain::kNever);
}

TEST(ClockDomain, AStageExecutorForAStageWithoutModulesIsRefused) {
  sc_core::sc_clock clock("clock", kNs);
  ClockDomain domain("domain", kNs);
  domain.clk.bind(clock);
  StubModule m("m", 0, kNs, nullptr, 0, 1);
  m.clk.bind(clock);
  ThreadedExecutor executor;
  domain.set_stage_executor(3, &executor);
  try {
    sc_core::sc_start(kNs);
    FAIL() << "expected an elaboration error";
  } catch (const sc_core::sc_report& r) {
    EXPECT_NE(std::string(r.what()).find("stage 3"), std::string::npos) << r.what();
  }
}

}  // namespace
