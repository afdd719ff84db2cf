// nearest_neighbor as a CUDA program: the host steps of
// workloads/nearest_neighbor/nearest_neighbor.cpp (one thread per record's
// distance, exact check, the k nearest picked on the host).
#include <cstdio>
#include <utility>

#include "tests/cuda/workloads/program_support.h"
#include "workloads/nearest_neighbor/nearest_neighbor.cu"

namespace {

// Rodinia's selection (the workload's k_nearest).
std::vector<int32_t> k_nearest(const std::vector<float>& dist, int k) {
  std::vector<int32_t> order(dist.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = int32_t(i);
  for (int i = 0; i < k && size_t(i) < order.size(); ++i) {
    size_t best = size_t(i);
    for (size_t j = size_t(i) + 1; j < order.size(); ++j)
      if (dist[size_t(order[j])] < dist[size_t(order[best])]) best = j;
    std::swap(order[size_t(i)], order[best]);
  }
  order.resize(size_t(k));
  return order;
}

}  // namespace

int main(int argc, char** argv) {
  const program::Options opt = program::parse_options(argc, argv);
  const int n = opt.size == program::Size::Small ? 1000 : 10691;
  const int k = 5;
  const float lat = 30.0f, lng = 90.0f;
  const unsigned block = 256;
  const unsigned ctas = unsigned((n + int(block) - 1) / int(block));

  program::InputRng rng(opt.seed);
  std::vector<float> records(size_t(n) * 2);
  for (int i = 0; i < n; ++i) {
    records[size_t(i) * 2] = float(70 + int(rng.below(630))) / 10.0f;
    records[size_t(i) * 2 + 1] = float(rng.below(3600)) / 10.0f;
  }

  float* d_records = program::upload(records);
  float* d_dist = program::device_alloc<float>(size_t(n));
  euclid<<<ctas, block>>>(reinterpret_cast<const LatLong*>(d_records), d_dist, n, lat, lng);
  CUDA_CHECK_LAUNCH();
  const std::vector<float> got = program::download(d_dist, size_t(n));
  program::free_all(d_records, d_dist);

  std::vector<float> want(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) {
    const float dlat = lat - records[size_t(i) * 2], dlng = lng - records[size_t(i) * 2 + 1];
    const float dlng2 = dlng * dlng;
    want[size_t(i)] = std::sqrt(std::fma(dlat, dlat, dlng2));
  }
  program::Result r = program::compare_exact(got, want, "distance");
  if (!r.verified) return program::report("nearest_neighbor", r);
  const std::vector<int32_t> picked = k_nearest(got, k);
  r = program::compare_exact(picked, k_nearest(want, k), "nearest");
  if (r.verified) {
    char buf[64];
    std::snprintf(buf, sizeof buf, " (distances match; nearest %.2f at record %d)", double(got[size_t(picked[0])]),
                  int(picked[0]));
    r.detail += buf;
  }
  return program::report("nearest_neighbor", r);
}
