// vector_add as a CUDA program: the host steps of workloads/vector_add/vector_add.cpp.
#include "tests/cuda/workloads/program_support.h"
#include "workloads/vector_add/vector_add.cu"

int main(int argc, char** argv) {
  const program::Options opt = program::parse_options(argc, argv);
  const bool small = opt.size == program::Size::Small;
  const int n = small ? 5000 : (1 << 21) + 13;
  const unsigned block = small ? 128 : 256;
  const unsigned grid = small ? 8 : 480;

  program::InputRng rng(opt.seed);
  std::vector<float> a(n), b(n);
  for (int i = 0; i < n; ++i) {
    a[i] = rng.uniform(-100.0f, 100.0f);
    b[i] = rng.uniform(-100.0f, 100.0f);
  }

  float* d_a = program::upload(a);
  float* d_b = program::upload(b);
  float* d_c = program::device_alloc<float>(static_cast<size_t>(n));
  vector_add<<<grid, block>>>(d_a, d_b, d_c, n);
  CUDA_CHECK_LAUNCH();
  const std::vector<float> c = program::download(d_c, size_t(n));

  // One IEEE add per element: bit for bit.
  std::vector<float> want(n);
  for (int i = 0; i < n; ++i) want[i] = a[i] + b[i];
  return program::report("vector_add", program::compare_exact(c, want, "c"));
}
