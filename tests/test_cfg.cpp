// Control-flow graph and immediate post-dominators (reconvergence points),
// checked against values worked out by hand.
#include <gtest/gtest.h>

#include "model/ptx/cfg.h"
#include "model/ptx/ptx_parser.h"

using namespace tlmgpu::ptx;

namespace {

/// A module whose second function is `body` (so its PCs do not start at 0).
Module module_with(const std::string& body) {
  return parse_ptx(".version 8.0\n.target sm_75\n.address_size 64\n"
                   ".visible .entry first()\n{\nnop;\nnop;\nret;\n}\n"
                   ".visible .entry k()\n{\n.reg .pred %p<6>;\n.reg .b32 %r<8>;\n.reg .b64 %rd<4>;\n" +
                       body + "\n}\n",
                   "cfg.ptx");
}

const Function& kfun(const Module& m) { return m.functions[m.function_index.at("k")]; }

/// Reconvergence PC of the instruction `i` of k (relative), as a PC relative to k's entry.
uint32_t rpc(const Module& m, uint32_t i) {
  const uint32_t base = kfun(m).entry_pc;
  const Instruction& in = m.code[base + i];
  EXPECT_EQ(in.op, Opcode::Bra) << "instruction " << i << " is not a branch";
  return in.reconverge_pc == kNoPc ? kNoPc : in.reconverge_pc - base;
}

/// Immediate post-dominators of k relative to its entry (kNoPc stays).
std::vector<uint32_t> ipdoms(const Module& m) {
  std::vector<uint32_t> v = immediate_post_dominators(m, kfun(m));
  for (auto& x : v)
    if (x != kNoPc) x -= kfun(m).entry_pc;
  return v;
}

}  // namespace

TEST(Cfg, StraightLine) {
  Module m = module_with("mov.u32 %r1, 1;\nadd.s32 %r1, %r1, 1;\nret;");
  EXPECT_EQ(kfun(m).entry_pc, 3u);
  EXPECT_EQ(ipdoms(m), (std::vector<uint32_t>{1, 2, kNoPc}));
  ControlFlowGraph g = build_cfg(m, kfun(m));
  ASSERT_EQ(g.blocks.size(), 1u);
  EXPECT_EQ(g.blocks[0].begin, 3u);
  EXPECT_EQ(g.blocks[0].end, 6u);
  EXPECT_EQ(g.blocks[0].succs, (std::vector<uint32_t>{ControlFlowGraph::kExit}));
}

TEST(Cfg, IfElse) {
  Module m = module_with(
      "setp.eq.s32 %p1, %r1, 0;\n"  // 0
      "@%p1 bra ELSE;\n"            // 1
      "add.s32 %r2, %r2, 1;\n"      // 2
      "bra.uni END;\n"              // 3
      "ELSE:\n"
      "add.s32 %r2, %r2, 2;\n"      // 4
      "END:\n"
      "st.global.u32 [%rd1], %r2;\n"  // 5
      "ret;");                        // 6
  EXPECT_EQ(rpc(m, 1), 5u);
  EXPECT_EQ(rpc(m, 3), 5u);
  ControlFlowGraph g = build_cfg(m, kfun(m));
  ASSERT_EQ(g.blocks.size(), 4u);  // [0,2) [2,4) [4,5) [5,7)
  EXPECT_EQ(g.blocks[0].succs.size(), 2u);
  EXPECT_EQ(g.blocks[1].succs, (std::vector<uint32_t>{3}));  // unconditional: target only
  EXPECT_EQ(g.ipdom[0], 3u);
  EXPECT_EQ(g.ipdom[3], ControlFlowGraph::kExit);
  EXPECT_EQ(ipdoms(m), (std::vector<uint32_t>{1, 5, 3, 5, 5, 6, kNoPc}));
}

