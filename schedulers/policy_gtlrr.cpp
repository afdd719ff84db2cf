// gtlrr: greedy then loose round robin (seed 003). The last issued warp
// keeps priority while it can issue; when it stalls, the warps after it in
// slot order follow, wrapping around: a circular order starting *at* it.
#include "schedulers/policy_factories.h"
#include "schedulers/policy_support.h"

namespace tlmgpu::schedulers {

namespace {

class GreedyThenLooseRoundRobin final : public WarpSchedulerPolicy {
 public:
  std::string name() const override { return "gtlrr"; }

  void order(const SchedulerView& view, std::vector<uint32_t>& order) override {
    OrderSpec spec;
    describe_order(view, spec);
    append_order(spec, static_cast<uint32_t>(view.warps.size()), order);
  }
  // A rotation of the view that starts at the last issued warp.
  bool describe_order(const SchedulerView& view, OrderSpec& spec) override {
    if (issued_any_) {
      const int at = index_of_slot(view, last_slot_);
      // The last warp left (finished): continue with the slot after it.
      spec.start = at >= 0 && !finished_ ? static_cast<uint32_t>(at) : first_index_after_slot(view, last_slot_);
    }
    return true;
  }

  void on_issue(const IssueEvent& e) override {
    last_slot_ = e.slot;
    issued_any_ = true;
    finished_ = false;
  }
  // Completions do not move this policy's order; asking for it changes nothing.
  bool order_follows_completions() const override { return false; }
  bool order_is_pure() const override { return true; }
  void on_warp_finish(uint32_t slot, uint64_t) override {
    if (slot == last_slot_) finished_ = true;
  }

 private:
  uint32_t last_slot_ = 0;
  bool issued_any_ = false;
  bool finished_ = false;
};

}  // namespace

std::unique_ptr<WarpSchedulerPolicy> make_gtlrr_policy(const PolicyParams&, const PolicyContext&) {
  return std::make_unique<GreedyThenLooseRoundRobin>();
}

}  // namespace tlmgpu::schedulers
