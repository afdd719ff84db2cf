// gto: greedy then oldest (GTLO in seed 003's terms). The last issued warp
// keeps priority while it can issue; otherwise the oldest warp (smallest
// dispatch age, ties to the lower slot) that is ready.
#include "schedulers/policy_factories.h"
#include "schedulers/policy_support.h"

namespace tlmgpu::schedulers {

std::unique_ptr<WarpSchedulerPolicy> make_gto_policy(const PolicyParams&, const PolicyContext&) {
  return std::make_unique<GreedyThenByAge>("gto", /*youngest_first=*/false);
}

}  // namespace tlmgpu::schedulers
