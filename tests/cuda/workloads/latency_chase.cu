// latency_chase as a CUDA program: the host steps of
// workloads/latency_chase/latency_chase.cpp (one-thread pointer chases
// through chains laid out for L1 hits, L2 hits and DRAM accesses, then a
// shared-memory chase; each chain's end node is checked, and the cycles per
// load are printed). The chains are fixed patterns: --seed is ignored, as by
// the workload.
#include <algorithm>

#include "tests/cuda/workloads/program_support.h"
#include "workloads/latency_chase/latency_chase.cu"

namespace {

struct GlobalChase {
  const char* level;
  uint64_t footprint;  // bytes allocated (and copied) for the chain
  uint64_t stride;     // bytes between consecutive nodes
  bool warm;           // one untimed pass over every node first
};

// The workload's footprints (see its comments for why each level serves them).
constexpr GlobalChase kL1{"L1", 4 << 10, 128, true};
constexpr GlobalChase kL2{"L2", 128 << 10, 128, true};
constexpr GlobalChase kDram{"DRAM", 8 << 20, (32 << 10) + 384, false};
constexpr unsigned kSharedNodes = 64;

// Cycles per load, or a negative value after writing the wrong end to `error`.
double chase_global_level(const GlobalChase& c, unsigned steps, std::string& error) {
  const uint64_t nodes = c.footprint / c.stride;
  unsigned long long* d_base = program::device_alloc<unsigned long long>(c.footprint / sizeof(uint64_t));
  const uint64_t base = reinterpret_cast<uintptr_t>(d_base);
  std::vector<uint64_t> image(c.footprint / sizeof(uint64_t), 0);
  for (uint64_t i = 0; i < nodes; ++i) image[i * c.stride / sizeof(uint64_t)] = base + ((i + 1) % nodes) * c.stride;
  CUDA_CHECK(cudaMemcpy(d_base, image.data(), c.footprint, cudaMemcpyHostToDevice));
  unsigned long long* d_out = program::device_alloc<unsigned long long>(2);
  const unsigned warmup = c.warm ? unsigned(nodes) : 0;
  chase_global<<<1, 1>>>(d_base, warmup, steps, d_out);
  CUDA_CHECK_LAUNCH();
  const std::vector<unsigned long long> got = program::download(d_out, 2);
  const uint64_t end = base + ((warmup + steps) % nodes) * c.stride;
  if (got[1] != end) {
    error = std::string(c.level) + " chain ended at " + std::to_string(got[1]) + ", expected " + std::to_string(end);
    return -1;
  }
  // The clock read after the loop does not wait for the last load.
  return double(got[0]) / double(steps - 1);
}

}  // namespace

int main(int argc, char** argv) {
  const program::Options opt = program::parse_options(argc, argv);
  const unsigned steps = std::max(opt.size == program::Size::Small ? 129u : 1025u, 2u);

  std::string error;
  const double l1 = chase_global_level(kL1, steps, error);
  const double l2 = error.empty() ? chase_global_level(kL2, steps, error) : 0;
  // At most 200 timed DRAM loads: each must touch a line for the first time.
  const double dram = error.empty() ? chase_global_level(kDram, std::min(steps, 200u), error) : 0;
  if (!error.empty()) return program::report("latency_chase", {false, error});

  // Shared: the kernel links its nodes itself.
  unsigned long long* d_out = program::device_alloc<unsigned long long>(2);
  chase_shared<<<1, 1, kSharedNodes * sizeof(unsigned long long)>>>(kSharedNodes, steps, d_out);
  CUDA_CHECK_LAUNCH();
  const std::vector<unsigned long long> got = program::download(d_out, 2);
  if (got[1] != steps % kSharedNodes)
    return program::report("latency_chase", {false, "shared chain ended at node " + std::to_string(got[1]) +
                                                        ", expected " + std::to_string(steps % kSharedNodes)});
  const double shared = double(got[0]) / double(steps - 1);

  char text[160];
  std::snprintf(text, sizeof text, "load-to-use cycles: L1 hit %.1f, L2 hit %.1f, DRAM %.1f, shared %.1f", l1, l2,
                dram, shared);
  return program::report("latency_chase", {true, text});
}
