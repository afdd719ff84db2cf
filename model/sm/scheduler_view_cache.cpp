#include "model/sm/scheduler_view_cache.h"

#include <stdexcept>

#include "core/int_ops.h"

namespace tlmgpu::sm {

using schedulers::WarpWait;

SchedulerViewCache::SchedulerViewCache(uint32_t sm, const std::string& sm_name, uint32_t num_schedulers,
                                       std::vector<WarpSlot>& warps, const OperandCollectors& collectors,
                                       const ExecutionPipes& pipes)
    : sm_name_(sm_name), warps_(warps), collectors_(collectors), pipes_(pipes), views_(num_schedulers) {
  for (uint32_t s = 0; s < num_schedulers; ++s) {
    views_[s].sm = sm;
    views_[s].scheduler = s;
  }
}

void SchedulerViewCache::begin_launch(const std::vector<InstructionTiming>* timing) {
  timing_ = timing;
  for (auto& v : views_) {
    v.warps.clear();
    v.summary = false;
    v.slot_order_members = 0;
  }
  dirty_ = ~uint64_t(0);
  empty_buffer_ = unit_ = ready_ = scoreboard_ = 0;
}

schedulers::WarpView SchedulerViewCache::warp_view(const WarpSlot& w, uint32_t slot, uint64_t now,
                                                        int8_t& needs_collector, int8_t& needs_pipe) const {
  // Everything but the collectors' availability, which changes every cycle
  // for all warps alike and is applied when the view is assembled.
  schedulers::WarpView v;
  needs_collector = -1;
  needs_pipe = -1;
  v.slot = slot;
  v.cta_slot = w.cta_slot;
  v.cta_id = w.cta_id;
  v.age = w.age;
  v.insts_issued = w.insts_issued;
  v.progress = w.progress;
  v.active_threads = core::intops::popcount32(w.next_mask);
  const uint32_t head = w.ib_count ? w.ibuffer[w.ib_head].pc : kNopPc;
  // The scheduler sees a head once it has decoded: before, the entry says
  // none, whenever it was last refreshed.
  const bool decoded = w.ib_count && w.ibuffer[w.ib_head].ready_cycle <= now;
  if (decoded && head != kNopPc) {
    const InstructionTiming& t = (*timing_)[head];
    v.head_pc = head;
    v.head_unit = t.unit;
    v.head_class = t.head_class;
  } else if (decoded) {
    v.head_class = core::HeadClass::ShortAlu;
  }
  if (w.finished) {
    v.wait = WarpWait::Finished;
  } else if (w.at_barrier) {
    v.wait = WarpWait::Barrier;
  } else if (w.membar_wait) {
    v.wait = WarpWait::Membar;
  } else if (w.ib_count == 0 || w.ibuffer[w.ib_head].ready_cycle > now || (with_issue_ && w.fetch_pending)) {
    v.wait = WarpWait::EmptyBuffer;  // (a SWaS warp is suspended while its i-cache miss is served)
  } else if (head == kNopPc) {
    v.wait = WarpWait::Ready;  // a NOP needs neither operands nor a unit
  } else {
    v.wait = operand_wait(w, head, needs_collector, needs_pipe);
  }
  return v;
}

void SchedulerViewCache::refresh_view(WarpSlot& w, uint32_t slot, uint64_t now, schedulers::WarpView& v) {
  const uint64_t bit = 1ull << slot;
  dirty_ &= ~bit;
  v = warp_view(w, slot, now, w.needs_collector, w.needs_pipe);
  const WarpWait wait = v.wait;
  // Refreshed again once its head decodes: an empty or undecoded buffer, also
  // under another wait (a barrier, a membar), whose entry shows no head yet.
  const bool head_decoded = w.ib_count && w.ibuffer[w.ib_head].ready_cycle <= now;
  if (wait == WarpWait::EmptyBuffer || !head_decoded) empty_buffer_ |= bit;
  else empty_buffer_ &= ~bit;
  const bool unit = w.needs_collector >= 0 || w.needs_pipe >= 0;
  if (unit) {
    unit_ |= bit;
    unit_need_[slot] = uint8_t(w.needs_collector >= 0 ? w.needs_collector : kCollectorClasses + w.needs_pipe);
  } else {
    unit_ &= ~bit;
  }
  ready_ = (ready_ & ~bit) | (wait == WarpWait::Ready && !unit ? bit : 0);
  scoreboard_ = (scoreboard_ & ~bit) | (wait == WarpWait::Scoreboard ? bit : 0);
}

bool SchedulerViewCache::unit_busy(uint32_t s, uint32_t need, uint64_t now) const {
  // All of the class's collectors busy, or (a trace instruction) its pipe not accepting yet.
  return need < kCollectorClasses ? collectors_.all_busy(s, need)
                                  : !pipes_.accepts(s, Pipe(need - kCollectorClasses), now);
}

#ifdef TLMGPU_DEBUG_CHECKS
void SchedulerViewCache::check_view(uint32_t s, uint64_t live, uint64_t now) const {
  const schedulers::SchedulerView& view = views_[s];
  auto fail = [&](const std::string& what) {
    throw std::logic_error(sm_name_ + ": scheduler " + std::to_string(s) + " at cycle " +
                           std::to_string(now) + ": the maintained view differs from one built from scratch: " +
                           what);
  };
  if (view.warps.size() != size_t(__builtin_popcountll(live))) fail("number of warps");
  uint64_t ready = 0, busy = 0, scoreboard = 0;
  size_t i = 0;
  for (uint64_t m = live; m; m &= m - 1, ++i) {
    const uint32_t slot = uint32_t(__builtin_ctzll(m));
    int8_t needs_collector, needs_pipe;
    schedulers::WarpView want = warp_view(warps_[slot], slot, now, needs_collector, needs_pipe);
    if (needs_collector >= 0 || needs_pipe >= 0) {
      const uint32_t need = uint32_t(needs_collector >= 0 ? needs_collector : kCollectorClasses + needs_pipe);
      want.wait = unit_busy(s, need, now) ? WarpWait::UnitBusy : WarpWait::Ready;
    }
    const schedulers::WarpView& got = view.warps[i];
    const std::string w = "warp slot " + std::to_string(slot) + " ";
    if (got.slot != want.slot) fail(w + "position");
    if (got.wait != want.wait)
      fail(w + "wait " + std::to_string(int(got.wait)) + ", from scratch " + std::to_string(int(want.wait)));
    if (got.head_pc != want.head_pc || got.head_unit != want.head_unit || got.head_class != want.head_class)
      fail(w + "head instruction");
    if (got.cta_slot != want.cta_slot || got.cta_id != want.cta_id || got.age != want.age) fail(w + "CTA or age");
    if (got.active_threads != want.active_threads || got.insts_issued != want.insts_issued ||
        got.progress != want.progress)
      fail(w + "active threads, instructions or progress");
    const uint64_t bit = uint64_t(1) << i;
    if (want.wait == WarpWait::Ready) ready |= bit;
    if (want.wait == WarpWait::UnitBusy) busy |= bit;
    if (want.wait == WarpWait::Scoreboard) scoreboard |= bit;
  }
  if (view.summary && (view.ready != ready || view.unit_busy != busy || view.scoreboard != scoreboard))
    fail("the ready / unit-busy / scoreboard masks");
}
#endif

void SchedulerViewCache::update_view(uint32_t s, uint64_t live, uint64_t now) {
  std::vector<schedulers::WarpView>& warps = views_[s].warps;
  // A warp's view is refreshed when it changed, or when its buffer was empty
  // (or undecoded) and its head has decoded since.
  const auto stale = [&](uint32_t slot) {
    const WarpSlot& w = warps_[slot];
    return (dirty_ >> slot & 1) || ((empty_buffer_ >> slot & 1) && w.ib_count &&
                                         w.ibuffer[w.ib_head].ready_cycle <= now);
  };
  schedulers::SchedulerView& view = views_[s];
  if (live != view.slot_order_members || !view.summary) {
    // Warps came or went (or an extra issue edited the view): rebuild, in
    // slot order, keeping the entries of members that did not change.
    const uint64_t kept = view.slot_order_members;
    std::vector<schedulers::WarpView>& rebuilt = rebuilt_;
    rebuilt.clear();
    for (uint64_t m = live; m; m &= m - 1) {
      const uint32_t slot = uint32_t(__builtin_ctzll(m));
      rebuilt.emplace_back();
      if ((kept >> slot & 1) && !stale(slot))
        rebuilt.back() = warps[index_[slot]];
      else
        refresh_view(warps_[slot], slot, now, rebuilt.back());
    }
    warps.swap(rebuilt);
    uint8_t index = 0;
    for (uint64_t m = live; m; m &= m - 1) index_[__builtin_ctzll(m)] = index++;
    view.slot_order_members = live;
    view.slot_index = index_.data();
    view.summary = true;
  } else {
    for (uint64_t m = live & (dirty_ | empty_buffer_); m; m &= m - 1) {
      const uint32_t slot = uint32_t(__builtin_ctzll(m));
      if (!stale(slot)) continue;
      refresh_view(warps_[slot], slot, now, warps[index_[slot]]);
    }
  }
  // The collectors' and pipes' availability, for the warps that wait on one:
  // by class, then written into those warps' entries.
  uint64_t busy_slots = 0;
  const uint64_t unit = live & unit_;
  if (unit) {
    for (uint64_t m = unit; m; m &= m - 1) {
      const uint32_t slot = uint32_t(__builtin_ctzll(m));
      const uint64_t busy = unit_busy(s, unit_need_[slot], now);
      busy_slots |= busy << slot;
      warps[index_[slot]].wait = busy ? WarpWait::UnitBusy : WarpWait::Ready;
    }
  }
  const uint64_t unit_ready = unit & ~busy_slots;
  // The summary, from slot bits to view positions (the view lists `live` in slot order).
  view.ready = core::intops::gather_bits((ready_ | unit_ready) & live, live);
  view.unit_busy = core::intops::gather_bits(busy_slots, live);
  view.scoreboard = core::intops::gather_bits(scoreboard_ & live, live);
}

WarpWait SchedulerViewCache::operand_wait(const WarpSlot& w, uint32_t pc, int8_t& needs_collector,
                                               int8_t& needs_pipe) const {
  const InstructionTiming& t = (*timing_)[pc];
  needs_collector = -1;
  needs_pipe = -1;
  if (w.scoreboard.blocks(t)) return WarpWait::Scoreboard;
  if (t.fixed_latency)
    needs_pipe = int8_t(t.pipe);
  else if (t.pipe != Pipe::Ctrl && t.pipe != Pipe::Bar)
    needs_collector = int8_t(collector_class(t.pipe));
  return WarpWait::Ready;
}

}  // namespace tlmgpu::sm
