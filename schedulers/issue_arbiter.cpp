#include "schedulers/issue_arbiter.h"

#include <stdexcept>

namespace tlmgpu::schedulers {

const char* to_string(IssueSlotClass c) {
  switch (c) {
    case IssueSlotClass::Issued: return "issued";
    case IssueSlotClass::Idle: return "idle";
    case IssueSlotClass::Scoreboard: return "scoreboard";
    case IssueSlotClass::Pipeline: return "pipeline";
  }
  return "?";
}

IssueArbiter::IssueArbiter(std::unique_ptr<WarpSchedulerPolicy> policy) : policy_(std::move(policy)) {
  if (!policy_) throw std::invalid_argument("IssueArbiter: no policy");
}

int IssueArbiter::pick(const SchedulerView& view, IssueSlotClass& cls) {
  order_.clear();
  policy_->order(view, order_);
  bool unit_busy = false;
  bool operands_pending = false;
  for (const uint32_t i : order_) {
    if (i >= view.warps.size()) continue;  // a policy bug must not crash the SM
    switch (view.warps[i].wait) {
      case WarpWait::Ready:
        cls = IssueSlotClass::Issued;
        return static_cast<int>(i);
      case WarpWait::UnitBusy: unit_busy = true; break;
      case WarpWait::Scoreboard: operands_pending = true; break;
      default: break;
    }
  }
  cls = unit_busy ? IssueSlotClass::Pipeline : operands_pending ? IssueSlotClass::Scoreboard : IssueSlotClass::Idle;
  return -1;
}

int IssueArbiter::select(const SchedulerView& view) {
  const int chosen = pick(view, last_class_);
  ++cycles_[static_cast<size_t>(last_class_)];
  if (chosen >= 0) ++warp_insts_;
  return chosen;
}

int IssueArbiter::select_again(const SchedulerView& view) {
  IssueSlotClass cls;
  const int chosen = pick(view, cls);
  if (chosen >= 0) ++warp_insts_;
  return chosen;
}

void IssueArbiter::account_cycles(IssueSlotClass cls, uint64_t n) {
  cycles_[static_cast<size_t>(cls)] += n;
  if (n) last_class_ = cls;
}

void IssueArbiter::report_stats(stats::StatMap& out) const {
  for (const auto c : {IssueSlotClass::Issued, IssueSlotClass::Idle, IssueSlotClass::Scoreboard,
                       IssueSlotClass::Pipeline})
    out[to_string(c)] = static_cast<double>(cycles(c));
  out["warp_insts"] = static_cast<double>(warp_insts_);
  for (const auto& [key, value] : policy_->stats()) out.emplace(key, value);
}

}  // namespace tlmgpu::schedulers
