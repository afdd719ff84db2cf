// Helpers shared by the policy tests: a policy from its spec, its order as
// view indices or as slots, an issue event, and the error a spec gives.
#pragma once

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "schedulers/policy_registry.h"

namespace policy_test {

using tlmgpu::schedulers::IssueEvent;
using tlmgpu::schedulers::PolicyContext;
using tlmgpu::schedulers::SchedulerView;
using tlmgpu::schedulers::WarpSchedulerPolicy;

inline std::unique_ptr<WarpSchedulerPolicy> make_test_policy(const std::string& spec, uint32_t warps) {
  PolicyContext c;
  c.max_warps_per_scheduler = warps;
  return tlmgpu::schedulers::make_policy(spec, c);
}

/// The policy's order as indices into view.warps.
inline std::vector<uint32_t> order_of(WarpSchedulerPolicy& p, const SchedulerView& v) {
  std::vector<uint32_t> order;
  p.order(v, order);
  return order;
}

/// The policy's order as slots.
inline std::vector<uint32_t> order_slots(WarpSchedulerPolicy& p, const SchedulerView& v) {
  std::vector<uint32_t> slots;
  for (const auto i : order_of(p, v)) slots.push_back(v.warps.at(i).slot);
  return slots;
}

inline void issue(WarpSchedulerPolicy& p, uint32_t slot, tlmgpu::ptx::Opcode op = tlmgpu::ptx::Opcode::Add,
                  uint32_t pc = 0) {
  IssueEvent e;
  e.slot = slot;
  e.op = op;
  e.pc = pc;
  p.on_issue(e);
}

/// The message make_policy throws for `spec`, or "" when it accepts it.
inline std::string error_of(const std::string& spec) {
  try {
    tlmgpu::schedulers::make_policy(spec, PolicyContext{});
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

inline bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

}  // namespace policy_test
