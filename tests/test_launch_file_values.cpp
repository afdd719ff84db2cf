// Launch-file element values: bit access, conversions, order, and the value
// sources (constant, seeded random, sequence) buffers and expectations use.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "platform/launch_file_values.h"

namespace {

namespace lf = tlmgpu::platform::launch_file;
using lf::Elem;

std::vector<uint64_t> elements(const std::vector<uint8_t>& bytes, Elem e) {
  const unsigned w = lf::info(e).bytes;
  std::vector<uint64_t> out;
  for (size_t i = 0; i + w <= bytes.size(); i += w) out.push_back(lf::load_bits(&bytes[i], w));
  return out;
}

TEST(LaunchFileValues, BitsAreLittleEndianAndSignExtendByWidth) {
  uint8_t raw[4] = {};
  lf::store_bits(raw, 4, 0x11223344u);
  EXPECT_EQ(raw[0], 0x44);
  EXPECT_EQ(raw[3], 0x11);
  EXPECT_EQ(lf::load_bits(raw, 4), 0x11223344u);
  EXPECT_EQ(lf::load_bits(raw, 2), 0x3344u);
  EXPECT_EQ(lf::to_signed(Elem::S8, 0xff), -1);
  EXPECT_EQ(lf::to_signed(Elem::S16, 0x8000), -32768);
  EXPECT_EQ(lf::width_mask(Elem::U16), 0xffffu);
  EXPECT_EQ(lf::width_mask(Elem::U64), ~0ull);
  EXPECT_EQ(lf::elem_names(), "u8, s8, u16, s16, u32, s32, u64, s64, f32, f64");
}

TEST(LaunchFileValues, FloatTextReadsBackTheSameValue) {
  const uint64_t third = lf::from_double(Elem::F32, 1.0 / 3.0);
  EXPECT_EQ(lf::from_double(Elem::F32, std::stod(lf::to_text(Elem::F32, third))), third);
  const uint64_t tenth = lf::from_double(Elem::F64, 0.1);
  EXPECT_EQ(lf::to_text(Elem::F64, tenth), "0.10000000000000001");
  EXPECT_EQ(lf::to_text(Elem::S32, 0xfffffffeu), "-2");
  EXPECT_EQ(lf::to_text(Elem::U32, 0xfffffffeu), "4294967294");
}

TEST(LaunchFileValues, CompareOrdersByTypeWithNanLast) {
  EXPECT_LT(lf::compare_values(Elem::S32, 0xffffffffu, 1), 0);  // -1 < 1
  EXPECT_GT(lf::compare_values(Elem::U32, 0xffffffffu, 1), 0);
  const uint64_t nan = lf::from_double(Elem::F64, std::numeric_limits<double>::quiet_NaN());
  const uint64_t big = lf::from_double(Elem::F64, 1e300);
  EXPECT_GT(lf::compare_values(Elem::F64, nan, big), 0);
  EXPECT_EQ(lf::compare_values(Elem::F64, nan, nan), 0);
  EXPECT_TRUE(lf::is_zero(Elem::F32, lf::from_double(Elem::F32, -0.0)));
  EXPECT_TRUE(lf::is_zero(Elem::U8, 0x100));  // only the element's width counts
  EXPECT_EQ(lf::sum_type(Elem::F32), Elem::F64);
  EXPECT_EQ(lf::sum_type(Elem::S8), Elem::S64);
  EXPECT_EQ(lf::sum_type(Elem::U16), Elem::U64);
}

TEST(LaunchFileValues, FaultKindNamesRoundTrip) {
  for (auto k : {tlmgpu::exec::FaultKind::OutOfBounds, tlmgpu::exec::FaultKind::Trap,
                 tlmgpu::exec::FaultKind::NoForwardProgress, tlmgpu::exec::FaultKind::AssertionFailed}) {
    auto back = lf::fault_kind_from_name(lf::fault_kind_name(k));
    ASSERT_TRUE(back.has_value());
    EXPECT_EQ(*back, k);
  }
  EXPECT_FALSE(lf::fault_kind_from_name("segfault").has_value());
  EXPECT_EQ(lf::fault_kind_names(), "out_of_bounds, misaligned, trap, deadlock, no_forward_progress, unsupported, assert");
}

TEST(LaunchFileValues, SourcesMaterialiseTheirElements) {
  lf::Source c;
  c.kind = lf::Source::Kind::Constant;
  c.constant = 7;
  EXPECT_EQ(elements(lf::materialise(c, Elem::U16, 3), Elem::U16), (std::vector<uint64_t>{7, 7, 7}));

  lf::Source seq;
  seq.kind = lf::Source::Kind::Sequence;
  seq.start = 250;
  seq.step = 3;
  // Integers wrap at the element's width.
  EXPECT_EQ(elements(lf::materialise(seq, Elem::U8, 4), Elem::U8), (std::vector<uint64_t>{250, 253, 0, 3}));

  lf::Source zeros;
  EXPECT_EQ(lf::materialise(zeros, Elem::U32, 2), std::vector<uint8_t>(8, 0));
}

TEST(LaunchFileValues, RandomDataIsSeededAndWithinBounds) {
  lf::Source r;
  r.kind = lf::Source::Kind::Random;
  r.seed = 42;
  r.lo = uint64_t(-5) & 0xffffffffu;  // s32 -5
  r.hi = 5;
  const std::vector<uint64_t> a = elements(lf::materialise(r, Elem::S32, 1000), Elem::S32);
  EXPECT_EQ(a, elements(lf::materialise(r, Elem::S32, 1000), Elem::S32));
  bool saw_negative = false;
  for (uint64_t v : a) {
    const int64_t s = lf::to_signed(Elem::S32, v);
    EXPECT_GE(s, -5);
    EXPECT_LE(s, 5);
    saw_negative = saw_negative || s < 0;
  }
  EXPECT_TRUE(saw_negative);
  r.seed = 43;
  EXPECT_NE(a, elements(lf::materialise(r, Elem::S32, 1000), Elem::S32));
}

}  // namespace
