// estimate_pi: Monte Carlo estimate of pi with an inline per-thread XORWOW
// generator (CUDA SDK MC_EstimatePiInlineP, "EPP" of seed 004 Table 2).
// epp_initRNG jumps every thread's generator to its own subsequence with
// jump matrices in global memory, epp_computeValue counts the points inside
// the quarter circle per CTA; the host sums the counts. The per-CTA counts
// are checked exactly against the same streams drawn on the host.
#include <cstdint>
#include <cstdio>
#include <memory>
#include <vector>

#include "workloads/common/workload_support.h"
#include "workloads/estimate_pi/estimate_pi_host.h"
#include "workloads/ptxas_registers.h"

namespace tlmgpu::workloads {
namespace {

class EstimatePi : public Workload {
 public:
  WorkloadResult run(platform::GpuDevice& device, Size size, uint64_t seed) override {
    // Small: 1,000 points, 4 CTAs x 64 threads (tids below 4^4: four jump
    // matrices; the strided loop is ragged).
    // Default: 50,000 points, 60 CTAs x 128 threads (4 per SM of a GTX480).
    // Paper: 100,000 points in single precision (seed 004 Table 2: "100000,
    // float"), 128-thread CTAs (the SDK's default block) and 195 CTAs: the
    // SDK's grid rule, ceil(100000 / 128) = 782 CTAs halved while above
    // 2 * 10 blocks per SM * 15 SMs (the GTX480 of seed 004 Table 1).
    const bool small = size == Size::Small, paper = size == Size::Paper;
    const uint32_t block = small ? 64 : 128;
    const uint32_t num_sims = small ? 1000 : paper ? 100000 : 50000;
    uint32_t grid = small ? 4 : 60;
    if (paper) {
      grid = (num_sims + block - 1) / block;
      while (grid > 2 * 10 * 15) grid >>= 1;
    }
    const uint32_t threads = grid * block;

    InputRng rng(seed);
    const uint32_t rng_seed = uint32_t(rng.next() >> 32);
    const std::vector<uint32_t> jump = xorwow::jump_matrices(xorwow::jump_matrix_count(threads));

    auto module = load_workload_module(device, "estimate_pi");
    uint64_t d_jump = device.upload(jump, "jump_matrices");
    uint64_t d_states = device.allocate(uint64_t(threads) * 6 * sizeof(uint32_t), "rng_states");
    uint64_t d_results = device.allocate(uint64_t(grid) * sizeof(uint32_t), "results");
    device.launch(module, "epp_initRNG", {grid, 1, 1}, {block, 1, 1}, 0,
                  platform::KernelArgs().ptr(d_states).ptr(d_jump).add<uint32_t>(rng_seed));
    device.launch(module, "epp_computeValue", {grid, 1, 1}, {block, 1, 1}, block * sizeof(uint32_t),
                  platform::KernelArgs().ptr(d_results).ptr(d_states).add<uint32_t>(num_sims));
    const std::vector<uint32_t> got = device.download<uint32_t>(d_results, grid);
    for (uint64_t d : {d_jump, d_states, d_results}) device.free(d);

    const std::vector<uint32_t> want = epp::reference_counts(rng_seed, grid, block, num_sims, jump);
    WorkloadResult r = compare_exact(got, want, "cta_hits");
    if (r.verified) {
      uint64_t inside = 0;
      for (uint32_t c : got) inside += c;
      char buf[64];
      std::snprintf(buf, sizeof buf, ", pi ~ %.5f", 4.0 * double(inside) / double(num_sims));
      r.detail += buf;
    }
    return r;
  }
};

const bool registered = register_workload(
    {"estimate_pi", "Monte Carlo pi (SDK MC_EstimatePiInlineP): XORWOW jump-ahead init, per-CTA hit counts",
     /*ipdom_safe=*/true, [] { return std::make_unique<EstimatePi>(); }});

}  // namespace
}  // namespace tlmgpu::workloads
