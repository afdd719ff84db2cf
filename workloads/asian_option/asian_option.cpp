// asian_option: Monte Carlo price of one Asian call option (CUDA SDK
// MC_SingleAsianOptionP, "SAOP" of seed 004 Table 2): XORWOW jump-ahead
// init, paths of normal variates stored to global memory, per-CTA sums of
// the payoffs; the host averages and discounts. Each CTA's sum is checked
// against the same streams and paths computed on the host (a tolerance: the
// device's __logf / __sincosf / __expf are approximations of the host's functions).
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <vector>

#include "workloads/asian_option/asian_option_host.h"
#include "workloads/common/workload_support.h"
#include "workloads/ptxas_registers.h"

namespace tlmgpu::workloads {
namespace {

class AsianOption : public Workload {
 public:
  WorkloadResult run(platform::GpuDevice& device, Size size, uint64_t seed) override {
    // Every size: the SDK's option (spot 40, strike 35, r 0.03, sigma 0.2,
    // 1/3 year of daily steps: 87 time steps).
    // Small: 1,000 paths, 4 CTAs x 64 threads (the strided loop is ragged).
    // Default: 20,000 paths, 60 CTAs x 128 threads (4 per SM of a GTX480).
    // Paper: 100,000 paths in single precision (seed 004 Table 2: "100000,
    // float"), 128-thread CTAs (the SDK's default block) and 195 CTAs: the
    // SDK's grid rule, ceil(100000 / 128) = 782 CTAs halved while above
    // 2 * 10 blocks per SM * 15 SMs (the GTX480 of seed 004 Table 1).
    const bool small = size == Size::Small, paper = size == Size::Paper;
    const uint32_t block = small ? 64 : 128;
    const uint32_t num_sims = small ? 1000 : paper ? 100000 : 20000;
    uint32_t grid = small ? 4 : 60;
    if (paper) {
      grid = (num_sims + block - 1) / block;
      while (grid > 2 * 10 * 15) grid >>= 1;
    }
    const uint32_t threads = grid * block;
    const saop::Option option = saop::default_option();
    const uint32_t steps = saop::timesteps(option);

    InputRng rng(seed);
    const uint32_t rng_seed = uint32_t(rng.next() >> 32);
    const std::vector<uint32_t> jump = xorwow::jump_matrices(xorwow::jump_matrix_count(threads));

    auto module = load_workload_module(device, "asian_option");
    uint64_t d_option = device.upload(std::vector<saop::Option>{option}, "option");
    uint64_t d_paths = device.allocate(uint64_t(num_sims) * steps * sizeof(float), "paths");
    uint64_t d_jump = device.upload(jump, "jump_matrices");
    uint64_t d_states = device.allocate(uint64_t(threads) * xorwow::kStateWords * sizeof(uint32_t), "rng_states");
    uint64_t d_values = device.allocate(uint64_t(grid) * sizeof(float), "values");
    device.launch(module, "saop_initRNG", {grid, 1, 1}, {block, 1, 1}, 0,
                  platform::KernelArgs().ptr(d_states).ptr(d_jump).add<uint32_t>(rng_seed));
    device.launch(
        module, "saop_generatePaths", {grid, 1, 1}, {block, 1, 1}, 0,
        platform::KernelArgs().ptr(d_paths).ptr(d_states).ptr(d_option).add<uint32_t>(num_sims).add<uint32_t>(steps));
    device.launch(
        module, "saop_computeValue", {grid, 1, 1}, {block, 1, 1}, block * sizeof(float),
        platform::KernelArgs().ptr(d_values).ptr(d_paths).ptr(d_option).add<uint32_t>(num_sims).add<uint32_t>(steps));
    const std::vector<float> got = device.download<float>(d_values, grid);
    for (uint64_t d : {d_option, d_paths, d_jump, d_states, d_values}) device.free(d);

    const std::vector<float> want = saop::reference_sums(rng_seed, grid, block, num_sims, option, jump);
    WorkloadResult r = compare_close(got, want, 1e-4, "cta_payoff_sum", 1e-3);
    if (r.verified) {
      double sum = 0.0;
      for (float v : got) sum += v;
      char buf[64];
      std::snprintf(buf, sizeof buf, ", price %.4f",
                    sum / num_sims * std::exp(-double(option.r) * double(option.tenor)));
      r.detail += buf;
    }
    return r;
  }
};

const bool registered = register_workload(
    {"asian_option",
     "Monte Carlo Asian option (SDK MC_SingleAsianOptionP): XORWOW jump-ahead init, stored paths, per-CTA payoffs",
     /*ipdom_safe=*/true, [] { return std::make_unique<AsianOption>(); }});

}  // namespace
}  // namespace tlmgpu::workloads
