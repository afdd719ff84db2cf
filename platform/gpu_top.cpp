#include "platform/gpu_top.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <limits>

#include "core/issue_order_gate.h"
#include "memory/l1_cache.h"
#include "model/sm/ptx_instruction_source.h"
#include "platform/gpu_device.h"
#include "platform/host_thread_pool.h"
#include "platform/memory_system.h"
#include "schedulers/warp_scheduler.h"

namespace tlmgpu::platform {

namespace {
constexpr uint64_t kNever = std::numeric_limits<uint64_t>::max();
// How often (in ticks) the watchdog compares forward progress.
constexpr uint64_t kWatchdogInterval = 4096;
// Cycles without a single issued instruction before the run is declared stuck
// (far beyond any memory latency).
constexpr uint64_t kStuckCycles = 200000;

void walk(const sc_core::sc_object* obj, core::StatMap& out, core::StatDescriptions* descriptions) {
  if (const auto* p = dynamic_cast<const core::StatsProvider*>(obj)) {
    core::StatMap mine;
    core::StatDescriptions my_descriptions;
    core::StatReport report(mine, descriptions ? &my_descriptions : nullptr);
    p->report_stats(report);
    const std::string prefix = std::string(obj->name()) + ".";
    for (const auto& [k, v] : mine) out[prefix + k] = v;
    if (descriptions)
      for (auto& [k, d] : my_descriptions) (*descriptions)[prefix + k] = std::move(d);
  }
  for (const sc_core::sc_object* child : obj->get_child_objects()) walk(child, out, descriptions);
}
}  // namespace

// ------------------------------------------------------------------ GPU top

namespace {

/// One awake SM's evaluation of a cycle (a task of the host thread pool):
/// a cache line each, as each is written by the thread that evaluates it.
struct alignas(64) SmEvaluation {
  sm::StreamingMultiprocessor* sm = nullptr;
  std::exception_ptr failure;
  uint64_t ticks = 0;      // host time-stamp ticks its evaluation took (TLMGPU_PROFILE_PHASES)
  uint64_t gate_wait = 0;  // of which it waited at the issue-order gate
};

}  // namespace

/// Evaluates the due SMs of a cycle for the clock domain: one after another,
/// or on the host thread pool with the issue-order gate ordering what they
/// share. An SM's fault is kept (the lowest-numbered one's) for the GPU top,
/// which runs after the domain has committed every SM.
class GpuTop::SmStageExecutor : public engine::StageExecutor {
 public:
  explicit SmStageExecutor(GpuTop& top) : top_(top) {}

  void evaluate_stage(engine::ClockedModule* const* modules, uint32_t count, uint64_t now) override {
    GpuTop& top = top_;
    // Between launches (after a fault or an abort) an SM woken by a late
    // answer waits for the next launch, which wakes every SM.
    if (!top.running_) return;
    top.last_tick_cycle_ = now;
    top.sms_ran_at_ = now;
    const bool parallel = top.pool_ && count > 1 && top.parallel_launch_;
    profile_ = top.profile_ != nullptr;
    if (!parallel && !profile_) {
      // One thread: no tasks, tickets or gate. The first failure in SM order
      // is kept and the SMs after it still finish the cycle, as in parallel.
      for (uint32_t i = 0; i < count; ++i) {
        try {
          static_cast<sm::StreamingMultiprocessor*>(modules[i])->evaluate(now);
        } catch (...) {
          if (!top.sm_failure_) top.sm_failure_ = std::current_exception();
        }
      }
      return;
    }
    now_ = now;
    sms_.clear();
    for (uint32_t i = 0; i < count; ++i)
      sms_.push_back(SmEvaluation{static_cast<sm::StreamingMultiprocessor*>(modules[i]), nullptr, 0, 0});
    gate_ = parallel ? &top.gate_ : nullptr;
    const uint64_t t0 = profile_ ? core::host_time_stamp() : 0;
    if (parallel) {
      top.gate_.begin_round(count);
      top.pool_->run(count, &SmStageExecutor::evaluate_one, this);
    } else {
      for (uint32_t t = 0; t < count; ++t) evaluate_one(this, t);
    }
    for (SmEvaluation& e : sms_)
      if (e.failure && !top.sm_failure_) top.sm_failure_ = e.failure;
    if (profile_) {
      PhaseProfile& p = *top.profile_;
      p.evaluate += core::host_time_stamp() - t0;
      ++p.cycles;
      p.sm_evaluations += count;
      uint64_t busiest = 0;
      for (const SmEvaluation& e : sms_) {
        p.sm_work += e.ticks;
        p.gate_wait += e.gate_wait;
        busiest = std::max(busiest, e.ticks);
      }
      p.busiest_sm += busiest;
    }
  }

