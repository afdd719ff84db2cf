// quasirandom: the CUDA SDK's quasirandomGenerator. The host builds the
// direction numbers of a 3-dimensional Niederreiter base-2 sequence and puts
// them in constant memory; quasirandomGeneratorKernel writes N points per
// dimension, inverseCNDKernel then maps 3N evenly spaced values through
// Moro's inverse normal distribution function. As the SDK sample times them,
// each kernel is launched once to warm up and then `iterations` times (each
// launch writes the same output). The points are checked exactly against the
// CPU, the inverse against Moro's formula evaluated in nvcc's order.
//
// Sizes (points per dimension; grid; launches):
//   Small:   N = 1000; 4 CTAs of 128x3 (generator) and 4 of 128 (inverse);
//            1 + 1 launches of each kernel = 4 kernels.
//   Default: N = 2^18; 128 CTAs; 1 + 4 launches of each = 10 kernels.
//   Paper:   N = 2^20 (the SDK sample's); 128 CTAs of 128x3 and of 128
//            threads (the SDK's launch shapes); 1 + 20 launches of each (the
//            SDK times 20 iterations after a warm-up launch) = 42 kernels of
//            128 CTAs: seed 002 (KAWS) Table "QRG: 42 kernels, 128 CTAs per kernel".
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "workloads/common/workload_support.h"
#include "workloads/ptxas_registers.h"
#include "workloads/quasirandom/quasirandom_host.h"

namespace tlmgpu::workloads {
namespace {

using namespace quasirandom_host;

class Quasirandom : public Workload {
 public:
  WorkloadResult run(platform::GpuDevice& device, Size size, uint64_t seed) override {
    const uint32_t n = size == Size::Small ? 1000 : size == Size::Default ? 1u << 18 : 1u << 20;
    const uint32_t grid = size == Size::Small ? 4 : 128;
    const int iterations = size == Size::Small ? 1 : size == Size::Default ? 4 : 20;
    const uint32_t count = kDimensions * n;
    // The sequence starts at point `start` (the SDK's seed argument, 0 there).
    const uint32_t start = InputRng(seed).below(1024);

    auto module = load_workload_module(device, "quasirandom");
    const std::vector<uint32_t> table = niederreiter_table();
    device.write_symbol(module, "c_Table", table.data(), table.size() * sizeof(uint32_t));
    uint64_t d_out = device.allocate(uint64_t(count) * sizeof(float), "output");

    // A warm-up launch, then the timed iterations.
    for (int i = -1; i < iterations; ++i)
      device.launch(module, "quasirandomGeneratorKernel", {grid, 1, 1}, {kThreadsX, kDimensions, 1}, 0,
                    platform::KernelArgs().ptr(d_out).add<uint32_t>(start).add<uint32_t>(n));
    std::vector<float> points = device.download<float>(d_out, count);

    for (int i = -1; i < iterations; ++i)
      device.launch(module, "inverseCNDKernel", {grid, 1, 1}, {kThreadsX, 1, 1}, 0,
                    platform::KernelArgs().ptr(d_out).ptr(0).add<uint32_t>(count));
    std::vector<float> normals = device.download<float>(d_out, count);

    std::vector<float> want_points(count);
    for (int d = 0; d < kDimensions; ++d)
      for (uint32_t pos = 0; pos < n; ++pos) want_points[size_t(d) * n + pos] = point(table, d, start, pos);
    WorkloadResult qr = compare_exact(points, want_points, "point");
    if (!qr.verified) return qr;

    std::vector<float> want_normals(count);
    const float step = 1.0f / float(count + 1);
    for (uint32_t pos = 0; pos < count; ++pos) want_normals[pos] = moro_inverse_cnd(float(pos + 1) * step);
    // The centre matches exactly; lg2.approx moves a tail value by ~1e-6.
    WorkloadResult inv = compare_close(normals, want_normals, 1e-5, "inverse_cnd", 1e-6);
    if (!inv.verified) return inv;
    return {true, std::to_string(count) + " points and " + std::to_string(count) + " normal values match, " +
                      std::to_string(2 * (iterations + 1)) + " launches"};
  }
};

const bool registered = register_workload(
    {"quasirandom", "CUDA SDK quasirandomGenerator: Niederreiter base-2 points from constant memory, Moro inverse CND",
     /*ipdom_safe=*/true, [] { return std::make_unique<Quasirandom>(); }});

}  // namespace
}  // namespace tlmgpu::workloads
