// Functional semantics of the PTX data instructions, end to end: each case is
// a tiny kernel run through the host API, checked against hand-computed
// results (edge cases of the PTX ISA: division by zero, shifts past the
// width, NaN ordering, cvt rounding and saturation, atomics, warp shuffles).
#include <gtest/gtest.h>

#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "core/int_ops.h"
#include "model/exec/kernel_context.h"
#include "platform/gpu_device.h"

namespace tlmgpu {
namespace {

using platform::GpuDevice;
using platform::KernelArgs;

TEST(IntOps, GatherBitsPacksTheMaskedBitsInOrder) {
  // (The SM turns its per-slot wait masks into view positions with it.)
  EXPECT_EQ(core::intops::gather_bits(0b1011'0110, 0b1111'0000), 0b1011u);
  EXPECT_EQ(core::intops::gather_bits(~uint64_t(0), 0), 0u);
  EXPECT_EQ(core::intops::gather_bits(uint64_t(1) << 63, uint64_t(1) << 63 | 1), 0b10u);
  std::mt19937_64 rng(3);
  for (int i = 0; i < 10000; ++i) {
    const uint64_t x = rng(), mask = rng() & rng();
    uint64_t expected = 0;
    uint32_t out = 0;
    for (uint32_t b = 0; b < 64; ++b)
      if (mask >> b & 1) expected |= (x >> b & 1) << out++;
    ASSERT_EQ(core::intops::gather_bits(x, mask), expected) << x << " " << mask;
  }
}

const char* kHeader = ".version 8.0\n.target sm_75\n.address_size 64\n";

uint64_t fb(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}
uint64_t db(double d) {
  uint64_t u;
  std::memcpy(&u, &d, 8);
  return u;
}
/// PTX float literals: 0fXXXXXXXX / 0dXXXXXXXXXXXXXXXX.
std::string F(float f) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "0f%08" PRIX32, uint32_t(fb(f)));
  return buf;
}
std::string D(double d) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0d%016" PRIX64, db(d));
  return buf;
}
std::string hexs(uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%" PRIx64, v);
  return buf;
}
std::vector<uint64_t> per_lane(const std::function<uint64_t(unsigned)>& f) {
  std::vector<uint64_t> v(32);
  for (unsigned l = 0; l < 32; ++l) v[l] = f(l);
  return v;
}

constexpr uint64_t kNaN32 = 0x7fc00000u;
constexpr uint64_t kM1_32 = 0xffffffffu;     // -1 as a zero-extended 32-bit value
constexpr uint64_t kM1_64 = ~0ull;

// ------------------------------------------------------------------ ALU table

/// Where a case leaves its result.
enum class Out { R32, R64, F32, F64, H16 };

struct AluCase {
  std::string name;
  std::string body;                 // PTX using the registers of alu_kernel()
  Out out;
  std::vector<uint64_t> expect;     // one value for every lane, or 32
  std::vector<uint64_t> in = {};    // per-lane input (one value: every lane)
};

void PrintTo(const AluCase& c, std::ostream* os) { *os << c.name; }

/// Kernel frame: lane input in %rd25 (and %r25 / %f25 / %fd25 / %rs25 as its
/// low bits), %r1 = %tid.x; the body leaves its result in %r31 / %rd31 /
/// %f31 / %fd31 / %rs31 per the case's Out.
std::string alu_kernel(const std::string& body, Out out) {
  std::string epilogue;
  switch (out) {
    case Out::R32: epilogue = "cvt.u64.u32 %rd31, %r31;"; break;
    case Out::R64: break;
    case Out::F32: epilogue = "mov.b32 %r31, %f31; cvt.u64.u32 %rd31, %r31;"; break;
    case Out::F64: epilogue = "mov.b64 %rd31, %fd31;"; break;
    case Out::H16: epilogue = "cvt.u64.u16 %rd31, %rs31;"; break;
  }
  return std::string(kHeader) + R"(
.visible .entry k(.param .u64 out, .param .u64 in)
{
  .reg .pred %p<8>;
  .reg .b16 %rs<32>;
  .reg .b32 %r<32>;
  .reg .b64 %rd<32>;
  .reg .f32 %f<32>;
  .reg .f64 %fd<32>;
  ld.param.u64 %rd20, [out];
  ld.param.u64 %rd21, [in];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd22, %r1, 8;
  add.s64 %rd23, %rd20, %rd22;
  add.s64 %rd24, %rd21, %rd22;
  ld.global.u64 %rd25, [%rd24];
  cvt.u32.u64 %r25, %rd25;
  mov.b32 %f25, %r25;
  mov.b64 %fd25, %rd25;
  cvt.u16.u32 %rs25, %r25;
  mov.u32 %r31, 0;
  mov.u64 %rd31, 0;
  mov.f32 %f31, 0f00000000;
  mov.f64 %fd31, 0d0000000000000000;
  mov.u16 %rs31, 0;
)" + body + "\n  " + epilogue + R"(
  st.global.u64 [%rd23], %rd31;
  ret;
}
)";
}

std::vector<uint64_t> run_alu(const AluCase& c) {
  GpuDevice dev;
  auto m = dev.load_module(alu_kernel(c.body, c.out), c.name + ".ptx");
  std::vector<uint64_t> in(32, 0);
  for (unsigned l = 0; l < 32; ++l) in[l] = c.in.empty() ? 0 : c.in.size() == 1 ? c.in[0] : c.in[l];
  uint64_t din = dev.upload(in, "in");
  uint64_t dout = dev.allocate(32 * 8, "out");
  dev.launch(m, "k", {1, 1, 1}, {32, 1, 1}, 0, KernelArgs().ptr(dout).ptr(din));
  return dev.download<uint64_t>(dout, 32);
}

class SemanticsAlu : public ::testing::TestWithParam<AluCase> {};

TEST_P(SemanticsAlu, Case) {
  const AluCase& c = GetParam();
  std::vector<uint64_t> got;
  try {
    got = run_alu(c);
  } catch (const std::exception& e) {
    FAIL() << c.name << ": " << e.what() << "\n" << c.body;
  }
  for (unsigned l = 0; l < 32; ++l) {
    const uint64_t want = c.expect.size() == 1 ? c.expect[0] : c.expect[l];
    ASSERT_EQ(hexs(got[l]), hexs(want)) << c.name << " lane " << l << "\n" << c.body;
  }
}

