// European call options priced by Monte Carlo, the CUDA SDK sample
// MonteCarlo (seed 000 Table II). inverseCNDKernel turns evenly spaced
// points of (0, 1) into standard normal samples with Moro's inverse of the
// normal CDF (Beasley-Springer centre, Chebyshev tail). MonteCarloOneBlockPerOption:
// one CTA per option; each thread sums the discounted-free payoff
// max(S e^(mu T + v sqrt(T) z) - X, 0) and its square over a strided share
// of the samples, then the CTA adds the 256 partial sums in a shared-memory
// tree. Option parameters sit in constant memory, results in a __device__
// array, as in the SDK.

#define MC_THREADS 256
#define MAX_OPTIONS 2048

struct OptionParams {
  float s;          // spot price
  float x;          // strike
  float mu_t;       // (r - v^2 / 2) T
  float v_sqrt_t;   // v sqrt(T)
};

__constant__ OptionParams c_options[MAX_OPTIONS];
__device__ float2 d_call_sums[MAX_OPTIONS];  // (sum of payoffs, sum of squared payoffs)

// Moro's approximation for p in (0, 0.5], returned for the lower tail
// (z <= 0). The caller reflects the upper half.
__device__ __forceinline__ float moro_lower(float p)
{
  const float a1 = 2.50662823884f, a2 = -18.61500062529f, a3 = 41.39119773534f, a4 = -25.44106049637f;
  const float b1 = -8.47351093090f, b2 = 23.08336743743f, b3 = -21.06224101826f, b4 = 3.13082909833f;
  const float c1 = 0.337475482272615f, c2 = 0.976169019091719f, c3 = 0.160797971491821f,
              c4 = 2.76438810333863e-2f, c5 = 3.8405729373609e-3f, c6 = 3.951896511919e-4f,
              c7 = 3.21767881768e-5f, c8 = 2.888167364e-7f, c9 = 3.960315187e-7f;
  const float y = p - 0.5f;
  if (y > -0.42f) {
    const float r = y * y;
    return y * (((a4 * r + a3) * r + a2) * r + a1) / ((((b4 * r + b3) * r + b2) * r + b1) * r + 1.0f);
  }
  const float s = __logf(-__logf(p));
  return -(c1 + s * (c2 + s * (c3 + s * (c4 + s * (c5 + s * (c6 + s * (c7 + s * (c8 + s * c9))))))));
}

// Sample i is the normal quantile of (i + 1) / (n + 1), from a 32-bit
// fixed-point probability; the upper half is the mirror of the lower one.
extern "C" __global__ void inverseCNDKernel(float* __restrict__ samples, unsigned n)
{
  const unsigned step = 0xffffffffu / (n + 1);
  for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
    unsigned q = (i + 1) * step;
    const bool upper = q >= 0x80000000u;
    if (upper) q = 0xffffffffu - q;
    // (q + 1/2) / 2^32, in (0, 0.5].
    const float p = (float)q * 2.3283064365386963e-10f + 1.1641532182693481e-10f;
    const float z = moro_lower(p);
    samples[i] = upper ? -z : z;
  }
}

extern "C" __global__ void MonteCarloOneBlockPerOption(const float* __restrict__ samples, int num_paths)
{
  __shared__ float sum_call[MC_THREADS];
  __shared__ float sum_call2[MC_THREADS];
  const OptionParams o = c_options[blockIdx.x];
  const int t = threadIdx.x;

  float sum = 0.0f, sum2 = 0.0f;
  // Kept rolled: nvcc's 4-fold unrolling makes ptxas's and the simulator's
  // register counts drift apart.
#pragma unroll 1
  for (int i = t; i < num_paths; i += MC_THREADS) {
    const float payoff = fmaxf(o.s * __expf(o.mu_t + o.v_sqrt_t * samples[i]) - o.x, 0.0f);
    sum += payoff;
    sum2 += payoff * payoff;
  }
  sum_call[t] = sum;
  sum_call2[t] = sum2;
  for (int half = MC_THREADS / 2; half > 0; half >>= 1) {
    __syncthreads();
    if (t < half) {
      sum_call[t] += sum_call[t + half];
      sum_call2[t] += sum_call2[t + half];
    }
  }
  if (t == 0) d_call_sums[blockIdx.x] = make_float2(sum_call[0], sum_call2[0]);
}
