#include "model/sm/issue_stage.h"

#include <stdexcept>

#include "core/int_ops.h"
#include "schedulers/policy_registry.h"

namespace tlmgpu::sm {

using schedulers::WarpWait;

namespace {

/// What each of the SM's policies is told about its place (scheduler_index set per scheduler).
schedulers::PolicyContext policy_context(const core::SmConfig& smc) {
  schedulers::PolicyContext pctx;
  pctx.num_schedulers = smc.num_schedulers;
  pctx.max_warps_per_scheduler = (smc.max_warps + smc.num_schedulers - 1) / smc.num_schedulers;
  return pctx;
}

}  // namespace

IssueStage::IssueStage(uint32_t sm, const std::string& sm_name, const core::GpuConfig& config,
                       std::vector<WarpSlot>& warps, const CtaSlots& ctas, FetchStage& fetch,
                       OperandCollectors& collectors, ExecutionPipes& pipes, WritebackStage& writeback)
    : config_(config),
      smc_(config.sm),
      sm_name_(sm_name),
      warps_(warps),
      ctas_(ctas),
      fetch_(fetch),
      collectors_(collectors),
      pipes_(pipes),
      writeback_(writeback),
      views_(sm, sm_name, config.sm.num_schedulers, warps, collectors, pipes) {}

IssueStage::~IssueStage() = default;

void IssueStage::create_schedulers() {
  const uint32_t nsched = smc_.num_schedulers;
  schedulers::PolicyContext pctx = policy_context(smc_);
  for (uint32_t s = 0; s < nsched; ++s) {
    pctx.scheduler_index = s;
    schedulers_.push_back(std::make_unique<schedulers::WarpScheduler>(
        ("sched" + std::to_string(s)).c_str(), schedulers::make_policy(config_.scheduler, pctx)));
  }
  if (smc_.oracle_schedulers)
    for (auto& s : schedulers_) {
      pctx.scheduler_index = uint32_t(&s - schedulers_.data());
      s->enable_oracles(config_.scheduler, pctx);
    }
  nsched_div_ = core::FixedDivisor(nsched);

  if (smc_.max_warps > 64) throw std::invalid_argument("sm.max_warps above 64 is not supported");
  sched_dirty_.fill(1);
  policy_wake_.fill(kNever);
  for (uint32_t slot = 0; slot < smc_.max_warps; ++slot) scheduler_slots_[slot % nsched] |= 1ull << slot;
  for (uint32_t s = 0; s < nsched; ++s) {
    completion_dirty_[s] = schedulers_[s]->order_follows_completions();
    wants_cta_view_[s] = schedulers_[s]->wants_cta_view();
  }
  if (nsched > 1 && schedulers_[0]->shares_warps())
    warp_sharing_ = std::make_unique<WarpSharing>(schedulers_, warps_, views_, collectors_);
  swas_ = schedulers_[0]->fetches_with_issue();
  fetch_.set_fetch_with_issue(swas_);
  views_.set_fetch_with_issue(swas_);
  if (smc_.oracle_schedulers) oracles_ = std::make_unique<OracleJudge>(warps_, views_, collectors_);
}

void IssueStage::begin_device(uint64_t first_cycle) {
  epoch_ = first_cycle;
  invalidate_cta_views();  // CTA start cycles count from the epoch
  const uint32_t nsched = uint32_t(schedulers_.size());
  schedulers::PolicyContext pctx = policy_context(smc_);
  for (uint32_t s = 0; s < nsched; ++s) {
    pctx.scheduler_index = s;
    schedulers_[s]->reset_policy(config_.scheduler, pctx);
    completion_dirty_[s] = schedulers_[s]->order_follows_completions();
    wants_cta_view_[s] = schedulers_[s]->wants_cta_view();
  }
  slot_nops_.fill(0);
  for (auto& d : decoded_at_) d = {};
  std::fill(last_class_.begin(), last_class_.end(), 0);
  std::fill(seen_phase_.begin(), seen_phase_.end(), KernelPhase{});
  signals_changed_ = true;
}

void IssueStage::begin_launch() {
  signals_changed_ = true;  // the dispatcher starts the launch with new values
  live_slots_ = 0;
  const SmLaunch& launch = ctas_.launch();
  timing_ = launch.timing;
  banked_registers_ = launch.source ? launch.source->banked_registers() : 0;
  views_.begin_launch(timing_);
  if (oracles_) oracles_->begin_launch(timing_);
  std::fill(policy_wake_.begin(), policy_wake_.end(), kNever);
  invalidate_cta_views();
}

bool IssueStage::issue(uint64_t now) {
  did_something_ = false;
  const uint32_t nsched = uint32_t(schedulers_.size());
  // Policies that follow the dispatcher's signals (PRO, KAWS) look again
  // when they change: each scheduler reads its ports when the dispatcher says the
  // signals may have changed.
  if (signals_changed_) {
    signals_changed_ = false;
    for (uint32_t s = 0; s < nsched; ++s) {
      const KernelPhase phase{schedulers_[s]->read_ctas_waiting(), schedulers_[s]->read_last_cta_dispatched()};
      if (phase != seen_phase_[s]) {
        seen_phase_[s] = phase;
        sched_dirty_[s] = 1;
      }
    }
  }
  if (warp_sharing_) warp_sharing_->begin_cycle();
  // A trace instruction's pipe accepts again: every scheduler may now issue.
  if (pipes_.take_freed(now)) std::fill(sched_dirty_.begin(), sched_dirty_.end(), 1);
  for (uint32_t s = 0; s < nsched; ++s) {
    if (policy_wake_[s] <= now) sched_dirty_[s] = 1;
    // Nothing this scheduler's choice depends on changed: same (non-)choice.
    auto& decoded = decoded_at_[s];
    while (!decoded.empty() && decoded.top() <= now) {
      decoded.pop();
      sched_dirty_[s] = 1;
    }
    // SWaS fetches with every issue and the oracles judge every cycle: no skipping then.
    if (!sched_dirty_[s] && !swas_ && !oracles_) {
      if (eager_accounting_) schedulers_[s]->account_cycles(last_class_[s], 1);
      else ++unaccounted_[s];
      continue;
    }
    account_pending(s);
    sched_dirty_[s] = 0;
    schedulers::SchedulerView& view = views_.view(s);
    view.cycle = now - epoch_;
    view.ctas_waiting = seen_phase_[s].ctas_waiting;
    view.last_cta_dispatched = seen_phase_[s].last_cta_dispatched;
    const uint64_t live = live_slots_ & scheduler_slots_[s];
    if (!live) {
      views_.clear(s);
      policy_wake_[s] = kNever;
      schedulers_[s]->account_cycles(int(schedulers::StallClass::Idle), 1);
      last_class_[s] = int(schedulers::StallClass::Idle);
      continue;
    }
    views_.update_view(s, live, now);
#ifdef TLMGPU_DEBUG_CHECKS
    views_.check_view(s, live, now);
#endif
    if (wants_cta_view_[s]) refresh_cta_view(s, view, now);
    const int pick = schedulers_[s]->select(view);
    last_class_[s] = schedulers_[s]->last_class();
    if (oracles_) oracles_->judge(*schedulers_[s], s, view, pick, now);
    const uint64_t reorder = schedulers_[s]->next_reorder_cycle(now - epoch_);
    policy_wake_[s] = reorder >= kNever - epoch_ ? kNever : reorder + epoch_;
    // A scheduler that cannot issue needs no tick of its own: what it waits
    // for (a writeback, a memory response, a busy collector, a decoded
    // instruction) is an event or keeps the SM active anyway.
    if (pick >= 0) {
      did_something_ = true;
      sched_dirty_[s] = 1;
      if (warp_sharing_) warp_sharing_->issued_own(s);
      const uint32_t slot = view.warps[size_t(pick)].slot;
      const bool issued = issue_warp(slot, s, now);
      if (issued && swas_ && fetch_.fetch_for_issue(slot, now)) did_something_ = true;
      if (issued && smc_.issue_width > 1) issue_more(s, view, now);
    }
  }
  if (warp_sharing_ && collectors_.any_busy())
    warp_sharing_->share(now - epoch_, [&](uint32_t slot, uint32_t receiver) {
      if (!issue_warp(slot, receiver, now)) return false;
      sched_dirty_[receiver] = 1;  // its collector is busy now
      did_something_ = true;
      return true;
    });
  return did_something_;
}

schedulers::CtaView IssueStage::cta_view_of(uint32_t cs) const {
  const CtaSlots::Slot& c = ctas_.slot(cs);
  schedulers::CtaView cv;
  cv.slot = cs;
  cv.valid = c.valid;
  if (!c.valid) return cv;
  cv.cta_id = c.cta_id;
  cv.warps = ctas_.launch().warps_per_cta;
  cv.start_cycle = c.start_cycle - epoch_;
  // Retired warps' slots may hold another CTA's warps by now: they count
  // through the CTA's own totals.
  cv.warps_finished = c.warps_done;
  cv.progress = c.retired_progress;
  cv.insts_issued = c.retired_insts;
  for (const uint32_t ws : c.warp_slots) {
    const WarpSlot& w = warps_[ws];
    if (!w.active || w.cta_slot != cs) continue;
    cv.warps_at_barrier += w.warp->at_barrier();
    cv.warps_finished += w.warp->finished();
    cv.progress += w.progress;
    cv.insts_issued += w.insts_issued;
  }
  return cv;
}

void IssueStage::build_cta_view(schedulers::SchedulerView& view) const {
  view.ctas.clear();
  for (uint32_t cs = 0; cs < ctas_.size(); ++cs) view.ctas.push_back(cta_view_of(cs));
}

void IssueStage::refresh_cta_view(uint32_t s, schedulers::SchedulerView& view, [[maybe_unused]] uint64_t now) {
  const uint32_t n = ctas_.size();
  if (cta_views_generation_ != ctas_.generation() || n > 64) {
    cta_views_.resize(n);
    for (uint32_t cs = 0; cs < n; ++cs) cta_views_[cs] = cta_view_of(cs);
    cta_views_generation_ = ctas_.generation();
    ++cta_views_version_;
  } else if (stale_ctas_) {
    for (uint64_t m = stale_ctas_; m; m &= m - 1) {
      const uint32_t cs = uint32_t(__builtin_ctzll(m));
      if (cs < n) cta_views_[cs] = cta_view_of(cs);
    }
    ++cta_views_version_;
  }
  stale_ctas_ = 0;
  if (cta_views_copied_[s] != cta_views_version_ || view.ctas.size() != n) {
    view.ctas.assign(cta_views_.begin(), cta_views_.end());
    cta_views_copied_[s] = cta_views_version_;
  }
#ifdef TLMGPU_DEBUG_CHECKS
  schedulers::SchedulerView full;
  build_cta_view(full);
  for (uint32_t cs = 0; cs < n; ++cs) {
    const schedulers::CtaView &a = view.ctas[cs], &b = full.ctas[cs];
    if (a.valid != b.valid || a.cta_id != b.cta_id || a.warps_at_barrier != b.warps_at_barrier ||
        a.warps_finished != b.warps_finished || a.progress != b.progress || a.insts_issued != b.insts_issued ||
        a.start_cycle != b.start_cycle || a.warps != b.warps)
      throw std::logic_error(sm_name_ + ": stale CTA view of slot " + std::to_string(cs) + " at cycle " +
                             std::to_string(now));
  }
#endif
}

void IssueStage::issue_more(uint32_t s, schedulers::SchedulerView& view, uint64_t now) {
  // Only the warps that issued and the collectors changed since the view was built.
  for (uint32_t extra = 1; extra < smc_.issue_width; ++extra) {
    const std::array<bool, kCollectorClasses> collector_free = collectors_.free_classes(s);
    for (schedulers::WarpView& wv : view.warps) {
      WarpSlot& w = warps_[wv.slot];
      if (!w.active) continue;
      if (views_.dirty(wv.slot)) views_.refresh_view(wv.slot, now, wv);
      // A warp waiting for a unit is Ready in its own right: judge the unit again.
      if (w.needs_collector >= 0 || w.needs_pipe >= 0)
        wv.wait = views_.unit_blocked(s, w.needs_collector, w.needs_pipe, collector_free, now) ? WarpWait::UnitBusy
                                                                                                : WarpWait::Ready;
    }
    view.summary = false;  // edited above; the next evaluation rebuilds the view
    const int pick = schedulers_[s]->select_again(view);
    if (pick < 0) return;
    const uint32_t slot = view.warps[size_t(pick)].slot;
    if (!issue_warp(slot, s, now)) return;
    if (swas_ && fetch_.fetch_for_issue(slot, now)) did_something_ = true;
  }
}

bool IssueStage::issue_warp(uint32_t slot, uint32_t scheduler, uint64_t now) {
  WarpSlot& w = warps_[slot];
  stale_ctas_ |= uint64_t(1) << (w.cta_slot & 63);
  WarpInstructionSource& warp = *w.warp;
  const uint32_t pc = w.ibuffer[w.ib_head].pc;
  if (pc == kNopPc) {
    // SWaS: a NOP takes the issue slot and nothing else; it is not an
    // instruction of the kernel, so no instruction count sees it.
    w.pop_instruction();
    ++nops_issued_;
    ++slot_nops_[slot];
    touch(slot);
    schedulers::IssueEvent ev;
    ev.cycle = now - epoch_;
    ev.slot = slot;
    ev.pc = warp.pc();
    ev.op = ptx::Opcode::Nop;
    schedulers_[nsched_div_.mod(slot)]->notify_issue(ev);
    return true;
  }
  if (warp.pc() != pc) {  // the buffered path is not where the warp goes
    flush(w, now);
    return false;
  }
  const exec::StepStatus st = warp.execute();
  w.code_end = warp.end_pc();
  sync_executor_state(w, now);
  if (st == exec::StepStatus::Blocked) {
    flush(w, now);
    return false;
  }
  const IssuedInstruction& info = warp.issued();
  const InstructionTiming& t = (*timing_)[pc];
  w.finished = warp.finished();
  touch(slot);
  fetch_.wake(slot);
  // A barrier arrival or an exit can release warps of other schedulers.
  if (t.pipe == Pipe::Bar || w.finished || info.op == ptx::Opcode::Exit || info.op == ptx::Opcode::Ret) {
    touch_all();
    stale_ctas_ = ~uint64_t(0);
    for (uint64_t m = live_slots_; m; m &= m - 1) sync_executor_state(warps_[size_t(__builtin_ctzll(m))], now);
  }
  w.pop_instruction();
  if (w.finished || warp.pc() != pc + 1) flush(w, now);

  const uint32_t active = core::intops::popcount32(info.active_mask);
  ++warp_insts_;
  thread_insts_ += active;
  ++w.insts_issued;
  w.progress += active;
  w.scoreboard.reserve(t);
  ++w.in_flight;
  if (t.is_memory) ++w.mem_in_flight;
  if (t.is_membar && w.mem_in_flight > 0) w.membar_wait = true;

  if (t.fixed_latency) {
    // A trace instruction: no operands to collect, its latency counts from issue.
    pipes_.occupy_fixed(scheduler, t.pipe, now, t.fixed_interval);
    writeback_.complete_at(now + t.fixed_latency, slot, pc, false);
  } else if (t.pipe == Pipe::Ctrl || t.pipe == Pipe::Bar) {
    writeback_.complete_at(now + 1, slot, pc, false);
  } else {
    const CollectorClass cls = collector_class(t.pipe);
    const int index = collectors_.free_collector(scheduler, cls);
    if (index < 0) throw std::logic_error(sm_name_ + ": issued without a free operand collector");
    OperandCollector& c = collectors_.claim(scheduler, cls, uint32_t(index), slot, pc);
    for (uint8_t i = 0; i < t.num_src; ++i) {
      if (t.src[i] >= banked_registers_) continue;  // predicates live outside the banked file
      collectors_.add_operand(c, t.src[i]);
    }
    c.has_access = t.is_memory && active != 0 && info.access && info.access->mask != 0;
    if (c.has_access) c.access = *info.access;
  }

  schedulers::IssueEvent ev;
  ev.cycle = now - epoch_;
  ev.slot = slot;
  ev.pc = pc;
  ev.unit = t.unit;
  ev.op = info.op;
  ev.active_mask = info.active_mask;
  ev.is_branch = t.is_branch;
  ev.taken = info.branch_taken;
  ev.backward = info.backward;
  if (info.access && t.is_memory && info.active_mask && info.access->mask) {
    ev.addresses = info.access->addr.data();
    ev.address_mask = info.access->mask;
    ev.writes_memory = info.access->is_store || info.access->is_atomic;
    ev.atom = info.atom;
    ev.cas_written = info.cas_written;
  }
  ev.is_setp = t.is_setp;
  if (t.is_setp) {
    // The compared values per lane (raw bits), for spin detectors (seed 001).
    warp.source_values(0, setp_a_);
    warp.source_values(1, setp_b_);
    ev.setp_a = setp_a_.data();
    ev.setp_b = setp_b_.data();
  }
  schedulers_[nsched_div_.mod(slot)]->notify_issue(ev);
  return true;
}

void IssueStage::sync_executor_state(WarpSlot& w, uint64_t now) {
  const bool was_at_barrier = w.at_barrier;
  w.next_mask = w.warp->next_mask();
  w.at_barrier = w.warp->at_barrier();
  if (w.at_barrier && !was_at_barrier) {
    w.barrier_pc = w.warp->pc();
  } else if (was_at_barrier && !w.at_barrier && w.warp->pc() != w.barrier_pc) {
    // Independent thread scheduling: lanes released from a barrier resume
    // where they parked, not at the PC the waiting warp reported; the
    // buffer and the fetch follow them.
    w.code_end = w.warp->end_pc();
    flush(w, now);
  }
}

void IssueStage::flush(WarpSlot& w, uint64_t now) {
  const uint32_t slot = uint32_t(&w - warps_.data());
  touch(slot);
  fetch_.flush(slot, now);
}

}  // namespace tlmgpu::sm
