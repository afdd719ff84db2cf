// The SM's instruction source for PTX kernels: warps execute functionally
// (exec::Warp) at the moment the SM issues them.
#pragma once

#include <memory>
#include <vector>

#include "model/exec/cta.h"
#include "model/sm/warp_instruction_source.h"

namespace tlmgpu::sm {

class PtxWarpSource final : public WarpInstructionSource {
 public:
  explicit PtxWarpSource(exec::Warp& warp);
  uint32_t pc() const override { return warp_->pc(); }
  uint32_t end_pc() const override {
    // Inside a called function the kernel's own end does not bound the code.
    return warp_->pc() < kernel_end_ ? kernel_end_ : module_end_;
  }
  bool finished() const override { return warp_->finished(); }
  bool at_barrier() const override { return warp_->at_barrier(); }
  uint32_t next_mask() const override { return warp_->next_mask(); }
  exec::StepStatus execute() override;
  const IssuedInstruction& issued() const override { return issued_; }
  void source_values(uint32_t index, std::array<uint64_t, ptx::kWarpSize>& out) const override;
  std::string describe() const override { return warp_->describe(); }

 private:
  /// atom.cas just executed: the lanes that wrote (kept out of the common
  /// path, whose frame would otherwise hold its two lane arrays).
  [[gnu::noinline]] uint32_t cas_written(const exec::StepInfo& info) const;

  exec::Warp* warp_;
  uint32_t kernel_end_, module_end_;
  IssuedInstruction issued_;
};

class PtxCtaSource final : public CtaInstructionSource {
 public:
  PtxCtaSource(const exec::KernelContext& ctx, exec::Dim3 ctaid, uint32_t sm);
  uint32_t num_warps() const override { return uint32_t(warps_.size()); }
  WarpInstructionSource& warp(uint32_t index) override { return warps_[index]; }
  const WarpInstructionSource& warp(uint32_t index) const override { return warps_[index]; }
  void restart(exec::Dim3 ctaid, uint32_t sm) override { cta_.restart(ctaid, sm); }
  uint64_t progress_events() const override;
  std::string name() const override { return cta_.name(); }

 private:
  exec::Cta cta_;
  std::vector<PtxWarpSource> warps_;
};

/// A PTX launch: `ctx` and `timing` (analyse_module of ctx's module) must outlive it.
class PtxKernelSource final : public KernelInstructionSource {
 public:
  PtxKernelSource(const exec::KernelContext& ctx, const std::vector<InstructionTiming>& timing)
      : ctx_(ctx), timing_(timing) {}
  std::unique_ptr<CtaInstructionSource> make_cta(exec::Dim3 ctaid, uint32_t sm) const override {
    return std::make_unique<PtxCtaSource>(ctx_, ctaid, sm);
  }
  const std::vector<InstructionTiming>& timing() const override { return timing_; }
  uint32_t scoreboard_ids() const override { return ctx_.kernel->num_regs + ctx_.kernel->num_preds; }
  uint32_t banked_registers() const override { return ctx_.kernel->num_regs; }

 private:
  const exec::KernelContext& ctx_;
  const std::vector<InstructionTiming>& timing_;
};

}  // namespace tlmgpu::sm
