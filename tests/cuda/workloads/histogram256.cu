// histogram256 as a CUDA program: the host steps of
// workloads/histogram256/histogram256.cpp (the SDK's 256-bin histogram:
// per-warp shared-memory histograms with atomics, then a merge kernel per bin).
#include "tests/cuda/workloads/program_support.h"
#include "workloads/histogram256/histogram256.cu"

int main(int argc, char** argv) {
  const program::Options opt = program::parse_options(argc, argv);
  const uint64_t bytes = opt.size == program::Size::Small ? 65548 : opt.size == program::Size::Default ? 8ull << 20 : 64ull << 20;
  const unsigned grid = opt.size == program::Size::Small ? 32 : 240;

  program::InputRng rng(opt.seed);
  std::vector<unsigned> words(bytes / 4);
  for (auto& w : words) w = unsigned(rng.next() >> 32);

  unsigned* d_data = program::upload(words);
  unsigned* d_partials = program::device_alloc<unsigned>(size_t(grid) * H256_BINS);
  unsigned* d_hist = program::device_alloc<unsigned>(H256_BINS);
  histogram256Kernel<<<grid, H256_THREADS>>>(d_partials, d_data, unsigned(words.size()));
  CUDA_CHECK_LAUNCH();
  mergeHistogram256Kernel<<<H256_BINS, MERGE_THREADS>>>(d_hist, d_partials, grid);
  CUDA_CHECK_LAUNCH();
  const std::vector<unsigned> got = program::download(d_hist, H256_BINS);
  program::free_all(d_data, d_partials, d_hist);

  std::vector<unsigned> want(H256_BINS, 0);
  for (unsigned w : words)
    for (int b = 0; b < 4; ++b) ++want[(w >> (8 * b)) & 0xffu];
  return program::report("histogram256", program::compare_exact(got, want, "bin"));
}
