// imbalanced_blocks as a CUDA program: the host steps of
// workloads/imbalanced_blocks/imbalanced_blocks.cpp (seeded round counts per
// CTA, checked exactly against a CPU replay of the rounds).
#include "tests/cuda/workloads/program_support.h"
#include "workloads/imbalanced_blocks/imbalanced_blocks.cu"

int main(int argc, char** argv) {
  const program::Options opt = program::parse_options(argc, argv);
  const bool small = opt.size == program::Size::Small;
  const uint32_t ctas = small ? 12 : 960;
  const uint32_t block = small ? 128 : 256;  // at most IB_MAX_BLOCK
  const uint32_t input_len = small ? 4093 : 65521;

  // Mostly light CTAs, a few ~10x heavier, one of them among the last CTAs.
  program::InputRng rng(opt.seed);
  std::vector<int32_t> trips(ctas);
  auto heavy = [&] { return int32_t(80 + rng.below(81)); };
  for (auto& t : trips) t = rng.below(16) == 0 ? heavy() : int32_t(8 + rng.below(9));
  trips[ctas - 1 - rng.below(ctas / 8)] = heavy();
  trips[rng.below(ctas / 2)] = heavy();
  std::vector<uint32_t> input(input_len);
  for (auto& v : input) v = uint32_t(rng.next());

  int* d_trips = program::upload(trips);
  unsigned* d_input = program::upload(input);
  const uint32_t threads = ctas * block;
  unsigned* d_out = program::device_alloc<unsigned>(threads);
  imbalanced_blocks<<<ctas, block>>>(d_trips, d_input, d_out, input_len);
  CUDA_CHECK_LAUNCH();
  const std::vector<unsigned> got = program::download(d_out, threads);

  // Replay CTA by CTA, one barrier phase at a time for all its threads.
  std::vector<unsigned> want(threads);
  std::vector<uint32_t> x(block), buf(block);
  for (uint32_t b = 0; b < ctas; ++b) {
    for (uint32_t t = 0; t < block; ++t) x[t] = (b * block + t) * 2654435761u + 12345u;
    for (int32_t r = 0; r < trips[b]; ++r) {
      for (uint32_t t = 0; t < block; ++t) {
        const uint32_t gid = b * block + t;
        uint32_t v = x[t] + input[(gid * 7u + uint32_t(r) * 131u) % input_len];
        const uint32_t steps = 1u + 6u * ((t / 32) & 3u);
        for (uint32_t j = 0; j < steps; ++j) v = ((v ^ (v >> 13)) * 0x5bd1e995u) + j;
        x[t] = buf[t] = v;
      }
      for (uint32_t t = 0; t < block; ++t) x[t] ^= buf[(t + uint32_t(r) + 1u) % block] >> 3;
    }
    for (uint32_t t = 0; t < block; ++t) want[b * block + t] = x[t];
  }
  program::free_all(d_trips, d_input, d_out);
  return program::report("imbalanced_blocks", program::compare_exact(got, want, "out"));
}
