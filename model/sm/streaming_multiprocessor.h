// One streaming multiprocessor: fetch from the L1 instruction cache, decode
// into per-warp instruction buffers, scoreboard, warp schedulers, operand
// collectors over banked registers, SP / SFU / DP / LD-ST pipelines, shared
// memory, L1 data cache, writeback. Instructions execute functionally when
// they issue (Warp::step); the pipeline models their timing. The stages are
// classes of their own beside this file (docs/ARCHITECTURE.md, "The SM's
// stages"); this module owns them and the warp slots, and runs them from
// cycle().
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <memory>
#include <queue>
#include <string>
#include <utility>
#include <vector>

#include <systemc>

#include "core/bit_ops.h"
#include "core/gpu_config.h"
#include "core/stats_provider.h"
#include "engine/clock_domain.h"
#include "memory/l1_cache.h"
#include "memory/memory_interfaces.h"
#include "memory/timed_queue.h"
#include "model/sm/cta_slots.h"
#include "model/sm/execution_pipes.h"
#include "model/sm/fetch_stage.h"
#include "model/sm/instruction_timing.h"
#include "model/sm/issue_stage.h"
#include "model/sm/load_store_unit.h"
#include "model/sm/operand_collectors.h"
#include "model/sm/warp_instruction_source.h"
#include "model/sm/warp_slot.h"
#include "model/sm/writeback_stage.h"
#include "schedulers/warp_scheduler_policy.h"

namespace tlmgpu::schedulers {
class WarpScheduler;
}

