// Registers per thread as ptxas would allocate them, estimated from decoded
// PTX. nvcc's PTX names a fresh virtual register for nearly every value; the
// hardware count is the peak number of values live at once, so occupancy
// must not be computed from the .reg declarations.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "model/ptx/ptx_ir.h"

namespace tlmgpu::ptx {

/// What the estimate of one function is made of (32-bit registers).
struct RegisterEstimate {
  /// Peak of simultaneously live 32-bit register units over the function,
  /// with loads scheduled early and callees' peaks added at their call sites.
  uint32_t peak_live = 0;
  /// peak_live plus the registers ptxas reserves in every function.
  uint32_t registers = 0;
};

/// Registers ptxas uses besides the program's values: the ABI stack pointer
/// and the code generator's own temporaries. An empty kernel takes 4 on
/// sm_75; 5 is what makes the mean error over the reference kernels of
/// tests/test_register_allocation.cpp zero.
constexpr uint32_t kReservedRegisters = 5;

/// ptxas (sm_75, the PTX's target) schedules loads and arithmetic early only
/// while the registers stay within what keeps full occupancy: 65536
/// registers over 1024 resident threads.
constexpr uint32_t kSchedulingBudget = 64;

/// Instructions a load or address computation moves up at most (the list
/// scheduler's lookahead; also bounds the work on huge blocks).
constexpr size_t kSchedulingWindow = 256;

/// Instructions the arithmetic computing a store's (or atomic's) address
/// moves up at most: ptxas computes it shortly before the store instead of
/// keeping it live across a long body (black_scholes: 29 registers estimated
/// with the load window, 25 with this one, ptxas 23).
constexpr size_t kStoreAddressWindow = 32;

/// Then-blocks of at most this many instructions are if-converted by ptxas
/// (predicated instead of branched around).
constexpr uint32_t kIfConversionInstructions = 12;

/// ptxas unrolls small counted innermost loops this many times and schedules
/// the copies together (their loads first), which is what makes loops over
/// arrays take far more registers than one iteration needs (matmul_naive's
/// SASS: 32 loads, then 16 multiply-adds, per trip of nvcc's loop already
/// unrolled 4 times; 52 registers, 26 with `.pragma "nounroll"`).
constexpr uint32_t kUnrollFactor = 4;

/// The largest loop body (machine instructions as machine_instructions()
/// counts them) ptxas unrolls: among the reference kernels of
/// tests/test_register_allocation.cpp the largest body it unrolls counts 61
/// (matmul_tile16), the smallest counted loop it leaves 64 (accumulators24).
constexpr uint32_t kUnrollMaxCost = 62;

/// Shared-memory loads ptxas issues ahead of the first use of an earlier
/// one: at the first multiply-add of sgemm_tiled's tile loop, 16 loaded
/// values are outstanding (in the SASS of ptxas -arch=sm_75).
constexpr uint32_t kSharedLoadsAhead = 16;

/// Estimates every function of `m` (index as Module::functions): the peak
/// number of simultaneously live general registers over the function's
/// control-flow graph (a value of a 64-bit type takes two 32-bit registers,
/// narrower types one, predicates none) plus kReservedRegisters, modelling
/// what ptxas does to the PTX before it allocates:
///  - kernel parameters, immediates, symbol addresses and launch-shape special
///    registers are constant-bank or immediate operands: a register whose
///    every definition is one of those takes none, except for an instant
///    where a memory instruction (which takes no constant operands) reads it;
///  - loop-invariant arithmetic is computed once before its loop;
///  - short then-blocks behind a forward branch are if-converted (predicated),
///    so scheduling crosses them;
///  - small counted innermost loops are unrolled kUnrollFactor times, and the
///    copies scheduled as one region;
///  - loads, and the arithmetic computing load and store addresses, are
///    scheduled as early as their dependencies allow (a load stays below
///    barriers, below stores that may alias it and below other loads;
///    ld.global.nc only below barriers and fences; a shared load at most
///    kSharedLoadsAhead shared loads ahead of a use; arithmetic reading a
///    loaded value stays below the loads), which keeps their results live
///    longer, but only up to kSchedulingBudget;
///  - arithmetic before a barrier that a global load follows sinks below the
///    barrier, so the load issues early (tiles staged through shared memory);
///  - division, remainder, square root and reciprocal that ptxas expands
///    into sequences or a slow-path subroutine need scratch registers;
///  - a call needs what is live across it plus the callee's peak.
/// Not capped at any architecture's per-thread limit.
std::vector<RegisterEstimate> estimate_function_registers(const Module& m);

/// The `registers` of estimate_function_registers, per function.
std::vector<uint32_t> estimate_registers(const Module& m);

}  // namespace tlmgpu::ptx
