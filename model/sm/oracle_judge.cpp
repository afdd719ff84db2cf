#include "model/sm/oracle_judge.h"

#include "schedulers/warp_scheduler.h"

namespace tlmgpu::sm {

using schedulers::WarpWait;

void OracleJudge::judge(schedulers::WarpScheduler& scheduler, uint32_t s, const schedulers::SchedulerView& view,
                        int pick, uint64_t now) {
  intended_ = view;
  predictable_ = view;
  intended_.summary = predictable_.summary = false;  // their waits are edited below
  const std::array<bool, kCollectorClasses> collector_free = collectors_.free_classes(s);
  for (size_t i = 0; i < view.warps.size(); ++i) {
    if (view.warps[i].wait != WarpWait::EmptyBuffer) continue;
    const WarpSlot& w = warps_[view.warps[i].slot];
    if (!w.active || w.finished) continue;
    const uint32_t pc = w.warp->pc();
    if (pc >= timing_->size()) continue;
    int8_t collector = -1, pipe = -1;
    WarpWait wait = views_.operand_wait(w, pc, collector, pipe);
    if (views_.unit_blocked(s, collector, pipe, collector_free, now)) wait = WarpWait::UnitBusy;
    const InstructionTiming& t = (*timing_)[pc];
    for (schedulers::SchedulerView* v : {&intended_, &predictable_}) {
      if (v == &predictable_ && now < w.oracle_blocked_until) continue;
      schedulers::WarpView& wv = v->warps[i];
      wv.wait = wait;
      wv.head_pc = pc;
      wv.head_unit = t.unit;
      wv.head_class = t.head_class;
    }
  }
  scheduler.judge(intended_, predictable_, pick < 0 ? -1 : int(view.warps[size_t(pick)].slot));
}

}  // namespace tlmgpu::sm
