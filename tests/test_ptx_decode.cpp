// PTX decode phase (model/ptx/ptx_decode.h): the opcode table, and what
// decode_functions makes of laid-out functions: instructions, register slots,
// branch targets and call sites.
#include <gtest/gtest.h>

#include "tests/ptx_front_end_test_support.h"

using namespace tlmgpu::ptx;
using tlmgpu::ptx::test::FrontEndRun;
using tlmgpu::ptx::test::kPtxHeader;

TEST(PtxDecode, TheOpcodeTableKnowsEveryFamilyByItsBaseName) {
  for (const char* op : {"mov", "add", "mad", "fma", "setp", "selp", "ld", "st", "atom", "red", "bar", "barrier",
                         "shfl", "vote", "bra", "call", "ret", "exit", "tex", "suld", "wmma", "vadd4", "vset",
                         "dp4a", "lop3", "addc", "bmsk", "nanosleep"})
    EXPECT_TRUE(is_decodable_opcode(op)) << op;
  // The table holds base names only: modifiers are the handlers' business.
  for (const char* op : {"", "ld.global", "add.s32", "ADD", "ldu", "mma", "vadd8", "tld"})
    EXPECT_FALSE(is_decodable_opcode(op)) << op;
}

TEST(PtxDecode, InstructionsGetOpcodesSlotsAndResolvedBranches) {
  FrontEndRun run(std::string(kPtxHeader) +
                      ".func (.param .b32 r) inc(.param .b32 x)\n{\n"
                      "  .reg .b32 %a;\n"
                      "  ld.param.b32 %a, [x];\n"
                      "  add.s32 %a, %a, 1;\n"
                      "  st.param.b32 [r], %a;\n"
                      "  ret;\n}\n"
                      ".visible .entry k(.param .u32 n)\n{\n"
                      "  .reg .pred %p;\n"
                      "  .reg .b32 %r<3>;\n"
                      "  .param .b32 arg;\n"
                      "  .param .b32 res;\n"
                      "  ld.param.u32 %r0, [n];\n"
                      "TOP:\n"
                      "  st.param.b32 [arg], %r0;\n"
                      "  call (res), inc, (arg);\n"
                      "  ld.param.b32 %r1, [res];\n"
                      "  setp.lt.s32 %p, %r1, 10;\n"
                      "  @%p bra TOP;\n"
                      "  exit;\n}\n");
  EXPECT_TRUE(run.messages().empty());
  const Function& inc = run.module.functions[run.module.function_index.at("inc")];
  const Function& k = run.module.functions[run.module.function_index.at("k")];
  EXPECT_EQ(inc.entry_pc, 0u);
  EXPECT_EQ(inc.end_pc, 4u);
  EXPECT_EQ(k.entry_pc, 4u);
  EXPECT_EQ(k.end_pc, 11u);
  ASSERT_EQ(run.module.code.size(), 11u);
  EXPECT_EQ(run.module.code[1].op, Opcode::Add);
  EXPECT_EQ(run.module.code[1].type, DataType::S32);
  // The device function owns the low register slots; the kernel's follow.
  EXPECT_EQ(inc.reg_first, 0u);
  EXPECT_EQ(inc.reg_end, 1u);
  EXPECT_EQ(k.reg_first, 1u);
  EXPECT_EQ(k.reg_end, 4u);
  EXPECT_EQ(run.module.code[4].dst.reg, 1u);  // %r0
  const Instruction& bra = run.module.code[9];
  EXPECT_EQ(bra.op, Opcode::Bra);
  EXPECT_EQ(bra.target, 5u);  // TOP
  EXPECT_EQ(bra.guard, k.pred_first);
  EXPECT_EQ(bra.unit, UnitClass::CTRL);
  EXPECT_EQ(run.module.text[9], "@%p bra TOP;");
  // The call site: copies between k's blocks and inc's parameters, and an
  // edge in the call graph (not a cycle).
  const Instruction& call = run.module.code[6];
  EXPECT_EQ(call.op, Opcode::Call);
  ASSERT_EQ(run.module.calls.size(), 1u);
  EXPECT_EQ(call.target, 0u);
  EXPECT_EQ(run.module.calls[0].callee, run.module.function_index.at("inc"));
  EXPECT_EQ(run.module.calls[0].args.at(0).to, uint32_t(run.func_decl("inc", "x").offset));
  EXPECT_EQ(run.module.calls[0].args.at(0).from, uint32_t(run.func_decl("k", "arg").offset));
  EXPECT_EQ(run.calls.calls(), 1u);
}

TEST(PtxDecode, BadInstructionsAreReportedAndTheRestDecoded) {
  FrontEndRun run(std::string(kPtxHeader) +
                      ".visible .entry k()\n{\n"
                      "  .reg .b32 %r;\n"
                      "  frobnicate.b32 %r, %r;\n"
                      "  add.s32 %r, %r, %nope;\n"
                      "  bra NOWHERE;\n"
                      "  mov.b32 %r, 7;\n"
                      "  exit;\n}\n");
  EXPECT_EQ(run.messages(),
            (std::vector<std::string>{
                "7:3: unsupported PTX instruction 'frobnicate.b32'",
                "8:19: unknown register '%nope'",
                "9:7: unknown label 'NOWHERE'",
            }));
  // The bad ones are skipped; bra (its label is checked at the end) and the rest stay.
  ASSERT_EQ(run.module.code.size(), 3u);
  EXPECT_EQ(run.module.code[0].op, Opcode::Bra);
  EXPECT_EQ(run.module.code[1].op, Opcode::Mov);
}