namespace tlmgpu::sm {

/// A clocked module of the core clock domain (engine/clock_domain.h): it runs
/// in the cycles it asks for (busy: the next; waiting: its next known event),
/// in those a memory answer or a CTA wakes it for, and hands what it sends
/// out over at commit. `clk` is the core clock; its caches are bound to it.
class StreamingMultiprocessor : public engine::ClockedModule,
                                public memory::CacheResponseIf,
                                public core::StatsProvider {
 public:
  /// `stage`: its stage in the clock domain (after the memory modules and
  /// the CTA dispatcher, platform/gpu_top.h).
  StreamingMultiprocessor(sc_core::sc_module_name name, uint32_t index, const core::GpuConfig& config,
                          uint32_t stage);
  ~StreamingMultiprocessor() override;

  memory::L1Cache& l1d();
  memory::L1Cache& tex_cache();
  memory::L1Cache& l1i();

  /// A new GPU context whose first launch starts at `first_cycle`: the
  /// policies start afresh and see cycles counted from it, so a device's
  /// results do not depend on what ran on the GPU model before it.
  void begin_device(uint64_t first_cycle);

  // --- CTA dispatch ---
  void begin_launch(const SmLaunch& launch, CtaCompletionIf* dispatcher);
  /// Whether another CTA of the current launch fits (threads, warps, registers, shared memory, CTA slots).
  bool can_accept_cta() const;
  void start_cta(uint64_t cta_id, exec::Dim3 ctaid, uint64_t cycle);
  bool busy() const { return ctas_.live_ctas() != 0; }

  // --- clocking ---
  /// One core cycle (cycle()), then the SM asks for its next: the following
  /// cycle when it did or may do something, else its next known event (a
  /// memory answer or a CTA wakes it sooner). The SMs of a cycle may be
  /// evaluated on several host threads (docs/ARCHITECTURE.md, "Parallel
  /// SMs"): it touches only its own state and what the issue-order gate orders.
  void evaluate(uint64_t now) final;
  /// Hands on what the cycle produced: the L1s' requests in the order they
  /// were made, then the finished CTAs. The clock domain commits the SMs in
  /// index order after all have been evaluated.
  void commit(uint64_t now) override;
  /// One core cycle. Returns true when the SM did or may do something next
  /// cycle; false when it only waits for an event (a completion at
  /// next_event_cycle(), or a memory response). What leaves the SM
  /// (requests to the interconnect, finished CTAs) waits for commit().
  bool cycle(uint64_t now);
  /// The launch ended at `last_cycle`: accounts the cycles slept since the last cycle().
  void end_launch(uint64_t last_cycle);
  /// Earliest future cycle with a known event (UINT64_MAX: none).
  uint64_t next_event_cycle() const;
  /// The dispatcher's signals changed in the last cycle: the schedulers read
  /// their ports at this cycle's issue.
  void dispatcher_signals_changed() { issue_.dispatcher_signals_changed(); }

  // CacheResponseIf
  void access_done(uint64_t id, uint64_t cycle) override;
  void release_at(uint64_t cycle) override;

  /// Line requests or fetches outstanding in the memory system.
  bool waiting_on_memory() const;
  /// Forward progress so far (value-changing stores and atomics, exits,
  /// barrier releases, finished CTAs): the watchdog compares it over time.
  uint64_t progress_events() const;
  /// Every live warp's PC and state, for watchdog and deadlock reports.
  std::string describe_warps() const;
  /// Among the live warps whose scheduler's view holds them ready to issue
  /// (or ready once a collector frees), the one ready the longest without
  /// issuing, and for how many cycles at `now`; -1 and 0 when none is ready.
  /// A wait far longer than any kernel phase means the policy starves it.
  /// Judged from the watchdog's samples (calls) of the views: the first
  /// sample that finds a warp ready starts its count.
  std::pair<int, uint64_t> longest_ready_wait(uint64_t now);
  /// One warp's PC and state (describe_warps' line for it).
  std::string describe_warp(uint32_t slot) const;

  void report_stats(core::StatReport& out) const override;
  void trace(sc_core::sc_trace_file* tf);

  uint32_t index() const { return index_; }
  const std::vector<std::unique_ptr<schedulers::WarpScheduler>>& schedulers() const { return issue_.schedulers(); }
  uint64_t warp_insts() const { return issue_.warp_insts(); }
  uint64_t thread_insts() const { return issue_.thread_insts(); }

 private:
  void end_of_elaboration() override;
  struct Response {
    uint64_t id;
    uint64_t cycle;
  };

  /// Finished CTAs of the cycle, reported to the dispatcher at commit().
  class CtaCompletionOutbox : public CtaCompletionIf {
   public:
    void cta_finished(uint32_t sm, uint64_t cta_id, uint64_t cycle) override {
      finished_.push_back({sm, cta_id, cycle});
    }
    void deliver() {
      for (const Finished& f : finished_) dispatcher_->cta_finished(f.sm, f.cta_id, f.cycle);
      finished_.clear();
    }
    void set_dispatcher(CtaCompletionIf* dispatcher) { dispatcher_ = dispatcher; }
    bool empty() const { return finished_.empty(); }

   private:
    struct Finished {
      uint32_t sm;
      uint64_t cta_id, cycle;
    };
    std::vector<Finished> finished_;
    CtaCompletionIf* dispatcher_ = nullptr;
  };

  void writeback(uint64_t now);
  void handle_responses(uint64_t now);
  void read_operands_and_dispatch(uint64_t now);
  void dispatch(OperandCollector& c, uint32_t scheduler, uint32_t cls, uint32_t index, uint64_t now);
  void send_lines(uint64_t now);
  std::string describe_warp(const CtaSlots::Slot& cta, const WarpInstructionSource& warp) const;
  void finish_warps(uint64_t now);
  void complete_at(uint64_t cycle, uint32_t slot, uint32_t pc, bool memory) {
    writeback_.complete_at(cycle, slot, pc, memory);
  }

  // The state every evaluated cycle reads comes first and together: the clock
  // domain runs the SMs one after another, so each cycle starts with this SM's
  // state out of the host's L1 cache, and fewer lines to fetch make that
  // cheaper.
  bool ticked_ = false;
  bool active_ = false;  // did something this cycle
  uint64_t last_cycle_ = 0;
  uint64_t run_cycles_ = 0;
  // Memory answers by (cycle, id): they mostly arrive in that order already,
  // which the queue exploits.
  memory::ArrivalQueue<uint64_t> responses_;

  uint32_t index_;
  const core::GpuConfig& config_;
  const core::SmConfig& smc_;
  std::unique_ptr<memory::L1Cache> l1i_cache_, l1d_cache_;
  // The pipeline reaches its caches only through their exports: l1i_ / l1d_
  // are what these ports resolved to.
  sc_core::sc_port<memory::CacheAccessIf> l1i_access_{"l1i_access"}, l1d_access_{"l1d_access"};
  memory::CacheAccessIf* l1i_ = nullptr;
  memory::CacheAccessIf* l1d_ = nullptr;
  // Texture fetches (tex, tld4) go to their own read-only cache, through its own port.
  std::unique_ptr<memory::L1Cache> tex_cache_;
  sc_core::sc_port<memory::CacheAccessIf> tex_access_{"tex_access"};
  memory::CacheAccessIf* tex_ = nullptr;

  std::vector<WarpSlot> warps_;
  // The resident CTAs, their occupancy and the launch they belong to.
  CtaSlots ctas_;
  // What the cycle sends out, held until commit().
  memory::L1RequestOutbox l1_requests_;
  CtaCompletionOutbox finished_ctas_;

  // The pipeline's stages (docs/ARCHITECTURE.md, "The SM's stages"): fetch
  // into the instruction buffers, the operand collectors over the register
  // banks, the execution pipes, the LD/ST unit, writeback, and the issue
  // stage with the warp schedulers and their hooks.
  FetchStage fetch_;
  OperandCollectors collectors_;
  ExecutionPipes pipes_;
  LoadStoreUnit lsu_;
  WritebackStage writeback_;
  IssueStage issue_;

  /// Per slot, what longest_ready_wait saw: the warp (by age) and its issue
  /// count when first seen ready, and since when (age kNever: not ready).
  struct ReadyWatch {
    uint64_t age = ~uint64_t(0);
    uint64_t issued = 0;
    uint64_t since = 0;
  };
  std::vector<ReadyWatch> ready_watch_;
};

}  // namespace tlmgpu::sm
