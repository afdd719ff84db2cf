// The cycle-level GPU: SMs, the CTA dispatcher, interconnect, L2 slices and
// DRAM channels under one sc_module, on one shared clock.
#pragma once

#include <cstdint>
#include <exception>
#include <memory>
#include <string>
#include <vector>

#include <systemc>

#include "core/issue_order_gate.h"
#include "core/stats_provider.h"
#include "engine/clock_domain.h"
#include "memory/timed_queue.h"
#include "model/sm/streaming_multiprocessor.h"
#include "platform/config_keys.h"
#include "platform/cta_dispatcher.h"
#include "platform/timing_gpu.h"

namespace tlmgpu::memory {
class SocMemoryPort;
}

namespace tlmgpu::platform {

class MemorySystem;

/// Told when each launch of a GpuTop starts and when it completes (the
/// timeline recorder); a launch that faults is started but never finished.
class LaunchObserver {
 public:
  virtual ~LaunchObserver() = default;
  /// Before the launch's first cycle, `start_cycle`.
  virtual void launch_started(const std::string& kernel, const exec::Dim3& grid, uint32_t threads_per_cta,
                              uint64_t start_cycle) = 0;
  /// After its last cycle, with what GpuTop::launches() records for it.
  virtual void launch_finished(const TimingLaunchRecord& record) = 0;
};

class HostThreadPool;

/// The core clock domain's stages after the memory modules': the CTA
/// dispatcher, the SMs (evaluated by GpuTop's stage executor, on the host
/// thread pool when host.threads > 1), then the GPU top's own evaluation.
constexpr uint32_t kDispatcherStage = memory::kAfterMemoryStages;
constexpr uint32_t kSmStage = kDispatcherStage + 1;
constexpr uint32_t kTopStage = kSmStage + 1;

/// The GPU's clocked modules and their clock domain. The domain runs, stage
/// by stage, the memory modules, the CTA dispatcher, the SMs and last this
/// module, which follows every cycle in which another ran: it ends the
/// launch, raises faults and deadlocks, and runs the watchdog.
class GpuTop : public engine::ClockedModule {
 public:
  GpuTop(sc_core::sc_module_name name, const core::GpuConfig& config);
  ~GpuTop() override;

  /// When the watchdog ends a launch (DeviceOptions' watchdog_instructions
  /// and starvation_cycles).
  struct WatchdogLimits {
    uint64_t instructions = 0;       ///< warp instructions without forward progress
    uint64_t starvation_cycles = 0;  ///< cycles a warp is held ready without being chosen (0: never)
  };

  /// Runs one launch to completion (start, sc_start until the last CTA
  /// finishes, finish): for a program that owns the simulation (the CLI).
  /// Throws LaunchError when a CTA cannot fit in an SM, exec::DeviceFault
  /// on a fault, a deadlock or no forward progress.
  TimingLaunchStats run(const exec::KernelContext& ctx, const std::vector<sm::InstructionTiming>& timing,
                        uint32_t regs_per_thread, RegisterSource regs_source, const WatchdogLimits& limits);
  /// The same for any instruction source (a trace): `grid` CTAs of
  /// `threads_per_cta` threads and `shared_bytes` of shared memory each.
  TimingLaunchStats run(const std::string& kernel_name, exec::Dim3 grid, uint32_t threads_per_cta,
                        uint32_t shared_bytes, const sm::KernelInstructionSource& source, uint32_t regs_per_thread,
                        RegisterSource regs_source, const WatchdogLimits& limits);

  /// Inside a running simulation (a SoC): start a launch at the next cycle
  /// and return; `finished_event()` is notified when it ends, and finish()
  /// then gives its statistics or rethrows its fault. `ctx` and `timing`
  /// must live until then. Throws LaunchError when a CTA cannot fit.
  void start(const exec::KernelContext& ctx, const std::vector<sm::InstructionTiming>& timing,
             uint32_t regs_per_thread, RegisterSource regs_source, const WatchdogLimits& limits);
  TimingLaunchStats finish();
  /// A started launch (or a drain begun by start_new_device) has not ended yet.
  bool busy() const { return running_ || draining_; }
  /// Notified when a started launch or a drain ends.
  const sc_core::sc_event& finished_event() const { return finished_; }
  /// Whether the end of a launch or drain pauses the simulation (sc_pause):
  /// true (the default) where this GPU owns the simulation and its run()
  /// returns from sc_start; false inside a SoC, which must not be paused.
  void set_pause_when_done(bool pause) { pause_when_done_ = pause; }

