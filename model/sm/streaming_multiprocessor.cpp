#include "model/sm/streaming_multiprocessor.h"

#include <algorithm>
#include <limits>

#include "core/issue_order_gate.h"
#include "memory/l1_cache.h"
#include "schedulers/warp_scheduler.h"

namespace tlmgpu::sm {

namespace {

constexpr uint64_t kNever = std::numeric_limits<uint64_t>::max();

sc_core::sc_time clock_period(const core::GpuConfig& c) {
  return sc_core::sc_time(1e6 / c.core_clock_mhz, sc_core::SC_PS);
}

}  // namespace

StreamingMultiprocessor::StreamingMultiprocessor(sc_core::sc_module_name name, uint32_t index,
                                                 const core::GpuConfig& config, uint32_t stage)
    : engine::ClockedModule(name, stage, clock_period(config)),
      index_(index),
      config_(config),
      smc_(config.sm),
      ctas_(index, config.sm),
      fetch_(config, warps_),
      collectors_(config.sm),
      lsu_(config),
      issue_(index, sc_core::sc_module::name(), config, warps_, ctas_, fetch_, collectors_, pipes_, writeback_) {
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
  for (memory::L1Cache* cache : {l1i_cache_.get(), l1d_cache_.get(), tex_cache_.get()})
    cache->send_through(&l1_requests_);

  has_commit();
  issue_.create_schedulers();
  warps_.resize(smc_.max_warps);
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
  issue_.begin_device(first_cycle);
  fetch_.reset();
  // Request ids order same-cycle responses: number them as a fresh SM would.
  // (A launch that ended in a fault may have left answers for its requests:
  // they belong to the old device.)
  lsu_.reset();
  responses_ = {};
  writeback_.reset();
  ctas_.begin_device();
  ready_watch_.assign(ready_watch_.size(), ReadyWatch{});  // ages start again
  pipes_.reset();
}

void StreamingMultiprocessor::begin_launch(const SmLaunch& launch, CtaCompletionIf* dispatcher) {
  finished_ctas_.set_dispatcher(dispatcher);
  ctas_.begin_launch(launch, &finished_ctas_);
  for (WarpSlot& w : warps_) {
    w = WarpSlot{};
  }
  issue_.begin_launch();
  collectors_.reset();
  ticked_ = false;
}

bool StreamingMultiprocessor::can_accept_cta() const { return ctas_.can_accept(); }

void StreamingMultiprocessor::start_cta(uint64_t cta_id, exec::Dim3 ctaid, uint64_t cycle) {
  const bool prefilled = ctas_.launch().source->prefilled_instruction_buffers();
  ctas_.start(cta_id, ctaid, cycle, warps_, [&](uint32_t slot, WarpSlot& w) {
    issue_.warp_started(slot, w, cycle, last_cycle_);
    fetch_.warp_started(slot, cycle, prefilled);
  });
  wake_at(cycle);  // this cycle: the dispatcher's stage runs before the SMs'
  issue_.touch_all();
  active_ = true;
}

// ------------------------------------------------------------------ cycle

void StreamingMultiprocessor::end_launch(uint64_t last_cycle) {
  if (ticked_ && last_cycle > last_cycle_) issue_.skip_cycles(last_cycle - last_cycle_);
  issue_.end_launch();
  last_cycle_ = last_cycle;
}

// (Inlined into evaluate, its one caller: a call and its register saves per SM-cycle.)
[[gnu::always_inline]] inline bool StreamingMultiprocessor::cycle(uint64_t now) {
  // Cycles the GPU did not run this SM for: it was waiting for an event, so
  // every scheduler kept the class it had.
  if (ticked_ && now > last_cycle_ + 1) issue_.skip_cycles(now - last_cycle_ - 1);
  ticked_ = true;
  last_cycle_ = now;
  active_ = false;
  handle_responses(now);
  writeback(now);
  read_operands_and_dispatch(now);
  send_lines(now);
  if (issue_.issue(now)) active_ = true;
  // Shared functional state (global memory, the device heap) is touched only
  // at issue: the SMs after this one may now touch it (core/issue_order_gate.h).
  core::publish_issue_order();
  // (Under SWaS the issue stage fetched for the warps it selected.)
  if (!issue_.fetches_with_issue() && fetch_.fetch(now)) active_ = true;
  finish_warps(now);
  if (issue_.evaluates_every_cycle() && ctas_.used_warps() != 0) active_ = true;  // evaluated every cycle
  ++run_cycles_;
  return active_;
}

void StreamingMultiprocessor::evaluate(uint64_t now) {
  const bool busy = cycle(now);
  wake_at(busy ? now + 1 : next_event_cycle());
  if (!l1_requests_.empty() || !finished_ctas_.empty()) commit_this_cycle();
}

void StreamingMultiprocessor::commit(uint64_t) {
  l1_requests_.deliver();
  finished_ctas_.deliver();
}

uint64_t StreamingMultiprocessor::next_event_cycle() const {
  uint64_t next = writeback_.next_ready();
  next = std::min(next, lsu_.next_retry_cycle(*l1d_, *tex_));
  next = std::min(next, fetch_.next_retry_cycle());
  if (!responses_.empty()) next = std::min(next, responses_.next_ready() + 1);
  next = std::min(next, issue_.next_policy_wake());
  next = std::min(next, pipes_.next_freed());
  // Every buffered instruction's decode cycle is also in the issue stage,
  // which has forgotten the cycles up to now: when it knows none, no head is
  // still being decoded (always so with a one-cycle decode).
  if (!issue_.decoding()) return next;
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
  // handle_responses takes it in the next cycle (the memory modules run in
  // earlier stages of the SM's clock domain: a cycle that has passed is this one).
  wake_at(cycle + 1);
}

void StreamingMultiprocessor::release_at(uint64_t cycle) {
  // A line or fetch a cache refused is tried again when that cache frees an
  // MSHR or miss-queue entry (the cache calling has just noted the release).
  uint64_t wake = lsu_.next_retry_cycle(*l1d_, *tex_);
  wake = std::min(wake, fetch_.next_retry_cycle());
  // The crossbar took a request late: the requests queued behind it go at
  // this cycle's commit.
  if (!l1_requests_.empty()) wake = std::min(wake, cycle);
  wake_at(wake);
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
      if (fetch_.answer(r.id, r.cycle, decoded_at)) issue_.touch(slot);
      // The scheduler looks again when the new entries have decoded.
      if (decoded_at != FetchStage::kNever) issue_.decoded_at(slot, decoded_at);
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
        issue_.written_back(c.slot, c.pc, t.unit, now);
      });
  if (any) active_ = true;
}

