// Seed 002's warp-sharing control unit as a hook of the issue stage (the
// policy asks for it: shares_warps). After every scheduler's own issue, a
// scheduler that issued nothing of its own this cycle and has a free SP /
// SFU / MEM collector issues another scheduler's warp that waits for its
// own collector of that unit, at most one per receiving scheduler per
// cycle. Receivers take turns from the cycle number; each looks at the
// other schedulers from the next one on and takes the first stalled warp in
// that scheduler's own priority order.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <vector>

#include "model/sm/execution_pipes.h"
#include "model/sm/operand_collectors.h"
#include "model/sm/scheduler_view_cache.h"
#include "model/sm/warp_slot.h"
#include "schedulers/warp_scheduler.h"

namespace tlmgpu::sm {

class WarpSharing {
 public:
  WarpSharing(const std::vector<std::unique_ptr<schedulers::WarpScheduler>>& schedulers,
              const std::vector<WarpSlot>& warps, const SchedulerViewCache& views, const OperandCollectors& collectors)
      : schedulers_(schedulers), warps_(warps), views_(views), collectors_(collectors) {}

  /// A new cycle: no scheduler issued its own warp yet.
  void begin_cycle() { issued_own_.fill(0); }
  /// Scheduler `s` issued one of its own warps this cycle.
  void issued_own(uint32_t s) { issued_own_[s] = 1; }

  /// Shares warps at `cycle` (counted from the device's first, for the
  /// receivers' turns): `issue(slot, receiver)` issues warp `slot` through
  /// scheduler `receiver`'s collector and pipes, false when it could not.
  template <class Issue>
  void share(uint64_t cycle, Issue&& issue) {
    const uint32_t nsched = uint32_t(schedulers_.size());
    uint64_t taken = 0;  // warps shared this cycle
    for (uint32_t k = 0; k < nsched; ++k) {
      const uint32_t r = uint32_t((cycle + k) % nsched);
      if (issued_own_[r]) continue;
      const std::array<bool, kCollectorClasses> free = collectors_.free_classes(r);
      if (!free[kSpCollector] && !free[kSfuCollector] && !free[kMemCollector]) continue;
      bool shared = false;
      for (uint32_t j = 1; j < nsched && !shared; ++j) {
        const uint32_t d = (r + j) % nsched;
        const schedulers::SchedulerView& dv = views_.view(d);
        for (const uint32_t i : schedulers_[d]->last_order()) {
          // Ready counts too: its scheduler may have filled the collector with another warp this cycle.
          if (i >= dv.warps.size() ||
              (dv.warps[i].wait != schedulers::WarpWait::UnitBusy && dv.warps[i].wait != schedulers::WarpWait::Ready))
            continue;
          const uint32_t slot = dv.warps[i].slot;
          const WarpSlot& w = warps_[slot];
          // A dirty entry: the warp changed since its scheduler looked; it waits for that scheduler's next look.
          if (!w.active || views_.dirty(slot) || w.needs_collector < 0 || (taken >> slot & 1)) continue;
          const uint32_t cls = uint32_t(w.needs_collector);
          if (cls == kDpCollector || !free[cls] || collectors_.free_collector(d, CollectorClass(cls)) >= 0) continue;
          if (!issue(slot, r)) continue;
          taken |= 1ull << slot;
          schedulers_[r]->count_shared_issue(cls == kSpCollector    ? ptx::UnitClass::SP
                                             : cls == kSfuCollector ? ptx::UnitClass::SFU
                                                                    : ptx::UnitClass::MEM);
          shared = true;
          break;
        }
      }
    }
  }

 private:
  const std::vector<std::unique_ptr<schedulers::WarpScheduler>>& schedulers_;
  const std::vector<WarpSlot>& warps_;
  const SchedulerViewCache& views_;
  const OperandCollectors& collectors_;
  std::array<uint8_t, kMaxSchedulersPerSm> issued_own_{};
};

}  // namespace tlmgpu::sm
