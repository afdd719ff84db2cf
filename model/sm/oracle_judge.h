// Seed 003's oracle schedulers (sm.oracle_schedulers) as a hook of the
// issue stage: after a scheduler picks, osched1 and osched2 judge its
// decision on views that see past an empty instruction buffer (VI-A.4).
// osched1 assumes every buffer holds its warp's next instruction: a warp
// whose buffer is empty (or not decoded yet) is judged on that
// instruction's operands. osched2 does the same except for warps whose
// buffer is empty for a predictable reason: an i-cache miss less than
// 1 + miss + hit latency ago, a taken branch less than 1 + hit latency ago
// (the slot's oracle_blocked_until, which fetch keeps).
#pragma once

#include <cstdint>
#include <vector>

#include "model/sm/execution_pipes.h"
#include "model/sm/operand_collectors.h"
#include "model/sm/scheduler_view_cache.h"
#include "model/sm/warp_slot.h"
#include "schedulers/warp_scheduler_policy.h"

namespace tlmgpu::schedulers {
class WarpScheduler;
}

namespace tlmgpu::sm {

class OracleJudge {
 public:
  OracleJudge(const std::vector<WarpSlot>& warps, const SchedulerViewCache& views, const OperandCollectors& collectors)
      : warps_(warps), views_(views), collectors_(collectors) {}

  /// Per-PC timing of the launch the warps run.
  void begin_launch(const std::vector<InstructionTiming>* timing) { timing_ = timing; }
  /// `scheduler` (the SM's scheduler `s`) picked view position `pick` (-1:
  /// none) of `view` at `now`: its oracles judge that.
  void judge(schedulers::WarpScheduler& scheduler, uint32_t s, const schedulers::SchedulerView& view, int pick,
             uint64_t now);

 private:
  const std::vector<WarpSlot>& warps_;
  const SchedulerViewCache& views_;
  const OperandCollectors& collectors_;
  const std::vector<InstructionTiming>* timing_ = nullptr;
  schedulers::SchedulerView intended_, predictable_;  // osched1's and osched2's views, kept for their capacity
};

}  // namespace tlmgpu::sm
