// needleman_wunsch: Rodinia's NW. Two sequences of n residues (codes 1..10,
// seeded), their pairwise substitution scores from the BLOSUM62 table, gap
// penalty 10. The score matrix's first row and column hold -i * penalty; the
// device fills the rest tile diagonal by tile diagonal (2 * n/16 - 1
// launches of needle_cuda_shared_1 then needle_cuda_shared_2, one 16-thread
// CTA per tile), and the whole matrix is compared exactly with the CPU's
// row-by-row recurrence.
#include <algorithm>
#include <cstdint>
#include <memory>
#include <vector>

#include "workloads/common/workload_support.h"
#include "workloads/ptxas_registers.h"

namespace tlmgpu::workloads {
namespace {

constexpr int kTile = 16;  // TILE in needleman_wunsch.cu
constexpr int kPenalty = 10;

// BLOSUM62, residues in the order A R N D C Q E G H I L K M F P S T W Y V B Z X *.
constexpr int kBlosum62[24][24] = {
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

class NeedlemanWunsch : public Workload {
 public:
  WorkloadResult run(platform::GpuDevice& device, Size size, uint64_t seed) override {
    // Small: 64 x 64 (4 x 4 tiles, 7 launches, 16 CTAs). Default: 2048 x 2048
    // (Rodinia's own run, `needle 2048 10`: 128 x 128 tiles, 255 launches, 16,384
    // CTAs). Paper: 1024 x 1024, penalty 10 (seed 004 Table 2: NW 1024*1024,
    // 169 M instructions): 64 x 64 tiles, 127 launches, 4,096 CTAs.
    const int n = size == Size::Small ? 64 : size == Size::Default ? 2048 : 1024;
    const int cols = n + 1;
    const int tiles = n / kTile;
    const size_t cells = size_t(cols) * size_t(cols);

    // Residue codes 1..10 along the first column (sequence A) and the first
    // row (sequence B), as Rodinia draws them.
    InputRng rng(seed);
    std::vector<int> seq_a(size_t(cols), 0), seq_b(size_t(cols), 0);
    for (int i = 1; i < cols; ++i) seq_a[size_t(i)] = int(rng.below(10)) + 1;
    for (int j = 1; j < cols; ++j) seq_b[size_t(j)] = int(rng.below(10)) + 1;
    std::vector<int32_t> ref(cells), matrix(cells, 0);
    for (int i = 0; i < cols; ++i)
      for (int j = 0; j < cols; ++j) ref[size_t(i) * cols + size_t(j)] = kBlosum62[seq_a[size_t(i)]][seq_b[size_t(j)]];
    for (int i = 1; i < cols; ++i) matrix[size_t(i) * cols] = -i * kPenalty;
    for (int j = 1; j < cols; ++j) matrix[size_t(j)] = -j * kPenalty;

    auto module = load_workload_module(device, "needleman_wunsch");
    uint64_t d_ref = device.upload(ref, "reference");
    uint64_t d_matrix = device.upload(matrix, "matrix");
    auto args = [&](int i) {
      return platform::KernelArgs().ptr(d_ref).ptr(d_matrix).add<int32_t>(cols).add<int32_t>(kPenalty)
          .add<int32_t>(i).add<int32_t>(tiles);
    };
    for (int i = 1; i <= tiles; ++i)
      device.launch(module, "needle_cuda_shared_1", {uint32_t(i), 1, 1}, {uint32_t(kTile), 1, 1}, 0, args(i));
    for (int i = tiles - 1; i >= 1; --i)
      device.launch(module, "needle_cuda_shared_2", {uint32_t(i), 1, 1}, {uint32_t(kTile), 1, 1}, 0, args(i));
    std::vector<int32_t> got = device.download<int32_t>(d_matrix, cells);
    for (uint64_t d : {d_ref, d_matrix}) device.free(d);

    std::vector<int32_t>& want = matrix;
    for (int i = 1; i < cols; ++i)
      for (int j = 1; j < cols; ++j) {
        const size_t c = size_t(i) * cols + size_t(j);
        want[c] = std::max({want[c - cols - 1] + ref[c], want[c - 1] - kPenalty, want[c - cols] - kPenalty});
      }
    return compare_exact(got, want, "score");
  }
};

const bool registered = register_workload(
    {"needleman_wunsch", "Rodinia NW: alignment scores by 16x16 tiles, one launch per tile anti-diagonal",
     /*ipdom_safe=*/true, [] { return std::make_unique<NeedlemanWunsch>(); }});

}  // namespace
}  // namespace tlmgpu::workloads
