// Kernels for tests/test_ptx_half.cpp: half-precision (__half, __half2) and
// bfloat16 (__nv_bfloat16, __nv_bfloat162) arithmetic as cuda_fp16.h and
// cuda_bf16.h compile it for sm_75, plus inline asm for the sm_80+/sm_90
// bf16 and .NaN/.relu forms of the PTX ISA that sm_75 code never emits.
// Every value travels as raw 16-bit patterns so the test sees exact bits.
// Regenerate: nvcc -ptx -arch=sm_75 -O3 half_math.cu -o half_math.ptx
// (and -arch=sm_80 / sm_90 into half_math_sm80.ptx / half_math_sm90.ptx)
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cstdint>

// out[i] = op(a[i], b[i], c[i]) on scalar halves; op selects the intrinsic.
extern "C" __global__ void half_scalar(const __half* a, const __half* b, const __half* c, __half* out, int op) {
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  const __half x = a[i], y = b[i], z = c[i];
  __half r;
  switch (op) {
    case 0: r = __hadd(x, y); break;
    case 1: r = __hsub(x, y); break;
    case 2: r = __hmul(x, y); break;
    case 3: r = __hfma(x, y, z); break;
    case 4: r = __hfma_relu(x, y, z); break;
    case 5: r = __hneg(x); break;
    case 6: r = __habs(x); break;
    case 7: r = __hmin(x, y); break;
    case 8: r = __hmax(x, y); break;
    case 9: r = __hmin_nan(x, y); break;
    case 10: r = __hmax_nan(x, y); break;
    case 11: r = __hadd_sat(x, y); break;
    case 12: r = __hmul_sat(x, y); break;
    case 13: r = __hfma_sat(x, y, z); break;
    case 14: r = __hsub_rn(x, y); break;
    case 15: r = __hdiv(x, y); break;
    default: r = x; break;
  }
  out[i] = r;
}

// Comparisons of scalar halves: out[i] = bit k set when comparison k holds.
extern "C" __global__ void half_compare(const __half* a, const __half* b, unsigned* out) {
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  const __half x = a[i], y = b[i];
  unsigned m = 0;
  m |= unsigned(__heq(x, y)) << 0;
  m |= unsigned(__hne(x, y)) << 1;
  m |= unsigned(__hlt(x, y)) << 2;
  m |= unsigned(__hle(x, y)) << 3;
  m |= unsigned(__hgt(x, y)) << 4;
  m |= unsigned(__hge(x, y)) << 5;
  m |= unsigned(__hequ(x, y)) << 6;
  m |= unsigned(__hneu(x, y)) << 7;
  m |= unsigned(__hltu(x, y)) << 8;
  m |= unsigned(__hleu(x, y)) << 9;
  m |= unsigned(__hgtu(x, y)) << 10;
  m |= unsigned(__hgeu(x, y)) << 11;
  m |= unsigned(__hisnan(x)) << 12;
  m |= unsigned(__hisinf(x) != 0) << 13;
  out[i] = m;
}

// Packed pairs: out[i] = op(a[i], b[i], c[i]) lane-wise on __half2.
extern "C" __global__ void half2_ops(const __half2* a, const __half2* b, const __half2* c, __half2* out, int op) {
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  const __half2 x = a[i], y = b[i], z = c[i];
  __half2 r;
  switch (op) {
    case 0: r = __hadd2(x, y); break;
    case 1: r = __hsub2(x, y); break;
    case 2: r = __hmul2(x, y); break;
    case 3: r = __hfma2(x, y, z); break;
    case 4: r = __hfma2_relu(x, y, z); break;
    case 5: r = __hneg2(x); break;
    case 6: r = __habs2(x); break;
    case 7: r = __hmin2(x, y); break;
    case 8: r = __hmax2(x, y); break;
    case 9: r = __hmin2_nan(x, y); break;
    case 10: r = __hmax2_nan(x, y); break;
    case 11: r = __hfma2_sat(x, y, z); break;
    case 12: r = __heq2(x, y); break;    // set.eq.f16x2.f16x2: 1.0 / 0.0 per lane
    case 13: r = __hltu2(x, y); break;
    case 14: r = __halves2half2(__high2half(x), __low2half(y)); break;
    case 15: r = __floats2half2_rn(__low2float(x) * 3.0f, __high2float(y) + 1.0f); break;
    default: r = x; break;
  }
  out[i] = r;
}

