#include "platform/cta_dispatcher.h"

#include <algorithm>
#include <utility>

namespace tlmgpu::platform {

CtaDispatcher::CtaDispatcher(sc_core::sc_module_name name, std::vector<sm::StreamingMultiprocessor*> sms,
                             uint32_t stage, const sc_core::sc_time& period)
    : engine::ClockedModule(name, stage, period), sms_(std::move(sms)) {}

void CtaDispatcher::begin_launch(const exec::Dim3& grid, uint64_t cycle) {
  grid_ = grid;
  total_ctas_ = grid.count();
  next_cta_ = 0;
  running_ = 0;
  rr_ = 0;
  retry_ = true;
  launch_cycle_ = cycle;
  records_.assign(total_ctas_, CtaRecord{});
  update_signals();
  open_ = true;
  signals_visible_at_ = ~0ull;
  failure_ = nullptr;
  wake_at(cycle);
}

void CtaDispatcher::evaluate(uint64_t now) {
  if (!open_) return;
  // Policies that follow the signals (PRO, KAWS) read a change through their
  // ports in the cycle after it was written, sleeping SM or not: every SM
  // runs in that cycle.
  if (now == signals_visible_at_)
    for (sm::StreamingMultiprocessor* sm : sms_) {
      sm->dispatcher_signals_changed();
      sm->wake_at(now);
    }
  const sm::KernelPhase before = phase_;
  try {
    if (cycle(now)) wake_at(now + 1);  // an SM may take another CTA next cycle
  } catch (...) {
    failure_ = std::current_exception();
    open_ = false;
    return;
  }
  if (phase_ != before) {
    signals_visible_at_ = now + 1;
    wake_at(now + 1);
  }
}

bool CtaDispatcher::cycle(uint64_t now) {
  // Whether an SM can take a CTA changes only when a CTA starts or finishes:
  // after a cycle that placed nothing, wait for a finished CTA.
  if (!retry_) return false;
  bool any = false;
  // At most one CTA per SM per cycle, SMs in rotating order so the first
  // SMs do not always get the tail of the grid.
  const uint32_t n = uint32_t(sms_.size());
  for (uint32_t k = 0; k < n && next_cta_ < total_ctas_; ++k) {
    sm::StreamingMultiprocessor& sm = *sms_[(rr_ + k) % n];
    if (!sm.can_accept_cta()) continue;
    const uint64_t i = next_cta_++;
    const exec::Dim3 id{uint32_t(i % grid_.x), uint32_t(i / grid_.x % grid_.y),
                        uint32_t(i / (uint64_t(grid_.x) * grid_.y))};
    records_[i].sm = sm.index();
    records_[i].start = now;
    if (next_cta_ == total_ctas_) last_cta_start_ = now;
    sm.start_cta(i, id, now);
    ++running_;
    any = true;
  }
  if (any) {
    rr_ = (rr_ + 1) % n;
    update_signals();
  }
  retry_ = any;  // one CTA per SM per cycle: an SM may take another next cycle
  return any;
}

void CtaDispatcher::cta_finished(uint32_t, uint64_t cta_id, uint64_t cycle) {
  records_[cta_id].end = cycle;
  --running_;
  retry_ = true;
  wake_at(cycle + 1);  // the finished CTA's SM may take another
  if (next_cta_ == total_ctas_ && running_ == 0) last_cta_end_ = cycle;
}

void CtaDispatcher::update_signals() {
  phase_.ctas_waiting = next_cta_ < total_ctas_;
  phase_.last_cta_dispatched = total_ctas_ != 0 && next_cta_ == total_ctas_;
  if (ctas_waiting.read() != phase_.ctas_waiting) ctas_waiting.write(phase_.ctas_waiting);
  if (last_cta_dispatched.read() != phase_.last_cta_dispatched) last_cta_dispatched.write(phase_.last_cta_dispatched);
}

void CtaDispatcher::report_stats(core::StatReport& out) const {
  using core::Unit;
  out.add("ctas", total_ctas_, Unit::Count, "CTAs of the last launch");
  out.add("last_cta_start_cycle", last_cta_start_ - launch_cycle_, Unit::Cycles,
          "cycle of the last launch at which its last CTA was dispatched");
  out.add("last_cta_end_cycle", last_cta_end_ - launch_cycle_, Unit::Cycles,
          "cycle of the last launch at which its last CTA finished");
  // Seed 002's metric.
  out.add("last_cta_execution_time", last_cta_end_ - last_cta_start_, Unit::Cycles,
          "from the dispatch of the last CTA to the end of the kernel (seed 002's metric)");
}

}  // namespace tlmgpu::platform
