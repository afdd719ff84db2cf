// The SM's issue stage: each cycle every warp scheduler whose choice may
// have changed builds its view (scheduler_view_cache.h) and picks a warp;
// the warp executes functionally and its instruction goes to the
// scheduler's operand collector (or straight to writeback: control,
// barriers, trace instructions). Up to sm.issue_width per scheduler and
// cycle. Its hooks: SWaS fetches for the warp it issued, the oracles judge
// every pick (oracle_judge.h), warp sharing lets an idle scheduler issue
// another's stalled warp (warp_sharing.h).
//
// A scheduler is evaluated only when something its choice depends on
// changed (a warp's writeback, fetch, flush, barrier, finish, a free
// collector, an instruction finishing decode, the dispatcher's signals, a
// time-driven reorder of its policy); otherwise it keeps its last stall
// class, and those cycles are accounted to it at its next evaluation or the
// launch's end.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <queue>
#include <string>
#include <vector>

#include "core/gpu_config.h"
#include "memory/timed_queue.h"
#include "model/sm/cta_slots.h"
#include "model/sm/execution_pipes.h"
#include "model/sm/fetch_stage.h"
#include "model/sm/operand_collectors.h"
#include "model/sm/oracle_judge.h"
#include "model/sm/scheduler_view_cache.h"
#include "model/sm/warp_sharing.h"
#include "model/sm/warp_slot.h"
#include "model/sm/writeback_stage.h"
#include "schedulers/warp_scheduler.h"

namespace tlmgpu::sm {

/// Dispatcher signals the policies see.
struct KernelPhase {
  bool ctas_waiting = false;
  bool last_cta_dispatched = false;
  bool operator!=(const KernelPhase& o) const {
    return ctas_waiting != o.ctas_waiting || last_cta_dispatched != o.last_cta_dispatched;
  }
};

class IssueStage {
 public:
  static constexpr uint64_t kNever = ~uint64_t(0);

  /// The issue stage of SM `sm` (named `sm_name` in errors) over its warp
  /// slots, resident CTAs (for the policies' CTA views) and the stages it
  /// issues into. The schedulers come with create_schedulers.
  IssueStage(uint32_t sm, const std::string& sm_name, const core::GpuConfig& config, std::vector<WarpSlot>& warps,
             const CtaSlots& ctas, FetchStage& fetch, OperandCollectors& collectors, ExecutionPipes& pipes,
             WritebackStage& writeback);
  ~IssueStage();

  /// Creates the warp schedulers (sc_modules, children of the module being
  /// built) and the hooks their policy asks for; throws for more than 64
  /// warp slots.
  void create_schedulers();
  /// A new GPU context whose first cycle is `first_cycle`: fresh policies,
  /// which see cycles counted from it.
  void begin_device(uint64_t first_cycle);
  /// A new launch (the CTA slots' launch): no live warp, every view stale.
  void begin_launch();

  /// Issues at cycle `now`. Returns whether a scheduler issued or will look
  /// again next cycle.
  bool issue(uint64_t now);

  // --- what other stages tell it (warps' and collectors' changes) ---
  /// Warp `slot` changed: its view entry and its scheduler are evaluated again.
  void touch(uint32_t slot) {
    sched_dirty_[nsched_div_.mod(slot)] = 1;
    views_.mark(slot);
  }
  void touch_all() {
    std::fill(sched_dirty_.begin(), sched_dirty_.end(), 1);
    views_.mark_all();
  }
  /// Warp `slot`'s newly buffered instructions finish decode at `cycle`:
  /// its scheduler looks again then.
  void decoded_at(uint32_t slot, uint64_t cycle) { decoded_at_[nsched_div_.mod(slot)].push(cycle); }
  /// Warp `slot`'s instruction at `pc` (on `unit`) wrote back at `now`.
  void written_back(uint32_t slot, uint32_t pc, ptx::UnitClass unit, uint64_t now) {
    // A writeback changes the warp's view only through its scoreboard, so
    // only a warp that waits on it needs a new view, and its scheduler
    // looks again only then or when its policy follows completions. (A
    // warp whose view is stale has its scheduler marked already.)
    const uint32_t s = nsched_div_.mod(slot);
    if (views_.waits_on_scoreboard(slot)) {
      views_.mark(slot);
      sched_dirty_[s] = 1;
    }
    sched_dirty_[s] |= completion_dirty_[s];
    schedulers::CompleteEvent ev;
    ev.cycle = now - epoch_;
    ev.slot = slot;
    ev.pc = pc;
    ev.unit = unit;
    schedulers_[s]->notify_complete(ev);
  }
  /// Scheduler `s`'s operand collector dispatched and is free again.
  void collector_freed(uint32_t s) {
    // It matters to a warp waiting for one (under warp sharing, also to
    // other schedulers' warps).
    if (warp_sharing_ || (live_slots_ & scheduler_slots_[s] & views_.unit_waiters())) sched_dirty_[s] = 1;
  }
  /// The dispatcher's signals may have changed: the schedulers read their
  /// ports at the next issue.
  void dispatcher_signals_changed() { signals_changed_ = true; }
  /// Warp `slot` (`w`) was placed at `cycle`; `last_cycle` is the SM's last evaluated cycle.
  void warp_started(uint32_t slot, WarpSlot& w, uint64_t cycle, uint64_t last_cycle) {
    live_slots_ |= 1ull << slot;
    sync_executor_state(w, last_cycle);
    schedulers_[nsched_div_.mod(slot)]->warp_started(slot, cycle - epoch_);
  }
  /// Warp `slot` finished at `now` with nothing in flight.
  void warp_finished(uint32_t slot, uint64_t now) {
    live_slots_ &= ~(1ull << slot);
    touch(slot);
    schedulers_[nsched_div_.mod(slot)]->warp_finished(slot, now - epoch_);
  }

