// aes as a CUDA program: the host steps of workloads/aes/aes.cpp (a seeded
// key and buffer, T-tables and round keys by cudaMemcpyToSymbol, one
// aesEncrypt128 launch, the ciphertext checked against a CPU AES-128).
#include <cstring>

#include "tests/cuda/workloads/program_support.h"
#include "workloads/aes/aes.cu"
#include "workloads/aes/aes_reference.h"

int main(int argc, char** argv) {
  const program::Options opt = program::parse_options(argc, argv);
  if (!aes_reference::fips197_vector_holds())
    return program::report("aes", {false, "CPU AES-128 fails the FIPS-197 C.1 vector"});
  const unsigned grid = opt.size == program::Size::Small ? 4 : 257;
  const size_t words = size_t(grid) * 256;

  program::InputRng rng(opt.seed);
  uint8_t key[16];
  for (auto& k : key) k = uint8_t(rng.below(256));
  std::vector<uint32_t> plain(words);
  for (auto& w : plain) w = uint32_t(rng.next() >> 32);

  const auto sbox = aes_reference::make_sbox();
  const auto rk = aes_reference::expand_key(key, sbox);
  const auto te = aes_reference::t_tables(sbox);
  const auto rk_words = aes_reference::round_key_words(rk);

  CUDA_CHECK(cudaMemcpyToSymbol(aes_te, te.data(), sizeof(te)));
  CUDA_CHECK(cudaMemcpyToSymbol(aes_round_keys, rk_words.data(), sizeof(rk_words)));
  unsigned* d_in = program::upload(plain);
  unsigned* d_out = program::device_alloc<unsigned>(words);
  aesEncrypt128<<<grid, 256>>>(d_out, d_in);
  CUDA_CHECK_LAUNCH();
  const std::vector<unsigned> got = program::download(d_out, words);

  std::vector<unsigned> want(plain.begin(), plain.end());
  for (size_t b = 0; b < words / 4; ++b) {
    uint8_t block[16];
    std::memcpy(block, &want[4 * b], 16);
    aes_reference::encrypt_block(block, rk, sbox);
    std::memcpy(&want[4 * b], block, 16);
  }
  return program::report("aes", program::compare_exact(got, want, "ciphertext word"));
}
