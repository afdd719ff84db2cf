// needleman_wunsch as a CUDA program: the host steps of
// workloads/needleman_wunsch/needleman_wunsch.cpp (Rodinia NW: one launch per
// tile anti-diagonal, then the whole score matrix checked exactly).
#include <algorithm>

#include "tests/cuda/workloads/program_support.h"
#include "workloads/needleman_wunsch/needleman_wunsch.cu"

// BLOSUM62, residues in the order A R N D C Q E G H I L K M F P S T W Y V B Z X *.
static const int kBlosum62[24][24] = {
    {4, -1, -2, -2, 0, -1, -1, 0, -2, -1, -1, -1, -1, -2, -1, 1, 0, -3, -2, 0, -2, -1, 0, -4},
    {-1, 5, 0, -2, -3, 1, 0, -2, 0, -3, -2, 2, -1, -3, -2, -1, -1, -3, -2, -3, -1, 0, -1, -4},
    {-2, 0, 6, 1, -3, 0, 0, 0, 1, -3, -3, 0, -2, -3, -2, 1, 0, -4, -2, -3, 3, 0, -1, -4},
    {-2, -2, 1, 6, -3, 0, 2, -1, -1, -3, -4, -1, -3, -3, -1, 0, -1, -4, -3, -3, 4, 1, -1, -4},
    {0, -3, -3, -3, 9, -3, -4, -3, -3, -1, -1, -3, -1, -2, -3, -1, -1, -2, -2, -1, -3, -3, -2, -4},
    {-1, 1, 0, 0, -3, 5, 2, -2, 0, -3, -2, 1, 0, -3, -1, 0, -1, -2, -1, -2, 0, 3, -1, -4},
    {-1, 0, 0, 2, -4, 2, 5, -2, 0, -3, -3, 1, -2, -3, -1, 0, -1, -3, -2, -2, 1, 4, -1, -4},
    {0, -2, 0, -1, -3, -2, -2, 6, -2, -4, -4, -2, -3, -3, -2, 0, -2, -2, -3, -3, -1, -2, -1, -4},
    {-2, 0, 1, -1, -3, 0, 0, -2, 8, -3, -3, -1, -2, -1, -2, -1, -2, -2, 2, -3, 0, 0, -1, -4},
    {-1, -3, -3, -3, -1, -3, -3, -4, -3, 4, 2, -3, 1, 0, -3, -2, -1, -3, -1, 3, -3, -3, -1, -4},
    {-1, -2, -3, -4, -1, -2, -3, -4, -3, 2, 4, -2, 2, 0, -3, -2, -1, -2, -1, 1, -4, -3, -1, -4},
    {-1, 2, 0, -1, -3, 1, 1, -2, -1, -3, -2, 5, -1, -3, -1, 0, -1, -3, -2, -2, 0, 1, -1, -4},
    {-1, -1, -2, -3, -1, 0, -2, -3, -2, 1, 2, -1, 5, 0, -2, -1, -1, -1, -1, 1, -3, -1, -1, -4},
    {-2, -3, -3, -3, -2, -3, -3, -3, -1, 0, 0, -3, 0, 6, -4, -2, -2, 1, 3, -1, -3, -3, -1, -4},
    {-1, -2, -2, -1, -3, -1, -1, -2, -2, -3, -3, -1, -2, -4, 7, -1, -1, -4, -3, -2, -2, -1, -2, -4},
    {1, -1, 1, 0, -1, 0, 0, 0, -1, -2, -2, 0, -1, -2, -1, 4, 1, -3, -2, -2, 0, 0, 0, -4},
    {0, -1, 0, -1, -1, -1, -1, -2, -2, -1, -1, -1, -1, -2, -1, 1, 5, -2, -2, 0, -1, -1, 0, -4},
    {-3, -3, -4, -4, -2, -2, -3, -2, -2, -3, -2, -3, -1, 1, -4, -3, -2, 11, 2, -3, -4, -3, -2, -4},
    {-2, -2, -2, -3, -2, -1, -2, -3, 2, -1, -1, -2, -1, 3, -3, -2, -2, 2, 7, -1, -3, -2, -1, -4},
    {0, -3, -3, -3, -1, -2, -2, -3, -3, 3, 1, -2, 1, -1, -2, -2, 0, -3, -1, 4, -3, -2, -1, -4},
    {-2, -1, 3, 4, -3, 0, 1, -1, 0, -3, -4, 0, -3, -3, -2, 0, -1, -4, -3, -3, 4, 1, -1, -4},
    {-1, 0, 0, 1, -3, 3, 4, -2, 0, -3, -3, 1, -1, -3, -1, 0, -1, -3, -2, -2, 1, 4, -1, -4},
    {0, -1, -1, -1, -2, -1, -1, -1, -1, -1, -1, -1, -1, -1, -2, 0, 0, -2, -1, -1, -1, -1, -1, -4},
    {-4, -4, -4, -4, -4, -4, -4, -4, -4, -4, -4, -4, -4, -4, -4, -4, -4, -4, -4, -4, -4, -4, -4, 1},
};

int main(int argc, char** argv) {
  const program::Options opt = program::parse_options(argc, argv);
  const int penalty = 10;
  const int n = opt.size == program::Size::Small ? 64 : opt.size == program::Size::Default ? 2048 : 1024;
  const int cols = n + 1;
  const int tiles = n / TILE;
  const size_t cells = size_t(cols) * size_t(cols);

  program::InputRng rng(opt.seed);
  std::vector<int> seq_a(size_t(cols), 0), seq_b(size_t(cols), 0);
  for (int i = 1; i < cols; ++i) seq_a[size_t(i)] = int(rng.below(10)) + 1;
  for (int j = 1; j < cols; ++j) seq_b[size_t(j)] = int(rng.below(10)) + 1;
  std::vector<int> ref(cells), matrix(cells, 0);
  for (int i = 0; i < cols; ++i)
    for (int j = 0; j < cols; ++j) ref[size_t(i) * cols + size_t(j)] = kBlosum62[seq_a[size_t(i)]][seq_b[size_t(j)]];
  for (int i = 1; i < cols; ++i) matrix[size_t(i) * cols] = -i * penalty;
  for (int j = 1; j < cols; ++j) matrix[size_t(j)] = -j * penalty;

  int* d_ref = program::upload(ref);
  int* d_matrix = program::upload(matrix);
  for (int i = 1; i <= tiles; ++i) {
    needle_cuda_shared_1<<<i, TILE>>>(d_ref, d_matrix, cols, penalty, i, tiles);
    CUDA_CHECK_LAUNCH();
  }
  for (int i = tiles - 1; i >= 1; --i) {
    needle_cuda_shared_2<<<i, TILE>>>(d_ref, d_matrix, cols, penalty, i, tiles);
    CUDA_CHECK_LAUNCH();
  }
  const std::vector<int> got = program::download(d_matrix, cells);
  program::free_all(d_ref, d_matrix);

  std::vector<int>& want = matrix;
  for (int i = 1; i < cols; ++i)
    for (int j = 1; j < cols; ++j) {
      const size_t c = size_t(i) * cols + size_t(j);
      want[c] = std::max({want[c - cols - 1] + ref[c], want[c - 1] - penalty, want[c - cols] - penalty});
    }
  return program::report("needleman_wunsch", program::compare_exact(got, want, "score"));
}