std::vector<AluCase> integer_cases() {
  const uint64_t kIntMin = 0x80000000u;
  return {
      // division and remainder, including by zero and MIN / -1
      {"div_u32", "div.u32 %r31, %r25, 7;", Out::R32, {6}, {45}},
      {"div_u32_by_zero", "div.u32 %r31, %r25, 0;", Out::R32, {kM1_32}, {45}},
      {"rem_u32_by_zero", "rem.u32 %r31, %r25, 0;", Out::R32, {45}, {45}},
      {"div_s32_negative", "div.s32 %r31, %r25, 2;", Out::R32, {uint32_t(-3)}, {uint32_t(-7)}},
      {"rem_s32_negative", "rem.s32 %r31, %r25, 2;", Out::R32, {uint32_t(-1)}, {uint32_t(-7)}},
      {"div_s32_by_zero", "div.s32 %r31, %r25, 0;", Out::R32, {kM1_32}, {12}},
      {"rem_s32_by_zero", "rem.s32 %r31, %r25, 0;", Out::R32, {uint32_t(-12)}, {uint32_t(-12)}},
      {"div_s32_min_by_minus1", "div.s32 %r31, %r25, -1;", Out::R32, {kIntMin}, {kIntMin}},
      {"rem_s32_min_by_minus1", "rem.s32 %r31, %r25, -1;", Out::R32, {0}, {kIntMin}},
      {"div_s64_min_by_minus1", "mov.u64 %rd2, -1; div.s64 %rd31, %rd25, %rd2;", Out::R64, {1ull << 63}, {1ull << 63}},
      {"div_u64_by_zero", "div.u64 %rd31, %rd25, 0;", Out::R64, {kM1_64}, {99}},
      {"rem_u64", "rem.u64 %rd31, %rd25, 1000;", Out::R64, {0x123456789ull % 1000}, {0x123456789ull}},
      {"div_per_lane", "div.u32 %r31, 100, %r25;", Out::R32,
       per_lane([](unsigned l) { return l == 0 ? kM1_32 : 100u / l; }), per_lane([](unsigned l) { return l; })},
      // add / sub with saturation and wraparound
      {"add_s32_wraps", "add.s32 %r31, %r25, 1;", Out::R32, {kIntMin}, {0x7fffffffu}},
      {"add_sat_s32", "add.sat.s32 %r31, %r25, 1;", Out::R32, {0x7fffffffu}, {0x7fffffffu}},
      {"sub_sat_s32", "sub.sat.s32 %r31, %r25, 1;", Out::R32, {kIntMin}, {kIntMin}},
      {"add_u64_carry", "add.u64 %rd31, %rd25, 1;", Out::R64, {0x100000000ull}, {0xffffffffull}},
      {"sub_s16", "sub.s16 %rs31, %rs25, 3;", Out::H16, {0xffffu}, {2}},
      // multiplies
      {"mul_lo_s32", "mul.lo.s32 %r31, %r25, -3;", Out::R32, {uint32_t(-21)}, {7}},
      {"mul_hi_u32", "mul.hi.u32 %r31, %r25, %r25;", Out::R32, {0xfffffffeu}, {0xffffffffu}},
      {"mul_hi_s32", "mul.hi.s32 %r31, %r25, 3;", Out::R32, {kM1_32}, {uint32_t(-2)}},
      {"mul_wide_s32", "mul.wide.s32 %rd31, %r25, 2147483647;", Out::R64, {0xffffffff00000002ull}, {uint32_t(-2)}},
      {"mul_wide_u32", "mul.wide.u32 %rd31, %r25, %r25;", Out::R64, {0xfffffffe00000001ull}, {0xffffffffu}},
      {"mul_wide_u16", "mul.wide.u16 %r31, %rs25, %rs25;", Out::R32, {0xfffe0001u}, {0xffffu}},
      {"mul_hi_u64", "mov.u64 %rd2, 0x123456789; mul.hi.u64 %rd31, %rd25, %rd2;", Out::R64, {0x123456788ull}, {kM1_64}},
      {"mul_hi_s64", "mul.hi.s64 %rd31, %rd25, 5;", Out::R64, {kM1_64}, {kM1_64}},
      {"mul_lo_u64", "mul.lo.u64 %rd31, %rd25, 3;", Out::R64, {0x300000003ull}, {0x100000001ull}},
      {"mad_lo_s32", "mad.lo.s32 %r31, %r25, 3, -10;", Out::R32, {11}, {7}},
      {"mad_wide_u32", "mad.wide.u32 %rd31, %r25, 2, %rd25;", Out::R64, {0x2fffffffdull}, {0xffffffffu}},
      {"mad_hi_sat_s32", "mad.hi.sat.s32 %r31, %r25, %r25, 2147483647;", Out::R32, {0x7fffffffu}, {0x40000000u}},
      {"mul24_lo_u32", "mul24.lo.u32 %r31, %r25, 3;", Out::R32, {0x2fffffdu}, {0xffffffffu}},
      {"mul24_hi_u32", "mul24.hi.u32 %r31, %r25, 3;", Out::R32, {0x2ffu}, {0x00ffffffu}},
      {"mul24_hi_s32", "mul24.hi.s32 %r31, %r25, 256;", Out::R32, {0xffff8000u}, {0x00800000u}},
      {"mad24_lo_s32", "mad24.lo.s32 %r31, %r25, 2, 5;", Out::R32, {uint32_t(-1)}, {0x00fffffdu}},
      // shifts at and past the width
      {"shl_b32_31", "shl.b32 %r31, %r25, 31;", Out::R32, {0x80000000u}, {1}},
      {"shl_b32_32", "shl.b32 %r31, %r25, 32;", Out::R32, {0}, {1}},
      {"shl_b32_33", "shl.b32 %r31, %r25, 33;", Out::R32, {0}, {1}},
      {"shr_u32_32", "shr.u32 %r31, %r25, 32;", Out::R32, {0}, {0x80000000u}},
      {"shr_u32_33", "shr.u32 %r31, %r25, 33;", Out::R32, {0}, {0x80000000u}},
      {"shr_s32_32_negative", "shr.s32 %r31, %r25, 32;", Out::R32, {kM1_32}, {0x80000000u}},
      {"shr_s32_33_negative", "shr.s32 %r31, %r25, 33;", Out::R32, {kM1_32}, {0x80000000u}},
      {"shr_s32_64_positive", "shr.s32 %r31, %r25, 64;", Out::R32, {0}, {0x7fffffffu}},
      {"shr_s32_huge_amount", "mov.u32 %r2, 0xffffffff; shr.s32 %r31, %r25, %r2;", Out::R32, {kM1_32}, {0x80000001u}},
      {"shl_b64_63", "shl.b64 %rd31, %rd25, 63;", Out::R64, {1ull << 63}, {1}},
      {"shl_b64_64", "shl.b64 %rd31, %rd25, 64;", Out::R64, {0}, {1}},
      {"shr_u64_64", "shr.u64 %rd31, %rd25, 64;", Out::R64, {0}, {kM1_64}},
      {"shr_s64_64", "shr.s64 %rd31, %rd25, 64;", Out::R64, {kM1_64}, {1ull << 63}},
      {"shr_b16", "shr.b16 %rs31, %rs25, 4;", Out::H16, {0x0fffu}, {0xffffu}},
      {"shl_per_lane", "shl.b32 %r31, 1, %r25;", Out::R32, per_lane([](unsigned l) { return uint64_t(1u << l); }),
       per_lane([](unsigned l) { return l; })},
      // logic
      {"and_or_xor_b32", "and.b32 %r2, %r25, 0xff00ff00; or.b32 %r3, %r2, 0x0f; xor.b32 %r31, %r3, 0xffffffff;",
       Out::R32, {0xedffa9f0u}, {0x12345678u}},
      {"not_b64", "not.b64 %rd31, %rd25;", Out::R64, {0xfffffffe00000000ull}, {0x1ffffffffull}},
      {"cnot_b32", "cnot.b32 %r2, %r25; cnot.b32 %r3, %r2; shl.b32 %r3, %r3, 4; or.b32 %r31, %r2, %r3;", Out::R32,
       per_lane([](unsigned l) { return l == 0 ? 1u : 0x10u; }), per_lane([](unsigned l) { return l; })},
      // abs neg min max
      {"abs_s32_min", "abs.s32 %r31, %r25;", Out::R32, {kIntMin}, {kIntMin}},
      {"abs_s32", "abs.s32 %r31, %r25;", Out::R32, {5}, {uint32_t(-5)}},
      {"neg_s64", "neg.s64 %rd31, %rd25;", Out::R64, {kM1_64}, {1}},
      {"min_s32", "min.s32 %r31, %r25, 3;", Out::R32, {uint32_t(-5)}, {uint32_t(-5)}},
      {"min_u32", "min.u32 %r31, %r25, 3;", Out::R32, {3}, {uint32_t(-5)}},
      {"max_s64", "max.s64 %rd31, %rd25, -7;", Out::R64, {uint64_t(-7)}, {uint64_t(-9)}},
      {"max_u16", "max.u16 %rs31, %rs25, 3;", Out::H16, {0xfffbu}, {0xfffbu}},
      // bit counting and reversal
      {"popc_b32", "popc.b32 %r31, %r25;", Out::R32, {17}, {0xf0f0f0f1u}},
      {"popc_b64", "popc.b64 %r31, %rd25;", Out::R32, {33}, {0xffffffff00000001ull}},
      {"clz_b32_zero", "clz.b32 %r31, %r25;", Out::R32, {32}, {0}},
      {"clz_b32", "clz.b32 %r31, %r25;", Out::R32, {15}, {0x10000u}},
      {"clz_b64", "clz.b64 %r31, %rd25;", Out::R32, {31}, {0x100000000ull}},
      {"brev_b32", "brev.b32 %r31, %r25;", Out::R32, {0x1e6a2c48u}, {0x12345678u}},
      {"brev_b64", "brev.b64 %rd31, %rd25;", Out::R64, {0x8000000000000000ull}, {1}},
      // bit fields
      {"bfe_u32", "bfe.u32 %r31, %r25, 8, 4;", Out::R32, {0xfu}, {0x00000f00u}},
      {"bfe_s32_sign_extends", "bfe.s32 %r31, %r25, 8, 4;", Out::R32, {kM1_32}, {0x00000f00u}},
      {"bfe_s32_positive_field", "bfe.s32 %r31, %r25, 8, 5;", Out::R32, {0xfu}, {0x00000f00u}},
      {"bfe_s32_len_zero", "bfe.s32 %r31, %r25, 8, 0;", Out::R32, {0}, {0xffffffffu}},
      {"bfe_s32_pos_beyond_msb", "bfe.s32 %r31, %r25, 40, 4;", Out::R32, {kM1_32}, {0x80000000u}},
      {"bfe_u32_pos_beyond_msb", "bfe.u32 %r31, %r25, 40, 4;", Out::R32, {0}, {0x80000000u}},
      {"bfe_s32_field_past_msb", "bfe.s32 %r31, %r25, 28, 8;", Out::R32, {0xfffffff8u}, {0x80000000u}},
      {"bfe_u64", "bfe.u64 %rd31, %rd25, 60, 8;", Out::R64, {0xau}, {0xa000000000000000ull}},
      {"bfe_s64", "bfe.s64 %rd31, %rd25, 32, 8;", Out::R64, {uint64_t(-128)}, {0x0000008000000000ull}},
      {"bfe_len_uses_low_8_bits", "bfe.u32 %r31, %r25, 0x104, 0x102;", Out::R32, {0x3u}, {0xf0u | 0x30u}},
      {"bfi_b32", "bfi.b32 %r31, %r25, 0xffffffff, 8, 4;", Out::R32, {0xfffff5ffu}, {0x5u}},
      {"bfi_b32_past_msb", "bfi.b32 %r31, %r25, 0, 30, 8;", Out::R32, {0xc0000000u}, {0xffu}},
      {"bfi_b32_len_zero", "bfi.b32 %r31, %r25, 0x1234, 0, 0;", Out::R32, {0x1234u}, {0xffu}},
      {"bfind_u32", "bfind.u32 %r31, %r25;", Out::R32, {16}, {0x00010000u}},
      {"bfind_u32_zero", "bfind.u32 %r31, %r25;", Out::R32, {kM1_32}, {0}},
      {"bfind_shiftamt_u32", "bfind.shiftamt.u32 %r31, %r25;", Out::R32, {15}, {0x00010000u}},
      {"bfind_s32_minus1", "bfind.s32 %r31, %r25;", Out::R32, {kM1_32}, {kM1_32}},
      {"bfind_s32_negative", "bfind.s32 %r31, %r25;", Out::R32, {15}, {0xffff0000u}},
      {"bfind_s64", "bfind.s64 %r31, %rd25;", Out::R32, {40}, {0x0000010000000000ull}},
      // permutes and funnel shifts
      {"prmt_reverse", "prmt.b32 %r31, %r25, 0x44332211, 0x0123;", Out::R32, {0x01ff7788u}, {0x8877ff01u}},
      {"prmt_sign_replicate", "prmt.b32 %r31, %r25, 0x44332211, 0x89ab;", Out::R32, {0x00ff00ffu}, {0x8877ff01u}},
      {"prmt_from_b", "prmt.b32 %r31, %r25, 0x44332211, 0x7654;", Out::R32, {0x44332211u}, {0x8877ff01u}},
      {"shf_l_wrap", "shf.l.wrap.b32 %r31, %r25, 0x01234567, 8;", Out::R32, {0x23456789u}, {0x89abcdefu}},
      {"shf_r_wrap_40", "shf.r.wrap.b32 %r31, %r25, 0x01234567, 40;", Out::R32, {0x6789abcdu}, {0x89abcdefu}},
      {"shf_r_clamp_40", "shf.r.clamp.b32 %r31, %r25, 0x01234567, 40;", Out::R32, {0x01234567u}, {0x89abcdefu}},
      {"shf_l_clamp_32", "shf.l.clamp.b32 %r31, %r25, 0x01234567, 32;", Out::R32, {0x89abcdefu}, {0x89abcdefu}},
      // compare, select
      {"setp_lt_s32_signed", "setp.lt.s32 %p1, %r25, 1; selp.u32 %r31, 1, 0, %p1;", Out::R32, {1}, {kM1_32}},
      {"setp_lo_u32_unsigned", "setp.lo.u32 %p1, %r25, 1; selp.u32 %r31, 1, 0, %p1;", Out::R32, {0}, {kM1_32}},
      {"setp_hs_hi_ls", "setp.hs.u32 %p1, %r25, 5; setp.hi.u32 %p2, %r25, 5; setp.ls.u32 %p3, %r25, 5;"
       "selp.u32 %r2, 1, 0, %p1; selp.u32 %r3, 2, 0, %p2; selp.u32 %r4, 4, 0, %p3; or.b32 %r5, %r2, %r3; or.b32 %r31, %r5, %r4;",
       Out::R32, per_lane([](unsigned l) { return uint64_t((l >= 5 ? 1 : 0) | (l > 5 ? 2 : 0) | (l <= 5 ? 4 : 0)); }),
       per_lane([](unsigned l) { return l; })},
      {"setp_s64", "setp.gt.s64 %p1, %rd25, 0; selp.u32 %r31, 1, 0, %p1;", Out::R32, {0}, {1ull << 63}},
      {"setp_two_destinations",
       "setp.lt.s32 %p1|%p2, %r25, 16; selp.u32 %r2, 1, 0, %p1; selp.u32 %r3, 2, 0, %p2; or.b32 %r31, %r2, %r3;",
       Out::R32, per_lane([](unsigned l) { return uint64_t(l < 16 ? 1 : 2); }), per_lane([](unsigned l) { return l; })},
      {"setp_and_with_predicate",
       "setp.ge.u32 %p3, %r25, 8; setp.lt.and.u32 %p1|%p2, %r25, 16, %p3;"
       "selp.u32 %r2, 1, 0, %p1; selp.u32 %r3, 2, 0, %p2; or.b32 %r31, %r2, %r3;",
       Out::R32, per_lane([](unsigned l) { return uint64_t((l < 16 && l >= 8 ? 1 : 0) | (l >= 16 ? 2 : 0)); }),
       per_lane([](unsigned l) { return l; })},
      {"setp_or_negated_predicate",
       "setp.ge.u32 %p3, %r25, 8; setp.eq.or.u32 %p1, %r25, 20, !%p3; selp.u32 %r31, 1, 0, %p1;", Out::R32,
       per_lane([](unsigned l) { return uint64_t(l == 20 || l < 8); }), per_lane([](unsigned l) { return l; })},
      {"setp_xor", "setp.ge.u32 %p3, %r25, 8; setp.lt.xor.u32 %p1, %r25, 16, %p3; selp.u32 %r31, 1, 0, %p1;", Out::R32,
       per_lane([](unsigned l) { return uint64_t((l < 16) != (l >= 8)); }), per_lane([](unsigned l) { return l; })},
      {"pred_logic",
       "setp.ge.u32 %p1, %r25, 8; setp.lt.u32 %p2, %r25, 16; and.pred %p3, %p1, %p2; or.pred %p4, %p1, %p2;"
       "xor.pred %p5, %p1, %p2; not.pred %p6, %p3; selp.u32 %r2, 1, 0, %p3; selp.u32 %r3, 2, 0, %p4;"
       "selp.u32 %r4, 4, 0, %p5; selp.u32 %r5, 8, 0, %p6; or.b32 %r2, %r2, %r3; or.b32 %r4, %r4, %r5; or.b32 %r31, %r2, %r4;",
       Out::R32,
       per_lane([](unsigned l) {
         const bool a = l >= 8, b = l < 16;
         return uint64_t((a && b) | ((a || b) << 1) | ((a != b) << 2) | (!(a && b) << 3));
       }),
       per_lane([](unsigned l) { return l; })},
      {"mov_pred", "setp.eq.u32 %p1, %r25, 3; mov.pred %p2, %p1; selp.u32 %r31, 7, 9, %p2;", Out::R32,
       per_lane([](unsigned l) { return uint64_t(l == 3 ? 7 : 9); }), per_lane([](unsigned l) { return l; })},
      {"selp_negated", "setp.eq.u32 %p1, %r25, 3; selp.u32 %r31, 7, 9, !%p1;", Out::R32,
       per_lane([](unsigned l) { return uint64_t(l == 3 ? 9 : 7); }), per_lane([](unsigned l) { return l; })},
      {"selp_u64", "setp.ne.u32 %p1, %r25, 0; selp.b64 %rd31, %rd25, -1, %p1;", Out::R64,
       per_lane([](unsigned l) { return l == 0 ? kM1_64 : uint64_t(l); }), per_lane([](unsigned l) { return l; })},
      {"set_u32", "set.lt.u32.s32 %r31, %r25, 0;", Out::R32, {kM1_32}, {uint32_t(-3)}},
      {"set_f32", "set.gt.f32.s32 %f31, %r25, 0;", Out::F32, {0}, {uint32_t(-3)}},
      {"slct_f32_selector", "slct.u32.f32 %r31, 11, 22, %f25;", Out::R32,
       per_lane([](unsigned l) { return uint64_t(l % 4 == 0 || l % 4 == 1 ? 11 : 22); }),
       per_lane([](unsigned l) { return l % 4 == 0 ? fb(-0.0f) : l % 4 == 1 ? fb(3.0f) : l % 4 == 2 ? fb(-1.0f) : kNaN32; })},
      {"set_unordered_nan", "set.ltu.u32.f32 %r31, %f25, 0f3F800000;", Out::R32, {kM1_32}, {kNaN32}},
      {"set_and_predicate", "setp.eq.u32 %p1, %r1, 4; set.lt.and.u32.s32 %r31, %r25, 10, %p1;", Out::R32,
       per_lane([](unsigned l) { return l == 4 ? kM1_32 : 0; }), {3}},
      {"setp_f16", "mov.b16 %rs2, 0x3c00; setp.lt.f16 %p1, %rs25, %rs2; selp.u32 %r31, 1, 0, %p1;", Out::R32,
       per_lane([](unsigned l) { return uint64_t(l < 16); }),
       per_lane([](unsigned l) { return uint64_t(l < 16 ? 0x3800u : 0x4000u); })},
      {"bfi_b64", "bfi.b64 %rd31, %rd25, 0, 60, 8;", Out::R64, {0xf000000000000000ull}, {0xffu}},
      {"rem_s64_negative", "rem.s64 %rd31, %rd25, 10;", Out::R64, {uint64_t(-7)}, {uint64_t(-17)}},
      {"slct_s32", "slct.u32.s32 %r31, 11, 22, %r25;", Out::R32,
       per_lane([](unsigned l) { return uint64_t(l < 16 ? 11 : 22); }),
       per_lane([](unsigned l) { return uint64_t(l < 16 ? l : uint32_t(-int(l))); })},
      // moves
      {"mov_pack_b64", "mov.u32 %r2, 0x11223344; mov.b64 %rd31, {%r2, %r25};", Out::R64, {0xaabbccdd11223344ull},
       {0xaabbccddu}},
      {"mov_unpack_b64", "mov.b64 {%r2, %r3}, %rd25; sub.u32 %r31, %r3, %r2;", Out::R32, {1}, {0x0000000600000005ull}},
      {"mov_unpack_b32_halves", "mov.b32 {%rs2, %rs3}, %r25; sub.u16 %rs31, %rs3, %rs2;", Out::H16, {0x1111u},
       {0x33332222u}},
      {"mov_pack_b32_halves", "mov.u16 %rs2, 0xbeef; mov.b32 %r31, {%rs2, %rs25};", Out::R32, {0xcafebeefu},
       {0xcafeu}},
      {"mov_special_laneid", "mov.u32 %r31, %laneid;", Out::R32, per_lane([](unsigned l) { return uint64_t(l); })},
      {"mov_special_lanemask_lt", "mov.u32 %r31, %lanemask_lt;", Out::R32,
       per_lane([](unsigned l) { return uint64_t((1u << l) - 1); })},
      // cvt between integers
      {"cvt_sat_s8_s32_high", "cvt.sat.s8.s32 %r31, %r25;", Out::R32, {127}, {300}},
      {"cvt_sat_s8_s32_low", "cvt.sat.s8.s32 %r2, %r25; cvt.s32.s8 %r31, %r2;", Out::R32, {uint32_t(-128)},
       {uint32_t(-300)}},
      {"cvt_s8_s32_truncates", "cvt.s8.s32 %r2, %r25; cvt.u32.u8 %r31, %r2;", Out::R32, {44}, {300}},
      {"cvt_sat_u8_s32_negative", "cvt.sat.u8.s32 %r31, %r25;", Out::R32, {0}, {uint32_t(-5)}},
      {"cvt_sat_u32_s64", "cvt.sat.u32.s64 %r31, %rd25;", Out::R32, {kM1_32}, {0x100000000ull}},
      {"cvt_sat_s32_u32", "cvt.sat.s32.u32 %r31, %r25;", Out::R32, {0x7fffffffu}, {0x80000000u}},
      {"cvt_s32_s8_sign_extends", "cvt.s32.s8 %r31, %r25;", Out::R32, {0xffffff80u}, {0x80u}},
      {"cvt_u32_u8", "cvt.u32.u8 %r31, %r25;", Out::R32, {0xffu}, {0x1ffu}},
      {"cvt_s64_s32", "cvt.s64.s32 %rd31, %r25;", Out::R64, {kM1_64}, {kM1_32}},
      {"cvt_u64_u32", "cvt.u64.u32 %rd31, %r25;", Out::R64, {0xffffffffull}, {0xffffffffull}},
      {"cvt_u32_u64_truncates", "cvt.u32.u64 %r31, %rd25;", Out::R32, {0x89abcdefu}, {0x0123456789abcdefull}},
      {"cvt_s16_s64", "cvt.s16.s64 %rs31, %rd25;", Out::H16, {0x8000u}, {0x18000ull}},
  };
}

