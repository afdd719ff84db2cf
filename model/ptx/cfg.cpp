#include "model/ptx/cfg.h"

#include <algorithm>

namespace tlmgpu::ptx {
namespace {

bool ends_block(const Instruction& in) {
  return in.op == Opcode::Bra || in.op == Opcode::Ret || in.op == Opcode::Exit || in.op == Opcode::Trap;
}

void add_succ(BasicBlock& b, uint32_t s) {
  if (std::find(b.succs.begin(), b.succs.end(), s) == b.succs.end()) b.succs.push_back(s);
}

}  // namespace

ControlFlowGraph build_cfg(const Module& m, const Function& f) {
  ControlFlowGraph g;
  g.entry_pc = f.entry_pc;
  const uint32_t n = f.end_pc > f.entry_pc ? f.end_pc - f.entry_pc : 0;
  if (n == 0) return g;
  auto in_func = [&](uint32_t pc) { return pc >= f.entry_pc && pc < f.end_pc; };

  std::vector<uint8_t> leader(n, 0);
  leader[0] = 1;
  for (uint32_t i = 0; i < n; ++i) {
    const Instruction& in = m.code[f.entry_pc + i];
    if (in.op == Opcode::Bra && in_func(in.target)) leader[in.target - f.entry_pc] = 1;
    if (ends_block(in) && i + 1 < n) leader[i + 1] = 1;
  }
  g.block_of.assign(n, 0);
  for (uint32_t i = 0; i < n; ++i) {
    if (leader[i]) {
      if (!g.blocks.empty()) g.blocks.back().end = f.entry_pc + i;
      g.blocks.push_back(BasicBlock{f.entry_pc + i, 0, {}});
    }
    g.block_of[i] = uint32_t(g.blocks.size() - 1);
  }
  g.blocks.back().end = f.end_pc;

  const auto nb = uint32_t(g.blocks.size());
  for (uint32_t b = 0; b < nb; ++b) {
    BasicBlock& blk = g.blocks[b];
    const Instruction& last = m.code[blk.end - 1];
    const bool guarded = last.guard != kNoReg;
    const uint32_t fall = b + 1 < nb ? b + 1 : ControlFlowGraph::kExit;
    if (last.op == Opcode::Bra) {
      add_succ(blk, in_func(last.target) ? g.block_of[last.target - f.entry_pc] : ControlFlowGraph::kExit);
      if (guarded) add_succ(blk, fall);
    } else if (last.op == Opcode::Ret || last.op == Opcode::Exit || last.op == Opcode::Trap) {
      add_succ(blk, ControlFlowGraph::kExit);
      if (guarded) add_succ(blk, fall);
    } else {
      add_succ(blk, fall);  // includes running off the end of the function
    }
  }

  // Node nb is the virtual exit. Predecessor lists make the reversed graph.
  const uint32_t exit = nb;
  auto node = [&](uint32_t s) { return s == ControlFlowGraph::kExit ? exit : s; };
  std::vector<std::vector<uint32_t>> preds(nb + 1);
  std::vector<std::vector<uint32_t>> succs(nb + 1);
  for (uint32_t b = 0; b < nb; ++b) {
    for (uint32_t s : g.blocks[b].succs) {
      succs[b].push_back(node(s));
      preds[node(s)].push_back(b);
    }
  }

  // Blocks that never reach the exit (infinite loops) would have no
  // post-dominator; connect the highest-PC such block to the exit and retry.
  std::vector<uint8_t> reaches(nb + 1, 0);
  std::vector<uint32_t> work;
  auto flood = [&](uint32_t start) {
    reaches[start] = 1;
    work.push_back(start);
    while (!work.empty()) {
      uint32_t x = work.back();
      work.pop_back();
      for (uint32_t p : preds[x]) {
        if (!reaches[p]) {
          reaches[p] = 1;
          work.push_back(p);
        }
      }
    }
  };
  flood(exit);
  for (uint32_t b = nb; b-- > 0;) {
    if (!reaches[b]) {
      succs[b].push_back(exit);
      preds[exit].push_back(b);
      flood(b);
    }
  }

  // Post-order of the reversed graph from the exit (iterative DFS).
  std::vector<uint32_t> order;  // post-order
  std::vector<uint32_t> po(nb + 1, 0);
  std::vector<uint8_t> seen(nb + 1, 0);
  std::vector<std::pair<uint32_t, uint32_t>> stack;
  stack.emplace_back(exit, 0);
  seen[exit] = 1;
  while (!stack.empty()) {
    auto& [x, k] = stack.back();
    if (k < preds[x].size()) {
      uint32_t p = preds[x][k++];
      if (!seen[p]) {
        seen[p] = 1;
        stack.emplace_back(p, 0);
      }
    } else {
      po[x] = uint32_t(order.size());
      order.push_back(x);
      stack.pop_back();
    }
  }

  constexpr uint32_t kUndef = 0xFFFFFFFEu;
  std::vector<uint32_t> idom(nb + 1, kUndef);
  idom[exit] = exit;
  auto intersect = [&](uint32_t a, uint32_t b) {
    while (a != b) {
      while (po[a] < po[b]) a = idom[a];
      while (po[b] < po[a]) b = idom[b];
    }
    return a;
  };
  bool changed = true;
  while (changed) {
    changed = false;
    for (size_t i = order.size(); i-- > 0;) {  // reverse post-order
      uint32_t x = order[i];
      if (x == exit) continue;
      uint32_t nd = kUndef;
      for (uint32_t s : succs[x]) {  // predecessors in the reversed graph
        if (idom[s] == kUndef) continue;
        nd = nd == kUndef ? s : intersect(s, nd);
      }
      if (nd != kUndef && idom[x] != nd) {
        idom[x] = nd;
        changed = true;
      }
    }
  }
  g.ipdom.assign(nb, ControlFlowGraph::kExit);
  for (uint32_t b = 0; b < nb; ++b) {
    if (idom[b] != kUndef && idom[b] != exit) g.ipdom[b] = idom[b];
  }
  return g;
}

std::vector<uint32_t> immediate_post_dominators(const Module& m, const Function& f) {
  ControlFlowGraph g = build_cfg(m, f);
  std::vector<uint32_t> out(g.block_of.size(), kNoPc);
  for (uint32_t i = 0; i < out.size(); ++i) {
    const uint32_t pc = f.entry_pc + i;
    const BasicBlock& b = g.blocks[g.block_of[i]];
    if (pc + 1 < b.end) {
      out[i] = pc + 1;
    } else {
      uint32_t d = g.ipdom[g.block_of[i]];
      out[i] = d == ControlFlowGraph::kExit ? kNoPc : g.blocks[d].begin;
    }
  }
  return out;
}

void compute_reconvergence(Module& m, const Function& f) {
  ControlFlowGraph g = build_cfg(m, f);
  for (uint32_t i = 0; i < g.block_of.size(); ++i) {
    Instruction& in = m.code[f.entry_pc + i];
    if (in.op != Opcode::Bra) continue;
    uint32_t d = g.ipdom[g.block_of[i]];
    in.reconverge_pc = d == ControlFlowGraph::kExit ? kNoPc : g.blocks[d].begin;
  }
}

}  // namespace tlmgpu::ptx
