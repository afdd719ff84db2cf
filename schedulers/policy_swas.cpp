// swas: seed 003's synchronized warp scheduling. One scheduler serves the
// fetch and the issue stage: the warp it selects issues the head of its
// instruction queue and fetches one instruction in the same cycle, so the
// queues stay full (with NOPs where an i-cache miss or a taken branch breaks
// the flow) and the intended policy is followed exactly. The order is that of
// the chosen policy (lrr, gtlrr or gtlo); the pipeline half (NOP-filled
// queues, fetch with issue, suspension on a miss) lives in the SM, which
// asks fetches_with_issue().
#include <stdexcept>

#include "schedulers/policy_factories.h"

namespace tlmgpu::schedulers {

namespace {

class SynchronizedWarpScheduling final : public WarpSchedulerPolicy {
 public:
  explicit SynchronizedWarpScheduling(std::unique_ptr<WarpSchedulerPolicy> policy) : policy_(std::move(policy)) {}

  std::string name() const override { return "swas"; }
  void order(const SchedulerView& view, std::vector<uint32_t>& order) override { policy_->order(view, order); }
  void on_issue(const IssueEvent& e) override { policy_->on_issue(e); }
  void on_complete(const CompleteEvent& e) override { policy_->on_complete(e); }
  bool order_follows_completions() const override { return policy_->order_follows_completions(); }
  void on_warp_start(uint32_t slot, uint64_t cycle) override { policy_->on_warp_start(slot, cycle); }
  void on_warp_finish(uint32_t slot, uint64_t cycle) override { policy_->on_warp_finish(slot, cycle); }
  uint64_t next_reorder_cycle(uint64_t now) const override { return policy_->next_reorder_cycle(now); }
  bool fetches_with_issue() const override { return true; }

 private:
  std::unique_ptr<WarpSchedulerPolicy> policy_;
};

}  // namespace

std::unique_ptr<WarpSchedulerPolicy> make_swas_policy(const PolicyParams& params, const PolicyContext& context) {
  const auto it = params.find("policy");
  std::string policy = it == params.end() ? "gtlrr" : it->second;
  if (policy != "lrr" && policy != "gtlrr" && policy != "gtlo")
    throw std::invalid_argument("scheduler policy 'swas': policy=" + policy + " (allowed: lrr, gtlrr, gtlo)");
  if (policy == "gtlo") policy = "gto";  // seed 003's GTLO is our gto
  return std::make_unique<SynchronizedWarpScheduling>(make_policy(PolicySpec{policy, {}}, context));
}

}  // namespace tlmgpu::schedulers
