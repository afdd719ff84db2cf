// One warp's architectural state and its functional execution, one warp
// instruction per step, with SIMT divergence (IPDOM stack or ITS).
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "memory/memory_access.h"
#include "model/exec/kernel_context.h"

namespace tlmgpu::exec {

class Cta;

/// The per-lane addresses of the last memory instruction (memory/memory_access.h).
using MemAccess = memory::MemAccess;

/// What one call of Warp::step did.
enum class StepStatus : uint8_t {
  Executed,    ///< an instruction ran (possibly with no active lane: guard false)
  AtBarrier,   ///< waiting at a CTA barrier; the Cta releases it
  Blocked,     ///< ITS: waiting for other lanes at a warp-synchronous instruction
  Finished,    ///< all lanes exited
};

/// Details of the last executed instruction, for schedulers and the timing model.
struct StepInfo {
  uint32_t pc = 0;
  uint32_t active_mask = 0;     ///< lanes that executed (guard applied)
  const ptx::Instruction* inst = nullptr;
  bool branch_taken = false;    ///< any lane took the branch
  bool backward = false;        ///< taken branch to a lower or equal PC
  bool has_mem = false;         ///< mem is valid
};

class Warp {
 public:
  /// warp_in_cta: index of the warp in its CTA; threads beyond the CTA's size are not created.
  Warp(const KernelContext& ctx, Cta& cta, uint32_t warp_in_cta);

  /// Starts the warp again at the kernel's entry for a new CTA in the same
  /// slot (the Cta's id changed); counters restart from zero.
  void restart();

  /// Executes the next instruction. Throws DeviceFault on a fault.
  StepStatus step();

  bool finished() const { return live_mask_ == 0; }
  bool at_barrier() const { return barrier_id_ >= 0; }
  int barrier_id() const { return barrier_id_; }
  /// The CTA barrier this warp waited at completed; for bar.red the
  /// reduction's inputs: threads voting true and threads that arrived.
  void barrier_released(uint32_t votes_true, uint32_t votes_cast);
  /// PC of the next instruction to run (or of the barrier waited at).
  /// The SM asks for it (and next_mask) many times a cycle, so both are kept
  /// up to date whenever the stack or the running group changes.
  uint32_t pc() const { return next_pc_; }
  /// Lanes that would execute next.
  uint32_t next_mask() const { return next_mask_; }
  uint32_t live_mask() const { return live_mask_; }
  uint32_t warp_in_cta() const { return warp_in_cta_; }
  const StepInfo& last() const { return last_; }
  const MemAccess& last_access() const { return access_; }
  void set_record_accesses(bool on) { record_accesses_ = on; }
  uint64_t instructions() const { return instructions_; }
  uint64_t thread_instructions() const { return thread_instructions_; }
  /// State for watchdog and deadlock reports: "pc=0x1c (line 42) mask=0xffffffff at barrier 0".
  std::string describe() const;

