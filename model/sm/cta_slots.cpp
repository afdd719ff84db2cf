#include "model/sm/cta_slots.h"

#include <algorithm>

namespace tlmgpu::sm {

void CtaSlots::begin_launch(const SmLaunch& launch, CtaCompletionIf* dispatcher) {
  launch_ = launch;
  dispatcher_ = dispatcher;
  ++generation_;
  for (Slot& c : slots_) {
    c.cta.reset();
    c.valid = false;
  }
  used_threads_ = used_warps_ = used_regs_ = used_shared_ = 0;
  live_ctas_ = 0;
}

bool CtaSlots::can_accept() const {
  if (launch_.source == nullptr) return false;
  if (live_ctas_ >= smc_.max_ctas) return false;
  if (used_threads_ + launch_.warps_per_cta * ptx::kWarpSize > std::max(smc_.max_threads, ptx::kWarpSize * 1u) &&
      used_threads_ != 0)
    return false;
  if (used_warps_ + launch_.warps_per_cta > smc_.max_warps) return false;
  if (used_regs_ + launch_.regs_per_cta > smc_.registers && used_regs_ != 0) return false;
  if (used_shared_ + launch_.shared_per_cta > smc_.shared_bytes && used_shared_ != 0) return false;
  return true;
}

bool CtaSlots::retire_warp(WarpSlot& w, uint64_t now) {
  ++generation_;
  w.active = false;
  Slot& c = slots_[w.cta_slot];
  c.retired_progress += w.progress;
  c.retired_insts += w.insts_issued;
  if (++c.warps_done < launch_.warps_per_cta) return false;
  c.valid = false;
  --live_ctas_;
  used_threads_ -= launch_.warps_per_cta * ptx::kWarpSize;
  used_warps_ -= launch_.warps_per_cta;
  used_regs_ -= launch_.regs_per_cta;
  used_shared_ -= launch_.shared_per_cta;
  ++ctas_finished_;
  dispatcher_->cta_finished(sm_, c.cta_id, now);
  return true;
}

uint64_t CtaSlots::progress_events() const {
  uint64_t p = ctas_finished_;
  for (const Slot& c : slots_) {
    if (!c.valid) continue;
    p += c.cta->progress_events();
  }
  return p;
}

}  // namespace tlmgpu::sm
