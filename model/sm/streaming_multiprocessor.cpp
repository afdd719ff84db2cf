#include "model/sm/streaming_multiprocessor.h"

#include <algorithm>
#include <limits>
#include <stdexcept>

#include "memory/l1_cache.h"
#include "core/int_ops.h"
#include "schedulers/policy_registry.h"
#include "schedulers/warp_scheduler.h"

namespace tlmgpu::sm {

using schedulers::WarpWait;

namespace {

constexpr uint64_t kNever = std::numeric_limits<uint64_t>::max();

sc_core::sc_time clock_period(const platform::GpuConfig& c) {
  return sc_core::sc_time(1e6 / c.core_clock_mhz, sc_core::SC_PS);
}

}  // namespace

StreamingMultiprocessor::StreamingMultiprocessor(sc_core::sc_module_name name, uint32_t index,
                                                 const platform::GpuConfig& config)
    : sc_core::sc_module(name),
      index_(index),
      config_(config),
      smc_(config.sm),
      ctas_(index, config.sm),
      fetch_(config, warps_),
      collectors_(config.sm),
      lsu_(config),
      views_(index, sc_core::sc_module::name(), config.sm.num_schedulers, warps_, collectors_, pipes_) {
  const sc_core::sc_time period = clock_period(config);
  l1i_cache_ = std::make_unique<memory::L1Cache>("l1i", config.l1i, period);
  l1d_cache_ = std::make_unique<memory::L1Cache>("l1d", config.l1d, period);
  l1i_cache_->response_port.bind(*this);
  l1d_cache_->response_port.bind(*this);
  l1i_access_.bind(l1i_cache_->access_export);
  l1d_access_.bind(l1d_cache_->access_export);
  l1i_cache_->clk.bind(clk);
  l1d_cache_->clk.bind(clk);
  tex_cache_ = std::make_unique<memory::L1Cache>("tex", config.tex, period);
  tex_cache_->response_port.bind(*this);
  tex_access_.bind(tex_cache_->access_export);
  tex_cache_->clk.bind(clk);

  const uint32_t nsched = smc_.num_schedulers;
  schedulers::PolicyContext pctx;
  pctx.num_schedulers = nsched;
  pctx.max_warps_per_scheduler = (smc_.max_warps + nsched - 1) / nsched;
  for (uint32_t s = 0; s < nsched; ++s) {
    pctx.scheduler_index = s;
    schedulers_.push_back(std::make_unique<schedulers::WarpScheduler>(
        ("sched" + std::to_string(s)).c_str(), schedulers::make_policy(config.scheduler, pctx)));
  }
  seen_phase_.assign(nsched, KernelPhase{});
  if (smc_.oracle_schedulers)
    for (auto& s : schedulers_) {
      pctx.scheduler_index = uint32_t(&s - schedulers_.data());
      s->enable_oracles(config.scheduler, pctx);
    }
  nsched_div_ = FixedDivisor(nsched);

  if (smc_.max_warps > 64) throw std::invalid_argument("sm.max_warps above 64 is not supported");
  warps_.resize(smc_.max_warps);
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
  ready_watch_.assign(smc_.max_warps, ReadyWatch{});
}

StreamingMultiprocessor::~StreamingMultiprocessor() = default;

memory::L1Cache& StreamingMultiprocessor::l1d() { return *l1d_cache_; }
memory::L1Cache& StreamingMultiprocessor::l1i() { return *l1i_cache_; }
memory::L1Cache& StreamingMultiprocessor::tex_cache() { return *tex_cache_; }

void StreamingMultiprocessor::end_of_elaboration() {
  // What the ports resolved to, once: the per-access calls skip the port's
  // binding check.
  l1i_ = l1i_access_.operator->();
  fetch_.connect(l1i_);
  l1d_ = l1d_access_.operator->();
  tex_ = tex_access_.operator->();
}

// ------------------------------------------------------------------ CTAs

void StreamingMultiprocessor::begin_device(uint64_t first_cycle) {
  epoch_ = first_cycle;
  const uint32_t nsched = uint32_t(schedulers_.size());
  schedulers::PolicyContext pctx;
  pctx.num_schedulers = nsched;
  pctx.max_warps_per_scheduler = (smc_.max_warps + nsched - 1) / nsched;
  for (uint32_t s = 0; s < nsched; ++s) {
    pctx.scheduler_index = s;
    schedulers_[s]->reset_policy(config_.scheduler, pctx);
    completion_dirty_[s] = schedulers_[s]->order_follows_completions();
    wants_cta_view_[s] = schedulers_[s]->wants_cta_view();
  }
  fetch_.reset();
  // Request ids order same-cycle responses: number them as a fresh SM would.
  // (A launch that ended in a fault may have left answers for its requests:
  // they belong to the old device.)
  lsu_.reset();
  responses_ = {};
  writeback_.reset();
  ctas_.begin_device();
  ready_watch_.assign(ready_watch_.size(), ReadyWatch{});  // ages start again
  for (auto& d : decoded_at_) d = {};
  pipes_.reset();
  std::fill(last_class_.begin(), last_class_.end(), 0);
  std::fill(seen_phase_.begin(), seen_phase_.end(), KernelPhase{});
  signals_changed_ = true;
}

void StreamingMultiprocessor::begin_launch(const SmLaunch& launch, CtaCompletionIf* dispatcher) {
  ctas_.begin_launch(launch, dispatcher);
  signals_changed_ = true;  // the dispatcher starts the launch with new values
  for (WarpSlot& w : warps_) {
    w = WarpSlot{};
  }
  live_slots_ = 0;
  views_.begin_launch(launch.timing);
  if (oracles_) oracles_->begin_launch(launch.timing);
  std::fill(policy_wake_.begin(), policy_wake_.end(), kNever);
  collectors_.reset();
  ticked_ = false;
}

bool StreamingMultiprocessor::can_accept_cta() const { return ctas_.can_accept(); }

void StreamingMultiprocessor::start_cta(uint64_t cta_id, exec::Dim3 ctaid, uint64_t cycle) {
  const bool prefilled = ctas_.launch().source->prefilled_instruction_buffers();
  ctas_.start(cta_id, ctaid, cycle, warps_, [&](uint32_t slot, WarpSlot& w) {
    live_slots_ |= 1ull << slot;
    sync_executor_state(w);
    fetch_.warp_started(slot, cycle, prefilled);
    schedulers_[nsched_div_.mod(slot)]->warp_started(slot, cycle - epoch_);
  });
  *wake_ = 1;
  touch_all();
  active_ = true;
}

// ------------------------------------------------------------------ cycle

void StreamingMultiprocessor::end_launch(uint64_t last_cycle) {
  if (ticked_ && last_cycle > last_cycle_) skip_cycles(last_cycle - last_cycle_);
  for (uint32_t s = 0; s < schedulers_.size(); ++s) account_pending(s);
  last_cycle_ = last_cycle;
}

bool StreamingMultiprocessor::cycle(uint64_t now) {
  // Cycles the GPU did not run this SM for: it was waiting for an event, so
  // every scheduler kept the class it had.
  if (ticked_ && now > last_cycle_ + 1) skip_cycles(now - last_cycle_ - 1);
  ticked_ = true;
  last_cycle_ = now;
  *wake_ = 0;
  active_ = false;
  handle_responses(now);
  writeback(now);
  read_operands_and_dispatch(now);
  send_lines(now);
  issue(now);
  // (Under SWaS the issue stage fetched for the warps it selected.)
  if (!swas_ && fetch_.fetch(now)) active_ = true;
  finish_warps(now);
  if ((swas_ || oracles_) && ctas_.used_warps() != 0) active_ = true;  // evaluated every cycle
  ++run_cycles_;
  return active_;
}

void StreamingMultiprocessor::account_pending(uint32_t s) {
  if (unaccounted_[s] == 0) return;
  schedulers_[s]->account_cycles(last_class_[s], unaccounted_[s]);
  unaccounted_[s] = 0;
}

void StreamingMultiprocessor::skip_cycles(uint64_t n) {
  for (size_t s = 0; s < schedulers_.size(); ++s) {
    if (eager_accounting_) schedulers_[s]->account_cycles(last_class_[s], n);
    else unaccounted_[s] += n;
  }
}

uint64_t StreamingMultiprocessor::next_event_cycle() const {
  uint64_t next = writeback_.next_ready();
  next = std::min(next, lsu_.next_retry_cycle(*l1d_, *tex_));
  next = std::min(next, fetch_.next_retry_cycle());
  if (!responses_.empty()) next = std::min(next, responses_.next_ready() + 1);
  for (const uint64_t wake : policy_wake_) next = std::min(next, wake);
  next = std::min(next, pipes_.next_freed());
  // Every buffered instruction's decode cycle is also in decoded_at_, which
  // issue() has emptied of the cycles up to now: when it is empty, no head is
  // still being decoded (always so with a one-cycle decode).
  bool decoding = false;
  for (const auto& d : decoded_at_) decoding |= !d.empty();
  if (!decoding) return next;
  for (const WarpSlot& w : warps_) {
    if (!w.active || w.ib_count == 0) continue;
    // Only instructions still being decoded: a decoded one waits for something else.
    const uint64_t ready = w.ibuffer[w.ib_head].ready_cycle;
    if (ready > last_cycle_) next = std::min(next, ready);
  }
  return next;
}

void StreamingMultiprocessor::access_done(uint64_t id, uint64_t cycle) {
  fetch_.note_answer(cycle);
  if (!FetchStage::is_fetch(id)) {
    // A memory instruction completes with its last line: until all its lines
    // have answered, an answer changes nothing the pipeline sees, so only the
    // last one is queued (at the latest of their cycles) and wakes the SM.
    if (!lsu_.line_answered(id, cycle)) return;
  }
  responses_.push(cycle, 0, id, id);
  // handle_responses takes it in the next cycle: the GPU top, which runs the
  // memory modules, sees the lowered cycle before its next SM pass.
  *wake_cycle_ = std::min(*wake_cycle_, cycle + 1);
}

void StreamingMultiprocessor::release_at(uint64_t) {
  // A line or fetch a cache refused is tried again when that cache frees an
  // MSHR (the cache calling has just put this release in its own queue).
  uint64_t wake = lsu_.next_retry_cycle(*l1d_, *tex_);
  wake = std::min(wake, fetch_.next_retry_cycle());
  *wake_cycle_ = std::min(*wake_cycle_, wake);
}

void StreamingMultiprocessor::handle_responses(uint64_t now) {
  // Registered hand-off: data ready at cycle c is seen from cycle c + 1, so
  // it never matters whether the cache's process ran before this one. The
  // queue hands the due ones over in (cycle, id) order: the same result
  // whatever order the caches called in.
  if (responses_.next_ready() >= now) return;  // (UINT64_MAX when empty)
  active_ = true;
  // Handling a response sends nothing to a cache, so none joins the queue meanwhile.
  while (responses_.next_ready() < now) {
    Response r;
    r.id = responses_.pop(&r.cycle);
    if (FetchStage::is_fetch(r.id)) {
      const uint32_t slot = FetchStage::slot_of(r.id);
      uint64_t decoded_at;
      if (fetch_.answer(r.id, r.cycle, decoded_at)) touch(slot);
      // The scheduler looks again when the new entries have decoded.
      if (decoded_at != FetchStage::kNever) decoded_at_[nsched_div_.mod(slot)].push(decoded_at);
    } else {
      // (access_done queues only an instruction's last answer)
      const auto [slot, pc] = lsu_.retire(r.id);
      complete_at(now, slot, pc, true);
    }
  }
}

void StreamingMultiprocessor::writeback(uint64_t now) {
  const bool any = writeback_.writeback(
      now, warps_, *ctas_.launch().timing, [&](const WritebackStage::Completion& c, const InstructionTiming& t) {
        // A writeback changes the warp's view only through its scoreboard, so
        // only a warp that waits on it needs a new view, and its scheduler
        // looks again only then or when its policy follows completions. (A
        // warp whose view is stale has its scheduler marked already.)
        const uint32_t s = nsched_div_.mod(c.slot);
        if (views_.waits_on_scoreboard(c.slot)) {
          views_.mark(c.slot);
          sched_dirty_[s] = 1;
        }
        sched_dirty_[s] |= completion_dirty_[s];
        schedulers::CompleteEvent ev;
        ev.cycle = now - epoch_;
        ev.slot = c.slot;
        ev.pc = c.pc;
        ev.unit = t.unit;
        schedulers_[s]->notify_complete(ev);
      });
  if (any) active_ = true;
}

// -------------------------------------------------------- operand collectors

void StreamingMultiprocessor::read_operands_and_dispatch(uint64_t now) {
  if (!collectors_.any_busy()) return;
  active_ = true;
  // The rotation follows the cycle (from the device's first), so sleeping does not shift it.
  collectors_.read_operands(now, uint32_t(now - epoch_),
                            [&](OperandCollector& c, uint32_t s, uint32_t cls, uint32_t index) {
                              dispatch(c, s, cls, index, now);
                            });
}

void StreamingMultiprocessor::dispatch(OperandCollector& c, uint32_t scheduler, uint32_t cls, uint32_t index,
                                       uint64_t now) {
  const InstructionTiming& t = (*ctas_.launch().timing)[c.pc];
  uint64_t& unit_free = pipes_.free_at(scheduler, t.pipe);
  if (unit_free > now) return;  // the pipeline cannot take it yet
  const platform::UnitTiming timing = pipe_timing(t.pipe, smc_);
  unit_free = now + timing.initiation_interval;
  collectors_.release(scheduler, cls, index);
  // A free collector matters to a warp waiting for one (under warp sharing,
  // also to other schedulers' warps).
  if (warp_sharing_ || (live_slots_ & scheduler_slots_[scheduler] & views_.unit_waiters())) sched_dirty_[scheduler] = 1;

  if (!c.has_access) {
    complete_at(now + timing.latency, c.slot, c.pc, t.is_memory);
    return;
  }
  const uint64_t done = lsu_.start(c.access, t.is_texture, c.slot, c.pc, now, timing.latency, unit_free);
  if (done != LoadStoreUnit::kQueued) complete_at(done, c.slot, c.pc, true);
}

void StreamingMultiprocessor::send_lines(uint64_t now) {
  if (lsu_.send_lines(now, *l1d_, *tex_)) active_ = true;
}

// ------------------------------------------------------------------ issue







void StreamingMultiprocessor::issue(uint64_t now) {
  const uint32_t nsched = uint32_t(schedulers_.size());
  // Policies that follow the dispatcher's signals (PRO, KAWS) look again
  // when they change: each scheduler reads its ports when the top says the
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
    if (wants_cta_view_[s]) {
      view.ctas.clear();
      for (uint32_t cs = 0; cs < ctas_.size(); ++cs) {
        const CtaSlots::Slot& c = ctas_.slot(cs);
        schedulers::CtaView cv;
        cv.slot = cs;
        cv.valid = c.valid;
        if (c.valid) {
          cv.cta_id = c.cta_id;
          cv.warps = ctas_.launch().warps_per_cta;
          cv.start_cycle = c.start_cycle - epoch_;
          for (uint32_t k = 0; k < ctas_.launch().warps_per_cta; ++k) {
            const WarpSlot& w = warps_[c.first_warp + k];
            cv.warps_at_barrier += w.warp->at_barrier();
            cv.warps_finished += w.warp->finished();
            cv.progress += w.progress;
            cv.insts_issued += w.insts_issued;
          }
        }
        view.ctas.push_back(cv);
      }
    }
    const int pick = schedulers_[s]->select(view);
    last_class_[s] = schedulers_[s]->last_class();
    if (oracles_) oracles_->judge(*schedulers_[s], s, view, pick, now);
    const uint64_t reorder = schedulers_[s]->next_reorder_cycle(now - epoch_);
    policy_wake_[s] = reorder >= kNever - epoch_ ? kNever : reorder + epoch_;
    // A scheduler that cannot issue needs no tick of its own: what it waits
    // for (a writeback, a memory response, a busy collector, a decoded
    // instruction) is an event or keeps the SM active anyway.
    if (pick >= 0) {
      active_ = true;
      sched_dirty_[s] = 1;
      if (warp_sharing_) warp_sharing_->issued_own(s);
      const uint32_t slot = view.warps[size_t(pick)].slot;
      const bool issued = issue_warp(slot, s, now);
      if (issued && swas_ && fetch_.fetch_for_issue(slot, now)) active_ = true;
      if (issued && smc_.issue_width > 1) issue_more(s, view, now);
    }
  }
  if (warp_sharing_ && collectors_.any_busy())
    warp_sharing_->share(now - epoch_, [&](uint32_t slot, uint32_t receiver) {
      if (!issue_warp(slot, receiver, now)) return false;
      sched_dirty_[receiver] = 1;  // its collector is busy now
      active_ = true;
      return true;
    });
}