TEST(Cfg, IfWithoutElse) {
  Module m = module_with(
      "@%p1 bra SKIP;\n"        // 0
      "add.s32 %r2, %r2, 1;\n"  // 1
      "SKIP:\n"
      "ret;");                  // 2
  EXPECT_EQ(rpc(m, 0), 2u);
}

TEST(Cfg, NestedIf) {
  Module m = module_with(
      "@%p1 bra OUTER_END;\n"   // 0  if (a) {
      "add.s32 %r1, %r1, 1;\n"  // 1
      "@%p2 bra INNER_ELSE;\n"  // 2    if (b) {
      "add.s32 %r1, %r1, 2;\n"  // 3
      "bra.uni INNER_END;\n"    // 4    } else {
      "INNER_ELSE:\n"
      "add.s32 %r1, %r1, 3;\n"  // 5    }
      "INNER_END:\n"
      "add.s32 %r1, %r1, 4;\n"  // 6  }
      "OUTER_END:\n"
      "ret;");                  // 7
  EXPECT_EQ(rpc(m, 0), 7u);
  EXPECT_EQ(rpc(m, 2), 6u);
  EXPECT_EQ(rpc(m, 4), 6u);
}

TEST(Cfg, LoopWithBreakAndContinue) {
  Module m = module_with(
      "mov.u32 %r1, 0;\n"          // 0
      "LOOP:\n"
      "setp.ge.s32 %p1, %r1, 10;\n"  // 1
      "@%p1 bra END;\n"             // 2  loop exit
      "add.s32 %r1, %r1, 1;\n"      // 3
      "setp.eq.s32 %p2, %r1, 5;\n"  // 4
      "@%p2 bra LOOP;\n"            // 5  continue
      "setp.eq.s32 %p3, %r1, 7;\n"  // 6
      "@%p3 bra END;\n"             // 7  break
      "add.s32 %r2, %r2, 1;\n"      // 8
      "bra.uni LOOP;\n"             // 9  back edge
      "END:\n"
      "ret;");                      // 10
  // Blocks: B0[0,1) B1[1,3) B2[3,6) B3[6,8) B4[8,10) B5[10,11).
  // B2 reaches B5 through B3 without B1, so ipdom(B2) = B5; ipdom(B4) = B1.
  EXPECT_EQ(rpc(m, 2), 10u);
  EXPECT_EQ(rpc(m, 5), 10u);
  EXPECT_EQ(rpc(m, 7), 10u);
  EXPECT_EQ(rpc(m, 9), 1u);
  ControlFlowGraph g = build_cfg(m, kfun(m));
  ASSERT_EQ(g.blocks.size(), 6u);
  EXPECT_EQ(g.ipdom, (std::vector<uint32_t>{1, 5, 5, 5, 1, ControlFlowGraph::kExit}));
}

TEST(Cfg, EarlyReturn) {
  Module m = module_with(
      "@%p1 bra ELSE;\n"        // 0
      "add.s32 %r1, %r1, 1;\n"  // 1
      "ret;\n"                  // 2  early return in the then-branch
      "ELSE:\n"
      "add.s32 %r1, %r1, 2;\n"  // 3
      "ret;");                  // 4
  EXPECT_EQ(rpc(m, 0), kNoPc);  // the paths only meet at the exit
  Module p = module_with(
      "@%p1 bra SKIP;\n"        // 0
      "@%p2 ret;\n"             // 1  predicated return: exit + fall-through
      "add.s32 %r1, %r1, 1;\n"  // 2
      "SKIP:\n"
      "add.s32 %r1, %r1, 2;\n"  // 3
      "ret;");                  // 4
  EXPECT_EQ(rpc(p, 0), kNoPc);
  EXPECT_EQ(ipdoms(p), (std::vector<uint32_t>{kNoPc, kNoPc, 3, 4, kNoPc}));
  Module q = module_with(
      "@%p1 bra SKIP;\n"        // 0
      "@%p2 exit;\n"            // 1
      "SKIP:\n"
      "ret;");                  // 2
  EXPECT_EQ(rpc(q, 0), kNoPc);
}

