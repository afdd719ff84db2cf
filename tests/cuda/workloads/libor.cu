// libor as a CUDA program: the host steps of workloads/libor/libor.cpp
// (constants to constant memory, the value-only kernel, then the kernel with
// path-wise deltas, both checked per path against the host's float pass).
#include <cstdio>

#include "tests/cuda/workloads/program_support.h"
#include "workloads/libor/libor.cu"

int main(int argc, char** argv) {
  const program::Options opt = program::parse_options(argc, argv);
  const bool small = opt.size == program::Size::Small, paper = opt.size == program::Size::Paper;
  const int npath = small ? 64 : paper ? 4096 : 1024;
  const unsigned block = small ? 32 : 64;
  const unsigned grid = unsigned(npath) / block;

  program::InputRng rng(opt.seed);
  std::vector<float> z(size_t(libor::kNmat) * size_t(npath));
  for (float& v : z) {
    const double u1 = (double(rng.next() >> 11) + 0.5) / 9007199254740992.0;
    const double u2 = double(rng.next() >> 11) / 9007199254740992.0;
    v = float(std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2));
  }

  const int n = libor::kNN, nmat = libor::kNmat, nopt = libor::kNopt;
  const float delta = libor::kDelta;
  std::vector<float> lambda(size_t(libor::kNN), libor::kLambda);
  CUDA_CHECK(cudaMemcpyToSymbol(lib_N, &n, sizeof n));
  CUDA_CHECK(cudaMemcpyToSymbol(lib_Nmat, &nmat, sizeof nmat));
  CUDA_CHECK(cudaMemcpyToSymbol(lib_Nopt, &nopt, sizeof nopt));
  CUDA_CHECK(cudaMemcpyToSymbol(lib_delta, &delta, sizeof delta));
  CUDA_CHECK(cudaMemcpyToSymbol(lib_maturities, libor::kMaturities, sizeof libor::kMaturities));
  CUDA_CHECK(cudaMemcpyToSymbol(lib_swaprates, libor::kSwaprates, sizeof libor::kSwaprates));
  CUDA_CHECK(cudaMemcpyToSymbol(lib_lambda, lambda.data(), lambda.size() * sizeof(float)));
  float* d_z = program::upload(z);
  float* d_v = program::device_alloc<float>(size_t(npath));
  float* d_lb = program::device_alloc<float>(size_t(npath));

  Pathcalc_Portfolio_KernelGPU2<<<grid, block>>>(d_v, d_z, libor::kL0, npath);
  CUDA_CHECK_LAUNCH();
  const std::vector<float> v_plain = program::download(d_v, size_t(npath));
  Pathcalc_Portfolio_KernelGPU<<<grid, block>>>(d_v, d_lb, d_z, libor::kL0, npath);
  CUDA_CHECK_LAUNCH();
  const std::vector<float> v_greeks = program::download(d_v, size_t(npath));
  const std::vector<float> lb = program::download(d_lb, size_t(npath));
  program::free_all(d_z, d_v, d_lb);

  std::vector<float> want_v(static_cast<size_t>(npath)), want_lb(static_cast<size_t>(npath)),
      path_z(static_cast<size_t>(nmat));
  for (int p = 0; p < npath; ++p) {
    for (int k = 0; k < nmat; ++k) path_z[size_t(k)] = z[size_t(k) * size_t(npath) + size_t(p)];
    want_v[size_t(p)] = libor::reference_path(path_z.data(), &want_lb[size_t(p)]);
  }
  program::Result r = program::compare_close(v_plain, want_v, 1e-3, "v_no_greeks", 1e-3);
  if (r.verified) r = program::compare_close(v_greeks, want_v, 1e-3, "v", 1e-3);
  if (r.verified) r = program::compare_close(lb, want_lb, 1e-3, "Lb", 1e-3);
  if (r.verified) {
    double v = 0.0, l = 0.0;
    for (int p = 0; p < npath; ++p) v += v_greeks[size_t(p)], l += lb[size_t(p)];
    char buf[80];
    std::snprintf(buf, sizeof buf, ", mean v %.6f, mean Lb %.6f", v / npath, l / npath);
    r.detail += buf;
  }
  return program::report("libor", r);
}
