// The clocked-module contract and its driver. A ClockedModule is an
// sc_module whose `clk` port names the clock it belongs to; it works in
// evaluate(cycle) from what was committed before, publishes in commit(cycle),
// and says when it next needs to run (wake_at). A ClockDomain is the one
// process on a clock's rising edge that runs the modules bound to that clock
// when they are due, in a fixed order, and sleeps through the cycles in which
// none is, as register-transfer hardware runs only the flops whose enable is on.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include <systemc>

#include "core/bit_ops.h"

namespace tlmgpu::engine {

/// The clock input of a clocked module: bound (through its parents' ports)
/// to the clock of the domain that runs it.
using ClockPort = sc_core::sc_port<sc_core::sc_signal_in_if<bool>, 1, sc_core::SC_ONE_OR_MORE_BOUND>;

class ClockDomain;
class ClockedModule;

/// Evaluates the due modules of one stage in place of the domain's loop:
/// on several host threads, say. The domain then commits them in its order.
/// While it runs, a module may ask for a wake-up of its own only (other
/// modules' are not safe to touch from another thread).
class StageExecutor {
 public:
  virtual ~StageExecutor() = default;
  /// Evaluates each of `modules[0..count)` (in the domain's order) once at `cycle`.
  virtual void evaluate_stage(ClockedModule* const* modules, uint32_t count, uint64_t cycle) = 0;
};

class ClockedModule : public sc_core::sc_module {
 public:
  static constexpr uint64_t kNever = ~uint64_t(0);

  /// Which clock domain runs this module: the one whose clock it is bound to.
  ClockPort clk{"clk"};

  /// One cycle's work, from inputs committed before this cycle (or by an
  /// earlier stage of it). Called only in cycles the module asked for.
  virtual void evaluate(uint64_t cycle) = 0;
  /// Publishes what evaluate produced: called after every module of the
  /// stage has been evaluated, in the domain's module order, for the
  /// modules that called has_commit() and whose evaluation called
  /// commit_this_cycle().
  virtual void commit(uint64_t cycle);

  /// Run at `cycle` (kept when an earlier one is already asked for). A cycle
  /// that has passed means the first the module can still run in: this one
  /// when its stage has not started yet, else the next (a module of the
  /// stage that is running sees this cycle's commits only in the next).
  inline void wake_at(uint64_t cycle);
  /// The cycle the module will next run at (kNever: none asked for).
  inline uint64_t next_wake() const;
  /// The cycle being run (outside the domain's process: the current one).
  inline uint64_t now() const;
  /// `n` cycles as a TLM delay annotation.
  sc_core::sc_time cycle_delay(uint64_t n) const {
    return n < kCachedDelays ? delays_[n] : sc_core::sc_time::from_value(period_.value() * n);
  }
  /// Whole cycles in a TLM delay annotation.
  uint64_t cycles_in(const sc_core::sc_time& delay) const { return period_div_.div(delay.value()); }
  const sc_core::sc_time& period() const { return period_; }
  /// Modules run in increasing stage, those of one stage in construction order.
  uint32_t stage() const { return stage_; }
  /// The domain that runs it (set at the end of elaboration; nullptr before).
  ClockDomain* domain() const { return domain_; }

 protected:
  ClockedModule(sc_core::sc_module_name name, uint32_t stage, const sc_core::sc_time& period);
  /// From the constructor: the module overrides commit() (the stages with
  /// none skip the commit pass).
  void has_commit() { has_commit_ = true; }
  /// From evaluate: this cycle produced something to publish, so the domain
  /// calls commit() at the end of the stage. (Writes the module's own flag
  /// only, so it is safe from a stage executor's thread; evaluations that
  /// publish nothing cost no call.)
  void commit_this_cycle() { commit_due_ = true; }
  /// A module that no domain took (its clock has none) would never run: an error.
  void start_of_simulation() override;
  /// The module also runs in every cycle in which a module of an earlier
  /// stage of its domain ran: for a module that sees those modules' outputs
  /// arrive without being told (the GPU top, whose SMs take the memory's
  /// answers directly).
  void run_after_earlier_stages() { follows_earlier_stages_ = true; }

 private:
  friend class ClockDomain;
  static constexpr uint64_t kCachedDelays = 256;
  ClockDomain* domain_ = nullptr;
  uint32_t slot_ = 0;
  uint32_t stage_;
  bool follows_earlier_stages_ = false;
  bool has_commit_ = false;
  bool commit_due_ = false;  // commit_this_cycle() was called in this cycle's evaluation
  uint64_t pending_wake_ = kNever;  // asked for before a domain took the module
  sc_core::sc_time period_;
  core::FixedDivisor period_div_;  // (core/bit_ops.h)
  sc_core::sc_time delays_[kCachedDelays];
};

/// Runs the clocked modules of its parent (or, at the top level, of the
/// whole design) whose `clk` is bound to the same clock as its own `clk`.
/// At every cycle in which one is due it evaluates the due modules stage by
/// stage (all of a stage, then commits them in order), then sleeps until the
/// earliest cycle any module asked for. A wake-up asked for from outside its
/// process (a SoC answer arriving off the clock) wakes it at that cycle.
///
/// On an sc_clock of the domain's period (rising edge at time 0) it sleeps
/// by time, skipping idle cycles; on any other clock signal it looks at
/// every rising edge, and a clock held low runs nothing.
class ClockDomain : public sc_core::sc_module {
 public:
  static constexpr uint64_t kNever = ~uint64_t(0);
  sc_core::sc_in<bool> clk{"clk"};

  ClockDomain(sc_core::sc_module_name name, const sc_core::sc_time& period);

