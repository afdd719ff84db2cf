// PTX syntax phase (model/ptx/ptx_syntax.h): what parse_syntax makes of a
// module's statements before anything is laid out or decoded.
#include <gtest/gtest.h>

#include "tests/ptx_front_end_test_support.h"

using namespace tlmgpu::ptx;
using tlmgpu::ptx::test::FrontEndRun;
using tlmgpu::ptx::test::kPtxHeader;

namespace {

using Upto = FrontEndRun::Upto;

std::vector<ItemKind> kinds(const FuncDef& f) {
  std::vector<ItemKind> out;
  for (const Item& it : f.items) out.push_back(it.kind);
  return out;
}

}  // namespace

TEST(PtxSyntax, ModuleDirectivesVariablesAndFunctionsAreRecognised) {
  FrontEndRun run(std::string(".version 8.1\n.target sm_86, debug\n.address_size 64\n") +
                      ".global .align 8 .u32 table[4] = {1, 2, 3, 4};\n"
                      ".const .f32 scale;\n"
                      ".func (.param .b32 ret) helper(.param .b64 p);\n"
                      ".visible .entry k(.param .u64 a, .param .u32 n) .maxntid 128, 1, 1\n{\n  ret;\n}\n"
                      ".func (.param .b32 ret) helper(.param .b64 p)\n{\n  ret;\n}\n",
                  Upto::Syntax);
  EXPECT_TRUE(run.messages().empty());
  EXPECT_EQ(run.module.version_major, 8u);
  EXPECT_EQ(run.module.version_minor, 1u);
  EXPECT_EQ(run.module.target, "sm_86");
  ASSERT_EQ(run.tree.module_decls.size(), 2u);
  const Decl& table = run.module_decl("table");
  EXPECT_EQ(table.space, StateSpace::Global);
  EXPECT_EQ(table.type, DataType::U32);
  EXPECT_EQ(table.elems, 4u);
  EXPECT_EQ(table.align, 8u);
  ASSERT_EQ(table.init.size(), 4u);
  EXPECT_EQ(table.init[3].bits, 4u);
  EXPECT_EQ(run.module_decl("scale").space, StateSpace::Const);
  // The prototype and the definition of helper are one function, with a body.
  ASSERT_EQ(run.tree.funcs.size(), 2u);
  const FuncDef& helper = run.func("helper");
  EXPECT_TRUE(helper.has_body);
  EXPECT_FALSE(helper.is_entry);
  EXPECT_EQ(helper.params.size(), 1u);
  EXPECT_EQ(helper.rets.size(), 1u);
  const FuncDef& k = run.func("k");
  EXPECT_TRUE(k.is_entry);
  EXPECT_EQ(k.params.size(), 2u);
  EXPECT_TRUE(k.decls[k.params[0]].kernel_param);
  EXPECT_EQ(k.maxntid, (std::array<uint32_t, 3>{{128, 1, 1}}));
}

TEST(PtxSyntax, BodyBecomesItemsWithInstructionTokenRanges) {
  FrontEndRun run(std::string(kPtxHeader) +
                      ".visible .entry k()\n{\n"
                      "  .reg .b32 %r<4>;\n"
                      "LOOP:\n"
                      "  add.s32 %r1, %r2, {%r3};\n"  // braces inside an instruction are its operands'
                      "  {\n  .reg .pred p;\n  }\n"
                      "  .pragma \"nounroll\";\n"
                      "  @%r1 bra LOOP;\n"
                      "}\n",
                  Upto::Syntax);
  const FuncDef& k = run.func("k");
  EXPECT_EQ(kinds(k), (std::vector<ItemKind>{ItemKind::Decl, ItemKind::Label, ItemKind::Instr, ItemKind::Open,
                                             ItemKind::Decl, ItemKind::Close, ItemKind::NoUnroll, ItemKind::Instr}));
  const Item& add = k.items[2];
  EXPECT_EQ(run.lexed.tokens[add.tb].text, "add.s32");
  EXPECT_TRUE(run.lexed.tokens[add.te].is(';'));
  EXPECT_EQ(run.lexed.tokens[k.items[1].tb].text, "LOOP");
  EXPECT_EQ(run.lexed.tokens[k.items[7].tb].text, "@");
  EXPECT_EQ(k.decls[k.items[0].decl].range, 4u);
  EXPECT_EQ(k.decls[k.items[4].decl].type, DataType::Pred);
  EXPECT_EQ(k.pragmas, (std::vector<std::string>{"nounroll"}));
}

TEST(PtxSyntax, CallPrototypeLabelsAreKeptForIndirectCalls) {
  FrontEndRun run(std::string(kPtxHeader) +
                      ".visible .entry k()\n{\n"
                      "proto: .callprototype (.param .b32 _) _ (.param .b64 _);\n"
                      "  ret;\n}\n",
                  Upto::Syntax);
  EXPECT_TRUE(run.messages().empty());
  EXPECT_EQ(run.tree.prototypes.count("proto"), 1u);
  EXPECT_EQ(kinds(run.func("k")), (std::vector<ItemKind>{ItemKind::Instr}));
}

TEST(PtxSyntax, BadStatementsAreLoggedAndSkipped) {
  FrontEndRun run(".target sm_75\n"
                  ".global .u32 a;\n"
                  ".global .u32 a;\n"
                  ".bogus 1;\n"
                  ".visible .entry k()\n{\n  ret;\n}\n",
                  Upto::Syntax);
  EXPECT_EQ(run.messages(), (std::vector<std::string>{
                                "1:1: missing .version directive",
                                "3:14: duplicate declaration of 'a'",
                                "4:1: unsupported syntax: unknown or unsupported directive '.bogus' at module scope",
                            }));
  // The statements after the bad ones are still read.
  EXPECT_EQ(run.tree.module_decls.size(), 1u);
  EXPECT_TRUE(run.func("k").has_body);
}
