#include "schedulers/warp_scheduler.h"

#include <stdexcept>

namespace tlmgpu::schedulers {

WarpScheduler::WarpScheduler(sc_core::sc_module_name name, std::unique_ptr<WarpSchedulerPolicy> policy)
    : sc_core::sc_module(name), arbiter_(std::move(policy)) {}

WarpScheduler::WarpScheduler(sc_core::sc_module_name name, const std::string& policy_spec,
                             const PolicyContext& context)
    : sc_core::sc_module(name), arbiter_(make_policy(policy_spec, context)) {}

int WarpScheduler::select(const SchedulerView& view) {
  const int chosen = arbiter_.select(view);
  if (tracing_) {
    traced_warp_ = chosen >= 0 ? static_cast<int>(view.warps[static_cast<size_t>(chosen)].slot) : -1;
    traced_class_ = static_cast<int>(arbiter_.last_class());
  }
  return chosen;
}

void WarpScheduler::account_cycles(StallClass cls, uint64_t n) {
  arbiter_.account_cycles(cls, n);
  if (tracing_ && n) {
    traced_warp_ = -1;
    traced_class_ = static_cast<int>(cls);
  }
}

void WarpScheduler::account_cycles(int cls, uint64_t n) {
  if (cls < 0 || cls > static_cast<int>(StallClass::Pipeline))
    throw std::invalid_argument(std::string(name()) + ": no stall class " + std::to_string(cls));
  account_cycles(static_cast<StallClass>(cls), n);
}

void WarpScheduler::notify_issue(const IssueEvent& e) {
  arbiter_.notify_issue(e);
  if (oracle1_) {
    oracle1_->notify_issue(e);
    oracle2_->notify_issue(e);
  }
}

void WarpScheduler::notify_complete(const CompleteEvent& e) {
  arbiter_.notify_complete(e);
  if (oracle1_) {
    oracle1_->notify_complete(e);
    oracle2_->notify_complete(e);
  }
}

void WarpScheduler::warp_started(uint32_t slot, uint64_t cycle) {
  arbiter_.warp_started(slot, cycle);
  if (oracle1_) {
    oracle1_->warp_started(slot, cycle);
    oracle2_->warp_started(slot, cycle);
  }
}

void WarpScheduler::warp_finished(uint32_t slot, uint64_t cycle) {
  arbiter_.warp_finished(slot, cycle);
  if (oracle1_) {
    oracle1_->warp_finished(slot, cycle);
    oracle2_->warp_finished(slot, cycle);
  }
}

void WarpScheduler::enable_oracles(const std::string& policy_spec, const PolicyContext& context) {
  oracle1_ = std::make_unique<IssueArbiter>(make_policy(policy_spec, context));
  oracle2_ = std::make_unique<IssueArbiter>(make_policy(policy_spec, context));
}

void WarpScheduler::reset_policy(const std::string& policy_spec, const PolicyContext& context) {
  arbiter_.replace_policy(make_policy(policy_spec, context));
  if (oracle1_) enable_oracles(policy_spec, context);
  traced_warp_ = -1;
  traced_class_ = static_cast<int>(StallClass::Idle);
}

void WarpScheduler::judge(const SchedulerView& intended, const SchedulerView& predictable, int issued_slot) {
  auto slot_of = [](const SchedulerView& v, int index) {
    return index < 0 ? -1 : static_cast<int>(v.warps[static_cast<size_t>(index)].slot);
  };
  if (slot_of(intended, oracle1_->peek(intended)) != issued_slot) ++discrepancies_;
  if (slot_of(predictable, oracle2_->peek(predictable)) != issued_slot) ++errors_;
}

void WarpScheduler::count_shared_issue(ptx::UnitClass unit) {
  switch (unit) {
    case ptx::UnitClass::SP: ++shared_issues_[0]; break;
    case ptx::UnitClass::SFU: ++shared_issues_[1]; break;
    case ptx::UnitClass::MEM: ++shared_issues_[2]; break;
    default: throw std::invalid_argument(std::string(name()) + ": warp sharing is for SP, SFU and MEM only");
  }
}

void WarpScheduler::report_stats(core::StatReport& out) const {
  using core::Unit;
  arbiter_.report_stats(out);
  if (oracle1_) {
    // Seed 003: cycles whose real decision differs from osched1 (intended
    // policy) and from osched2 (the same, minus predictable fetch breaks).
    uint64_t cycles = 0;
    for (const auto c : {StallClass::Issued, StallClass::Idle, StallClass::Scoreboard, StallClass::Pipeline})
      cycles += arbiter_.cycles(c);
    out.add("discrepancies", discrepancies_, Unit::Count,
            "cycles whose decision differs from the intended policy's (seed 003's osched1)");
    out.add("errors", errors_, Unit::Count,
            "cycles whose decision differs from osched2 (the intended policy minus predictable fetch breaks)");
    out.add("error_rate", core::StatReport::ratio(errors_, cycles), Unit::Ratio, "errors / classified cycles");
  }
  if (!arbiter_.policy().shares_warps()) return;
  // Seed 002's warp sharing: issues for other schedulers' warps, by the unit
  // of the collector this scheduler lent.
  out.add("shared_issues_sp", shared_issues_[0], Unit::Count,
          "issues for another scheduler's warp through this one's SP collector (warp sharing)");
  out.add("shared_issues_sfu", shared_issues_[1], Unit::Count,
          "issues for another scheduler's warp through this one's SFU collector (warp sharing)");
  out.add("shared_issues_mem", shared_issues_[2], Unit::Count,
          "issues for another scheduler's warp through this one's memory collector (warp sharing)");
}

void WarpScheduler::enable_trace(sc_core::sc_trace_file* tf) {
  if (!tf) return;
  tracing_ = true;
  const std::string prefix = std::string(name()) + ".";
  sc_core::sc_trace(tf, traced_warp_, prefix + "issued_warp");
  sc_core::sc_trace(tf, traced_class_, prefix + "stall_class");
}

}  // namespace tlmgpu::schedulers
