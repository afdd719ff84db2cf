// asian_option: Monte Carlo price of one Asian call option, as the CUDA
// SDK's MC_SingleAsianOptionP ("SAOP", seed 004 Table 2). Three launches,
// as the SDK's host program makes them:
//   saop_initRNG        every thread's XORWOW generator jumped to its own
//                       subsequence (workloads/common/xorwow_jump.h; the
//                       same init as estimate_pi);
//   saop_generatePaths  each thread simulates paths tid, tid + gridsize, ...:
//                       geometric Brownian motion, one normal variate (Box-
//                       Muller, the second value kept for the next step) per
//                       time step, every step's price stored to global memory
//                       (paths[t * numSims + path], coalesced). The fast
//                       intrinsics (__logf, __sincosf, __expf), as a fast-math
//                       build: with libdevice's precise logf / sincospif / expf
//                       the paper size executes 1.58 G instructions, against
//                       the paper's 1 G (1.06 G with the intrinsics);
//   saop_computeValue   each thread reads its paths back, averages them
//                       arithmetically, sums the payoffs; a shared-memory
//                       tree per CTA, thread 0 writes the CTA's sum. The host
//                       averages and discounts.
// Our own code, no cuRAND; asian_option_host.h is the CPU reference.

#include "asian_option_host.h"

__device__ __forceinline__ float saop_normal(unsigned (&s)[5], unsigned& d, bool& has_spare, float& spare)
{
  if (has_spare) {
    has_spare = false;
    return spare;
  }
  const float u1 = xorwow::to_open_unit(xorwow::next(s, d));
  const float u2 = xorwow::to_unit(xorwow::next(s, d));
  const float rad = sqrtf(-2.0f * __logf(u1));
  float sn, cs;
  __sincosf(6.28318530718f * u2, &sn, &cs);
  spare = rad * sn;
  has_spare = true;
  return rad * cs;
}

extern "C" __global__ void saop_initRNG(unsigned* __restrict__ states, const unsigned* __restrict__ jump,
                                        unsigned seed)
{
  xorwow::device_init(states, jump, seed, blockIdx.x * blockDim.x + threadIdx.x, gridDim.x * blockDim.x);
}

extern "C" __global__ void saop_generatePaths(float* __restrict__ paths, const unsigned* __restrict__ states,
                                              const saop::Option* __restrict__ option, unsigned num_sims,
                                              unsigned num_timesteps)
{
  const unsigned tid = blockIdx.x * blockDim.x + threadIdx.x;
  const unsigned step = gridDim.x * blockDim.x;
  const float drift = (option->r - 0.5f * option->sigma * option->sigma) * option->dt;
  const float diffusion = option->sigma * sqrtf(option->dt);
  unsigned s[5], d;
  xorwow::device_load(states, tid, step, s, d);
  bool has_spare = false;
  float spare = 0.0f;
  for (unsigned i = tid; i < num_sims; i += step) {
    float* out = paths + i;
    float price = 1.0f;
    for (unsigned t = 0; t < num_timesteps; ++t, out += num_sims) {
      price *= __expf(drift + diffusion * saop_normal(s, d, has_spare, spare));
      *out = price;
    }
  }
}

extern "C" __global__ void saop_computeValue(float* __restrict__ values, const float* __restrict__ paths,
                                             const saop::Option* __restrict__ option, unsigned num_sims,
                                             unsigned num_timesteps)
{
  extern __shared__ float saop_partial[];
  const unsigned tid = blockIdx.x * blockDim.x + threadIdx.x;
  const unsigned step = gridDim.x * blockDim.x;
  float sum = 0.0f;
  for (unsigned i = tid; i < num_sims; i += step) {
    const float* path = paths + i;
    float avg = 0.0f;
    for (unsigned t = 0; t < num_timesteps; ++t, path += num_sims) avg += *path;
    avg = avg * option->spot / float(num_timesteps);
    float payoff = avg - option->strike;
    if (option->type == 1) payoff = -payoff;
    sum += fmaxf(0.0f, payoff);
  }
  saop_partial[threadIdx.x] = sum;
  __syncthreads();
  for (unsigned half = blockDim.x / 2; half > 0; half >>= 1) {
    if (threadIdx.x < half) saop_partial[threadIdx.x] += saop_partial[threadIdx.x + half];
    __syncthreads();
  }
  if (threadIdx.x == 0) values[blockIdx.x] = saop_partial[0];
}
