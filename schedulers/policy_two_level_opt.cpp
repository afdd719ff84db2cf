// two_level_opt: seed 004's "2-level opt" — the two-level scheduler with
// LFWS's rule applied inside the active group: active warps whose next
// instruction is a long memory operation (HeadClass::LongMem) go first, the
// others after them, each part keeping two_level's round-robin order.
//
// The active / pending bookkeeping is two_level's own (the policy wraps an
// instance of it), so both schedulers move warps between the sets the same
// way and differ only in the order inside the active set.
#include "schedulers/policy_factories.h"

namespace tlmgpu::schedulers {

namespace {

class TwoLevelLongFirst final : public WarpSchedulerPolicy {
 public:
  TwoLevelLongFirst(std::unique_ptr<WarpSchedulerPolicy> base, const PolicyContext& context)
      : base_(std::move(base)) {
    active_.reserve(context.max_warps_per_scheduler);
  }

  std::string name() const override { return "two_level_opt"; }

  void order(const SchedulerView& view, std::vector<uint32_t>& order) override {
    active_.clear();
    base_->order(view, active_);
    // Stable partition into `order` without allocating: long heads, then the rest.
    for (const bool long_part : {true, false})
      for (const uint32_t i : active_)
        if ((view.warps[i].head_class == core::HeadClass::LongMem) == long_part) order.push_back(i);
  }

  void on_issue(const IssueEvent& e) override { base_->on_issue(e); }
  void on_complete(const CompleteEvent& e) override { base_->on_complete(e); }
  bool order_follows_completions() const override { return base_->order_follows_completions(); }
  void on_warp_start(uint32_t slot, uint64_t cycle) override { base_->on_warp_start(slot, cycle); }
  void on_warp_finish(uint32_t slot, uint64_t cycle) override { base_->on_warp_finish(slot, cycle); }
  void report_stats(core::StatReport& out) const override { base_->report_stats(out); }

 private:
  std::unique_ptr<WarpSchedulerPolicy> base_;  ///< a two_level policy
  std::vector<uint32_t> active_;               ///< its order of the active set, reused every cycle
};

}  // namespace

std::unique_ptr<WarpSchedulerPolicy> make_two_level_opt_policy(const PolicyParams& params,
                                                               const PolicyContext& context) {
  // Checked here first so that a bad value names this policy; two_level reads the same key.
  policy_param_uint("two_level_opt", params, "group", 8, 1, 1024);
  return std::make_unique<TwoLevelLongFirst>(make_two_level_policy(params, context), context);
}

}  // namespace tlmgpu::schedulers
