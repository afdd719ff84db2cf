// gto: greedy then oldest (GTLO in seed 003's terms). The last issued warp
// keeps priority while it can issue; otherwise the oldest warp (smallest
// dispatch age, ties to the lower slot) that is ready.
#include "schedulers/policy_factories.h"
#include "schedulers/policy_support.h"

namespace tlmgpu::schedulers {

namespace {

class GreedyThenOldest final : public WarpSchedulerPolicy {
 public:
  std::string name() const override { return "gto"; }

  void order(const SchedulerView& view, std::vector<uint32_t>& order) override {
    append_greedy_then(view, last_, ages_.oldest_first(view), /*reversed=*/false, order);
  }
  void on_issue(const IssueEvent& e) override { last_.issued(e.slot); }
  void on_warp_finish(uint32_t slot, uint64_t) override { last_.finished(slot); }

 private:
  LastIssuedWarp last_;
  AgeRanking ages_;
};

}  // namespace

std::unique_ptr<WarpSchedulerPolicy> make_gto_policy(const PolicyParams&, const PolicyContext&) {
  return std::make_unique<GreedyThenOldest>();
}

}  // namespace tlmgpu::schedulers
