// scalar_prod: dot products of many vector pairs, one CTA per pair at a time,
// with a barrier-per-level shared-memory tree reduction.
#include <cmath>
#include <memory>
#include <vector>

#include "workloads/common/workload_support.h"
#include "workloads/ptxas_registers.h"

namespace tlmgpu::workloads {
namespace {

class ScalarProd : public Workload {
 public:
  WorkloadResult run(platform::GpuDevice& device, Size size, uint64_t seed) override {
    // Small: 16 CTAs x 128 threads, 64 pairs of 1000 elements (the strided
    // loop's last pass is ragged). Default: 120 CTAs x 256 threads, 2048
    // pairs of 4096 elements (64 MB of input). Paper: 128 CTAs x 256
    // threads, 256 pairs of 4096 elements (seed 000 Table II: scalarProdGPU
    // 128 TBs; seed 004 Table 2: SP 256*4096, 22 M instructions; the CUDA
    // SDK's 256 threads per block).
    const bool small = size == Size::Small, paper = size == Size::Paper;
    const uint32_t block = small ? 128 : 256;
    const uint32_t grid = small ? 16 : paper ? 128 : 120;
    const int pairs = small ? 64 : paper ? 256 : 2048;
    const int n = small ? 1000 : 4096;
    const size_t total = size_t(pairs) * n;

    // Non-negative inputs: no cancellation, so a relative tolerance is meaningful.
    InputRng rng(seed);
    std::vector<float> a(total), b(total);
    for (size_t i = 0; i < total; ++i) {
      a[i] = rng.uniform(0.0f, 1.0f);
      b[i] = rng.uniform(0.0f, 1.0f);
    }

    auto module = load_workload_module(device, "scalar_prod");
    uint64_t d_a = device.upload(a, "a");
    uint64_t d_b = device.upload(b, "b");
    uint64_t d_out = device.allocate(uint64_t(pairs) * sizeof(float), "out");
    device.launch(module, "scalar_prod", {grid, 1, 1}, {block, 1, 1}, block * sizeof(float),
                  platform::KernelArgs().ptr(d_a).ptr(d_b).ptr(d_out).add<int32_t>(pairs).add<int32_t>(n));
    std::vector<float> got = device.download<float>(d_out, pairs);

    // The device's order: per-thread strided fma chains, then the tree.
    std::vector<float> want(pairs), partial(block);
    for (int p = 0; p < pairs; ++p) {
      const float* va = &a[size_t(p) * n];
      const float* vb = &b[size_t(p) * n];
      for (uint32_t t = 0; t < block; ++t) {
        float sum = 0.0f;
        for (int i = int(t); i < n; i += int(block)) sum = std::fma(va[i], vb[i], sum);
        partial[t] = sum;
      }
      for (uint32_t half = block / 2; half > 0; half /= 2)
        for (uint32_t t = 0; t < half; ++t) partial[t] += partial[t + half];
      want[p] = partial[0];
    }
    // Same order, so only a model that rounds differently (e.g. an unfused
    // fma) moves the result; a lost element would move it by ~1e-4.
    return compare_close(got, want, 1e-5, "dot");
  }
};

const bool registered = register_workload(
    {"scalar_prod", "dot products of vector pairs with a barrier-per-level shared-memory reduction",
     /*ipdom_safe=*/true, [] { return std::make_unique<ScalarProd>(); }});

}  // namespace
}  // namespace tlmgpu::workloads
