// monte_carlo as a CUDA program: the host steps of
// workloads/monte_carlo/monte_carlo.cpp (the SDK's MonteCarlo: inverse-CDF
// samples, then one CTA per option; option data by cudaMemcpyToSymbol into
// constant memory, the sums back by cudaMemcpyFromSymbol).
#include "tests/cuda/workloads/program_support.h"
#include "workloads/monte_carlo/monte_carlo.cu"

// The workload's host copy of moro_lower / inverseCNDKernel.
static float moro_sample(unsigned i, unsigned n) {
  const float a1 = 2.50662823884f, a2 = -18.61500062529f, a3 = 41.39119773534f, a4 = -25.44106049637f;
  const float b1 = -8.47351093090f, b2 = 23.08336743743f, b3 = -21.06224101826f, b4 = 3.13082909833f;
  const float c1 = 0.337475482272615f, c2 = 0.976169019091719f, c3 = 0.160797971491821f, c4 = 2.76438810333863e-2f,
              c5 = 3.8405729373609e-3f, c6 = 3.951896511919e-4f, c7 = 3.21767881768e-5f, c8 = 2.888167364e-7f,
              c9 = 3.960315187e-7f;
  const unsigned step = 0xffffffffu / (n + 1);
  unsigned q = (i + 1) * step;
  const bool upper = q >= 0x80000000u;
  if (upper) q = 0xffffffffu - q;
  const float p = std::fma(float(q), 2.3283064365386963e-10f, 1.1641532182693481e-10f);
  const float y = p - 0.5f;
  float z;
  if (y > -0.42f) {
    const float r = y * y;
    const float num = y * std::fma(r, std::fma(r, std::fma(r, a4, a3), a2), a1);
    const float den = std::fma(r, std::fma(r, std::fma(r, std::fma(r, b4, b3), b2), b1), 1.0f);
    z = num / den;
  } else {
    const float ln2 = 0.693147182f;
    const float s = std::log2(std::log2(p) * -ln2) * ln2;
    z = -std::fma(s, std::fma(s, std::fma(s, std::fma(s, std::fma(s, std::fma(s, std::fma(s, std::fma(s, c9, c8), c7), c6), c5), c4), c3), c2), c1);
  }
  return upper ? -z : z;
}

int main(int argc, char** argv) {
  const program::Options opt = program::parse_options(argc, argv);
  const bool small = opt.size == program::Size::Small;
  const unsigned options = small ? 8 : 256;
  const unsigned paths = small ? 4096 : 65536;
  const unsigned cnd_grid = small ? 16 : 128;

  program::InputRng rng(opt.seed);
  const double rate = 0.06, vol = 0.10;
  std::vector<OptionParams> params(options);
  for (auto& o : params) {
    const float s = rng.uniform(5.0f, 50.0f), x = rng.uniform(10.0f, 25.0f), t = rng.uniform(1.0f, 5.0f);
    o = {s, x, float((rate - 0.5 * vol * vol) * t), float(vol * std::sqrt(double(t)))};
  }

  float* d_samples = program::device_alloc<float>(paths);
  inverseCNDKernel<<<cnd_grid, 128>>>(d_samples, paths);
  CUDA_CHECK_LAUNCH();
  CUDA_CHECK(cudaMemcpyToSymbol(c_options, params.data(), params.size() * sizeof(OptionParams)));
  MonteCarloOneBlockPerOption<<<options, MC_THREADS>>>(d_samples, int(paths));
  CUDA_CHECK_LAUNCH();
  std::vector<float> sums(2 * size_t(options));
  CUDA_CHECK(cudaMemcpyFromSymbol(sums.data(), d_call_sums, sums.size() * sizeof(float)));
  const std::vector<float> samples = program::download(d_samples, paths);
  program::free_all(d_samples);

  std::vector<float> want_samples(paths);
  for (unsigned i = 0; i < paths; ++i) want_samples[i] = moro_sample(i, paths);
  program::Result r = program::compare_close(samples, want_samples, 1e-5, "sample", 1e-6);
  if (!r.verified) return program::report("monte_carlo", r);

  std::vector<float> want(2 * size_t(options)), part(MC_THREADS), part2(MC_THREADS);
  const float log2e = 1.44269504f;
  for (unsigned k = 0; k < options; ++k) {
    const OptionParams& o = params[k];
    for (unsigned t = 0; t < MC_THREADS; ++t) {
      float sum = 0.0f, sum2 = 0.0f;
      for (unsigned i = t; i < paths; i += MC_THREADS) {
        const float e = std::exp2(std::fma(o.v_sqrt_t, samples[i], o.mu_t) * log2e);
        const float payoff = std::fmax(o.s * e - o.x, 0.0f);
        sum += payoff;
        sum2 = std::fma(payoff, payoff, sum2);
      }
      part[t] = sum;
      part2[t] = sum2;
    }
    for (unsigned half = MC_THREADS / 2; half > 0; half /= 2)
      for (unsigned t = 0; t < half; ++t) {
        part[t] += part[t + half];
        part2[t] += part2[t + half];
      }
    want[2 * k] = part[0];
    want[2 * k + 1] = part2[0];
  }
  r = program::compare_close(sums, want, 1e-5, "payoff sum", 1e-3);
  if (r.verified) r.detail = std::to_string(paths) + " samples, " + std::to_string(options) + " options within tolerance";
  return program::report("monte_carlo", r);
}
