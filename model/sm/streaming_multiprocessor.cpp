#include "model/sm/streaming_multiprocessor.h"

#include <algorithm>
#include <limits>
#include <stdexcept>

#include "memory/coalescer.h"
#include "memory/l1_cache.h"
#include "schedulers/policy_registry.h"
#include "schedulers/warp_scheduler.h"

namespace tlmgpu::sm {

using schedulers::WarpWait;

namespace {

constexpr uint64_t kFetchTag = 1ull << 63;
constexpr uint64_t kNever = std::numeric_limits<uint64_t>::max();

sc_core::sc_time clock_period(const platform::GpuConfig& c) {
  return sc_core::sc_time(1e6 / c.core_clock_mhz, sc_core::SC_PS);
}

}  // namespace

StreamingMultiprocessor::StreamingMultiprocessor(sc_core::sc_module_name name, uint32_t index,
                                                 const platform::GpuConfig& config)
    : sc_core::sc_module(name), index_(index), config_(config), smc_(config.sm) {
  const sc_core::sc_time period = clock_period(config);
  l1i_ = std::make_unique<memory::L1Cache>("l1i", config.l1i, period);
  l1d_ = std::make_unique<memory::L1Cache>("l1d", config.l1d, period);
  l1i_->response_port.bind(*this);
  l1d_->response_port.bind(*this);

  const uint32_t nsched = smc_.num_schedulers;
  schedulers::PolicyContext pctx;
  pctx.num_schedulers = nsched;
  pctx.max_warps_per_scheduler = (smc_.max_warps + nsched - 1) / nsched;
  for (uint32_t s = 0; s < nsched; ++s) {
    pctx.scheduler_index = s;
    schedulers_.push_back(std::make_unique<schedulers::WarpScheduler>(
        ("sched" + std::to_string(s)).c_str(), schedulers::make_policy(config.scheduler, pctx)));
  }
  for (uint32_t b = 0; b < smc_.register_banks * nsched; ++b)
    banks_.push_back(std::make_unique<RegisterFileBank>(("bank" + std::to_string(b)).c_str()));

  if (smc_.max_warps > 64) throw std::invalid_argument("sm.max_warps above 64 is not supported");
  warps_.resize(smc_.max_warps);
  ctas_.resize(smc_.max_ctas);
  views_.resize(nsched);
  collectors_.resize(nsched);
  unit_free_.assign(nsched, std::array<uint64_t, 8>{});
  last_class_.assign(nsched, 0);
  sched_dirty_.assign(nsched, 1);
  decoded_at_.resize(nsched);
  for (uint32_t s = 0; s < nsched; ++s) {
    views_[s].sm = index;
    views_[s].scheduler = s;
    collectors_[s][kSpCollector].resize(smc_.collectors_sp);
    collectors_[s][kSfuCollector].resize(smc_.collectors_sfu);
    collectors_[s][kDpCollector].resize(smc_.collectors_dp);
    collectors_[s][kMemCollector].resize(smc_.collectors_mem);
  }
}

StreamingMultiprocessor::~StreamingMultiprocessor() = default;

memory::L1Cache& StreamingMultiprocessor::l1d() { return *l1d_; }
memory::L1Cache& StreamingMultiprocessor::l1i() { return *l1i_; }

// ------------------------------------------------------------------ CTAs

void StreamingMultiprocessor::begin_launch(const SmLaunch& launch, CtaCompletionIf* dispatcher,
                                           const KernelPhase* phase) {
  launch_ = launch;
  dispatcher_ = dispatcher;
  phase_ = phase;
  for (CtaSlot& c : ctas_) {
    c.cta.reset();
    c.valid = false;
  }
  for (WarpSlot& w : warps_) {
    w = WarpSlot{};
  }
  used_threads_ = used_warps_ = used_regs_ = used_shared_ = 0;
  live_ctas_ = 0;
  busy_collectors_ = 0;
  for (auto& per_sched : collectors_)
    for (auto& cls : per_sched)
      for (Collector& c : cls) c.busy = false;
  ticked_ = false;
}

bool StreamingMultiprocessor::can_accept_cta() const {
  if (launch_.ctx == nullptr) return false;
  if (live_ctas_ >= smc_.max_ctas) return false;
  if (used_threads_ + launch_.warps_per_cta * ptx::kWarpSize > std::max(smc_.max_threads, ptx::kWarpSize * 1u) &&
      used_threads_ != 0)
    return false;
  if (used_warps_ + launch_.warps_per_cta > smc_.max_warps) return false;
  if (used_regs_ + launch_.regs_per_cta > smc_.registers && used_regs_ != 0) return false;
  if (used_shared_ + launch_.shared_per_cta > smc_.shared_bytes && used_shared_ != 0) return false;
  return true;
}

void StreamingMultiprocessor::start_cta(uint64_t cta_id, exec::Dim3 ctaid, uint64_t cycle) {
  uint32_t cs = 0;
  while (ctas_[cs].valid) ++cs;
  CtaSlot& c = ctas_[cs];
  if (c.cta) c.cta->restart(ctaid, index_);
  else c.cta = std::make_unique<exec::Cta>(*launch_.ctx, ctaid, index_);
  c.cta_id = cta_id;
  c.valid = true;
  c.warps_done = 0;
  c.start_cycle = cycle;
  // Warps take the lowest free slots, contiguous when possible.
  const uint32_t n = launch_.warps_per_cta;
  uint32_t placed = 0;
  for (uint32_t s = 0; s < warps_.size() && placed < n; ++s) {
    WarpSlot& w = warps_[s];
    if (w.active) continue;
    if (placed == 0) c.first_warp = s;
    const uint32_t num_ids = launch_.ctx->kernel->num_regs + launch_.ctx->kernel->num_preds;
    w = WarpSlot{};
    w.warp = &c.cta->warp(placed);
    w.warp->set_record_accesses(true);
    w.cta_slot = cs;
    w.active = true;
    w.age = next_age_++;
    w.fetch_pc = w.warp->pc();
    // Unique across launches: a fetch answered after its warp (or kernel)
    // ended must never match the slot's next occupant.
    w.fetch_generation = ++fetch_generations_;
    w.pending_writes.assign(num_ids, 0);
    schedulers_[s % schedulers_.size()]->warp_started(s, cycle);
    fetch_candidates_ |= 1ull << s;
    ++placed;
  }
  ++live_ctas_;
  wake_ = true;
  touch_all();
  used_threads_ += n * ptx::kWarpSize;
  used_warps_ += n;
  used_regs_ += launch_.regs_per_cta;
  used_shared_ += launch_.shared_per_cta;
  active_ = true;
}

// ------------------------------------------------------------------ cycle

void StreamingMultiprocessor::end_launch(uint64_t last_cycle) {
  if (ticked_ && last_cycle > last_cycle_) skip_cycles(last_cycle - last_cycle_);
  last_cycle_ = last_cycle;
}

bool StreamingMultiprocessor::cycle(uint64_t now) {
  // Cycles the GPU did not run this SM for: it was waiting for an event, so
  // every scheduler kept the class it had.
  if (ticked_ && now > last_cycle_ + 1) skip_cycles(now - last_cycle_ - 1);
  ticked_ = true;
  last_cycle_ = now;
  wake_ = false;
  active_ = false;
  handle_responses(now);
  writeback(now);
  read_operands_and_dispatch(now);
  send_lines(now);
  issue(now);
  fetch(now);
  finish_warps(now);
  ++run_cycles_;
  return active_;
}

void StreamingMultiprocessor::skip_cycles(uint64_t n) {
  for (size_t s = 0; s < schedulers_.size(); ++s) schedulers_[s]->account_cycles(last_class_[s], n);
}

uint64_t StreamingMultiprocessor::next_event_cycle() const {
  uint64_t next = completions_.empty() ? kNever : completions_.top().cycle;
  if (line_queue_head_ != line_queue_.size()) next = std::min(next, l1d_->next_release_cycle());
  if (fetch_refused_) next = std::min(next, l1i_->next_release_cycle());
  for (const Response& r : responses_) next = std::min(next, r.cycle + 1);
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
  responses_.push_back({id, cycle});
  wake_ = true;
  response_event_.notify(sc_core::SC_ZERO_TIME);
}

void StreamingMultiprocessor::handle_responses(uint64_t now) {
  // Most cycles nothing is due yet: access_done only appends, so only the
  // responses that arrived since the last look need checking.
  for (; responses_seen_ < responses_.size(); ++responses_seen_)
    responses_min_ = std::min(responses_min_, responses_[responses_seen_].cycle);
  if (responses_min_ >= now) return;
  // Registered hand-off: data ready at cycle c is seen from cycle c + 1, so
  // it never matters whether the cache's process ran before this one. The
  // due ones move to due_responses_; the rest stay (their order is irrelevant).
  due_responses_.clear();
  responses_min_ = kNever;
  size_t kept = 0;
  for (size_t i = 0; i < responses_.size(); ++i) {
    if (responses_[i].cycle >= now) {
      responses_min_ = std::min(responses_min_, responses_[i].cycle);
      responses_[kept++] = responses_[i];
    } else {
      due_responses_.push_back(responses_[i]);
    }
  }
  responses_.resize(kept);
  responses_seen_ = kept;
  if (due_responses_.empty()) return;
  // Order by (cycle, id): the same result whatever order the caches called in.
  if (due_responses_.size() > 1)
    std::sort(due_responses_.begin(), due_responses_.end(),
              [](const Response& a, const Response& b) { return a.cycle != b.cycle ? a.cycle < b.cycle : a.id < b.id; });
  active_ = true;
  for (const Response& r : due_responses_) {
    if (r.id & kFetchTag) {
      const uint32_t slot = uint32_t((r.id >> 32) & 0xffff);
      const uint32_t generation = uint32_t(r.id & 0xffffffffu);
      WarpSlot& w = warps_[slot];
      if (!w.active || !w.fetch_pending || generation != w.fetch_generation) continue;
      w.fetch_pending = false;
      touch(slot);
      fetch_candidates_ |= 1ull << slot;
      // One fetch brings the rest of the line's instructions the buffer has room for.
      const uint32_t per_line = config_.l1i.line_bytes / 8;
      const uint32_t depth = std::min<uint32_t>(smc_.ibuffer_depth, uint32_t(w.ibuffer.size()));
      const uint32_t end = launch_.ctx->kernel->end_pc;
      while (w.ib_count < depth && w.fetch_pc < end) {
        w.ibuffer[(w.ib_head + w.ib_count) % w.ibuffer.size()] = {w.fetch_pc, r.cycle + smc_.decode_latency};
        decoded_at_[slot % schedulers_.size()].push(r.cycle + smc_.decode_latency);
        ++w.ib_count;
        ++w.fetch_pc;
        if (w.fetch_pc % per_line == 0) break;
      }
    } else {
      MemoryOp& op = memory_ops_[size_t(r.id)];
      if (!op.valid) continue;
      if (--op.lines_left == 0) {
        op.valid = false;
        free_memory_ops_.push_back(uint32_t(r.id));
        complete_at(now, op.slot, op.pc, true);
      }
    }
  }
}

void StreamingMultiprocessor::complete_at(uint64_t cycle, uint32_t slot, uint32_t pc, bool memory) {
  completions_.push({cycle, completion_seq_++, slot, pc, memory});
}

void StreamingMultiprocessor::writeback(uint64_t now) {
  while (!completions_.empty() && completions_.top().cycle <= now) {
    const Completion c = completions_.top();
    completions_.pop();
    active_ = true;
    WarpSlot& w = warps_[c.slot];
    touch(c.slot);
    finish_candidates_ |= 1ull << c.slot;
    const InstructionTiming& t = (*launch_.timing)[c.pc];
    for (uint8_t i = 0; i < t.num_dst; ++i) --w.pending_writes[t.dst[i]];
    --w.in_flight;
    if (c.memory) --w.mem_in_flight;
    schedulers::CompleteEvent ev;
    ev.cycle = now;
    ev.slot = c.slot;
    ev.pc = c.pc;
    ev.unit = t.unit;
    schedulers_[c.slot % schedulers_.size()]->notify_complete(ev);
  }
}

// -------------------------------------------------------- operand collectors

StreamingMultiprocessor::CollectorClass StreamingMultiprocessor::collector_class(Pipe pipe) {
  switch (pipe) {
    case Pipe::Sfu: case Pipe::FpDivSqrt: return kSfuCollector;
    case Pipe::Dp: return kDpCollector;
    case Pipe::Mem: return kMemCollector;
    default: return kSpCollector;
  }
}

StreamingMultiprocessor::Collector* StreamingMultiprocessor::free_collector(uint32_t scheduler, CollectorClass cls) {
  for (Collector& c : collectors_[scheduler][cls])
    if (!c.busy) return &c;
  return nullptr;
}

void StreamingMultiprocessor::read_operands_and_dispatch(uint64_t now) {
  if (busy_collectors_ == 0) return;
  const uint32_t nsched = uint32_t(schedulers_.size());
  // Rotate which collector asks the banks first, so no collector starves.
  const uint32_t start = uint32_t(now);  // from the cycle, so sleeping does not shift it
  for (uint32_t k = 0; k < nsched * kCollectorClasses; ++k) {
    const uint32_t s = (start + k) % nsched;
    const uint32_t cls = ((start + k) / nsched) % kCollectorClasses;
    for (Collector& c : collectors_[s][cls]) {
      if (!c.busy) continue;
      active_ = true;
      for (uint8_t i = 0; i < c.reads_left;) {
        if (banks_[c.banks[i]]->try_read(now)) {
          c.banks[i] = c.banks[--c.reads_left];
        } else {
          ++i;
        }
      }
      if (c.reads_left == 0) dispatch(c, s, now);
    }
  }
}

void StreamingMultiprocessor::dispatch(Collector& c, uint32_t scheduler, uint64_t now) {
  const InstructionTiming& t = (*launch_.timing)[c.pc];
  uint64_t& unit_free = unit_free_[scheduler][size_t(t.pipe)];
  if (unit_free > now) return;  // the pipeline cannot take it yet
  const platform::UnitTiming timing = pipe_timing(t.pipe, smc_);
  unit_free = now + timing.initiation_interval;
  c.busy = false;
  --busy_collectors_;
  sched_dirty_[scheduler] = 1;  // a free collector may unblock a warp

  if (!c.has_access) {
    complete_at(now + timing.latency, c.slot, c.pc, t.is_memory);
    return;
  }
  const exec::MemAccess& a = c.access;
  switch (a.space) {
    case ptx::StateSpace::Shared: {
      const uint32_t cycles = memory::shared_bank_cycles(a, smc_.shared_banks);
      ++shared_accesses_;
      shared_bank_cycles_ += cycles;
      unit_free = now + cycles;
      complete_at(now + smc_.shared_latency + cycles - 1, c.slot, c.pc, true);
      return;
    }
    case ptx::StateSpace::Global:
    case ptx::StateSpace::Local: {
      std::vector<memory::LineAccess>& lines = coalesced_;
      lines.clear();
      memory::coalesce(a, config_.l1d.line_bytes, config_.l1d.sector_bytes, lines);
      if (lines.empty()) {
        complete_at(now + timing.latency, c.slot, c.pc, true);
        return;
      }
      uint32_t op;
      if (free_memory_ops_.empty()) {
        op = uint32_t(memory_ops_.size());
        memory_ops_.emplace_back();
      } else {
        op = free_memory_ops_.back();
        free_memory_ops_.pop_back();
      }
      memory_ops_[op] = {c.slot, c.pc, uint32_t(lines.size()), true};
      for (memory::LineAccess& l : lines) {
        l.id = op;
        l.warp = c.slot;
        if (a.is_atomic) {
          l.kind = memory::AccessKind::Atomic;
          l.bypass_l1 = true;
        } else {
          l.kind = a.is_store ? memory::AccessKind::Store : memory::AccessKind::Load;
        }
        line_queue_.push_back(l);
      }
      return;
    }
    default:  // param and const: the constant cache, modelled as a hit
      complete_at(now + smc_.sp.latency, c.slot, c.pc, true);
      return;
  }
}

void StreamingMultiprocessor::send_lines(uint64_t now) {
  // One line per cycle into the L1D, in order.
  if (line_queue_head_ == line_queue_.size()) return;
  // A refused line waits for an L1D MSHR to free (next_event_cycle knows
  // when), so the SM can sleep meanwhile.
  if (l1d_->try_access(line_queue_[line_queue_head_], now)) {
    active_ = true;
    ++line_queue_head_;
    if (line_queue_head_ == line_queue_.size()) {
      line_queue_.clear();
      line_queue_head_ = 0;
    }
  }
}

// ------------------------------------------------------------------ issue

void StreamingMultiprocessor::refresh_view(WarpSlot& w, uint32_t slot, uint64_t now) {
  // Everything but the collectors' availability, which changes every cycle
  // for all warps alike and is applied when the view is assembled.
  w.view_dirty = false;
  w.needs_collector = -1;
  schedulers::WarpView& v = w.view;
  v = schedulers::WarpView{};
  v.slot = slot;
  v.cta_slot = w.cta_slot;
  v.cta_id = ctas_[w.cta_slot].cta_id;
  v.age = w.age;
  v.insts_issued = w.insts_issued;
  v.progress = w.progress;
  const exec::Warp& warp = *w.warp;
  v.active_threads = uint32_t(__builtin_popcount(warp.next_mask()));
  if (w.ib_count) {
    const InstructionTiming& t = (*launch_.timing)[w.ibuffer[w.ib_head].pc];
    v.head_pc = w.ibuffer[w.ib_head].pc;
    v.head_unit = t.unit;
    v.head_class = t.head_class;
  }
  if (warp.finished()) {
    v.wait = WarpWait::Finished;
  } else if (warp.at_barrier()) {
    v.wait = WarpWait::Barrier;
  } else if (w.membar_wait) {
    v.wait = WarpWait::Membar;
  } else if (w.ib_count == 0 || w.ibuffer[w.ib_head].ready_cycle > now) {
    v.wait = WarpWait::EmptyBuffer;
  } else {
    const InstructionTiming& t = (*launch_.timing)[w.ibuffer[w.ib_head].pc];
    v.wait = WarpWait::Ready;
    for (uint8_t i = 0; i < t.num_src && v.wait == WarpWait::Ready; ++i)
      if (w.pending_writes[t.src[i]]) v.wait = WarpWait::Scoreboard;
    for (uint8_t i = 0; i < t.num_dst && v.wait == WarpWait::Ready; ++i)
      if (w.pending_writes[t.dst[i]]) v.wait = WarpWait::Scoreboard;
    if (v.wait == WarpWait::Ready && t.pipe != Pipe::Ctrl && t.pipe != Pipe::Bar)
      w.needs_collector = int8_t(collector_class(t.pipe));
  }
}

void StreamingMultiprocessor::issue(uint64_t now) {
  const uint32_t nsched = uint32_t(schedulers_.size());
  for (uint32_t s = 0; s < nsched; ++s) {
    // Nothing this scheduler's choice depends on changed: same (non-)choice.
    auto& decoded = decoded_at_[s];
    while (!decoded.empty() && decoded.top() <= now) {
      decoded.pop();
      sched_dirty_[s] = 1;
    }
    if (!sched_dirty_[s]) {
      schedulers_[s]->account_cycles(last_class_[s], 1);
      continue;
    }
    sched_dirty_[s] = 0;
    schedulers::SchedulerView& view = views_[s];
    view.cycle = now;
    view.ctas_waiting = phase_ && phase_->ctas_waiting;
    view.last_cta_dispatched = phase_ && phase_->last_cta_dispatched;
    view.warps.clear();
    std::array<bool, kCollectorClasses> collector_free{};
    for (uint32_t cls = 0; cls < kCollectorClasses; ++cls)
      for (const Collector& c : collectors_[s][cls]) collector_free[cls] |= !c.busy;
    bool any = false;
    for (uint32_t slot = s; slot < warps_.size(); slot += nsched) {
      WarpSlot& w = warps_[slot];
      if (!w.active) continue;
      any = true;
      if (w.view_dirty || (w.view.wait == WarpWait::EmptyBuffer && w.ib_count &&
                           w.ibuffer[w.ib_head].ready_cycle <= now))
        refresh_view(w, slot, now);
      view.warps.push_back(w.view);
      if (w.needs_collector >= 0 && !collector_free[size_t(w.needs_collector)])
        view.warps.back().wait = WarpWait::UnitBusy;
    }
    if (!any) {
      schedulers_[s]->account_cycles(int(schedulers::StallClass::Idle), 1);
      last_class_[s] = int(schedulers::StallClass::Idle);
      continue;
    }
    if (schedulers_[s]->wants_cta_view()) {
      view.ctas.clear();
      for (uint32_t cs = 0; cs < ctas_.size(); ++cs) {
        const CtaSlot& c = ctas_[cs];
        schedulers::CtaView cv;
        cv.slot = cs;
        cv.valid = c.valid;
        if (c.valid) {
          cv.cta_id = c.cta_id;
          cv.warps = launch_.warps_per_cta;
          cv.start_cycle = c.start_cycle;
          for (uint32_t k = 0; k < launch_.warps_per_cta; ++k) {
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
    // A scheduler that cannot issue needs no tick of its own: what it waits
    // for (a writeback, a memory response, a busy collector, a decoded
    // instruction) is an event or keeps the SM active anyway.
    if (pick >= 0) {
      active_ = true;
      sched_dirty_[s] = 1;
      issue_warp(view.warps[size_t(pick)].slot, s, now);
    }
  }
}

bool StreamingMultiprocessor::issue_warp(uint32_t slot, uint32_t scheduler, uint64_t now) {
  WarpSlot& w = warps_[slot];
  exec::Warp& warp = *w.warp;
  const uint32_t pc = w.ibuffer[w.ib_head].pc;
  if (warp.pc() != pc) {  // the buffered path is not where the warp goes
    flush(w);
    return false;
  }
  const exec::StepStatus st = warp.step();
  if (st == exec::StepStatus::Blocked) {
    flush(w);
    return false;
  }
  const exec::StepInfo& info = warp.last();
  const InstructionTiming& t = (*launch_.timing)[pc];
  scan_finish_ = true;
  touch(slot);
  fetch_candidates_ |= 1ull << slot;
  // A barrier arrival or an exit can release warps of other schedulers.
  if (t.pipe == Pipe::Bar || warp.finished() || info.inst->op == ptx::Opcode::Exit ||
      info.inst->op == ptx::Opcode::Ret)
    touch_all();
  w.ib_head = uint8_t((w.ib_head + 1) % w.ibuffer.size());
  --w.ib_count;
  if (warp.finished() || warp.pc() != pc + 1) flush(w);

  const uint32_t active = uint32_t(__builtin_popcount(info.active_mask));
  ++warp_insts_;
  thread_insts_ += active;
  ++w.insts_issued;
  w.progress += active;
  for (uint8_t i = 0; i < t.num_dst; ++i) ++w.pending_writes[t.dst[i]];
  ++w.in_flight;
  if (t.is_memory) ++w.mem_in_flight;
  if (t.is_membar && w.mem_in_flight > 0) w.membar_wait = true;

  if (t.pipe == Pipe::Ctrl || t.pipe == Pipe::Bar) {
    complete_at(now + 1, slot, pc, false);
  } else {
    Collector* c = free_collector(scheduler, collector_class(t.pipe));
    c->busy = true;
    ++busy_collectors_;
    c->slot = slot;
    c->pc = pc;
    c->reads_left = 0;
    const uint32_t num_regs = launch_.ctx->kernel->num_regs;
    const uint32_t nbanks = uint32_t(banks_.size());
    for (uint8_t i = 0; i < t.num_src; ++i) {
      if (t.src[i] >= num_regs) continue;  // predicates live outside the banked file
      c->banks[c->reads_left++] = (t.src[i] + slot) % nbanks;
    }
    c->has_access = t.is_memory && active != 0 && warp.last_access().mask != 0;
    if (c->has_access) c->access = warp.last_access();
  }

  schedulers::IssueEvent ev;
  ev.cycle = now;
  ev.slot = slot;
  ev.pc = pc;
  ev.unit = t.unit;
  ev.op = info.inst->op;
  ev.active_mask = info.active_mask;
  ev.is_branch = t.is_branch;
  ev.taken = info.branch_taken;
  ev.backward = info.backward;
  ev.is_setp = t.is_setp;
  if (t.is_setp) {
    // The compared values per lane (raw bits), for spin detectors (seed 001).
    auto operand_lanes = [&](const ptx::Operand& o, std::array<uint64_t, ptx::kWarpSize>& out) {
      for (unsigned lane = 0; lane < ptx::kWarpSize; ++lane) {
        out[lane] = o.kind == ptx::OperandKind::Reg     ? warp.reg(o.reg)[lane]
                    : o.kind == ptx::OperandKind::Imm   ? o.imm
                    : o.kind == ptx::OperandKind::Special ? warp.special(o.sreg, lane)
                                                          : 0;
      }
    };
    operand_lanes(info.inst->src[0], setp_a_);
    operand_lanes(info.inst->src[1], setp_b_);
    ev.setp_a = setp_a_.data();
    ev.setp_b = setp_b_.data();
  }
  schedulers_[scheduler]->notify_issue(ev);
  return true;
}

void StreamingMultiprocessor::flush(WarpSlot& w) {
  const uint32_t slot = uint32_t(&w - warps_.data());
  touch(slot);
  fetch_candidates_ |= 1ull << slot;
  if (w.ib_count) ++icache_flushes_;
  w.ib_count = 0;
  w.fetch_pending = false;
  w.fetch_generation = ++fetch_generations_;
  w.fetch_pc = w.warp->pc();
}

// ------------------------------------------------------------------ fetch

void StreamingMultiprocessor::fetch(uint64_t now) {
  fetch_refused_ = false;
  const uint32_t depth = std::min<uint32_t>(smc_.ibuffer_depth, 8);
  // Loose round robin over the warps that may want a fetch, starting at fetch_rr_.
  const uint64_t below = fetch_rr_ >= 64 ? ~0ull : (1ull << fetch_rr_) - 1;
  for (uint64_t part : {fetch_candidates_ & ~below, fetch_candidates_ & below}) {
    for (; part; part &= part - 1) {
      const uint32_t slot = uint32_t(__builtin_ctzll(part));
      WarpSlot& w = warps_[slot];
      if (!w.active || w.fetch_pending || w.ib_count >= depth || w.warp->finished() ||
          w.fetch_pc >= launch_.ctx->kernel->end_pc) {
        fetch_candidates_ &= ~(1ull << slot);  // set again when its buffer drains or it is flushed
        continue;
      }
      memory::LineAccess a;
      a.kind = memory::AccessKind::InstructionFetch;
      const uint64_t addr = kCodeBase + uint64_t(w.fetch_pc) * 8;
      a.line_addr = addr & ~uint64_t(config_.l1i.line_bytes - 1);
      a.sector_mask = 0xffffffffu;
      a.warp = slot;
      a.id = kFetchTag | (uint64_t(slot) << 32) | w.fetch_generation;
      if (l1i_->try_access(a, now)) {
        active_ = true;
        w.fetch_pending = true;
        fetch_candidates_ &= ~(1ull << slot);
        fetch_rr_ = (slot + 1) % uint32_t(warps_.size());
      } else {
        fetch_refused_ = true;
      }
      return;  // one fetch per cycle
    }
  }
}

void StreamingMultiprocessor::finish_warps(uint64_t now) {
  // Only a writeback can finish a warp or end its membar wait: an issue
  // leaves the warp with its own instruction in flight (in_flight and, for
  // memory instructions, mem_in_flight only drop in writeback). So only the
  // warps written back this cycle are looked at, in slot order as before.
  scan_finish_ = false;
  for (uint64_t m = finish_candidates_; m; m &= m - 1) {
    const uint32_t slot = uint32_t(__builtin_ctzll(m));
    WarpSlot& w = warps_[slot];
    if (!w.active) continue;
    if (w.membar_wait && w.mem_in_flight == 0) {
      w.membar_wait = false;
      touch(slot);
    }
    if (!w.warp->finished() || w.in_flight != 0) continue;
    w.active = false;
    touch(slot);
    schedulers_[slot % schedulers_.size()]->warp_finished(slot, now);
    CtaSlot& c = ctas_[w.cta_slot];
    if (++c.warps_done < launch_.warps_per_cta) continue;
    c.valid = false;
    --live_ctas_;
    used_threads_ -= launch_.warps_per_cta * ptx::kWarpSize;
    used_warps_ -= launch_.warps_per_cta;
    used_regs_ -= launch_.regs_per_cta;
    used_shared_ -= launch_.shared_per_cta;
    active_ = true;
    ++ctas_finished_;
    dispatcher_->cta_finished(index_, c.cta_id, now);
  }
  finish_candidates_ = 0;
}

// ------------------------------------------------------------------ stats

bool StreamingMultiprocessor::waiting_on_memory() const {
  if (line_queue_head_ != line_queue_.size()) return true;
  for (const MemoryOp& op : memory_ops_)
    if (op.valid) return true;
  for (const WarpSlot& w : warps_)
    if (w.active && w.fetch_pending) return true;
  return !responses_.empty();
}

uint64_t StreamingMultiprocessor::progress_events() const {
  uint64_t p = ctas_finished_;
  for (const CtaSlot& c : ctas_) {
    if (!c.valid) continue;
    p += c.cta->barrier_releases();
    for (uint32_t k = 0; k < c.cta->num_warps(); ++k) p += c.cta->warp(k).progress_events();
  }
  return p;
}

std::string StreamingMultiprocessor::describe_warps() const {
  std::string out;
  uint32_t ops = 0;
  for (const MemoryOp& op : memory_ops_) ops += op.valid;
  if (ops || line_queue_head_ != line_queue_.size())
    out += "\n  " + std::string(name()) + ": " + std::to_string(ops) + " memory instructions waiting for lines, " +
           std::to_string(line_queue_.size() - line_queue_head_) + " lines queued for the L1D";
  for (const CtaSlot& c : ctas_) {
    if (!c.valid) continue;
    for (uint32_t k = 0; k < c.cta->num_warps(); ++k) {
      if (c.cta->warp(k).finished()) continue;
      out += "\n  " + std::string(name()) + " " + c.cta->name() + " " + c.cta->warp(k).describe();
    }
  }
  return out;
}

void StreamingMultiprocessor::report_stats(stats::StatMap& out) const {
  out["warp_insts"] = double(warp_insts_);
  out["thread_insts"] = double(thread_insts_);
  out["shared_accesses"] = double(shared_accesses_);
  out["shared_bank_cycles"] = double(shared_bank_cycles_);
  out["ibuffer_flushes"] = double(icache_flushes_);
  // Cycles this SM's pipeline was evaluated (the rest it slept through).
  out["evaluated_cycles"] = double(run_cycles_);
}

void StreamingMultiprocessor::trace(sc_core::sc_trace_file* tf) {
  const std::string prefix = std::string(name()) + ".";
  sc_core::sc_trace(tf, used_warps_, prefix + "active_warps");
  sc_core::sc_trace(tf, live_ctas_, prefix + "active_ctas");
  for (auto& s : schedulers_) s->enable_trace(tf);
}

}  // namespace tlmgpu::sm
