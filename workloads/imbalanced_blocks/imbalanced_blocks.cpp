// Imbalanced CTAs host side: a seeded round count per CTA (mostly light, a
// few ~10x heavier, at least one of them among the last CTAs so the kernel
// has a long tail), checked exactly against a CPU replay of the rounds.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "workloads/common/workload_support.h"
#include "workloads/ptxas_registers.h"

namespace tlmgpu::workloads {
namespace {

class ImbalancedBlocks : public Workload {
 public:
  WorkloadResult run(platform::GpuDevice& device, Size size, uint64_t seed) override {
    const bool small = size == Size::Small;
    const uint32_t ctas = small ? 12 : 960;
    const uint32_t block = small ? 128 : 256;  // the kernel's buffer holds up to 256
    const uint32_t input_len = small ? 4093 : 65521;  // prime: the gather wraps unevenly

    InputRng rng(seed);
    std::vector<int32_t> trips(ctas);
    auto heavy = [&] { return int32_t(80 + rng.below(81)); };
    for (auto& t : trips) t = rng.below(16) == 0 ? heavy() : int32_t(8 + rng.below(9));
    trips[ctas - 1 - rng.below(ctas / 8)] = heavy();
    trips[rng.below(ctas / 2)] = heavy();
    std::vector<uint32_t> input(input_len);
    for (auto& v : input) v = uint32_t(rng.next());

    auto module = load_workload_module(device, "imbalanced_blocks");
    uint64_t d_trips = device.upload(trips, "trips");
    uint64_t d_input = device.upload(input, "input");
    const uint32_t threads = ctas * block;
    uint64_t d_out = device.allocate(uint64_t(threads) * sizeof(uint32_t), "out");
    device.launch(module, "imbalanced_blocks", {ctas, 1, 1}, {block, 1, 1}, 0,
                  platform::KernelArgs().ptr(d_trips).ptr(d_input).ptr(d_out).add<uint32_t>(input_len));
    auto got = device.download<uint32_t>(d_out, threads);

    // Replay CTA by CTA, one barrier phase at a time for all its threads.
    std::vector<uint32_t> want(threads);
    std::vector<uint32_t> x(block), buf(block);
    for (uint32_t b = 0; b < ctas; ++b) {
      for (uint32_t t = 0; t < block; ++t) x[t] = (b * block + t) * 2654435761u + 12345u;
      for (int32_t r = 0; r < trips[b]; ++r) {
        for (uint32_t t = 0; t < block; ++t) {
          uint32_t gid = b * block + t;
          uint32_t v = x[t] + input[(gid * 7u + uint32_t(r) * 131u) % input_len];
          uint32_t steps = 1u + 6u * ((t / 32) & 3u);
          for (uint32_t j = 0; j < steps; ++j) v = ((v ^ (v >> 13)) * 0x5bd1e995u) + j;
          x[t] = buf[t] = v;
        }
        for (uint32_t t = 0; t < block; ++t) x[t] ^= buf[(t + uint32_t(r) + 1u) % block] >> 3;
      }
      for (uint32_t t = 0; t < block; ++t) want[b * block + t] = x[t];
    }
    for (uint64_t d : {d_trips, d_input, d_out}) device.free(d);
    return compare_exact(got, want, "out");
  }
};

const bool registered = register_workload(
    {"imbalanced_blocks", "CTAs with seeded, very different round counts and barriers in the loop (PRO, KAWS)",
     /*ipdom_safe=*/true, [] { return std::make_unique<ImbalancedBlocks>(); }});

}  // namespace
}  // namespace tlmgpu::workloads