  // --- used by the instruction semantics (instruction_semantics.cpp) ---
  uint64_t* reg(uint32_t r) { return &regs_[size_t(r) * ptx::kWarpSize]; }
  const uint64_t* reg(uint32_t r) const { return &regs_[size_t(r) * ptx::kWarpSize]; }
  uint32_t& pred(uint32_t p) { return preds_[p]; }
  uint32_t pred(uint32_t p) const { return preds_[p]; }
  /// The carry flag (CC.CF) of the PTX carry chain, one bit per lane: written
  /// by add.cc/sub.cc/mad.cc, read by addc/subc/madc.
  uint32_t& carry_flags() { return carry_flags_; }
  /// Special register value for a lane.
  uint64_t special(ptx::SpecialReg s, unsigned lane) const;
  /// special(s, lane) into out[lane] for every lane in `mask`.
  void special_lanes(ptx::SpecialReg s, uint32_t mask, uint64_t* out) const;
  /// Host pointer for `bytes` at `addr` in `space` (Generic resolved through the
  /// windows) for `lane`, checked for bounds and natural alignment (`align`
  /// bytes); throws DeviceFault naming kernel, CTA, thread, PC and address.
  uint8_t* resolve(ptx::StateSpace space, uint64_t addr, unsigned bytes, unsigned align,
                   unsigned lane, ptx::StateSpace* resolved_space = nullptr);
  /// After a load, store or atomic: writes back the staged copies of global
  /// memory it used (GlobalMemoryIf: memory without DMI); a refused write is a fault.
  void end_global_access() {
    if (__builtin_expect(*global_staged_, false)) commit_staged_memory();
  }
  /// A store or atomic changed memory: the watchdog's notion of forward progress.
  void note_progress();
  MemAccess& access() { return access_; }
  bool record_accesses() const { return record_accesses_; }
  const KernelContext& context() const { return ctx_; }
  Cta& cta() { return cta_; }
  /// Formats a device fault at the current instruction for `lane`.
  [[noreturn]] void fault(FaultKind kind, const std::string& what, unsigned lane, uint64_t address) const;

 private:
  /// A trap instruction, or the guard at a function body's reachable end.
  [[noreturn]] void trap(const ptx::Instruction& in, uint32_t active) const;
  struct StackEntry {  // ipdom: a SIMT reconvergence stack entry
    uint32_t pc;
    uint32_t rpc;
    uint32_t mask;
    /// Call depth at which rpc is meant: a recursive function's code holds
    /// the return PCs of its own outer activations, so a PC alone does not
    /// say that the lanes reconverged.
    uint32_t rpc_depth;
  };
  /// Call depth of the lanes in `mask` (they share one under IPDOM and
  /// within an ITS group).
  uint32_t call_depth(uint32_t mask) const { return uint32_t(calls_[size_t(__builtin_ctz(mask))].size()); }
  bool reconverged(const StackEntry& e) const {
    return e.pc == e.rpc && (e.mask == 0 || call_depth(e.mask) == e.rpc_depth);
  }
  enum class GroupState : uint8_t { Ready, Yielded, SyncWait };
  struct ThreadGroup {  // its: lanes at one PC
    uint32_t pc;
    uint32_t mask;
    GroupState state;
  };
  /// Calls a lane may nest; deeper is a device fault (CUDA's per-thread
  /// stack would overflow first), so runaway recursion ends cleanly.
  static constexpr size_t kMaxCallDepth = 1024;
  struct CallFrame {
    uint32_t return_pc;
    uint32_t call_site;
    uint32_t callee;     // Module::functions index (indirect calls: the one the pointer named)
    bool saved_activation;  // the callee's previous activation is in saved_activations_
  };
  struct IndirectTarget {
    uint32_t function;
    uint32_t mask;
  };
  /// The lanes of `mask` grouped by the function their pointer names, in
  /// function order; a pointer to no function is a device fault.
  std::vector<IndirectTarget> indirect_targets(const ptx::CallSite& site, uint32_t mask) const;
  /// Copies the arguments of an indirect call into `function`'s parameters
  /// and pushes the lanes' frames.
  void enter_call_to(const ptx::Instruction& in, uint32_t function, uint32_t pc, uint32_t mask);

