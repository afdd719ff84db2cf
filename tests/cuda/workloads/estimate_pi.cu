// estimate_pi as a CUDA program: the host steps of
// workloads/estimate_pi/estimate_pi.cpp (XORWOW jump-ahead init, per-CTA
// quarter-circle hit counts, checked exactly against the host's streams).
#include <cstdio>

#include "tests/cuda/workloads/program_support.h"
#include "workloads/estimate_pi/estimate_pi.cu"
#include "workloads/estimate_pi/estimate_pi_host.h"

int main(int argc, char** argv) {
  const program::Options opt = program::parse_options(argc, argv);
  const bool small = opt.size == program::Size::Small, paper = opt.size == program::Size::Paper;
  const unsigned block = small ? 64 : 128;
  const unsigned num_sims = small ? 1000 : paper ? 100000 : 50000;
  unsigned grid = small ? 4 : 60;
  if (paper) {
    grid = (num_sims + block - 1) / block;
    while (grid > 2 * 10 * 15) grid >>= 1;
  }
  const unsigned threads = grid * block;

  program::InputRng rng(opt.seed);
  const unsigned rng_seed = unsigned(rng.next() >> 32);
  const std::vector<unsigned> jump = xorwow::jump_matrices(xorwow::jump_matrix_count(threads));

  unsigned* d_jump = program::upload(jump);
  unsigned* d_states = program::device_alloc<unsigned>(size_t(threads) * 6);
  unsigned* d_results = program::device_alloc<unsigned>(grid);
  epp_initRNG<<<grid, block>>>(d_states, d_jump, rng_seed);
  CUDA_CHECK_LAUNCH();
  epp_computeValue<<<grid, block, block * sizeof(unsigned)>>>(d_results, d_states, num_sims);
  CUDA_CHECK_LAUNCH();
  const std::vector<unsigned> got = program::download(d_results, grid);
  program::free_all(d_jump, d_states, d_results);

  const std::vector<unsigned> want = epp::reference_counts(rng_seed, grid, block, num_sims, jump);
  program::Result r = program::compare_exact(got, want, "cta_hits");
  if (r.verified) {
    unsigned long long inside = 0;
    for (unsigned c : got) inside += c;
    char buf[64];
    std::snprintf(buf, sizeof buf, ", pi ~ %.5f", 4.0 * double(inside) / double(num_sims));
    r.detail += buf;
  }
  return program::report("estimate_pi", r);
}
