// sto as a CUDA program: the host steps of workloads/sto/sto.cpp (a seeded
// buffer, one sha1_overlap launch, every window's first digest word checked
// against a CPU SHA-1).
#include "tests/cuda/workloads/program_support.h"
#include "workloads/sto/sha1_reference.h"
#include "workloads/sto/sto.cu"

int main(int argc, char** argv) {
  const program::Options opt = program::parse_options(argc, argv);
  if (!sha1_reference::abc_vector_holds()) return program::report("sto", {false, "CPU SHA-1 fails the FIPS \"abc\" example"});
  const unsigned block = 128;
  const unsigned grid = opt.size == program::Size::Small ? 4 : 384;
  const int chunk = 52, offset = 4;
  const int windows = int(grid * block);
  const size_t buffer_words = size_t(windows) * offset / 4 + 16;

  program::InputRng rng(opt.seed);
  std::vector<uint32_t> buffer(buffer_words);
  for (auto& w : buffer) w = uint32_t(rng.next() >> 32);

  unsigned* d_in = program::upload(buffer);
  unsigned* d_out = program::device_alloc<unsigned>(size_t(windows));
  sha1_overlap<<<grid, block>>>(d_in, chunk, offset, windows, d_out);
  CUDA_CHECK_LAUNCH();
  const std::vector<unsigned> got = program::download(d_out, size_t(windows));

  const auto* bytes = reinterpret_cast<const uint8_t*>(buffer.data());
  std::vector<unsigned> want(static_cast<size_t>(windows));
  for (int t = 0; t < windows; ++t) want[size_t(t)] = sha1_reference::digest(bytes + size_t(t) * offset, size_t(chunk))[0];
  return program::report("sto", program::compare_exact(got, want, "digest word"));
}
