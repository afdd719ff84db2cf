// The SM's instruction source for text traces (model/trace): every CTA runs
// the trace's warps, one trace warp per hardware warp, in the trace's order.
// Instructions carry no values: they occupy their pipe for the trace's
// initiation interval and write their destinations the trace's latency after
// issue, without operand collection (docs/SCHEDULERS.md, "Traces on the SM").
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "model/sm/warp_instruction_source.h"
#include "model/trace/warp_trace.h"

namespace tlmgpu::sm {

class TraceKernelSource;
class TraceCtaSource;

class TraceWarpSource final : public WarpInstructionSource {
 public:
  TraceWarpSource(const TraceKernelSource& kernel, TraceCtaSource& cta, uint32_t index);
  void restart();
  uint32_t pc() const override { return pc_; }
  uint32_t end_pc() const override { return end_; }
  bool finished() const override { return pc_ == end_; }
  bool at_barrier() const override { return at_barrier_; }
  uint32_t next_mask() const override { return finished() ? 0 : ~0u; }
  exec::StepStatus execute() override;
  const IssuedInstruction& issued() const override { return issued_; }
  void source_values(uint32_t, std::array<uint64_t, ptx::kWarpSize>& out) const override { out.fill(0); }
  std::string describe() const override;

 private:
  friend class TraceCtaSource;
  const TraceKernelSource& kernel_;
  TraceCtaSource& cta_;
  uint32_t index_;
  uint32_t begin_, end_, pc_;
  bool at_barrier_ = false;
  IssuedInstruction issued_;
};

class TraceCtaSource final : public CtaInstructionSource {
 public:
  TraceCtaSource(const TraceKernelSource& kernel, exec::Dim3 ctaid);
  uint32_t num_warps() const override { return uint32_t(warps_.size()); }
  WarpInstructionSource& warp(uint32_t index) override { return *warps_[index]; }
  const WarpInstructionSource& warp(uint32_t index) const override { return *warps_[index]; }
  void restart(exec::Dim3 ctaid, uint32_t sm) override;
  uint64_t progress_events() const override { return executed_; }
  std::string name() const override;

 private:
  friend class TraceWarpSource;
  /// Releases the barrier once every unfinished warp waits at it.
  void release_barrier_if_complete();

  exec::Dim3 ctaid_;
  std::vector<std::unique_ptr<TraceWarpSource>> warps_;
  uint64_t executed_ = 0;
};

/// A launch of a trace: `trace` must outlive it.
class TraceKernelSource final : public KernelInstructionSource {
 public:
  explicit TraceKernelSource(const trace::WarpTrace& trace);
  std::unique_ptr<CtaInstructionSource> make_cta(exec::Dim3 ctaid, uint32_t sm) const override;
  const std::vector<InstructionTiming>& timing() const override { return timing_; }
  uint32_t scoreboard_ids() const override { return scoreboard_ids_; }
  uint32_t banked_registers() const override { return registers_; }
  bool prefilled_instruction_buffers() const override { return true; }

  const trace::WarpTrace& trace() const { return trace_; }
  /// First PC of trace warp `index` (its instructions follow, in order).
  uint32_t begin_pc(uint32_t index) const { return begins_[index]; }
  uint32_t end_pc(uint32_t index) const { return begins_[index + 1]; }
  const trace::TraceInstruction& instruction(uint32_t pc) const { return *code_[pc]; }
  uint32_t warps() const { return uint32_t(trace_.warps.size()); }

 private:
  const trace::WarpTrace& trace_;
  std::vector<InstructionTiming> timing_;
  std::vector<const trace::TraceInstruction*> code_;
  std::vector<uint32_t> begins_;
  uint32_t registers_ = 0, scoreboard_ids_ = 0;
};

}  // namespace tlmgpu::sm
