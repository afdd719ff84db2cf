// histogram64 as a CUDA program: the host steps of
// workloads/histogram64/histogram64.cpp (the SDK's 64-bin histogram:
// per-thread 8-bit counters, then a merge kernel per bin).
#include "tests/cuda/workloads/program_support.h"
#include "workloads/histogram64/histogram64.cu"

int main(int argc, char** argv) {
  const program::Options opt = program::parse_options(argc, argv);
  const uint64_t bytes = opt.size == program::Size::Small ? 46000 : opt.size == program::Size::Default ? 8ull << 20 : 64ull << 20;
  const uint64_t per_cta = H64_THREADS * 240ull;
  const unsigned grid = unsigned((bytes + per_cta - 1) / per_cta);

  program::InputRng rng(opt.seed);
  std::vector<uint8_t> data(bytes);
  for (uint64_t i = 0; i < bytes; i += 8) {
    uint64_t r = rng.next();
    for (uint64_t b = 0; b < 8 && i + b < bytes; ++b, r >>= 8) data[i + b] = uint8_t(r);
  }

  uint8_t* d_data = program::upload(data);
  unsigned* d_partials = program::device_alloc<unsigned>(size_t(grid) * H64_BINS);
  unsigned* d_hist = program::device_alloc<unsigned>(H64_BINS);
  histogram64Kernel<<<grid, H64_THREADS>>>(d_partials, reinterpret_cast<const uint4*>(d_data), unsigned(bytes / 16));
  CUDA_CHECK_LAUNCH();
  mergeHistogram64Kernel<<<H64_BINS, MERGE_THREADS>>>(d_hist, d_partials, grid);
  CUDA_CHECK_LAUNCH();
  const std::vector<unsigned> got = program::download(d_hist, H64_BINS);
  program::free_all(d_data, d_partials, d_hist);

  std::vector<unsigned> want(H64_BINS, 0);
  for (uint8_t b : data) ++want[b >> 2];
  return program::report("histogram64", program::compare_exact(got, want, "bin"));
}