  // --- stall-class accounting of the cycles no scheduler was evaluated ---
  /// The SM slept `n` cycles: every scheduler kept its class.
  void skip_cycles(uint64_t n) {
    for (size_t s = 0; s < schedulers_.size(); ++s) {
      if (eager_accounting_) schedulers_[s]->account_cycles(last_class_[s], n);
      else unaccounted_[s] += n;
    }
  }
  /// The launch ended: every scheduler's unaccounted cycles go to its statistics.
  void end_launch() {
    for (uint32_t s = 0; s < schedulers_.size(); ++s) account_pending(s);
  }
  /// Each cycle's class goes to the statistics at once (a VCD shows it per cycle).
  void set_eager_accounting() { eager_accounting_ = true; }

  // --- what the SM asks ---
  /// Earliest cycle a policy's order may change by itself (kNever: none).
  uint64_t next_policy_wake() const {
    uint64_t next = kNever;
    for (const uint64_t wake : policy_wake_) next = std::min(next, wake);
    return next;
  }
  /// Whether a buffered instruction is still being decoded (its decode cycle
  /// is after the last issue).
  bool decoding() const {
    bool any = false;
    for (const auto& d : decoded_at_) any |= !d.empty();
    return any;
  }
  /// SWaS (seed 003): the issue stage fetches, for the warps it issued.
  bool fetches_with_issue() const { return swas_; }
  /// SWaS or oracles: every scheduler is evaluated every cycle a warp is resident.
  bool evaluates_every_cycle() const { return swas_ || oracles_; }
  uint64_t epoch() const { return epoch_; }
  uint32_t scheduler_of(uint32_t slot) const { return nsched_div_.mod(slot); }
  uint64_t live_slots() const { return live_slots_; }
  const std::vector<std::unique_ptr<schedulers::WarpScheduler>>& schedulers() const { return schedulers_; }
  const SchedulerViewCache& views() const { return views_; }
  uint64_t warp_insts() const { return warp_insts_; }
  uint64_t thread_insts() const { return thread_insts_; }
  /// SWaS NOPs issued (not in warp_insts), in all and by warp slot.
  uint64_t nops_issued() const { return nops_issued_; }
  uint64_t nops_issued(uint32_t slot) const { return slot_nops_[slot]; }
  /// Fills `view.ctas` for a policy that orders by CTA (PRO, KAWS): each
  /// resident CTA's warps at a barrier, finished warps, progress and
  /// instructions issued, over its own warps wherever they sit.
  void build_cta_view(schedulers::SchedulerView& view) const;

 private:
  /// CTA slot `cs` as build_cta_view shows it.
  schedulers::CtaView cta_view_of(uint32_t cs) const;
  /// build_cta_view for scheduler `s` in the issue loop. The SM's CTA views
  /// are kept and only the CTAs whose warps issued since are summed again:
  /// what a view holds changes only when a warp issues (its counters, a
  /// barrier arrival or release, an exit) or a CTA starts or a warp retires
  /// (CtaSlots::generation). Summing every CTA for every sub-core each cycle
  /// was a third of a KAWS run's time on qv100.
  void refresh_cta_view(uint32_t s, schedulers::SchedulerView& view, uint64_t now);
  void invalidate_cta_views() { cta_views_generation_ = kNever; }
  static constexpr uint32_t kMaxSchedulers = kMaxSchedulersPerSm;
  using CycleHeap = std::priority_queue<uint64_t, std::vector<uint64_t>, std::greater<uint64_t>>;

