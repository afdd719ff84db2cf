// The interface between a warp scheduler module and its policy. A policy sees
// a read-only view of its warps and returns an order; it never touches the
// pipeline. Adding a policy is one file and one registry line.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/head_class.h"
#include "core/stats_provider.h"
#include "model/ptx/ptx_ir.h"

namespace tlmgpu::schedulers {

/// Why a warp cannot issue this cycle (seed 000 section II.B classes map
/// onto these: Empty/Barrier/Membar/Atomic/Finished -> idle, Scoreboard ->
/// scoreboard, UnitBusy -> pipeline).
enum class WarpWait : uint8_t {
  Ready,          ///< valid instruction, operands ready, unit free: can issue
  UnitBusy,       ///< valid and ready, but its unit / operand collector is busy
  Scoreboard,     ///< valid instruction whose operands are not ready
  EmptyBuffer,    ///< no decoded instruction (fetch miss, control hazard)
  Barrier,        ///< waiting at a CTA barrier
  Membar,         ///< waiting for its memory operations before a fence
  Atomic,         ///< waiting for an atomic's result
  Initializing,   ///< just assigned, not started yet
  Finished,       ///< all threads exited (slot may be reused)
  Unused,         ///< no warp in this slot
};

struct WarpView {
  uint32_t slot = 0;             ///< warp slot in the SM
  WarpWait wait = WarpWait::Unused;
  ptx::UnitClass head_unit = ptx::UnitClass::SP;
  core::HeadClass head_class = core::HeadClass::None;
  uint32_t head_pc = 0;
  uint32_t cta_slot = 0;         ///< CTA slot in the SM
  uint64_t cta_id = 0;           ///< launch order of its CTA in the kernel (linear id)
  uint64_t age = 0;              ///< dispatch order of the warp: smaller is older
  uint32_t active_threads = 0;   ///< threads that would execute the head instruction
  uint64_t insts_issued = 0;     ///< warp instructions issued so far
  uint64_t progress = 0;         ///< sum of active threads over issued instructions (seed 000)
};

/// Per CTA in the SM, for CTA-level policies (PRO, KAWS).
struct CtaView {
  uint32_t slot = 0;
  uint64_t cta_id = 0;
  uint32_t warps = 0;
  uint32_t warps_at_barrier = 0;
  uint32_t warps_finished = 0;
  uint64_t progress = 0;         ///< sum over its warps
  uint64_t insts_issued = 0;
  uint64_t start_cycle = 0;
  bool valid = false;
};

struct SchedulerView {
  uint64_t cycle = 0;
  uint32_t sm = 0;
  uint32_t scheduler = 0;        ///< index within the SM
  bool ctas_waiting = false;     ///< CTA dispatcher: CTAs still wait (seed 000 fastTBPhase)
  bool last_cta_dispatched = false;  ///< seed 002's switch point
  std::vector<WarpView> warps;   ///< this scheduler's warps (slot w with w mod N == scheduler)
  std::vector<CtaView> ctas;     ///< the SM's CTA slots
  /// Optional summary of warps[i].wait as bit masks (bit i), which the SM
  /// keeps up to date so that the scheduler need not scan every warp; valid
  /// only while `summary` is true (views built by hand leave it false).
  bool summary = false;
  uint64_t ready = 0, unit_busy = 0, scoreboard = 0;
  /// Optional: bit per warp slot when `warps` holds exactly these slots in
  /// increasing slot order, and `slot_index[slot]` each member's position
  /// (0: unknown; views built by hand leave it so).
  uint64_t slot_order_members = 0;
  const uint8_t* slot_index = nullptr;
  void summarize(uint32_t i) {
    const uint64_t bit = uint64_t(1) << i;
    ready &= ~bit;
    unit_busy &= ~bit;
    scoreboard &= ~bit;
    const WarpWait wait = warps[i].wait;
    if (wait == WarpWait::Ready) ready |= bit;
    else if (wait == WarpWait::UnitBusy) unit_busy |= bit;
    else if (wait == WarpWait::Scoreboard) scoreboard |= bit;
  }
};

/// Told to the policy after its scheduler issues an instruction.
struct IssueEvent {
  uint64_t cycle = 0;
  uint32_t slot = 0;
  uint32_t pc = 0;
  ptx::UnitClass unit = ptx::UnitClass::SP;
  ptx::Opcode op = ptx::Opcode::Nop;
  uint32_t active_mask = 0;
  bool is_setp = false;
  /// setp: per active lane, the two compared operand values (raw bits).
  const uint64_t* setp_a = nullptr;
  const uint64_t* setp_b = nullptr;
  bool is_branch = false;
  bool taken = false;
  bool backward = false;
  /// Memory instructions: every active lane's address (nullptr for other
  /// instructions, and for traces, which have no addresses).
  const uint64_t* addresses = nullptr;
  uint32_t address_mask = 0;   ///< lanes with an address
  bool writes_memory = false;  ///< a store, reduction or atomic
  ptx::AtomOp atom = ptx::AtomOp::None;
  /// atom.cas: lanes that found the compare value and wrote a different one
  /// (a lock taken); their addresses are in `addresses`.
  uint32_t cas_written = 0;
};

struct CompleteEvent {
  uint64_t cycle = 0;
  uint32_t slot = 0;
  uint32_t pc = 0;
  ptx::UnitClass unit = ptx::UnitClass::SP;
};

/// A policy's order described rather than listed (see
/// WarpSchedulerPolicy::describe_order): first `greedy` (an index into
/// view.warps, or -1), then the entries of `ranking` (nullptr: the indices
/// 0..n-1) from position `start` on, wrapping around, each once and without
/// `greedy` again. `reversed` walks the ranking from its last entry.
struct OrderSpec {
  int greedy = -1;
  const std::vector<uint32_t>* ranking = nullptr;
  uint32_t start = 0;
  bool reversed = false;
};

/// Files beside a run's --stats that policies write records into that do not
/// fit stats()'s numbers (PRO: its CTA order at every re-sort). Every
/// scheduler's policy writes into the same file for a suffix; the file is
/// created when the first policy asks for it.
class PolicyOutputFiles {
 public:
  virtual ~PolicyOutputFiles() = default;
  /// The stream of "STATS<suffix>" (STATS: the --stats path without ".json").
  virtual std::ostream& file(const std::string& suffix) = 0;
};

class WarpSchedulerPolicy {
 public:
  virtual ~WarpSchedulerPolicy() = default;
  /// Registry name, e.g. "gto".
  virtual std::string name() const = 0;
  /// Fills `order` with indices into view.warps, highest priority first. The
  /// scheduler issues the first warp in it that is Ready. Warps left out are
  /// not considered this cycle.
  virtual void order(const SchedulerView& view, std::vector<uint32_t>& order) = 0;
  /// Optional, for speed: instead of order(), describe the same order as a
  /// greedy warp plus a rotated ranking, with the same effect on the
  /// policy's state, and return true. The scheduler then walks it only as
  /// far as the first Ready warp. False (the default): order() is called.
  virtual bool describe_order(const SchedulerView& /*view*/, OrderSpec& /*spec*/) { return false; }
  virtual void on_issue(const IssueEvent&) {}
  virtual void on_complete(const CompleteEvent&) {}
  /// Whether on_complete() can change the order. If so (the default, to be
  /// safe), the SM asks for the order again after every completion of one
  /// of the scheduler's warps; if not, only when a completion changes what
  /// a warp waits for. Policies that ignore completions return false.
  virtual bool order_follows_completions() const { return true; }
  /// Whether asking for the order changes nothing in the policy: order() and
  /// describe_order() only read the view and what the notifications
  /// recorded. Then the scheduler does not ask on a cycle where no warp is
  /// Ready, when no order can issue anything. False (the default) is safe.
  virtual bool order_is_pure() const { return false; }
  /// A new warp entered a slot of this scheduler / a warp finished.
  virtual void on_warp_start(uint32_t /*slot*/, uint64_t /*cycle*/) {}
  virtual void on_warp_finish(uint32_t /*slot*/, uint64_t /*cycle*/) {}
  /// Policy statistics (e.g. spin detections), merged into the scheduler's in --stats.
  virtual void report_stats(core::StatReport& /*out*/) const {}
  /// Their values (tests).
  std::map<std::string, double> stats() const { return core::values_of(*this); }
  /// Records beyond stats(), written after a run with --stats into `files`,
  /// headed by `scheduler` (the scheduler's module name, e.g.
  /// "gpu.sm0.sched1"). Default: none.
  virtual void write_extra_outputs(const std::string& /*scheduler*/, PolicyOutputFiles& /*files*/) const {}
  /// True if order() reads view.ctas; otherwise the SM may leave it empty.
  virtual bool wants_cta_view() const { return false; }
  /// The SM calls order() only when something in the view changed. A policy
  /// with time-driven rules (a back-off that expires, a periodic re-sort, a
  /// pointer that moves without an issue) returns the first cycle after
  /// `now` at which its order may differ anyway; the SM evaluates it then.
  virtual uint64_t next_reorder_cycle(uint64_t /*now*/) const { return UINT64_MAX; }
  /// Seed 002's warp sharing: the SM lets a scheduler whose SP / SFU / MEM
  /// operand collector is free issue another scheduler's warp that waits for
  /// that collector (the warp-sharing control unit lives in the SM).
  virtual bool shares_warps() const { return false; }
  /// Seed 003's SWaS: the SM fetches for the warp this policy selects for
  /// issue, instead of running its own fetch scheduler (the SM does it).
  virtual bool fetches_with_issue() const { return false; }
};

/// "name:key=value,key=value" split into the name and its parameters.
struct PolicySpec {
  std::string name;
  std::map<std::string, std::string> params;
};
/// Throws std::invalid_argument for malformed text.
PolicySpec parse_policy_spec(const std::string& text);

}  // namespace tlmgpu::schedulers
