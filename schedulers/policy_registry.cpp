#include "schedulers/policy_registry.h"

namespace tlmgpu::schedulers {

std::vector<PolicyDescription> registered_policies() { return {}; }

}  // namespace tlmgpu::schedulers