  /// `scheduler`'s collector and pipes take warp `slot`'s head instruction;
  /// the warp's own scheduler (slot mod N) is told, which differs under warp
  /// sharing. False when the buffered instruction is not where the warp goes.
  bool issue_warp(uint32_t slot, uint32_t scheduler, uint64_t now);
  /// sm.issue_width > 1: scheduler `s` picks again from `view`.
  void issue_more(uint32_t s, schedulers::SchedulerView& view, uint64_t now);
  /// Reads what the view needs of warp `w`'s executor into its slot after an execute.
  void sync_executor_state(WarpSlot& w, uint64_t now);
  /// Warp `w`'s buffered instructions are not where it goes: refetch.
  void flush(WarpSlot& w, uint64_t now);
  void account_pending(uint32_t s) {
    if (unaccounted_[s] == 0) return;
    schedulers_[s]->account_cycles(last_class_[s], unaccounted_[s]);
    unaccounted_[s] = 0;
  }

  // The state every evaluated cycle reads comes first and together, and the
  // per-scheduler state sits in fixed arrays inside the object (at most
  // kMaxSchedulers, only the first num_schedulers used): the clock domain runs
  // the SMs one after another, so each cycle starts with this SM's state out
  // of the host's L1 cache, and fewer lines to fetch and no pointers to
  // chase make that cheaper.
  bool did_something_ = false;      // this cycle's issue() result
  bool swas_ = false;               // seed 003: one scheduler fetches and issues
  bool eager_accounting_ = false;
  bool signals_changed_ = true;     // the dispatcher's signals may differ from seen_phase_
  uint64_t epoch_ = 0;              // first cycle of the current device: policies count from it
  uint64_t live_slots_ = 0;         // warp slots holding a live warp (bit per slot)
  // The launch's per-PC timing, and the ids below which its registers are
  // banked (predicates are not), read once per launch.
  const std::vector<InstructionTiming>* timing_ = nullptr;
  uint32_t banked_registers_ = 0;
  core::FixedDivisor nsched_div_;  // slot -> scheduler (slot mod N)
  std::array<uint8_t, kMaxSchedulers> sched_dirty_{};  // its choice may have changed
  // Its policy's order may change with a completion (else only a completion
  // that changes what a warp waits for makes the scheduler look again).
  std::array<uint8_t, kMaxSchedulers> completion_dirty_{};
  std::array<uint8_t, kMaxSchedulers> wants_cta_view_{};  // its policy reads view.ctas (fixed per policy)
  std::array<int, kMaxSchedulers> last_class_{};           // for skipped cycles
  // When its policy's order may change by itself (time-driven rules).
  std::array<uint64_t, kMaxSchedulers> policy_wake_{};
  // Cycles a scheduler kept last_class_ without an evaluation, counted into
  // its statistics at its next evaluation or the launch's end (each cycle at
  // once only when a VCD shows the class per cycle).
  std::array<uint64_t, kMaxSchedulers> unaccounted_{};
  std::array<uint64_t, kMaxSchedulers> scheduler_slots_{};  // its slots (slot mod N)
  std::array<CycleHeap, kMaxSchedulers> decoded_at_;        // decode-done cycles of buffered instructions
  std::array<KernelPhase, kMaxSchedulers> seen_phase_{};    // its ports' values when last read
  // refresh_cta_view's per-CTA-slot views, valid for CtaSlots generation
  // cta_views_generation_ except the CTA slots in stale_ctas_ (bit per slot),
  // whose warps issued since; cta_views_version_ counts their changes, and
  // each scheduler's view.ctas is a copy of version cta_views_copied_[s].
  std::vector<schedulers::CtaView> cta_views_;
  uint64_t cta_views_generation_ = kNever, stale_ctas_ = 0, cta_views_version_ = 0;
  std::array<uint64_t, kMaxSchedulers> cta_views_copied_{};

  const core::GpuConfig& config_;
  const core::SmConfig& smc_;
  std::string sm_name_;
  std::vector<WarpSlot>& warps_;
  const CtaSlots& ctas_;
  FetchStage& fetch_;
  OperandCollectors& collectors_;
  ExecutionPipes& pipes_;
  WritebackStage& writeback_;
  std::vector<std::unique_ptr<schedulers::WarpScheduler>> schedulers_;
  // The issue stage's persistent view of each scheduler.
  SchedulerViewCache views_;
  // Hooks present only when asked for: seed 003's oracles (osched1 /
  // osched2 judge every pick) and seed 002's warp sharing (the policy asks
  // for it). SWaS's hook is fetch_.fetch_for_issue.
  std::unique_ptr<OracleJudge> oracles_;
  std::unique_ptr<WarpSharing> warp_sharing_;

  uint64_t warp_insts_ = 0, thread_insts_ = 0, nops_issued_ = 0;
  std::array<uint64_t, 64> slot_nops_{};                       // SWaS NOPs by warp slot
  std::array<uint64_t, ptx::kWarpSize> setp_a_{}, setp_b_{};  // IssueEvent's setp operands
};

}  // namespace tlmgpu::sm
