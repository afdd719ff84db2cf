#include "model/ptx/half_ops.h"

#include <cmath>

#include "model/ptx/float_ops.h"

namespace tlmgpu::exec::fp {

namespace {

/// Field layout of a 16-bit format: mantissa bits, exponent range, encodings.
struct Layout {
  int mant;          ///< stored mantissa bits
  int emin, emax;    ///< unbiased exponent of the smallest / largest normal binade
  uint16_t inf;      ///< +infinity
  uint16_t one;      ///< +1.0
};

constexpr Layout layout(HalfFormat f) {
  return f == HalfFormat::F16 ? Layout{10, -14, 15, 0x7c00u, 0x3c00u} : Layout{7, -126, 127, 0x7f80u, 0x3f80u};
}

/// Exact sum of two doubles as hi + lo (TwoSum; lo = 0 when hi overflows).
void two_sum(double x, double y, double& hi, double& lo) {
  hi = x + y;
  if (!std::isfinite(hi)) {
    lo = 0.0;
    return;
  }
  const double yy = hi - x;
  lo = (x - (hi - yy)) + (y - yy);
}

bool is_subnormal(uint16_t h, HalfFormat f) {
  const Layout l = layout(f);
  return (h & l.inf) == 0 && (h & 0x7fffu) != 0;
}

/// Inputs of an arithmetic instruction: flushed under .ftz, as exact doubles.
double input(uint16_t h, const HalfArith& m) {
  return half_bits_to_double(m.ftz ? half_flush_subnormal(h, m.format) : h, m.format);
}

/// Result modifiers after the single rounding: .ftz, then .sat or .relu.
uint16_t finish(uint16_t h, const HalfArith& m) {
  const Layout l = layout(m.format);
  if (m.ftz) h = half_flush_subnormal(h, m.format);
  if (m.sat) {
    if (half_is_nan(h, m.format) || (h & 0x8000u)) return 0;  // NaN, negatives and -0 -> +0
    return h > l.one ? l.one : h;                             // positive: bit order is value order
  }
  if (m.relu && !half_is_nan(h, m.format) && (h & 0x8000u)) return 0;
  return h;
}

uint16_t round_result(double hi, double lo, const HalfArith& m) {
  return finish(round_double_to_half(hi, lo, m.format, ptx::Rounding::Rn), m);
}

}  // namespace

double half_bits_to_double(uint16_t h, HalfFormat f) {
  if (f == HalfFormat::BF16) return double(f32(uint32_t(h) << 16));  // bf16 is the top half of an f32
  return double(half_to_float(h));
}

bool half_is_nan(uint16_t h, HalfFormat f) {
  const Layout l = layout(f);
  return (h & l.inf) == l.inf && (h & uint16_t(~l.inf & 0x7fffu)) != 0;
}

uint16_t half_flush_subnormal(uint16_t h, HalfFormat f) { return is_subnormal(h, f) ? uint16_t(h & 0x8000u) : h; }

uint16_t round_double_to_half(double hi, double lo, HalfFormat f, ptx::Rounding r) {
  const Layout l = layout(f);
  if (std::isnan(hi)) return kCanonicalHalfNaN;
  const bool neg = std::signbit(hi);
  const uint16_t sign = neg ? 0x8000u : 0;
  if (std::isinf(hi)) return sign | l.inf;
  if (hi == 0.0) return sign;  // TwoSum gives lo == 0 with hi == 0
  // Residual direction relative to the magnitude: +1 the exact value is a
  // bit further from zero than |hi|, -1 a bit closer.
  const int residual = lo == 0.0 ? 0 : ((lo > 0) == (hi > 0) ? 1 : -1);
  const double a = std::fabs(hi);
  int e = 0;
  std::frexp(a, &e);  // a = m * 2^e, m in [0.5, 1)
  int exp = e - 1 < l.emin ? l.emin : e - 1;  // subnormals share the smallest exponent
  // n counts quanta (last-mantissa-bit units); frac is the part below one.
  double quantum = std::ldexp(1.0, exp - l.mant);
  double n = std::floor(a / quantum);
  const double frac = a / quantum - n;
  bool inexact = true;
  int vs_half = 0;  // remainder compared with half a quantum
  if (frac == 0.0) {
    if (residual == 0) {
      inexact = false;
    } else if (residual > 0) {
      vs_half = -1;
    } else {
      // Just below a representable value: the remainder is almost one quantum
      // of the binade below (half as large when n starts a binade).
      if (n == std::ldexp(1.0, l.mant) && exp > l.emin) {
        --exp;
        quantum *= 0.5;
        n = std::ldexp(1.0, l.mant + 1);
      }
      n -= 1.0;
      vs_half = 1;
    }
  } else {
    vs_half = frac < 0.5 ? -1 : frac > 0.5 ? 1 : residual;
  }
  bool up = false;
  switch (r) {
    case ptx::Rounding::Rz: case ptx::Rounding::Rzi: break;
    case ptx::Rounding::Rm: case ptx::Rounding::Rmi: up = neg && inexact; break;
    case ptx::Rounding::Rp: case ptx::Rounding::Rpi: up = !neg && inexact; break;
    default: up = inexact && (vs_half > 0 || (vs_half == 0 && std::fmod(n, 2.0) != 0.0)); break;
  }
  if (up) n += 1.0;
  if (n == std::ldexp(1.0, l.mant + 1)) {  // carried into the next binade
    n = std::ldexp(1.0, l.mant);
    ++exp;
  }
  if (exp > l.emax) {
    // Overflow: infinity unless the rounding goes toward zero.
    const bool toward_zero = r == ptx::Rounding::Rz || r == ptx::Rounding::Rzi ||
                             ((r == ptx::Rounding::Rm || r == ptx::Rounding::Rmi) && !neg) ||
                             ((r == ptx::Rounding::Rp || r == ptx::Rounding::Rpi) && neg);
    return toward_zero ? uint16_t(sign | (l.inf - 1)) : uint16_t(sign | l.inf);
  }
  const uint32_t count = uint32_t(n);
  const uint32_t hidden = 1u << l.mant;
  if (count < hidden) return uint16_t(sign | count);  // subnormal (exp == emin)
  const uint32_t biased = uint32_t(exp + (l.inf >> l.mant) / 2);  // bias = 15 / 127
  return uint16_t(sign | (biased << l.mant) | (count - hidden));
}

uint16_t half_add(uint16_t a, uint16_t b, const HalfArith& m) {
  double hi, lo;
  two_sum(input(a, m), input(b, m), hi, lo);
  return round_result(hi, lo, m);
}

uint16_t half_sub(uint16_t a, uint16_t b, const HalfArith& m) {
  double hi, lo;
  two_sum(input(a, m), -input(b, m), hi, lo);
  return round_result(hi, lo, m);
}

uint16_t half_mul(uint16_t a, uint16_t b, const HalfArith& m) {
  // Exact in double: at most 11 x 11 significant bits, exponents within range.
  return round_result(input(a, m) * input(b, m), 0.0, m);
}

uint16_t half_fma(uint16_t a, uint16_t b, uint16_t c, const HalfArith& m) {
  double hi, lo;
  two_sum(input(a, m) * input(b, m), input(c, m), hi, lo);  // the product is exact
  return round_result(hi, lo, m);
}

namespace {
uint16_t half_min_max(uint16_t a, uint16_t b, const HalfArith& m, bool want_max) {
  if (m.ftz) {
    a = half_flush_subnormal(a, m.format);
    b = half_flush_subnormal(b, m.format);
  }
  const bool na = half_is_nan(a, m.format), nb = half_is_nan(b, m.format);
  if (na || nb) {
    if (m.propagate_nan || (na && nb)) return kCanonicalHalfNaN;
    return na ? b : a;
  }
  const double x = half_bits_to_double(a, m.format), y = half_bits_to_double(b, m.format);
  if (x == y) {  // -0 orders below +0
    const bool a_neg = a & 0x8000u;
    return want_max ? (a_neg ? b : a) : (a_neg ? a : b);
  }
  return (want_max ? x > y : x < y) ? a : b;
}
}  // namespace

uint16_t half_min(uint16_t a, uint16_t b, const HalfArith& m) { return half_min_max(a, b, m, false); }
uint16_t half_max(uint16_t a, uint16_t b, const HalfArith& m) { return half_min_max(a, b, m, true); }

uint16_t half_neg(uint16_t a, const HalfArith& m) {
  return uint16_t((m.ftz ? half_flush_subnormal(a, m.format) : a) ^ 0x8000u);
}
uint16_t half_abs(uint16_t a, const HalfArith& m) {
  return uint16_t((m.ftz ? half_flush_subnormal(a, m.format) : a) & 0x7fffu);
}

uint16_t half_ex2(uint16_t a, const HalfArith& m) { return round_result(std::exp2(input(a, m)), 0.0, m); }
uint16_t half_tanh(uint16_t a, const HalfArith& m) { return round_result(std::tanh(input(a, m)), 0.0, m); }

bool half_compare(uint16_t a, uint16_t b, ptx::CmpOp op, const HalfArith& m) {
  const double x = input(a, m), y = input(b, m);
  const bool unordered = std::isnan(x) || std::isnan(y);
  switch (op) {
    case ptx::CmpOp::Eq: return x == y;
    case ptx::CmpOp::Ne: return !unordered && x != y;
    case ptx::CmpOp::Lt: return x < y;
    case ptx::CmpOp::Le: return x <= y;
    case ptx::CmpOp::Gt: return x > y;
    case ptx::CmpOp::Ge: return x >= y;
    case ptx::CmpOp::Equ: return unordered || x == y;
    case ptx::CmpOp::Neu: return x != y;
    case ptx::CmpOp::Ltu: return unordered || x < y;
    case ptx::CmpOp::Leu: return unordered || x <= y;
    case ptx::CmpOp::Gtu: return unordered || x > y;
    case ptx::CmpOp::Geu: return unordered || x >= y;
    case ptx::CmpOp::Num: return !unordered;
    case ptx::CmpOp::Nan: return unordered;
    default: return false;  // integer-only comparisons are rejected by the parser
  }
}

}  // namespace tlmgpu::exec::fp
