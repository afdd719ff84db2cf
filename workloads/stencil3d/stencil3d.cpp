// stencil3d host side: a seeded volume smoothed by several 7-point Jacobi
// sweeps (one launch each, buffers ping-ponged), checked exactly against a
// CPU sweep with the kernel's sum order and fma.
#include <cmath>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "workloads/common/workload_support.h"
#include "workloads/ptxas_registers.h"

namespace tlmgpu::workloads {
namespace {

void cpu_sweep(const std::vector<float>& in, std::vector<float>& out, int nx, int ny, int nz, float c0, float c1) {
  const size_t plane = size_t(nx) * ny;
  for (int z = 0; z < nz; ++z)
    for (int y = 0; y < ny; ++y)
      for (int x = 0; x < nx; ++x) {
        const size_t at = size_t(z) * plane + size_t(y) * nx + size_t(x);
        if (x == 0 || y == 0 || z == 0 || x == nx - 1 || y == ny - 1 || z == nz - 1) {
          out[at] = in[at];
          continue;
        }
        const float lateral = ((in[at - size_t(nx)] + in[at + size_t(nx)]) + in[at - 1]) + in[at + 1];
        out[at] = std::fma(c1, (in[at - plane] + in[at + plane]) + lateral, c0 * in[at]);
      }
}

class Stencil3d : public Workload {
 public:
  WorkloadResult run(platform::GpuDevice& device, Size size, uint64_t seed) override {
    // Small: 40 x 10 x 12, 3 sweeps (x not a multiple of the 32-wide tile).
    // Default: 128 x 128 x 64, 8 sweeps (4 x 32 = 128 CTAs of 128 threads).
    // Paper: seed 003's hotspot3D (SWaS: 32 warps of 32 threads, Table I:
    // 39,971 instructions): 64 x 16 x 21, 2 sweeps (2 x 4 = 8 CTAs of 128
    // threads), 39,160 warp instructions.
    const bool small = size == Size::Small, paper = size == Size::Paper;
    const int nx = small ? 40 : paper ? 64 : 128, ny = small ? 10 : paper ? 16 : 128,
              nz = small ? 12 : paper ? 21 : 64, sweeps = small ? 3 : paper ? 2 : 8;
    const float c0 = 0.4f, c1 = 0.1f;
    const size_t cells = size_t(nx) * ny * nz;

    InputRng rng(seed);
    std::vector<float> volume(cells);
    for (auto& v : volume) v = rng.uniform(0.0f, 100.0f);

    auto module = load_workload_module(device, "stencil3d");
    uint64_t d_volume[2] = {device.upload(volume, "volume0"), device.allocate(cells * sizeof(float), "volume1")};
    const uint32_t bx = 32, by = 4;
    for (int s = 0; s < sweeps; ++s)
      device.launch(module, "jacobi7_sweep", {(uint32_t(nx) + bx - 1) / bx, (uint32_t(ny) + by - 1) / by, 1},
                    {bx, by, 1}, 0,
                    platform::KernelArgs()
                        .ptr(d_volume[s % 2])
                        .ptr(d_volume[(s + 1) % 2])
                        .add<int32_t>(nx)
                        .add<int32_t>(ny)
                        .add<int32_t>(nz)
                        .add<float>(c0)
                        .add<float>(c1));
    auto got = device.download<float>(d_volume[sweeps % 2], cells);
    device.free(d_volume[0]);
    device.free(d_volume[1]);

    std::vector<float> next(cells);
    for (int s = 0; s < sweeps; ++s) {
      cpu_sweep(volume, next, nx, ny, nz, c0, c1);
      std::swap(volume, next);
    }
    return compare_exact(got, volume, "volume");
  }
};

const bool registered = register_workload(
    {"stencil3d", "7-point Jacobi sweeps over a volume, threads marching in z (streaming, memory-bound)",
     /*ipdom_safe=*/true, [] { return std::make_unique<Stencil3d>(); }});

}  // namespace
}  // namespace tlmgpu::workloads
