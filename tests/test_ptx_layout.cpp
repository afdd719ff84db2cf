// PTX layout phase (model/ptx/ptx_layout.h): where every variable and
// parameter is placed, read straight from lay_out_module's results.
#include <gtest/gtest.h>

#include <cstring>

#include "tests/ptx_front_end_test_support.h"

using namespace tlmgpu::ptx;
using tlmgpu::ptx::test::FrontEndRun;
using tlmgpu::ptx::test::kPtxHeader;

namespace {
using Upto = FrontEndRun::Upto;
}  // namespace

TEST(PtxLayout, ModuleVariablesGetAlignedOffsetsInTheirOwnSpaces) {
  FrontEndRun run(std::string(kPtxHeader) +
                      ".global .u32 a;\n"
                      ".global .align 16 .b8 b[3];\n"
                      ".const .u16 c0;\n"
                      ".const .f32 c1[2] = {1.0, 0f40000000};\n"
                      ".shared .u8 s0;\n"
                      ".shared .u64 s1;\n",
                  Upto::Layout);
  EXPECT_TRUE(run.messages().empty());
  EXPECT_EQ(run.module_decl("a").offset, 0u);
  EXPECT_EQ(run.module_decl("b").offset, 16u);
  EXPECT_EQ(run.module.global_segment_bytes, 19u);
  ASSERT_EQ(run.module.globals.size(), 2u);
  EXPECT_EQ(run.module.globals[1].offset, 16u);
  EXPECT_EQ(run.module_decl("b").global_index, 1);
  EXPECT_EQ(run.module_decl("c1").offset, 4u);
  ASSERT_EQ(run.module.const_bank_bytes, 12u);
  float c1[2];
  std::memcpy(c1, run.module.const_bank.data() + 4, sizeof c1);
  EXPECT_EQ(c1[0], 1.0f);
  EXPECT_EQ(c1[1], 2.0f);
  EXPECT_EQ(run.module_decl("s1").offset, 8u);
  EXPECT_EQ(run.module.static_shared_bytes, 16u);
}

TEST(PtxLayout, KernelParametersFillTheLaunchBufferOthersLiveInLocalMemory) {
  FrontEndRun run(std::string(kPtxHeader) +
                      ".func (.param .b32 r) f(.param .b64 p)\n{\n  .local .b8 buf[5];\n  ret;\n}\n"
                      ".visible .entry k(.param .u32 n, .param .u64 ptr)\n{\n  .param .b64 arg;\n  ret;\n}\n",
                  Upto::Layout);
  EXPECT_TRUE(run.messages().empty());
  ASSERT_EQ(run.module.functions.size(), 2u);
  const Function& f = run.module.functions[run.module.function_index.at("f")];
  const Function& k = run.module.functions[run.module.function_index.at("k")];
  // Kernel parameters: the launch ABI, aligned in the parameter buffer.
  ASSERT_EQ(k.params.size(), 2u);
  EXPECT_EQ(k.params[0].offset, 0u);
  EXPECT_EQ(k.params[1].offset, 8u);
  EXPECT_EQ(k.param_bytes, 16u);
  // f's return value, parameter and .local data, then k's call block: static
  // per-thread local offsets in definition order.
  EXPECT_EQ(run.func_decl("f", "r").offset, 0u);
  EXPECT_EQ(run.func_decl("f", "p").offset, 8u);
  EXPECT_EQ(run.func_decl("f", "buf").offset, 16u);
  EXPECT_EQ(run.func_decl("k", "arg").offset, 24u);
  EXPECT_EQ(f.local_first, 0u);
  EXPECT_EQ(f.local_end, 21u);
  EXPECT_EQ(k.local_first, 21u);
  EXPECT_EQ(run.module.local_bytes_per_thread, 32u);
  ASSERT_EQ(f.param_slots.size(), 1u);
  EXPECT_EQ(f.param_slots[0].to, 8u);
  EXPECT_EQ(run.func("k").module_index, 1);
}

TEST(PtxLayout, KernelsSharedOverlapAndDynamicSharedFollowsTheLargest) {
  FrontEndRun run(std::string(kPtxHeader) +
                      ".extern .shared .align 16 .b8 dyn[];\n"
                      ".shared .u32 common;\n"
                      ".visible .entry k1()\n{\n  .shared .b8 x[100];\n  ret;\n}\n"
                      ".visible .entry k2()\n{\n  .shared .b8 y[40];\n  ret;\n}\n",
                  Upto::Layout);
  EXPECT_TRUE(run.messages().empty());
  EXPECT_EQ(run.module_decl("common").offset, 0u);
  EXPECT_EQ(run.func_decl("k1", "x").offset, 4u);
  EXPECT_EQ(run.func_decl("k2", "y").offset, 4u);
  // 104 bytes for k1, rounded up to the extern array's alignment.
  EXPECT_EQ(run.module.static_shared_bytes, 112u);
  EXPECT_EQ(run.module_decl("dyn").offset, 112u);
  bool found = false;
  for (const ModuleVariable& v : run.module.shareds)
    if (v.name == "dyn") {
      found = true;
      EXPECT_TRUE(v.is_extern);
      EXPECT_EQ(v.offset, 112u);
    }
  EXPECT_TRUE(found);
}

TEST(PtxLayout, AnInitializerOfTheWrongKindIsReported) {
  FrontEndRun run(std::string(kPtxHeader) + ".global .s32 g[2] = {1, 2.5};\n", Upto::Layout);
  EXPECT_EQ(run.messages(), (std::vector<std::string>{"4:14: initializer of 'g' does not match its type .s32"}));
}
