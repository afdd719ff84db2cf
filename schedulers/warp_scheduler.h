// One warp scheduler slot of an SM (gpu.smN.schedK). It has no clocked
// process of its own: the SM's clocked process calls select() once per cycle,
// schedulers in index order, which keeps results independent of SystemC's
// process order and costs no extra activation (docs/SCHEDULERS.md).
#pragma once

#include <array>
#include <memory>
#include <string>

#include <systemc>

#include "core/stats_provider.h"
#include "schedulers/issue_arbiter.h"
#include "schedulers/policy_registry.h"

namespace tlmgpu::schedulers {

class WarpScheduler : public sc_core::sc_module, public core::StatsProvider {
 public:
  /// Owns `policy`.
  WarpScheduler(sc_core::sc_module_name name, std::unique_ptr<WarpSchedulerPolicy> policy);
  /// Creates the policy from its spec ("gto", "two_level:group=8"); throws
  /// std::invalid_argument as make_policy() does.
  WarpScheduler(sc_core::sc_module_name name, const std::string& policy_spec, const PolicyContext& context);

  /// The CTA dispatcher's registered outputs (CTAs still wait: seed 000's
  /// fast phase; the last CTA was dispatched: seed 002's switch point),
  /// bound by the GPU top. A change written in cycle c is read from c + 1.
  /// A scheduler built on its own (tests) leaves them unbound: both read false.
  sc_core::sc_port<sc_core::sc_signal_in_if<bool>, 1, sc_core::SC_ZERO_OR_MORE_BOUND> ctas_waiting{"ctas_waiting"};
  sc_core::sc_port<sc_core::sc_signal_in_if<bool>, 1, sc_core::SC_ZERO_OR_MORE_BOUND> last_cta_dispatched{
      "last_cta_dispatched"};
  bool read_ctas_waiting() { return ctas_waiting.size() && ctas_waiting->read(); }
  bool read_last_cta_dispatched() { return last_cta_dispatched.size() && last_cta_dispatched->read(); }

  /// This cycle's issue: index into view.warps, or -1. Counts the cycle's class.
  int select(const SchedulerView& view);
  /// Another issue in the same cycle (issue width > 1); counts no cycle.
  int select_again(const SchedulerView& view) { return arbiter_.select_again(view); }

  void notify_issue(const IssueEvent& e);
  void notify_complete(const CompleteEvent& e);
  void warp_started(uint32_t slot, uint64_t cycle);
  void warp_finished(uint32_t slot, uint64_t cycle);

  /// Seed 003 section VI-A.4: two oracle schedulers with their own instance
  /// of this scheduler's policy (`policy_spec`) run beside it. They are told
  /// of every real issue (so a greedy oracle follows the real scheduler after
  /// a discrepancy and counts it once) and judge each cycle's real decision.
  void enable_oracles(const std::string& policy_spec, const PolicyContext& context);
  /// A new GPU context: the policy (and the oracles, if enabled) start again
  /// from `policy_spec` with no state from earlier launches; statistics carry on.
  void reset_policy(const std::string& policy_spec, const PolicyContext& context);
  bool has_oracles() const { return oracle1_ != nullptr; }
  /// One cycle's judgement: `intended` is the view as if every instruction
  /// buffer held the warp's next instruction (osched1), `predictable` the
  /// same except for warps inside an i-cache miss or taken-branch window
  /// (osched2); `issued_slot` is the warp the real scheduler issued (-1: none).
  void judge(const SchedulerView& intended, const SchedulerView& predictable, int issued_slot);

  /// Cycles the SM skipped without calling select() (nothing could issue).
  void account_idle_cycles(uint64_t n) { account_cycles(StallClass::Idle, n); }
  void account_cycles(StallClass cls, uint64_t n);
  /// Same, with the class as int (as last_class() returns it).
  void account_cycles(int cls, uint64_t n);

  /// Class of the last cycle accounted, as int (StallClass values), so the
  /// SM can keep it for the cycles it skips.
  int last_class() const { return static_cast<int>(arbiter_.last_class()); }
  /// Whether the policy reads view.ctas (the SM may skip building it).
  bool wants_cta_view() const { return arbiter_.policy().wants_cta_view(); }
  /// The policy's order at the last select().
  const std::vector<uint32_t>& last_order() const { return arbiter_.last_order(); }
  bool shares_warps() const { return arbiter_.policy().shares_warps(); }
  bool fetches_with_issue() const { return arbiter_.policy().fetches_with_issue(); }
  /// See WarpSchedulerPolicy::order_follows_completions.
  bool order_follows_completions() const { return arbiter_.policy().order_follows_completions(); }
  /// Seed 002: this scheduler issued another scheduler's warp into its own
  /// collector for `unit` (SP, SFU or MEM).
  void count_shared_issue(ptx::UnitClass unit);
  /// See WarpSchedulerPolicy::next_reorder_cycle.
  uint64_t next_reorder_cycle(uint64_t now) const { return arbiter_.policy().next_reorder_cycle(now); }

  /// Adds `<name>.issued_warp` (slot or -1) and `<name>.stall_class`
  /// (StallClass as int) to `tf`. Call before sc_start; without it the
  /// scheduler does no trace work at all.
  void enable_trace(sc_core::sc_trace_file* tf);

  std::string policy_name() const { return arbiter_.policy().name(); }
  const IssueArbiter& arbiter() const { return arbiter_; }
  /// A timeline's listener for this scheduler's issue slots (nullptr: none).
  void set_slot_sink(core::IssueSlotSink* sink) { arbiter_.set_slot_sink(sink); }

  void report_stats(core::StatReport& out) const override;

 private:
  IssueArbiter arbiter_;
  std::unique_ptr<IssueArbiter> oracle1_, oracle2_;
  uint64_t discrepancies_ = 0, errors_ = 0;
  // Warps of other schedulers issued here (seed 002), by SP / SFU / MEM.
  std::array<uint64_t, 3> shared_issues_{};
  bool tracing_ = false;
  // Traced as plain values: the trace file samples them every time step, so
  // no sc_signal update (and no delta cycle) is needed to make them visible.
  int traced_warp_ = -1;
  int traced_class_ = static_cast<int>(StallClass::Idle);
};

}  // namespace tlmgpu::schedulers
