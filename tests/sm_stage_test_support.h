// What the SM stage tests (tests/test_sm_*.cpp) share: a stand-in warp and a
// small SM configuration, so each stage runs on its own.
#pragma once

#include <array>
#include <cstdint>
#include <string>

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

/// `schedulers` schedulers with two register banks each and one collector
/// per class: a collector is busy after one dispatch.
inline platform::SmConfig one_collector_per_class(uint32_t schedulers) {
  platform::SmConfig smc;
  smc.num_schedulers = schedulers;
  smc.register_banks = 2;
  smc.collectors_sp = 1;
  smc.collectors_sfu = 1;
  smc.collectors_dp = 1;
  smc.collectors_mem = 1;
  return smc;
}

}  // namespace tlmgpu::sm::test
