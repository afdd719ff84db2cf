// lfws: long-operation-first warp scheduling (seed 004, Algorithms 1 and 2).
//
// - Pending warps (initializing, at a barrier, at a membar, waiting for an
//   atomic, or with an empty instruction buffer) are filtered out of the
//   order; every other warp is in the ready queue, even when its operands
//   are not ready yet (the scoreboard is checked when the queue is walked).
// - The ready queue is the long group (head instruction is a global / local
//   / texture load or store: HeadClass::LongMem) followed by the short group.
// - Inside each group, greedy then oldest: the warp that issued last (if it
//   is in that group), then the others by dispatch age (ties: lower slot).
#include "schedulers/policy_factories.h"
#include "schedulers/policy_progress.h"
#include "schedulers/policy_support.h"

namespace tlmgpu::schedulers {

namespace {

class LongFirst final : public WarpSchedulerPolicy {
 public:
  explicit LongFirst(const PolicyContext& context) { was_long_.reserve(context.max_warps_per_scheduler); }

  std::string name() const override { return "lfws"; }

  void order(const SchedulerView& view, std::vector<uint32_t>& order) override {
    const auto& ranking = ages_.oldest_first(view);
    const int greedy = last_.valid() ? index_of_slot(view, last_.slot()) : -1;
    for (const auto& w : view.warps) {
      if (w.slot >= was_long_.size()) was_long_.resize(w.slot + 1, false);
      was_long_[w.slot] = w.head_class == core::HeadClass::LongMem;
    }
    // Two passes over the same age ranking: long group, then short group.
    for (const bool long_group : {true, false}) {
      const auto in_group = [&](uint32_t i) {
        const auto& w = view.warps[i];
        return !is_absent(w.wait) && !is_lfws_pending(w.wait) && (w.head_class == core::HeadClass::LongMem) == long_group;
      };
      if (greedy >= 0 && in_group(static_cast<uint32_t>(greedy))) order.push_back(static_cast<uint32_t>(greedy));
      for (const uint32_t i : ranking)
        if (static_cast<int>(i) != greedy && in_group(i)) order.push_back(i);
    }
  }

  void on_issue(const IssueEvent& e) override {
    last_.issued(e.slot);
    const bool was_long = e.slot < was_long_.size() && was_long_[e.slot];
    ++(was_long ? long_issues_ : short_issues_);
  }
  // Completions do not move this policy's order.
  bool order_follows_completions() const override { return false; }
  void on_warp_finish(uint32_t slot, uint64_t) override { last_.finished(slot); }

  void report_stats(core::StatReport& out) const override {
    out.add("lfws_long_issues", double(long_issues_), core::Unit::Count,
            "issues of warps in the long-latency (global memory) group");
    out.add("lfws_short_issues", double(short_issues_), core::Unit::Count, "issues of warps in the short-latency group");
  }

 private:
  LastIssuedWarp last_;
  AgeRanking ages_;
  std::vector<bool> was_long_;  ///< slot -> head was LongMem in the last order() (for the statistics)
  uint64_t long_issues_ = 0;
  uint64_t short_issues_ = 0;
};

}  // namespace

std::unique_ptr<WarpSchedulerPolicy> make_lfws_policy(const PolicyParams&, const PolicyContext& context) {
  return std::make_unique<LongFirst>(context);
}

}  // namespace tlmgpu::schedulers
