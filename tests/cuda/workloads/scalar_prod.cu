// scalar_prod as a CUDA program: the host steps of
// workloads/scalar_prod/scalar_prod.cpp (dot products with a shared-memory
// tree per CTA, checked against the device's summation order).
#include "tests/cuda/workloads/program_support.h"
#include "workloads/scalar_prod/scalar_prod.cu"

int main(int argc, char** argv) {
  const program::Options opt = program::parse_options(argc, argv);
  const bool small = opt.size == program::Size::Small, paper = opt.size == program::Size::Paper;
  const unsigned block = small ? 128 : 256;
  const unsigned grid = small ? 16 : paper ? 128 : 120;
  const int pairs = small ? 64 : paper ? 256 : 2048;
  const int n = small ? 1000 : 4096;
  const size_t total = size_t(pairs) * n;

  // Non-negative inputs: no cancellation, so a relative tolerance holds.
  program::InputRng rng(opt.seed);
  std::vector<float> a(total), b(total);
  for (size_t i = 0; i < total; ++i) {
    a[i] = rng.uniform(0.0f, 1.0f);
    b[i] = rng.uniform(0.0f, 1.0f);
  }

  float* d_a = program::upload(a);
  float* d_b = program::upload(b);
  float* d_out = program::device_alloc<float>(static_cast<size_t>(pairs));
  scalar_prod<<<grid, block, block * sizeof(float)>>>(d_a, d_b, d_out, pairs, n);
  CUDA_CHECK_LAUNCH();
  const std::vector<float> got = program::download(d_out, size_t(pairs));

  // The device's order: per-thread strided fma chains, then the tree.
  std::vector<float> want(static_cast<size_t>(pairs)), partial(block);
  for (int p = 0; p < pairs; ++p) {
    const float* va = &a[size_t(p) * n];
    const float* vb = &b[size_t(p) * n];
    for (unsigned t = 0; t < block; ++t) {
      float sum = 0.0f;
      for (int i = int(t); i < n; i += int(block)) sum = std::fma(va[i], vb[i], sum);
      partial[t] = sum;
    }
    for (unsigned half = block / 2; half > 0; half /= 2)
      for (unsigned t = 0; t < half; ++t) partial[t] += partial[t + half];
    want[size_t(p)] = partial[0];
  }
  return program::report("scalar_prod", program::compare_close(got, want, 1e-5, "dot"));
}
