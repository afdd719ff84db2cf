// quasirandom as a CUDA program: the host steps of
// workloads/quasirandom/quasirandom.cpp (Niederreiter direction numbers in
// constant memory, a warm-up and `iterations` launches of each kernel, the
// points checked exactly, the inverse normal values within a tolerance).
#include "tests/cuda/workloads/program_support.h"
#include "workloads/quasirandom/quasirandom.cu"
#include "workloads/quasirandom/quasirandom_host.h"

namespace qh = quasirandom_host;

int main(int argc, char** argv) {
  const program::Options opt = program::parse_options(argc, argv);
  const unsigned n = opt.size == program::Size::Small ? 1000 : opt.size == program::Size::Default ? 1u << 18 : 1u << 20;
  const unsigned grid = opt.size == program::Size::Small ? 4 : 128;
  const int iterations = opt.size == program::Size::Small ? 1 : opt.size == program::Size::Default ? 4 : 20;
  const unsigned count = qh::kDimensions * n;
  const unsigned start = program::InputRng(opt.seed).below(1024);

  const std::vector<uint32_t> table = qh::niederreiter_table();
  CUDA_CHECK(cudaMemcpyToSymbol(c_Table, table.data(), table.size() * sizeof(uint32_t)));
  float* d_out = program::device_alloc<float>(count);

  for (int i = -1; i < iterations; ++i) {
    quasirandomGeneratorKernel<<<grid, dim3(qh::kThreadsX, qh::kDimensions)>>>(d_out, start, n);
    CUDA_CHECK_LAUNCH();
  }
  const std::vector<float> points = program::download(d_out, count);

  for (int i = -1; i < iterations; ++i) {
    inverseCNDKernel<<<grid, qh::kThreadsX>>>(d_out, nullptr, count);
    CUDA_CHECK_LAUNCH();
  }
  const std::vector<float> normals = program::download(d_out, count);

  std::vector<float> want_points(count);
  for (int d = 0; d < qh::kDimensions; ++d)
    for (unsigned pos = 0; pos < n; ++pos) want_points[size_t(d) * n + pos] = qh::point(table, d, start, pos);
  const program::Result qr = program::compare_exact(points, want_points, "point");
  if (!qr.verified) return program::report("quasirandom", qr);

  std::vector<float> want_normals(count);
  const float step = 1.0f / float(count + 1);
  for (unsigned pos = 0; pos < count; ++pos) want_normals[pos] = qh::moro_inverse_cnd(float(pos + 1) * step);
  const program::Result inv = program::compare_close(normals, want_normals, 1e-5, "inverse_cnd", 1e-6);
  if (!inv.verified) return program::report("quasirandom", inv);
  return program::report("quasirandom", {true, std::to_string(count) + " points and " + std::to_string(count) +
                                                   " normal values match, " + std::to_string(2 * (iterations + 1)) +
                                                   " launches"});
}
