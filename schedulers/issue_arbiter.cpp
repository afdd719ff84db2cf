#include "schedulers/issue_arbiter.h"

#include <stdexcept>

#include "schedulers/policy_support.h"

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

IssueArbiter::IssueArbiter(std::unique_ptr<WarpSchedulerPolicy> policy) { replace_policy(std::move(policy)); }

void IssueArbiter::replace_policy(std::unique_ptr<WarpSchedulerPolicy> policy) {
  if (!policy) throw std::invalid_argument("IssueArbiter: no policy");
  policy_ = std::move(policy);
  skip_unready_ = policy_->order_is_pure() && !policy_->shares_warps();
  order_.clear();
  spec_ = OrderSpec{};
  spec_warps_ = 0;
  listed_ = true;
  last_class_ = StallClass::Idle;
}

const std::vector<uint32_t>& IssueArbiter::last_order() const {
  if (!listed_) {
    order_.clear();
    walk_order(spec_, spec_warps_, [&](uint32_t i) {
      order_.push_back(i);
      return false;
    });
    listed_ = true;
  }
  return order_;
}

int IssueArbiter::skip_order() {
  // Nothing can issue, and asking the policy would change nothing.
  listed_ = true;
  order_.clear();
  return -1;
}

int IssueArbiter::choose(const SchedulerView& view, uint32_t n, bool summary) {
  const auto is_ready = [&](uint32_t i) {
    return summary ? (view.ready >> i & 1) != 0 : view.warps[i].wait == WarpWait::Ready;
  };
  spec_ = OrderSpec{};
  int chosen = -1;
  if (policy_->describe_order(view, spec_)) {
    listed_ = false;
    spec_warps_ = n;
    if (summary && !spec_.ranking && spec_.greedy < 0 && !spec_.reversed) {
      // A plain rotation (lrr, gtlrr): the first Ready warp at or after start.
      const uint32_t start = n ? spec_.start % n : 0;
      const uint64_t later = start < 64 ? view.ready >> start << start : 0;
      const uint64_t ready = later ? later : view.ready;
      if (ready) chosen = __builtin_ctzll(ready);
    } else if (!summary || view.ready) {
      walk_order(spec_, n, [&](uint32_t i) {
        if (i >= n || !is_ready(i)) return false;  // (a policy bug must not crash the SM)
        chosen = static_cast<int>(i);
        return true;
      });
    }
  } else {
    listed_ = true;
    order_.clear();
    policy_->order(view, order_);
    if (!summary || view.ready) {
      for (const uint32_t i : order_) {
        if (i < n && is_ready(i)) {  // (a policy bug must not crash the SM)
          chosen = static_cast<int>(i);
          break;
        }
      }
    }
  }
  return chosen;
}

int IssueArbiter::pick(const SchedulerView& view, StallClass& cls) {
  const auto n = static_cast<uint32_t>(view.warps.size());
  const bool summary = view.summary && n <= 64;
  const int chosen = summary && view.ready == 0 && skip_unready_ ? skip_order() : choose(view, n, summary);
  if (chosen >= 0) {
    cls = StallClass::Issued;
    return chosen;
  }
  // Nothing issued: judge over every warp of the scheduler, so the classes
  // mean the same under every policy. A Ready warp the policy held back
  // (srr, two_level's pending set) had a valid instruction with its operands
  // ready and did not issue: a pipeline cycle, as seed 000 words it.
  bool operands_ready = false;
  bool operands_pending = false;
  if (summary) {
    operands_ready = (view.ready | view.unit_busy) != 0;
    operands_pending = view.scoreboard != 0;
  } else {
    for (const auto& w : view.warps) {
      operands_ready |= w.wait == WarpWait::UnitBusy || w.wait == WarpWait::Ready;
      operands_pending |= w.wait == WarpWait::Scoreboard;
    }
  }
  cls = operands_ready ? StallClass::Pipeline : operands_pending ? StallClass::Scoreboard : StallClass::Idle;
  return -1;
}

int IssueArbiter::select(const SchedulerView& view) {
  const int chosen = pick(view, last_class_);
  ++cycles_[static_cast<size_t>(last_class_)];
  if (slot_sink_) slot_sink_->slots(static_cast<uint8_t>(last_class_), 1);
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
  if (slot_sink_ && n) slot_sink_->slots(static_cast<uint8_t>(cls), n);
}

void IssueArbiter::report_stats(core::StatReport& out) const {
  using core::Unit;
  out.add(to_string(StallClass::Issued), cycles(StallClass::Issued), Unit::Cycles, "cycles the scheduler issued");
  out.add(to_string(StallClass::Idle), cycles(StallClass::Idle), Unit::Cycles,
          "cycles without issue and without a valid instruction (barrier, empty buffer, finished)");
  out.add(to_string(StallClass::Scoreboard), cycles(StallClass::Scoreboard), Unit::Cycles,
          "cycles without issue in which warps waited for the scoreboard and none had its operands ready");
  out.add(to_string(StallClass::Pipeline), cycles(StallClass::Pipeline), Unit::Cycles,
          "cycles without issue whose ready warps all found their pipeline or collector busy");
  out.add("warp_insts", warp_insts_, Unit::Count, "warp instructions this scheduler issued");
  policy_->report_stats(out);
}

}  // namespace tlmgpu::schedulers
