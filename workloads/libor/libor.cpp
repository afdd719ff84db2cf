// libor: LIBOR market model Monte Carlo with a swaption portfolio (ISPASS
// 2009 "LIB", seed 004 Table 2 "LIBOR Monte Carlo"): one thread per path;
// the value-only kernel, then the kernel with path-wise deltas, as the
// original host program launches them. Values and deltas are checked per
// path against a CPU pass in float (a tolerance: the device's fast division
// and exponential differ from the host's in the last places).
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <vector>

#include "workloads/common/workload_support.h"
#include "workloads/libor/libor_host.h"
#include "workloads/ptxas_registers.h"

namespace tlmgpu::workloads {
namespace {

class Libor : public Workload {
 public:
  WorkloadResult run(platform::GpuDevice& device, Size size, uint64_t seed) override {
    // Small: 64 paths, 2 CTAs x 32 threads. Default: 1,024 paths, 16 CTAs x 64.
    // Paper: 4,096 paths (seed 004 Table 2 "4096"), 64 CTAs x 64 threads
    // (the ISPASS LIB source's NPATH, GRID_SIZE and BLOCK_SIZE).
    const bool small = size == Size::Small, paper = size == Size::Paper;
    const int npath = small ? 64 : paper ? 4096 : 1024;
    const uint32_t block = small ? 32 : 64;
    const uint32_t grid = uint32_t(npath) / block;

    // Standard normal shocks, z[n * npath + path] (coalesced per step).
    InputRng rng(seed);
    std::vector<float> z(size_t(libor::kNmat) * size_t(npath));
    for (float& v : z) {
      const double u1 = (double(rng.next() >> 11) + 0.5) / 9007199254740992.0;
      const double u2 = double(rng.next() >> 11) / 9007199254740992.0;
      v = float(std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2));
    }

    auto module = load_workload_module(device, "libor");
    const int n = libor::kNN, nmat = libor::kNmat, nopt = libor::kNopt;
    const float delta = libor::kDelta;
    std::vector<float> lambda(size_t(libor::kNN), libor::kLambda);
    device.write_symbol(module, "lib_N", &n, sizeof n);
    device.write_symbol(module, "lib_Nmat", &nmat, sizeof nmat);
    device.write_symbol(module, "lib_Nopt", &nopt, sizeof nopt);
    device.write_symbol(module, "lib_delta", &delta, sizeof delta);
    device.write_symbol(module, "lib_maturities", libor::kMaturities, sizeof libor::kMaturities);
    device.write_symbol(module, "lib_swaprates", libor::kSwaprates, sizeof libor::kSwaprates);
    device.write_symbol(module, "lib_lambda", lambda.data(), lambda.size() * sizeof(float));
    uint64_t d_z = device.upload(z, "z");
    uint64_t d_v = device.allocate(uint64_t(npath) * sizeof(float), "v");
    uint64_t d_lb = device.allocate(uint64_t(npath) * sizeof(float), "Lb");

    device.launch(module, "Pathcalc_Portfolio_KernelGPU2", {grid, 1, 1}, {block, 1, 1}, 0,
                  platform::KernelArgs().ptr(d_v).ptr(d_z).add<float>(libor::kL0).add<int32_t>(npath));
    const std::vector<float> v_plain = device.download<float>(d_v, size_t(npath));
    device.launch(module, "Pathcalc_Portfolio_KernelGPU", {grid, 1, 1}, {block, 1, 1}, 0,
                  platform::KernelArgs().ptr(d_v).ptr(d_lb).ptr(d_z).add<float>(libor::kL0).add<int32_t>(npath));
    const std::vector<float> v_greeks = device.download<float>(d_v, size_t(npath));
    const std::vector<float> lb = device.download<float>(d_lb, size_t(npath));
    for (uint64_t d : {d_z, d_v, d_lb}) device.free(d);

    std::vector<float> want_v(static_cast<size_t>(npath)), want_lb(static_cast<size_t>(npath)),
        path_z(static_cast<size_t>(nmat));
    for (int p = 0; p < npath; ++p) {
      for (int k = 0; k < nmat; ++k) path_z[size_t(k)] = z[size_t(k) * size_t(npath) + size_t(p)];
      want_v[size_t(p)] = libor::reference_path(path_z.data(), &want_lb[size_t(p)]);
    }
    // Values are sums of 100 * (1 - B - rate * S) over swaptions in the money:
    // an absolute tolerance for the cancellation near the money.
    WorkloadResult r = compare_close(v_plain, want_v, 1e-3, "v_no_greeks", 1e-3);
    if (r.verified) r = compare_close(v_greeks, want_v, 1e-3, "v", 1e-3);
    if (r.verified) r = compare_close(lb, want_lb, 1e-3, "Lb", 1e-3);
    if (r.verified) {
      double v = 0.0, l = 0.0;
      for (int p = 0; p < npath; ++p) v += v_greeks[size_t(p)], l += lb[size_t(p)];
      char buf[80];
      std::snprintf(buf, sizeof buf, ", mean v %.6f, mean Lb %.6f", v / npath, l / npath);
      r.detail += buf;
    }
    return r;
  }
};

const bool registered = register_workload(
    {"libor", "LIBOR market model Monte Carlo (ISPASS LIB): swaption portfolio value, then path-wise deltas",
     /*ipdom_safe=*/true, [] { return std::make_unique<Libor>(); }});

}  // namespace
}  // namespace tlmgpu::workloads
