// hotspot: explicit time steps of a 2-D chip thermal model (temperature and
// power grids), one kernel launch per step over shared-memory tiles with
// halos (small, default), or Rodinia's ghost-zone launches of `pyramid`
// steps each (paper); the host ping-pongs the temperature buffers.
#include <algorithm>
#include <cmath>
#include <memory>
#include <utility>
#include <vector>

#include "workloads/common/workload_support.h"
#include "workloads/ptxas_registers.h"

namespace tlmgpu::workloads {
namespace {

constexpr uint32_t kTile = 16;

// Per-step coefficients, i.e. dt / (C * R) for the lateral and vertical paths
// and dt / C for power. Cells are taller than wide (kx > ky); the sum of the
// conduction terms stays well below the explicit-Euler stability limit.
struct Coefficients {
  float kx = 0.12f, ky = 0.08f, kz = 0.004f, kp = 0.5f, ambient = 80.0f;
};

void cpu_step(const std::vector<float>& in, const std::vector<float>& power, std::vector<float>& out, int rows,
              int cols, const Coefficients& k) {
  auto at = [&](int r, int c) { return in[size_t(std::clamp(r, 0, rows - 1)) * cols + std::clamp(c, 0, cols - 1)]; };
  for (int r = 0; r < rows; ++r) {
    for (int c = 0; c < cols; ++c) {
      float t = at(r, c);
      // The order and fusion of nvcc -O3's PTX for hotspot_step.
      float delta = k.kp * power[size_t(r) * cols + c];
      delta = std::fma((at(r - 1, c) + at(r + 1, c)) - (t + t), k.ky, delta);
      delta = std::fma((at(r, c - 1) + at(r, c + 1)) - (t + t), k.kx, delta);
      delta = std::fma(k.ambient - t, k.kz, delta);
      out[size_t(r) * cols + c] = t + delta;
    }
  }
}

class Hotspot : public Workload {
 public:
  // seed003_shape: seed 003 Table I's hotspot, a 32 x 32 grid on one SM's
  // 32 warps (4 CTAs of 16 x 16) for 6 steps (2 at small), at every size.
  explicit Hotspot(bool seed003_shape) : seed003_shape_(seed003_shape) {}

