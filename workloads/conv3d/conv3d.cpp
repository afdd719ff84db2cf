// conv3d host side: a seeded volume and 27 seeded weights, one launch over
// the interior (grid z = plane), checked against a CPU convolution that
// accumulates in the kernel's order with fma, so the match is exact.
#include <cmath>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "workloads/common/workload_support.h"
#include "workloads/ptxas_registers.h"

namespace tlmgpu::workloads {
namespace {

class Conv3d : public Workload {
 public:
  WorkloadResult run(platform::GpuDevice& device, Size size, uint64_t seed) override {
    // Small: 34 x 18 x 10 (x not a multiple of the 32-wide tile: partial
    // CTAs). Default: 192 x 160 x 64, 6 x 40 x 64 = 15,360 CTAs, one launch.
    // Paper: Polybench 3DCONV's 256 x 256 x 256 volume, one launch of
    // convolution3D_kernel per interior plane as its host loop does: 254
    // launches of 8 x 32 = 256 CTAs of 32 x 8 threads (seed 002: 3DCV 254
    // kernels of 256 CTAs).
    const bool small = size == Size::Small, paper = size == Size::Paper;
    const int nx = small ? 34 : paper ? 256 : 192, ny = small ? 18 : paper ? 256 : 160,
              nz = small ? 10 : paper ? 256 : 64;
    const size_t cells = size_t(nx) * ny * nz;

    InputRng rng(seed);
    std::vector<float> in(cells), weights(27);
    for (auto& v : in) v = rng.uniform(-1.0f, 1.0f);
    for (auto& w : weights) w = rng.uniform(-0.5f, 0.5f);

    auto module = load_workload_module(device, "conv3d");
    uint64_t d_in = device.upload(in, "in");
    uint64_t d_weights = device.upload(weights, "weights");
    uint64_t d_out = device.allocate(cells * sizeof(float), "out");
    device.memset(d_out, 0, cells * sizeof(float));
    if (paper) {
      const uint32_t bx = 32, by = 8;
      for (int z = 1; z < nz - 1; ++z)
        device.launch(module, "convolution3D_kernel", {(uint32_t(nx) + bx - 1) / bx, (uint32_t(ny) + by - 1) / by, 1},
                      {bx, by, 1}, 0,
                      platform::KernelArgs()
                          .ptr(d_in)
                          .ptr(d_weights)
                          .ptr(d_out)
                          .add<int32_t>(nx)
                          .add<int32_t>(ny)
                          .add<int32_t>(nz)
                          .add<int32_t>(z));
    } else {
      const uint32_t bx = 32, by = 4;
      device.launch(
          module, "conv3d_3x3x3", {(uint32_t(nx) + bx - 1) / bx, (uint32_t(ny) + by - 1) / by, uint32_t(nz)},
          {bx, by, 1}, 0,
          platform::KernelArgs().ptr(d_in).ptr(d_weights).ptr(d_out).add<int32_t>(nx).add<int32_t>(ny).add<int32_t>(
              nz));
    }
    auto got = device.download<float>(d_out, cells);
    for (uint64_t d : {d_in, d_weights, d_out}) device.free(d);

    std::vector<float> want(cells, 0.0f);
    const size_t plane = size_t(nx) * ny;
    for (int z = 1; z < nz - 1; ++z)
      for (int y = 1; y < ny - 1; ++y)
        for (int x = 1; x < nx - 1; ++x) {
          float acc = 0.0f;
          for (int dz = -1; dz <= 1; ++dz)
            for (int dy = -1; dy <= 1; ++dy)
              for (int dx = -1; dx <= 1; ++dx)
                acc = std::fma(weights[size_t((dz + 1) * 9 + (dy + 1) * 3 + (dx + 1))],
                               in[size_t(z + dz) * plane + size_t(y + dy) * nx + size_t(x + dx)], acc);
          want[size_t(z) * plane + size_t(y) * nx + size_t(x)] = acc;
        }
    return compare_exact(got, want, "out");
  }
};

const bool registered = register_workload(
    {"conv3d", "3x3x3 convolution of a volume, 27 loads per thread shared through the caches (memory-bound)",
     /*ipdom_safe=*/true, [] { return std::make_unique<Conv3d>(); }});

}  // namespace
}  // namespace tlmgpu::workloads
