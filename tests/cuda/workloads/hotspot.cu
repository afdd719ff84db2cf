// hotspot (and hotspot_32x32) as a CUDA program: the host steps of
// workloads/hotspot/hotspot.cpp (one launch per time step, temperature
// buffers ping-ponged, checked against a CPU model in nvcc's order and
// fusion).
#include <algorithm>
#include <utility>

#include "tests/cuda/workloads/program_support.h"
#include "workloads/hotspot/hotspot.cu"

#ifndef HOTSPOT_NAME
#define HOTSPOT_NAME "hotspot"
#define HOTSPOT_SEED003_SHAPE false
#endif

namespace {

// hotspot_32x32: seed 003's 32 x 32 grid, 6 steps (2 at small), at every size.
constexpr bool kSeed003Shape = HOTSPOT_SEED003_SHAPE;

// dt / (C * R) for the lateral and vertical paths, dt / C for power.
struct Coefficients {
  float kx = 0.12f, ky = 0.08f, kz = 0.004f, kp = 0.5f, ambient = 80.0f;
};

void cpu_step(const std::vector<float>& in, const std::vector<float>& power, std::vector<float>& out, int rows,
              int cols, const Coefficients& k) {
  auto at = [&](int r, int c) { return in[size_t(std::clamp(r, 0, rows - 1)) * cols + std::clamp(c, 0, cols - 1)]; };
  for (int r = 0; r < rows; ++r) {
    for (int c = 0; c < cols; ++c) {
      const float t = at(r, c);
      // The order and fusion of nvcc -O3's PTX for hotspot_step.
      float delta = k.kp * power[size_t(r) * cols + c];
      delta = std::fma((at(r - 1, c) + at(r + 1, c)) - (t + t), k.ky, delta);
      delta = std::fma((at(r, c - 1) + at(r, c + 1)) - (t + t), k.kx, delta);
      delta = std::fma(k.ambient - t, k.kz, delta);
      out[size_t(r) * cols + c] = t + delta;
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  const program::Options opt = program::parse_options(argc, argv);
  const bool small = opt.size == program::Size::Small, paper = opt.size == program::Size::Paper && !kSeed003Shape;
  const int rows = kSeed003Shape ? 32 : small ? 60 : paper ? 512 : 500;
  const int cols = kSeed003Shape ? 32 : small ? 72 : paper ? 512 : 500;
  const int steps = kSeed003Shape ? (small ? 2 : 6) : small ? 3 : paper ? 2 : 20;
  const int pyramid = 2;  // steps per calculate_temp launch (paper size)
  const Coefficients k;
  const size_t cells = size_t(rows) * cols;

  // Background power plus a few rectangular hot units.
  program::InputRng rng(opt.seed);
  std::vector<float> temp(cells), power(cells);
  for (size_t i = 0; i < cells; ++i) {
    temp[i] = rng.uniform(320.0f, 340.0f);
    power[i] = rng.uniform(0.0f, 0.2f);
  }
  for (int unit = 0; unit < 6; ++unit) {
    const int r0 = int(rng.below(uint32_t(rows))), c0 = int(rng.below(uint32_t(cols)));
    const int h = 1 + int(rng.below(uint32_t(rows / 4))), w = 1 + int(rng.below(uint32_t(cols / 4)));
    for (int r = r0; r < std::min(rows, r0 + h); ++r)
      for (int c = c0; c < std::min(cols, c0 + w); ++c) power[size_t(r) * cols + c] += 1.0f;
  }

  float* d_temp[2];
  d_temp[0] = program::upload(temp);
  d_temp[1] = program::device_alloc<float>(cells);
  float* d_power = program::upload(power);
  int result = steps % 2;  // the buffer holding the last step
  if (paper) {
    // Rodinia's ghost-zone launches: `pyramid` steps per launch.
    const unsigned inner = TILE - 2 * unsigned(pyramid);
    const unsigned grid_x = (unsigned(cols) + inner - 1) / inner, grid_y = (unsigned(rows) + inner - 1) / inner;
    int launches = 0;
    for (int s = 0; s < steps; s += pyramid, ++launches) {
      calculate_temp<<<dim3(grid_x, grid_y), dim3(TILE, TILE)>>>(d_temp[launches % 2], d_power,
                                                                d_temp[(launches + 1) % 2], rows, cols, pyramid,
                                                                std::min(pyramid, steps - s), k.kx, k.ky, k.kz, k.kp,
                                                                k.ambient);
      CUDA_CHECK_LAUNCH();
    }
    result = launches % 2;
  } else {
    const unsigned grid_x = (unsigned(cols) + TILE - 1) / TILE, grid_y = (unsigned(rows) + TILE - 1) / TILE;
    for (int s = 0; s < steps; ++s) {
      hotspot_step<<<dim3(grid_x, grid_y), dim3(TILE, TILE)>>>(d_temp[s % 2], d_power, d_temp[(s + 1) % 2], rows,
                                                              cols, k.kx, k.ky, k.kz, k.kp, k.ambient);
      CUDA_CHECK_LAUNCH();
    }
  }
  const std::vector<float> got = program::download(d_temp[result], cells);

  std::vector<float> next(cells);
  for (int s = 0; s < steps; ++s) {
    cpu_step(temp, power, next, rows, cols, k);
    std::swap(temp, next);
  }
  // Mirrored order: a few ulps at most unless a neighbour or term is wrong.
  return program::report(HOTSPOT_NAME, program::compare_close(got, temp, 1e-5, "temperature"));
}
