// monte_carlo: the CUDA SDK's MonteCarlo option pricing. inverseCNDKernel
// makes normally distributed samples (Moro's inverse normal CDF of evenly
// spaced points, the SDK's input when no quasirandom sequence is given);
// MonteCarloOneBlockPerOption prices one European call per CTA from them.
// Checks: the samples against the same Moro formula on the CPU, then each
// option's payoff sums against the CPU's sums over the device's samples in
// the device's order (per-thread strided sums, then the tree). The tolerance
// covers __expf / __logf (ex2 / lg2.approx), which a GPU rounds differently
// from the host's exp2 / log2.
#include <cmath>
#include <cstdint>
#include <memory>
#include <vector>

#include "workloads/common/workload_support.h"
#include "workloads/ptxas_registers.h"

namespace tlmgpu::workloads {
namespace {

constexpr uint32_t kThreads = 256;  // MC_THREADS in monte_carlo.cu
constexpr uint32_t kCndThreads = 128;

struct OptionParams {  // as in monte_carlo.cu
  float s, x, mu_t, v_sqrt_t;
};

// monte_carlo.cu's moro_lower / inverseCNDKernel, with the fma the compiler makes.
float moro_sample(uint32_t i, uint32_t n) {
  const float a1 = 2.50662823884f, a2 = -18.61500062529f, a3 = 41.39119773534f, a4 = -25.44106049637f;
  const float b1 = -8.47351093090f, b2 = 23.08336743743f, b3 = -21.06224101826f, b4 = 3.13082909833f;
  const float c1 = 0.337475482272615f, c2 = 0.976169019091719f, c3 = 0.160797971491821f, c4 = 2.76438810333863e-2f,
              c5 = 3.8405729373609e-3f, c6 = 3.951896511919e-4f, c7 = 3.21767881768e-5f, c8 = 2.888167364e-7f,
              c9 = 3.960315187e-7f;
  const uint32_t step = 0xffffffffu / (n + 1);
  uint32_t q = (i + 1) * step;
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

class MonteCarlo : public Workload {
 public:
  WorkloadResult run(platform::GpuDevice& device, Size size, uint64_t seed) override {
    // Small: 8 options x 4,096 paths; samples by 16 CTAs x 128 threads.
    // Default and Paper: the SDK 3.x sample's OPT_N = 256 options x PATH_N =
    // 65,536 paths (one CTA per option, since 65,536 / 256 < 8,192 paths per
    // option), samples by its fixed 128 CTAs x 128 threads (seed 000 Table II:
    // inverseCNDKernel 128, MonteCarloOneBlockPerOption 256).
    const bool small = size == Size::Small;
    const uint32_t options = small ? 8 : 256;
    const uint32_t paths = small ? 4096 : 65536;
    const uint32_t cnd_grid = small ? 16 : 128;

    // The SDK's ranges: S in [5, 50], X in [10, 25], T in [1, 5] years, R = 6 %, V = 10 %.
    InputRng rng(seed);
    const double rate = 0.06, vol = 0.10;
    std::vector<OptionParams> params(options);
    for (auto& o : params) {
      const float s = rng.uniform(5.0f, 50.0f), x = rng.uniform(10.0f, 25.0f), t = rng.uniform(1.0f, 5.0f);
      o = {s, x, float((rate - 0.5 * vol * vol) * t), float(vol * std::sqrt(double(t)))};
    }

    // The samples are allocated before the module (and its __device__ array)
    // is loaded: a CUDA program's runtime loads it at the first launch.
    uint64_t d_samples = device.allocate(uint64_t(paths) * sizeof(float), "samples");
    auto module = load_workload_module(device, "monte_carlo");
    device.launch(module, "inverseCNDKernel", {cnd_grid, 1, 1}, {kCndThreads, 1, 1}, 0,
                  platform::KernelArgs().ptr(d_samples).add<uint32_t>(paths));
    device.write_symbol(module, "c_options", params.data(), params.size() * sizeof(OptionParams));
    device.launch(module, "MonteCarloOneBlockPerOption", {options, 1, 1}, {kThreads, 1, 1}, 0,
                  platform::KernelArgs().ptr(d_samples).add<int32_t>(int32_t(paths)));
    std::vector<float> sums(2 * size_t(options));
    device.read_symbol(module, "d_call_sums", sums.data(), sums.size() * sizeof(float));
    std::vector<float> samples = device.download<float>(d_samples, paths);
    device.free(d_samples);

    std::vector<float> want_samples(paths);
    for (uint32_t i = 0; i < paths; ++i) want_samples[i] = moro_sample(i, paths);
    WorkloadResult r = compare_close(samples, want_samples, 1e-5, "sample", 1e-6);
    if (!r.verified) return r;

    // The device's order over its own samples: strided per-thread sums (the
    // square by fma), then the tree.
    std::vector<float> want(2 * size_t(options));
    std::vector<float> part(kThreads), part2(kThreads);
    const float log2e = 1.44269504f;
    for (uint32_t k = 0; k < options; ++k) {
      const OptionParams& o = params[k];
      for (uint32_t t = 0; t < kThreads; ++t) {
        float sum = 0.0f, sum2 = 0.0f;
        for (uint32_t i = t; i < paths; i += kThreads) {
          const float e = std::exp2(std::fma(o.v_sqrt_t, samples[i], o.mu_t) * log2e);
          const float payoff = std::fmax(o.s * e - o.x, 0.0f);
          sum += payoff;
          sum2 = std::fma(payoff, payoff, sum2);
        }
        part[t] = sum;
        part2[t] = sum2;
      }
      for (uint32_t half = kThreads / 2; half > 0; half /= 2)
        for (uint32_t t = 0; t < half; ++t) {
          part[t] += part[t + half];
          part2[t] += part2[t + half];
        }
      want[2 * k] = part[0];
      want[2 * k + 1] = part2[0];
    }
    r = compare_close(sums, want, 1e-5, "payoff sum", 1e-3);
    if (r.verified) r.detail = std::to_string(paths) + " samples, " + std::to_string(options) + " options within tolerance";
    return r;
  }
};

const bool registered = register_workload(
    {"monte_carlo", "SDK MonteCarlo: inverse-CDF normal samples, then one CTA per option with a shared-memory tree",
     /*ipdom_safe=*/true, [] { return std::make_unique<MonteCarlo>(); }});

}  // namespace
}  // namespace tlmgpu::workloads
