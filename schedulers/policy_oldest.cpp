// oldest: the oldest ready warp always wins (smallest dispatch age, ties to
// the lower slot); no stickiness.
#include "schedulers/policy_factories.h"
#include "schedulers/policy_support.h"

namespace tlmgpu::schedulers {

namespace {

class OldestFirst final : public WarpSchedulerPolicy {
 public:
  std::string name() const override { return "oldest"; }

  void order(const SchedulerView& view, std::vector<uint32_t>& order) override {
    const auto& ranking = ages_.oldest_first(view);
    order.insert(order.end(), ranking.begin(), ranking.end());
  }
  bool describe_order(const SchedulerView& view, OrderSpec& spec) override {
    spec.ranking = &ages_.oldest_first(view);
    return true;
  }
  // Completions do not move this policy's order; asking for it changes nothing.
  bool order_follows_completions() const override { return false; }
  bool order_is_pure() const override { return true; }

 private:
  AgeRanking ages_;
};

}  // namespace

std::unique_ptr<WarpSchedulerPolicy> make_oldest_policy(const PolicyParams&, const PolicyContext&) {
  return std::make_unique<OldestFirst>();
}

}  // namespace tlmgpu::schedulers
