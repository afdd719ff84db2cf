// gty: greedy then youngest. The last issued warp keeps priority while it can
// issue; otherwise the youngest warp (largest dispatch age, ties to the
// higher slot: the exact mirror of gto) that is ready.
#include "schedulers/policy_factories.h"
#include "schedulers/policy_support.h"

namespace tlmgpu::schedulers {

std::unique_ptr<WarpSchedulerPolicy> make_gty_policy(const PolicyParams&, const PolicyContext&) {
  return std::make_unique<GreedyThenByAge>("gty", /*youngest_first=*/true);
}

}  // namespace tlmgpu::schedulers