 private:
  static void evaluate_one(void* self, uint32_t task) {
    SmStageExecutor& x = *static_cast<SmStageExecutor*>(self);
    SmEvaluation& e = x.sms_[task];
    core::IssueOrderTicket ticket{x.gate_, task};
    ticket.profile = x.profile_;
    if (x.gate_) core::current_issue_order_ticket = &ticket;
    const uint64_t t0 = x.profile_ ? core::host_time_stamp() : 0;
    try {
      // (It asks for its own wake-up only: the one thing a module may touch
      // in the domain from another thread.)
      e.sm->evaluate(x.now_);
    } catch (...) {
      // The SMs after it still finish the cycle (at any thread count alike),
      // and wait at the gate for this one's turn to end.
      e.failure = std::current_exception();
    }
    core::publish_issue_order();
    core::current_issue_order_ticket = nullptr;
    if (x.profile_) {
      e.ticks = core::host_time_stamp() - t0;
      e.gate_wait = ticket.waited;
    }
  }

  GpuTop& top_;
  uint64_t now_ = 0;
  core::IssueOrderGate* gate_ = nullptr;  // several threads: the order of shared functional state
  bool profile_ = false;
  std::vector<SmEvaluation> sms_;
};

memory::SocMemoryPort* GpuTop::soc_memory_port() { return memory_->soc_memory_port(); }

void GpuTop::end_of_elaboration() {
  // Every module counts cycles of period_: a clock of another period (a
  // SoC's, say) would make their cycles disagree with SystemC time.
  if (const auto* clock = dynamic_cast<const sc_core::sc_clock*>(clk.get_interface()))
    if (clock->period() != period_)
      SC_REPORT_ERROR(name(), ("the clock bound to clk has period " + clock->period().to_string() +
                               ", but gpu.core_clock_mhz = " + std::to_string(config_.core_clock_mhz) +
                               " gives " + period_.to_string())
                                  .c_str());
}

namespace {

// The modules take the configuration as given; a program that builds the
// GPU from its own GpuConfig gets the errors naming the keys here, before
// anything (the clock period first) is derived from it.
const core::GpuConfig& validated(const core::GpuConfig& config) {
  validate_config(config);
  return config;
}

sc_core::sc_time core_period(const core::GpuConfig& config) {
  return sc_core::sc_time(1e6 / config.core_clock_mhz, sc_core::SC_PS);
}

}  // namespace

GpuTop::GpuTop(sc_core::sc_module_name name, const core::GpuConfig& config)
    : engine::ClockedModule(name, kTopStage, core_period(validated(config))),
      config_(config),
      period_(core_period(config)),
      domain_("clock_domain", period_) {
  std::vector<sm::StreamingMultiprocessor*> raw;
  for (uint32_t i = 0; i < config_.num_sms; ++i) {
    sms_.push_back(
        std::make_unique<sm::StreamingMultiprocessor>(("sm" + std::to_string(i)).c_str(), i, config_, kSmStage));
    raw.push_back(sms_.back().get());
  }
  memory_ = std::make_unique<platform::MemorySystem>(config_, period_, /*texture_caches=*/true);
  for (uint32_t i = 0; i < config_.num_sms; ++i) memory_->bind_l1(i, sms_[i]->l1d(), sms_[i]->l1i());
  for (uint32_t i = 0; i < config_.num_sms; ++i) memory_->bind_tex(i, sms_[i]->tex_cache());
  // One clock domain runs them all: the memory modules, the dispatcher, the
  // SMs, then this module. Every answer reaches an SM inside the domain's
  // process, before the SMs' stage of the cycle.
  memory_->take_cycle_from(domain_);
  for (auto& sm : sms_) sm->clk.bind(clk);
  memory_->bind_clock(clk);
  domain_.clk.bind(clk);
  run_after_earlier_stages();
  dispatcher_ = std::make_unique<CtaDispatcher>("dispatcher", raw, kDispatcherStage, period_);
  dispatcher_->clk.bind(clk);
  for (auto& sm : sms_)
    for (auto& sched : sm->schedulers()) {
      sched->ctas_waiting.bind(dispatcher_->ctas_waiting);
      sched->last_cta_dispatched.bind(dispatcher_->last_cta_dispatched);
    }
  // A measurement of where host time goes (docs/PERFORMANCE.md, "Parallel
  // SMs"): printed to stderr when the GPU is destroyed.
  if (const char* p = std::getenv("TLMGPU_PROFILE_PHASES"); p && *p && std::string(p) != "0") {
    profile_ = std::make_unique<PhaseProfile>();
    domain_.enable_stage_profile();
  }
  sm_stage_ = std::make_unique<SmStageExecutor>(*this);
  domain_.set_stage_executor(kSmStage, sm_stage_.get());
  if (config_.host_threads > 1 && sms_.size() > 1)
    pool_ = std::make_unique<HostThreadPool>(std::min<uint32_t>(config_.host_threads, uint32_t(sms_.size())));
}

GpuTop::~GpuTop() {
  pool_.reset();
  if (profile_) print_phase_profile();
  if (vcd_) sc_core::sc_close_vcd_trace_file(vcd_);
}

uint64_t GpuTop::now_cycle() const { return uint64_t(sc_core::sc_time_stamp() / period_); }

void GpuTop::enable_vcd(const std::string& path) {
  std::string base = path;
  if (base.size() > 4 && base.substr(base.size() - 4) == ".vcd") base.resize(base.size() - 4);
  vcd_ = sc_core::sc_create_vcd_trace_file(base.c_str());
  sc_core::sc_trace(vcd_, dispatcher_->ctas_waiting, dispatcher_->ctas_waiting.name());
  sc_core::sc_trace(vcd_, dispatcher_->last_cta_dispatched, dispatcher_->last_cta_dispatched.name());
  for (auto& sm : sms_) sm->trace(vcd_);
  for (uint32_t c = 0; c < memory_->dram_channels(); ++c) memory_->dram_channel(c).trace(vcd_);
}

bool GpuTop::memory_idle() const {
  return domain_.earliest_wake_below_stage(memory::kAfterMemoryStages) == kNever && memory_->below_l2_idle();
}

void GpuTop::evaluate(uint64_t now) {
  if (!running_) {
    // Between launches the memory system finishes what is in flight; this
    // runs after each cycle in which a memory module ran.
    if (draining_ && memory_idle()) {
      // The next launch's first cycle is the next edge, as after a launch.
      last_tick_cycle_ = now;
      draining_ = false;
      done();
    }
    return;
  }
  const uint64_t t0 = profile_ ? core::host_time_stamp() : 0;
  const bool sms_ran = sms_ran_at_ == now;
  if (dispatcher_->failed() || sm_failure_) {
    // The dispatcher's fault first: it placed its CTAs before the SMs ran.
    std::exception_ptr failure = dispatcher_->take_failure();
    if (!failure) failure = sm_failure_;
    sm_failure_ = nullptr;
    end_launch(now, failure);
    return;
  }
  // The watchdog looks every kWatchdogInterval cycles the SMs ran in.
  if (sms_ran && ++watchdog_ticks_ % kWatchdogInterval == 0) {
    try {
      watchdog(now);
    } catch (...) {
      end_launch(now, std::current_exception());
      return;
    }
  }
  if (dispatcher_->all_done()) {
    for (auto& sm : sms_) sm->end_launch(now);
    end_launch(now, nullptr);
    return;
  }
  // Nothing will move again: no SM (a busy one asks for the next cycle) or
  // the dispatcher asked for a cycle and no SM waits for memory. (Checked
  // after cycles the SMs ran in: only they change that.)
  if (sms_ran && domain_.earliest_wake_of_stage(kSmStage) == kNever &&
      domain_.earliest_wake_of_stage(kDispatcherStage) == kNever) {
    bool memory_pending = false;
    for (const auto& sm : sms_) memory_pending |= sm->waiting_on_memory();
    if (!memory_pending)
      end_launch(now, std::make_exception_ptr(exec::DeviceFault(
                          exec::FaultKind::Deadlock,
                          "deadlock in kernel " + kernel_name_ + " at cycle " + std::to_string(now - start_cycle_) +
                              ": no warp can issue and nothing is in flight (a barrier that can never complete?)" +
                              describe_all_warps())));
  }
  if (profile_) profile_->rest += core::host_time_stamp() - t0;
}

void GpuTop::end_launch(uint64_t now, std::exception_ptr failure) {
  failure_ = std::move(failure);
  running_ = false;
  end_cycle_ = now;
  dispatcher_->end_launch();
  done();
}

void GpuTop::print_phase_profile() const {
  PhaseProfile p = *profile_;
  // The memory modules' and the dispatcher's stages as the clock domain
  // measured them; the SMs' stage is their evaluation (the executor's
  // measure) and their commit.
  const std::vector<uint64_t>& stage_ticks = domain_.stage_ticks();
  for (size_t s = 0; s < stage_ticks.size() && s < memory::kAfterMemoryStages; ++s) p.memory += stage_ticks[s];
  if (stage_ticks.size() > kSmStage) {
    p.dispatch = stage_ticks[kDispatcherStage];
    p.commit = stage_ticks[kSmStage] > p.evaluate ? stage_ticks[kSmStage] - p.evaluate : 0;
  }
  const double total = double(p.memory + p.dispatch + p.evaluate + p.commit + p.rest);
  if (total == 0) return;
  auto share = [&](uint64_t v) { return 100.0 * double(v) / total; };
  std::fprintf(stderr,
               "%s: host time-stamp ticks per phase over %llu evaluated cycles, %llu SM evaluations, %u host "
               "thread(s):\n"
               "  memory modules %.1f %%, dispatcher %.1f %%, SM evaluation %.1f %%, commit %.1f %%, watchdog "
               "and rest %.1f %%\n"
               "  SM work %.1f %% of the total (sum over SMs; waiting at the issue-order gate %.1f %%), busiest "
               "SM per cycle %.1f %%; %.0f ticks per evaluated cycle, %.0f per SM evaluation\n",
               name(), static_cast<unsigned long long>(p.cycles), static_cast<unsigned long long>(p.sm_evaluations),
               pool_ ? unsigned(config_.host_threads) : 1u, share(p.memory), share(p.dispatch), share(p.evaluate),
               share(p.commit), share(p.rest), share(p.sm_work), share(p.gate_wait), share(p.busiest_sm),
               total / double(std::max<uint64_t>(p.cycles, 1)),
               double(p.sm_work) / double(std::max<uint64_t>(p.sm_evaluations, 1)));
}

std::string GpuTop::describe_all_warps() const {
  std::string states;
  for (const auto& sm : sms_) states += sm->describe_warps();
  return states;
}

void GpuTop::watchdog(uint64_t now) {
  uint64_t progress = 0, insts = 0;
  for (auto& sm : sms_) {
    progress += sm->progress_events();
    insts += sm->warp_insts();
  }
  // Nothing issued for a long time: the pipeline itself is stuck.
  if (insts != watchdog_last_insts_) {
    watchdog_last_insts_ = insts;
    watchdog_issue_cycle_ = now;
  } else if (now - watchdog_issue_cycle_ > kStuckCycles) {
    throw exec::DeviceFault(exec::FaultKind::NoForwardProgress,
                            "watchdog: no forward progress in kernel " + kernel_name_ + ": no instruction issued for " +
                                std::to_string(now - watchdog_issue_cycle_) + " cycles (cycle " +
                                std::to_string(now - start_cycle_) + "). Warps:" + describe_all_warps());
  }
  // A warp held ready for starvation_limit_ cycles without being chosen: the
  // policy starves it. Instructions issue and memory may change meanwhile (greedy
  // SWaS keeps spin-lock waiters taking and dropping a lock while the
  // starved warp holds the other one), so the checks below cannot see it.
  for (size_t i = 0; i < sms_.size() && starvation_limit_ != 0; ++i) {
    const auto [slot, wait] = sms_[i]->longest_ready_wait(now);
    if (slot < 0 || wait <= starvation_limit_) continue;
    throw exec::DeviceFault(exec::FaultKind::NoForwardProgress,
                            "watchdog: warp starved in kernel " + kernel_name_ + ": " +
                                sms_[i]->describe_warp(uint32_t(slot)) + " has been ready to issue for " +
                                std::to_string(wait) + " cycles without being chosen (cycle " +
                                std::to_string(now - start_cycle_) +
                                "): the warp scheduling policy starves it (a livelock when the warps it "
                                "picks wait for this one). Warps:" +
                                describe_all_warps());
  }
  if (progress != watchdog_progress_) {
    watchdog_progress_ = progress;
    watchdog_insts_ = insts;
    return;
  }
  if (insts - watchdog_insts_ <= watchdog_limit_) return;
  throw exec::DeviceFault(exec::FaultKind::NoForwardProgress,
                          "watchdog: no forward progress in kernel " + kernel_name_ + " for " +
                              std::to_string(insts - watchdog_insts_) + " warp instructions (cycle " +
                              std::to_string(now - start_cycle_) +
                              "; no store or atomic changed memory, no thread exited, no barrier completed). Warps:" +
                              describe_all_warps());
}

void GpuTop::done() {
  finished_.notify(sc_core::SC_ZERO_TIME);
  if (pause_when_done_) sc_core::sc_pause();
}

TimingLaunchStats GpuTop::run(const exec::KernelContext& ctx, const std::vector<sm::InstructionTiming>& timing,
                              uint32_t regs_per_thread, RegisterSource regs_source, const WatchdogLimits& limits) {
  start(ctx, timing, regs_per_thread, regs_source, limits);
  sc_core::sc_start();
  return finish();
}

void GpuTop::start(const exec::KernelContext& ctx, const std::vector<sm::InstructionTiming>& timing,
                   uint32_t regs_per_thread, RegisterSource regs_source, const WatchdogLimits& limits) {
  // %clock / %clock64 read the cycle the SMs are evaluating (set before
  // they run in each tick), as the hardware's per-SM cycle counter.
  clocked_ctx_ = ctx;
  clocked_ctx_.clock = &last_tick_cycle_;
  ptx_source_ = std::make_unique<sm::PtxKernelSource>(clocked_ctx_, timing);
  start_source(ctx.kernel->name, ctx.grid, uint32_t(ctx.block.count()), ctx.shared_bytes, *ptx_source_,
               regs_per_thread, regs_source, limits, ctx.preferred_shared_carveout);
  // A memory that stages copies keeps one instruction's staging for all SMs.
  parallel_launch_ = !(ctx.global && ctx.global->may_stage());
  // Write requests carry the bytes of global memory (never staged copies,
  // which live for one instruction).
  memory_->take_write_data_from(parallel_launch_ ? ctx.global : nullptr);
}

TimingLaunchStats GpuTop::run(const std::string& kernel_name, exec::Dim3 grid, uint32_t threads_per_cta,
                              uint32_t shared_bytes, const sm::KernelInstructionSource& source,
                              uint32_t regs_per_thread, RegisterSource regs_source, const WatchdogLimits& limits) {
  start_source(kernel_name, grid, threads_per_cta, shared_bytes, source, regs_per_thread, regs_source, limits);
  sc_core::sc_start();
  return finish();
}

void GpuTop::start_source(const std::string& kernel_name, exec::Dim3 grid, uint32_t threads_per_cta,
                          uint32_t shared_bytes, const sm::KernelInstructionSource& source,
                          uint32_t regs_per_thread, RegisterSource regs_source, const WatchdogLimits& limits,
                          int preferred_carveout) {
  // Throws LaunchError when not even one CTA fits.
  occupancy_ = compute_occupancy(launch_sm(config_, shared_bytes, preferred_carveout), kernel_name, threads_per_cta,
                                 shared_bytes, regs_per_thread, regs_source);
  parallel_launch_ = true;
  memory_->take_write_data_from(nullptr);  // a trace has no functional memory
  sm::SmLaunch launch;
  launch.source = &source;
  launch.timing = &source.timing();
  launch.threads_per_cta = threads_per_cta;
  launch.warps_per_cta = occupancy_.warps_per_cta;
  launch.regs_per_cta = occupancy_.regs_per_cta;
  launch.shared_per_cta = shared_bytes;
  // A unified L1D / shared array splits for the kernel's preferred carve-out,
  // else for this launch's resident CTAs (those of a grid too small to fill
  // every SM at its occupancy: fewer).
  if (config_.sm.unified_l1_bytes != 0) {
    const uint64_t ctas = grid.count(), sms = sms_.size();
    const uint32_t resident = uint32_t(std::min<uint64_t>(occupancy_.ctas_per_sm, (ctas + sms - 1) / sms));
    const L1Carveout split = choose_carveout(config_, shared_bytes, resident, preferred_carveout);
    carveout_kb_ = int32_t(split.shared_kb);
    carveout_l1d_bytes_ = split.l1_bytes;
    for (auto& sm : sms_) sm->l1d().set_ways(split.l1_ways);
  }
  // The L1s are not coherent: like GPUs between kernels, start them empty.
  for (auto& sm : sms_) {
    sm->l1d().invalidate_all();
    sm->l1i().invalidate_all();
    sm->tex_cache().invalidate_all();
  }
  start_cycle_ = sc_core::sc_get_status() == sc_core::SC_ELABORATION ? 0 : now_cycle() + 1;
  if (new_device_) {
    for (auto& sm : sms_) sm->begin_device(start_cycle_);
    new_device_ = false;
  }
  for (auto& sm : sms_) sm->begin_launch(launch, dispatcher_.get());
  // Every SM runs in the launch's first cycle (it may hold answers that
  // arrived after the last launch ended).
  for (auto& sm : sms_) sm->wake_at(start_cycle_);
  sm_failure_ = nullptr;
  sms_ran_at_ = kNever;

  insts_before_ = 0;
  thread_insts_before_ = 0;
  for (auto& sm : sms_) {
    insts_before_ += sm->warp_insts();
    thread_insts_before_ += sm->thread_insts();
  }
  kernel_name_ = kernel_name;
  watchdog_limit_ = limits.instructions;
  starvation_limit_ = limits.starvation_cycles;
  watchdog_progress_ = ~0ull;
  watchdog_last_insts_ = ~0ull;
  dispatcher_->begin_launch(grid, start_cycle_);
  if (observer_) observer_->launch_started(kernel_name, grid, threads_per_cta, start_cycle_);
  running_ = true;
  failure_ = nullptr;
}

TimingLaunchStats GpuTop::finish() {
  TimingLaunchStats s;
  s.sim_cycles = end_cycle_ >= start_cycle_ ? end_cycle_ - start_cycle_ + 1 : 0;
  // A launch that faulted is recorded too, with the cycles up to the fault
  // (its unfinished CTAs end at 0).
  TimingLaunchRecord rec;
  rec.kernel = kernel_name_;
  rec.start_cycle = start_cycle_;
  rec.cycles = s.sim_cycles;
  rec.faulted = failure_ != nullptr;
  rec.last_cta_execution_time = rec.faulted ? 0 : dispatcher_->last_cta_execution_time();
  rec.occupancy = occupancy_;
  rec.shared_carveout_kb = carveout_kb_;
  rec.l1d_bytes = carveout_l1d_bytes_;
  for (const CtaDispatcher::CtaRecord& c : dispatcher_->cta_records())
    rec.ctas.push_back({c.sm, c.start >= start_cycle_ ? c.start - start_cycle_ : 0,
                        c.end >= start_cycle_ ? c.end - start_cycle_ : 0});
  launches_.push_back(std::move(rec));
  if (observer_) observer_->launch_finished(launches_.back());
  if (failure_) {
    try {
      std::rethrow_exception(failure_);
    } catch (exec::DeviceFault& fault) {
      uint64_t warp_insts = 0, thread_insts = 0;
      for (auto& sm : sms_) {
        warp_insts += sm->warp_insts();
        thread_insts += sm->thread_insts();
      }
      fault.set_executed(warp_insts - insts_before_, thread_insts - thread_insts_before_);
      fault.set_executed_cycles(s.sim_cycles);
      throw;
    }
  }
  for (auto& sm : sms_) {
    s.warp_insts += sm->warp_insts();
    s.thread_insts += sm->thread_insts();
  }
  s.warp_insts -= insts_before_;
  s.thread_insts -= thread_insts_before_;
  return s;
}

void GpuTop::begin_device() {
  if (start_drain()) sc_core::sc_start();
  reset_for_device();
}

bool GpuTop::start_drain() {
  if (sc_core::sc_get_status() == sc_core::SC_ELABORATION) return false;
  if (memory_idle()) {
    // The next launch's first cycle is the next edge, as after a launch.
    last_tick_cycle_ = now_cycle();
    return false;
  }
  // evaluate() ends the drain after the cycle in which the last memory module ran.
  draining_ = true;
  return true;
}

void GpuTop::reset_for_device() {
  for (uint32_t s = 0; s < memory_->l2_slices(); ++s) memory_->l2_slice(s).invalidate_all();
  for (uint32_t c = 0; c < memory_->dram_channels(); ++c) memory_->dram_channel(c).begin_device();
  memory_->interconnect().reset_arbitration();
  new_device_ = true;
}

void GpuTop::abort_launch() {
  if (!running_) return;
  const uint64_t now = now_cycle();
  const uint64_t ran = now >= start_cycle_ ? now - start_cycle_ : 0;
  end_launch(now, std::make_exception_ptr(
                      LaunchAborted("launch of kernel " + kernel_name_ + " aborted at cycle " + std::to_string(ran))));
}

void GpuTop::fill_l2_from_host_copy(uint64_t address, uint64_t bytes) {
  memory_->fill_l2_from_host_copy(address, bytes);
}

core::StatMap GpuTop::collect_stats(core::StatDescriptions* descriptions) const {
  core::StatMap out;
  walk(this, out, descriptions);
  return out;
}

}  // namespace tlmgpu::platform
