// 16-bit floating point of the PTX ISA: IEEE binary16 (.f16) and bfloat16
// (.bf16), scalar operations on raw bit patterns. The packed forms
// (.f16x2/.bf16x2) apply these to each half of a 32-bit register.
// Every result is the exact value rounded once (operations run in double,
// with the residual of an inexact double sum carried as a sticky bit).
#pragma once

#include <cstdint>

#include "model/ptx/ptx_ir.h"

namespace tlmgpu::exec::fp {

enum class HalfFormat : uint8_t { F16, BF16 };

/// Scalar format of a half-family data type (f16, f16x2 -> F16; bf16, bf16x2 -> BF16).
inline HalfFormat half_format_of(ptx::DataType t) {
  return t == ptx::DataType::BF16 || t == ptx::DataType::BF16x2 ? HalfFormat::BF16 : HalfFormat::F16;
}

/// The canonical NaN the hardware writes for a generated NaN (both formats).
constexpr uint16_t kCanonicalHalfNaN = 0x7fffu;

/// Exact value of a 16-bit float (NaN payloads are not kept).
double half_bits_to_double(uint16_t h, HalfFormat f);
bool half_is_nan(uint16_t h, HalfFormat f);
/// .ftz: a subnormal becomes a zero of the same sign.
uint16_t half_flush_subnormal(uint16_t h, HalfFormat f);

/// Rounds the exact value hi + lo to the format under rounding mode r (None
/// and Rn: to nearest even; the integer modes .rni... as their plain ones).
/// lo is the residual of an inexact double operation: |lo| is below half an
/// ulp of hi, so only its sign matters. NaN -> canonical NaN.
uint16_t round_double_to_half(double hi, double lo, HalfFormat f, ptx::Rounding r);

/// Modifiers of one arithmetic instruction.
struct HalfArith {
  HalfFormat format = HalfFormat::F16;
  bool ftz = false;        ///< flush subnormal inputs and results to signed zero
  bool sat = false;        ///< clamp the result to [0, 1]; NaN -> +0
  bool relu = false;       ///< fma .relu: negative results -> +0; NaN stays (canonical)
  bool propagate_nan = false;  ///< min/max .NaN: a NaN operand gives the canonical NaN
};

uint16_t half_add(uint16_t a, uint16_t b, const HalfArith& m);
uint16_t half_sub(uint16_t a, uint16_t b, const HalfArith& m);
uint16_t half_mul(uint16_t a, uint16_t b, const HalfArith& m);
uint16_t half_fma(uint16_t a, uint16_t b, uint16_t c, const HalfArith& m);
uint16_t half_min(uint16_t a, uint16_t b, const HalfArith& m);
uint16_t half_max(uint16_t a, uint16_t b, const HalfArith& m);
/// neg/abs only touch the sign bit (after .ftz).
uint16_t half_neg(uint16_t a, const HalfArith& m);
uint16_t half_abs(uint16_t a, const HalfArith& m);
/// ex2.approx / tanh.approx: the correctly rounded result (within the ISA's
/// error bounds for these approximations).
uint16_t half_ex2(uint16_t a, const HalfArith& m);
uint16_t half_tanh(uint16_t a, const HalfArith& m);
/// setp/set comparison of two 16-bit floats (unordered forms true on NaN).
bool half_compare(uint16_t a, uint16_t b, ptx::CmpOp op, const HalfArith& m);

}  // namespace tlmgpu::exec::fp
