// cp as a CUDA program: the host steps of workloads/cp/cp.cpp (seeded
// charges into constant memory, one cenergy launch over a zeroed grid, the
// energies checked against the device-order CPU sums).
#include "tests/cuda/workloads/program_support.h"
#include "workloads/cp/cp.cu"

int main(int argc, char** argv) {
  const program::Options opt = program::parse_options(argc, argv);
  const int width = opt.size == program::Size::Small ? 64 : 256;
  const int height = opt.size == program::Size::Small ? 16 : width;
  const int num_atoms = opt.size == program::Size::Small ? 20 : 200;
  const float spacing = 0.1f;
  const int block_x = 16, block_y = 8;

  program::InputRng rng(opt.seed);
  std::vector<float> atoms(size_t(num_atoms) * 4);
  for (int a = 0; a < num_atoms; ++a) {
    const float x = rng.uniform(0.0f, spacing * float(width));
    const float y = rng.uniform(0.0f, spacing * float(height));
    const float dz = rng.uniform(0.1f, 2.0f);
    const float q = rng.uniform(-1.0f, 1.0f);
    atoms[size_t(4 * a)] = x;
    atoms[size_t(4 * a + 1)] = y;
    atoms[size_t(4 * a + 2)] = dz * dz;
    atoms[size_t(4 * a + 3)] = q;
  }

  const dim3 grid(unsigned(width / (block_x * kCpUnrollX)), unsigned(height / block_y));
  const size_t points = size_t(width) * size_t(height);
  CUDA_CHECK(cudaMemcpyToSymbol(cp_atoms, atoms.data(), atoms.size() * sizeof(float)));
  float* d_energy = program::device_alloc<float>(points);
  CUDA_CHECK(cudaMemset(d_energy, 0, points * sizeof(float)));
  cenergy<<<grid, dim3(unsigned(block_x), unsigned(block_y))>>>(num_atoms, spacing, d_energy);
  CUDA_CHECK_LAUNCH();
  const std::vector<float> got = program::download(d_energy, points);

  std::vector<float> want(points);
  const float step = spacing * float(block_x);
  for (int y = 0; y < height; ++y)
    for (int x0 = 0; x0 < width; x0 += block_x * kCpUnrollX)
      for (int tx = 0; tx < block_x; ++tx) {
        const int x = x0 + tx;
        const float px = spacing * float(x), py = spacing * float(y);
        float e[kCpUnrollX] = {};  // the zeroed grid's values
        for (int a = 0; a < num_atoms; ++a) {
          const float* atom = &atoms[size_t(4 * a)];
          const float dy = py - atom[1];
          const float dyz2 = std::fma(dy, dy, atom[2]);
          float dx = px - atom[0];
          for (int k = 0; k < kCpUnrollX; ++k) {
            e[k] = std::fma(atom[3], 1.0f / std::sqrt(std::fma(dx, dx, dyz2)), e[k]);
            dx += step;
          }
        }
        for (int k = 0; k < kCpUnrollX; ++k) want[size_t(y) * size_t(width) + size_t(x + k * block_x)] = e[k];
      }
  return program::report("cp", program::compare_close(got, want, 1e-6, "energy", 1e-6));
}