std::vector<AluCase> float_cases() {
  const uint64_t one = fb(1.0f);
  const uint64_t sub = fb(1e-40f);  // an f32 subnormal
  return {
      // arithmetic basics
      {"add_f32", "add.f32 %f31, %f25, " + F(2.25f) + ";", Out::F32, {fb(3.75f)}, {fb(1.5f)}},
      {"sub_f64", "sub.f64 %fd31, %fd25, " + D(0.25) + ";", Out::F64, {db(0.75)}, {db(1.0)}},
      {"mul_f32", "mul.rn.f32 %f31, %f25, %f25;", Out::F32, {fb(2.25f)}, {fb(1.5f)}},
      {"fma_is_fused", "mov.f32 %f2, " + F(1.0f - 0x1p-23f) + "; fma.rn.f32 %f31, %f25, %f2, " + F(-1.0f) + ";",
       Out::F32, {fb(-0x1p-46f)}, {fb(1.0f + 0x1p-23f)}},
      {"mad_f32_is_fused", "mov.f32 %f2, " + F(1.0f - 0x1p-23f) + "; mad.rn.f32 %f31, %f25, %f2, " + F(-1.0f) + ";",
       Out::F32, {fb(-0x1p-46f)}, {fb(1.0f + 0x1p-23f)}},
      {"fma_f64_is_fused", "fma.rn.f64 %fd31, %fd25, %fd25, " + D(-1.0) + ";", Out::F64, {db(0x1p-29 + 0x1p-60)},
       {db(1.0 + 0x1p-30)}},
      {"fma_partial_warp", "setp.lt.u32 %p1, %r1, 5; @%p1 fma.rn.f32 %f31, %f25, %f25, %f25;", Out::F32,
       per_lane([](unsigned l) { return l < 5 ? fb(6.0f) : 0; }), {fb(2.0f)}},
      {"div_rn_f32", "div.rn.f32 %f31, %f25, " + F(4.0f) + ";", Out::F32, {fb(0.25f)}, {one}},
      {"div_approx_f32", "div.approx.f32 %f31, %f25, " + F(4.0f) + ";", Out::F32, {fb(0.75f)}, {fb(3.0f)}},
      {"div_full_f32", "div.full.f32 %f31, %f25, " + F(8.0f) + ";", Out::F32, {fb(0.375f)}, {fb(3.0f)}},
      {"div_rn_f64", "div.rn.f64 %fd31, %fd25, " + D(3.0) + ";", Out::F64, {db(1.0 / 3.0)}, {db(1.0)}},
      {"rcp_rn_f32", "rcp.rn.f32 %f31, %f25;", Out::F32, {fb(1.0f / 3.0f)}, {fb(3.0f)}},
      {"rcp_approx_ftz_f64", "rcp.approx.ftz.f64 %fd31, %fd25;", Out::F64, {db(0.25)}, {db(4.0)}},
      {"sqrt_rn_f32", "sqrt.rn.f32 %f31, %f25;", Out::F32, {fb(1.41421356f)}, {fb(2.0f)}},
      {"sqrt_rn_f64", "sqrt.rn.f64 %fd31, %fd25;", Out::F64, {db(1.4142135623730951)}, {db(2.0)}},
      {"rsqrt_approx_f32", "rsqrt.approx.f32 %f31, %f25;", Out::F32, {fb(0.5f)}, {fb(4.0f)}},
      {"rsqrt_approx_f64", "rsqrt.approx.f64 %fd31, %fd25;", Out::F64, {db(0.25)}, {db(16.0)}},
      {"ex2_approx_f32", "ex2.approx.ftz.f32 %f31, %f25;", Out::F32, {fb(8.0f)}, {fb(3.0f)}},
      {"lg2_approx_f32", "lg2.approx.f32 %f31, %f25;", Out::F32, {fb(3.0f)}, {fb(8.0f)}},
      {"sin_cos_approx_f32", "sin.approx.f32 %f2, %f25; cos.approx.f32 %f3, %f25; add.f32 %f31, %f2, %f3;", Out::F32,
       {one}, {fb(0.0f)}},
      {"tanh_approx_f32", "tanh.approx.f32 %f31, %f25;", Out::F32, {fb(0.0f)}, {fb(0.0f)}},
      {"abs_neg_f32", "abs.f32 %f2, %f25; neg.f32 %f31, %f2;", Out::F32, {fb(-2.5f)}, {fb(-2.5f)}},
      {"neg_f64", "neg.f64 %fd31, %fd25;", Out::F64, {db(-0.0)}, {db(0.0)}},
      {"copysign_f32", "copysign.f32 %f31, %f25, " + F(3.0f) + ";", Out::F32, {fb(-3.0f)}, {fb(-1.0f)}},
      {"copysign_f64", "copysign.f64 %fd31, %fd25, " + D(-3.0) + ";", Out::F64, {db(3.0)}, {db(1.0)}},
      // min / max with NaN and signed zeros
      {"min_f32_nan_first", "min.f32 %f31, %f25, " + F(1.0f) + ";", Out::F32, {one}, {kNaN32}},
      {"max_f32_nan_second", "max.f32 %f31, " + F(1.0f) + ", %f25;", Out::F32, {one}, {kNaN32}},
      {"min_f32_both_nan", "min.f32 %f31, %f25, %f25; testp.notanumber.f32 %p1, %f31; selp.u32 %r2, 1, 0, %p1;"
       "mov.b32 %f31, %r2;", Out::F32, {1}, {kNaN32}},
      {"min_f32_signed_zero", "min.f32 %f31, %f25, " + F(-0.0f) + ";", Out::F32, {fb(-0.0f)}, {fb(0.0f)}},
      {"max_f32_signed_zero", "max.f32 %f31, %f25, " + F(0.0f) + ";", Out::F32, {fb(0.0f)}, {fb(-0.0f)}},
      {"max_f64", "max.f64 %fd31, %fd25, " + D(-7.0) + ";", Out::F64, {db(-2.0)}, {db(-2.0)}},
      // NaN comparisons: ordered are false, unordered are true
      {"setp_lt_f32_nan", "setp.lt.f32 %p1, %f25, " + F(1.0f) + "; selp.u32 %r31, 1, 0, %p1;", Out::R32, {0}, {kNaN32}},
      {"setp_ltu_f32_nan", "setp.ltu.f32 %p1, %f25, " + F(1.0f) + "; selp.u32 %r31, 1, 0, %p1;", Out::R32, {1}, {kNaN32}},
      {"setp_ne_f32_nan", "setp.ne.f32 %p1, %f25, %f25; selp.u32 %r31, 1, 0, %p1;", Out::R32, {0}, {kNaN32}},
      {"setp_neu_f32_nan", "setp.neu.f32 %p1, %f25, %f25; selp.u32 %r31, 1, 0, %p1;", Out::R32, {1}, {kNaN32}},
      {"setp_eq_f32_nan", "setp.eq.f32 %p1, %f25, %f25; selp.u32 %r31, 1, 0, %p1;", Out::R32, {0}, {kNaN32}},
      {"setp_equ_f32_nan", "setp.equ.f32 %p1, %f25, %f25; selp.u32 %r31, 1, 0, %p1;", Out::R32, {1}, {kNaN32}},
      {"setp_ge_gtu_leu_geu_nan",
       "setp.ge.f32 %p1, %f25, 0f00000000; setp.gtu.f32 %p2, %f25, 0f00000000; setp.leu.f32 %p3, %f25, 0f00000000;"
       "setp.geu.f32 %p4, %f25, 0f00000000; selp.u32 %r2, 1, 0, %p1; selp.u32 %r3, 2, 0, %p2; selp.u32 %r4, 4, 0, %p3;"
       "selp.u32 %r5, 8, 0, %p4; or.b32 %r2, %r2, %r3; or.b32 %r4, %r4, %r5; or.b32 %r31, %r2, %r4;",
       Out::R32, {14}, {kNaN32}},
      {"setp_num_nan", "setp.num.f32 %p1, %f25, 0f3F800000; setp.nan.f32 %p2, %f25, 0f3F800000;"
       "selp.u32 %r2, 1, 0, %p1; selp.u32 %r3, 2, 0, %p2; or.b32 %r31, %r2, %r3;",
       Out::R32, per_lane([](unsigned l) { return uint64_t(l == 0 ? 2 : 1); }),
       per_lane([](unsigned l) { return l == 0 ? kNaN32 : fb(float(l)); })},
      {"setp_eq_f32_signed_zeros", "setp.eq.f32 %p1, %f25, " + F(0.0f) + "; selp.u32 %r31, 1, 0, %p1;", Out::R32, {1},
       {fb(-0.0f)}},
      {"setp_le_f64", "setp.le.f64 %p1, %fd25, " + D(2.0) + "; selp.u32 %r31, 1, 0, %p1;", Out::R32, {1}, {db(2.0)}},
      {"setp_gt_f32_ordinary", "setp.gt.f32 %p1, %f25, " + F(1.0f) + "; selp.u32 %r31, 1, 0, %p1;", Out::R32,
       per_lane([](unsigned l) { return uint64_t(l > 1); }), per_lane([](unsigned l) { return fb(float(l)); })},
      // flush to zero and saturation
      {"add_keeps_subnormal", "add.f32 %f31, %f25, 0f00000000;", Out::F32, {sub}, {sub}},
      {"add_ftz_flushes_input", "add.ftz.f32 %f31, %f25, 0f00000000;", Out::F32, {0}, {sub}},
      {"mul_ftz_flushes_result_keeps_sign", "mul.ftz.f32 %f31, %f25, " + F(-1e-20f) + ";", Out::F32, {fb(-0.0f)},
       {fb(1e-20f)}},
      {"mul_no_ftz_keeps_subnormal_result", "mul.f32 %f31, %f25, " + F(0.5f) + ";", Out::F32, {0x8b61u}, {sub}},
      {"min_ftz", "min.ftz.f32 %f31, %f25, 0f00000000;", Out::F32, {fb(-0.0f)}, {fb(-1e-40f)}},
      {"mul_ftz_flushes_negative_input", "mul.ftz.f32 %f31, %f25, 0f3F800000;", Out::F32, {fb(-0.0f)},
       {fb(-1e-40f)}},
      {"fma_ftz_flushes_input", "fma.rn.ftz.f32 %f31, %f25, 0f3F800000, 0f00000000;", Out::F32, {0}, {sub}},
      {"fma_keeps_subnormal_input", "fma.rn.f32 %f31, %f25, 0f3F800000, 0f00000000;", Out::F32, {sub}, {sub}},
      {"fma_ftz_flushes_result", "fma.rn.ftz.f32 %f31, %f25, %f25, 0f00000000;", Out::F32, {0}, {fb(1e-20f)}},
      {"fma_ftz_partial_warp", "setp.lt.u32 %p1, %r1, 3; @%p1 fma.rn.ftz.f32 %f31, %f25, 0f40000000, %f25;",
       Out::F32, per_lane([](unsigned l) { return l < 3 ? fb(3.0f) : 0; }), {one}},
      {"fma_ftz_partial_warp_subnormal", "setp.lt.u32 %p1, %r1, 3; @%p1 fma.rn.ftz.f32 %f31, %f25, 0f40000000, %f25;",
       Out::F32, {0}, {sub}},
      {"setp_ftz", "setp.eq.ftz.f32 %p1, %f25, 0f00000000; selp.u32 %r31, 1, 0, %p1;", Out::R32, {1}, {sub}},
      {"add_sat_clamps_high", "add.sat.f32 %f31, %f25, " + F(0.5f) + ";", Out::F32, {one}, {fb(0.75f)}},
      {"mul_sat_clamps_low", "mul.sat.f32 %f31, %f25, " + F(-2.0f) + ";", Out::F32, {fb(0.0f)}, {fb(0.75f)}},
      {"fma_sat_nan_is_zero", "fma.rn.sat.f32 %f31, %f25, %f25, %f25;", Out::F32, {fb(0.0f)}, {kNaN32}},
      // directed rounding of arithmetic
      {"add_rp_f32", "add.rp.f32 %f31, %f25, " + F(0x1p-30f) + ";", Out::F32, {0x3f800001u}, {one}},
      {"add_rn_f32_tiny", "add.rn.f32 %f31, %f25, " + F(0x1p-30f) + ";", Out::F32, {one}, {one}},
      {"add_rm_f32", "add.rm.f32 %f31, %f25, " + F(-0x1p-30f) + ";", Out::F32, {0xbf800001u}, {fb(-1.0f)}},
      {"add_rz_f32", "add.rz.f32 %f31, %f25, " + F(-0x1p-30f) + ";", Out::F32, {0x3f7fffffu}, {one}},
      {"mul_rz_f64", "mul.rz.f64 %fd31, %fd25, %fd25;", Out::F64, {db(1.0 + 0x1p-51)}, {db(1.0 + 0x1p-52)}},
      {"mul_rp_f64", "mul.rp.f64 %fd31, %fd25, %fd25;", Out::F64, {db(1.0 + 0x1p-51 + 0x1p-52)}, {db(1.0 + 0x1p-52)}},
      {"fma_rm_f32", "fma.rm.f32 %f31, %f25, %f25, " + F(0.0f) + ";", Out::F32, {fb(1.0f + 0x1p-22f)},
       {fb(1.0f + 0x1p-23f)}},
      // 1/3 rounded to nearest (0x3eaaaaab) lies above 1/3.
      {"div_rz_f32", "div.rz.f32 %f31, %f25, " + F(3.0f) + ";", Out::F32, {0x3eaaaaaau}, {one}},
      {"div_rp_f32", "div.rp.f32 %f31, %f25, " + F(3.0f) + ";", Out::F32, {0x3eaaaaabu}, {one}},
      {"sqrt_rp_f32", "sqrt.rp.f32 %f31, %f25;", Out::F32, {fb(1.41421356f) + 1}, {fb(2.0f)}},
      {"rcp_rm_f32", "rcp.rm.f32 %f31, %f25;", Out::F32, {0x3eaaaaaau}, {fb(3.0f)}},
      // testp
      {"testp_classes",
       "testp.finite.f32 %p1, %f25; testp.infinite.f32 %p2, %f25; testp.number.f32 %p3, %f25;"
       "testp.notanumber.f32 %p4, %f25; testp.normal.f32 %p5, %f25; testp.subnormal.f32 %p6, %f25;"
       "selp.u32 %r2, 1, 0, %p1; selp.u32 %r3, 2, 0, %p2; selp.u32 %r4, 4, 0, %p3; selp.u32 %r5, 8, 0, %p4;"
       "selp.u32 %r6, 16, 0, %p5; selp.u32 %r7, 32, 0, %p6; or.b32 %r2, %r2, %r3; or.b32 %r4, %r4, %r5;"
       "or.b32 %r6, %r6, %r7; or.b32 %r2, %r2, %r4; or.b32 %r31, %r2, %r6;",
       Out::R32,
       per_lane([](unsigned l) -> uint64_t {
         switch (l) {
           case 1: return 2 | 4;
           case 2: return 8;
           case 3: return 1 | 4 | 32;
           default: return 1 | 4 | 16;
         }
       }),
       per_lane([](unsigned l) -> uint64_t {
         switch (l) {
           case 0: return fb(1.0f);
           case 1: return 0xff800000u;  // -inf
           case 2: return kNaN32;
           case 3: return 0x00000001u;  // smallest subnormal
           case 4: return fb(-0.0f);    // zero counts as normal
           default: return fb(float(l));
         }
       })},
      {"testp_f64", "testp.normal.f64 %p1, %fd25; selp.u32 %r31, 1, 0, %p1;", Out::R32, {0}, {1}},
  };
}

