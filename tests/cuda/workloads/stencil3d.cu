// stencil3d as a CUDA program: the host steps of
// workloads/stencil3d/stencil3d.cpp (7-point Jacobi sweeps, buffers
// ping-ponged, checked exactly against a CPU sweep in the kernel's order).
#include <utility>

#include "tests/cuda/workloads/program_support.h"
#include "workloads/stencil3d/stencil3d.cu"

namespace {

void cpu_sweep(const std::vector<float>& in, std::vector<float>& out, int nx, int ny, int nz, float c0, float c1) {
  const size_t plane = size_t(nx) * ny;
  for (int z = 0; z < nz; ++z)
    for (int y = 0; y < ny; ++y)
      for (int x = 0; x < nx; ++x) {
        const size_t at = size_t(z) * plane + size_t(y) * nx + size_t(x);
        if (x == 0 || y == 0 || z == 0 || x == nx - 1 || y == ny - 1 || z == nz - 1) {
          out[at] = in[at];
          continue;
        }
        const float lateral = ((in[at - size_t(nx)] + in[at + size_t(nx)]) + in[at - 1]) + in[at + 1];
        out[at] = std::fma(c1, (in[at - plane] + in[at + plane]) + lateral, c0 * in[at]);
      }
}

}  // namespace

int main(int argc, char** argv) {
  const program::Options opt = program::parse_options(argc, argv);
  const bool small = opt.size == program::Size::Small, paper = opt.size == program::Size::Paper;
  // paper: seed 003's hotspot3D, 32 warps of 32 threads (8 CTAs)
  const int nx = small ? 40 : paper ? 64 : 128, ny = small ? 10 : paper ? 16 : 128,
            nz = small ? 12 : paper ? 21 : 64, sweeps = small ? 3 : paper ? 2 : 8;
  const float c0 = 0.4f, c1 = 0.1f;
  const size_t cells = size_t(nx) * ny * nz;

  program::InputRng rng(opt.seed);
  std::vector<float> volume(cells);
  for (auto& v : volume) v = rng.uniform(0.0f, 100.0f);

  float* d_volume[2];
  d_volume[0] = program::upload(volume);
  d_volume[1] = program::device_alloc<float>(cells);
  const unsigned bx = 32, by = 4;
  for (int s = 0; s < sweeps; ++s) {
    jacobi7_sweep<<<dim3((unsigned(nx) + bx - 1) / bx, (unsigned(ny) + by - 1) / by), dim3(bx, by)>>>(
        d_volume[s % 2], d_volume[(s + 1) % 2], nx, ny, nz, c0, c1);
    CUDA_CHECK_LAUNCH();
  }
  const std::vector<float> got = program::download(d_volume[sweeps % 2], cells);
  program::free_all(d_volume[0], d_volume[1]);

  std::vector<float> next(cells);
  for (int s = 0; s < sweeps; ++s) {
    cpu_sweep(volume, next, nx, ny, nz, c0, c1);
    std::swap(volume, next);
  }
  return program::report("stencil3d", program::compare_exact(got, volume, "volume"));
}