  /// Every module's statistics by hierarchical name; with `descriptions`,
  /// also what each one counts.
  core::StatMap collect_stats(core::StatDescriptions* descriptions = nullptr) const;
  const core::GpuConfig& config() const { return config_; }
  sc_core::sc_time period() const { return period_; }
  void enable_vcd(const std::string& path);
  CtaDispatcher& dispatcher() { return *dispatcher_; }
  /// soc.memory = soc: where L2 misses leave the GPU (the owner connects it); else nullptr.
  memory::SocMemoryPort* soc_memory_port();
  const std::vector<TimingLaunchRecord>& launches() const { return launches_; }
  const std::vector<std::unique_ptr<sm::StreamingMultiprocessor>>& sms() const { return sms_; }
  platform::MemorySystem& memory_system() { return *memory_; }
  /// Who is told about every launch from now on (nullptr: nobody).
  void set_launch_observer(LaunchObserver* observer) { observer_ = observer; }
  /// The next launch belongs to a new device context: what the previous one
  /// left in flight drains, the L2 slices empty, the DRAM rows close, and
  /// the arbiters and warp scheduler policies start afresh, so the new
  /// device's results are those of a freshly built GPU.
  void begin_device();
  /// begin_device in two halves for a running simulation (a SoC): when
  /// start_drain() returns true, wait for finished_event() (what was in
  /// flight has drained; false: nothing is), then call reset_for_device().
  bool start_drain();
  /// Empties the L2, closes DRAM rows, restarts arbitration and the SMs'
  /// device state at the next launch.
  void reset_for_device();
  /// A host-to-device copy passed through the L2 (platform::MemorySystem::fill_l2_from_host_copy).
  void fill_l2_from_host_copy(uint64_t address, uint64_t bytes);
  /// The last launch ended in a device fault (its traffic may still be in flight).
  bool last_launch_failed() const { return failure_ != nullptr; }
  /// Inside a running simulation: ends the running launch now (nothing when
  /// none runs), as a fault would end it: finished_event() is notified,
  /// finish() throws LaunchAborted, and what the launch left in flight
  /// drains when the next device context begins (start_drain).
  void abort_launch();

  /// After the SMs of a cycle: the launch's end, its faults, the watchdog.
  void evaluate(uint64_t now) override;
  engine::ClockDomain& clock_domain() { return domain_; }

 private:
  void end_of_elaboration() override;
  /// A launch or drain ended: tell whoever waits.
  void done();
  /// The launch state set up for a source (both run() overloads and start()).
  void start_source(const std::string& kernel_name, exec::Dim3 grid, uint32_t threads_per_cta, uint32_t shared_bytes,
                    const sm::KernelInstructionSource& source, uint32_t regs_per_thread, RegisterSource regs_source,
                    const WatchdogLimits& limits, int preferred_carveout = -1);
  /// The memory modules have nothing to do, and nothing is in flight below the L2.
  bool memory_idle() const;
  void watchdog(uint64_t now);
  /// The launch ends with `failure` (or completes when null) at `now`.
  void end_launch(uint64_t now, std::exception_ptr failure);
  /// Every SM's live warps, PC and state (describe_warps), for fault reports.
  std::string describe_all_warps() const;
  uint64_t now_cycle() const;

  core::GpuConfig config_;
  sc_core::sc_time period_;
  std::vector<std::unique_ptr<sm::StreamingMultiprocessor>> sms_;
  std::unique_ptr<platform::MemorySystem> memory_;
  std::unique_ptr<CtaDispatcher> dispatcher_;
  engine::ClockDomain domain_;  // runs the memory modules and the top on clk
  bool running_ = false;
  bool draining_ = false;    // begin_device: pause once the memory modules are idle
  bool new_device_ = true;   // the next launch starts a device (StreamingMultiprocessor::begin_device)
  class SmStageExecutor;
  std::unique_ptr<SmStageExecutor> sm_stage_;  // evaluates the due SMs of a cycle
  std::unique_ptr<HostThreadPool> pool_;  // host.threads > 1
  core::IssueOrderGate gate_;
  uint64_t sms_ran_at_ = kNever;   // the last cycle in which SMs were evaluated
  std::exception_ptr sm_failure_;  // the lowest-numbered SM's fault of that cycle
  bool parallel_launch_ = true;  // the launch's global memory allows parallel SMs (GlobalMemoryIf::may_stage)
  /// Host time per phase of the cycle (TLMGPU_PROFILE_PHASES=1), in time-stamp ticks.
  struct PhaseProfile {
    uint64_t memory = 0, dispatch = 0, evaluate = 0, commit = 0, rest = 0;
    uint64_t sm_work = 0;     ///< sum of the SMs' own evaluation times
    uint64_t gate_wait = 0;   ///< of which spent waiting at the issue-order gate
    uint64_t busiest_sm = 0;  ///< sum over cycles of the longest SM evaluation
    uint64_t cycles = 0, sm_evaluations = 0;
  };
  std::unique_ptr<PhaseProfile> profile_;
  void print_phase_profile() const;
  uint64_t last_tick_cycle_ = 0;
  std::exception_ptr failure_;
  sc_core::sc_event finished_;
  bool pause_when_done_ = true;
  exec::KernelContext clocked_ctx_;                 // start(): the context with %clock wired to the tick cycle
  std::unique_ptr<sm::KernelInstructionSource> ptx_source_;  // start(): the launch's PTX source
  Occupancy occupancy_;                             // of the running launch
  int32_t carveout_kb_ = -1;                        // its shared-memory carve-out (-1: no unified array)
  uint32_t carveout_l1d_bytes_ = 0;
  uint64_t insts_before_ = 0, thread_insts_before_ = 0;
  std::string kernel_name_;
  uint64_t watchdog_ticks_ = 0, watchdog_progress_ = 0, watchdog_insts_ = 0, watchdog_limit_ = 0;
  uint64_t watchdog_last_insts_ = 0, watchdog_issue_cycle_ = 0;
  uint64_t starvation_limit_ = 0;
  uint64_t start_cycle_ = 0, end_cycle_ = 0;
  sc_core::sc_trace_file* vcd_ = nullptr;
  std::vector<TimingLaunchRecord> launches_;
  LaunchObserver* observer_ = nullptr;
};

}  // namespace tlmgpu::platform
