// lrr: loose round robin. Priority starts at the warp after the last one
// that issued and wraps around; a warp that is not ready is skipped.
//
// probe=K (default 0 = every warp) limits how many warps the scheduler may
// examine in one cycle, starting at the round-robin pointer; if none of them
// issues, the pointer still moves past them. probe=2 ("look at the turn warp,
// switch to the next one if it is hung") is the reading that reproduces the
// 39 cycles of seed 004 Fig. 1(b); see docs/SCHEDULERS.md.
#include "schedulers/policy_factories.h"
#include "schedulers/policy_support.h"

namespace tlmgpu::schedulers {

namespace {

bool in_rotation(WarpWait wait) { return wait != WarpWait::Unused && wait != WarpWait::Finished; }

class LooseRoundRobin final : public WarpSchedulerPolicy {
 public:
  explicit LooseRoundRobin(uint32_t probe) : probe_(probe) {}

  std::string name() const override { return "lrr"; }

  void order(const SchedulerView& view, std::vector<uint32_t>& order) override {
    const auto n = static_cast<uint32_t>(view.warps.size());
    // Before any issue, start at the lowest slot.
    const uint32_t start = moved_ ? first_index_after_slot(view, pointer_after_) : 0;
    if (probe_ == 0) {
      append_circular(n, start, order);
      return;
    }
    uint32_t examined = 0;
    for (uint32_t k = 0; k < n && examined < probe_; ++k) {
      const uint32_t i = (start + k) % n;
      if (!in_rotation(view.warps[i].wait)) continue;
      order.push_back(i);
      ++examined;
    }
    if (!order.empty()) {
      pointer_after_ = view.warps[order.back()].slot;  // on_issue corrects this when one issues
      moved_ = true;
    }
  }

  // Without a probe limit the order is a rotation of the view.
  bool describe_order(const SchedulerView& view, OrderSpec& spec) override {
    if (probe_ != 0) return false;
    spec.start = moved_ ? first_index_after_slot(view, pointer_after_) : 0;
    return true;
  }
  void on_issue(const IssueEvent& e) override {
    pointer_after_ = e.slot;
    moved_ = true;
  }
  // Completions do not move this policy's order.
  bool order_follows_completions() const override { return false; }
  // With a probe limit, asking moves the pointer.
  bool order_is_pure() const override { return probe_ == 0; }

  // With a probe limit the pointer moves every cycle, issue or not.
  uint64_t next_reorder_cycle(uint64_t now) const override { return probe_ ? now + 1 : UINT64_MAX; }

 private:
  uint32_t probe_;
  uint32_t pointer_after_ = 0;  ///< the next round starts after this slot
  bool moved_ = false;
};

}  // namespace

std::unique_ptr<WarpSchedulerPolicy> make_lrr_policy(const PolicyParams& params, const PolicyContext&) {
  return std::make_unique<LooseRoundRobin>(static_cast<uint32_t>(policy_param_uint("lrr", params, "probe", 0, 0, 1024)));
}

}  // namespace tlmgpu::schedulers