std::vector<AluCase> cvt_cases() {
  auto four = [](float a, float b, float c, float d) {
    return per_lane([=](unsigned l) { return fb(l % 4 == 0 ? a : l % 4 == 1 ? b : l % 4 == 2 ? c : d); });
  };
  auto four_out = [](uint32_t a, uint32_t b, uint32_t c, uint32_t d) {
    return per_lane([=](unsigned l) { return uint64_t(l % 4 == 0 ? a : l % 4 == 1 ? b : l % 4 == 2 ? c : d); });
  };
  return {
      // float -> int rounding modes on 2.5, -2.5, 3.5, -0.4
      {"cvt_rni_s32_f32", "cvt.rni.s32.f32 %r31, %f25;", Out::R32, four_out(2, uint32_t(-2), 4, 0),
       four(2.5f, -2.5f, 3.5f, -0.4f)},
      {"cvt_rzi_s32_f32", "cvt.rzi.s32.f32 %r31, %f25;", Out::R32, four_out(2, uint32_t(-2), 3, 0),
       four(2.5f, -2.5f, 3.5f, -0.4f)},
      {"cvt_rmi_s32_f32", "cvt.rmi.s32.f32 %r31, %f25;", Out::R32, four_out(2, uint32_t(-3), 3, uint32_t(-1)),
       four(2.5f, -2.5f, 3.5f, -0.4f)},
      {"cvt_rpi_s32_f32", "cvt.rpi.s32.f32 %r31, %f25;", Out::R32, four_out(3, uint32_t(-2), 4, 0),
       four(2.5f, -2.5f, 3.5f, -0.4f)},
      // float -> int saturation
      {"cvt_s32_f32_nan_is_zero", "cvt.rzi.s32.f32 %r31, %f25;", Out::R32, {0}, {kNaN32}},
      {"cvt_s32_f32_saturates_high", "cvt.rzi.s32.f32 %r31, %f25;", Out::R32, {0x7fffffffu}, {fb(3e9f)}},
      {"cvt_s32_f32_saturates_low", "cvt.rzi.s32.f32 %r31, %f25;", Out::R32, {0x80000000u}, {fb(-3e9f)}},
      {"cvt_s32_f32_inf", "cvt.rni.s32.f32 %r31, %f25;", Out::R32, {0x7fffffffu}, {0x7f800000u}},
      {"cvt_u32_f32_negative_is_zero", "cvt.rzi.u32.f32 %r31, %f25;", Out::R32, {0}, {fb(-1.0f)}},
      {"cvt_u32_f32_saturates", "cvt.rzi.u32.f32 %r31, %f25;", Out::R32, {0xffffffffu}, {fb(5e9f)}},
      {"cvt_u32_f32_large", "cvt.rzi.u32.f32 %r31, %f25;", Out::R32, {3000000000u}, {fb(3e9f)}},
      {"cvt_s64_f64_saturates", "cvt.rzi.s64.f64 %rd31, %fd25;", Out::R64, {0x7fffffffffffffffull}, {db(1e19)}},
      {"cvt_s64_f64_low", "cvt.rzi.s64.f64 %rd31, %fd25;", Out::R64, {0x8000000000000000ull}, {db(-1e19)}},
      {"cvt_u64_f64", "cvt.rzi.u64.f64 %rd31, %fd25;", Out::R64, {10000000000000000000ull}, {db(1e19)}},
      {"cvt_u64_f64_saturates", "cvt.rzi.u64.f64 %rd31, %fd25;", Out::R64, {kM1_64}, {db(2e19)}},
      {"cvt_u64_f64_negative", "cvt.rni.u64.f64 %rd31, %fd25;", Out::R64, {0}, {db(-5.0)}},
      {"cvt_s16_f32_saturates", "cvt.rzi.s16.f32 %rs31, %f25;", Out::H16, {0x8000u}, {fb(-40000.0f)}},
      {"cvt_u8_f32_saturates", "cvt.rzi.u8.f32 %r31, %f25;", Out::R32, {0xffu}, {fb(300.0f)}},
      {"cvt_s32_f64", "cvt.rni.s32.f64 %r31, %fd25;", Out::R32, {uint32_t(-4)}, {db(-3.5)}},
      {"cvt_rpi_ftz_s32_f32_subnormal", "cvt.rpi.ftz.s32.f32 %r31, %f25;", Out::R32, {0}, {fb(1e-40f)}},
      {"cvt_rpi_s32_f32_subnormal", "cvt.rpi.s32.f32 %r31, %f25;", Out::R32, {1}, {fb(1e-40f)}},
      // int -> float with every rounding mode
      {"cvt_rn_f32_s32", "cvt.rn.f32.s32 %f31, %r25;", Out::F32, {fb(16777216.0f)}, {16777217}},
      {"cvt_rp_f32_s32", "cvt.rp.f32.s32 %f31, %r25;", Out::F32, {fb(16777218.0f)}, {16777217}},
      {"cvt_rm_f32_s32", "cvt.rm.f32.s32 %f31, %r25;", Out::F32, {fb(-16777218.0f)}, {uint32_t(-16777217)}},
      {"cvt_rz_f32_s32", "cvt.rz.f32.s32 %f31, %r25;", Out::F32, {fb(-16777216.0f)}, {uint32_t(-16777217)}},
      {"cvt_rn_f32_u32", "cvt.rn.f32.u32 %f31, %r25;", Out::F32, {0x4f800000u}, {0xffffffffu}},
      {"cvt_rz_f32_u32", "cvt.rz.f32.u32 %f31, %r25;", Out::F32, {0x4f7fffffu}, {0xffffffffu}},
      {"cvt_rn_f32_u64", "cvt.rn.f32.u64 %f31, %rd25;", Out::F32, {fb(18446744073709551616.0f)}, {kM1_64}},
      {"cvt_rz_f32_u64", "cvt.rz.f32.u64 %f31, %rd25;", Out::F32, {0x5f7fffffu}, {kM1_64}},
      {"cvt_rn_f64_s64", "cvt.rn.f64.s64 %fd31, %rd25;", Out::F64, {db(-9007199254740992.0)},
       {uint64_t(-9007199254740993ll)}},
      {"cvt_rz_f64_s64", "cvt.rz.f64.s64 %fd31, %rd25;", Out::F64, {db(-9007199254740992.0)},
       {uint64_t(-9007199254740993ll)}},
      {"cvt_rm_f64_s64", "cvt.rm.f64.s64 %fd31, %rd25;", Out::F64, {db(-9007199254740994.0)},
       {uint64_t(-9007199254740993ll)}},
      {"cvt_f64_u32", "cvt.rn.f64.u32 %fd31, %r25;", Out::F64, {db(4294967295.0)}, {0xffffffffu}},
      {"cvt_f32_s16", "cvt.rn.f32.s16 %f31, %rs25;", Out::F32, {fb(-2.0f)}, {0xfffeu}},
      // float -> float
      {"cvt_f64_f32_exact", "cvt.f64.f32 %fd31, %f25;", Out::F64, {db(double(0.1f))}, {fb(0.1f)}},
      {"cvt_rn_f32_f64", "cvt.rn.f32.f64 %f31, %fd25;", Out::F32, {fb(1.0f + 0x1p-23f)}, {db(1.0 + 0.75 * 0x1p-23)}},
      {"cvt_rz_f32_f64", "cvt.rz.f32.f64 %f31, %fd25;", Out::F32, {fb(1.0f)}, {db(1.0 + 0.75 * 0x1p-23)}},
      {"cvt_rm_f32_f64", "cvt.rm.f32.f64 %f31, %fd25;", Out::F32, {fb(-1.0f - 0x1p-23f)}, {db(-1.0 - 0.25 * 0x1p-23)}},
      {"cvt_rp_f32_f64", "cvt.rp.f32.f64 %f31, %fd25;", Out::F32, {fb(1.0f + 0x1p-23f)}, {db(1.0 + 0.25 * 0x1p-23)}},
      {"cvt_rz_f32_f64_overflow", "cvt.rz.f32.f64 %f31, %fd25;", Out::F32, {0x7f7fffffu}, {db(1e300)}},
      {"cvt_rn_f32_f64_overflow", "cvt.rn.f32.f64 %f31, %fd25;", Out::F32, {0x7f800000u}, {db(1e300)}},
      {"cvt_rni_f32_f32", "cvt.rni.f32.f32 %f31, %f25;", Out::F32, four(2.0f, -2.0f, 4.0f, -0.0f),
       four(2.5f, -2.5f, 3.5f, -0.4f)},
      {"cvt_rzi_f32_f32", "cvt.rzi.f32.f32 %f31, %f25;", Out::F32, four(2.0f, -2.0f, 3.0f, -0.0f),
       four(2.7f, -2.7f, 3.5f, -0.4f)},
      {"cvt_rmi_f64_f64", "cvt.rmi.f64.f64 %fd31, %fd25;", Out::F64, {db(-3.0)}, {db(-2.5)}},
      {"cvt_ftz_f32_f32", "cvt.ftz.f32.f32 %f31, %f25;", Out::F32, {fb(-0.0f)}, {fb(-1e-40f)}},
      {"cvt_sat_f32_f32", "cvt.sat.f32.f32 %f31, %f25;", Out::F32, four(1.0f, 0.0f, 0.5f, 0.0f),
       per_lane([](unsigned l) { return l % 4 == 0 ? fb(1.5f) : l % 4 == 1 ? fb(-0.5f) : l % 4 == 2 ? fb(0.5f) : kNaN32; })},
      // half precision
      {"cvt_rn_f16_f32_one", "cvt.rn.f16.f32 %rs31, %f25;", Out::H16, {0x3c00u}, {fb(1.0f)}},
      {"cvt_rn_f16_f32_third", "cvt.rn.f16.f32 %rs31, %f25;", Out::H16, {0x3555u}, {fb(1.0f / 3.0f)}},
      {"cvt_rn_f16_f32_tie_even", "cvt.rn.f16.f32 %rs31, %f25;", Out::H16, {0x3c00u}, {fb(1.0f + 0x1p-11f)}},
      {"cvt_rn_f16_f32_tie_up", "cvt.rn.f16.f32 %rs31, %f25;", Out::H16, {0x3c02u}, {fb(1.0f + 3 * 0x1p-11f)}},
      {"cvt_rn_f16_f32_max", "cvt.rn.f16.f32 %rs31, %f25;", Out::H16, {0x7bffu}, {fb(65519.0f)}},
      {"cvt_rn_f16_f32_overflow", "cvt.rn.f16.f32 %rs31, %f25;", Out::H16, {0x7c00u}, {fb(65520.0f)}},
      {"cvt_rz_f16_f32_overflow", "cvt.rz.f16.f32 %rs31, %f25;", Out::H16, {0x7bffu}, {fb(70000.0f)}},
      {"cvt_rm_f16_f32_negative", "cvt.rm.f16.f32 %rs31, %f25;", Out::H16, {0xbc01u}, {fb(-1.0f - 0x1p-12f)}},
      {"cvt_rn_f16_f32_subnormal", "cvt.rn.f16.f32 %rs31, %f25;", Out::H16, {0x0001u}, {fb(0x1p-24f)}},
      {"cvt_rn_f16_f32_underflow", "cvt.rn.f16.f32 %rs31, %f25;", Out::H16, {0x8000u}, {fb(-0x1p-26f)}},
      {"cvt_rn_f16_f32_nan", "cvt.rn.f16.f32 %rs31, %f25; cvt.f32.f16 %f2, %rs31; testp.notanumber.f32 %p1, %f2;"
       "selp.u16 %rs31, 1, 0, %p1;", Out::H16, {1}, {kNaN32}},
      {"cvt_f32_f16", "cvt.f32.f16 %f31, %rs25;", Out::F32, {fb(0.333251953125f)}, {0x3555u}},
      {"cvt_f32_f16_subnormal", "cvt.f32.f16 %f31, %rs25;", Out::F32, {fb(0x1p-24f)}, {0x0001u}},
      {"cvt_f32_f16_inf", "cvt.f32.f16 %f31, %rs25;", Out::F32, {0xff800000u}, {0xfc00u}},
      {"cvt_f64_f16", "cvt.f64.f16 %fd31, %rs25;", Out::F64, {db(-2.0)}, {0xc000u}},
      {"cvt_rn_f16_f64", "cvt.rn.f16.f64 %rs31, %fd25;", Out::H16, {0x3c00u}, {db(1.0 + 0x1p-11)}},
      {"cvt_rn_f16_s32", "cvt.rn.f16.s32 %rs31, %r25;", Out::H16, {0xc900u}, {uint32_t(-10)}},
      {"cvt_rzi_s32_f16", "cvt.rzi.s32.f16 %r31, %rs25;", Out::R32, {uint32_t(-2)}, {0xc100u}},  // -2.5
      {"abs_neg_f16", "abs.f16 %rs2, %rs25; neg.f16 %rs31, %rs2;", Out::H16, {0xc100u}, {0xc100u}},
      {"min_f16_nan", "mov.b16 %rs2, 0x7e00; min.f16 %rs31, %rs25, %rs2;", Out::H16, {0x3c00u}, {0x3c00u}},
      {"add_f16", "mov.b16 %rs2, 0x1000; add.rn.f16 %rs31, %rs25, %rs2;", Out::H16, {0x3c00u}, {0x3c00u}},
      {"mul_f16", "mul.rn.f16 %rs31, %rs25, %rs25;", Out::H16, {0x4640u}, {0x4100u}},  // 2.5^2 = 6.25
      {"fma_f16", "fma.rn.f16 %rs31, %rs25, %rs25, %rs25;", Out::H16, {0x4860u}, {0x4100u}},  // 6.25+2.5=8.75
  };
}

