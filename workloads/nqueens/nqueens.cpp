// nqueens: ISPASS 2009's NQU. The host enumerates the queens of the first
// `placed` rows (2 for n <= 11, n - 10 beyond, as the original), the first
// row's queen only in the left half of the board (mirror images count
// twice); each partial board goes to one thread of solve_nqueen_cuda_kernel,
// launched on a fixed grid of `steps` threads (96 per CTA) whenever that many
// boards are waiting and once for the rest. For odd n a second pass does the
// boards with the first queen in the middle column, which count once. The
// per-CTA counts are compared exactly with a CPU count of the same boards,
// and the total with the CPU's count of all solutions.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "workloads/common/workload_support.h"
#include "workloads/ptxas_registers.h"

namespace tlmgpu::workloads {
namespace {

constexpr uint32_t kThreads = 96;  // NQ_THREADS in nqueens.cu

struct Boards {
  std::vector<uint32_t> cols, left, right;
};

// Partial boards with queens on the first `placed` rows, the first one in
// column `first`, in the kernel's order of trial (lowest free column first).
void enumerate(int n, int placed, int row, uint32_t c, uint32_t l, uint32_t r, Boards& out) {
  if (row == placed) {
    out.cols.push_back(c);
    out.left.push_back(l);
    out.right.push_back(r);
    return;
  }
  const uint32_t full = (1u << n) - 1;
  for (uint32_t free = ~(c | l | r) & full; free != 0; free &= free - 1) {
    const uint32_t bit = free & (~free + 1);
    enumerate(n, placed, row + 1, c | bit, (l | bit) << 1, (r | bit) >> 1, out);
  }
}

// Solutions that complete a partial board (plain recursion).
uint32_t complete(uint32_t full, uint32_t c, uint32_t l, uint32_t r) {
  if (c == full) return 1;
  uint32_t total = 0;
  for (uint32_t free = ~(c | l | r) & full; free != 0; free &= free - 1) {
    const uint32_t bit = free & (~free + 1);
    total += complete(full, c | bit, ((l | bit) << 1) & full, (r | bit) >> 1);
  }
  return total;
}

class NQueens : public Workload {
 public:
  WorkloadResult run(platform::GpuDevice& device, Size size, uint64_t seed) override {
    // Small: n = 7, 192 threads (2 CTAs) per launch, 2 launches (odd n).
    // Default: n = 11, the original's 24,576 threads (256 CTAs) per launch, 2 launches.
    // Paper: n = 10 (seed 004 Table 2: NQU, 10, 1 M instructions), 24,576
    // threads (the original's default `steps`), 1 launch of 256 CTAs x 96.
    // The inputs do not depend on the seed.
    (void)seed;
    const int n = size == Size::Small ? 7 : size == Size::Default ? 11 : 10;
    const uint32_t steps = size == Size::Small ? 2 * kThreads : 256 * kThreads;
    const int placed = n > 11 ? n - 10 : 2;
    const uint32_t grid = steps / kThreads;
    const uint32_t full = (1u << n) - 1;

    auto module = load_workload_module(device, "nqueens");
    uint64_t d_cols = device.allocate(steps * sizeof(uint32_t), "cols");
    uint64_t d_left = device.allocate(steps * sizeof(uint32_t), "left");
    uint64_t d_right = device.allocate(steps * sizeof(uint32_t), "right");
    uint64_t d_counts = device.allocate(grid * sizeof(uint32_t), "counts");

    std::vector<uint32_t> got_counts, want_counts;
    uint64_t got_total = 0;
    // One launch over boards [begin, end) of a pass; returns its total.
    auto launch = [&](const Boards& b, size_t begin, size_t end) {
      const size_t count = end - begin;
      device.copy_to_device(d_cols, b.cols.data() + begin, count * sizeof(uint32_t));
      device.copy_to_device(d_left, b.left.data() + begin, count * sizeof(uint32_t));
      device.copy_to_device(d_right, b.right.data() + begin, count * sizeof(uint32_t));
      device.launch(module, "solve_nqueen_cuda_kernel", {grid, 1, 1}, {kThreads, 1, 1}, 0,
                    platform::KernelArgs().add<int32_t>(n).add<int32_t>(n - placed).ptr(d_cols).ptr(d_left)
                        .ptr(d_right).ptr(d_counts).add<int32_t>(int32_t(count)));
      std::vector<uint32_t> counts = device.download<uint32_t>(d_counts, grid);
      uint64_t total = 0;
      for (uint32_t k = 0; k < grid; ++k) {
        uint32_t want = 0;
        for (size_t i = begin + size_t(k) * kThreads; i < end && i < begin + size_t(k + 1) * kThreads; ++i)
          want += complete(full, b.cols[i], b.left[i] & full, b.right[i]);
        got_counts.push_back(counts[k]);
        want_counts.push_back(want);
        total += counts[k];
      }
      return total;
    };
    auto pass = [&](int first_begin, int first_end) {
      Boards b;
      for (int first = first_begin; first < first_end; ++first) {
        const uint32_t bit = 1u << first;
        enumerate(n, placed, 1, bit, bit << 1, bit >> 1, b);
      }
      uint64_t total = 0;
      size_t begin = 0;
      for (; b.cols.size() - begin >= steps; begin += steps) total += launch(b, begin, begin + steps);
      return total + launch(b, begin, b.cols.size());
    };
    got_total = 2 * pass(0, n / 2);
    if (n % 2 == 1) got_total += pass(n / 2, n / 2 + 1);
    for (uint64_t d : {d_cols, d_left, d_right, d_counts}) device.free(d);

    WorkloadResult r = compare_exact(got_counts, want_counts, "CTA count");
    if (!r.verified) return r;
    const uint64_t want_total = complete(full, 0, 0, 0);
    if (got_total != want_total)
      return {false, std::to_string(n) + " queens: " + std::to_string(got_total) + " solutions, expected " +
                         std::to_string(want_total)};
    return {true, std::to_string(n) + " queens: " + std::to_string(got_total) + " solutions"};
  }
};

const bool registered = register_workload(
    {"nqueens", "ISPASS NQU: N-queens by bit-board backtracking, one partial board per thread, stacks in shared memory",
     /*ipdom_safe=*/true, [] { return std::make_unique<NQueens>(); }});

}  // namespace
}  // namespace tlmgpu::workloads
