#include "model/ptx/float_ops.h"

namespace tlmgpu::exec::fp {

uint16_t double_to_half(double x, ptx::Rounding r) {
  const uint16_t sign = std::signbit(x) ? 0x8000u : 0;
  if (std::isnan(x)) return kCanonicalNaN16;
  const double a = std::fabs(x);
  if (std::isinf(a)) return sign | 0x7c00u;
  if (a == 0.0) return sign;

  // Scale so that the half's last mantissa bit has weight 1; the value then
  // rounds to an integer n (all in double, exactly: only powers of two scale).
  int e = 0;
  std::frexp(a, &e);                       // a = m * 2^e, m in [0.5, 1)
  const int exp = e - 1 < -14 ? -14 : e - 1;  // subnormals share exponent -14
  const double quantum = std::ldexp(1.0, exp - 10);
  const double scaled = a / quantum;
  double n = std::floor(scaled);
  const double frac = scaled - n;
  bool up = false;
  switch (r) {
    case ptx::Rounding::Rz: case ptx::Rounding::Rzi: break;
    case ptx::Rounding::Rm: case ptx::Rounding::Rmi: up = sign && frac > 0; break;
    case ptx::Rounding::Rp: case ptx::Rounding::Rpi: up = !sign && frac > 0; break;
    default: up = frac > 0.5 || (frac == 0.5 && std::fmod(n, 2.0) != 0.0); break;
  }
  if (up) n += 1.0;
  const double v = n * quantum;
  if (v > 65504.0) {
    // Overflow: infinity unless the rounding goes toward zero.
    const bool to_inf = !(r == ptx::Rounding::Rz || r == ptx::Rounding::Rzi ||
                          ((r == ptx::Rounding::Rm || r == ptx::Rounding::Rmi) && !sign) ||
                          ((r == ptx::Rounding::Rp || r == ptx::Rounding::Rpi) && sign));
    return sign | (to_inf ? 0x7c00u : 0x7bffu);
  }
  if (v < 0x1p-14) return uint16_t(sign | uint16_t(v * 0x1p24));  // subnormal (or zero)
  std::frexp(v, &e);
  const uint16_t biased = uint16_t(e - 1 + 15);
  const uint16_t mant = uint16_t(std::ldexp(v, -(e - 1)) * 1024.0 - 1024.0);
  return uint16_t(sign | (biased << 10) | mant);
}

float half_to_float(uint16_t h) {
  const uint32_t sign = uint32_t(h & 0x8000u) << 16;
  const uint32_t e = (h >> 10) & 0x1fu;
  const uint32_t m = h & 0x3ffu;
  if (e == 31) return f32(sign | 0x7f800000u | (m << 13));  // inf / NaN (payload kept)
  const float mag = e == 0 ? std::ldexp(float(m), -24) : std::ldexp(float(m | 0x400u), int(e) - 25);
  return f32(sign | bits(mag));
}

}  // namespace tlmgpu::exec::fp