  const sc_core::sc_time& period() const { return period_; }
  /// The cycle being run; outside the domain's process, the current one.
  uint64_t now() const { return in_run_ ? now_ : period_div_.div(sc_core::sc_time_stamp().value()); }
  /// The modules it runs, in run order (after elaboration).
  const std::vector<ClockedModule*>& modules() const { return modules_; }
  /// The earliest cycle a module of a stage below `stage` asked for.
  uint64_t earliest_wake_below_stage(uint32_t stage) const;
  /// The earliest cycle a module of `stage` asked for (kNever: none, or no
  /// such stage). Inside the domain's process, final for the stages run.
  uint64_t earliest_wake_of_stage(uint32_t stage) const {
    const uint32_t index = stage < stage_index_.size() ? stage_index_[stage] : kNoStage;
    return index == kNoStage ? kNever : stages_[index].next;
  }
  /// `executor` evaluates the due modules of `stage` (nullptr: the domain
  /// does, one after another); given before the end of elaboration, from
  /// then on. A stage no module of the domain has is an error.
  void set_stage_executor(uint32_t stage, StageExecutor* executor);
  /// Cycles it ran (woke up at their edge and looked for due modules).
  uint64_t cycles_run() const { return cycles_run_; }
  /// Host time-stamp ticks spent evaluating and committing each stage
  /// (after enable_stage_profile; index = stage number).
  void enable_stage_profile() { profile_ = true; }
  const std::vector<uint64_t>& stage_ticks() const { return stage_ticks_; }

 private:
  friend class ClockedModule;
  struct Stage {
    uint64_t next;  // the earliest wake-up of its modules: a stage none of whose is due is not scanned
    uint32_t number, begin, end;
    bool follows;  // has a module that runs after any earlier stage ran
    bool commits;  // has a module with a commit()
    StageExecutor* executor;  // evaluates its due modules (nullptr: the domain's loop)
  };

  void end_of_elaboration() override;
  void tick();
  void run(uint64_t now);
  /// A module asks for an earlier cycle than it has (ClockedModule::wake_at).
  inline void lower_wake(uint32_t slot, uint64_t cycle);
  void notify_external(uint64_t cycle);
  void apply_executors();

  sc_core::sc_time period_;
  core::FixedDivisor period_div_;  // (core/bit_ops.h)
  std::vector<ClockedModule*> modules_;
  std::vector<uint64_t> wakes_;  // by slot: the cycle each module runs at next
  std::vector<uint32_t> stage_of_;  // by slot: its index in stages_
  static constexpr uint32_t kNoStage = ~uint32_t(0);
  std::vector<uint32_t> stage_index_;  // by stage number: its index in stages_ (kNoStage: no module)
  std::vector<Stage> stages_;
  std::vector<ClockedModule*> due_;  // the due modules of the stage being run
  std::vector<std::pair<uint32_t, StageExecutor*>> executors_;  // set before the end of elaboration
  bool elaborated_ = false;
  uint64_t now_ = 0;
  uint64_t last_run_ = kNever;   // the last cycle run
  uint64_t next_ = kNever;       // earliest wake-up of any module (while it runs: of the stages passed)
  uint64_t armed_ = 0;           // the cycle the process sleeps until (0: it will look anyway)
  uint32_t stage_running_ = 0;   // while running: the index of the stage being evaluated or committed
  bool in_run_ = false;
  bool executor_running_ = false;  // a stage's executor evaluates (maybe on other threads)
  bool timed_ = false;           // on an sc_clock of period_: sleep by time
  bool profile_ = false;
  uint64_t cycles_run_ = 0;
  std::vector<uint64_t> stage_ticks_;
  sc_core::sc_event external_;   // a wake-up asked for from outside the process
};

inline uint64_t ClockedModule::now() const {
  return domain_ ? domain_->now() : period_div_.div(sc_core::sc_time_stamp().value());
}

inline uint64_t ClockedModule::next_wake() const { return domain_ ? domain_->wakes_[slot_] : pending_wake_; }

inline void ClockedModule::wake_at(uint64_t cycle) {
  if (domain_) {
    if (cycle < domain_->wakes_[slot_]) domain_->lower_wake(slot_, cycle);
  } else if (cycle < pending_wake_) {
    pending_wake_ = cycle;
  }
}

inline void ClockDomain::lower_wake(uint32_t slot, uint64_t cycle) {
  if (in_run_) {
    // A passed cycle: this one while the module's stage has not run yet.
    if (cycle <= now_) cycle = stage_of_[slot] > stage_running_ ? now_ : now_ + 1;
    if (cycle >= wakes_[slot]) return;
    wakes_[slot] = cycle;
    // Under an executor the module's own slot only: the domain takes the
    // stage's earliest wake-up from the slots once the executor returns.
    if (executor_running_ && stage_of_[slot] == stage_running_) return;
    Stage& stage = stages_[stage_of_[slot]];
    if (cycle < stage.next) stage.next = cycle;
    // The run takes the earliest wake-up of each stage as it passes it: one
    // already passed counts now.
    if (stage_of_[slot] < stage_running_ && cycle < next_) next_ = cycle;
    return;
  }
  // From outside the process: the earliest cycle it can still run (not
  // one whose edge has passed or that it has run).
  const uint64_t t = sc_core::sc_time_stamp().value();
  uint64_t earliest = period_div_.div(t);
  if (period_div_.mod(t) != 0 || (last_run_ != kNever && last_run_ >= earliest)) ++earliest;
  if (cycle < earliest) cycle = earliest;
  if (cycle >= wakes_[slot]) return;
  wakes_[slot] = cycle;
  Stage& stage = stages_[stage_of_[slot]];
  if (cycle < stage.next) stage.next = cycle;
  if (cycle < next_) next_ = cycle;
  if (cycle < armed_) notify_external(cycle);
}

}  // namespace tlmgpu::engine
