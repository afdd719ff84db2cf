// gty: greedy then youngest. The last issued warp keeps priority while it can
// issue; otherwise the youngest warp (largest dispatch age, ties to the
// higher slot: the exact mirror of gto) that is ready.
#include "schedulers/policy_factories.h"
#include "schedulers/policy_support.h"

namespace tlmgpu::schedulers {

namespace {

class GreedyThenYoungest final : public WarpSchedulerPolicy {
 public:
  std::string name() const override { return "gty"; }

  void order(const SchedulerView& view, std::vector<uint32_t>& order) override {
    append_greedy_then(view, last_, ages_.oldest_first(view), /*reversed=*/true, order);
  }
  void on_issue(const IssueEvent& e) override { last_.issued(e.slot); }
  void on_warp_finish(uint32_t slot, uint64_t) override { last_.finished(slot); }

 private:
  LastIssuedWarp last_;
  AgeRanking ages_;
};

}  // namespace

std::unique_ptr<WarpSchedulerPolicy> make_gty_policy(const PolicyParams&, const PolicyContext&) {
  return std::make_unique<GreedyThenYoungest>();
}

}  // namespace tlmgpu::schedulers
