// European call and put prices with the Black-Scholes formula. Built with the
// default -O3 math (no fast-math): expf, logf, sqrtf and '/' become nvcc's
// full-precision instruction sequences around ex2.approx / lg2.approx.

// Standard normal cumulative distribution, Abramowitz-Stegun 26.2.17
// (absolute error below 7.5e-8).
__device__ float normal_cdf(float d) {
  const float a1 = 0.319381530f, a2 = -0.356563782f, a3 = 1.781477937f, a4 = -1.821255978f,
              a5 = 1.330274429f;
  float k = 1.0f / (1.0f + 0.2316419f * fabsf(d));
  float poly = k * (a1 + k * (a2 + k * (a3 + k * (a4 + k * a5))));
  float tail = 0.3989422804f * expf(-0.5f * d * d) * poly;  // 1/sqrt(2 pi)
  return d > 0.0f ? 1.0f - tail : tail;
}

extern "C" __global__ void black_scholes(const float* __restrict__ spot, const float* __restrict__ strike,
                                         const float* __restrict__ years, float* __restrict__ call,
                                         float* __restrict__ put, float rate, float volatility, int options) {
  // Grid-stride loop: fewer CTAs than options in the default size.
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < options; i += gridDim.x * blockDim.x) {
    float s = spot[i], x = strike[i], t = years[i];
    float sqrt_t = sqrtf(t);
    float d1 = (logf(s / x) + (rate + 0.5f * volatility * volatility) * t) / (volatility * sqrt_t);
    float d2 = d1 - volatility * sqrt_t;
    float discount = expf(-rate * t);
    float nd1 = normal_cdf(d1), nd2 = normal_cdf(d2);
    call[i] = s * nd1 - x * discount * nd2;
    put[i] = x * discount * (1.0f - nd2) - s * (1.0f - nd1);
  }
}
