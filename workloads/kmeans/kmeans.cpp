// kmeans host side: seeded points around k seeded centres, a few Lloyd
// iterations of assign + partial sums on the device with the centroid update
// on the host. A CPU reference runs the same iterations in lockstep (fma in
// the distance, the kernel's summation order), so memberships, partial sums
// and the final centroids must match exactly.
#include <cmath>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "workloads/common/workload_support.h"
#include "workloads/ptxas_registers.h"

namespace tlmgpu::workloads {
namespace {

struct Problem {
  int n, dims, k, chunk;
};

std::vector<int32_t> cpu_assign(const std::vector<float>& points, const std::vector<float>& centroids,
                                const Problem& pb) {
  std::vector<int32_t> membership(static_cast<size_t>(pb.n));
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

// New centroids from the per-CTA partial sums (CTAs in order); an empty
// cluster keeps its centroid.
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

class Kmeans : public Workload {
 public:
  WorkloadResult run(platform::GpuDevice& device, Size size, uint64_t seed) override {
    // Small: 1200 points of 8 features, 5 clusters, 2 iterations.
    // Default: 65,536 points of 16 features, 8 clusters, 2 iterations
    // (256 CTAs per launch). Paper: seed 003 (SWaS: 32 warps of 32
    // threads, Table I: 164,077 instructions): 1024 points (4 CTAs of 256)
    // of Rodinia kmeans' 34 features (its kdd_cup input) in 5 clusters, 2
    // iterations: about 165 k warp instructions.
    const bool small = size == Size::Small, paper = size == Size::Paper;
    const Problem pb{small ? 1200 : paper ? 1024 : 65536, small ? 8 : paper ? 34 : 16, small || paper ? 5 : 8,
                     256};
    const int iterations = 2;
    const uint32_t block = 256;  // >= k * dims + k: every partial-sum slot has a thread
    const int ctas = (pb.n + pb.chunk - 1) / pb.chunk;

    InputRng rng(seed);
    std::vector<float> truth(size_t(pb.k) * pb.dims), points(size_t(pb.n) * pb.dims);
    for (auto& v : truth) v = rng.uniform(0.0f, 10.0f);
    for (int p = 0; p < pb.n; ++p) {
      const uint32_t c = rng.below(uint32_t(pb.k));
      for (int d = 0; d < pb.dims; ++d)
        points[size_t(p) * pb.dims + d] = truth[size_t(c) * pb.dims + d] + rng.uniform(-2.5f, 2.5f);
    }
    // Initial centroids: the first k points (as Lloyd's method often starts).
    std::vector<float> centroids(points.begin(), points.begin() + size_t(pb.k) * pb.dims);

    auto module = load_workload_module(device, "kmeans");
    uint64_t d_points = device.upload(points, "points");
    uint64_t d_centroids = device.allocate(centroids.size() * sizeof(float), "centroids");
    uint64_t d_membership = device.allocate(size_t(pb.n) * sizeof(int32_t), "membership");
    uint64_t d_partial = device.allocate(size_t(ctas) * pb.k * pb.dims * sizeof(float), "partial");
    uint64_t d_counts = device.allocate(size_t(ctas) * pb.k * sizeof(int32_t), "counts");

    WorkloadResult r{true, ""};
    for (int it = 0; it < iterations && r.verified; ++it) {
      device.copy_to_device(d_centroids, centroids.data(), centroids.size() * sizeof(float));
      device.launch(module, "kmeans_assign", {uint32_t((pb.n + int(block) - 1) / int(block)), 1, 1}, {block, 1, 1}, 0,
                    platform::KernelArgs()
                        .ptr(d_points)
                        .ptr(d_centroids)
                        .ptr(d_membership)
                        .add<int32_t>(pb.n)
                        .add<int32_t>(pb.dims)
                        .add<int32_t>(pb.k));
      device.launch(module, "kmeans_partial_sums", {uint32_t(ctas), 1, 1}, {block, 1, 1}, 0,
                    platform::KernelArgs()
                        .ptr(d_points)
                        .ptr(d_membership)
                        .ptr(d_partial)
                        .ptr(d_counts)
                        .add<int32_t>(pb.n)
                        .add<int32_t>(pb.dims)
                        .add<int32_t>(pb.k)
                        .add<int32_t>(pb.chunk));
      auto got_membership = device.download<int32_t>(d_membership, size_t(pb.n));
      auto got_partial = device.download<float>(d_partial, size_t(ctas) * pb.k * pb.dims);
      auto got_counts = device.download<int32_t>(d_counts, size_t(ctas) * pb.k);

      const std::vector<int32_t> membership = cpu_assign(points, centroids, pb);
      std::vector<float> partial(got_partial.size(), 0.0f);
      std::vector<int32_t> counts(got_counts.size(), 0);
      for (int p = 0; p < pb.n; ++p) {
        const size_t b = size_t(p / pb.chunk), c = size_t(membership[size_t(p)]);
        ++counts[b * pb.k + c];
        for (int d = 0; d < pb.dims; ++d) partial[(b * pb.k + c) * pb.dims + d] += points[size_t(p) * pb.dims + d];
      }
      const std::string when = " (iteration " + std::to_string(it) + ")";
      r = compare_exact(got_membership, membership, "membership" + when);
      if (r.verified) r = compare_exact(got_partial, partial, "partial" + when);
      if (r.verified) r = compare_exact(got_counts, counts, "counts" + when);
      centroids = update_centroids(partial, counts, centroids, pb, ctas);
    }
    for (uint64_t d : {d_points, d_centroids, d_membership, d_partial, d_counts}) device.free(d);
    if (r.verified) r.detail += "; " + std::to_string(iterations) + " iterations";
    return r;
  }
};

const bool registered =
    register_workload({"kmeans",
                       "k-means iterations: nearest-centroid assignment over row-major points (cache-sensitive), "
                       "divergent per-CTA partial sums",
                       /*ipdom_safe=*/true, [] { return std::make_unique<Kmeans>(); }});

}  // namespace
}  // namespace tlmgpu::workloads
