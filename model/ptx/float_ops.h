// Floating-point helpers for the PTX semantics: IEEE half conversion with
// every rounding mode, flush-to-zero, saturation, PTX min/max and directed
// rounding of host arithmetic.
#pragma once

#include <cfenv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "model/ptx/ptx_ir.h"

namespace tlmgpu::exec::fp {

inline uint32_t bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}
inline uint64_t bits(double d) {
  uint64_t u;
  std::memcpy(&u, &d, 8);
  return u;
}
inline float f32(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}
inline double f64(uint64_t u) {
  double d;
  std::memcpy(&d, &u, 8);
  return d;
}

/// PTX canonical NaNs (what the hardware writes for a generated NaN).
constexpr uint32_t kCanonicalNaN32 = 0x7fffffffu;
constexpr uint64_t kCanonicalNaN64 = 0x7fffffffffffffffull;
constexpr uint16_t kCanonicalNaN16 = 0x7fffu;
template <typename T>
inline T canonical_nan() {
  if constexpr (sizeof(T) == 4) return f32(kCanonicalNaN32);
  else return f64(kCanonicalNaN64);
}

/// .ftz: a subnormal f32 becomes a zero of the same sign.
inline float ftz(float f) {
  const uint32_t u = bits(f);
  return (u & 0x7f800000u) == 0 ? f32(u & 0x80000000u) : f;
}
inline double ftz(double d) { return d; }  // .ftz only affects f32

/// .sat: clamp to [0, 1]; NaN (and -0) become +0.
inline float saturate(float f) { return f > 0.0f ? (f < 1.0f ? f : 1.0f) : 0.0f; }
inline double saturate(double d) { return d > 0.0 ? (d < 1.0 ? d : 1.0) : 0.0; }

/// PTX min/max: a NaN operand yields the other one; -0 orders below +0.
template <typename T>
inline T ptx_min(T a, T b) {
  if (std::isnan(a)) return std::isnan(b) ? canonical_nan<T>() : b;
  if (std::isnan(b)) return a;
  if (a == b) return std::signbit(a) ? a : b;
  return a < b ? a : b;
}
template <typename T>
inline T ptx_max(T a, T b) {
  if (std::isnan(a)) return std::isnan(b) ? canonical_nan<T>() : b;
  if (std::isnan(b)) return a;
  if (a == b) return std::signbit(a) ? b : a;
  return a > b ? a : b;
}

/// Integer rounding of a float value (cvt .rni/.rzi/.rmi/.rpi); other modes
/// (and None) truncate, which is what PTX requires of float->int by default.
template <typename T>
inline T round_integral(T v, ptx::Rounding r) {
  switch (r) {
    case ptx::Rounding::Rni: case ptx::Rounding::Rn: return std::nearbyint(v);  // ties to even
    case ptx::Rounding::Rmi: case ptx::Rounding::Rm: return std::floor(v);
    case ptx::Rounding::Rpi: case ptx::Rounding::Rp: return std::ceil(v);
    default: return std::trunc(v);
  }
}

/// Directed rounding: the host FPU's rounding mode for one lane loop. Only
/// constructed for .rz/.rm/.rp (the default .rn needs nothing).
class RoundingScope {
 public:
  explicit RoundingScope(ptx::Rounding r) : old_(std::fegetround()) {
    std::fesetround(r == ptx::Rounding::Rz ? FE_TOWARDZERO
                    : r == ptx::Rounding::Rm ? FE_DOWNWARD
                                             : FE_UPWARD);
  }
  ~RoundingScope() { std::fesetround(old_); }
  RoundingScope(const RoundingScope&) = delete;
  RoundingScope& operator=(const RoundingScope&) = delete;

 private:
  int old_;
};

/// Pins a value so that the compiler neither constant-folds an operation on
/// it nor moves the operation out of a RoundingScope (GCC assumes the
/// default rounding mode without -frounding-math).
template <typename T>
inline T opaque(T v) {
#if defined(__x86_64__)
  if constexpr (std::is_floating_point_v<T>) {
    asm volatile("" : "+x"(v) : : "memory");
    return v;
  }
#endif
  asm volatile("" : "+m"(v) : : "memory");
  return v;
}

inline bool is_directed(ptx::Rounding r) {
  return r == ptx::Rounding::Rz || r == ptx::Rounding::Rm || r == ptx::Rounding::Rp;
}

/// IEEE binary16 <-> wider formats. The conversion to half is exact for every
/// rounding mode (Rn/None, Rz, Rm, Rp); NaN becomes the canonical half NaN.
uint16_t double_to_half(double x, ptx::Rounding r);
inline uint16_t float_to_half(float x, ptx::Rounding r) { return double_to_half(double(x), r); }
float half_to_float(uint16_t h);

}  // namespace tlmgpu::exec::fp
