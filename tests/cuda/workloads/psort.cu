// psort as a CUDA program: the host steps of workloads/psort/psort.cpp (a
// rank sort in one CTA, checked exactly against std::stable_sort).
#include <algorithm>

#include "tests/cuda/workloads/program_support.h"
#include "workloads/psort/psort.cu"

int main(int argc, char** argv) {
  const program::Options opt = program::parse_options(argc, argv);
  const int n = opt.size == program::Size::Small ? 64 : opt.size == program::Size::Default ? 1024 : 256;
  const unsigned threads = opt.size == program::Size::Small ? 256 : 1024;

  program::InputRng rng(opt.seed);
  std::vector<int32_t> keys(static_cast<size_t>(n));
  for (int32_t& k : keys) k = int32_t(rng.below(uint32_t(n / 2))) - n / 4;

  int* d_in = program::upload(keys);
  int* d_out = program::device_alloc<int>(size_t(n));
  psort<<<1, threads>>>(d_in, d_out, n);
  CUDA_CHECK_LAUNCH();
  const std::vector<int32_t> got = program::download(d_out, size_t(n));

  std::vector<int32_t> want = keys;
  std::stable_sort(want.begin(), want.end());
  return program::report("psort", program::compare_exact(got, want, "sorted"));
}