TEST(Cfg, SpinLockSelfLoop) {
  Module m = module_with(
      "mov.u32 %r1, 0;\n"                          // 0
      "L:\n"
      "atom.global.cas.b32 %r2, [%rd1], 0, 1;\n"   // 1
      "setp.ne.s32 %p1, %r2, 0;\n"                 // 2
      "@%p1 bra L;\n"                              // 3
      "st.global.u32 [%rd1], 0;\n"                 // 4
      "ret;");                                     // 5
  EXPECT_EQ(rpc(m, 3), 4u);
  ControlFlowGraph g = build_cfg(m, kfun(m));
  ASSERT_EQ(g.blocks.size(), 3u);
  EXPECT_EQ(g.blocks[1].succs.size(), 2u);  // itself and the fall-through
}

TEST(Cfg, InfiniteLoopsDoNotBreakTheAnalysis) {
  Module m = module_with(
      "@%p1 bra INF;\n"         // 0
      "ret;\n"                  // 1
      "INF:\n"
      "add.s32 %r1, %r1, 1;\n"  // 2
      "bra.uni INF;");          // 3
  EXPECT_EQ(rpc(m, 0), kNoPc);
  EXPECT_EQ(rpc(m, 3), kNoPc);
  Module only = module_with("L:\nbra.uni L;");
  EXPECT_EQ(rpc(only, 0), kNoPc);
  // An infinite loop with an inner diamond still gets precise ipdoms inside.
  Module d = module_with(
      "TOP:\n"
      "@%p1 bra B;\n"           // 0
      "add.s32 %r1, %r1, 1;\n"  // 1
      "bra.uni J;\n"            // 2
      "B:\n"
      "add.s32 %r1, %r1, 2;\n"  // 3
      "J:\n"
      "bra.uni TOP;");          // 4
  EXPECT_EQ(rpc(d, 0), 4u);
}

TEST(Cfg, CallsDoNotEndBlocks) {
  Module m = parse_ptx(".version 8.0\n.target sm_75\n.address_size 64\n"
                       ".func f()\n{\nret;\n}\n"
                       ".visible .entry k()\n{\n.reg .pred %p<2>;\n"
                       "@%p1 bra L;\n"  // 0
                       "call f;\n"      // 1
                       "call f;\n"      // 2
                       "L:\nret;\n}\n",  // 3
                       "c.ptx");
  const Function& k = m.functions[m.function_index.at("k")];
  ControlFlowGraph g = build_cfg(m, k);
  ASSERT_EQ(g.blocks.size(), 3u);
  EXPECT_EQ(g.blocks[1].end - g.blocks[1].begin, 2u);
  EXPECT_EQ(m.code[k.entry_pc].reconverge_pc, k.entry_pc + 3);
}

TEST(Cfg, EmptyFunction) {
  // An empty body's end is reachable: its one instruction is the guard there.
  Module m = module_with("");
  ASSERT_EQ(kfun(m).end_pc - kfun(m).entry_pc, 1u);
  EXPECT_TRUE(m.code[kfun(m).entry_pc].end_of_body);
  EXPECT_EQ(immediate_post_dominators(m, kfun(m)).size(), 1u);
  ControlFlowGraph g = build_cfg(m, kfun(m));
  EXPECT_EQ(g.blocks.size(), 1u);
}

TEST(Cfg, FallingOffTheEndAndDeadCode) {
  Module m = module_with(
      "@%p1 bra L;\n"           // 0
      "bra.uni M;\n"            // 1
      "add.s32 %r1, %r1, 9;\n"  // 2 unreachable
      "L:\n"
      "add.s32 %r1, %r1, 1;\n"  // 3
      "M:\n"
      "add.s32 %r1, %r1, 2;");  // 4 no ret: runs off the end
  EXPECT_EQ(rpc(m, 0), 4u);
  EXPECT_EQ(ipdoms(m).back(), kNoPc);
}