std::string case_name(const ::testing::TestParamInfo<AluCase>& info) { return info.param.name; }

INSTANTIATE_TEST_SUITE_P(Integer, SemanticsAlu, ::testing::ValuesIn(integer_cases()), case_name);
INSTANTIATE_TEST_SUITE_P(Float, SemanticsAlu, ::testing::ValuesIn(float_cases()), case_name);
INSTANTIATE_TEST_SUITE_P(Cvt, SemanticsAlu, ::testing::ValuesIn(cvt_cases()), case_name);

// ------------------------------------------------------------------ memory

/// Runs `body` in a kernel k(.param .u64 out, .param .u64 in) with 32 threads
/// of one CTA; registers as in alu_kernel (%rd20 = out, %rd21 = in, %r1 = tid).
std::string mem_kernel(const std::string& decls, const std::string& body) {
  return std::string(kHeader) + decls + R"(
.visible .entry k(.param .u64 out, .param .u64 in)
{
  .reg .pred %p<8>;
  .reg .b16 %rs<32>;
  .reg .b32 %r<32>;
  .reg .b64 %rd<32>;
  .reg .f32 %f<32>;
  .reg .f64 %fd<32>;
  ld.param.u64 %rd20, [out];
  ld.param.u64 %rd21, [in];
  mov.u32 %r1, %tid.x;
)" + body + R"(
  ret;
}
)";
}

