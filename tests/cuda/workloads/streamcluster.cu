// streamcluster as a CUDA program: the host steps of
// workloads/streamcluster/streamcluster.cpp (weighted distances of points to
// candidate centres, per-CTA saving sums; all checked exactly; at the paper
// size 140 one-candidate launches, the host opening the candidates that pay).
#include "tests/cuda/workloads/program_support.h"
#include "workloads/streamcluster/streamcluster.cu"

int main(int argc, char** argv) {
  const program::Options opt = program::parse_options(argc, argv);
  const bool small = opt.size == program::Size::Small, paper = opt.size == program::Size::Paper;
  const int n = small ? 1000 : paper ? 16384 : 65536, dims = small ? 8 : paper ? 256 : 16;
  const int num_candidates = small ? 8 : paper ? 1 : 20;  // per launch
  const int launches = paper ? 140 : 1;                    // paper: seed 002's 140 launches of 128 CTAs

  program::InputRng rng(opt.seed);
  std::vector<float> coords(size_t(n) * dims), weight(static_cast<size_t>(n)), cost(static_cast<size_t>(n));
  for (auto& v : coords) v = rng.uniform(0.0f, 1.0f);
  for (auto& w : weight) w = float(1 + rng.below(4));
  // Costs of the order of a weighted distance: about half the points gain.
  for (auto& c : cost) c = rng.uniform(0.0f, 0.4f * float(dims));
  std::vector<int32_t> candidates(size_t(num_candidates) * size_t(launches));
  for (auto& c : candidates) c = int32_t(rng.below(uint32_t(n)));
  // Opening a candidate pays when the points save more than 1 % of the
  // initial total cost (between launches only).
  float opening_cost = 0.0f;
  for (float c : cost) opening_cost += c;
  opening_cost *= 0.01f;

  const unsigned ctas = unsigned((n + BLOCK - 1) / BLOCK);
  float* d_coords = program::upload(coords);
  float* d_weight = program::upload(weight);
  float* d_cost = program::upload(cost);
  int* d_candidates = program::upload(candidates);
  int* d_choice = program::device_alloc<int>(static_cast<size_t>(n));
  float* d_saving = program::device_alloc<float>(static_cast<size_t>(n));
  float* d_cta_saving = program::device_alloc<float>(ctas);
  program::Result r;
  int opened = 0;
  for (int l = 0; l < launches; ++l) {
    const int32_t* batch = &candidates[size_t(l) * size_t(num_candidates)];
    streamcluster_gain<<<ctas, BLOCK>>>(d_coords, d_weight, d_cost, d_candidates + size_t(l) * size_t(num_candidates),
                                        d_choice, d_saving, d_cta_saving, n, dims, num_candidates);
    CUDA_CHECK_LAUNCH();
    const std::vector<int> got_choice = program::download(d_choice, size_t(n));
    const std::vector<float> got_saving = program::download(d_saving, size_t(n));
    const std::vector<float> got_cta = program::download(d_cta_saving, ctas);

    std::vector<int> want_choice(static_cast<size_t>(n));
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
    const std::string at = launches > 1 ? " (launch " + std::to_string(l) + ")" : "";
    r = program::compare_exact(got_choice, want_choice, "choice" + at);
    if (r.verified) r = program::compare_exact(got_saving, want_saving, "saving" + at);
    if (r.verified) r = program::compare_exact(got_cta, want_cta, "cta_saving" + at);
    if (!r.verified || l + 1 == launches) break;

    // Open the candidate if it pays: the points that gain move to it.
    float gain = 0.0f;
    for (float g : want_cta) gain += g;
    if (gain > opening_cost) {
      ++opened;
      for (int p = 0; p < n; ++p) cost[size_t(p)] -= want_saving[size_t(p)];
      CUDA_CHECK(cudaMemcpy(d_cost, cost.data(), cost.size() * sizeof(float), cudaMemcpyHostToDevice));
    }
  }
  program::free_all(d_coords, d_weight, d_cost, d_candidates, d_choice, d_saving, d_cta_saving);
  if (r.verified && launches > 1)
    r.detail += " (" + std::to_string(launches) + " launches, " + std::to_string(opened) + " candidates opened)";
  return program::report("streamcluster", r);
}
