#include "schedulers/issue_arbiter.h"

#include <stdexcept>

namespace tlmgpu::schedulers {

const char* to_string(StallClass c) {
  switch (c) {
    case StallClass::Issued: return "issued";
    case StallClass::Idle: return "idle";
    case StallClass::Scoreboard: return "scoreboard";
    case StallClass::Pipeline: return "pipeline";
  }
  return "?";
}

IssueArbiter::IssueArbiter(std::unique_ptr<WarpSchedulerPolicy> policy) : policy_(std::move(policy)) {
  if (!policy_) throw std::invalid_argument("IssueArbiter: no policy");
}

int IssueArbiter::pick(const SchedulerView& view, StallClass& cls) {
  order_.clear();
  policy_->order(view, order_);
  for (const uint32_t i : order_) {
    if (i >= view.warps.size()) continue;  // a policy bug must not crash the SM
    if (view.warps[i].wait == WarpWait::Ready) {
      cls = StallClass::Issued;
      return static_cast<int>(i);
    }
  }
  // Nothing issued: judge over every warp of the scheduler, so the classes
  // mean the same under every policy. A Ready warp the policy held back
  // (srr, two_level's pending set) had a valid instruction with its operands
  // ready and did not issue: a pipeline cycle, as seed 000 words it.
  bool operands_ready = false;
  bool operands_pending = false;
  for (const auto& w : view.warps) {
    operands_ready |= w.wait == WarpWait::UnitBusy || w.wait == WarpWait::Ready;
    operands_pending |= w.wait == WarpWait::Scoreboard;
  }
  cls = operands_ready ? StallClass::Pipeline : operands_pending ? StallClass::Scoreboard : StallClass::Idle;
  return -1;
}

int IssueArbiter::select(const SchedulerView& view) {
  const int chosen = pick(view, last_class_);
  ++cycles_[static_cast<size_t>(last_class_)];
  if (chosen >= 0) ++warp_insts_;
  return chosen;
}

int IssueArbiter::select_again(const SchedulerView& view) {
  StallClass cls;
  const int chosen = pick(view, cls);
  if (chosen >= 0) ++warp_insts_;
  return chosen;
}

void IssueArbiter::account_cycles(StallClass cls, uint64_t n) {
  cycles_[static_cast<size_t>(cls)] += n;
  if (n) last_class_ = cls;
}

void IssueArbiter::report_stats(stats::StatMap& out) const {
  for (const auto c : {StallClass::Issued, StallClass::Idle, StallClass::Scoreboard,
                       StallClass::Pipeline})
    out[to_string(c)] = static_cast<double>(cycles(c));
  out["warp_insts"] = static_cast<double>(warp_insts_);
  for (const auto& [key, value] : policy_->stats()) out.emplace(key, value);
}

}  // namespace tlmgpu::schedulers
