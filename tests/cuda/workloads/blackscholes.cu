// blackscholes as a CUDA program: the host steps of
// workloads/blackscholes/blackscholes.cpp (prices checked against the
// formula in double, with the workload's tolerances).
#include "tests/cuda/workloads/program_support.h"
#include "workloads/blackscholes/blackscholes.cu"

namespace {

// Abramowitz-Stegun 26.2.17 in double (the kernel's normal_cdf in float).
double cpu_normal_cdf(double d) {
  const double a1 = 0.319381530, a2 = -0.356563782, a3 = 1.781477937, a4 = -1.821255978, a5 = 1.330274429;
  const double k = 1.0 / (1.0 + 0.2316419 * std::fabs(d));
  const double poly = k * (a1 + k * (a2 + k * (a3 + k * (a4 + k * a5))));
  const double tail = 0.3989422804 * std::exp(-0.5 * d * d) * poly;
  return d > 0.0 ? 1.0 - tail : tail;
}

}  // namespace

int main(int argc, char** argv) {
  const program::Options opt = program::parse_options(argc, argv);
  const bool small = opt.size == program::Size::Small, paper = opt.size == program::Size::Paper;
  const int options = small ? 5000 : paper ? 41 * 1024 : 2'000'000;  // paper: seed 003's 32 warps
  const unsigned block = 128;
  const unsigned ctas = small ? 20 : paper ? 8 : 4800;  // fewer threads than options: the loop runs 2-4 times
  const float rate = 0.02f, volatility = 0.30f;

  program::InputRng rng(opt.seed);
  std::vector<float> spot(static_cast<size_t>(options)), strike(static_cast<size_t>(options)), years(static_cast<size_t>(options));
  for (int i = 0; i < options; ++i) {
    spot[size_t(i)] = rng.uniform(5.0f, 30.0f);
    strike[size_t(i)] = rng.uniform(1.0f, 100.0f);
    years[size_t(i)] = rng.uniform(0.25f, 10.0f);
  }

  float* d_spot = program::upload(spot);
  float* d_strike = program::upload(strike);
  float* d_years = program::upload(years);
  float* d_call = program::device_alloc<float>(static_cast<size_t>(options));
  float* d_put = program::device_alloc<float>(static_cast<size_t>(options));
  black_scholes<<<ctas, block>>>(d_spot, d_strike, d_years, d_call, d_put, rate, volatility, options);
  CUDA_CHECK_LAUNCH();
  const std::vector<float> call = program::download(d_call, size_t(options));
  const std::vector<float> put = program::download(d_put, size_t(options));

  std::vector<double> want_call(static_cast<size_t>(options)), want_put(static_cast<size_t>(options));
  for (size_t i = 0; i < size_t(options); ++i) {
    const double s = spot[i], x = strike[i], t = years[i], r = rate, v = volatility;
    const double sqrt_t = std::sqrt(t);
    const double d1 = (std::log(s / x) + (r + 0.5 * v * v) * t) / (v * sqrt_t);
    const double d2 = d1 - v * sqrt_t;
    const double discount = std::exp(-r * t);
    const double nd1 = cpu_normal_cdf(d1), nd2 = cpu_normal_cdf(d2);
    want_call[i] = s * nd1 - x * discount * nd2;
    want_put[i] = x * discount * (1.0 - nd2) - s * (1.0 - nd1);
  }
  for (float* d : {d_spot, d_strike, d_years, d_call, d_put}) CUDA_CHECK(cudaFree(d));

  // Float against double: ~2e-5 absolute at worst, so 2e-4 absolute plus
  // 1e-3 relative (the workload's tolerances).
  const std::vector<double> got_call(call.begin(), call.end()), got_put(put.begin(), put.end());
  program::Result r = program::compare_close(got_call, want_call, 1e-3, "call", 2e-4);
  if (r.verified) r = program::compare_close(got_put, want_put, 1e-3, "put", 2e-4);
  if (r.verified) r.detail = std::to_string(options) + " calls and puts within tolerance";
  return program::report("blackscholes", r);
}
