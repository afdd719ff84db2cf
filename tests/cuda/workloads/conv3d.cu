// conv3d as a CUDA program: the host steps of workloads/conv3d/conv3d.cpp
// (one launch over the interior, checked exactly against a CPU convolution
// in the kernel's fma order).
#include "tests/cuda/workloads/program_support.h"
#include "workloads/conv3d/conv3d.cu"

int main(int argc, char** argv) {
  const program::Options opt = program::parse_options(argc, argv);
  const bool small = opt.size == program::Size::Small, paper = opt.size == program::Size::Paper;
  const int nx = small ? 34 : paper ? 256 : 192, ny = small ? 18 : paper ? 256 : 160,
            nz = small ? 10 : paper ? 256 : 64;
  const size_t cells = size_t(nx) * ny * nz;

  program::InputRng rng(opt.seed);
  std::vector<float> in(cells), weights(27);
  for (auto& v : in) v = rng.uniform(-1.0f, 1.0f);
  for (auto& w : weights) w = rng.uniform(-0.5f, 0.5f);

  float* d_in = program::upload(in);
  float* d_weights = program::upload(weights);
  float* d_out = program::device_alloc<float>(cells);
  CUDA_CHECK(cudaMemset(d_out, 0, cells * sizeof(float)));  // the kernel leaves the boundary unwritten
  if (paper) {
    // Polybench 3DCONV's host loop: one launch per interior plane.
    const unsigned bx = 32, by = 8;
    for (int z = 1; z < nz - 1; ++z) {
      convolution3D_kernel<<<dim3((unsigned(nx) + bx - 1) / bx, (unsigned(ny) + by - 1) / by), dim3(bx, by)>>>(
          d_in, d_weights, d_out, nx, ny, nz, z);
      CUDA_CHECK_LAUNCH();
    }
  } else {
    const unsigned bx = 32, by = 4;
    conv3d_3x3x3<<<dim3((unsigned(nx) + bx - 1) / bx, (unsigned(ny) + by - 1) / by, unsigned(nz)), dim3(bx, by)>>>(
        d_in, d_weights, d_out, nx, ny, nz);
    CUDA_CHECK_LAUNCH();
  }
  const std::vector<float> got = program::download(d_out, cells);
  program::free_all(d_in, d_weights, d_out);

  std::vector<float> want(cells, 0.0f);
  const size_t plane = size_t(nx) * ny;
  for (int z = 1; z < nz - 1; ++z)
    for (int y = 1; y < ny - 1; ++y)
      for (int x = 1; x < nx - 1; ++x) {
        float acc = 0.0f;
        for (int dz = -1; dz <= 1; ++dz)
          for (int dy = -1; dy <= 1; ++dy)
            for (int dx = -1; dx <= 1; ++dx)
              acc = std::fma(weights[size_t((dz + 1) * 9 + (dy + 1) * 3 + (dx + 1))],
                             in[size_t(z + dz) * plane + size_t(y + dy) * nx + size_t(x + dx)], acc);
        want[size_t(z) * plane + size_t(y) * nx + size_t(x)] = acc;
      }
  return program::report("conv3d", program::compare_exact(got, want, "out"));
}
