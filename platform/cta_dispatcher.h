// The CTA dispatcher of the cycle-level GPU: which SM gets the launch's next
// CTA, and the launch-phase signals the warp schedulers read.
#pragma once

#include <cstdint>
#include <exception>
#include <utility>
#include <vector>

#include <systemc>

#include "core/stats_provider.h"
#include "engine/clock_domain.h"
#include "model/sm/streaming_multiprocessor.h"

namespace tlmgpu::platform {

/// Hands CTAs to SMs: fills every SM up to its occupancy, then one CTA at a
/// time as CTAs finish. Drives `ctas_waiting` (CTAs still wait: seed 000's
/// fast phase) and `last_cta_dispatched` (seed 002's switch point).
///
/// A clocked module of the core clock domain, in the stage before the SMs':
/// a CTA placed in a cycle runs in that cycle. It runs when a launch begins,
/// in the cycle after it placed CTAs or after a CTA finished, and in the
/// cycle after its signals changed, when it tells every SM to read them.
class CtaDispatcher : public engine::ClockedModule, public sm::CtaCompletionIf, public core::StatsProvider {
 public:
  // Written by whoever starts a launch (GpuTop::start: in a SoC, the
  // peripheral's queue thread) and by the GPU's evaluation: two writers, never in
  // the same delta cycle.
  sc_core::sc_signal<bool, sc_core::SC_MANY_WRITERS> ctas_waiting{"ctas_waiting"};
  sc_core::sc_signal<bool, sc_core::SC_MANY_WRITERS> last_cta_dispatched{"last_cta_dispatched"};

  CtaDispatcher(sc_core::sc_module_name name, std::vector<sm::StreamingMultiprocessor*> sms, uint32_t stage,
                const sc_core::sc_time& period);

  /// A launch of `grid` CTAs begins at `cycle`.
  void begin_launch(const exec::Dim3& grid, uint64_t cycle);
  /// The launch ends (done, faulted or aborted): no more CTAs are placed.
  void end_launch() { open_ = false; }
  /// Dispatches what fits this cycle (cycle()); in the cycle after the
  /// signals changed, first has every SM read them.
  void evaluate(uint64_t now) override;
  /// Dispatches what fits this cycle (at most one CTA per SM per cycle).
  /// Returns true when it dispatched something.
  bool cycle(uint64_t now);
  /// What starting a CTA threw (the launch's fault), once.
  std::exception_ptr take_failure() { return std::exchange(failure_, nullptr); }
  bool failed() const { return bool(failure_); }
  bool all_done() const { return next_cta_ == total_ctas_ && running_ == 0; }
  bool has_waiting() const { return next_cta_ < total_ctas_; }
  const sm::KernelPhase& phase() const { return phase_; }

  void cta_finished(uint32_t sm, uint64_t cta_id, uint64_t cycle) override;
  void report_stats(core::StatReport& out) const override;

  struct CtaRecord {
    uint32_t sm = 0;
    uint64_t start = 0, end = 0;
  };
  const std::vector<CtaRecord>& cta_records() const { return records_; }

 private:
  void update_signals();

  std::vector<sm::StreamingMultiprocessor*> sms_;
  exec::Dim3 grid_;
  uint64_t total_ctas_ = 0, next_cta_ = 0, running_ = 0;
  uint64_t launch_cycle_ = 0;
  uint64_t last_cta_start_ = 0, last_cta_end_ = 0;

 public:
  uint64_t last_cta_execution_time() const { return last_cta_end_ - last_cta_start_; }

 private:
  uint32_t rr_ = 0;
  bool open_ = false;  // a launch runs: CTAs may be placed
  uint64_t signals_visible_at_ = ~0ull;  // the cycle the SMs read the signals' last change
  std::exception_ptr failure_;
  bool retry_ = false;  // an SM may accept a CTA now (a CTA finished, or some were placed last cycle)
  sm::KernelPhase phase_;
  std::vector<CtaRecord> records_;
};

}  // namespace tlmgpu::platform
