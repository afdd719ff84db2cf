// pathfinder as a CUDA program: the host steps of
// workloads/pathfinder/pathfinder.cpp (one launch per band of rows, cost rows
// ping-ponged, checked exactly against a CPU dynamic program).
#include <algorithm>
#include <utility>

#include "tests/cuda/workloads/program_support.h"
#include "workloads/pathfinder/pathfinder.cu"

int main(int argc, char** argv) {
  const program::Options opt = program::parse_options(argc, argv);
  const bool small = opt.size == program::Size::Small, paper = opt.size == program::Size::Paper;
  const int cols = small ? 1000 : paper ? 100000 : 20000;
  const int rows = small ? 71 : paper ? 100 : 601;
  const int band = small ? 10 : 20;  // rows per launch (= halo width per side)
  const unsigned block = 256;
  const int useful = int(block) - 2 * band;  // output columns per CTA

  program::InputRng rng(opt.seed);
  std::vector<int32_t> wall(size_t(rows) * cols);
  for (auto& w : wall) w = int32_t(rng.below(10));

  int* d_wall = program::upload(wall);
  // Row 0's costs are its weights; later rows come from the launches.
  const std::vector<int32_t> first(wall.begin(), wall.begin() + cols);
  int* d_a = program::upload(first);
  int* d_b = program::device_alloc<int>(static_cast<size_t>(cols));

  const unsigned ctas = unsigned((cols + useful - 1) / useful);
  for (int r = 1; r < rows; r += band) {
    const int steps = std::min(band, rows - r);
    pathfinder_band<<<ctas, block, block * sizeof(int)>>>(d_wall, d_a, d_b, cols, r, steps, band);
    CUDA_CHECK_LAUNCH();
    std::swap(d_a, d_b);
  }
  const std::vector<int> got = program::download(d_a, size_t(cols));

  std::vector<int32_t> cost(first), next(static_cast<size_t>(cols));
  for (int r = 1; r < rows; ++r) {
    for (int c = 0; c < cols; ++c) {
      int32_t best = cost[size_t(c)];
      if (c > 0) best = std::min(best, cost[size_t(c - 1)]);
      if (c + 1 < cols) best = std::min(best, cost[size_t(c + 1)]);
      next[size_t(c)] = wall[size_t(r) * cols + c] + best;
    }
    std::swap(cost, next);
  }
  program::free_all(d_wall, d_a, d_b);
  return program::report("pathfinder", program::compare_exact(got, cost, "bottom-row cost"));
}
