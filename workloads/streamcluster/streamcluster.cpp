// streamcluster host side: seeded points (feature-major), weights, current
// assignment costs and a batch of candidate centres drawn from the points;
// one launch (small, default) or a sequence of one-candidate launches with
// the host opening the candidates that pay (paper); per-point choice, saving
// and per-CTA saving totals checked exactly against a CPU pass that rounds
// like the kernel (fma over the features, the same shared-memory tree order
// for the CTA sums).
#include <cmath>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "workloads/common/workload_support.h"
#include "workloads/ptxas_registers.h"

namespace tlmgpu::workloads {
namespace {

constexpr int kBlock = 128;  // BLOCK in streamcluster.cu

class Streamcluster : public Workload {
 public:
  WorkloadResult run(platform::GpuDevice& device, Size size, uint64_t seed) override {
    // Small: 1000 points (a partial last CTA) of 8 features, 8 candidates,
    // one launch. Default: 65,536 points of 16 features (512 CTAs), 20
    // candidates, one launch. Paper: 140 launches of 128 CTAs (seed 002: SC
    // 140 kernels of 128 CTAs), each weighing one candidate as Rodinia's
    // pgain does, over 16,384 points (128 CTAs of our 128 threads; Rodinia
    // runs 65,536 points in 512-thread CTAs) of 256 features (Rodinia's
    // default dimension); the host opens a candidate (lowers the costs of
    // the points that gain) when the CTAs' summed saving exceeds an opening
    // cost, so each launch sees the costs the previous ones left.
    const bool small = size == Size::Small, paper = size == Size::Paper;
    const int n = small ? 1000 : paper ? 16384 : 65536, dims = small ? 8 : paper ? 256 : 16;
    const int num_candidates = small ? 8 : paper ? 1 : 20;  // per launch
    const int launches = paper ? 140 : 1;

    InputRng rng(seed);
    std::vector<float> coords(size_t(n) * dims), weight(static_cast<size_t>(n)), cost(static_cast<size_t>(n));
    for (auto& v : coords) v = rng.uniform(0.0f, 1.0f);
    for (auto& w : weight) w = float(1 + rng.below(4));
    // Current costs of the order of a weighted distance, so about half the
    // points find a cheaper candidate.
    for (auto& c : cost) c = rng.uniform(0.0f, 0.4f * float(dims));
    std::vector<int32_t> candidates(size_t(num_candidates) * size_t(launches));
    for (auto& c : candidates) c = int32_t(rng.below(uint32_t(n)));
    // Opening a facility pays off when the points save more than 1 % of the
    // initial total cost (used between launches only).
    float opening_cost = 0.0f;
    for (float c : cost) opening_cost += c;
    opening_cost *= 0.01f;

    const uint32_t ctas = uint32_t((n + kBlock - 1) / kBlock);
    auto module = load_workload_module(device, "streamcluster");
    uint64_t d_coords = device.upload(coords, "coords"), d_weight = device.upload(weight, "weight"),
             d_cost = device.upload(cost, "cost"), d_candidates = device.upload(candidates, "candidates");
    uint64_t d_choice = device.allocate(size_t(n) * sizeof(int32_t), "choice");
    uint64_t d_saving = device.allocate(size_t(n) * sizeof(float), "saving");
    uint64_t d_cta_saving = device.allocate(ctas * sizeof(float), "cta_saving");
    WorkloadResult r;
    int opened = 0;
    for (int l = 0; l < launches; ++l) {
      const int32_t* batch = &candidates[size_t(l) * size_t(num_candidates)];
      device.launch(module, "streamcluster_gain", {ctas, 1, 1}, {uint32_t(kBlock), 1, 1}, 0,
                    platform::KernelArgs()
                        .ptr(d_coords)
                        .ptr(d_weight)
                        .ptr(d_cost)
                        .ptr(d_candidates + uint64_t(l) * uint64_t(num_candidates) * sizeof(int32_t))
                        .ptr(d_choice)
                        .ptr(d_saving)
                        .ptr(d_cta_saving)
                        .add<int32_t>(n)
                        .add<int32_t>(dims)
                        .add<int32_t>(num_candidates));
      auto got_choice = device.download<int32_t>(d_choice, size_t(n));
      auto got_saving = device.download<float>(d_saving, size_t(n));
      auto got_cta = device.download<float>(d_cta_saving, ctas);

      std::vector<int32_t> want_choice(static_cast<size_t>(n));
      std::vector<float> want_saving(static_cast<size_t>(n)), want_cta(ctas);
      for (int p = 0; p < n; ++p) {
        float best = cost[size_t(p)];
        int best_c = -1;
        for (int c = 0; c < num_candidates; ++c) {
          float dist = 0.0f;
          for (int d = 0; d < dims; ++d) {
            const float diff = coords[size_t(d) * n + p] - coords[size_t(d) * n + size_t(batch[c])];
            dist = std::fma(diff, diff, dist);
          }
          const float weighted = dist * weight[size_t(p)];
          if (weighted < best) best = weighted, best_c = c;
        }
        want_choice[size_t(p)] = best_c;
        want_saving[size_t(p)] = cost[size_t(p)] - best;
      }
      for (uint32_t b = 0; b < ctas; ++b) {
        float sums[kBlock];
        for (int t = 0; t < kBlock; ++t) {
          const size_t p = size_t(b) * kBlock + size_t(t);
          sums[t] = p < size_t(n) ? want_saving[p] : 0.0f;
        }
        for (int stride = kBlock / 2; stride > 0; stride >>= 1)
          for (int t = 0; t < stride; ++t) sums[t] += sums[t + stride];
        want_cta[b] = sums[0];
      }
      const std::string at = launches > 1 ? " (launch " + std::to_string(l) + ")" : "";
      r = compare_exact(got_choice, want_choice, "choice" + at);
      if (r.verified) r = compare_exact(got_saving, want_saving, "saving" + at);
      if (r.verified) r = compare_exact(got_cta, want_cta, "cta_saving" + at);
      if (!r.verified || l + 1 == launches) break;

      // Open the candidate if it pays: the points that gain move to it.
      float gain = 0.0f;
      for (float g : want_cta) gain += g;
      if (gain > opening_cost) {
        ++opened;
        for (int p = 0; p < n; ++p) cost[size_t(p)] -= want_saving[size_t(p)];
        device.copy_to_device(d_cost, cost.data(), cost.size() * sizeof(float));
      }
    }
    for (uint64_t d : {d_coords, d_weight, d_cost, d_candidates, d_choice, d_saving, d_cta_saving}) device.free(d);
    if (r.verified && launches > 1)
      r.detail += " (" + std::to_string(launches) + " launches, " + std::to_string(opened) + " candidates opened)";
    return r;
  }
};

const bool registered = register_workload(
    {"streamcluster", "points vs candidate centres: weighted distances, many loads per thread, CTA tree sum",
     /*ipdom_safe=*/true, [] { return std::make_unique<Streamcluster>(); }});

}  // namespace
}  // namespace tlmgpu::workloads