  StepStatus step_ipdom();
  StepStatus step_its();
  void commit_staged_memory();
  /// Recomputes next_pc_ / next_mask_ from the stack (IPDOM) or the groups (ITS).
  void refresh_next();
  uint32_t guard_mask(const ptx::Instruction& in, uint32_t mask) const;
  /// Enters the callee for `mask`; returns the callee's entry PC.
  uint32_t enter_call(const ptx::Instruction& in, uint32_t pc, uint32_t mask);
  /// Leaves the current function for `mask`; returns the return PC.
  uint32_t leave_call(uint32_t mask);
  void copy_params(const std::vector<ptx::ParamCopy>& copies, uint32_t mask);
  bool in_kernel_body(uint32_t pc) const { return pc >= kernel_begin_ && pc < kernel_end_; }
  /// bar.* for `mask` at `pc`; returns true when the warp must wait.
  bool barrier(const ptx::Instruction& in, uint32_t mask, uint32_t lanes_arriving);
  void exit_lanes(uint32_t mask);
  void its_park(uint32_t pc, uint32_t mask, GroupState state);
  /// Picks the next ITS group to run (lowest PC among ready groups, then
  /// yielded ones, then those waiting at a warp-synchronous instruction).
  bool its_select();
  /// ITS: does the running group hold every live lane named by the
  /// instruction's member mask?
  bool its_members_present(const ptx::Instruction& in) const;

  // What every step touches comes first, so that it shares a few host cache
  // lines; the per-lane arrays used by calls, barriers and special registers
  // come after.
  const KernelContext& ctx_;
  Cta& cta_;
  const bool ipdom_;                    // ctx_.divergence == Ipdom, without the indirection
  const bool* global_staged_;           // ctx_.global->has_staged(), checked after every memory instruction
  bool record_accesses_ = false;
  const ptx::Instruction* code_;
  uint32_t kernel_begin_, kernel_end_;
  uint32_t warp_in_cta_;
  uint32_t initial_mask_ = 0;           // lanes that exist (the CTA may not fill the warp)
  uint32_t live_mask_ = 0;
  uint32_t next_pc_ = ptx::kNoPc;       // what pc() and next_mask() report (see refresh_next)
  uint32_t next_mask_ = 0;
  int barrier_id_ = -1;
  std::vector<uint64_t> regs_;
  std::vector<uint32_t> preds_;
  uint32_t carry_flags_ = 0;             // CC.CF per lane (bit = lane)
  std::vector<StackEntry> stack_;        // ipdom
  StepInfo last_;
  uint64_t instructions_ = 0;
  uint64_t thread_instructions_ = 0;
  uint64_t progress_events_ = 0;
  ThreadGroup running_{0, 0, GroupState::Ready};  // its
  std::vector<ThreadGroup> parked_;      // its
  std::vector<uint8_t> local_;           // lane-major: lane * local_bytes_per_thread
  uint32_t bar_lanes_ = 0;               // its: lanes waiting at a CTA barrier
  struct PendingBarrier {
    unsigned id;
    uint32_t expected;
  };
  PendingBarrier bar_pending_{0, 0};     // its: the barrier bar_lanes_ wait at
  uint32_t bar_votes_ = 0;               // bar.red predicate votes of arrived lanes
  const ptx::Instruction* bar_red_ = nullptr;
  uint32_t bar_red_mask_ = 0;
  MemAccess access_;
  std::array<uint32_t, ptx::kWarpSize> bar_resume_pc_{};
  std::array<std::array<uint32_t, 3>, ptx::kWarpSize> tid_{};
  std::array<std::vector<CallFrame>, ptx::kWarpSize> calls_;
  /// Per lane, the saved activations of recursive functions (registers,
  /// then predicate bits, then local bytes), innermost last.
  std::array<std::vector<uint64_t>, ptx::kWarpSize> saved_activations_;
  void save_activation(const ptx::Function& f, unsigned lane);
  void restore_activation(const ptx::Function& f, unsigned lane);

 public:
  /// Value-changing stores and atomics, and lane exits, so far.
  uint64_t progress_events() const { return progress_events_; }
};

/// Executes one data instruction (everything but bra/call/ret/exit/bar/trap)
/// for the lanes in `mask` (guard already applied). Implemented in
/// instruction_semantics.cpp. Warp-synchronous instructions (shfl, vote,
/// match, activemask) see exactly `mask` as the participating lanes.
void execute_instruction(const ptx::Instruction& in, uint32_t mask, Warp& warp);

}  // namespace tlmgpu::exec
