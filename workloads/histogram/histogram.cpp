// histogram: 256-bin byte histogram; per-CTA shared-memory histograms with
// shared atomics, then a merge kernel. Half the bytes come from 8 hot values,
// so lanes of one warp often hit the same bin.
#include <memory>
#include <vector>

#include "workloads/common/workload_support.h"
#include "workloads/ptxas_registers.h"

namespace tlmgpu::workloads {
namespace {

constexpr int kBins = 256;

class Histogram : public Workload {
 public:
  WorkloadResult run(platform::GpuDevice& device, Size size, uint64_t seed) override {
    // Small: 8 CTAs x 192 threads (the bin loops need two passes for some
    // threads) over 64 KB + 148 bytes. Default: 120 CTAs x 256 threads over 32 MB.
    const bool small = size == Size::Small;
    const uint32_t block = small ? 192 : 256;
    const uint32_t grid = small ? 8 : 120;
    const int num_words = small ? 16384 + 37 : 8 << 20;

    InputRng rng(seed);
    uint8_t hot[8];
    for (auto& h : hot) h = uint8_t(rng.below(kBins));
    std::vector<uint32_t> words(num_words);
    for (auto& w : words) {
      uint32_t v = 0;
      for (int byte = 0; byte < 4; ++byte) {
        uint32_t r = uint32_t(rng.next() >> 32);
        uint32_t value = (r & 1) ? hot[(r >> 1) & 7] : (r >> 8) & 0xff;
        v |= value << (8 * byte);
      }
      w = v;
    }

    auto module = load_workload_module(device, "histogram");
    uint64_t d_words = device.upload(words, "words");
    uint64_t d_partials = device.allocate(uint64_t(grid) * kBins * sizeof(uint32_t), "partials");
    uint64_t d_hist = device.allocate(kBins * sizeof(uint32_t), "hist");
    device.launch(module, "histogram_partial", {grid, 1, 1}, {block, 1, 1}, 0,
                  platform::KernelArgs().ptr(d_words).add<int32_t>(num_words).ptr(d_partials));
    device.launch(module, "histogram_merge", {2, 1, 1}, {128, 1, 1}, 0,
                  platform::KernelArgs().ptr(d_partials).add<int32_t>(int32_t(grid)).ptr(d_hist));
    std::vector<uint32_t> got = device.download<uint32_t>(d_hist, kBins);

    std::vector<uint32_t> want(kBins, 0);
    for (uint32_t w : words)
      for (int byte = 0; byte < 4; ++byte) ++want[(w >> (8 * byte)) & 0xff];
    return compare_exact(got, want, "bin");
  }
};

const bool registered = register_workload(
    {"histogram", "256-bin histogram: shared-memory atomics per CTA, then a merge kernel", /*ipdom_safe=*/true,
     [] { return std::make_unique<Histogram>(); }});

}  // namespace
}  // namespace tlmgpu::workloads
