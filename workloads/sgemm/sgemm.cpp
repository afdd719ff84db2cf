// SGEMM host side: seeded matrices whose sizes are not multiples of the tile
// (edge tiles run), checked against a CPU triple loop in float.
#include <cmath>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "workloads/common/workload_support.h"
#include "workloads/ptxas_registers.h"

namespace tlmgpu::workloads {
namespace {

class Sgemm : public Workload {
 public:
  WorkloadResult run(platform::GpuDevice& device, Size size, uint64_t seed) override {
    // Small: 70 x 45 times 45 x 52 (partial tiles). Default: 500 x 484
    // times 484 x 520. Paper: seed 003 (SWaS: 32 warps of 32 threads, Table
    // I: 1,728 instructions): 32 x 16 times 16 x 32, 4 CTAs of 16 x 16 and a
    // single k tile, the fewest instructions 32 warps of this kernel make
    // (about 4,000 warp instructions, 2.3 times the paper's count).
    const bool small = size == Size::Small, paper = size == Size::Paper;
    const int m = small ? 70 : paper ? 32 : 500;
    const int n = small ? 52 : paper ? 32 : 520;
    const int k = small ? 45 : paper ? 16 : 484;
    const float alpha = 1.5f, beta = -0.75f;

    InputRng rng(seed);
    std::vector<float> a(size_t(m) * k), b(size_t(k) * n), c(size_t(m) * n);
    for (auto& x : a) x = rng.uniform(-1.0f, 1.0f);
    for (auto& x : b) x = rng.uniform(-1.0f, 1.0f);
    for (auto& x : c) x = rng.uniform(-1.0f, 1.0f);

    auto module = load_workload_module(device, "sgemm");
    uint64_t d_a = device.upload(a, "a");
    uint64_t d_b = device.upload(b, "b");
    uint64_t d_c = device.upload(c, "c");
    const uint32_t tile = 16;
    device.launch(module, "sgemm_tiled", {uint32_t(n + 15) / tile, uint32_t(m + 15) / tile, 1}, {tile, tile, 1}, 0,
                  platform::KernelArgs()
                      .ptr(d_a)
                      .ptr(d_b)
                      .ptr(d_c)
                      .add<int32_t>(m)
                      .add<int32_t>(n)
                      .add<int32_t>(k)
                      .add<float>(alpha)
                      .add<float>(beta));
    auto got = device.download<float>(d_c, c.size());

    // Same order as the kernel (k ascending, fused multiply-add), so the
    // difference is at most a few ulps; the tolerance leaves room for a
    // different contraction choice.
    std::vector<float> want(c.size());
    for (int i = 0; i < m; ++i) {
      for (int j = 0; j < n; ++j) {
        float acc = 0.0f;
        for (int p = 0; p < k; ++p) acc = std::fma(a[size_t(i) * k + p], b[size_t(p) * n + j], acc);
        size_t at = size_t(i) * n + j;
        want[at] = std::fma(acc, alpha, beta * c[at]);
      }
    }
    device.free(d_a);
    device.free(d_b);
    device.free(d_c);
    return compare_close(got, want, 1e-4, "c", 1e-4);
  }
};

const bool registered = register_workload(
    {"sgemm", "C = alpha*A*B + beta*C with 16x16 shared-memory tiles, edge tiles included",
     /*ipdom_safe=*/true, [] { return std::make_unique<Sgemm>(); }});

}  // namespace
}  // namespace tlmgpu::workloads
