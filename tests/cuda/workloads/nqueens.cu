// nqueens as a CUDA program: the host steps of workloads/nqueens/nqueens.cpp
// (ISPASS NQU: partial boards enumerated on the host, one per thread of
// fixed-size launches, per-CTA counts checked against a CPU count).
#include "tests/cuda/workloads/program_support.h"
#include "workloads/nqueens/nqueens.cu"

struct Boards {
  std::vector<unsigned> cols, left, right;
};

static void enumerate(int n, int placed, int row, unsigned c, unsigned l, unsigned r, Boards& out) {
  if (row == placed) {
    out.cols.push_back(c);
    out.left.push_back(l);
    out.right.push_back(r);
    return;
  }
  const unsigned full = (1u << n) - 1;
  for (unsigned free = ~(c | l | r) & full; free != 0; free &= free - 1) {
    const unsigned bit = free & (~free + 1);
    enumerate(n, placed, row + 1, c | bit, (l | bit) << 1, (r | bit) >> 1, out);
  }
}

static unsigned complete(unsigned full, unsigned c, unsigned l, unsigned r) {
  if (c == full) return 1;
  unsigned total = 0;
  for (unsigned free = ~(c | l | r) & full; free != 0; free &= free - 1) {
    const unsigned bit = free & (~free + 1);
    total += complete(full, c | bit, ((l | bit) << 1) & full, (r | bit) >> 1);
  }
  return total;
}

int main(int argc, char** argv) {
  const program::Options opt = program::parse_options(argc, argv);
  const int n = opt.size == program::Size::Small ? 7 : opt.size == program::Size::Default ? 11 : 10;
  const unsigned steps = opt.size == program::Size::Small ? 2 * NQ_THREADS : 256 * NQ_THREADS;
  const int placed = n > 11 ? n - 10 : 2;
  const unsigned grid = steps / NQ_THREADS;
  const unsigned full = (1u << n) - 1;

  unsigned* d_cols = program::device_alloc<unsigned>(steps);
  unsigned* d_left = program::device_alloc<unsigned>(steps);
  unsigned* d_right = program::device_alloc<unsigned>(steps);
  unsigned* d_counts = program::device_alloc<unsigned>(grid);

  std::vector<unsigned> got_counts, want_counts;
  auto launch = [&](const Boards& b, size_t begin, size_t end) {
    const size_t count = end - begin;
    CUDA_CHECK(cudaMemcpy(d_cols, b.cols.data() + begin, count * sizeof(unsigned), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(d_left, b.left.data() + begin, count * sizeof(unsigned), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(d_right, b.right.data() + begin, count * sizeof(unsigned), cudaMemcpyHostToDevice));
    solve_nqueen_cuda_kernel<<<grid, NQ_THREADS>>>(n, n - placed, d_cols, d_left, d_right, d_counts, int(count));
    CUDA_CHECK_LAUNCH();
    const std::vector<unsigned> counts = program::download(d_counts, grid);
    uint64_t total = 0;
    for (unsigned k = 0; k < grid; ++k) {
      unsigned want = 0;
      for (size_t i = begin + size_t(k) * NQ_THREADS; i < end && i < begin + size_t(k + 1) * NQ_THREADS; ++i)
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
      const unsigned bit = 1u << first;
      enumerate(n, placed, 1, bit, bit << 1, bit >> 1, b);
    }
    uint64_t total = 0;
    size_t begin = 0;
    for (; b.cols.size() - begin >= steps; begin += steps) total += launch(b, begin, begin + steps);
    return total + launch(b, begin, b.cols.size());
  };
  uint64_t got_total = 2 * pass(0, n / 2);
  if (n % 2 == 1) got_total += pass(n / 2, n / 2 + 1);
  program::free_all(d_cols, d_left, d_right, d_counts);

  program::Result r = program::compare_exact(got_counts, want_counts, "CTA count");
  if (!r.verified) return program::report("nqueens", r);
  const uint64_t want_total = complete(full, 0, 0, 0);
  if (got_total != want_total)
    return program::report("nqueens", {false, std::to_string(n) + " queens: " + std::to_string(got_total) +
                                                  " solutions, expected " + std::to_string(want_total)});
  return program::report("nqueens", {true, std::to_string(n) + " queens: " + std::to_string(got_total) + " solutions"});
}