struct MemRun {
  explicit MemRun(exec::DivergenceMode mode = exec::DivergenceMode::Ipdom, uint64_t watchdog = 20'000'000)
      : dev(options(mode, watchdog)) {}
  static platform::DeviceOptions options(exec::DivergenceMode mode, uint64_t watchdog) {
    platform::DeviceOptions o;
    o.divergence = mode;
    o.watchdog_instructions = watchdog;
    return o;
  }
  GpuDevice dev;
  uint64_t out = 0, in = 0;
  void run(const std::string& src, const std::vector<uint8_t>& input, size_t out_bytes, uint32_t threads = 32) {
    auto m = dev.load_module(src, "mem.ptx");
    in = dev.allocate(std::max<size_t>(input.size(), 8), "in");
    if (!input.empty()) dev.copy_to_device(in, input.data(), input.size());
    out = dev.allocate(out_bytes, "out");
    dev.launch(m, "k", {1, 1, 1}, {threads, 1, 1}, 0, KernelArgs().ptr(out).ptr(in));
  }
  template <typename T>
  std::vector<T> result(size_t n) {
    return dev.download<T>(out, n);
  }
};

TEST(SemanticsMemory, NarrowLoadsExtendPerType) {
  // in: bytes 0x80 0xff 0x7f 0x01 | 0x8001 (LE) ...
  std::vector<uint8_t> in = {0x80, 0xff, 0x7f, 0x01, 0x01, 0x80, 0x00, 0x00};
  MemRun r;
  r.run(mem_kernel("", R"(
  ld.global.u8 %r2, [%rd21];
  ld.global.s8 %r3, [%rd21];
  ld.global.s8 %rd4, [%rd21+1];
  ld.global.u16 %r5, [%rd21+4];
  ld.global.s16 %r6, [%rd21+4];
  ld.global.s16 %rd7, [%rd21+4];
  ld.global.u8 %rs8, [%rd21+2];
  ld.global.s32 %rd9, [%rd21];
  cvt.u64.u32 %rd2, %r2;
  cvt.u64.u32 %rd3, %r3;
  cvt.u64.u32 %rd5, %r5;
  cvt.u64.u32 %rd6, %r6;
  cvt.u64.u16 %rd8, %rs8;
  setp.eq.u32 %p1, %r1, 0;
  @%p1 st.global.u64 [%rd20], %rd2;
  @%p1 st.global.u64 [%rd20+8], %rd3;
  @%p1 st.global.u64 [%rd20+16], %rd4;
  @%p1 st.global.u64 [%rd20+24], %rd5;
  @%p1 st.global.u64 [%rd20+32], %rd6;
  @%p1 st.global.u64 [%rd20+40], %rd7;
  @%p1 st.global.u64 [%rd20+48], %rd8;
  @%p1 st.global.u64 [%rd20+56], %rd9;
)"),
        in, 64);
  auto out = r.result<uint64_t>(8);
  EXPECT_EQ(hexs(out[0]), hexs(0x80));
  EXPECT_EQ(hexs(out[1]), hexs(0xffffff80u));  // s8 sign-extended into a 32-bit register
  EXPECT_EQ(hexs(out[2]), hexs(~0ull));        // s8 0xff into a 64-bit register
  EXPECT_EQ(hexs(out[3]), hexs(0x8001));
  EXPECT_EQ(hexs(out[4]), hexs(0xffff8001u));
  EXPECT_EQ(hexs(out[5]), hexs(0xffffffffffff8001ull));
  EXPECT_EQ(hexs(out[6]), hexs(0x7f));
  EXPECT_EQ(hexs(out[7]), hexs(0x017fff80ull));
}

TEST(SemanticsMemory, NarrowStoresTruncateWideRegisters) {
  MemRun r;
  r.run(mem_kernel("", R"(
  mov.u64 %rd2, 0x1122334455667788;
  mov.u32 %r3, 0xaabbccdd;
  setp.eq.u32 %p1, %r1, 0;
  @%p1 st.global.u32 [%rd20], %rd2;
  @%p1 st.global.u8 [%rd20+4], %r3;
  @%p1 st.global.u16 [%rd20+6], %r3;
  @%p1 st.global.u64 [%rd20+8], %rd2;
  mov.u16 %rs4, 0x1234;
  mov.u32 %r5, -1;
  @%p1 st.global.b16 [%rd20+16], %rs4;
  @%p1 st.global.u32 [%rd20+20], %r5;
)"),
        {}, 24);
  auto out = r.result<uint32_t>(6);
  EXPECT_EQ(hexs(out[0]), hexs(0x55667788u));
  EXPECT_EQ(hexs(out[1]), hexs(0xccdd00ddu));
  EXPECT_EQ(hexs(out[2]), hexs(0x55667788u));
  EXPECT_EQ(hexs(out[3]), hexs(0x11223344u));
  EXPECT_EQ(hexs(out[4]), hexs(0x1234u));
  EXPECT_EQ(hexs(out[5]), hexs(0xffffffffu));
}

TEST(SemanticsMemory, VectorLoadsAndStores) {
  std::vector<uint8_t> in(32 * 16);
  for (size_t i = 0; i < in.size(); ++i) in[i] = uint8_t(i * 7 + 3);
  MemRun r;
  // Each lane loads a v4.u32 and a v2.u32 and stores them swapped; a v4.f32
  // with a sink element and a v2.u64 round-trip.
  r.run(mem_kernel("", R"(
  mul.wide.u32 %rd2, %r1, 16;
  add.s64 %rd3, %rd21, %rd2;
  add.s64 %rd4, %rd20, %rd2;
  ld.global.v4.u32 {%r2, %r3, %r4, %r5}, [%rd3];
  st.global.v4.u32 [%rd4], {%r5, %r4, %r3, %r2};
  ld.global.v2.u64 {%rd5, %rd6}, [%rd3];
  add.s64 %rd7, %rd4, 512;
  st.global.v2.u64 [%rd7], {%rd6, %rd5};
  ld.global.v4.f32 {%f1, _, %f3, _}, [%rd3];
  add.s64 %rd8, %rd4, 1024;
  st.global.v2.f32 [%rd8], {%f3, %f1};
  ld.global.v2.u16 {%rs1, %rs2}, [%rd3];
  add.s64 %rd9, %rd4, 1536;
  st.global.v2.u16 [%rd9], {%rs2, %rs1};
)"),
        in, 32 * 16 * 4);
  auto out = r.result<uint32_t>(32 * 16);
  std::vector<uint32_t> src(32 * 4);
  std::memcpy(src.data(), in.data(), in.size());
  for (unsigned l = 0; l < 32; ++l) {
    const uint32_t* s = &src[l * 4];
    const uint32_t* o = &out[l * 4];
    EXPECT_EQ(o[0], s[3]);
    EXPECT_EQ(o[1], s[2]);
    EXPECT_EQ(o[2], s[1]);
    EXPECT_EQ(o[3], s[0]);
    const uint32_t* o2 = &out[128 + l * 4];
    EXPECT_EQ(o2[0], s[2]);
    EXPECT_EQ(o2[1], s[3]);
    EXPECT_EQ(o2[2], s[0]);
    EXPECT_EQ(o2[3], s[1]);
    const uint32_t* o3 = &out[256 + l * 4];
    EXPECT_EQ(o3[0], s[2]);
    EXPECT_EQ(o3[1], s[0]);
    const uint32_t* o4 = &out[384 + l * 4];
    EXPECT_EQ(o4[0], (s[0] >> 16) | (s[0] << 16));
  }
}

TEST(SemanticsMemory, SharedThroughGenericAndCvta) {
  MemRun r;
  r.run(mem_kernel(".shared .align 4 .b8 smem[128];\n", R"(
  mov.u64 %rd2, smem;
  mul.wide.u32 %rd3, %r1, 4;
  add.s64 %rd4, %rd2, %rd3;
  mad.lo.s32 %r2, %r1, 3, 1;
  st.shared.u32 [%rd4], %r2;
  bar.sync 0;
  cvta.shared.u64 %rd5, %rd2;
  xor.b32 %r3, %r1, 1;
  mul.wide.u32 %rd6, %r3, 4;
  add.s64 %rd7, %rd5, %rd6;
  ld.u32 %r4, [%rd7];
  cvta.to.shared.u64 %rd8, %rd7;
  ld.shared.u32 %r5, [%rd8];
  add.s32 %r6, %r4, %r5;
  add.s64 %rd9, %rd20, %rd3;
  st.global.u32 [%rd9], %r6;
  cvta.global.u64 %rd10, %rd9;
  cvta.to.global.u64 %rd11, %rd10;
  sub.s64 %rd12, %rd11, %rd9;
  setp.eq.s64 %p1, %rd12, 0;
  @!%p1 st.global.u32 [%rd9], 0;
)"),
        {}, 128);
  auto out = r.result<uint32_t>(32);
  for (unsigned l = 0; l < 32; ++l) EXPECT_EQ(out[l], 2 * ((l ^ 1) * 3 + 1)) << l;
}

