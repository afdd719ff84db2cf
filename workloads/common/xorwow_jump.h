// An XORWOW generator (Marsaglia 2003: a 160-bit xorshift state plus a Weyl
// counter) with subsequence jump-ahead by precomputed GF(2) matrices, shared
// by the Monte Carlo workloads (estimate_pi, asian_option), their host
// set-ups and CUDA-program twins. Every thread starts from the same seeded
// state and jumps tid * 2^64 draws ahead: one 160x160-bit matrix-vector
// product, reading 5 words of a column in global memory per set state bit,
// per unit of each base-4 digit of tid (the costly, load-heavy init of the
// SDK's inline-generator samples). Our own code and constants, no cuRAND.
#pragma once

#include <cstdint>
#include <vector>

#ifdef __CUDACC__
#define XORWOW_HD __host__ __device__ __forceinline__
#else
#define XORWOW_HD inline
#endif

namespace xorwow {

constexpr unsigned kStateBits = 160;
constexpr unsigned kMatrixWords = kStateBits * 5;  // 160 columns of 5 words
constexpr unsigned kWeylStep = 362437u;
constexpr unsigned kSubsequenceLog2 = 64;  // draws between threads' subsequences
constexpr unsigned kStateWords = 6;        // d, then the 5 state words

// A 32-bit integer hash (xor-shift-multiply), for seeding.
XORWOW_HD unsigned mix32(unsigned x) {
  x ^= x >> 16;
  x *= 0x7feb352du;
  x ^= x >> 15;
  x *= 0x846ca68bu;
  x ^= x >> 16;
  return x;
}

// Every thread starts from the same state; the jump separates them.
XORWOW_HD void seed_state(unsigned seed, unsigned (&s)[5], unsigned& d) {
  for (unsigned k = 0; k < 5; ++k) s[k] = mix32(seed + 0x9e3779b9u * (k + 1));
  s[4] |= 1u;  // never the all-zero state
  d = mix32(seed ^ 0x6c8e9cf5u);
}

XORWOW_HD unsigned next(unsigned (&s)[5], unsigned& d) {
  const unsigned t = s[0] ^ (s[0] >> 2);
  s[0] = s[1];
  s[1] = s[2];
  s[2] = s[3];
  s[3] = s[4];
  s[4] = (s[4] ^ (s[4] << 4)) ^ (t ^ (t << 1));
  d += kWeylStep;
  return s[4] + d;
}

// The top 24 bits as a float in [0, 1): exact, so host and device agree.
XORWOW_HD float to_unit(unsigned r) { return float(r >> 8) * (1.0f / 16777216.0f); }
// The top 24 bits as a float in (0, 1) (a Box-Muller logarithm's argument).
XORWOW_HD float to_open_unit(unsigned r) { return (float(r >> 8) + 0.5f) * (1.0f / 16777216.0f); }

#ifdef __CUDACC__
// state <- m * state: state ^= column c of m for every set bit c, bit by bit
// (the device side of apply_matrix below).
__device__ __forceinline__ void device_apply_matrix(unsigned (&s)[5], const unsigned* __restrict__ m) {
  unsigned r[5] = {0u, 0u, 0u, 0u, 0u};
#pragma unroll 1
  for (int i = 0; i < 5; ++i) {
    unsigned w = s[i];
#pragma unroll 1
    for (int j = 0; j < 32; ++j, w >>= 1) {
      if (w & 1u) {
        const unsigned* col = m + (i * 32 + j) * 5;
#pragma unroll
        for (int k = 0; k < 5; ++k) r[k] ^= col[k];
      }
    }
  }
#pragma unroll
  for (int k = 0; k < 5; ++k) s[k] = r[k];
}

// Thread tid's generator: seeded, then jumped to subsequence tid (digit k of
// tid in base 4 applies matrix k that many times), stored as a structure of
// arrays (word w of thread tid at states[w * total + tid], coalesced).
__device__ __forceinline__ void device_init(unsigned* __restrict__ states, const unsigned* __restrict__ jump,
                                            unsigned seed, unsigned tid, unsigned total) {
  unsigned s[5];
  unsigned d;
  seed_state(seed, s, d);
  const unsigned* m = jump;
  for (unsigned seq = tid; seq != 0; seq >>= 2, m += kMatrixWords)
    for (unsigned t = 0; t < (seq & 3u); ++t) device_apply_matrix(s, m);
  states[tid] = d;
#pragma unroll
  for (int k = 0; k < 5; ++k) states[(k + 1) * total + tid] = s[k];
}

__device__ __forceinline__ void device_load(const unsigned* __restrict__ states, unsigned tid, unsigned total,
                                            unsigned (&s)[5], unsigned& d) {
  d = states[tid];
#pragma unroll
  for (int k = 0; k < 5; ++k) s[k] = states[(k + 1) * total + tid];
}
#endif

// ---- host only ----

// state <- m * state (m column-major: column c is words c*5 .. c*5+4).
inline void apply_matrix(unsigned (&s)[5], const unsigned* m) {
  unsigned r[5] = {0, 0, 0, 0, 0};
  for (unsigned c = 0; c < kStateBits; ++c)
    if ((s[c / 32] >> (c % 32)) & 1u)
      for (unsigned k = 0; k < 5; ++k) r[k] ^= m[c * 5 + k];
  for (unsigned k = 0; k < 5; ++k) s[k] = r[k];
}

// p <- p * p (column c of p^2 is p applied to column c of p).
inline void square(std::vector<unsigned>& p) {
  std::vector<unsigned> out(kMatrixWords);
  for (unsigned c = 0; c < kStateBits; ++c) {
    unsigned col[5] = {p[c * 5], p[c * 5 + 1], p[c * 5 + 2], p[c * 5 + 3], p[c * 5 + 4]};
    apply_matrix(col, p.data());
    for (unsigned k = 0; k < 5; ++k) out[c * 5 + k] = col[k];
  }
  p.swap(out);
}

// Base-4 digits needed for thread ids below `threads`.
inline unsigned jump_matrix_count(unsigned threads) {
  unsigned count = 0;
  while (count < 16 && (1ull << (2 * count)) < threads) ++count;
  return count;
}

// Matrix k = A^(2^64 * 4^k), A the generator's (linear) one-draw step;
// `count` matrices back to back.
inline std::vector<unsigned> jump_matrices(unsigned count) {
  std::vector<unsigned> a(kMatrixWords);
  for (unsigned c = 0; c < kStateBits; ++c) {
    unsigned s[5] = {0, 0, 0, 0, 0};
    unsigned d = 0;
    s[c / 32] = 1u << (c % 32);
    next(s, d);
    for (unsigned k = 0; k < 5; ++k) a[c * 5 + k] = s[k];
  }
  for (unsigned i = 0; i < kSubsequenceLog2; ++i) square(a);
  std::vector<unsigned> all;
  for (unsigned k = 0; k < count; ++k) {
    all.insert(all.end(), a.begin(), a.end());
    square(a);
    square(a);
  }
  return all;
}

// Thread tid's state as device_init leaves it.
inline void host_init(unsigned seed, unsigned tid, const std::vector<unsigned>& jump, unsigned (&s)[5],
                      unsigned& d) {
  seed_state(seed, s, d);
  const unsigned* m = jump.data();
  for (unsigned seq = tid; seq != 0; seq >>= 2, m += kMatrixWords)
    for (unsigned t = 0; t < (seq & 3u); ++t) apply_matrix(s, m);
}

}  // namespace xorwow
