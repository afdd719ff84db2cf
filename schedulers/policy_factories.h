// Factory of each policy, one line per policy file; the registry table in
// policy_registry.cpp refers to them.
#pragma once

#include <memory>

#include "schedulers/policy_registry.h"

namespace tlmgpu::schedulers {

using PolicyFactory = std::unique_ptr<WarpSchedulerPolicy> (*)(const PolicyParams&, const PolicyContext&);

std::unique_ptr<WarpSchedulerPolicy> make_srr_policy(const PolicyParams&, const PolicyContext&);
std::unique_ptr<WarpSchedulerPolicy> make_lrr_policy(const PolicyParams&, const PolicyContext&);
std::unique_ptr<WarpSchedulerPolicy> make_gto_policy(const PolicyParams&, const PolicyContext&);
std::unique_ptr<WarpSchedulerPolicy> make_gtlrr_policy(const PolicyParams&, const PolicyContext&);
std::unique_ptr<WarpSchedulerPolicy> make_oldest_policy(const PolicyParams&, const PolicyContext&);
std::unique_ptr<WarpSchedulerPolicy> make_two_level_policy(const PolicyParams&, const PolicyContext&);
std::unique_ptr<WarpSchedulerPolicy> make_gty_policy(const PolicyParams&, const PolicyContext&);
std::unique_ptr<WarpSchedulerPolicy> make_lfws_policy(const PolicyParams&, const PolicyContext&);
std::unique_ptr<WarpSchedulerPolicy> make_lpi_policy(const PolicyParams&, const PolicyContext&);
std::unique_ptr<WarpSchedulerPolicy> make_llos_policy(const PolicyParams&, const PolicyContext&);
std::unique_ptr<WarpSchedulerPolicy> make_two_level_opt_policy(const PolicyParams&, const PolicyContext&);
std::unique_ptr<WarpSchedulerPolicy> make_pro_policy(const PolicyParams&, const PolicyContext&);
std::unique_ptr<WarpSchedulerPolicy> make_spin_backoff_policy(const PolicyParams&, const PolicyContext&);
std::unique_ptr<WarpSchedulerPolicy> make_kaws_policy(const PolicyParams&, const PolicyContext&);
std::unique_ptr<WarpSchedulerPolicy> make_swas_policy(const PolicyParams&, const PolicyContext&);

}  // namespace tlmgpu::schedulers
