// Host side of the quasirandom workload as plain C++ (no simulator types),
// shared by workloads/quasirandom/quasirandom.cpp and its CUDA-program twin
// tests/cuda/workloads/quasirandom.cu: the direction numbers and the CPU
// models of both kernels.
#pragma once

#include <cmath>
#include <cstdint>
#include <vector>

namespace quasirandom_host {

constexpr int kDimensions = 3;   // QRNG_DIMENSIONS
constexpr int kResolution = 31;  // QRNG_RESOLUTION
constexpr uint32_t kThreadsX = 128;

// Polynomials over GF(2) as bit masks (bit i: the coefficient of x^i).
inline uint64_t poly_mul(uint64_t a, uint64_t b) {
  uint64_t r = 0;
  for (int i = 0; i < 64; ++i)
    if ((b >> i) & 1) r ^= a << i;
  return r;
}
inline int poly_degree(uint64_t p) { return 63 - __builtin_clzll(p); }

// Niederreiter's base-2 generator matrices: dimension d uses the d-th monic
// irreducible polynomial p (x, x + 1, x^2 + x + 1). Row j >= 1 of the
// matrix, with j - 1 = Q e + u (e = deg p, 0 <= u < e), holds the
// coefficients of x^-1, x^-2, ... in the Laurent expansion of
// x^(e - u - 1) / p(x)^(Q + 1). Column r as a 31-bit number (row 1 in the
// most significant bit) is the direction number of input bit r.
inline std::vector<uint32_t> niederreiter_table() {
  const uint64_t polys[kDimensions] = {0b10, 0b11, 0b111};
  std::vector<uint32_t> table(kDimensions * kResolution, 0);
  for (int d = 0; d < kDimensions; ++d) {
    const int e = poly_degree(polys[d]);
    for (int j = 1; j <= kResolution; ++j) {
      const int q = (j - 1) / e, u = (j - 1) % e;
      uint64_t denominator = 1;
      for (int i = 0; i <= q; ++i) denominator = poly_mul(denominator, polys[d]);
      const int deg = poly_degree(denominator);
      // Long division: remainder * x each step, subtract the denominator
      // when the remainder reaches its degree; that step's quotient digit is
      // the coefficient of x^-(r + 1).
      uint64_t remainder = uint64_t(1) << (e - u - 1);
      for (int r = 0; r < kResolution; ++r) {
        remainder <<= 1;
        if ((remainder >> deg) & 1) {
          remainder ^= denominator;
          table[size_t(d * kResolution + r)] |= 1u << (kResolution - j);
        }
      }
    }
  }
  return table;
}

// Moro's inverse normal distribution function as nvcc -O3 compiles
// moro_inverse_cnd: the centre is exact (fma chains, a correctly rounded
// division); in the tails __logf is lg2.approx times ln 2.
inline float moro_inverse_cnd(float p) {
  const float a1 = 2.50662823884f, a2 = -18.61500062529f, a3 = 41.39119773534f, a4 = -25.44106049637f;
  const float b1 = -8.4735109309f, b2 = 23.08336743743f, b3 = -21.06224101826f, b4 = 3.13082909833f;
  const float c1 = 0.337475482272615f, c2 = 0.976169019091719f, c3 = 0.160797971491821f,
              c4 = 2.76438810333863E-02f, c5 = 3.8405729373609E-03f, c6 = 3.951896511919E-04f,
              c7 = 3.21767881768E-05f, c8 = 2.888167364E-07f, c9 = 3.960315187E-07f;
  const float ln2 = 0.693147182f;
  const float y = p - 0.5f;
  if (std::fabs(y) < 0.42f) {
    const float r = y * y;
    const float num = y * std::fma(r, std::fma(r, std::fma(r, a4, a3), a2), a1);
    const float den = std::fma(r, std::fma(r, std::fma(r, std::fma(r, b4, b3), b2), b1), 1.0f);
    return num / den;
  }
  const float tail = y > 0.0f ? 1.0f - p : p;
  const float inner = std::log2(tail) * -ln2;
  const float r = std::log2(inner) * ln2;
  float z = std::fma(r, c9, c8);
  for (float c : {c7, c6, c5, c4, c3, c2, c1}) z = std::fma(r, z, c);
  return y < 0.0f ? -z : z;
}

// Point `pos` of dimension d of the sequence starting at `start`, as
// quasirandomGeneratorKernel computes it.
inline float point(const std::vector<uint32_t>& table, int d, uint32_t start, uint32_t pos) {
  uint32_t bits = start + pos, acc = 0;
  for (int b = 0; b < kResolution; ++b, bits >>= 1)
    if (bits & 1) acc ^= table[size_t(d * kResolution + b)];
  return float(acc + 1) * (1.0f / float(0x80000001u));
}

}  // namespace quasirandom_host
