// What the pipeline needs to know about each instruction of a module, worked
// out once per launch: registers read and written (for the scoreboard and the
// register banks), the execution pipeline, and the class a policy sees.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "core/gpu_config.h"
#include "model/ptx/ptx_ir.h"
#include "schedulers/warp_scheduler_policy.h"

namespace tlmgpu::sm {

/// Which pipeline executes an instruction (finer than ptx::UnitClass where
/// timing differs: non-pipelined divide / square root).
enum class Pipe : uint8_t { Sp, Sfu, Dp, IntDiv, FpDivSqrt, Mem, Ctrl, Bar, Tensor };

/// Register ids for the scoreboard: slots 0..num_regs-1 are registers,
/// num_regs + p is predicate p.
struct InstructionTiming {
  static constexpr int kMaxSrc = 8;
  static constexpr int kMaxDst = 5;
  Pipe pipe = Pipe::Sp;
  ptx::UnitClass unit = ptx::UnitClass::SP;
  core::HeadClass head_class = core::HeadClass::ShortAlu;
  uint8_t num_src = 0, num_dst = 0;
  std::array<uint32_t, kMaxSrc> src{};
  std::array<uint32_t, kMaxDst> dst{};
  bool is_memory = false;      ///< goes through the LD/ST unit
  bool is_texture = false;     ///< tex / tld4: reads go through the texture cache
  bool is_shared = false;      ///< .shared space (generic accesses are resolved at issue)
  bool is_membar = false;
  bool is_atomic = false;
  bool is_setp = false;
  bool is_branch = false;
  /// Trace instructions: cycles from issue to writeback and between issues
  /// to the pipe, given by the trace (0: a PTX instruction timed by the
  /// pipeline's configuration and its operand collection).
  uint16_t fixed_latency = 0;
  uint16_t fixed_interval = 0;
};

/// The pipeline that executes `in` (LT mode counts instructions by it too).
Pipe pipe_of(const ptx::Instruction& in);

/// One entry per PC of the module.
std::vector<InstructionTiming> analyse_module(const ptx::Module& module, uint32_t num_regs);

/// Latency and initiation interval of a pipe under `config`.
core::UnitTiming pipe_timing(Pipe pipe, const core::SmConfig& config);

}  // namespace tlmgpu::sm
