// nearest_neighbor: Rodinia nn ("nearestNeighbor" of seed 004 Table 2): one
// thread per record computes its distance to the target; the host picks the
// k nearest with Rodinia's partial selection. Distances are checked exactly
// (one fused rounding order on both sides, IEEE square root), then the k
// picks from the device's distances against those from the host's.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <vector>

#include "workloads/common/workload_support.h"
#include "workloads/ptxas_registers.h"

namespace tlmgpu::workloads {
namespace {

// Rodinia's selection: k passes, each moving the nearest remaining record to
// the front (the first on ties).
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

class NearestNeighbor : public Workload {
 public:
  WorkloadResult run(platform::GpuDevice& device, Size size, uint64_t seed) override {
    // Small: 1,000 records (4 CTAs, the last partial). Default and Paper:
    // 10,691 records (seed 004 Table 2), 42 CTAs of 256 threads (Rodinia's
    // default block), the 5 nearest to latitude 30, longitude 90 (Rodinia's
    // run: -r 5 -lat 30 -lng 90).
    const int n = size == Size::Small ? 1000 : 10691;
    const int k = 5;
    const float lat = 30.0f, lng = 90.0f;
    const uint32_t block = 256;
    const uint32_t ctas = uint32_t((n + int(block) - 1) / int(block));

    // Hurricane-like positions in tenths of a degree: latitude 7.0-69.9,
    // longitude 0.0-359.9.
    InputRng rng(seed);
    std::vector<float> records(size_t(n) * 2);
    for (int i = 0; i < n; ++i) {
      records[size_t(i) * 2] = float(70 + int(rng.below(630))) / 10.0f;
      records[size_t(i) * 2 + 1] = float(rng.below(3600)) / 10.0f;
    }

    auto module = load_workload_module(device, "nearest_neighbor");
    uint64_t d_records = device.upload(records, "locations");
    uint64_t d_dist = device.allocate(uint64_t(n) * sizeof(float), "distances");
    device.launch(module, "euclid", {ctas, 1, 1}, {block, 1, 1}, 0,
                  platform::KernelArgs().ptr(d_records).ptr(d_dist).add<int32_t>(n).add<float>(lat).add<float>(lng));
    const std::vector<float> got = device.download<float>(d_dist, size_t(n));
    for (uint64_t d : {d_records, d_dist}) device.free(d);

    std::vector<float> want(static_cast<size_t>(n));
    for (int i = 0; i < n; ++i) {
      const float dlat = lat - records[size_t(i) * 2], dlng = lng - records[size_t(i) * 2 + 1];
      const float dlng2 = dlng * dlng;
      want[size_t(i)] = std::sqrt(std::fma(dlat, dlat, dlng2));
    }
    WorkloadResult r = compare_exact(got, want, "distance");
    if (!r.verified) return r;
    const std::vector<int32_t> picked = k_nearest(got, k);
    r = compare_exact(picked, k_nearest(want, k), "nearest");
    if (r.verified) {
      char buf[64];
      std::snprintf(buf, sizeof buf, " (distances match; nearest %.2f at record %d)", double(got[size_t(picked[0])]),
                    int(picked[0]));
      r.detail += buf;
    }
    return r;
  }
};

const bool registered = register_workload(
    {"nearest_neighbor", "Rodinia nn: every record's distance to a target, one thread per record; host picks the k nearest",
     /*ipdom_safe=*/true, [] { return std::make_unique<NearestNeighbor>(); }});

}  // namespace
}  // namespace tlmgpu::workloads
