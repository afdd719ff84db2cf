// vector_add: c = a + b. Exercises a grid-stride loop whose last pass
// diverges on the bounds check (n is not a multiple of the block size).
#include <memory>
#include <vector>

#include "workloads/common/workload_support.h"
#include "workloads/ptxas_registers.h"

namespace tlmgpu::workloads {
namespace {

class VectorAdd : public Workload {
 public:
  WorkloadResult run(platform::GpuDevice& device, Size size, uint64_t seed) override {
    // Small: 8 CTAs x 128 threads walk 5000 elements (about 5 passes);
    // Default: 480 CTAs x 256 threads walk 2M + 13 elements (about 17 passes).
    const bool small = size == Size::Small;
    const int n = small ? 5000 : (1 << 21) + 13;
    const uint32_t block = small ? 128 : 256;
    const uint32_t grid = small ? 8 : 480;

    InputRng rng(seed);
    std::vector<float> a(n), b(n);
    for (int i = 0; i < n; ++i) {
      a[i] = rng.uniform(-100.0f, 100.0f);
      b[i] = rng.uniform(-100.0f, 100.0f);
    }

    auto module = load_workload_module(device, "vector_add");
    uint64_t d_a = device.upload(a, "a");
    uint64_t d_b = device.upload(b, "b");
    uint64_t d_c = device.allocate(uint64_t(n) * sizeof(float), "c");
    device.launch(module, "vector_add", {grid, 1, 1}, {block, 1, 1}, 0,
                  platform::KernelArgs().ptr(d_a).ptr(d_b).ptr(d_c).add<int32_t>(n));
    std::vector<float> c = device.download<float>(d_c, n);

    // One IEEE add per element: the result must match bit for bit.
    std::vector<float> want(n);
    for (int i = 0; i < n; ++i) want[i] = a[i] + b[i];
    return compare_exact(c, want, "c");
  }
};

const bool registered = register_workload(
    {"vector_add", "c = a + b over float vectors (grid-stride loop, ragged tail)", /*ipdom_safe=*/true,
     [] { return std::make_unique<VectorAdd>(); }});

}  // namespace
}  // namespace tlmgpu::workloads
