// srr: strict round robin. The turn belongs to one warp until that warp
// issues; only then does it pass to the next slot, even if other warps are
// ready meanwhile (seed 004 section 2.1: "the pipeline will wait idle").
#include "schedulers/policy_factories.h"
#include "schedulers/policy_support.h"

namespace tlmgpu::schedulers {

namespace {

// Warps that cannot issue until *other* warps act (barrier), or that are not
// there, give up their turn: holding it would deadlock the CTA.
bool can_hold_turn(WarpWait wait) {
  switch (wait) {
    case WarpWait::Barrier:
    case WarpWait::Initializing:
    case WarpWait::Finished:
    case WarpWait::Unused:
      return false;
    default:
      return true;
  }
}

class StrictRoundRobin final : public WarpSchedulerPolicy {
 public:
  std::string name() const override { return "srr"; }

  void order(const SchedulerView& view, std::vector<uint32_t>& order) override {
    const auto n = static_cast<uint32_t>(view.warps.size());
    uint32_t start = 0;
    while (start < n && view.warps[start].slot < turn_from_) ++start;
    for (uint32_t k = 0; k < n; ++k) {
      const uint32_t i = (start + k) % n;
      if (!can_hold_turn(view.warps[i].wait)) continue;
      turn_from_ = view.warps[i].slot;  // the turn stays here until it issues
      order.push_back(i);
      return;
    }
  }

  void on_issue(const IssueEvent& e) override { turn_from_ = e.slot + 1; }
  // Completions do not move this policy's order.
  bool order_follows_completions() const override { return false; }

 private:
  uint32_t turn_from_ = 0;  ///< the turn is the first eligible warp with slot >= this, circularly
};

}  // namespace

std::unique_ptr<WarpSchedulerPolicy> make_srr_policy(const PolicyParams&, const PolicyContext&) {
  return std::make_unique<StrictRoundRobin>();
}

}  // namespace tlmgpu::schedulers
