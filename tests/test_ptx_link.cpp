// PTX link phase (model/ptx/ptx_link.h): address initializers and the call
// graph's recursion marking.
#include <gtest/gtest.h>

#include "tests/ptx_front_end_test_support.h"

using namespace tlmgpu::ptx;
using tlmgpu::ptx::test::FrontEndRun;
using tlmgpu::ptx::test::kPtxHeader;

namespace {

using Upto = FrontEndRun::Upto;

uint64_t word_at(const std::vector<uint8_t>& bytes, size_t at) {
  uint64_t w = 0;
  for (unsigned b = 0; b < 8; ++b) w |= uint64_t(bytes.at(at + b)) << (8 * b);
  return w;
}

Module module_of(size_t functions) {
  Module m;
  m.functions.resize(functions);
  return m;
}

std::vector<bool> recursive(const Module& m) {
  std::vector<bool> out;
  for (const Function& f : m.functions) out.push_back(f.recursive);
  return out;
}

}  // namespace

TEST(PtxLink, FunctionAddressesAreWrittenAndGlobalAddressesRecorded) {
  FrontEndRun run(std::string(kPtxHeader) +
                      ".func first()\n{\n  ret;\n}\n"
                      ".func second()\n{\n  ret;\n}\n"
                      ".global .u32 counter;\n"
                      ".global .u64 table[3] = {second, generic(counter), first};\n",
                  Upto::Link);
  EXPECT_TRUE(run.messages().empty());
  const ModuleVariable& table = run.module.globals.at(size_t(run.module_decl("table").global_index));
  ASSERT_EQ(table.init.size(), 24u);
  EXPECT_EQ(word_at(table.init, 0), function_address(run.module.function_index.at("second")));
  EXPECT_EQ(word_at(table.init, 16), function_address(run.module.function_index.at("first")));
  // The loader adds counter's device address to the middle word.
  ASSERT_EQ(table.address_inits.size(), 1u);
  EXPECT_EQ(table.address_inits[0].offset, 8u);
  EXPECT_EQ(table.address_inits[0].global, uint32_t(run.module_decl("counter").global_index));
}

TEST(PtxLink, AddressInitializersOutsideGlobalWordsOrOfUnknownNamesAreReported) {
  FrontEndRun run(std::string(kPtxHeader) +
                      ".func (.param .b32 r) proto_only();\n"
                      ".const .u64 c = {proto_only};\n"
                      ".global .u64 g[2] = {nowhere, proto_only};\n",
                  Upto::Link);
  EXPECT_EQ(run.messages(),
            (std::vector<std::string>{
                "5:18: address of 'proto_only' as initial value needs a 64-bit element of a .global variable",
                "6:22: initial value 'nowhere' is not a function or .global variable of this module",
                "6:31: address of function 'proto_only' which has no body here",
            }));
}

TEST(PtxLink, OnlyFunctionsOnACallCycleAreRecursive) {
  Module m = module_of(5);
  CallGraph g;
  g.add_call(0, 1, {1, 1});  // 0 -> 1 -> 2 -> 1: 1 and 2 on a cycle, 0 reaches it only
  g.add_call(1, 2, {2, 1});
  g.add_call(2, 1, {3, 1});
  g.add_call(3, 3, {4, 1});  // a self-call
  g.add_call(4, 0, {5, 1});
  EXPECT_EQ(g.calls(), 5u);
  g.mark_recursive(m);
  EXPECT_EQ(recursive(m), (std::vector<bool>{false, true, true, true, false}));

  Module chain = module_of(3);
  CallGraph acyclic;
  acyclic.add_call(0, 1, {1, 1});
  acyclic.add_call(1, 2, {2, 1});
  acyclic.add_call(0, 2, {3, 1});
  acyclic.mark_recursive(chain);
  EXPECT_EQ(recursive(chain), (std::vector<bool>{false, false, false}));
}
