// Control-flow graph of one decoded function and its post-dominator tree: the
// reconvergence points of the IPDOM SIMT stack.
#pragma once

#include <cstdint>
#include <vector>

#include "model/ptx/ptx_ir.h"

namespace tlmgpu::ptx {

struct BasicBlock {
  uint32_t begin = 0;  ///< first PC
  uint32_t end = 0;    ///< one past the last PC
  /// Successor block indices; ControlFlowGraph::kExit for the virtual exit.
  std::vector<uint32_t> succs;
};

struct ControlFlowGraph {
  static constexpr uint32_t kExit = 0xFFFFFFFFu;
  uint32_t entry_pc = 0;
  std::vector<BasicBlock> blocks;   ///< in PC order; blocks[0] starts at entry_pc
  std::vector<uint32_t> block_of;   ///< per instruction (index pc - entry_pc): its block
  /// Per block: immediate post-dominator block, or kExit. Blocks that cannot
  /// reach the exit (infinite loops) are given a virtual edge to it first.
  std::vector<uint32_t> ipdom;
};

/// Builds the CFG of `f` (leaders: entry, branch targets, the instruction after
/// bra/ret/exit/trap) and computes immediate post-dominators
/// (Cooper-Harvey-Kennedy over the reversed graph with a virtual exit node).
ControlFlowGraph build_cfg(const Module& m, const Function& f);

/// Per instruction of `f` (index pc - f.entry_pc): the PC of its immediate
/// post-dominator, kNoPc when that is the function exit.
std::vector<uint32_t> immediate_post_dominators(const Module& m, const Function& f);

/// Sets Instruction::reconverge_pc of every bra in `f`: the first PC of the
/// immediate post-dominator of the branch's block (kNoPc: the function exit).
void compute_reconvergence(Module& m, const Function& f);

}  // namespace tlmgpu::ptx
