// kmeans as a CUDA program: the host steps of workloads/kmeans/kmeans.cpp
// (Lloyd iterations of assign + partial sums on the device, centroid update
// on the host; memberships, partial sums and counts checked exactly against
// a CPU pass in lockstep).
#include "tests/cuda/workloads/program_support.h"
#include "workloads/kmeans/kmeans.cu"

namespace {

struct Problem {
  int n, dims, k, chunk;
};

std::vector<int32_t> cpu_assign(const std::vector<float>& points, const std::vector<float>& centroids,
                                const Problem& pb) {
  std::vector<int32_t> membership(size_t(pb.n));
  for (int p = 0; p < pb.n; ++p) {
    float best = 3.402823466e38f;
    int best_c = 0;
    for (int c = 0; c < pb.k; ++c) {
      float dist = 0.0f;
      for (int d = 0; d < pb.dims; ++d) {
        const float diff = points[size_t(p) * pb.dims + d] - centroids[size_t(c) * pb.dims + d];
        dist = std::fma(diff, diff, dist);
      }
      if (dist < best) best = dist, best_c = c;
    }
    membership[size_t(p)] = best_c;
  }
  return membership;
}

// New centroids from the per-CTA partial sums in CTA order; an empty cluster
// keeps its centroid.
std::vector<float> update_centroids(const std::vector<float>& partial, const std::vector<int32_t>& counts,
                                    const std::vector<float>& old, const Problem& pb, int ctas) {
  std::vector<float> next(old);
  for (int c = 0; c < pb.k; ++c) {
    int members = 0;
    for (int b = 0; b < ctas; ++b) members += counts[size_t(b) * pb.k + c];
    if (members == 0) continue;
    for (int d = 0; d < pb.dims; ++d) {
      float sum = 0.0f;
      for (int b = 0; b < ctas; ++b) sum += partial[(size_t(b) * pb.k + c) * pb.dims + d];
      next[size_t(c) * pb.dims + d] = sum / float(members);
    }
  }
  return next;
}

}  // namespace

int main(int argc, char** argv) {
  const program::Options opt = program::parse_options(argc, argv);
  const bool small = opt.size == program::Size::Small, paper = opt.size == program::Size::Paper;
  // paper: seed 003's 32 warps of 32 threads, Rodinia's 34 features and 5 clusters
  const Problem pb{small ? 1200 : paper ? 1024 : 65536, small ? 8 : paper ? 34 : 16, small || paper ? 5 : 8,
                   256};
  const int iterations = 2;
  const unsigned block = 256;  // >= k * dims + k
  const int ctas = (pb.n + pb.chunk - 1) / pb.chunk;

  program::InputRng rng(opt.seed);
  std::vector<float> truth(size_t(pb.k) * pb.dims), points(size_t(pb.n) * pb.dims);
  for (auto& v : truth) v = rng.uniform(0.0f, 10.0f);
  for (int p = 0; p < pb.n; ++p) {
    const uint32_t c = rng.below(uint32_t(pb.k));
    for (int d = 0; d < pb.dims; ++d)
      points[size_t(p) * pb.dims + d] = truth[size_t(c) * pb.dims + d] + rng.uniform(-2.5f, 2.5f);
  }
  // Initial centroids: the first k points.
  std::vector<float> centroids(points.begin(), points.begin() + size_t(pb.k) * pb.dims);

  float* d_points = program::upload(points);
  float* d_centroids = program::device_alloc<float>(centroids.size());
  int* d_membership = program::device_alloc<int>(size_t(pb.n));
  float* d_partial = program::device_alloc<float>(size_t(ctas) * pb.k * pb.dims);
  int* d_counts = program::device_alloc<int>(size_t(ctas) * pb.k);

  program::Result r{true, ""};
  for (int it = 0; it < iterations && r.verified; ++it) {
    CUDA_CHECK(cudaMemcpy(d_centroids, centroids.data(), centroids.size() * sizeof(float), cudaMemcpyHostToDevice));
    kmeans_assign<<<unsigned((pb.n + int(block) - 1) / int(block)), block>>>(d_points, d_centroids, d_membership, pb.n,
                                                                             pb.dims, pb.k);
    CUDA_CHECK_LAUNCH();
    kmeans_partial_sums<<<unsigned(ctas), block>>>(d_points, d_membership, d_partial, d_counts, pb.n, pb.dims, pb.k,
                                                   pb.chunk);
    CUDA_CHECK_LAUNCH();
    const std::vector<int> got_membership = program::download(d_membership, size_t(pb.n));
    const std::vector<float> got_partial = program::download(d_partial, size_t(ctas) * pb.k * pb.dims);
    const std::vector<int> got_counts = program::download(d_counts, size_t(ctas) * pb.k);

    const std::vector<int32_t> membership = cpu_assign(points, centroids, pb);
    std::vector<float> partial(got_partial.size(), 0.0f);
    std::vector<int32_t> counts(got_counts.size(), 0);
    for (int p = 0; p < pb.n; ++p) {
      const size_t b = size_t(p / pb.chunk), c = size_t(membership[size_t(p)]);
      ++counts[b * pb.k + c];
      for (int d = 0; d < pb.dims; ++d) partial[(b * pb.k + c) * pb.dims + d] += points[size_t(p) * pb.dims + d];
    }
    const std::string when = " (iteration " + std::to_string(it) + ")";
    r = program::compare_exact(got_membership, membership, "membership" + when);
    if (r.verified) r = program::compare_exact(got_partial, partial, "partial" + when);
    if (r.verified) r = program::compare_exact(got_counts, counts, "counts" + when);
    centroids = update_centroids(partial, counts, centroids, pb, ctas);
  }
  program::free_all(d_points, d_centroids, d_membership, d_partial, d_counts);
  if (r.verified) r.detail += "; " + std::to_string(iterations) + " iterations";
  return program::report("kmeans", r);
}
