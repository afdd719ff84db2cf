// sgemm as a CUDA program: the host steps of workloads/sgemm/sgemm.cpp
// (16x16 tiles with edge tiles, checked against a CPU triple loop in fma).
#include "tests/cuda/workloads/program_support.h"
#include "workloads/sgemm/sgemm.cu"

int main(int argc, char** argv) {
  const program::Options opt = program::parse_options(argc, argv);
  const bool small = opt.size == program::Size::Small, paper = opt.size == program::Size::Paper;
  const int m = small ? 70 : paper ? 32 : 500;  // paper: seed 003's 32 warps (4 CTAs)
  const int n = small ? 52 : paper ? 32 : 520;
  const int k = small ? 45 : paper ? 16 : 484;
  const float alpha = 1.5f, beta = -0.75f;

  program::InputRng rng(opt.seed);
  std::vector<float> a(size_t(m) * k), b(size_t(k) * n), c(size_t(m) * n);
  for (auto& x : a) x = rng.uniform(-1.0f, 1.0f);
  for (auto& x : b) x = rng.uniform(-1.0f, 1.0f);
  for (auto& x : c) x = rng.uniform(-1.0f, 1.0f);

  float* d_a = program::upload(a);
  float* d_b = program::upload(b);
  float* d_c = program::upload(c);
  sgemm_tiled<<<dim3(unsigned(n + 15) / TILE, unsigned(m + 15) / TILE), dim3(TILE, TILE)>>>(d_a, d_b, d_c, m, n, k,
                                                                                           alpha, beta);
  CUDA_CHECK_LAUNCH();
  const std::vector<float> got = program::download(d_c, c.size());

  // The kernel's order (k ascending, fused); the tolerance leaves room for a
  // different contraction choice.
  std::vector<float> want(c.size());
  for (int i = 0; i < m; ++i) {
    for (int j = 0; j < n; ++j) {
      float acc = 0.0f;
      for (int p = 0; p < k; ++p) acc = std::fma(a[size_t(i) * k + p], b[size_t(p) * n + j], acc);
      const size_t at = size_t(i) * n + j;
      want[at] = std::fma(acc, alpha, beta * c[at]);
    }
  }
  program::free_all(d_a, d_b, d_c);
  return program::report("sgemm", program::compare_close(got, want, 1e-4, "c", 1e-4));
}