  WorkloadResult run(platform::GpuDevice& device, Size size, uint64_t seed) override {
    // Small: 60 x 72 cells (5 x 4 CTAs of 16 x 16, partial tiles on two
    // edges), 3 steps. Default: 500 x 500 cells (32 x 32 CTAs), 20 steps.
    // Both launch hotspot_step once per step. Paper: Rodinia's default run
    // (hotspot 512 2 2): 512 x 512 cells, 2 steps with pyramid height 2, i.e.
    // one launch of calculate_temp over 43 x 43 = 1849 CTAs of 16 x 16, each
    // writing 12 x 12 cells (seed 000 Table II: calculate_temp 1849 TBs;
    // seed 002: HS 1 kernel of 1849 CTAs; seed 004 Table 2: HSP 512*512, 142
    // M instructions).
    const bool small = size == Size::Small, paper = size == Size::Paper && !seed003_shape_;
    const int rows = seed003_shape_ ? 32 : small ? 60 : paper ? 512 : 500;
    const int cols = seed003_shape_ ? 32 : small ? 72 : paper ? 512 : 500;
    const int steps = seed003_shape_ ? (small ? 2 : 6) : small ? 3 : paper ? 2 : 20;
    const int pyramid = 2;  // steps per calculate_temp launch (paper size)
    const Coefficients k;
    const size_t cells = size_t(rows) * cols;

    // Background power plus a few rectangular hot units (e.g. ALUs).
    InputRng rng(seed);
    std::vector<float> temp(cells), power(cells);
    for (size_t i = 0; i < cells; ++i) {
      temp[i] = rng.uniform(320.0f, 340.0f);
      power[i] = rng.uniform(0.0f, 0.2f);
    }
    for (int unit = 0; unit < 6; ++unit) {
      int r0 = int(rng.below(uint32_t(rows))), c0 = int(rng.below(uint32_t(cols)));
      int h = 1 + int(rng.below(uint32_t(rows / 4))), w = 1 + int(rng.below(uint32_t(cols / 4)));
      for (int r = r0; r < std::min(rows, r0 + h); ++r)
        for (int c = c0; c < std::min(cols, c0 + w); ++c) power[size_t(r) * cols + c] += 1.0f;
    }

    auto module = load_workload_module(device, "hotspot");
    uint64_t d_temp[2] = {device.upload(temp, "temp0"), device.allocate(cells * sizeof(float), "temp1")};
    uint64_t d_power = device.upload(power, "power");
    if (paper) {
      const uint32_t inner = kTile - 2 * uint32_t(pyramid);
      const uint32_t grid_x = (uint32_t(cols) + inner - 1) / inner, grid_y = (uint32_t(rows) + inner - 1) / inner;
      int launches = 0;
      for (int s = 0; s < steps; s += pyramid, ++launches)
        device.launch(module, "calculate_temp", {grid_x, grid_y, 1}, {kTile, kTile, 1}, 0,
                      platform::KernelArgs()
                          .ptr(d_temp[launches % 2])
                          .ptr(d_power)
                          .ptr(d_temp[(launches + 1) % 2])
                          .add<int32_t>(rows)
                          .add<int32_t>(cols)
                          .add<int32_t>(pyramid)
                          .add<int32_t>(std::min(pyramid, steps - s))
                          .add<float>(k.kx)
                          .add<float>(k.ky)
                          .add<float>(k.kz)
                          .add<float>(k.kp)
                          .add<float>(k.ambient));
      std::vector<float> got = device.download<float>(d_temp[launches % 2], cells);
      return check(got, temp, power, rows, cols, steps, k);
    }
    const uint32_t grid_x = (uint32_t(cols) + kTile - 1) / kTile, grid_y = (uint32_t(rows) + kTile - 1) / kTile;
    for (int s = 0; s < steps; ++s) {
      device.launch(module, "hotspot_step", {grid_x, grid_y, 1}, {kTile, kTile, 1}, 0,
                    platform::KernelArgs()
                        .ptr(d_temp[s % 2])
                        .ptr(d_power)
                        .ptr(d_temp[(s + 1) % 2])
                        .add<int32_t>(rows)
                        .add<int32_t>(cols)
                        .add<float>(k.kx)
                        .add<float>(k.ky)
                        .add<float>(k.kz)
                        .add<float>(k.kp)
                        .add<float>(k.ambient));
    }
    std::vector<float> got = device.download<float>(d_temp[steps % 2], cells);
    return check(got, temp, power, rows, cols, steps, k);
  }

 private:
  bool seed003_shape_;

  static WorkloadResult check(const std::vector<float>& got, std::vector<float> temp, const std::vector<float>& power,
                              int rows, int cols, int steps, const Coefficients& k) {
    std::vector<float> next(temp.size());
    for (int s = 0; s < steps; ++s) {
      cpu_step(temp, power, next, rows, cols, k);
      std::swap(temp, next);
    }
    // Mirrored order: only a differently rounding model moves the result by
    // more than a few ulps; a wrong neighbour or term moves it by > 1e-2.
    return compare_close(got, temp, 1e-5, "temperature");
  }
};

const bool registered = register_workload(
    {"hotspot", "2-D thermal stencil: shared-memory tiles with halos, one launch per time step",
     /*ipdom_safe=*/true, [] { return std::make_unique<Hotspot>(false); }});
// Seed 003 runs hotspot on one Vortex SM: a grid its 32 warps cover once
// (17,554 warp instructions in its Table I; 17,088 here at --size paper).
const bool registered_32x32 = register_workload(
    {"hotspot_32x32", "hotspot on seed 003's 32 x 32 grid: 4 CTAs (32 warps), 6 time steps",
     /*ipdom_safe=*/true, [] { return std::make_unique<Hotspot>(true); }});

}  // namespace
}  // namespace tlmgpu::workloads