// -------------------------------------------------------- operand collectors

void StreamingMultiprocessor::read_operands_and_dispatch(uint64_t now) {
  if (!collectors_.any_busy()) return;
  active_ = true;
  // The rotation follows the cycle (from the device's first), so sleeping does not shift it.
  collectors_.read_operands(now, uint32_t(now - issue_.epoch()),
                            [&](OperandCollector& c, uint32_t s, uint32_t cls, uint32_t index) {
                              dispatch(c, s, cls, index, now);
                            });
}

void StreamingMultiprocessor::dispatch(OperandCollector& c, uint32_t scheduler, uint32_t cls, uint32_t index,
                                       uint64_t now) {
  const InstructionTiming& t = (*ctas_.launch().timing)[c.pc];
  // Without tensor cores, wmma.mma takes the SP pipe (pipe_timing agrees).
  const Pipe pipe = t.pipe == Pipe::Tensor && !smc_.has_tensor_cores ? Pipe::Sp : t.pipe;
  uint64_t& unit_free = pipes_.free_at(scheduler, pipe);
  if (unit_free > now) return;  // the pipeline cannot take it yet
  const core::UnitTiming timing = pipe_timing(pipe, smc_);
  unit_free = now + timing.initiation_interval;
  collectors_.release(scheduler, cls, index);
  issue_.collector_freed(scheduler);

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
      issue_.touch(slot);
      active_ = true;
    }
    if (!w.finished || w.in_flight != 0) continue;
    issue_.warp_finished(slot, now);
    active_ = true;
    ctas_.retire_warp(w, now);
  }
}

// ------------------------------------------------------------------ stats

bool StreamingMultiprocessor::waiting_on_memory() const {
  // A refused fetch sleeps until the L1I's answer frees its MSHR or merge
  // slot; until then no warp may be marked as waiting for a fetch.
  if (lsu_.waiting() || fetch_.waiting_for_release()) return true;
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
  const SchedulerViewCache& views = issue_.views();
  for (uint64_t m = issue_.live_slots(); m; m &= m - 1) {
    const uint32_t s = uint32_t(__builtin_ctzll(m));
    if (views.dirty(s)) continue;  // its view is out of date: judged at the next sample
    const WarpSlot& w = warps_[s];
    ReadyWatch& r = ready_watch_[s];
    if (!(views.ready_or_unit_waiters() >> s & 1)) {
      r.age = kNever;  // not ready
      continue;
    }
    const uint64_t issued = w.insts_issued + issue_.nops_issued(s);  // SWaS NOPs count as issues
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

void StreamingMultiprocessor::report_stats(core::StatReport& out) const {
  using core::Unit;
  out.add("warp_insts", issue_.warp_insts(), Unit::Count, "warp instructions issued");
  out.add("thread_insts", issue_.thread_insts(), Unit::Count, "thread instructions issued (active lanes)");
  out.add("shared_accesses", lsu_.shared_accesses(), Unit::Count, "warp accesses to shared memory");
  out.add("shared_bank_cycles", lsu_.shared_bank_cycles(), Unit::Cycles,
          "cycles shared memory's banks were busy (bank conflicts replay)");
  out.add("ibuffer_flushes", fetch_.flushes(), Unit::Count,
          "instruction buffers emptied of wrong-path instructions when the warp's PC changed (branch, reconvergence)");
  if (issue_.fetches_with_issue())
    out.add("nops_issued", issue_.nops_issued(), Unit::Count,
            "no-ops issued for fetch breaks, not in warp_insts (seed 003: not committed)");
  out.add("evaluated_cycles", run_cycles_, Unit::Cycles,
          "cycles this SM's pipeline was evaluated (the rest it slept through); host work, not timing");
}

void StreamingMultiprocessor::trace(sc_core::sc_trace_file* tf) {
  const std::string prefix = std::string(name()) + ".";
  sc_core::sc_trace(tf, ctas_.used_warps(), prefix + "active_warps");
  sc_core::sc_trace(tf, ctas_.live_ctas(), prefix + "active_ctas");
  for (auto& s : issue_.schedulers()) s->enable_trace(tf);
  issue_.set_eager_accounting();  // the VCD shows each cycle's class
}

}  // namespace tlmgpu::sm
