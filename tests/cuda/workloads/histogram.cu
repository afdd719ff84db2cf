// histogram as a CUDA program: the host steps of
// workloads/histogram/histogram.cpp (per-CTA shared-memory histograms, a
// merge kernel, bins checked exactly).
#include "tests/cuda/workloads/program_support.h"
#include "workloads/histogram/histogram.cu"

int main(int argc, char** argv) {
  const program::Options opt = program::parse_options(argc, argv);
  const bool small = opt.size == program::Size::Small;
  const unsigned block = small ? 192 : 256;
  const unsigned grid = small ? 8 : 120;
  const int num_words = small ? 16384 + 37 : 8 << 20;

  // Half the bytes from 8 hot values, so lanes often hit the same bin.
  program::InputRng rng(opt.seed);
  uint8_t hot[8];
  for (auto& h : hot) h = uint8_t(rng.below(BINS));
  std::vector<uint32_t> words(static_cast<size_t>(num_words));
  for (auto& w : words) {
    uint32_t v = 0;
    for (int byte = 0; byte < 4; ++byte) {
      const uint32_t r = uint32_t(rng.next() >> 32);
      const uint32_t value = (r & 1) ? hot[(r >> 1) & 7] : (r >> 8) & 0xff;
      v |= value << (8 * byte);
    }
    w = v;
  }

  unsigned* d_words = program::upload(words);
  unsigned* d_partials = program::device_alloc<unsigned>(size_t(grid) * BINS);
  unsigned* d_hist = program::device_alloc<unsigned>(BINS);
  histogram_partial<<<grid, block>>>(d_words, num_words, d_partials);
  CUDA_CHECK_LAUNCH();
  histogram_merge<<<2, 128>>>(d_partials, int(grid), d_hist);
  CUDA_CHECK_LAUNCH();
  const std::vector<unsigned> got = program::download(d_hist, BINS);

  std::vector<unsigned> want(BINS, 0);
  for (uint32_t w : words)
    for (int byte = 0; byte < 4; ++byte) ++want[(w >> (8 * byte)) & 0xff];
  return program::report("histogram", program::compare_exact(got, want, "bin"));
}