// Packed comparisons: setp.*.f16x2 writes one predicate per half.
extern "C" __global__ void half2_compare(const __half2* a, const __half2* b, unsigned* out) {
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  const __half2 x = a[i], y = b[i];
  unsigned m = 0;
  m |= unsigned(__hbeq2(x, y)) << 0;
  m |= unsigned(__hblt2(x, y)) << 1;
  m |= unsigned(__hbgeu2(x, y)) << 2;
  m |= unsigned(__hbne2(x, y)) << 3;
  m |= unsigned(__hbequ2(x, y)) << 4;
  const unsigned eq_mask = __heq2_mask(x, y);  // per-lane all-ones masks
  out[2 * i] = m;
  out[2 * i + 1] = eq_mask;
}

// Functions nvcc expands into approximations: out[i] = fn(a[i]).
extern "C" __global__ void half_math_fn(const __half* a, __half* out, int op) {
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  const __half x = a[i];
  __half r;
  switch (op) {
    case 0: r = hsqrt(x); break;
    case 1: r = hexp(x); break;
    case 2: r = hlog(x); break;
    case 3: r = hsin(x); break;
    case 4: r = hcos(x); break;
    case 5: r = hrcp(x); break;
    case 6: r = hrsqrt(x); break;
    case 7: r = hexp2(x); break;
    case 8: r = htanh_approx(x); break;
    default: r = x; break;
  }
  out[i] = r;
}

// Conversions: f32/f64/integers <-> f16/bf16 with their rounding modes.
// fout gets floats, hout 8 halves per input, iout 4 ints per input.
extern "C" __global__ void half_convert(const float* f, const double* d, const long long* s, const __half* h,
                                        const __nv_bfloat16* bf, __half* hout, __nv_bfloat16* bout,
                                        float* fout, long long* iout) {
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  hout[8 * i + 0] = __float2half_rn(f[i]);
  hout[8 * i + 1] = __float2half_rz(f[i]);
  hout[8 * i + 2] = __float2half_rd(f[i]);
  hout[8 * i + 3] = __float2half_ru(f[i]);
  hout[8 * i + 4] = __double2half(d[i]);
  hout[8 * i + 5] = __ll2half_rn(s[i]);
  hout[8 * i + 6] = __ull2half_rd((unsigned long long)s[i]);
  hout[8 * i + 7] = __int2half_ru(int(s[i]));
  bout[4 * i + 0] = __float2bfloat16(f[i]);
  bout[4 * i + 1] = __float2bfloat16_rz(f[i]);
  bout[4 * i + 2] = __double2bfloat16(d[i]);
  bout[4 * i + 3] = __ll2bfloat16_rn(s[i]);
  fout[2 * i + 0] = __half2float(h[i]);
  fout[2 * i + 1] = __bfloat162float(bf[i]);
  iout[4 * i + 0] = __half2ll_rn(h[i]);
  iout[4 * i + 1] = __half2int_rz(h[i]);
  iout[4 * i + 2] = __half2ushort_rd(h[i]);
  iout[4 * i + 3] = __bfloat162ll_rz(bf[i]);
}

// bfloat16 arithmetic as sm_75 code gets it (emulated through f32 by cuda_bf16.h).
extern "C" __global__ void bf16_emulated(const __nv_bfloat16* a, const __nv_bfloat16* b,
                                         const __nv_bfloat16* c, __nv_bfloat16* out, int op) {
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  const __nv_bfloat16 x = a[i], y = b[i], z = c[i];
  __nv_bfloat16 r;
  switch (op) {
    case 0: r = __hadd(x, y); break;
    case 1: r = __hmul(x, y); break;
    case 2: r = __hsub(x, y); break;
    case 3: r = __hneg(x); break;
    case 4: r = __habs(x); break;
    case 5: r = __hmin(x, y); break;
    case 6: r = __hmax(x, y); break;
    case 7: r = __hlt(x, y) ? x : y; break;
    case 8: {
      const __nv_bfloat162 p = __halves2bfloat162(x, y), q = __halves2bfloat162(z, x);
      const __nv_bfloat162 s = __hadd2(__hmul2(p, q), p);
      r = __hadd(__low2bfloat16(s), __high2bfloat16(s));
      break;
    }
    default: r = x; break;
  }
  out[i] = r;
}

