// Pathfinder host side: a seeded weight grid, one launch per band of rows
// (ping-pong cost rows), checked exactly against a CPU dynamic program.
#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "workloads/common/workload_support.h"
#include "workloads/ptxas_registers.h"

namespace tlmgpu::workloads {
namespace {

class Pathfinder : public Workload {
 public:
  WorkloadResult run(platform::GpuDevice& device, Size size, uint64_t seed) override {
    // Small: 5 CTAs x 7 bands; the last band is shorter and the last CTA
    // partly outside the grid, so both edge paths run. Default: 20000
    // columns x 601 rows, bands of 20 (93 CTAs x 30 launches). Paper: Rodinia's
    // 100000 columns x 100 rows, pyramid height 20 (seed 004 Table 2: PF
    // 100000*100*20, 649 M instructions): 463 CTAs of 256 threads x 5
    // launches, the last of 19 rows (seed 000 Table II: dynproc_kernel 463
    // TBs; seed 002: PF 5 kernels of 463 CTAs).
    const bool small = size == Size::Small, paper = size == Size::Paper;
    const int cols = small ? 1000 : paper ? 100000 : 20000;
    const int rows = small ? 71 : paper ? 100 : 601;
    const int band = small ? 10 : 20;  // rows per launch (= halo width per side)
    const uint32_t block = 256;
    const int useful = int(block) - 2 * band;  // output columns per CTA

    InputRng rng(seed);
    std::vector<int32_t> wall(size_t(rows) * cols);
    for (auto& w : wall) w = int32_t(rng.below(10));

    auto module = load_workload_module(device, "pathfinder");
    uint64_t d_wall = device.upload(wall, "wall");
    // Row 0's costs are its weights; later rows come from the launches.
    std::vector<int32_t> first(wall.begin(), wall.begin() + cols);
    uint64_t d_a = device.upload(first, "cost_a");
    uint64_t d_b = device.allocate(uint64_t(cols) * sizeof(int32_t), "cost_b");

    const uint32_t ctas = uint32_t((cols + useful - 1) / useful);
    for (int r = 1; r < rows; r += band) {
      int steps = std::min(band, rows - r);
      device.launch(module, "pathfinder_band", {ctas, 1, 1}, {block, 1, 1}, block * sizeof(int32_t),
                    platform::KernelArgs()
                        .ptr(d_wall)
                        .ptr(d_a)
                        .ptr(d_b)
                        .add<int32_t>(cols)
                        .add<int32_t>(r)
                        .add<int32_t>(steps)
                        .add<int32_t>(band));
      std::swap(d_a, d_b);
    }
    auto got = device.download<int32_t>(d_a, size_t(cols));

    std::vector<int32_t> cost(first), next(static_cast<size_t>(cols));
    for (int r = 1; r < rows; ++r) {
      for (int c = 0; c < cols; ++c) {
        int32_t best = cost[size_t(c)];
        if (c > 0) best = std::min(best, cost[size_t(c - 1)]);
        if (c + 1 < cols) best = std::min(best, cost[size_t(c + 1)]);
        next[size_t(c)] = wall[size_t(r) * cols + c] + best;
      }
      std::swap(cost, next);
    }
    device.free(d_wall);
    device.free(d_a);
    device.free(d_b);
    return compare_exact(got, cost, "bottom-row cost");
  }
};

const bool registered = register_workload(
    {"pathfinder", "min-cost path DP over a weight grid, banded launches with shared memory and barriers",
     /*ipdom_safe=*/true, [] { return std::make_unique<Pathfinder>(); }});

}  // namespace
}  // namespace tlmgpu::workloads
