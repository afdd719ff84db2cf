// histogram256: the CUDA SDK sample histogram's 256-bin path.
// histogram256Kernel counts bytes into one shared-memory sub-histogram per
// warp with shared atomics and writes one partial histogram per CTA;
// mergeHistogram256Kernel adds the partials, one CTA per bin. Uniform random
// bytes, as the SDK's input; the 256 bins are compared exactly with a CPU
// count.
#include <cstdint>
#include <memory>
#include <vector>

#include "workloads/common/workload_support.h"
#include "workloads/ptxas_registers.h"

namespace tlmgpu::workloads {
namespace {

constexpr uint32_t kThreads = 192, kBins = 256, kMergeThreads = 256;

class Histogram256 : public Workload {
 public:
  WorkloadResult run(platform::GpuDevice& device, Size size, uint64_t seed) override {
    // Small: 65,548 bytes over 32 CTAs (the grid-stride loop's last pass is
    // ragged). Default: 8 MB over the SDK's 240 CTAs. Paper: the SDK's 64 MB
    // (67,108,864 bytes) over its fixed 240 CTAs (seed 000 Table II:
    // histogram256Kernel 240, mergeHistogram256Kernel 256).
    const uint64_t bytes = size == Size::Small ? 65548 : size == Size::Default ? 8ull << 20 : 64ull << 20;
    const uint32_t grid = size == Size::Small ? 32 : 240;

    InputRng rng(seed);
    std::vector<uint32_t> words(bytes / 4);
    for (auto& w : words) w = uint32_t(rng.next() >> 32);

    auto module = load_workload_module(device, "histogram256");
    uint64_t d_data = device.upload(words, "data");
    uint64_t d_partials = device.allocate(uint64_t(grid) * kBins * sizeof(uint32_t), "partials");
    uint64_t d_hist = device.allocate(kBins * sizeof(uint32_t), "hist");
    device.launch(module, "histogram256Kernel", {grid, 1, 1}, {kThreads, 1, 1}, 0,
                  platform::KernelArgs().ptr(d_partials).ptr(d_data).add<uint32_t>(uint32_t(words.size())));
    device.launch(module, "mergeHistogram256Kernel", {kBins, 1, 1}, {kMergeThreads, 1, 1}, 0,
                  platform::KernelArgs().ptr(d_hist).ptr(d_partials).add<uint32_t>(grid));
    std::vector<uint32_t> got = device.download<uint32_t>(d_hist, kBins);
    for (uint64_t d : {d_data, d_partials, d_hist}) device.free(d);

    std::vector<uint32_t> want(kBins, 0);
    for (uint32_t w : words)
      for (int b = 0; b < 4; ++b) ++want[(w >> (8 * b)) & 0xffu];
    return compare_exact(got, want, "bin");
  }
};

const bool registered = register_workload(
    {"histogram256", "SDK histogram256: per-warp shared-memory histograms with shared atomics, then a merge kernel per bin",
     /*ipdom_safe=*/true, [] { return std::make_unique<Histogram256>(); }});

}  // namespace
}  // namespace tlmgpu::workloads
