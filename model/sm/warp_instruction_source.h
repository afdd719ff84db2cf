// Where an SM's warps get their instructions from. The SM's pipeline (fetch,
// instruction buffer, scoreboard, schedulers, issue, writeback) only sees
// these interfaces; two implementations exist: the PTX executor
// (ptx_instruction_source.h) and a text trace (trace_instruction_source.h)
// for exact, hand-checkable scheduler tests.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "model/exec/kernel_context.h"
#include "model/exec/warp.h"
#include "model/sm/instruction_timing.h"

namespace tlmgpu::sm {

/// What the instruction a warp just issued did.
struct IssuedInstruction {
  uint32_t active_mask = 0;    ///< lanes that executed (guard applied)
  ptx::Opcode op = ptx::Opcode::Nop;
  bool branch_taken = false;   ///< any lane took the branch
  bool backward = false;       ///< taken branch to a lower or equal PC
  /// Addresses per lane for the coalescer, meaningful for a memory
  /// instruction with an active lane; nullptr when the source has no
  /// addresses (a trace's memory instructions).
  const exec::MemAccess* access = nullptr;
  ptx::AtomOp atom = ptx::AtomOp::None;
  /// atom.cas: lanes that found the compare value and wrote a different one.
  uint32_t cas_written = 0;
};

/// One warp's instruction stream. PCs index the launch's InstructionTiming table.
class WarpInstructionSource {
 public:
  virtual ~WarpInstructionSource() = default;
  /// The next instruction the warp executes.
  virtual uint32_t pc() const = 0;
  /// Fetch does not go at or beyond this PC.
  virtual uint32_t end_pc() const = 0;
  virtual bool finished() const = 0;
  virtual bool at_barrier() const = 0;
  /// Lanes that would execute the next instruction.
  virtual uint32_t next_mask() const = 0;
  /// Executes the instruction at pc(). Executed: issued() describes it.
  /// Blocked: it cannot run now (independent thread scheduling waits for
  /// other lanes); nothing changed.
  virtual exec::StepStatus execute() = 0;
  virtual const IssuedInstruction& issued() const = 0;
  /// For a compare just executed: each lane's value of source `index` (raw bits).
  virtual void source_values(uint32_t index, std::array<uint64_t, ptx::kWarpSize>& out) const = 0;
  /// "warp 3 pc 17 (line ...)": for watchdog and deadlock reports.
  virtual std::string describe() const = 0;
};

/// One CTA's warps, their barriers, and its forward-progress count.
class CtaInstructionSource {
 public:
  virtual ~CtaInstructionSource() = default;
  virtual uint32_t num_warps() const = 0;
  virtual WarpInstructionSource& warp(uint32_t index) = 0;
  virtual const WarpInstructionSource& warp(uint32_t index) const = 0;
  /// Reuses the storage for another CTA of the same launch.
  virtual void restart(exec::Dim3 ctaid, uint32_t sm) = 0;
  /// Value-changing stores and atomics, exits, barrier releases: the watchdog compares it over time.
  virtual uint64_t progress_events() const = 0;
  virtual std::string name() const = 0;
};

/// One launch's program: makes CTAs and tells the SM what each PC needs.
class KernelInstructionSource {
 public:
  virtual ~KernelInstructionSource() = default;
  virtual std::unique_ptr<CtaInstructionSource> make_cta(exec::Dim3 ctaid, uint32_t sm) const = 0;
  /// One entry per PC.
  virtual const std::vector<InstructionTiming>& timing() const = 0;
  /// Scoreboard ids (registers and predicates) an instruction may name.
  virtual uint32_t scoreboard_ids() const = 0;
  /// Ids below this live in the banked register file (predicates do not).
  virtual uint32_t banked_registers() const = 0;
  /// Whether each warp's instruction buffer starts full (decoded at the CTA's
  /// start) instead of being fetched: traces use it so that hand-checked
  /// schedules do not include the instruction cache's cold misses.
  virtual bool prefilled_instruction_buffers() const { return false; }
};

}  // namespace tlmgpu::sm