// A 32-bit .shared address wraps: a base register below the array plus an
// offset lands inside it (nvcc forms diagonal indexing this way).
TEST(SemanticsMemory, SharedAddressesWrapAt32Bits) {
  MemRun r;
  r.run(mem_kernel(".shared .align 4 .b8 smem[128];\n", R"(
  mov.u32 %r2, smem;
  shl.b32 %r3, %r1, 2;
  add.s32 %r4, %r2, %r3;
  st.shared.u32 [%r4], %r1;
  bar.sync 0;
  setp.eq.u32 %p1, %r1, 31;
  @%p1 add.s32 %r4, %r2, -4;
  add.s32 %r5, %r4, -4096;
  ld.shared.u32 %r6, [%r5+4100];
  mul.wide.u32 %rd3, %r1, 4;
  add.s64 %rd4, %rd20, %rd3;
  st.global.u32 [%rd4], %r6;
)"),
        {}, 128);
  auto out = r.result<uint32_t>(32);
  for (unsigned l = 0; l < 32; ++l) EXPECT_EQ(out[l], (l + 1) % 32) << l;
}

TEST(SemanticsMemory, LocalMemoryIsPerThread) {
  MemRun r;
  r.run(mem_kernel("", R"(
  .local .align 8 .b8 buf[16];
  mov.u64 %rd2, buf;
  st.local.u32 [%rd2], %r1;
  mul.lo.s32 %r2, %r1, 10;
  st.local.u32 [%rd2+4], %r2;
  cvta.local.u64 %rd3, %rd2;
  ld.u32 %r3, [%rd3+4];
  ld.local.u32 %r4, [%rd2];
  add.s32 %r5, %r3, %r4;
  mul.wide.u32 %rd4, %r1, 4;
  add.s64 %rd5, %rd20, %rd4;
  st.global.u32 [%rd5], %r5;
)"),
        {}, 128);
  auto out = r.result<uint32_t>(32);
  for (unsigned l = 0; l < 32; ++l) EXPECT_EQ(out[l], 11 * l) << l;
}

// ------------------------------------------------------------------ atomics

TEST(SemanticsAtomics, LanesApplyInOrderAndSeeEarlierResults) {
  MemRun r;
  r.run(mem_kernel("", R"(
  atom.global.add.u32 %r2, [%rd20], 1;
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd20, %rd2;
  st.global.u32 [%rd3+4], %r2;
  atom.global.inc.u32 %r3, [%rd20+132], 3;
  st.global.u32 [%rd3+136], %r3;
  atom.global.dec.u32 %r4, [%rd20+264], 3;
  st.global.u32 [%rd3+268], %r4;
  red.global.add.u32 [%rd20+396], %r1;
  atom.global.max.u32 %r5, [%rd20+400], %r1;
  atom.global.min.s32 %r6, [%rd20+404], %r1;
  atom.global.and.b32 %r7, [%rd20+408], 0xfffffffe;
  atom.global.or.b32 %r8, [%rd20+412], %r2;
  atom.global.xor.b32 %r9, [%rd20+416], 1;
  atom.global.exch.b32 %r10, [%rd20+420], %r1;
)"),
        {}, 424);
  auto out = r.result<uint32_t>(106);
  EXPECT_EQ(out[0], 32u);
  for (unsigned l = 0; l < 32; ++l) {
    EXPECT_EQ(out[1 + l], l) << "atom.add returns the running sum";
    EXPECT_EQ(out[34 + l], l % 4) << "atom.inc wraps after 3";
    EXPECT_EQ(out[67 + l], (4 - l % 4) % 4) << "atom.dec: 0 -> 3 -> 2 -> 1 -> 0";
  }
  EXPECT_EQ(out[33], 32u % 4);
  EXPECT_EQ(out[66], (4 - 32 % 4) % 4);
  EXPECT_EQ(out[99], 31u * 32 / 2);
  EXPECT_EQ(out[100], 31u);
  EXPECT_EQ(out[101], 0u);
  EXPECT_EQ(out[102], 0u);
  EXPECT_EQ(out[103], 31u);  // or of 0..31
  EXPECT_EQ(out[104], 0u);   // 32 xors of 1
  EXPECT_EQ(out[105], 31u);  // the last exchange wins
}

TEST(SemanticsAtomics, SixtyFourBitAtomics) {
  std::vector<uint64_t> init = {0xfffffff0ull, 5, 7, 0, 0};
  std::vector<uint8_t> bytes(init.size() * 8);
  std::memcpy(bytes.data(), init.data(), bytes.size());
  MemRun r;
  r.run(mem_kernel("", R"(
  // copy the initial values from in to out
  setp.eq.u32 %p1, %r1, 0;
  ld.global.v2.u64 {%rd2, %rd3}, [%rd21];
  ld.global.v2.u64 {%rd4, %rd5}, [%rd21+16];
  @%p1 st.global.v2.u64 [%rd20], {%rd2, %rd3};
  @%p1 st.global.v2.u64 [%rd20+16], {%rd4, %rd5};
  bar.sync 0;
  atom.global.add.u64 %rd6, [%rd20], 1;           // crosses 2^32 at lane 16
  cvt.u64.u32 %rd7, %r1;
  atom.global.cas.b64 %rd8, [%rd20+8], %rd7, 100;  // succeeds for lane 5 only
  atom.global.exch.b64 %rd9, [%rd20+16], %rd7;
  neg.s64 %rd10, %rd7;
  atom.global.min.s64 %rd11, [%rd20+24], %rd10;
  mul.wide.u32 %rd12, %r1, 8;
  add.s64 %rd13, %rd20, %rd12;
  st.global.u64 [%rd13+40], %rd6;
  st.global.u64 [%rd13+296], %rd8;
  st.global.u64 [%rd13+552], %rd9;
  st.global.u64 [%rd13+808], %rd11;
)"),
        bytes, 40 + 4 * 256);
  auto out = r.result<uint64_t>(5 + 4 * 32);
  EXPECT_EQ(hexs(out[0]), hexs(0xfffffff0ull + 32));
  EXPECT_EQ(out[1], 100u);
  EXPECT_EQ(out[2], 31u);
  EXPECT_EQ(hexs(out[3]), hexs(uint64_t(-31)));
  for (unsigned l = 0; l < 32; ++l) {
    EXPECT_EQ(hexs(out[5 + l]), hexs(0xfffffff0ull + l));
    EXPECT_EQ(out[37 + l], l <= 5 ? 5u : 100u) << "cas returns the old value";
    EXPECT_EQ(out[69 + l], l == 0 ? 7u : l - 1);
    EXPECT_EQ(hexs(out[101 + l]), hexs(l == 0 ? 0 : uint64_t(-int64_t(l - 1))));
  }
}

TEST(SemanticsAtomics, FloatAndSharedAtomics) {
  MemRun r;
  r.run(mem_kernel(".shared .align 8 .b8 counters[16];\n", R"(
  setp.eq.u32 %p1, %r1, 0;
  mov.u32 %r9, 0;
  mov.u64 %rd9, 0;
  @%p1 st.shared.u32 [counters], %r9;
  @%p1 st.shared.u64 [counters+8], %rd9;
  bar.sync 0;
  atom.shared.add.u32 %r2, [counters], 2;
  mov.u64 %rd2, counters;
  cvta.shared.u64 %rd3, %rd2;
  atom.add.u64 %rd4, [%rd3+8], 3;              // generic address resolving to shared
  cvt.rn.f32.u32 %f1, %r1;
  atom.global.add.f32 %f2, [%rd20], %f1;
  cvt.rn.f64.u32 %fd1, %r1;
  atom.global.add.f64 %fd2, [%rd20+8], %fd1;
  bar.sync 0;
  ld.shared.u32 %r3, [counters];
  ld.shared.u64 %rd5, [counters+8];
  @%p1 st.global.u32 [%rd20+16], %r3;
  @%p1 st.global.u64 [%rd20+24], %rd5;
)"),
        {}, 32);
  auto out = r.result<uint32_t>(8);
  float f;
  std::memcpy(&f, &out[0], 4);
  double d;
  std::memcpy(&d, &out[2], 8);
  EXPECT_EQ(f, 496.0f);
  EXPECT_EQ(d, 496.0);
  EXPECT_EQ(out[4], 64u);
  EXPECT_EQ(out[6], 96u);
}

// ------------------------------------------------------------------ warp-level

/// Runs `body` for 32 threads; it leaves a per-lane u32 in %r31, stored to out[tid].
std::vector<uint32_t> run_warp(const std::string& body, exec::DivergenceMode mode = exec::DivergenceMode::Ipdom) {
  MemRun r(mode);
  r.run(mem_kernel("", "  mov.u32 %r31, 0xdeadbeef;\n" + body + R"(
  mul.wide.u32 %rd30, %r1, 4;
  add.s64 %rd30, %rd20, %rd30;
  st.global.u32 [%rd30], %r31;
)"),
        {}, 128);
  return r.result<uint32_t>(32);
}

/// Warp-level instructions behave the same under both divergence models.
class SemanticsWarp : public ::testing::TestWithParam<exec::DivergenceMode> {};

INSTANTIATE_TEST_SUITE_P(Divergence, SemanticsWarp,
                         ::testing::Values(exec::DivergenceMode::Ipdom, exec::DivergenceMode::Its),
                         [](const ::testing::TestParamInfo<exec::DivergenceMode>& i) {
                           return std::string(i.param == exec::DivergenceMode::Ipdom ? "ipdom" : "its");
                         });

TEST_P(SemanticsWarp, ShflDownUpBflyIdx) {
  auto run_warp = [](const std::string& body) { return tlmgpu::run_warp(body, GetParam()); };
  // Values 100 + lane; the predicate output goes into bit 16.
  const std::string pre = "add.u32 %r2, %r1, 100;\n";
  auto with_pred = "selp.u32 %r4, 0x10000, 0, %p1; or.b32 %r31, %r3, %r4;";
  auto down = run_warp(pre + "shfl.sync.down.b32 %r3|%p1, %r2, 3, 0x1f, 0xffffffff;" + with_pred);
  auto up = run_warp(pre + "shfl.sync.up.b32 %r3|%p1, %r2, 3, 0, 0xffffffff;" + with_pred);
  auto bfly = run_warp(pre + "shfl.sync.bfly.b32 %r3|%p1, %r2, 5, 0x1f, 0xffffffff;" + with_pred);
  auto idx = run_warp(pre + "shfl.sync.idx.b32 %r3|%p1, %r2, 7, 0x1f, 0xffffffff;" + with_pred);
  // Width 8 segments: idx c = ((32-8)<<8)|0x1f, down c = ((32-8)<<8)|0x1f, up c = (32-8)<<8.
  auto idx8 = run_warp(pre + "shfl.sync.idx.b32 %r3|%p1, %r2, 2, 0x181f, 0xffffffff;" + with_pred);
  auto down8 = run_warp(pre + "shfl.sync.down.b32 %r3|%p1, %r2, 2, 0x181f, 0xffffffff;" + with_pred);
  auto up8 = run_warp(pre + "shfl.sync.up.b32 %r3|%p1, %r2, 2, 0x1800, 0xffffffff;" + with_pred);
  // Clamp below 31: down with c = 15 stops at lane 15.
  auto down_clamp = run_warp(pre + "shfl.sync.down.b32 %r3|%p1, %r2, 1, 15, 0xffffffff;" + with_pred);
  for (unsigned l = 0; l < 32; ++l) {
    auto v = [](unsigned src, bool ok) { return 100 + src + (ok ? 0x10000u : 0); };
    EXPECT_EQ(down[l], l + 3 <= 31 ? v(l + 3, true) : v(l, false)) << l;
    EXPECT_EQ(up[l], l >= 3 ? v(l - 3, true) : v(l, false)) << l;
    EXPECT_EQ(bfly[l], v(l ^ 5, true)) << l;
    EXPECT_EQ(idx[l], v(7, true)) << l;
    EXPECT_EQ(idx8[l], v((l & ~7u) | 2, true)) << l;
    EXPECT_EQ(down8[l], (l & 7) + 2 <= 7 ? v(l + 2, true) : v(l, false)) << l;
    EXPECT_EQ(up8[l], (l & 7) >= 2 ? v(l - 2, true) : v(l, false)) << l;
    EXPECT_EQ(down_clamp[l], l + 1 <= 15 ? v(l + 1, true) : v(l, false)) << l;
  }
}

