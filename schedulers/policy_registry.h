// Warp-scheduling policies by name. The policies themselves arrive with the
// cycle-level SM; the registry is what `tlmgpu list schedulers` prints.
#pragma once

#include <string>
#include <vector>

namespace tlmgpu::schedulers {

struct PolicyDescription {
  std::string name;
  std::string description;
};

/// Every registered policy, sorted by name.
std::vector<PolicyDescription> registered_policies();

}  // namespace tlmgpu::schedulers
