// asian_option as a CUDA program: the host steps of
// workloads/asian_option/asian_option.cpp (XORWOW jump-ahead init, stored
// paths, per-CTA payoff sums checked against the host's paths).
#include <cstdio>

#include "tests/cuda/workloads/program_support.h"
#include "workloads/asian_option/asian_option.cu"

int main(int argc, char** argv) {
  const program::Options opt = program::parse_options(argc, argv);
  const bool small = opt.size == program::Size::Small, paper = opt.size == program::Size::Paper;
  const unsigned block = small ? 64 : 128;
  const unsigned num_sims = small ? 1000 : paper ? 100000 : 20000;
  unsigned grid = small ? 4 : 60;
  if (paper) {
    grid = (num_sims + block - 1) / block;
    while (grid > 2 * 10 * 15) grid >>= 1;
  }
  const unsigned threads = grid * block;
  const saop::Option option = saop::default_option();
  const unsigned steps = saop::timesteps(option);

  program::InputRng rng(opt.seed);
  const unsigned rng_seed = unsigned(rng.next() >> 32);
  const std::vector<unsigned> jump = xorwow::jump_matrices(xorwow::jump_matrix_count(threads));

  saop::Option* d_option = program::upload(std::vector<saop::Option>{option});
  float* d_paths = program::device_alloc<float>(size_t(num_sims) * steps);
  unsigned* d_jump = program::upload(jump);
  unsigned* d_states = program::device_alloc<unsigned>(size_t(threads) * xorwow::kStateWords);
  float* d_values = program::device_alloc<float>(grid);
  saop_initRNG<<<grid, block>>>(d_states, d_jump, rng_seed);
  CUDA_CHECK_LAUNCH();
  saop_generatePaths<<<grid, block>>>(d_paths, d_states, d_option, num_sims, steps);
  CUDA_CHECK_LAUNCH();
  saop_computeValue<<<grid, block, block * sizeof(float)>>>(d_values, d_paths, d_option, num_sims, steps);
  CUDA_CHECK_LAUNCH();
  const std::vector<float> got = program::download(d_values, grid);
  program::free_all(d_option, d_paths, d_jump, d_states, d_values);

  const std::vector<float> want = saop::reference_sums(rng_seed, grid, block, num_sims, option, jump);
  program::Result r = program::compare_close(got, want, 1e-4, "cta_payoff_sum", 1e-3);
  if (r.verified) {
    double sum = 0.0;
    for (float v : got) sum += v;
    char buf[64];
    std::snprintf(buf, sizeof buf, ", price %.4f", sum / num_sims * std::exp(-double(option.r) * double(option.tenor)));
    r.detail += buf;
  }
  return program::report("asian_option", r);
}
