// histogram64: the CUDA SDK sample histogram's 64-bin path. histogram64Kernel
// counts bytes (bin = byte >> 2) into per-thread 8-bit counters in shared
// memory and writes one partial histogram per CTA; mergeHistogram64Kernel
// adds the partials, one CTA per bin. Uniform random bytes, as the SDK's
// input; the 64 bins are compared exactly with a CPU count.
#include <cstdint>
#include <memory>
#include <vector>

#include "workloads/common/workload_support.h"
#include "workloads/ptxas_registers.h"

namespace tlmgpu::workloads {
namespace {

constexpr uint32_t kThreads = 64, kBins = 64, kMergeThreads = 256;
// Bytes one thread may count before an 8-bit counter could overflow, rounded
// down to the 16-byte word the kernel reads (the SDK's 255 snapped to 240).
constexpr uint64_t kBytesPerThread = 240;

class Histogram64 : public Workload {
 public:
  WorkloadResult run(platform::GpuDevice& device, Size size, uint64_t seed) override {
    // The grid is ceil(bytes / (64 threads x 240 bytes)), as the SDK derives it.
    // Small: 46,000 bytes, 3 CTAs (the last one partly idle). Default: 8 MB,
    // 547 CTAs. Paper: the SDK's 64 MB (67,108,864 bytes), 4,370 CTAs
    // (seed 000 Table II: histogram64Kernel 4370, mergeHistogram64Kernel 64).
    const uint64_t bytes = size == Size::Small ? 46000 : size == Size::Default ? 8ull << 20 : 64ull << 20;
    const uint32_t grid = uint32_t((bytes + kThreads * kBytesPerThread - 1) / (kThreads * kBytesPerThread));

    InputRng rng(seed);
    std::vector<uint8_t> data(bytes);
    for (uint64_t i = 0; i < bytes; i += 8) {
      uint64_t r = rng.next();
      for (uint64_t b = 0; b < 8 && i + b < bytes; ++b, r >>= 8) data[i + b] = uint8_t(r);
    }

    auto module = load_workload_module(device, "histogram64");
    uint64_t d_data = device.upload(data, "data");
    uint64_t d_partials = device.allocate(uint64_t(grid) * kBins * sizeof(uint32_t), "partials");
    uint64_t d_hist = device.allocate(kBins * sizeof(uint32_t), "hist");
    device.launch(module, "histogram64Kernel", {grid, 1, 1}, {kThreads, 1, 1}, 0,
                  platform::KernelArgs().ptr(d_partials).ptr(d_data).add<uint32_t>(uint32_t(bytes / 16)));
    device.launch(module, "mergeHistogram64Kernel", {kBins, 1, 1}, {kMergeThreads, 1, 1}, 0,
                  platform::KernelArgs().ptr(d_hist).ptr(d_partials).add<uint32_t>(grid));
    std::vector<uint32_t> got = device.download<uint32_t>(d_hist, kBins);
    for (uint64_t d : {d_data, d_partials, d_hist}) device.free(d);

    std::vector<uint32_t> want(kBins, 0);
    for (uint8_t b : data) ++want[b >> 2];
    return compare_exact(got, want, "bin");
  }
};

const bool registered = register_workload(
    {"histogram64", "SDK histogram64: per-thread 8-bit shared-memory counters, then a merge kernel per bin",
     /*ipdom_safe=*/true, [] { return std::make_unique<Histogram64>(); }});

}  // namespace
}  // namespace tlmgpu::workloads
