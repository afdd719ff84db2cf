// What the SM stage tests (tests/test_sm_*.cpp) share: stand-in warps, CTAs
// and kernels, and a small SM configuration, so each stage runs on its own.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/gpu_config.h"
#include "model/sm/warp_instruction_source.h"

namespace tlmgpu::sm::test {

/// A warp whose PC the test sets (`at`); the stages under test read only
/// its PC, and it never finishes or waits at a barrier.
class StandInWarp : public WarpInstructionSource {
 public:
  uint32_t at = 0;
  uint32_t pc() const override { return at; }
  uint32_t end_pc() const override { return 100; }
  bool finished() const override { return false; }
  bool at_barrier() const override { return false; }
  uint32_t next_mask() const override { return ~0u; }
  exec::StepStatus execute() override { return exec::StepStatus::Executed; }
  const IssuedInstruction& issued() const override { return issued_; }
  void source_values(uint32_t, std::array<uint64_t, ptx::kWarpSize>&) const override {}
  std::string describe() const override { return "stand-in warp"; }

 private:
  IssuedInstruction issued_;
};

/// A warp that runs straight through its code, all lanes active: each
/// execute moves it to the next PC; at `end` it has finished.
class StraightLineWarp : public StandInWarp {
 public:
  uint32_t end = 100;
  uint32_t end_pc() const override { return end; }
  bool finished() const override { return at >= end; }
  exec::StepStatus execute() override {
    ++at;
    return exec::StepStatus::Executed;
  }
  const IssuedInstruction& issued() const override { return all_lanes_; }

 private:
  IssuedInstruction all_lanes_{~0u};
};

/// A CTA of straight-line warps.
class StandInCta : public CtaInstructionSource {
 public:
  StandInCta(uint32_t warps, exec::Dim3 ctaid) : warps_(warps), ctaid_(ctaid) {}
  uint32_t num_warps() const override { return uint32_t(warps_.size()); }
  StraightLineWarp& warp(uint32_t index) override { return warps_[index]; }
  const StraightLineWarp& warp(uint32_t index) const override { return warps_[index]; }
  void restart(exec::Dim3 ctaid, uint32_t) override {
    ctaid_ = ctaid;
    ++restarts;
  }
  uint64_t progress_events() const override { return progress; }
  std::string name() const override { return "cta " + std::to_string(ctaid_.x); }

  uint64_t progress = 0;
  uint32_t restarts = 0;

 private:
  std::vector<StraightLineWarp> warps_;
  exec::Dim3 ctaid_;
};

/// A kernel of `warps_per_cta`-warp CTAs whose PCs have `timing`, with
/// prefilled instruction buffers (no fetch needed); 4 banked registers.
class StandInKernel : public KernelInstructionSource {
 public:
  StandInKernel(uint32_t warps_per_cta, std::vector<InstructionTiming> timing)
      : warps_per_cta_(warps_per_cta), timing_(std::move(timing)) {}
  std::unique_ptr<CtaInstructionSource> make_cta(exec::Dim3 ctaid, uint32_t) const override {
    auto cta = std::make_unique<StandInCta>(warps_per_cta_, ctaid);
    for (uint32_t k = 0; k < warps_per_cta_; ++k) cta->warp(k).end = uint32_t(timing_.size());
    made.push_back(cta.get());
    return cta;
  }
  const std::vector<InstructionTiming>& timing() const override { return timing_; }
  uint32_t scoreboard_ids() const override { return 4; }
  uint32_t banked_registers() const override { return 4; }
  bool prefilled_instruction_buffers() const override { return true; }

  mutable std::vector<StandInCta*> made;  // the CTAs made, in order

 private:
  uint32_t warps_per_cta_;
  std::vector<InstructionTiming> timing_;
};

/// `schedulers` schedulers with two register banks each and one collector
/// per class: a collector is busy after one dispatch.
inline core::SmConfig one_collector_per_class(uint32_t schedulers) {
  core::SmConfig smc;
  smc.num_schedulers = schedulers;
  smc.register_banks = 2;
  smc.collectors_sp = 1;
  smc.collectors_sfu = 1;
  smc.collectors_dp = 1;
  smc.collectors_mem = 1;
  return smc;
}

}  // namespace tlmgpu::sm::test
