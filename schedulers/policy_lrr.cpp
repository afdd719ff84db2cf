// lrr: loose round robin. Priority starts at the warp after the last one
// that issued and wraps around; a warp that is not ready is skipped.
#include "schedulers/policy_factories.h"
#include "schedulers/policy_support.h"

namespace tlmgpu::schedulers {

namespace {

class LooseRoundRobin final : public WarpSchedulerPolicy {
 public:
  std::string name() const override { return "lrr"; }

  void order(const SchedulerView& view, std::vector<uint32_t>& order) override {
    // Before any issue, start at the lowest slot.
    const uint32_t start = issued_any_ ? first_index_after_slot(view, last_slot_) : 0;
    append_circular(static_cast<uint32_t>(view.warps.size()), start, order);
  }

  void on_issue(const IssueEvent& e) override {
    last_slot_ = e.slot;
    issued_any_ = true;
  }

 private:
  uint32_t last_slot_ = 0;
  bool issued_any_ = false;
};

}  // namespace

std::unique_ptr<WarpSchedulerPolicy> make_lrr_policy(const PolicyParams&, const PolicyContext&) {
  return std::make_unique<LooseRoundRobin>();
}

}  // namespace tlmgpu::schedulers
