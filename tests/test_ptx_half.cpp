// Half precision (.f16/.f16x2) and bfloat16 (.bf16/.bf16x2): the rounding
// helpers exhaustively over every 16-bit pattern, and kernels nvcc emitted
// from cuda_fp16.h / cuda_bf16.h (tests/ptx/breadth/half_math.{cu,ptx}) run
// on the device against a CPU reference. The reference here is independent of
// the model: it builds exact values as integers times powers of two and
// encodes them with integer arithmetic.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <functional>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "model/exec/kernel_context.h"
#include "model/ptx/float_ops.h"
#include "model/ptx/half_ops.h"
#include "model/ptx/ptx_parser.h"
#include "model/sm/instruction_timing.h"
#include "platform/gpu_device.h"

namespace tlmgpu {
namespace {

using platform::GpuDevice;
using platform::KernelArgs;
using u128 = unsigned __int128;

// ------------------------------------------------------------ reference

struct Format {
  int mant, emin, emax;
};
constexpr Format kF16{10, -14, 15};
constexpr Format kBF16{7, -126, 127};
enum class Mode { Rn, Rz, Rm, Rp };
constexpr uint16_t kNaN = 0x7fff;

int bias(Format f) { return f.emax; }
uint16_t inf_bits(Format f) { return uint16_t((2 * f.emax + 1) << f.mant); }
int msb(u128 v) {
  const uint64_t hi = uint64_t(v >> 64);
  return hi ? 127 - __builtin_clzll(hi) : 63 - __builtin_clzll(uint64_t(v));
}

/// An exact value (-1)^neg * mag * 2^exp; `sticky` says a nonzero amount
/// far below mag's last bit is added (+1) or subtracted (-1).
struct Exact {
  bool neg = false;
  u128 mag = 0;
  int exp = 0;
  int sticky = 0;
};

/// Encodes an exact finite value in the format under a rounding mode.
uint16_t encode(const Exact& x, Format f, Mode m) {
  const uint16_t sign = x.neg ? 0x8000u : 0;
  if (x.mag == 0) return sign;
  // Normalise to 100 significant bit positions so the sticky unit is far
  // below any rounding boundary.
  u128 mag = x.mag;
  int exp = x.exp;
  const int top = msb(mag);
  if (top < 100) {
    mag <<= (100 - top);
    exp -= 100 - top;
  }
  const bool sticky_only = x.sticky != 0;
  mag = x.sticky > 0 ? mag + 1 : x.sticky < 0 ? mag - 1 : mag;
  const int e_value = msb(mag) + exp;
  int q = std::max(e_value, f.emin) - f.mant;  // exponent of the last mantissa bit
  const int shift = q - exp;
  u128 n;
  bool above_half = false, at_half = false, inexact = false;
  if (shift <= 0) {
    n = mag << -shift;
  } else if (shift > 120) {
    n = 0;
    inexact = true;  // far below half a quantum
  } else {
    n = mag >> shift;
    const u128 rem = mag & ((u128(1) << shift) - 1), half = u128(1) << (shift - 1);
    inexact = rem != 0;
    above_half = rem > half;
    at_half = rem == half;
  }
  (void)sticky_only;
  bool up = false;
  switch (m) {
    case Mode::Rz: break;
    case Mode::Rm: up = x.neg && inexact; break;
    case Mode::Rp: up = !x.neg && inexact; break;
    case Mode::Rn: up = above_half || (at_half && (n & 1)); break;
  }
  if (up) ++n;
  if (n == (u128(1) << (f.mant + 1))) {
    n >>= 1;
    ++q;
  }
  const bool normal = n >= (u128(1) << f.mant);
  if (normal && q + f.mant > f.emax) {
    const bool toward_zero = m == Mode::Rz || (m == Mode::Rm && !x.neg) || (m == Mode::Rp && x.neg);
    return uint16_t(sign | (toward_zero ? inf_bits(f) - 1 : inf_bits(f)));
  }
  if (!normal) return uint16_t(sign | uint16_t(n));
  return uint16_t(sign | ((q + f.mant + bias(f)) << f.mant) | uint16_t(n - (u128(1) << f.mant)));
}

bool is_nan(uint16_t h, Format f) { return (h & 0x7fffu) > inf_bits(f); }
bool is_inf(uint16_t h, Format f) { return (h & 0x7fffu) == inf_bits(f); }

/// A finite 16-bit float as an exact value.
Exact decode(uint16_t h, Format f) {
  Exact x;
  x.neg = h & 0x8000u;
  const int e = (h >> f.mant) & (2 * f.emax + 1);
  const uint32_t frac = h & ((1u << f.mant) - 1);
  if (e == 0) {
    x.mag = frac;
    x.exp = f.emin - f.mant;
  } else {
    x.mag = frac | (1u << f.mant);
    x.exp = e - bias(f) - f.mant;
  }
  return x;
}

/// Value of a 16-bit float as a double (for ordering and for approximations).
double value(uint16_t h, Format f) {
  if (is_nan(h, f)) return NAN;
  if (is_inf(h, f)) return (h & 0x8000u) ? -INFINITY : INFINITY;
  const Exact x = decode(h, f);
  const double v = std::ldexp(double(uint64_t(x.mag)), x.exp);
  return x.neg ? -v : v;
}

/// A finite double as an exact value.
Exact decode_double(double d) {
  Exact x;
  uint64_t u;
  std::memcpy(&u, &d, 8);
  x.neg = u >> 63;
  const int e = int((u >> 52) & 0x7ff);
  const uint64_t frac = u & ((uint64_t(1) << 52) - 1);
  x.mag = e == 0 ? frac : (frac | (uint64_t(1) << 52));
  x.exp = (e == 0 ? 1 : e) - 1075;
  return x;
}

/// Exact a + b (round-to-nearest sign rule for an exact zero).
Exact exact_sum(Exact a, Exact b) {
  if (a.mag == 0 && b.mag == 0) return Exact{a.neg && b.neg, 0, 0, 0};
  if (a.mag == 0) return b;
  if (b.mag == 0) return a;
  if (a.exp < b.exp) std::swap(a, b);  // a has the larger last-bit exponent
  const int d = a.exp - b.exp;
  Exact r;
  if (d > 100) {
    // b is far below a's last bit: it only decides the direction.
    r = a;
    r.sticky = a.neg == b.neg ? 1 : -1;
    return r;
  }
  const u128 am = a.mag << d, bm = b.mag;
  r.exp = b.exp;
  if (a.neg == b.neg) {
    r.neg = a.neg;
    r.mag = am + bm;
  } else if (am >= bm) {
    r.neg = a.neg;
    r.mag = am - bm;
  } else {
    r.neg = b.neg;
    r.mag = bm - am;
  }
  if (r.mag == 0) r.neg = false;
  return r;
}

Exact exact_product(const Exact& a, const Exact& b) { return Exact{a.neg != b.neg, a.mag * b.mag, a.exp + b.exp, 0}; }

uint16_t flush(uint16_t h, Format f, bool ftz) {
  return ftz && ((h >> f.mant) & (2 * f.emax + 1)) == 0 ? uint16_t(h & 0x8000u) : h;
}

struct RefMods {
  bool ftz = false, sat = false, relu = false;
};

uint16_t post(uint16_t h, Format f, const RefMods& m) {
  h = flush(h, f, m.ftz);
  const uint16_t one = uint16_t(bias(f) << f.mant);
  if (m.sat) {
    if (is_nan(h, f) || (h & 0x8000u)) return 0;
    return value(h, f) > 1.0 ? one : h;
  }
  if (m.relu && !is_nan(h, f) && (h & 0x8000u)) return 0;
  return h;
}

/// IEEE a*b + c (fma) / a + b / a * b on 16-bit floats, round to nearest even.
uint16_t ref_fma(uint16_t a, uint16_t b, uint16_t c, Format f, const RefMods& m) {
  a = flush(a, f, m.ftz);
  b = flush(b, f, m.ftz);
  c = flush(c, f, m.ftz);
  if (is_nan(a, f) || is_nan(b, f) || is_nan(c, f)) return post(kNaN, f, m);
  const bool pneg = (a ^ b) & 0x8000u;
  const bool a0 = (a & 0x7fffu) == 0, b0 = (b & 0x7fffu) == 0;
  if ((is_inf(a, f) && b0) || (is_inf(b, f) && a0)) return post(kNaN, f, m);
  if (is_inf(a, f) || is_inf(b, f)) {
    if (is_inf(c, f) && bool(c & 0x8000u) != pneg) return post(kNaN, f, m);
    return post(uint16_t((pneg ? 0x8000u : 0) | inf_bits(f)), f, m);
  }
  if (is_inf(c, f)) return post(c, f, m);
  const Exact s = exact_sum(exact_product(decode(a, f), decode(b, f)), decode(c, f));
  return post(encode(s, f, Mode::Rn), f, m);
}
uint16_t ref_add(uint16_t a, uint16_t b, Format f, const RefMods& m) {
  const uint16_t one = uint16_t(bias(f) << f.mant);
  return ref_fma(a, one, b, f, m);  // a * 1 + b is exactly a + b
}
uint16_t ref_sub(uint16_t a, uint16_t b, Format f, const RefMods& m) {
  return is_nan(b, f) ? post(kNaN, f, m) : ref_add(a, uint16_t(b ^ 0x8000u), f, m);
}
uint16_t ref_mul(uint16_t a, uint16_t b, Format f, const RefMods& m) {
  // a * b + (-0): an exact -0 addend leaves every product (and its sign) alone.
  return ref_fma(a, b, 0x8000u, f, m);
}

/// PTX min/max: NaN operands yield the other (both NaN, or .NaN: canonical); -0 < +0.
uint16_t ref_minmax(uint16_t a, uint16_t b, Format f, bool want_max, bool nan_mode, bool ftz) {
  a = flush(a, f, ftz);
  b = flush(b, f, ftz);
  if (is_nan(a, f) || is_nan(b, f)) {
    if (nan_mode || (is_nan(a, f) && is_nan(b, f))) return kNaN;
    return is_nan(a, f) ? b : a;
  }
  const double x = value(a, f) - ((a & 0x8000u) && value(a, f) == 0 ? 1e-300 : 0);
  const double y = value(b, f) - ((b & 0x8000u) && value(b, f) == 0 ? 1e-300 : 0);
  if (x == y) return a;
  return (want_max ? x > y : x < y) ? a : b;
}

/// The comparison bit k of kernel half_compare (ordered 0..5, unordered 6..11).
bool ref_compare(double x, double y, int k) {
  const bool u = std::isnan(x) || std::isnan(y);
  switch (k) {
    case 0: return x == y;
    case 1: return !u && x != y;
    case 2: return x < y;
    case 3: return x <= y;
    case 4: return x > y;
    case 5: return x >= y;
    case 6: return u || x == y;
    case 7: return u || x != y;
    case 8: return u || x < y;
    case 9: return u || x <= y;
    case 10: return u || x > y;
    default: return u || x >= y;
  }
}

// ------------------------------------------------------------ unit: helpers

TEST(HalfRounding, DecodeEveryPattern) {
  for (uint32_t h = 0; h < 65536; ++h) {
    for (auto [fmt, f] : {std::pair{exec::fp::HalfFormat::F16, kF16}, std::pair{exec::fp::HalfFormat::BF16, kBF16}}) {
      const double model = exec::fp::half_bits_to_double(uint16_t(h), fmt);
      const double ref = value(uint16_t(h), f);
      if (std::isnan(ref)) {
        EXPECT_TRUE(std::isnan(model)) << std::hex << h;
        EXPECT_TRUE(exec::fp::half_is_nan(uint16_t(h), fmt)) << std::hex << h;
      } else {
        ASSERT_EQ(model, ref) << std::hex << h;
        ASSERT_EQ(std::signbit(model), std::signbit(ref)) << std::hex << h;
        EXPECT_FALSE(exec::fp::half_is_nan(uint16_t(h), fmt)) << std::hex << h;
      }
    }
  }
}

/// Every finite value, every midpoint between neighbours and values just
/// beside both (through the sticky residual and through nextafter), in every
/// rounding mode, for both formats.
TEST(HalfRounding, EveryValueMidpointAndNeighbourAllModes) {
  const ptx::Rounding modes[] = {ptx::Rounding::Rn, ptx::Rounding::Rz, ptx::Rounding::Rm, ptx::Rounding::Rp};
  const Mode ref_modes[] = {Mode::Rn, Mode::Rz, Mode::Rm, Mode::Rp};
  for (auto [fmt, f] : {std::pair{exec::fp::HalfFormat::F16, kF16}, std::pair{exec::fp::HalfFormat::BF16, kBF16}}) {
    for (uint32_t h = 0; h < 65536; ++h) {
      if (is_nan(uint16_t(h), f) || is_inf(uint16_t(h), f)) continue;
      const Exact x = decode(uint16_t(h), f);
      const double v = value(uint16_t(h), f);
      for (int k = 0; k < 4; ++k) {
        ASSERT_EQ(exec::fp::round_double_to_half(v, 0.0, fmt, modes[k]), uint16_t(h)) << std::hex << h;
        // The midpoint above |x| (an exact double), then a residual on either side.
        Exact mid = x;
        mid.mag = x.mag * 2 + 1;
        mid.exp = x.exp - 1;
        const double mv = std::ldexp(double(uint64_t(mid.mag)), mid.exp) * (x.neg ? -1 : 1);
        ASSERT_EQ(exec::fp::round_double_to_half(mv, 0.0, fmt, modes[k]), encode(mid, f, ref_modes[k]))
            << std::hex << h << " mode " << k;
        for (int s : {-1, 1}) {
          Exact beside = mid;
          beside.sticky = s;
          const double lo = (x.neg ? -1.0 : 1.0) * s * 1e-300;
          ASSERT_EQ(exec::fp::round_double_to_half(mv, lo, fmt, modes[k]), encode(beside, f, ref_modes[k]))
              << std::hex << h << " mode " << k << " side " << s;
          Exact at = x;  // just beside the representable value itself
          at.sticky = s;
          if (x.mag != 0) {
            const double vlo = (x.neg ? -1.0 : 1.0) * s * 1e-300;
            ASSERT_EQ(exec::fp::round_double_to_half(v, vlo, fmt, modes[k]), encode(at, f, ref_modes[k]))
                << std::hex << h << " mode " << k << " exact side " << s;
          }
          const double nv = std::nextafter(mv, s > 0 ? (x.neg ? -INFINITY : INFINITY) : 0.0);
          ASSERT_EQ(exec::fp::round_double_to_half(nv, 0.0, fmt, modes[k]), encode(decode_double(nv), f, ref_modes[k]))
              << std::hex << h << " mode " << k << " next " << s;
        }
      }
    }
  }
}

/// Conversions from f32 (a dense sweep over all exponents) and from f64, in
/// every rounding mode, as cvt does them.
TEST(HalfRounding, FromFloatSweep) {
  const ptx::Rounding modes[] = {ptx::Rounding::Rn, ptx::Rounding::Rz, ptx::Rounding::Rm, ptx::Rounding::Rp};
  const Mode ref_modes[] = {Mode::Rn, Mode::Rz, Mode::Rm, Mode::Rp};
  for (uint64_t u = 0; u < (uint64_t(1) << 32); u += 4093) {
    float x;
    const uint32_t b = uint32_t(u);
    std::memcpy(&x, &b, 4);
    if (!std::isfinite(x)) continue;
    for (int k = 0; k < 4; ++k) {
      const Exact e = decode_double(double(x));
      ASSERT_EQ(exec::fp::round_double_to_half(double(x), 0.0, exec::fp::HalfFormat::F16, modes[k]),
                encode(e, kF16, ref_modes[k])) << std::hex << b << " mode " << k;
      ASSERT_EQ(exec::fp::round_double_to_half(double(x), 0.0, exec::fp::HalfFormat::BF16, modes[k]),
                encode(e, kBF16, ref_modes[k])) << std::hex << b << " mode " << k;
      // The existing f16 conversion agrees with the new one.
      ASSERT_EQ(exec::fp::float_to_half(x, modes[k]),
                exec::fp::round_double_to_half(double(x), 0.0, exec::fp::HalfFormat::F16, modes[k]));
    }
  }
  EXPECT_EQ(exec::fp::round_double_to_half(NAN, 0.0, exec::fp::HalfFormat::BF16, ptx::Rounding::Rn), kNaN);
  EXPECT_EQ(exec::fp::round_double_to_half(-INFINITY, 0.0, exec::fp::HalfFormat::BF16, ptx::Rounding::Rz), 0xff80u);
}

/// Scalar arithmetic helpers against the reference on all pairs of a dense
/// set of patterns (every 61st, plus the specials).
TEST(HalfRounding, ArithmeticHelpersOnPatternPairs) {
  std::vector<uint16_t> pats;
  for (uint32_t h = 0; h < 65536; h += 61) pats.push_back(uint16_t(h));
  for (uint16_t h : {0x0000, 0x8000, 0x0001, 0x8001, 0x03ff, 0x0400, 0x3c00, 0xbc00, 0x7bff, 0xfbff, 0x7c00, 0xfc00,
                     0x7e00, 0x1000, 0x3c01, 0x7f7f, 0x0080, 0x007f, 0x3f80, 0xbf80, 0x7f80, 0xff80})
    pats.push_back(h);
  std::mt19937 rng(5);
  for (auto [fmt, f] : {std::pair{exec::fp::HalfFormat::F16, kF16}, std::pair{exec::fp::HalfFormat::BF16, kBF16}}) {
    for (int variant = 0; variant < 3; ++variant) {
      exec::fp::HalfArith m;
      m.format = fmt;
      RefMods r;
      if (fmt == exec::fp::HalfFormat::F16 && variant == 1) m.ftz = r.ftz = m.sat = r.sat = true;
      if (variant == 2) m.relu = r.relu = true;
      for (uint16_t a : pats)
        for (size_t j = 0; j < pats.size(); j += 3) {
          const uint16_t b = pats[j], c = pats[rng() % pats.size()];
          ASSERT_EQ(exec::fp::half_add(a, b, m), ref_add(a, b, f, r)) << std::hex << a << " + " << b;
          ASSERT_EQ(exec::fp::half_sub(a, b, m), ref_sub(a, b, f, r)) << std::hex << a << " - " << b;
          ASSERT_EQ(exec::fp::half_mul(a, b, m), ref_mul(a, b, f, r)) << std::hex << a << " * " << b;
          ASSERT_EQ(exec::fp::half_fma(a, b, c, m), ref_fma(a, b, c, f, r))
              << std::hex << a << " * " << b << " + " << c << " variant " << variant;
        }
    }
  }
}

// ------------------------------------------------------------ device kernels

std::string read_breadth_ptx(const std::string& name) {
  std::ifstream f(std::string(TLMGPU_SOURCE_DIR) + "/tests/ptx/breadth/" + name);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

/// The same kernels compiled for sm_75 (bf16 and min/max emulated in f32)
/// and for sm_80 / sm_90 (native bf16, min/max, fma.relu forms).
struct HalfCase {
  exec::DivergenceMode divergence;
  platform::SimulationMode mode;
  const char* ptx;
};

/// Input triples: all pairs of special values, then random patterns biased
/// toward halfway cases (an operand with a short mantissa next to 1.0).
struct Inputs {
  std::vector<uint16_t> a, b, c;
  size_t size() const { return a.size(); }
};

Inputs make_inputs(Format f, uint32_t seed, size_t random_count) {
  const bool bf = f.mant == kBF16.mant;
  std::vector<uint16_t> sp = bf ? std::vector<uint16_t>{0x0000, 0x8000, 0x0001, 0x8001, 0x007f, 0x0080, 0x8080,
                                                          0x3f80, 0xbf80, 0x3f81, 0x3b80, 0x3b00, 0x7f7f, 0xff7f,
                                                          0x7f80, 0xff80, 0x7fc0, 0x4040, 0x3f00, 0x0100, 0x5f00}
                                : std::vector<uint16_t>{0x0000, 0x8000, 0x0001, 0x8001, 0x03ff, 0x83ff, 0x0400,
                                                          0x8400, 0x3c00, 0xbc00, 0x3c01, 0x3bff, 0x1000, 0x1400,
                                                          0x7bff, 0xfbff, 0x7c00, 0xfc00, 0x7e00, 0x3800, 0x4200,
                                                          0x5bff, 0x0200, 0xb800, 0x7c01};
  Inputs in;
  std::mt19937 rng(seed);
  for (uint16_t x : sp)
    for (uint16_t y : sp) {
      in.a.push_back(x);
      in.b.push_back(y);
      in.c.push_back(sp[rng() % sp.size()]);
    }
  for (size_t i = 0; i < random_count; ++i) {
    uint16_t x = uint16_t(rng()), y = uint16_t(rng()), z = uint16_t(rng());
    if (i % 3 == 0) {  // near 1.0 plus a value about one ulp wide: halfway sums
      x = uint16_t((bias(f) << f.mant) | (rng() & ((1u << f.mant) - 1)));
      y = uint16_t(((bias(f) - f.mant - 1) << f.mant) | (rng() & 3));
    }
    in.a.push_back(x);
    in.b.push_back(y);
    in.c.push_back(z);
  }
  while (in.a.size() % 128) {
    in.a.push_back(0x3c00);
    in.b.push_back(0x3c00);
    in.c.push_back(0);
  }
  return in;
}

class HalfKernels : public ::testing::TestWithParam<HalfCase> {
 protected:
  HalfKernels() : dev(options()) { m = dev.load_module(read_breadth_ptx(GetParam().ptx), GetParam().ptx); }
  platform::DeviceOptions options() const {
    platform::DeviceOptions o;
    o.divergence = GetParam().divergence;
    o.mode = GetParam().mode;
    return o;
  }
  size_t random_count() const { return GetParam().mode == platform::SimulationMode::Timing ? 256 : 2048; }

  /// Runs kernel `name`(a, b, c, out, op) over the inputs; returns out.
  std::vector<uint16_t> run3(const char* name, const Inputs& in, int op, const std::vector<float>* f = nullptr) {
    const uint64_t da = dev.upload(in.a), db = dev.upload(in.b), dc = dev.upload(in.c),
                   dout = dev.allocate(in.size() * 2);
    KernelArgs args;
    args.ptr(da).ptr(db).ptr(dc).ptr(dout);
    if (f) args.ptr(dev.upload(*f));
    args.add<int32_t>(op);
    dev.launch(m, name, {uint32_t(in.size() / 128), 1, 1}, {128, 1, 1}, 0, args);
    return dev.download<uint16_t>(dout, in.size());
  }

  GpuDevice dev;
  platform::ModuleHandle m;
};

TEST_P(HalfKernels, ScalarArithmetic) {
  const Inputs in = make_inputs(kF16, 11, random_count());
  const RefMods plain, sat{false, true, false}, relu{false, false, true};
  struct Op {
    int code;
    const char* what;
    std::function<uint16_t(uint16_t, uint16_t, uint16_t)> ref;
  };
  const std::vector<Op> ops = {
      {0, "__hadd", [&](uint16_t a, uint16_t b, uint16_t) { return ref_add(a, b, kF16, plain); }},
      {1, "__hsub", [&](uint16_t a, uint16_t b, uint16_t) { return ref_sub(a, b, kF16, plain); }},
      {2, "__hmul", [&](uint16_t a, uint16_t b, uint16_t) { return ref_mul(a, b, kF16, plain); }},
      {3, "__hfma", [&](uint16_t a, uint16_t b, uint16_t c) { return ref_fma(a, b, c, kF16, plain); }},
      {4, "__hfma_relu", [&](uint16_t a, uint16_t b, uint16_t c) { return ref_fma(a, b, c, kF16, relu); }},
      {5, "__hneg", [&](uint16_t a, uint16_t, uint16_t) { return uint16_t(a ^ 0x8000u); }},
      {6, "__habs", [&](uint16_t a, uint16_t, uint16_t) { return uint16_t(a & 0x7fffu); }},
      {7, "__hmin", [&](uint16_t a, uint16_t b, uint16_t) { return ref_minmax(a, b, kF16, false, false, false); }},
      {8, "__hmax", [&](uint16_t a, uint16_t b, uint16_t) { return ref_minmax(a, b, kF16, true, false, false); }},
      {9, "__hmin_nan", [&](uint16_t a, uint16_t b, uint16_t) { return ref_minmax(a, b, kF16, false, true, false); }},
      {10, "__hmax_nan", [&](uint16_t a, uint16_t b, uint16_t) { return ref_minmax(a, b, kF16, true, true, false); }},
      {11, "__hadd_sat", [&](uint16_t a, uint16_t b, uint16_t) { return ref_add(a, b, kF16, sat); }},
      {12, "__hmul_sat", [&](uint16_t a, uint16_t b, uint16_t) { return ref_mul(a, b, kF16, sat); }},
      {13, "__hfma_sat", [&](uint16_t a, uint16_t b, uint16_t c) { return ref_fma(a, b, c, kF16, sat); }},
      {14, "__hsub_rn", [&](uint16_t a, uint16_t b, uint16_t) { return ref_sub(a, b, kF16, plain); }},
  };
  for (const Op& op : ops) {
    const auto out = run3("half_scalar", in, op.code);
    for (size_t i = 0; i < in.size(); ++i) {
      const uint16_t want = op.ref(in.a[i], in.b[i], in.c[i]);
      ASSERT_EQ(out[i], want) << op.what << std::hex << " a=" << in.a[i] << " b=" << in.b[i] << " c=" << in.c[i];
    }
  }
}

TEST_P(HalfKernels, ScalarDivisionIsCorrectlyRounded) {
  const Inputs in = make_inputs(kF16, 12, random_count());
  const auto out = run3("half_scalar", in, 15);
  for (size_t i = 0; i < in.size(); ++i) {
    const uint16_t a = in.a[i], b = in.b[i];
    const double x = value(a, kF16), y = value(b, kF16);
    const double q = x / y;
    uint16_t want;
    if (std::isnan(q)) {
      EXPECT_TRUE(is_nan(out[i], kF16)) << std::hex << a << " / " << b;
      continue;
    }
    if (std::isinf(q) || q == 0) {
      want = q == 0 ? uint16_t(std::signbit(q) ? 0x8000u : 0) : uint16_t((q < 0 ? 0x8000u : 0) | 0x7c00u);
    } else {
      // Correctly rounded quotient: the double quotient has 53 bits, far more
      // than a half needs; only exact halfway cases could be in doubt, and a
      // quotient of two 11-bit values is never exactly halfway unless exact.
      want = encode(decode_double(q), kF16, Mode::Rn);
    }
    ASSERT_EQ(out[i], want) << std::hex << a << " / " << b;
  }
}

TEST_P(HalfKernels, ScalarComparisons) {
  const Inputs in = make_inputs(kF16, 13, random_count());
  const uint64_t da = dev.upload(in.a), db = dev.upload(in.b), dout = dev.allocate(in.size() * 4);
  dev.launch(m, "half_compare", {uint32_t(in.size() / 128), 1, 1}, {128, 1, 1}, 0,
             KernelArgs().ptr(da).ptr(db).ptr(dout));
  const auto out = dev.download<uint32_t>(dout, in.size());
  for (size_t i = 0; i < in.size(); ++i) {
    const double x = value(in.a[i], kF16), y = value(in.b[i], kF16);
    uint32_t want = 0;
    for (int k = 0; k < 12; ++k) want |= uint32_t(ref_compare(x, y, k)) << k;
    want |= uint32_t(std::isnan(x)) << 12;
    want |= uint32_t(std::isinf(x)) << 13;
    ASSERT_EQ(out[i], want) << std::hex << in.a[i] << " vs " << in.b[i];
  }
}

/// Packs element pairs: lane i's low half from a[i], high half from a[i^1]
/// (so both halves see varied values).
std::vector<uint32_t> pack_pairs(const std::vector<uint16_t>& v) {
  std::vector<uint32_t> p(v.size());
  for (size_t i = 0; i < v.size(); ++i) p[i] = uint32_t(v[i]) | (uint32_t(v[i ^ 1]) << 16);
  return p;
}

TEST_P(HalfKernels, PackedArithmetic) {
  const Inputs in = make_inputs(kF16, 14, random_count());
  const auto a = pack_pairs(in.a), b = pack_pairs(in.b), c = pack_pairs(in.c);
  const uint64_t da = dev.upload(a), db = dev.upload(b), dc = dev.upload(c), dout = dev.allocate(a.size() * 4);
  const RefMods plain, sat{false, true, false}, relu{false, false, true};
  auto f16_one_if = [](bool t) { return uint16_t(t ? 0x3c00u : 0); };
  for (int op = 0; op <= 15; ++op) {
    dev.launch(m, "half2_ops", {uint32_t(a.size() / 128), 1, 1}, {128, 1, 1}, 0,
               KernelArgs().ptr(da).ptr(db).ptr(dc).ptr(dout).add<int32_t>(op));
    const auto out = dev.download<uint32_t>(dout, a.size());
    for (size_t i = 0; i < a.size(); ++i) {
      uint16_t want[2];
      for (int h = 0; h < 2; ++h) {
        const uint16_t x = uint16_t(a[i] >> (16 * h)), y = uint16_t(b[i] >> (16 * h)), z = uint16_t(c[i] >> (16 * h));
        const double xv = value(x, kF16), yv = value(y, kF16);
        switch (op) {
          case 0: want[h] = ref_add(x, y, kF16, plain); break;
          case 1: want[h] = ref_sub(x, y, kF16, plain); break;
          case 2: want[h] = ref_mul(x, y, kF16, plain); break;
          case 3: want[h] = ref_fma(x, y, z, kF16, plain); break;
          case 4: want[h] = ref_fma(x, y, z, kF16, relu); break;
          case 5: want[h] = uint16_t(x ^ 0x8000u); break;
          case 6: want[h] = uint16_t(x & 0x7fffu); break;
          case 7: want[h] = ref_minmax(x, y, kF16, false, false, false); break;
          case 8: want[h] = ref_minmax(x, y, kF16, true, false, false); break;
          case 9: want[h] = ref_minmax(x, y, kF16, false, true, false); break;
          case 10: want[h] = ref_minmax(x, y, kF16, true, true, false); break;
          case 11: want[h] = ref_fma(x, y, z, kF16, sat); break;
          case 12: want[h] = f16_one_if(ref_compare(xv, yv, 0)); break;
          case 13: want[h] = f16_one_if(ref_compare(xv, yv, 8)); break;
          case 14: want[h] = h == 0 ? uint16_t(a[i] >> 16) : uint16_t(b[i]); break;
          default: {
            // __floats2half2_rn(low(x) * 3, high(y) + 1): f32 arithmetic, then rounded to half.
            const float lo = float(value(uint16_t(a[i]), kF16)) * 3.0f;
            const float hi = float(value(uint16_t(b[i] >> 16), kF16)) + 1.0f;
            const float v = h == 0 ? lo : hi;
            want[h] = std::isnan(v) ? kNaN : encode(decode_double(double(v)), kF16, Mode::Rn);
            if (std::isinf(v)) want[h] = uint16_t((v < 0 ? 0x8000u : 0) | 0x7c00u);
            break;
          }
        }
      }
      const uint32_t w = uint32_t(want[0]) | (uint32_t(want[1]) << 16);
      ASSERT_EQ(out[i], w) << "op " << op << std::hex << " a=" << a[i] << " b=" << b[i] << " c=" << c[i];
    }
  }
}

TEST_P(HalfKernels, PackedComparisonsWriteOnePredicatePerHalf) {
  const Inputs in = make_inputs(kF16, 15, random_count());
  const auto a = pack_pairs(in.a), b = pack_pairs(in.b);
  const uint64_t da = dev.upload(a), db = dev.upload(b), dout = dev.allocate(a.size() * 8);
  dev.launch(m, "half2_compare", {uint32_t(a.size() / 128), 1, 1}, {128, 1, 1}, 0,
             KernelArgs().ptr(da).ptr(db).ptr(dout));
  const auto out = dev.download<uint32_t>(dout, 2 * a.size());
  for (size_t i = 0; i < a.size(); ++i) {
    bool r[2][12];
    for (int h = 0; h < 2; ++h)
      for (int k = 0; k < 12; ++k)
        r[h][k] = ref_compare(value(uint16_t(a[i] >> (16 * h)), kF16), value(uint16_t(b[i] >> (16 * h)), kF16), k);
    // __hbeq2 etc. are true when both halves compare true.
    const uint32_t want = uint32_t(r[0][0] && r[1][0]) | uint32_t(r[0][2] && r[1][2]) << 1 |
                          uint32_t(r[0][11] && r[1][11]) << 2 | uint32_t(r[0][1] && r[1][1]) << 3 |
                          uint32_t(r[0][6] && r[1][6]) << 4;
    const uint32_t mask = (r[0][0] ? 0xffffu : 0) | (r[1][0] ? 0xffff0000u : 0);
    ASSERT_EQ(out[2 * i], want) << std::hex << a[i] << " vs " << b[i];
    ASSERT_EQ(out[2 * i + 1], mask) << std::hex << a[i] << " vs " << b[i];
  }
}

TEST_P(HalfKernels, ApproximateFunctionsWithinOneUlp) {
  Inputs in = make_inputs(kF16, 16, random_count());
  const uint64_t da = dev.upload(in.a), dout = dev.allocate(in.size() * 2);
  for (int op = 0; op <= 8; ++op) {
    dev.launch(m, "half_math_fn", {uint32_t(in.size() / 128), 1, 1}, {128, 1, 1}, 0,
               KernelArgs().ptr(da).ptr(dout).add<int32_t>(op));
    const auto out = dev.download<uint16_t>(dout, in.size());
    for (size_t i = 0; i < in.size(); ++i) {
      const double x = value(in.a[i], kF16);
      double y;
      switch (op) {
        case 0: y = std::sqrt(x); break;
        case 1: y = std::exp(x); break;
        case 2: y = std::log(x); break;
        case 3: y = std::sin(x); break;
        case 4: y = std::cos(x); break;
        case 5: y = 1.0 / x; break;
        case 6: y = 1.0 / std::sqrt(x); break;
        case 7: y = std::exp2(x); break;
        default: y = std::tanh(x); break;
      }
      // sin/cos of large arguments lose accuracy in the f32 reduction the
      // library uses; compare them where the argument is moderate.
      if ((op == 3 || op == 4) && !(std::fabs(x) < 100.0)) continue;
      const double got = value(out[i], kF16);
      if (std::isnan(y)) {
        EXPECT_TRUE(std::isnan(got)) << "fn " << op << std::hex << " x=" << in.a[i];
        continue;
      }
      if (std::isinf(y) || std::fabs(y) > 65504.0) {
        EXPECT_TRUE(std::isinf(got) || std::fabs(got) >= 65504.0 * 0.999) << "fn " << op << std::hex << " x=" << in.a[i];
        continue;
      }
      // One ulp of the half result (the subnormal ulp below 2^-14), plus an
      // absolute slack for the approximations' behaviour near 0.
      const double ulp = std::ldexp(1.0, std::max(std::ilogb(y == 0 ? 1e-30 : y), -14) - 10);
      const double slack = (op == 3 || op == 4 || op == 2) ? 2 * ulp + 1e-3 * (op == 2) : 2 * ulp;
      EXPECT_LE(std::fabs(got - y), slack) << "fn " << op << std::hex << " x=" << in.a[i] << std::dec << " got " << got
                                            << " want " << y;
    }
  }
}

TEST_P(HalfKernels, ConversionsAllRoundings) {
  const size_t n = 1024;
  std::mt19937_64 rng(17);
  std::vector<float> f(n);
  std::vector<double> d(n);
  std::vector<int64_t> s(n);
  std::vector<uint16_t> h(n), bf(n);
  const float specials[] = {0.0f, -0.0f, 1.0f, 65504.0f, 65520.0f, 65519.99f, 1e-8f, 5.96e-8f, 2.98e-8f, -2.98e-8f,
                            INFINITY, -INFINITY, NAN, 3.4e38f, 1.0000001f, 0.33333334f, 1e-40f, -7.5f, 2.5f, 3.5f};
  for (size_t i = 0; i < n; ++i) {
    const uint32_t r = uint32_t(rng());
    float x;
    std::memcpy(&x, &r, 4);
    if (i < std::size(specials)) x = specials[i];
    else if (i % 2) x = float(int32_t(r % 200001) - 100000) / 64.0f;  // exact in float; many ties
    f[i] = x;
    d[i] = i % 3 ? double(x) * (1.0 + 1e-12) : double(x);
    const int64_t big = int64_t(rng());
    s[i] = i % 4 == 0 ? big : i % 4 == 1 ? int64_t(r % 140000) - 70000 : int64_t(int32_t(r));
    h[i] = uint16_t(rng());
    bf[i] = uint16_t(rng());
    if (i < 8) h[i] = uint16_t(0x7bff + i), bf[i] = uint16_t(0x7f7f + i);
  }
  const uint64_t df = dev.upload(f), dd = dev.upload(d), ds = dev.upload(s), dh = dev.upload(h), dbf = dev.upload(bf);
  const uint64_t hout = dev.allocate(8 * n * 2), bout = dev.allocate(4 * n * 2), fout = dev.allocate(2 * n * 4),
                 iout = dev.allocate(4 * n * 8);
  dev.launch(m, "half_convert", {uint32_t(n / 128), 1, 1}, {128, 1, 1}, 0,
             KernelArgs().ptr(df).ptr(dd).ptr(ds).ptr(dh).ptr(dbf).ptr(hout).ptr(bout).ptr(fout).ptr(iout));
  const auto ho = dev.download<uint16_t>(hout, 8 * n);
  const auto bo = dev.download<uint16_t>(bout, 4 * n);
  const auto fo = dev.download<float>(fout, 2 * n);
  const auto io = dev.download<int64_t>(iout, 4 * n);
  // Reference encoders from a double / an int64 (all exact as Exact values).
  auto from_double = [](double x, Format fm, Mode md) -> uint16_t {
    if (std::isnan(x)) return kNaN;
    if (std::isinf(x)) return uint16_t((x < 0 ? 0x8000u : 0) | inf_bits(fm));
    return encode(decode_double(x), fm, md);
  };
  auto from_int = [](int64_t v, bool is_unsigned, Format fm, Mode md) -> uint16_t {
    Exact e;
    if (is_unsigned) {
      e.mag = uint64_t(v);
    } else {
      e.neg = v < 0;
      e.mag = v < 0 ? u128(-(__int128(v))) : u128(v);
    }
    return encode(e, fm, md);
  };
  // Saturates in the integer type: converting a double at or beyond 2^63
  // (INT64_MAX as a double) to int64_t is undefined.
  auto to_int = [](double v, double (*rnd)(double), int64_t lo, int64_t hi) -> int64_t {
    if (std::isnan(v)) return 0;
    v = rnd(v);
    if (v <= double(lo)) return lo;
    if (v >= double(hi)) return hi;
    return int64_t(v);
  };
  for (size_t i = 0; i < n; ++i) {
    const char* names[] = {"rn", "rz", "rd", "ru", "double", "ll_rn", "ull_rd", "int_ru"};
    const uint16_t want[8] = {from_double(f[i], kF16, Mode::Rn), from_double(f[i], kF16, Mode::Rz),
                              from_double(f[i], kF16, Mode::Rm), from_double(f[i], kF16, Mode::Rp),
                              from_double(d[i], kF16, Mode::Rn), from_int(s[i], false, kF16, Mode::Rn),
                              from_int(s[i], true, kF16, Mode::Rm), from_int(int32_t(s[i]), false, kF16, Mode::Rp)};
    for (int k = 0; k < 8; ++k)
      ASSERT_EQ(ho[8 * i + k], want[k]) << "f16 " << names[k] << " of " << f[i] << " / " << d[i] << " / " << s[i];
    // __float2bfloat16 / _rz / __double2bfloat16 / __ll2bfloat16_rn.
    const uint16_t bwant[4] = {from_double(f[i], kBF16, Mode::Rn), from_double(f[i], kBF16, Mode::Rz),
                               from_double(d[i], kBF16, Mode::Rn), from_int(s[i], false, kBF16, Mode::Rn)};
    for (int k = 0; k < 4; ++k) {
      if (std::isnan(f[i]) && k < 3) {
        EXPECT_TRUE(is_nan(bo[4 * i + k], kBF16)) << i;
        continue;
      }
      ASSERT_EQ(bo[4 * i + k], bwant[k]) << "bf16 conversion " << k << " of " << f[i] << " / " << d[i] << " / " << s[i];
    }
    const double hv = value(h[i], kF16), bv = value(bf[i], kBF16);
    if (std::isnan(hv)) EXPECT_TRUE(std::isnan(fo[2 * i]));
    else EXPECT_EQ(double(fo[2 * i]), hv) << std::hex << h[i];
    if (std::isnan(bv)) EXPECT_TRUE(std::isnan(fo[2 * i + 1]));
    else EXPECT_EQ(double(fo[2 * i + 1]), bv) << std::hex << bf[i];
    EXPECT_EQ(io[4 * i + 0], to_int(hv, std::nearbyint, INT64_MIN, INT64_MAX)) << std::hex << h[i];
    EXPECT_EQ(io[4 * i + 1], to_int(hv, std::trunc, INT32_MIN, INT32_MAX)) << std::hex << h[i];
    EXPECT_EQ(io[4 * i + 2], to_int(hv, std::floor, 0, 65535)) << std::hex << h[i];
    // bf16 -> s64 saturates at the int64 range (values beyond it are exact powers of two).
    const double bt = std::isnan(bv) ? 0 : std::trunc(bv);
    const int64_t bi = std::isnan(bv) ? 0 : bt >= 9223372036854775808.0 ? INT64_MAX : bt <= -9223372036854775808.0 ? INT64_MIN : int64_t(bt);
    EXPECT_EQ(io[4 * i + 3], bi) << std::hex << bf[i];
  }
}

TEST_P(HalfKernels, Bfloat16AsSm75EmulatesIt) {
  const Inputs in = make_inputs(kBF16, 18, random_count());
  const RefMods plain;
  for (int op = 0; op <= 8; ++op) {
    const auto out = run3("bf16_emulated", in, op);
    for (size_t i = 0; i < in.size(); ++i) {
      const uint16_t x = in.a[i], y = in.b[i], z = in.c[i];
      uint16_t want;
      switch (op) {
        case 0: want = ref_add(x, y, kBF16, plain); break;
        case 1: want = ref_mul(x, y, kBF16, plain); break;
        case 2: want = ref_sub(x, y, kBF16, plain); break;
        case 3: want = uint16_t(x ^ 0x8000u); break;
        case 4: want = uint16_t(x & 0x7fffu); break;
        case 5: want = ref_minmax(x, y, kBF16, false, false, false); break;
        case 6: want = ref_minmax(x, y, kBF16, true, false, false); break;
        case 7: want = value(x, kBF16) < value(y, kBF16) ? x : y; break;
        default: {
          // s = (x,y) * (z,x) + (x,y) with a rounding after the product; r = s.lo + s.hi.
          const uint16_t s0 = ref_add(ref_mul(x, z, kBF16, plain), x, kBF16, plain);
          const uint16_t s1 = ref_add(ref_mul(y, x, kBF16, plain), y, kBF16, plain);
          want = ref_add(s0, s1, kBF16, plain);
          break;
        }
      }
      // The f32 emulation returns its own NaN patterns; any NaN is right there.
      if (is_nan(want, kBF16)) {
        ASSERT_TRUE(is_nan(out[i], kBF16)) << "op " << op << std::hex << " " << x << " " << y << " " << z;
        continue;
      }
      ASSERT_EQ(out[i], want) << "op " << op << std::hex << " a=" << x << " b=" << y << " c=" << z;
    }
  }
}

TEST_P(HalfKernels, NativeIsaForms) {
  const Inputs in = make_inputs(kBF16, 19, random_count());
  std::vector<float> f(in.size());
  std::mt19937 rng(20);
  for (size_t i = 0; i < f.size(); ++i) {
    const uint32_t r = rng();
    std::memcpy(&f[i], &r, 4);
    if (i % 5 == 0) f[i] = float(int(r % 4001) - 2000) / 4096.0f;
  }
  const RefMods plain, relu{false, false, true}, ftz{true, false, false}, ftz_sat{true, true, false};
  // cvt of an f32 to f16/bf16 in a mode, with .relu (negative and -0 -> +0).
  auto cvt_ref = [](float v, Format fm, Mode md, bool clamp_negative) -> uint16_t {
    if (std::isnan(v)) return kNaN;
    const uint16_t h = std::isinf(v) ? uint16_t((v < 0 ? 0x8000u : 0) | inf_bits(fm)) : encode(decode_double(v), fm, md);
    return clamp_negative && (h & 0x8000u) ? 0 : h;
  };
  for (int op = 0; op <= 24; ++op) {
    const auto out = run3("half_native_isa", in, op, &f);
    for (size_t i = 0; i < in.size(); ++i) {
      const uint16_t x = in.a[i], y = in.b[i], z = in.c[i];
      const uint32_t p = (uint32_t(y) << 16) | x, q = (uint32_t(x) << 16) | z;
      auto half_of = [&](uint32_t v) { return uint16_t((i & 1) ? v >> 16 : v); };
      uint16_t want;
      bool approx = false;
      switch (op) {
        case 0: want = ref_fma(x, y, z, kBF16, plain); break;
        case 1: want = ref_add(x, y, kBF16, plain); break;
        case 2: want = ref_sub(x, y, kBF16, plain); break;
        case 3: want = ref_mul(x, y, kBF16, plain); break;
        case 4: want = ref_minmax(x, y, kBF16, false, false, false); break;
        case 5: want = ref_minmax(x, y, kBF16, true, true, false); break;
        case 6: want = uint16_t(x ^ 0x8000u); break;
        case 7: want = uint16_t(x & 0x7fffu); break;
        case 8:
          want = std::isnan(f[i]) ? kNaN
                 : std::isinf(f[i]) ? uint16_t((f[i] < 0 ? 0x8000u : 0) | 0x7f80u)
                                    : encode(decode_double(f[i]), kBF16, Mode::Rn);
          break;
        case 9: want = ref_fma(x, y, z, kBF16, relu); break;
        case 10: want = ref_fma(x, y, z, kF16, ftz); break;
        case 11: want = ref_add(x, y, kF16, ftz); break;
        case 12: want = ref_mul(x, y, kF16, ftz_sat); break;
        case 13: case 14: case 19: approx = true; want = 0; break;
        case 15: approx = true; want = 0; break;
        case 16:
          want = std::isnan(f[i]) ? kNaN
                 : std::isinf(f[i]) ? uint16_t((f[i] < 0 ? 0x8000u : 0) | 0x7c00u)
                                    : encode(decode_double(f[i]), kF16, Mode::Rz);
          break;
        case 17: {  // fma.rn.bf16x2 d, p, q, p
          const uint16_t lo = ref_fma(x, z, x, kBF16, plain), hi = ref_fma(y, x, y, kBF16, plain);
          want = half_of(uint32_t(lo) | (uint32_t(hi) << 16));
          break;
        }
        case 18: {  // min.NaN.f16x2 d, p, q
          const uint16_t lo = ref_minmax(x, z, kF16, false, true, false), hi = ref_minmax(y, x, kF16, false, true, false);
          want = half_of(uint32_t(lo) | (uint32_t(hi) << 16));
          break;
        }
        case 20: {  // setp.ltu.bf16x2 p|q: p from the low halves, q from the high
          const bool lo = ref_compare(value(x, kBF16), value(z, kBF16), 8);
          const bool hi = ref_compare(value(y, kBF16), value(x, kBF16), 8);
          want = uint16_t(lo | (hi << 1));
          break;
        }
        case 21:  // set.gt.bf16.f32 d, f, 0.5: 1.0 or 0.0 in bf16
          want = f[i] > 0.5f ? 0x3f80u : 0;
          break;
        case 22:  // cvt.rn.relu.f16x2.f32 d, f, -0.75f: f to the high half
          want = half_of(uint32_t(cvt_ref(f[i] * -0.75f, kF16, Mode::Rn, true)) |
                         (uint32_t(cvt_ref(f[i], kF16, Mode::Rn, true)) << 16));
          break;
        case 23:  // cvt.rz.bf16x2.f32
          want = half_of(uint32_t(cvt_ref(f[i] * -0.75f, kBF16, Mode::Rz, false)) |
                         (uint32_t(cvt_ref(f[i], kBF16, Mode::Rz, false)) << 16));
          break;
        default:  // cvt.rn.relu.bf16.f32
          want = cvt_ref(f[i], kBF16, Mode::Rn, true);
          break;
      }
      (void)p;
      (void)q;
      if (approx) {
        // ex2.approx.f16 / tanh.approx.f16 / ex2.approx.ftz.bf16 / ex2.approx.f16x2: within one ulp.
        const Format fm = op == 15 ? kBF16 : kF16;
        const uint16_t arg = op == 19 ? ((i & 1) ? y : x) : x;
        double xv = value(arg, fm);
        if (op == 15 && ((arg >> 7) & 0xff) == 0) xv = 0;  // .ftz input
        const double yv = op == 14 ? std::tanh(xv) : std::exp2(xv);
        const double got = value(out[i], fm);
        if (std::isnan(yv)) {
          EXPECT_TRUE(std::isnan(got)) << op;
          continue;
        }
        const double maxv = fm.mant == 10 ? 65504.0 : 3.3895313892515355e38;
        if (std::fabs(yv) > maxv) {
          EXPECT_TRUE(std::isinf(got) || std::fabs(got) == maxv) << op << " " << xv;
          continue;
        }
        const double ulp = std::ldexp(1.0, std::max(std::ilogb(yv == 0 ? 1e-300 : yv), fm.emin) - fm.mant);
        EXPECT_LE(std::fabs(got - yv), ulp) << "op " << op << std::hex << " x=" << arg << std::dec << " got " << got;
        continue;
      }
      ASSERT_EQ(out[i], want) << "op " << op << std::hex << " a=" << x << " b=" << y << " c=" << z << " f=" << f[i];
    }
  }
}

INSTANTIATE_TEST_SUITE_P(
    Modes, HalfKernels,
    ::testing::Values(HalfCase{exec::DivergenceMode::Ipdom, platform::SimulationMode::Functional, "half_math.ptx"},
                      HalfCase{exec::DivergenceMode::Its, platform::SimulationMode::Functional, "half_math.ptx"},
                      HalfCase{exec::DivergenceMode::Ipdom, platform::SimulationMode::Timing, "half_math.ptx"},
                      HalfCase{exec::DivergenceMode::Ipdom, platform::SimulationMode::Functional, "half_math_sm80.ptx"},
                      HalfCase{exec::DivergenceMode::Ipdom, platform::SimulationMode::Functional, "half_math_sm90.ptx"}),
    [](const ::testing::TestParamInfo<HalfCase>& param_info) {
      std::string name = param_info.param.divergence == exec::DivergenceMode::Its ? "Its" : "Ipdom";
      name += param_info.param.mode == platform::SimulationMode::Timing ? "Timing" : "Functional";
      const std::string file = param_info.param.ptx;
      if (file.find("sm80") != std::string::npos) name += "Sm80";
      if (file.find("sm90") != std::string::npos) name += "Sm90";
      return name;
    });

// ------------------------------------------------------------ timing classes

/// 16-bit float arithmetic, comparisons and conversions issue to the SP
/// pipeline (the timing model and the LT cost model both use pipe_of);
/// ex2/tanh go to the SFU.
TEST(HalfTiming, ArithmeticInSpTranscendentalsInSfu) {
  const ptx::Module mod = ptx::parse_ptx(read_breadth_ptx("half_math.ptx"), "half_math.ptx");
  int sp = 0, sfu = 0;
  for (const ptx::Instruction& in : mod.code) {
    if (!ptx::type_is_half(in.type) && !ptx::type_is_half(in.type2)) continue;
    if (in.op == ptx::Opcode::Mov || in.op == ptx::Opcode::Ld || in.op == ptx::Opcode::St) continue;
    if (in.type == ptx::DataType::F64 || in.type2 == ptx::DataType::F64) continue;  // f64 side: the DP unit
    if (in.op == ptx::Opcode::Ex2 || in.op == ptx::Opcode::Tanh) {
      EXPECT_EQ(sm::pipe_of(in), sm::Pipe::Sfu);
      ++sfu;
    } else {
      EXPECT_EQ(sm::pipe_of(in), sm::Pipe::Sp) << ptx::opcode_name(in.op);
      ++sp;
    }
  }
  EXPECT_GT(sp, 100);
  EXPECT_GE(sfu, 5);
}

// ------------------------------------------------------------ parse errors

TEST(HalfParse, InvalidFormsAreLocatedErrors) {
  const std::string head = ".version 8.0\n.target sm_90\n.address_size 64\n.entry k()\n{\n.reg .b16 %h<4>;\n.reg .b32 %r<4>;\n"
                           ".reg .pred %p<3>;\n";
  const std::pair<const char*, const char*> bad[] = {
      {"add.rz.f16 %h1, %h2, %h3;", "rounds only to nearest"},
      {"fma.rn.sat.bf16 %h1, %h2, %h3, %h1;", "unsupported"},
      {"fma.rn.sat.relu.f16 %h1, %h2, %h3, %h1;", "unsupported"},
      {"add.relu.f16 %h1, %h2, %h3;", "unsupported"},
      {"setp.lt.f16x2 %p1, %r1, %r2;", "two predicates"},
      {"ex2.approx.bf16 %h1, %h2;", "unsupported"},
      {"sin.approx.f16 %h1, %h2;", "not valid"},
      {"set.lt.f32.f16 %r1, %h1, %h2;", "not valid"},
      {"min.NaN.u32 %r1, %r2, %r3;", "unsupported"},
      {"cvt.rn.f16x2.f32 %r1, %r2;", "expects 3 operands"},
      {"cvt.rm.f16x2.f32 %r1, %r2, %r3;", "unsupported"},
      {"cvt.rn.relu.f32.f16 %r1, %h1;", "not valid"},
  };
  for (auto [line, want] : bad) {
    const std::string src = head + line + "\nret;\n}\n";
    try {
      ptx::parse_ptx(src, "bad.ptx");
      ADD_FAILURE() << "accepted: " << line;
    } catch (const std::exception& e) {
      const std::string msg = e.what();
      EXPECT_NE(msg.find(want), std::string::npos) << line << " -> " << msg;
      EXPECT_NE(msg.find("bad.ptx:9:"), std::string::npos) << line << " -> " << msg;
    }
  }
}

}  // namespace
}  // namespace tlmgpu
