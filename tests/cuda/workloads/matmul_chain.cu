// matmul_chain as a CUDA program: the host steps of
// workloads/matmul_chain/matmul_chain.cpp (G = (A*B)*(C*D) as three launches,
// intermediates and result checked exactly against fma products).
#include "tests/cuda/workloads/program_support.h"
#include "workloads/matmul_chain/matmul_chain.cu"

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

}  // namespace

int main(int argc, char** argv) {
  const program::Options opt = program::parse_options(argc, argv);
  const bool small = opt.size == program::Size::Small;
  const int big = opt.size == program::Size::Paper ? 512 : 256;
  const int ni = small ? 20 : big, nj = small ? 36 : big, nk = small ? 28 : big, nl = small ? 44 : big,
            nm = small ? 24 : big;
  program::InputRng rng(opt.seed);
  auto random_matrix = [&rng](int rows, int cols) {
    std::vector<float> m(size_t(rows) * cols);
    for (auto& v : m) v = rng.uniform(-1.0f, 1.0f);
    return m;
  };
  // Drawn in this order (A, B, C, D), as the workload does.
  const std::vector<float> a = random_matrix(ni, nk);
  const std::vector<float> b = random_matrix(nk, nj);
  const std::vector<float> c = random_matrix(nj, nm);
  const std::vector<float> d = random_matrix(nm, nl);

  float* d_a = program::upload(a);
  float* d_b = program::upload(b);
  float* d_c = program::upload(c);
  float* d_d = program::upload(d);
  float* d_e = program::device_alloc<float>(size_t(ni) * nj);
  float* d_f = program::device_alloc<float>(size_t(nj) * nl);
  float* d_g = program::device_alloc<float>(size_t(ni) * nl);
  const unsigned bx = 32, by = 8;
  auto product = [&](const float* left, const float* right, float* out, int rows, int cols, int inner) {
    matmul_naive<<<dim3((unsigned(cols) + bx - 1) / bx, (unsigned(rows) + by - 1) / by), dim3(bx, by)>>>(
        left, right, out, rows, cols, inner);
    CUDA_CHECK_LAUNCH();
  };
  product(d_a, d_b, d_e, ni, nj, nk);
  product(d_c, d_d, d_f, nj, nl, nm);
  product(d_e, d_f, d_g, ni, nl, nj);
  const std::vector<float> got_e = program::download(d_e, size_t(ni) * nj);
  const std::vector<float> got_f = program::download(d_f, size_t(nj) * nl);
  const std::vector<float> got_g = program::download(d_g, size_t(ni) * nl);
  program::free_all(d_a, d_b, d_c, d_d, d_e, d_f, d_g);

  const std::vector<float> e = cpu_product(a, b, ni, nj, nk), f = cpu_product(c, d, nj, nl, nm);
  program::Result r = program::compare_exact(got_e, e, "e");
  if (r.verified) r = program::compare_exact(got_f, f, "f");
  if (r.verified) r = program::compare_exact(got_g, cpu_product(e, f, ni, nl, nj), "g");
  return program::report("matmul_chain", r);
}
