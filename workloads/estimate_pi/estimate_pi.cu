// estimate_pi: Monte Carlo estimate of pi with an inline per-thread
// pseudo-random generator, as the CUDA SDK's MC_EstimatePiInlineP ("EPP",
// seed 004 Table 2). Two launches, as the SDK's host program makes them:
//   epp_initRNG       every thread seeds an XORWOW generator (Marsaglia's
//                     xorshift with a Weyl counter) and jumps it to its own
//                     subsequence, tid * 2^64 draws ahead, with precomputed
//                     GF(2) jump matrices read from global memory (one
//                     160x160-bit matrix-vector product per base-4 unit of
//                     tid: the long, load-heavy part of the benchmark);
//   epp_computeValue  each thread draws (x, y) pairs for points tid,
//                     tid + gridsize, ... and counts those inside the unit
//                     quarter circle; a shared-memory tree per CTA sums the
//                     counts, thread 0 writes the CTA's count. The host sums.
// Our own code: the generator, its seeding and the jump scheme are ours (no
// cuRAND; workloads/common/xorwow_jump.h); estimate_pi_host.h draws the same
// streams on the host.

#include "../common/xorwow_jump.h"

extern "C" __global__ void epp_initRNG(unsigned* __restrict__ states, const unsigned* __restrict__ jump,
                                       unsigned seed)
{
  xorwow::device_init(states, jump, seed, blockIdx.x * blockDim.x + threadIdx.x, gridDim.x * blockDim.x);
}

extern "C" __global__ void epp_computeValue(unsigned* __restrict__ results, const unsigned* __restrict__ states,
                                            unsigned num_sims)
{
  extern __shared__ unsigned epp_partial[];
  const unsigned tid = blockIdx.x * blockDim.x + threadIdx.x;
  const unsigned step = gridDim.x * blockDim.x;
  unsigned s[5], d;
  xorwow::device_load(states, tid, step, s, d);

  unsigned inside = 0;
  for (unsigned i = tid; i < num_sims; i += step) {
    const float x = xorwow::to_unit(xorwow::next(s, d));
    const float y = xorwow::to_unit(xorwow::next(s, d));
    // x*x + y*y with one rounding for x*x, as the host computes it.
    if (__fmaf_rn(x, x, __fmul_rn(y, y)) < 1.0f) ++inside;
  }

  epp_partial[threadIdx.x] = inside;
  __syncthreads();
  for (unsigned half = blockDim.x / 2; half > 0; half >>= 1) {
    if (threadIdx.x < half) epp_partial[threadIdx.x] += epp_partial[threadIdx.x + half];
    __syncthreads();
  }
  if (threadIdx.x == 0) results[blockIdx.x] = epp_partial[0];
}
