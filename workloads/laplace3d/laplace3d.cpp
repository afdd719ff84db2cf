// laplace3d: ISPASS 2009's LPS, Jacobi sweeps of the 3-D Laplace equation by
// GPU_laplace3d (32 x 4 CTAs marching in z with three shared-memory planes).
// Boundary points are 1 (as in the original), interior points seeded
// random; the grid lives in a pitched allocation (rows padded to 512 bytes,
// as cudaMallocPitch pads them). Each sweep is one launch; the host swaps
// input and output between sweeps. The result is compared exactly with CPU
// sweeps that add the six neighbours in the kernel's order.
#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "workloads/common/workload_support.h"
#include "workloads/ptxas_registers.h"

namespace tlmgpu::workloads {
namespace {

constexpr uint32_t kBlockX = 32, kBlockY = 4;

class Laplace3d : public Workload {
 public:
  WorkloadResult run(platform::GpuDevice& device, Size size, uint64_t seed) override {
    // Small: 40 x 12 x 10, 2 x 3 = 6 CTAs, 2 sweeps (partial CTAs in x and y).
    // Default: 256 x 128 x 64, 8 x 32 = 256 CTAs, 2 sweeps.
    // Paper: 100 x 100 x 100, 4 x 25 = 100 CTAs, 1 sweep (the original's
    // defaults: REPEAT = 1; seed 000 Table II: 100 CTAs; seed 004 Table 2:
    // 100*100*100, 82 M instructions).
    const int nx = size == Size::Small ? 40 : size == Size::Default ? 256 : 100;
    const int ny = size == Size::Small ? 12 : size == Size::Default ? 128 : 100;
    const int nz = size == Size::Small ? 10 : size == Size::Default ? 64 : 100;
    const int sweeps = size == Size::Paper ? 1 : 2;
    const int pitch = (nx + 127) / 128 * 128;
    const size_t cells = size_t(pitch) * size_t(ny) * size_t(nz);
    auto at = [&](int i, int j, int k) { return (size_t(k) * size_t(ny) + size_t(j)) * size_t(pitch) + size_t(i); };

    InputRng rng(seed);
    std::vector<float> u(cells, 0.0f);
    for (int k = 0; k < nz; ++k)
      for (int j = 0; j < ny; ++j)
        for (int i = 0; i < nx; ++i) {
          const bool boundary = i == 0 || i == nx - 1 || j == 0 || j == ny - 1 || k == 0 || k == nz - 1;
          u[at(i, j, k)] = boundary ? 1.0f : rng.uniform(0.0f, 1.0f);
        }

    auto module = load_workload_module(device, "laplace3d");
    uint64_t d_u1 = device.upload(u, "u1");
    uint64_t d_u2 = device.upload(u, "u2");  // its padding stays as uploaded
    const platform::Dim3 grid{(uint32_t(nx) + kBlockX - 1) / kBlockX, (uint32_t(ny) + kBlockY - 1) / kBlockY, 1};
    for (int s = 0; s < sweeps; ++s) {
      device.launch(module, "GPU_laplace3d", grid, {kBlockX, kBlockY, 1}, 0,
                    platform::KernelArgs().add<int32_t>(nx).add<int32_t>(ny).add<int32_t>(nz).add<int32_t>(pitch)
                        .ptr(d_u1).ptr(d_u2));
      std::swap(d_u1, d_u2);
    }
    std::vector<float> got = device.download<float>(d_u1, cells);
    for (uint64_t d : {d_u1, d_u2}) device.free(d);

    std::vector<float> next = u;
    const float sixth = 1.0f / 6.0f;
    for (int s = 0; s < sweeps; ++s) {
      for (int k = 0; k < nz; ++k)
        for (int j = 0; j < ny; ++j)
          for (int i = 0; i < nx; ++i) {
            const size_t c = at(i, j, k);
            const bool boundary = i == 0 || i == nx - 1 || j == 0 || j == ny - 1 || k == 0 || k == nz - 1;
            next[c] = boundary ? u[c]
                               : (u[c - 1] + u[c + 1] + u[at(i, j - 1, k)] + u[at(i, j + 1, k)] + u[at(i, j, k - 1)] +
                                  u[at(i, j, k + 1)]) * sixth;
          }
      std::swap(u, next);
    }
    return compare_exact(got, u, "u");
  }
};

const bool registered = register_workload(
    {"laplace3d", "ISPASS LPS: 3-D Laplace Jacobi sweeps, 2-D CTAs marching in z over shared-memory planes",
     /*ipdom_safe=*/true, [] { return std::make_unique<Laplace3d>(); }});

}  // namespace
}  // namespace tlmgpu::workloads
