// The decision logic of one warp scheduler, free of SystemC so that the
// trace harness and unit tests can drive it directly: asks the policy for its
// order, issues the first Ready warp in it, and classifies the cycle.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "core/stats_provider.h"
#include "core/timeline_sinks.h"
#include "schedulers/warp_scheduler_policy.h"

namespace tlmgpu::schedulers {

/// What one scheduler did in one cycle (seed 000 section II.B). Idle is 0
/// so that a zero-initialized class means "nothing happened".
enum class StallClass : uint8_t {
  Idle = 0,        ///< no warp had a valid instruction (barrier, empty buffer, finished)
  Issued = 1,      ///< a warp issued
  Scoreboard = 2,  ///< valid instructions, but none with its operands ready
  Pipeline = 3,    ///< some warp had its operands ready but could not issue (unit / collector busy)
};

const char* to_string(StallClass c);

class IssueArbiter {
 public:
  explicit IssueArbiter(std::unique_ptr<WarpSchedulerPolicy> policy);

  /// One issue decision: index into view.warps of the warp to issue, or -1.
  /// Counts the cycle in its class; without an issue the class is judged
  /// over all of view.warps (a Ready warp the policy held back counts as
  /// Pipeline).
  int select(const SchedulerView& view);
  /// A further issue in the same cycle (issue width > 1): does not count a
  /// cycle, only the instruction.
  int select_again(const SchedulerView& view);
  /// The decision select() would take, without counting anything (oracles).
  int peek(const SchedulerView& view) {
    StallClass cls;
    return pick(view, cls);
  }

  /// Cycles that passed without a select() call (the SM skipped them).
  void account_cycles(StallClass cls, uint64_t n);

  /// A new GPU context: a fresh policy, no memory of earlier picks (the
  /// cycle counts carry on).
  void replace_policy(std::unique_ptr<WarpSchedulerPolicy> policy);

  void notify_issue(const IssueEvent& e) { policy_->on_issue(e); }
  void notify_complete(const CompleteEvent& e) { policy_->on_complete(e); }
  void warp_started(uint32_t slot, uint64_t cycle) { policy_->on_warp_start(slot, cycle); }
  void warp_finished(uint32_t slot, uint64_t cycle) { policy_->on_warp_finish(slot, cycle); }

  StallClass last_class() const { return last_class_; }
  /// The policy's order at the last select() (indices into that view.warps;
  /// empty when it was not asked for, see WarpSchedulerPolicy::order_is_pure).
  const std::vector<uint32_t>& last_order() const;
  uint64_t cycles(StallClass c) const { return cycles_[static_cast<size_t>(c)]; }
  uint64_t warp_insts() const { return warp_insts_; }
  const WarpSchedulerPolicy& policy() const { return *policy_; }
  WarpSchedulerPolicy& policy() { return *policy_; }

  /// issued / idle / scoreboard / pipeline cycles, warp_insts, then the
  /// policy's own statistics.
  void report_stats(core::StatReport& out) const;

  /// A timeline's listener for every cycle counted from now on (nullptr: none).
  void set_slot_sink(core::IssueSlotSink* sink) { slot_sink_ = sink; }

 private:
  int pick(const SchedulerView& view, StallClass& cls);
  /// The first Ready warp in the policy's order (-1: none).
  int choose(const SchedulerView& view, uint32_t n, bool summary);
  int skip_order();

  std::unique_ptr<WarpSchedulerPolicy> policy_;
  /// The policy's order at the last pick; when the policy described it
  /// (spec_), listed only if last_order() asks.
  mutable std::vector<uint32_t> order_;
  OrderSpec spec_;
  uint32_t spec_warps_ = 0;    ///< view.warps.size() at that pick
  mutable bool listed_ = true;
  uint64_t cycles_[4] = {0, 0, 0, 0};
  uint64_t warp_insts_ = 0;
  StallClass last_class_ = StallClass::Idle;
  /// The policy's order need not be asked for when no warp is Ready (a pure
  /// order, and no warp sharing reading last_order()).
  bool skip_unready_ = false;
  core::IssueSlotSink* slot_sink_ = nullptr;
};

}  // namespace tlmgpu::schedulers