void StreamingMultiprocessor::issue_more(uint32_t s, schedulers::SchedulerView& view, uint64_t now) {
  // sm.issue_width > 1: further issues in the same cycle. Only the warps that
  // issued and the collectors changed since the view was built.
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
    if (swas_ && fetch_.fetch_for_issue(slot, now)) active_ = true;
  }
}

bool StreamingMultiprocessor::issue_warp(uint32_t slot, uint32_t scheduler, uint64_t now) {
  WarpSlot& w = warps_[slot];
  WarpInstructionSource& warp = *w.warp;
  const uint32_t pc = w.ibuffer[w.ib_head].pc;
  if (pc == kNopPc) {
    // SWaS: a NOP takes the issue slot and nothing else; it is not an
    // instruction of the kernel, so no instruction count sees it.
    w.pop_instruction();
    ++nops_issued_;
    ++ready_watch_[slot].nops;
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
    flush(w);
    return false;
  }
  const exec::StepStatus st = warp.execute();
  w.code_end = warp.end_pc();
  sync_executor_state(w);
  if (st == exec::StepStatus::Blocked) {
    flush(w);
    return false;
  }
  const IssuedInstruction& info = warp.issued();
  const InstructionTiming& t = (*ctas_.launch().timing)[pc];
  w.finished = warp.finished();
  touch(slot);
  fetch_.wake(slot);
  // A barrier arrival or an exit can release warps of other schedulers.
  if (t.pipe == Pipe::Bar || w.finished || info.op == ptx::Opcode::Exit || info.op == ptx::Opcode::Ret) {
    touch_all();
    for (uint64_t m = live_slots_; m; m &= m - 1) sync_executor_state(warps_[size_t(__builtin_ctzll(m))]);
  }
  w.pop_instruction();
  if (w.finished || warp.pc() != pc + 1) flush(w);

  const uint32_t active = exec::intops::popcount32(info.active_mask);
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
    complete_at(now + t.fixed_latency, slot, pc, false);
  } else if (t.pipe == Pipe::Ctrl || t.pipe == Pipe::Bar) {
    complete_at(now + 1, slot, pc, false);
  } else {
    const CollectorClass cls = collector_class(t.pipe);
    const int index = collectors_.free_collector(scheduler, cls);
    if (index < 0) throw std::logic_error(std::string(name()) + ": issued without a free operand collector");
    OperandCollector& c = collectors_.claim(scheduler, cls, uint32_t(index), slot, pc);
    const uint32_t num_regs = ctas_.launch().source->banked_registers();
    for (uint8_t i = 0; i < t.num_src; ++i) {
      if (t.src[i] >= num_regs) continue;  // predicates live outside the banked file
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

void StreamingMultiprocessor::sync_executor_state(WarpSlot& w) {
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
    flush(w);
  }
}

void StreamingMultiprocessor::flush(WarpSlot& w) {
  const uint32_t slot = uint32_t(&w - warps_.data());
  touch(slot);
  fetch_.flush(slot, last_cycle_);
}

void StreamingMultiprocessor::finish_warps(uint64_t now) {
  // Only a writeback can finish a warp or end its membar wait: an issue
  // leaves the warp with its own instruction in flight (in_flight and, for
  // memory instructions, mem_in_flight only drop in writeback). So only the
  // warps written back this cycle are looked at, in slot order as before.
  for (uint64_t m = writeback_.take_written_back(); m; m &= m - 1) {
    const uint32_t slot = uint32_t(__builtin_ctzll(m));
    WarpSlot& w = warps_[slot];
    if (!w.active) continue;
    // This runs after the issue stage: what it changes is seen next cycle.
    if (w.membar_wait && w.mem_in_flight == 0) {
      w.membar_wait = false;
      touch(slot);
      active_ = true;
    }
    if (!w.finished || w.in_flight != 0) continue;
    live_slots_ &= ~(1ull << slot);
    touch(slot);
    active_ = true;
    schedulers_[nsched_div_.mod(slot)]->warp_finished(slot, now - epoch_);
    ctas_.retire_warp(w, now);
  }
}

// ------------------------------------------------------------------ stats

bool StreamingMultiprocessor::waiting_on_memory() const {
  if (lsu_.waiting()) return true;
  for (const WarpSlot& w : warps_)
    if (w.active && w.fetch_pending) return true;
  return !responses_.empty();
}

uint64_t StreamingMultiprocessor::progress_events() const {
  return ctas_.progress_events();
}

std::pair<int, uint64_t> StreamingMultiprocessor::longest_ready_wait(uint64_t now) {
  // Sampled by the watchdog rather than tracked on the pipeline's paths: a
  // warp that issues nothing keeps its operands ready once they are, so one
  // seen ready with the same issue count at every sample waited all along.
  int slot = -1;
  uint64_t longest = 0;
  for (uint64_t m = live_slots_; m; m &= m - 1) {
    const uint32_t s = uint32_t(__builtin_ctzll(m));
    if (views_.dirty(s)) continue;  // its view is out of date: judged at the next sample
    const WarpSlot& w = warps_[s];
    ReadyWatch& r = ready_watch_[s];
    if (!(views_.ready_or_unit_waiters() >> s & 1)) {
      r.age = kNever;  // not ready
      continue;
    }
    const uint64_t issued = w.insts_issued + r.nops;
    if (r.age != w.age || r.issued != issued) {  // newly ready, another warp, or it issued since
      r.age = w.age;
      r.issued = issued;
      r.since = now;
      continue;
    }
    if (now - r.since > longest) {
      longest = now - r.since;
      slot = int(s);
    }
  }
  return {slot, longest};
}

std::string StreamingMultiprocessor::describe_warp(uint32_t slot) const {
  const WarpSlot& w = warps_[slot];
  return describe_warp(ctas_.slot(w.cta_slot), *w.warp);
}

std::string StreamingMultiprocessor::describe_warp(const CtaSlots::Slot& cta, const WarpInstructionSource& warp) const {
  return std::string(name()) + " " + cta.cta->name() + " " + warp.describe();
}

std::string StreamingMultiprocessor::describe_warps() const {
  std::string out = lsu_.describe(name());
  for (uint32_t cs = 0; cs < ctas_.size(); ++cs) {
    const CtaSlots::Slot& c = ctas_.slot(cs);
    if (!c.valid) continue;
    for (uint32_t k = 0; k < c.cta->num_warps(); ++k) {
      if (c.cta->warp(k).finished()) continue;
      out += "\n  " + describe_warp(c, c.cta->warp(k));
    }
  }
  return out;
}

void StreamingMultiprocessor::report_stats(stats::StatMap& out) const {
  out["warp_insts"] = double(warp_insts_);
  out["thread_insts"] = double(thread_insts_);
  out["shared_accesses"] = double(lsu_.shared_accesses());
  out["shared_bank_cycles"] = double(lsu_.shared_bank_cycles());
  out["ibuffer_flushes"] = double(fetch_.flushes());
  if (swas_) out["nops_issued"] = double(nops_issued_);  // not in warp_insts (seed 003: not committed)
  // Cycles this SM's pipeline was evaluated (the rest it slept through).
  out["evaluated_cycles"] = double(run_cycles_);
}

void StreamingMultiprocessor::trace(sc_core::sc_trace_file* tf) {
  const std::string prefix = std::string(name()) + ".";
  sc_core::sc_trace(tf, ctas_.used_warps(), prefix + "active_warps");
  sc_core::sc_trace(tf, ctas_.live_ctas(), prefix + "active_ctas");
  for (auto& s : schedulers_) s->enable_trace(tf);
  eager_accounting_ = true;  // the VCD shows each cycle's class
}

}  // namespace tlmgpu::sm
