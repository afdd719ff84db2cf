// Warp-scheduling policies by name: an explicit table in policy_registry.cpp,
// one line per policy. `tlmgpu list schedulers` prints registered_policies().
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "schedulers/warp_scheduler_policy.h"

namespace tlmgpu::schedulers {

/// Where a policy instance sits: it is created once per scheduler slot.
struct PolicyContext {
  uint32_t num_schedulers = 1;            ///< schedulers in the SM
  uint32_t scheduler_index = 0;           ///< this scheduler's index within the SM
  uint32_t max_warps_per_scheduler = 48;  ///< upper bound on view.warps.size() (for reserving)
};

using PolicyParams = std::map<std::string, std::string>;

struct PolicyDescription {
  std::string name;
  std::string description;  ///< one line; ends with its parameters and defaults, if any
};

/// Every registered policy, sorted by name.
std::vector<PolicyDescription> registered_policies();

/// Creates a policy from "name" or "name:key=value,key=value".
/// Throws std::invalid_argument naming the problem: an unknown policy (and
/// the known names), malformed text, an unknown parameter (and the ones the
/// policy accepts) or a bad value.
std::unique_ptr<WarpSchedulerPolicy> make_policy(const std::string& spec_text, const PolicyContext& context);

/// Same, from an already parsed spec.
std::unique_ptr<WarpSchedulerPolicy> make_policy(const PolicySpec& spec, const PolicyContext& context);

/// Parameter helpers for factories: a missing key gives `fallback`; a value
/// that is not an integer in [min, max] throws std::invalid_argument naming
/// policy, key and value.
uint64_t policy_param_uint(const std::string& policy, const PolicyParams& params, const std::string& key,
                           uint64_t fallback, uint64_t min, uint64_t max);

}  // namespace tlmgpu::schedulers
