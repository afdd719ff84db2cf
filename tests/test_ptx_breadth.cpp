// PTX that real CUDA programs compile to (issue 18): kernels nvcc emitted
// (tests/ptx/breadth/*.cu -> .ptx) run on the device and are compared with a
// CPU reference, in both divergence modes and in timing mode; invalid forms
// of the same instructions give a located parse error.
#include <gtest/gtest.h>

#include <cstdint>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "model/exec/kernel_context.h"
#include "model/ptx/ptx_parser.h"
#include "platform/gpu_device.h"

namespace tlmgpu {
namespace {

using platform::GpuDevice;
using platform::KernelArgs;

std::string read_breadth_ptx(const std::string& name) {
  std::ifstream f(std::string(TLMGPU_SOURCE_DIR) + "/tests/ptx/breadth/" + name);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

struct BreadthCase {
  exec::DivergenceMode divergence;
  platform::SimulationMode mode;
};

class CarryChain : public ::testing::TestWithParam<BreadthCase> {
 protected:
  CarryChain() : dev(options()) { m = dev.load_module(read_breadth_ptx("carry_bits.ptx"), "carry_bits.ptx"); }
  platform::DeviceOptions options() const {
    platform::DeviceOptions o;
    o.divergence = GetParam().divergence;
    o.mode = GetParam().mode;
    return o;
  }
  /// Random words, with every other one at an extreme so that carries and
  /// borrows ripple through whole words.
  template <typename T>
  std::vector<T> words(size_t n, uint32_t seed) {
    std::mt19937_64 rng(seed);
    std::vector<T> v(n);
    for (size_t i = 0; i < n; ++i) {
      const uint64_t r = rng();
      v[i] = (i % 3 == 0) ? T(~T(0)) : (i % 3 == 1) ? T(0) : T(r);
      if (rng() & 1) v[i] = T(r);
    }
    return v;
  }
  static constexpr uint32_t kThreads = 128;
  GpuDevice dev;
  platform::ModuleHandle m;
};

TEST_P(CarryChain, Add128) {
  auto a = words<uint32_t>(4 * kThreads, 1), b = words<uint32_t>(4 * kThreads, 2);
  const uint64_t da = dev.upload(a), db = dev.upload(b), dout = dev.allocate(a.size() * 4);
  dev.launch(m, "add128", {2, 1, 1}, {kThreads / 2, 1, 1}, 0, KernelArgs().ptr(da).ptr(db).ptr(dout));
  const auto out = dev.download<uint32_t>(dout, a.size());
  for (uint32_t t = 0; t < kThreads; ++t) {
    uint64_t carry = 0;
    for (int w = 0; w < 4; ++w) {
      const uint64_t s = uint64_t(a[4 * t + w]) + b[4 * t + w] + carry;
      EXPECT_EQ(out[4 * t + w], uint32_t(s)) << "thread " << t << " word " << w;
      carry = s >> 32;
    }
  }
}

TEST_P(CarryChain, Sub128WithBorrow) {
  auto a = words<uint64_t>(2 * kThreads, 3), b = words<uint64_t>(2 * kThreads, 4);
  const uint64_t da = dev.upload(a), db = dev.upload(b), dout = dev.allocate(a.size() * 8),
                 dborrow = dev.allocate(kThreads * 4);
  dev.launch(m, "sub128", {1, 1, 1}, {kThreads, 1, 1}, 0,
             KernelArgs().ptr(da).ptr(db).ptr(dout).ptr(dborrow));
  const auto out = dev.download<uint64_t>(dout, a.size());
  const auto borrow = dev.download<int32_t>(dborrow, kThreads);
  for (uint32_t t = 0; t < kThreads; ++t) {
    const unsigned __int128 x = (static_cast<unsigned __int128>(a[2 * t + 1]) << 64) | a[2 * t];
    const unsigned __int128 y = (static_cast<unsigned __int128>(b[2 * t + 1]) << 64) | b[2 * t];
    const unsigned __int128 d = x - y;
    EXPECT_EQ(out[2 * t], uint64_t(d)) << "thread " << t;
    EXPECT_EQ(out[2 * t + 1], uint64_t(d >> 64)) << "thread " << t;
    EXPECT_EQ(borrow[t], x < y ? 1 : 0) << "thread " << t;
  }
}

TEST_P(CarryChain, MadLoCcMadcHi) {
  auto a = words<uint32_t>(kThreads, 5), b = words<uint32_t>(kThreads, 6);
  auto c = words<uint64_t>(kThreads, 7);
  const uint64_t da = dev.upload(a), db = dev.upload(b), dc = dev.upload(c), dout = dev.allocate(kThreads * 8);
  dev.launch(m, "mad_wide", {1, 1, 1}, {kThreads, 1, 1}, 0, KernelArgs().ptr(da).ptr(db).ptr(dc).ptr(dout));
  const auto out = dev.download<uint64_t>(dout, kThreads);
  for (uint32_t t = 0; t < kThreads; ++t) {
    // lo = lo(a*b) + lo(c) sets the carry; hi = hi(a*b) + hi(c) + carry: the
    // 64-bit sum a*b + c modulo 2^64.
    EXPECT_EQ(out[t], uint64_t(a[t]) * b[t] + c[t]) << "thread " << t;
  }
}

TEST_P(CarryChain, PerLaneFlagAcrossDivergence) {
  auto a = words<uint32_t>(kThreads, 8), b = words<uint32_t>(kThreads, 9);
  const uint64_t da = dev.upload(a), db = dev.upload(b), dout = dev.allocate(kThreads * 8);
  dev.launch(m, "carry_diverge", {1, 1, 1}, {kThreads, 1, 1}, 0, KernelArgs().ptr(da).ptr(db).ptr(dout));
  const auto out = dev.download<uint32_t>(dout, 2 * kThreads);
  for (uint32_t t = 0; t < kThreads; ++t) {
    if (t & 1) {
      const uint64_t s = uint64_t(a[t]) + b[t];
      EXPECT_EQ(out[2 * t], uint32_t(s)) << "thread " << t;
      EXPECT_EQ(out[2 * t + 1], uint32_t(s >> 32)) << "thread " << t;
    } else {
      EXPECT_EQ(out[2 * t], a[t] - b[t]) << "thread " << t;
      EXPECT_EQ(out[2 * t + 1], a[t] < b[t] ? 0xffffffffu : 0u) << "thread " << t;  // subc 0, 0: 0 - CF
    }
  }
}

INSTANTIATE_TEST_SUITE_P(
    Modes, CarryChain,
    ::testing::Values(BreadthCase{exec::DivergenceMode::Ipdom, platform::SimulationMode::Functional},
                      BreadthCase{exec::DivergenceMode::Its, platform::SimulationMode::Functional},
                      BreadthCase{exec::DivergenceMode::Ipdom, platform::SimulationMode::Timing}),
    [](const ::testing::TestParamInfo<BreadthCase>& param_info) {
      std::string name = param_info.param.divergence == exec::DivergenceMode::Its ? "Its" : "Ipdom";
      return name + (param_info.param.mode == platform::SimulationMode::Timing ? "Timing" : "Functional");
    });

// ------------------------------------------------------------ parse errors

std::string carry_kernel(const std::string& body) {
  return ".version 8.0\n.target sm_75\n.address_size 64\n"
         ".visible .entry k()\n{\n  .reg .b32 %r<4>;\n  .reg .b64 %rd<4>;\n" + body + "  ret;\n}\n";
}

std::string parse_error(const std::string& body) {
  try {
    ptx::parse_ptx(carry_kernel(body), "c.ptx");
  } catch (const ptx::PtxError& e) {
    return e.what();
  }
  return "no error";
}

TEST(CarryChainParse, AcceptsTheIsaForms) {
  const ptx::Module mod = ptx::parse_ptx(carry_kernel(
      "  add.cc.u32 %r1, %r2, %r3;\n  addc.cc.s32 %r1, %r2, 1;\n  addc.u64 %rd1, %rd2, %rd3;\n"
      "  sub.cc.s64 %rd1, %rd2, %rd3;\n  subc.u32 %r1, 0, 0;\n  mad.hi.cc.s32 %r1, %r2, %r3, %r1;\n"
      "  madc.lo.cc.u64 %rd1, %rd2, %rd3, %rd1;\n  madc.hi.u32 %r1, %r2, %r3, %r1;\n"),
      "c.ptx");
  ASSERT_GE(mod.code.size(), 8u);
  EXPECT_EQ(mod.code[0].op, ptx::Opcode::AddCarry);
  EXPECT_TRUE(mod.code[0].carry_out);
  EXPECT_FALSE(mod.code[0].carry_in);
  EXPECT_EQ(mod.code[2].op, ptx::Opcode::AddCarry);
  EXPECT_TRUE(mod.code[2].carry_in);
  EXPECT_FALSE(mod.code[2].carry_out);
  EXPECT_EQ(mod.code[4].op, ptx::Opcode::SubCarry);
  EXPECT_EQ(mod.code[7].op, ptx::Opcode::MadCarry);
  EXPECT_EQ(mod.code[7].mul, ptx::MulMode::Hi);
  for (size_t i = 0; i < 8; ++i) EXPECT_EQ(mod.code[i].unit, ptx::UnitClass::SP) << i;
}

TEST(CarryChainParse, InvalidFormsAreLocated) {
  // Line 8 of carry_kernel is the first body line.
  EXPECT_NE(parse_error("  addc.f32 %r1, %r2, %r3;\n").find("c.ptx:8:"), std::string::npos);
  EXPECT_NE(parse_error("  addc.f32 %r1, %r2, %r3;\n").find("f32"), std::string::npos);
  EXPECT_NE(parse_error("  add.cc.u16 %r1, %r2, %r3;\n").find("c.ptx:8:"), std::string::npos);
  EXPECT_NE(parse_error("  subc.u32 %r1, %r2;\n").find("c.ptx:8:"), std::string::npos);
  EXPECT_NE(parse_error("  madc.u32 %r1, %r2, %r3, %r1;\n").find("needs .lo or .hi"), std::string::npos);
  EXPECT_NE(parse_error("  madc.wide.u32 %rd1, %r2, %r3, %rd1;\n").find("c.ptx:8:"), std::string::npos);
}

// mov.pred with an integer immediate (nvcc emits 'mov.pred %p1, 0;' for a
// constant-false condition and -1 for true): any non-zero value sets the predicate.
TEST(MovPredImmediateAndNanosleep, SetsAndClearsThePredicate) {
  GpuDevice dev;
  auto mod = dev.load_module(std::string(".version 8.0\n.target sm_75\n.address_size 64\n") + R"(
.visible .entry k(.param .u64 out)
{
  .reg .pred %p<5>; .reg .b32 %r<5>; .reg .b64 %rd<2>;
  ld.param.u64 %rd1, [out];
  mov.pred %p1, 1;
  mov.pred %p2, 0;
  mov.pred %p3, -1;
  mov.pred %p4, 2;
  nanosleep.u32 100;
  nanosleep.u32 %r1;
  selp.u32 %r1, 7, 9, %p1;
  selp.u32 %r2, 7, 9, %p2;
  selp.u32 %r3, 7, 9, %p3;
  selp.u32 %r4, 7, 9, %p4;
  st.global.u32 [%rd1], %r1;
  st.global.u32 [%rd1+4], %r2;
  st.global.u32 [%rd1+8], %r3;
  st.global.u32 [%rd1+12], %r4;
  ret;
}
)", "movpred.ptx");
  const uint64_t out = dev.allocate(16);
  dev.launch(mod, "k", {1, 1, 1}, {1, 1, 1}, 0, KernelArgs().ptr(out));
  const auto v = dev.download<uint32_t>(out, 4);
  EXPECT_EQ(v[0], 7u);
  EXPECT_EQ(v[1], 9u);
  EXPECT_EQ(v[2], 7u);  // -1: nvcc's true
  EXPECT_EQ(v[3], 7u);
}

// A .noreturn function whose body ends with a label, as nvcc emits one whose
// last path is __builtin_unreachable(); the kernel ends with the call.
constexpr const char* kNoReturnEndingInALabel = R"(
.func finish(.param .b64 finish_p, .param .b32 finish_v)
.noreturn
{
  .reg .pred %p<2>; .reg .b32 %r<2>; .reg .b64 %rd<2>;
  ld.param.u64 %rd1, [finish_p];
  ld.param.u32 %r1, [finish_v];
  setp.lt.s32 %p1, %r1, 6;
  @%p1 bra $L__end;
  st.global.u32 [%rd1], %r1;
  exit;
$L__end:
}
.visible .entry k(.param .u64 out, .param .u32 v)
{
  .reg .b32 %r<2>; .reg .b64 %rd<2>;
  ld.param.u64 %rd1, [out];
  ld.param.u32 %r1, [v];
  {
  .param .b64 param0;
  st.param.b64 [param0+0], %rd1;
  .param .b32 param1;
  st.param.b32 [param1+0], %r1;
  call.uni finish, (param0, param1);
  }
}
)";

TEST(NoReturnFunction, EndingInALabelRunsWhenNothingFallsOffTheEnd) {
  for (auto mode : {platform::SimulationMode::Functional, platform::SimulationMode::Timing}) {
    platform::DeviceOptions o;
    o.mode = mode;
    GpuDevice dev(o);
    auto mod = dev.load_module(std::string(".version 8.0\n.target sm_75\n.address_size 64\n") +
                                   kNoReturnEndingInALabel, "noreturn.ptx");
    const uint64_t out = dev.allocate(4);
    dev.launch(mod, "k", {1, 1, 1}, {32, 1, 1}, 0, KernelArgs().ptr(out).add<int32_t>(7));
    EXPECT_EQ(dev.download<uint32_t>(out, 1)[0], 7u);
    try {
      dev.launch(mod, "k", {1, 1, 1}, {32, 1, 1}, 0, KernelArgs().ptr(out).add<int32_t>(3));
      ADD_FAILURE() << "running off the end of 'finish' did not fault";
    } catch (const exec::DeviceFault& f) {
      EXPECT_EQ(f.kind(), exec::FaultKind::Trap);
      EXPECT_NE(std::string(f.what()).find("ran off the end of 'finish'"), std::string::npos) << f.what();
    }
  }
}

TEST(CarryChainParse, NanosleepNeedsU32) {
  EXPECT_NE(parse_error("  nanosleep.u64 %rd1;\n").find("c.ptx:8:"), std::string::npos);
  EXPECT_EQ(parse_error("  nanosleep.u32 %r1;\n"), "no error");
}

}  // namespace
}  // namespace tlmgpu
