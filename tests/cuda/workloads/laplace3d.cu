// laplace3d as a CUDA program: the host steps of
// workloads/laplace3d/laplace3d.cpp (ISPASS LPS: Jacobi sweeps by
// GPU_laplace3d over a pitched grid, input and output swapped between sweeps).
#include <utility>

#include "tests/cuda/workloads/program_support.h"
#include "workloads/laplace3d/laplace3d.cu"

int main(int argc, char** argv) {
  const program::Options opt = program::parse_options(argc, argv);
  const program::Size size = opt.size;
  const int nx = size == program::Size::Small ? 40 : size == program::Size::Default ? 256 : 100;
  const int ny = size == program::Size::Small ? 12 : size == program::Size::Default ? 128 : 100;
  const int nz = size == program::Size::Small ? 10 : size == program::Size::Default ? 64 : 100;
  const int sweeps = size == program::Size::Paper ? 1 : 2;
  const int pitch = (nx + 127) / 128 * 128;
  const size_t cells = size_t(pitch) * size_t(ny) * size_t(nz);
  auto at = [&](int i, int j, int k) { return (size_t(k) * size_t(ny) + size_t(j)) * size_t(pitch) + size_t(i); };

  program::InputRng rng(opt.seed);
  std::vector<float> u(cells, 0.0f);
  for (int k = 0; k < nz; ++k)
    for (int j = 0; j < ny; ++j)
      for (int i = 0; i < nx; ++i) {
        const bool boundary = i == 0 || i == nx - 1 || j == 0 || j == ny - 1 || k == 0 || k == nz - 1;
        u[at(i, j, k)] = boundary ? 1.0f : rng.uniform(0.0f, 1.0f);
      }

  float* d_u1 = program::upload(u);
  float* d_u2 = program::upload(u);
  const dim3 grid((nx + BLOCK_X - 1) / BLOCK_X, (ny + BLOCK_Y - 1) / BLOCK_Y);
  for (int s = 0; s < sweeps; ++s) {
    GPU_laplace3d<<<grid, dim3(BLOCK_X, BLOCK_Y)>>>(nx, ny, nz, pitch, d_u1, d_u2);
    CUDA_CHECK_LAUNCH();
    std::swap(d_u1, d_u2);
  }
  const std::vector<float> got = program::download(d_u1, cells);
  program::free_all(d_u1, d_u2);

  std::vector<float> next = u;
  const float sixth = 1.0f / 6.0f;
  for (int s = 0; s < sweeps; ++s) {
    for (int k = 0; k < nz; ++k)
      for (int j = 0; j < ny; ++j)
        for (int i = 0; i < nx; ++i) {
          const size_t c = at(i, j, k);
          const bool boundary = i == 0 || i == nx - 1 || j == 0 || j == ny - 1 || k == 0 || k == nz - 1;
          next[c] = boundary ? u[c]
                             : (u[c - 1] + u[c + 1] + u[at(i, j - 1, k)] + u[at(i, j + 1, k)] + u[at(i, j, k - 1)] +
                                u[at(i, j, k + 1)]) * sixth;
        }
    std::swap(u, next);
  }
  return program::report("laplace3d", program::compare_exact(got, u, "u"));
}
