// matmul_chain host side: G = (A * B) * (C * D) as three launches of an
// untiled product kernel, E and F staying on the device between launches.
// Checked exactly against CPU products that accumulate like the kernel (p
// ascending, fma), both intermediates and the result.
#include <cmath>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "workloads/common/workload_support.h"
#include "workloads/ptxas_registers.h"

namespace tlmgpu::workloads {
namespace {

std::vector<float> cpu_product(const std::vector<float>& left, const std::vector<float>& right, int rows, int cols,
                               int inner) {
  std::vector<float> out(size_t(rows) * cols);
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols; ++c) {
      float acc = 0.0f;
      for (int p = 0; p < inner; ++p) acc = std::fma(left[size_t(r) * inner + p], right[size_t(p) * cols + c], acc);
      out[size_t(r) * cols + c] = acc;
    }
  return out;
}

class MatmulChain : public Workload {
 public:
  WorkloadResult run(platform::GpuDevice& device, Size size, uint64_t seed) override {
    // A is ni x nk, B nk x nj, C nj x nm, D nm x nl: E = A*B is ni x nj,
    // F = C*D is nj x nl, G = E*F is ni x nl. Small sizes are not multiples
    // of the 32 x 8 CTA; default is 256-cubed-like (3 x 256 CTAs). Paper:
    // Polybench 3MM's 512 x 512 matrices, 3 launches of 16 x 64 = 1024 CTAs of
    // 32 x 8 threads (seed 002: 3MM 3 kernels of 1024 CTAs).
    const bool small = size == Size::Small;
    const int big = size == Size::Paper ? 512 : 256;
    const int ni = small ? 20 : big, nj = small ? 36 : big, nk = small ? 28 : big, nl = small ? 44 : big,
              nm = small ? 24 : big;
    InputRng rng(seed);
    auto random_matrix = [&rng](int rows, int cols) {
      std::vector<float> m(size_t(rows) * cols);
      for (auto& v : m) v = rng.uniform(-1.0f, 1.0f);
      return m;
    };
    const std::vector<float> a = random_matrix(ni, nk), b = random_matrix(nk, nj), c = random_matrix(nj, nm),
                             d = random_matrix(nm, nl);

    auto module = load_workload_module(device, "matmul_chain");
    uint64_t d_a = device.upload(a, "a"), d_b = device.upload(b, "b"), d_c = device.upload(c, "c"),
             d_d = device.upload(d, "d");
    uint64_t d_e = device.allocate(size_t(ni) * nj * sizeof(float), "e");
    uint64_t d_f = device.allocate(size_t(nj) * nl * sizeof(float), "f");
    uint64_t d_g = device.allocate(size_t(ni) * nl * sizeof(float), "g");
    const uint32_t bx = 32, by = 8;
    auto product = [&](uint64_t left, uint64_t right, uint64_t out, int rows, int cols, int inner) {
      device.launch(
          module, "matmul_naive", {(uint32_t(cols) + bx - 1) / bx, (uint32_t(rows) + by - 1) / by, 1}, {bx, by, 1}, 0,
          platform::KernelArgs().ptr(left).ptr(right).ptr(out).add<int32_t>(rows).add<int32_t>(cols).add<int32_t>(
              inner));
    };
    product(d_a, d_b, d_e, ni, nj, nk);
    product(d_c, d_d, d_f, nj, nl, nm);
    product(d_e, d_f, d_g, ni, nl, nj);
    auto got_e = device.download<float>(d_e, size_t(ni) * nj);
    auto got_f = device.download<float>(d_f, size_t(nj) * nl);
    auto got_g = device.download<float>(d_g, size_t(ni) * nl);
    for (uint64_t p : {d_a, d_b, d_c, d_d, d_e, d_f, d_g}) device.free(p);

    const std::vector<float> e = cpu_product(a, b, ni, nj, nk), f = cpu_product(c, d, nj, nl, nm);
    WorkloadResult r = compare_exact(got_e, e, "e");
    if (r.verified) r = compare_exact(got_f, f, "f");
    if (r.verified) r = compare_exact(got_g, cpu_product(e, f, ni, nl, nj), "g");
    return r;
  }
};

const bool registered = register_workload(
    {"matmul_chain", "G = (A*B)*(C*D) as three launches of an untiled product kernel (cache-sensitive)",
     /*ipdom_safe=*/true, [] { return std::make_unique<MatmulChain>(); }});

}  // namespace
}  // namespace tlmgpu::workloads