TEST_P(SemanticsWarp, ShflWithPartialMaskKeepsOwnValueForAbsentSource) {
  auto run_warp = [](const std::string& body) { return tlmgpu::run_warp(body, GetParam()); };
  auto out = run_warp(R"(
  add.u32 %r2, %r1, 100;
  setp.lt.u32 %p2, %r1, 16;
  @%p2 shfl.sync.down.b32 %r3|%p1, %r2, 1, 0x1f, 0xffff;
  @%p2 selp.u32 %r4, 0x10000, 0, %p1;
  @%p2 or.b32 %r31, %r3, %r4;
)");
  for (unsigned l = 0; l < 15; ++l) EXPECT_EQ(out[l], 100 + l + 1 + 0x10000u) << l;
  EXPECT_EQ(out[15], 115u) << "lane 16 is not executing: own value, predicate false";
  for (unsigned l = 16; l < 32; ++l) EXPECT_EQ(out[l], 0xdeadbeefu) << l;
}

TEST_P(SemanticsWarp, VoteWithPartialMask) {
  auto run_warp = [](const std::string& body) { return tlmgpu::run_warp(body, GetParam()); };
  // Lanes 0..19 execute; the voted predicate is (lane % 4 == 1) or (lane < 30).
  auto body = [](const std::string& vote) {
    return R"(
  setp.lt.u32 %p2, %r1, 20;
  and.b32 %r2, %r1, 3;
  setp.eq.u32 %p3, %r2, 1;
  setp.lt.u32 %p4, %r1, 30;
  setp.ge.u32 %p5, %r1, 30;
)" + vote;
  };
  auto ballot = run_warp(body("@%p2 vote.sync.ballot.b32 %r31, %p3, 0xfffff;"));
  auto ballot_neg = run_warp(body("@%p2 vote.sync.ballot.b32 %r31, !%p3, 0xfffff;"));
  const std::string sel = "@%p2 selp.u32 %r31, 1, 0, %p1;";
  auto any = run_warp(body("@%p2 vote.sync.any.pred %p1, %p3, 0xfffff;" + sel));
  auto all_mixed = run_warp(body("@%p2 vote.sync.all.pred %p1, %p3, 0xfffff;" + sel));
  auto all_true = run_warp(body("@%p2 vote.sync.all.pred %p1, %p4, 0xfffff;" + sel));
  auto any_none = run_warp(body("@%p2 vote.sync.any.pred %p1, %p5, 0xfffff;" + sel));
  auto uni_true = run_warp(body("@%p2 vote.sync.uni.pred %p1, %p4, 0xfffff;" + sel));
  auto uni_false = run_warp(body("@%p2 vote.sync.uni.pred %p1, %p3, 0xfffff;" + sel));
  auto active = run_warp(R"(
  setp.lt.u32 %p2, %r1, 20;
  @%p2 activemask.b32 %r31;
)");
  const uint32_t ones = 0x22222u;  // lanes 1, 5, 9, 13, 17
  for (unsigned l = 0; l < 32; ++l) {
    const bool in = l < 20;
    const uint32_t untouched = 0xdeadbeefu;
    EXPECT_EQ(ballot[l], in ? ones : untouched) << l;
    EXPECT_EQ(ballot_neg[l], in ? (0xfffffu & ~ones) : untouched) << l;
    EXPECT_EQ(any[l], in ? 1u : untouched) << l;
    EXPECT_EQ(all_mixed[l], in ? 0u : untouched) << l;
    EXPECT_EQ(all_true[l], in ? 1u : untouched) << l;
    EXPECT_EQ(any_none[l], in ? 0u : untouched) << l;
    EXPECT_EQ(uni_true[l], in ? 1u : untouched) << l;
    EXPECT_EQ(uni_false[l], in ? 0u : untouched) << l;
    EXPECT_EQ(active[l], in ? 0xfffffu : untouched) << l;
  }
}

TEST_P(SemanticsWarp, MatchAny) {
  auto run_warp = [](const std::string& body) { return tlmgpu::run_warp(body, GetParam()); };
  auto out = run_warp(R"(
  shr.u32 %r2, %r1, 2;
  match.any.sync.b32 %r31, %r2, 0xffffffff;
)");
  auto out64 = run_warp(R"(
  and.b32 %r2, %r1, 1;
  cvt.u64.u32 %rd2, %r2;
  shl.b64 %rd3, %rd2, 40;
  match.any.sync.b64 %r31, %rd3, 0xffffffff;
)");
  auto partial = run_warp(R"(
  shr.u32 %r2, %r1, 2;
  setp.ne.u32 %p1, %r1, 5;
  @%p1 match.any.sync.b32 %r31, %r2, 0xffffffdf;
)");
  for (unsigned l = 0; l < 32; ++l) {
    EXPECT_EQ(out[l], 0xfu << (4 * (l / 4))) << l;
    EXPECT_EQ(out64[l], (l & 1) ? 0xaaaaaaaau : 0x55555555u) << l;
    if (l == 5) EXPECT_EQ(partial[l], 0xdeadbeefu);
    else EXPECT_EQ(partial[l], (0xfu << (4 * (l / 4))) & ~0x20u) << l;
  }
}

TEST_P(SemanticsWarp, MatchAll) {
  auto run_warp = [](const std::string& body) { return tlmgpu::run_warp(body, GetParam()); };
  const std::string sel = "@%p2 selp.u32 %r4, 0x100, 0, %p1; @%p2 or.b32 %r31, %r3, %r4;";
  // Lanes 0..7 hold equal values; lane 8 differs.
  auto equal = run_warp(R"(
  setp.lt.u32 %p2, %r1, 8;
  mov.u32 %r2, 42;
  @%p2 match.all.sync.b32 %r3|%p1, %r2, 0xff;
  )" + sel);
  auto differ = run_warp(R"(
  setp.lt.u32 %p2, %r1, 9;
  setp.eq.u32 %p3, %r1, 8;
  selp.u32 %r2, 7, 42, %p3;
  @%p2 match.all.sync.b32 %r3|%p1, %r2, 0x1ff;
  )" + sel);
  for (unsigned l = 0; l < 32; ++l) {
    EXPECT_EQ(equal[l], l < 8 ? 0xffu | 0x100u : 0xdeadbeefu) << l;
    EXPECT_EQ(differ[l], l < 9 ? 0u : 0xdeadbeefu) << l;
  }
}

TEST_P(SemanticsWarp, ShflAfterDivergenceReconverges) {
  // Both halves of the warp take different paths, then shuffle together.
  auto out = tlmgpu::run_warp(R"(
  setp.lt.u32 %p1, %r1, 16;
  @%p1 bra LOW;
  mul.lo.u32 %r2, %r1, 3;
  bra.uni JOIN;
LOW:
  mul.lo.u32 %r2, %r1, 5;
JOIN:
  shfl.sync.bfly.b32 %r31, %r2, 16, 0x1f, 0xffffffff;
)",
                              GetParam());
  for (unsigned l = 0; l < 32; ++l) {
    const unsigned src = l ^ 16;
    EXPECT_EQ(out[l], src < 16 ? src * 5 : src * 3) << l;
  }
}

TEST(SemanticsMemory, PrmtModesAndReductions) {
  MemRun r;
  r.run(mem_kernel("", R"(
  mov.u32 %r2, 0x33221100;
  mov.u32 %r3, 0x77665544;
  and.b32 %r4, %r1, 3;
  prmt.b32.f4e %r5, %r2, %r3, %r4;
  prmt.b32.rc8 %r6, %r2, %r3, %r4;
  setp.lt.u32 %p1, %r1, 4;
  selp.b32 %r7, %r5, %r6, %p1;
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd20, %rd2;
  st.global.u32 [%rd3], %r7;
  sub.s32 %r8, 0, %r1;
  red.global.add.u32 [%rd21], %r1;
  red.global.min.s32 [%rd21+4], %r8;
  red.global.add.f32 [%rd21+8], 0f3F000000;
)"),
        std::vector<uint8_t>(12), 128);
  auto out = r.result<uint32_t>(32);
  const uint32_t bytes[8] = {0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77};
  for (unsigned l = 0; l < 32; ++l) {
    const unsigned s = l & 3;
    const uint32_t f4e = bytes[s] | bytes[s + 1] << 8 | bytes[s + 2] << 16 | bytes[s + 3] << 24;
    const uint32_t rc8 = bytes[s] * 0x01010101u;
    EXPECT_EQ(out[l], l < 4 ? f4e : rc8) << l;
  }
  auto red = r.dev.download<uint32_t>(r.in, 3);
  EXPECT_EQ(red[0], 496u);
  EXPECT_EQ(red[1], uint32_t(-31));
  EXPECT_EQ(red[2], fb(16.0f));
}

TEST(SemanticsMemory, RepeatedSameValueStoreIsNoProgress) {
  // A spin loop that keeps storing the value already in memory must trip the
  // watchdog; the same loop storing a changing value must not (it ends).
  const std::string spin = R"(
  mov.u32 %r2, 0;
SPIN:
  st.global.u32 [%rd20], %r2;
  bra.uni SPIN;
)";
  MemRun r(exec::DivergenceMode::Ipdom, 20000);
  try {
    r.run(mem_kernel("", spin), {}, 4);
    FAIL() << "expected the watchdog to end the kernel";
  } catch (const exec::DeviceFault& e) {
    EXPECT_EQ(e.kind(), exec::FaultKind::NoForwardProgress) << e.what();
  }
  MemRun counting(exec::DivergenceMode::Ipdom, 20000);
  counting.run(mem_kernel("", R"(
  mov.u32 %r2, 0;
COUNT:
  add.u32 %r2, %r2, 1;
  st.global.u32 [%rd20], %r2;
  setp.lt.u32 %p1, %r2, 100000;
  @%p1 bra COUNT;
)"),
               {}, 4);
  EXPECT_EQ(counting.result<uint32_t>(1)[0], 100000u);
}

// ------------------------------------------------------------------ faults

TEST(SemanticsFaults, MisalignedVectorLoadFaults) {
  MemRun r;
  try {
    r.run(mem_kernel("", "  ld.global.v2.u32 {%r2, %r3}, [%rd21+4];\n"), std::vector<uint8_t>(16), 8);
    FAIL() << "expected a device fault";
  } catch (const exec::DeviceFault& e) {
    EXPECT_EQ(e.kind(), exec::FaultKind::Misaligned) << e.what();
  }
}

TEST(SemanticsFaults, OutOfBoundsStoreFaultsForTheRightLane) {
  MemRun r;
  try {
    // out has 64 bytes: lanes 16.. write past its end.
    r.run(mem_kernel("", R"(
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd20, %rd2;
  st.global.u32 [%rd3], %r1;
)"),
          {}, 64);
    FAIL() << "expected a device fault";
  } catch (const exec::DeviceFault& e) {
    EXPECT_EQ(e.kind(), exec::FaultKind::OutOfBounds) << e.what();
    EXPECT_NE(std::string(e.what()).find("lane 16"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace tlmgpu
