// long_short_mix as a CUDA program: the host steps of
// workloads/long_short_mix/long_short_mix.cpp (memory-bound even warps,
// ALU-bound odd warps, checked exactly against the same integer math).
#include "tests/cuda/workloads/program_support.h"
#include "workloads/long_short_mix/long_short_mix.cu"

int main(int argc, char** argv) {
  const program::Options opt = program::parse_options(argc, argv);
  const bool small = opt.size == program::Size::Small;
  const uint32_t ctas = small ? 16 : 480;
  const uint32_t block = small ? 128 : 256;
  const uint32_t table_len = small ? (1u << 14) : (1u << 20);  // default: larger than the caches
  const int32_t mem_iters = small ? 24 : 96;
  const int32_t alu_iters = 5 * mem_iters;  // a similar instruction count for both kinds of warp

  program::InputRng rng(opt.seed);
  std::vector<uint32_t> table(table_len);
  for (auto& v : table) v = uint32_t(rng.next());

  unsigned* d_table = program::upload(table);
  const uint32_t threads = ctas * block;
  unsigned* d_out = program::device_alloc<unsigned>(threads);
  long_short_mix<<<ctas, block>>>(d_table, table_len - 1, d_out, mem_iters, alu_iters);
  CUDA_CHECK_LAUNCH();
  const std::vector<unsigned> got = program::download(d_out, threads);

  const uint32_t mask = table_len - 1;
  std::vector<unsigned> want(threads);
  for (uint32_t gid = 0; gid < threads; ++gid) {
    uint32_t acc = gid * 0x9e3779b9u;
    if (((gid / 32) & 1u) == 0) {
      for (uint32_t i = 0; i < uint32_t(mem_iters); ++i) {
        const uint32_t h = (gid ^ (i << 16)) * 0x85ebca6bu;
        const uint32_t a = table[(gid * 17u + i * 4099u) & mask];
        const uint32_t b = table[(gid * 33u + i * 8209u + 5u) & mask];
        const uint32_t c = table[(h ^ (h >> 13)) & mask];
        const uint32_t d = table[(h * 0xc2b2ae35u >> 7) & mask];
        acc += (a ^ b) + (c ^ (d >> 1));
      }
    } else {
      for (uint32_t i = 0; i < uint32_t(alu_iters); ++i) {
        acc ^= acc >> 15;
        acc *= 0x2c1b3c6du;
        acc += i;
      }
    }
    want[gid] = acc;
  }
  program::free_all(d_table, d_out);
  return program::report("long_short_mix", program::compare_exact(got, want, "out"));
}