// The PTX ISA's native bf16 and newer f16 forms (sm_80 / sm_90), which a
// researcher's PTX for those targets contains: out[i] = op(a[i], b[i], c[i]).
extern "C" __global__ void half_native_isa(const uint16_t* a, const uint16_t* b, const uint16_t* c, uint16_t* out,
                                           const float* f, int op) {
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  const unsigned short x = a[i], y = b[i], z = c[i];
  unsigned short r = 0;
  switch (op) {
    case 0: asm("fma.rn.bf16 %0, %1, %2, %3;" : "=h"(r) : "h"(x), "h"(y), "h"(z)); break;
    case 1: asm("add.rn.bf16 %0, %1, %2;" : "=h"(r) : "h"(x), "h"(y)); break;
    case 2: asm("sub.rn.bf16 %0, %1, %2;" : "=h"(r) : "h"(x), "h"(y)); break;
    case 3: asm("mul.rn.bf16 %0, %1, %2;" : "=h"(r) : "h"(x), "h"(y)); break;
    case 4: asm("min.bf16 %0, %1, %2;" : "=h"(r) : "h"(x), "h"(y)); break;
    case 5: asm("max.NaN.bf16 %0, %1, %2;" : "=h"(r) : "h"(x), "h"(y)); break;
    case 6: asm("neg.bf16 %0, %1;" : "=h"(r) : "h"(x)); break;
    case 7: asm("abs.bf16 %0, %1;" : "=h"(r) : "h"(x)); break;
    case 8: asm("cvt.rn.bf16.f32 %0, %1;" : "=h"(r) : "f"(f[i])); break;
    case 9: asm("fma.rn.relu.bf16 %0, %1, %2, %3;" : "=h"(r) : "h"(x), "h"(y), "h"(z)); break;
    case 10: asm("fma.rn.ftz.f16 %0, %1, %2, %3;" : "=h"(r) : "h"(x), "h"(y), "h"(z)); break;
    case 11: asm("add.ftz.f16 %0, %1, %2;" : "=h"(r) : "h"(x), "h"(y)); break;
    case 12: asm("mul.rn.ftz.sat.f16 %0, %1, %2;" : "=h"(r) : "h"(x), "h"(y)); break;
    case 13: asm("ex2.approx.f16 %0, %1;" : "=h"(r) : "h"(x)); break;
    case 14: asm("tanh.approx.f16 %0, %1;" : "=h"(r) : "h"(x)); break;
    case 15: asm("ex2.approx.ftz.bf16 %0, %1;" : "=h"(r) : "h"(x)); break;
    case 16: asm("cvt.rz.f16.f32 %0, %1;" : "=h"(r) : "f"(f[i])); break;
    case 17: {
      unsigned p = (unsigned(y) << 16) | x, q = (unsigned(x) << 16) | z, s;
      asm("fma.rn.bf16x2 %0, %1, %2, %1;" : "=r"(s) : "r"(p), "r"(q));
      r = (unsigned short)((i & 1) ? s >> 16 : s);
      break;
    }
    case 18: {
      unsigned p = (unsigned(y) << 16) | x, q = (unsigned(x) << 16) | z, s;
      asm("min.NaN.f16x2 %0, %1, %2;" : "=r"(s) : "r"(p), "r"(q));
      r = (unsigned short)((i & 1) ? s >> 16 : s);
      break;
    }
    case 19: {
      unsigned p = (unsigned(y) << 16) | x, s;
      asm("ex2.approx.f16x2 %0, %1;" : "=r"(s) : "r"(p));
      r = (unsigned short)((i & 1) ? s >> 16 : s);
      break;
    }
    case 20: {
      unsigned p = (unsigned(y) << 16) | x, q = (unsigned(x) << 16) | z;
      unsigned short lo, hi;
      asm("{\n\t.reg .pred p, q;\n\t"
          "setp.ltu.bf16x2 p|q, %2, %3;\n\t"
          "selp.u16 %0, 1, 0, p;\n\t"
          "selp.u16 %1, 1, 0, q;\n\t}"
          : "=h"(lo), "=h"(hi) : "r"(p), "r"(q));
      r = (unsigned short)(lo | (hi << 1));
      break;
    }
    case 21: asm("set.gt.bf16.f32 %0, %1, 0f3F000000;" : "=h"(r) : "f"(f[i])); break;
    case 22: {
      unsigned s;
      asm("cvt.rn.relu.f16x2.f32 %0, %1, %2;" : "=r"(s) : "f"(f[i]), "f"(f[i] * -0.75f));
      r = (unsigned short)((i & 1) ? s >> 16 : s);
      break;
    }
    case 23: {
      unsigned s;
      asm("cvt.rz.bf16x2.f32 %0, %1, %2;" : "=r"(s) : "f"(f[i]), "f"(f[i] * -0.75f));
      r = (unsigned short)((i & 1) ? s >> 16 : s);
      break;
    }
    case 24: asm("cvt.rn.relu.bf16.f32 %0, %1;" : "=h"(r) : "f"(f[i])); break;
    default: r = x; break;
  }
  out[i] = r;
}
