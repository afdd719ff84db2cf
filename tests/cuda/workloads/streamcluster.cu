// streamcluster as a CUDA program: the host steps of
// workloads/streamcluster/streamcluster.cpp (weighted distances of points to
// candidate centres, per-CTA saving sums; all checked exactly).
#include "tests/cuda/workloads/program_support.h"
#include "workloads/streamcluster/streamcluster.cu"

int main(int argc, char** argv) {
  const program::Options opt = program::parse_options(argc, argv);
  const bool small = opt.size == program::Size::Small;
  const int n = small ? 1000 : 65536, dims = small ? 8 : 16, num_candidates = small ? 8 : 20;

  program::InputRng rng(opt.seed);
  std::vector<float> coords(size_t(n) * dims), weight(static_cast<size_t>(n)), cost(static_cast<size_t>(n));
  for (auto& v : coords) v = rng.uniform(0.0f, 1.0f);
  for (auto& w : weight) w = float(1 + rng.below(4));
  // Costs of the order of a weighted distance: about half the points gain.
  for (auto& c : cost) c = rng.uniform(0.0f, 0.4f * float(dims));
  std::vector<int32_t> candidates(static_cast<size_t>(num_candidates));
  for (auto& c : candidates) c = int32_t(rng.below(uint32_t(n)));

  const unsigned ctas = unsigned((n + BLOCK - 1) / BLOCK);
  float* d_coords = program::upload(coords);
  float* d_weight = program::upload(weight);
  float* d_cost = program::upload(cost);
  int* d_candidates = program::upload(candidates);
  int* d_choice = program::device_alloc<int>(static_cast<size_t>(n));
  float* d_saving = program::device_alloc<float>(static_cast<size_t>(n));
  float* d_cta_saving = program::device_alloc<float>(ctas);
  streamcluster_gain<<<ctas, BLOCK>>>(d_coords, d_weight, d_cost, d_candidates, d_choice, d_saving, d_cta_saving, n,
                                      dims, num_candidates);
  CUDA_CHECK_LAUNCH();
  const std::vector<int> got_choice = program::download(d_choice, size_t(n));
  const std::vector<float> got_saving = program::download(d_saving, size_t(n));
  const std::vector<float> got_cta = program::download(d_cta_saving, ctas);
  program::free_all(d_coords, d_weight, d_cost, d_candidates, d_choice, d_saving, d_cta_saving);

  std::vector<int> want_choice(static_cast<size_t>(n));
  std::vector<float> want_saving(static_cast<size_t>(n)), want_cta(ctas);
  for (int p = 0; p < n; ++p) {
    float best = cost[size_t(p)];
    int best_c = -1;
    for (int c = 0; c < num_candidates; ++c) {
      float dist = 0.0f;
      for (int d = 0; d < dims; ++d) {
        const float diff = coords[size_t(d) * n + p] - coords[size_t(d) * n + size_t(candidates[size_t(c)])];
        dist = std::fma(diff, diff, dist);
      }
      const float weighted = dist * weight[size_t(p)];
      if (weighted < best) best = weighted, best_c = c;
    }
    want_choice[size_t(p)] = best_c;
    want_saving[size_t(p)] = cost[size_t(p)] - best;
  }
  for (unsigned b = 0; b < ctas; ++b) {
    float sums[BLOCK];
    for (int t = 0; t < BLOCK; ++t) {
      const size_t p = size_t(b) * BLOCK + size_t(t);
      sums[t] = p < size_t(n) ? want_saving[p] : 0.0f;
    }
    for (int stride = BLOCK / 2; stride > 0; stride >>= 1)
      for (int t = 0; t < stride; ++t) sums[t] += sums[t + stride];
    want_cta[b] = sums[0];
  }
  program::Result r = program::compare_exact(got_choice, want_choice, "choice");
  if (r.verified) r = program::compare_exact(got_saving, want_saving, "saving");
  if (r.verified) r = program::compare_exact(got_cta, want_cta, "cta_saving");
  return program::report("streamcluster", r);
}
