// The issue stage's view cache: each warp scheduler's SchedulerView, kept
// between evaluations. A view is rebuilt only when its set of live warps
// changed (keeping unchanged entries); otherwise only the entries of warps
// that changed are refreshed in place: the warps marked dirty, and those
// whose empty or undecoded buffer has a decoded head since. Bit masks by
// warp slot summarise what each entry says (empty buffer, ready, waiting on
// the scoreboard, ready once a collector or pipe is free), so a view's
// ready / unit-busy / scoreboard summary is a few bit operations. The view
// entries are the only copy of what a scheduler sees of a warp; one function
// computes an entry from the warp's state (warp_view).
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "model/sm/execution_pipes.h"
#include "model/sm/instruction_timing.h"
#include "model/sm/operand_collectors.h"
#include "model/sm/warp_slot.h"
#include "schedulers/warp_scheduler_policy.h"

namespace tlmgpu::sm {

class SchedulerViewCache {
 public:
  /// Views for `num_schedulers` schedulers of SM `sm` (named `sm_name` in
  /// errors), over the SM's warp slots, collectors and pipes.
  SchedulerViewCache(uint32_t sm, const std::string& sm_name, uint32_t num_schedulers, std::vector<WarpSlot>& warps,
                     const OperandCollectors& collectors, const ExecutionPipes& pipes);

  /// SWaS: a warp whose i-cache miss is being served is suspended (EmptyBuffer).
  void set_fetch_with_issue(bool on) { with_issue_ = on; }
  /// A new launch with per-PC `timing`: every view empty, every entry stale.
  void begin_launch(const std::vector<InstructionTiming>* timing);

  schedulers::SchedulerView& view(uint32_t s) { return views_[s]; }
  const schedulers::SchedulerView& view(uint32_t s) const { return views_[s]; }
  /// Scheduler `s` has no live warp: its view is empty.
  void clear(uint32_t s) {
    views_[s].warps.clear();
    views_[s].summary = false;
    views_[s].slot_order_members = 0;
  }

  /// Warp `slot` changed: its entry is refreshed at its scheduler's next look.
  void mark(uint32_t slot) { dirty_ |= uint64_t(1) << slot; }
  void mark_all() { dirty_ = ~uint64_t(0); }
  bool dirty(uint32_t slot) const { return dirty_ >> slot & 1; }
  /// Whether warp `slot`'s entry says it waits on the scoreboard.
  bool waits_on_scoreboard(uint32_t slot) const { return scoreboard_ >> slot & 1; }
  /// Slots whose entry is Ready once a collector or pipe is free.
  uint64_t unit_waiters() const { return unit_; }
  /// Slots whose entry is Ready, or Ready once a collector or pipe is free.
  uint64_t ready_or_unit_waiters() const { return ready_ | unit_; }

  /// Brings scheduler `s`'s view up to date for cycle `now`; `live` are its
  /// live warps' slots.
  void update_view(uint32_t s, uint64_t live, uint64_t now);
  /// Writes warp `slot`'s entry `v` for cycle `now`, and the per-slot
  /// summaries of it.
  void refresh_view(uint32_t slot, uint64_t now, schedulers::WarpView& v) { refresh_view(warps_[slot], slot, now, v); }
  /// Ready or Scoreboard for the instruction at `pc` of warp `w`, and what it
  /// then still needs: a free collector of a class, or a free pipe (traces).
  schedulers::WarpWait operand_wait(const WarpSlot& w, uint32_t pc, int8_t& needs_collector,
                                    int8_t& needs_pipe) const;
  /// Whether an instruction that needs a collector of class `collector` or
  /// the pipe `pipe` (-1: none) cannot go to scheduler `s`'s this cycle;
  /// `collector_free` is OperandCollectors::free_classes(s).
  bool unit_blocked(uint32_t s, int8_t collector, int8_t pipe,
                    const std::array<bool, kCollectorClasses>& collector_free, uint64_t now) const {
    return (collector >= 0 && !collector_free[size_t(collector)]) || (pipe >= 0 && !pipes_.accepts(s, Pipe(pipe), now));
  }
#ifdef TLMGPU_DEBUG_CHECKS
  /// Rebuilds scheduler `s`'s view from the warps' state and throws
  /// std::logic_error naming the first difference from the maintained one.
  void check_view(uint32_t s, uint64_t live, uint64_t now) const;
#endif

 private:
  void refresh_view(WarpSlot& w, uint32_t slot, uint64_t now, schedulers::WarpView& v);
  /// Warp `w`'s view entry at cycle `now` computed from its state alone, and
  /// the collector class or pipe its head still needs (-1: none).
  schedulers::WarpView warp_view(const WarpSlot& w, uint32_t slot, uint64_t now, int8_t& needs_collector,
                                 int8_t& needs_pipe) const;
  /// Whether scheduler `s`'s collectors or pipe for need `need` (unit_need_'s
  /// encoding) are all busy at `now`.
  bool unit_busy(uint32_t s, uint32_t need, uint64_t now) const;

  std::string sm_name_;
  std::vector<WarpSlot>& warps_;
  const OperandCollectors& collectors_;
  const ExecutionPipes& pipes_;
  const std::vector<InstructionTiming>* timing_ = nullptr;
  bool with_issue_ = false;
  uint64_t dirty_ = ~uint64_t(0);   // slots whose view entry is stale
  uint64_t empty_buffer_ = 0;       // slots whose view says EmptyBuffer or shows no decoded head
  uint64_t unit_ = 0;               // slots Ready once a collector / pipe is free
  // Ready without a unit to wait for, and Scoreboard. unit_need_ is the unit
  // a slot in unit_ waits for: a collector class, or kCollectorClasses + a
  // pipe (trace instructions).
  uint64_t ready_ = 0, scoreboard_ = 0;
  std::array<uint8_t, 64> unit_need_{};
  std::vector<schedulers::SchedulerView> views_;
  std::array<uint8_t, 64> index_{};            // slot -> its index in its scheduler's view
  std::vector<schedulers::WarpView> rebuilt_;  // update_view's scratch, kept for its capacity
};

}  // namespace tlmgpu::sm
