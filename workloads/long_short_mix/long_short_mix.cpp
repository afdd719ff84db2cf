// Long/short mix host side: a seeded table for the memory-bound warps' loads,
// iteration counts chosen so both kinds of warp run a similar number of
// instructions, checked exactly against the same integer math on the CPU.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "workloads/common/workload_support.h"
#include "workloads/ptxas_registers.h"

namespace tlmgpu::workloads {
namespace {

class LongShortMix : public Workload {
 public:
  WorkloadResult run(platform::GpuDevice& device, Size size, uint64_t seed) override {
    const bool small = size == Size::Small;
    const uint32_t ctas = small ? 16 : 480;
    const uint32_t block = small ? 128 : 256;
    // The default table (4 MB) is larger than the caches: the gathers miss.
    const uint32_t table_len = small ? (1u << 14) : (1u << 20);
    const int32_t mem_iters = small ? 24 : 96;
    // ~25 instructions per memory iteration against ~5 per ALU iteration.
    const int32_t alu_iters = 5 * mem_iters;

    InputRng rng(seed);
    std::vector<uint32_t> table(table_len);
    for (auto& v : table) v = uint32_t(rng.next());

    auto module = load_workload_module(device, "long_short_mix");
    uint64_t d_table = device.upload(table, "table");
    const uint32_t threads = ctas * block;
    uint64_t d_out = device.allocate(uint64_t(threads) * sizeof(uint32_t), "out");
    device.launch(module, "long_short_mix", {ctas, 1, 1}, {block, 1, 1}, 0,
                  platform::KernelArgs()
                      .ptr(d_table)
                      .add<uint32_t>(table_len - 1)
                      .ptr(d_out)
                      .add<int32_t>(mem_iters)
                      .add<int32_t>(alu_iters));
    auto got = device.download<uint32_t>(d_out, threads);

    const uint32_t mask = table_len - 1;
    std::vector<uint32_t> want(threads);
    for (uint32_t gid = 0; gid < threads; ++gid) {
      uint32_t acc = gid * 0x9e3779b9u;
      if (((gid / 32) & 1u) == 0) {
        for (uint32_t i = 0; i < uint32_t(mem_iters); ++i) {
          uint32_t h = (gid ^ (i << 16)) * 0x85ebca6bu;
          uint32_t a = table[(gid * 17u + i * 4099u) & mask];
          uint32_t b = table[(gid * 33u + i * 8209u + 5u) & mask];
          uint32_t c = table[(h ^ (h >> 13)) & mask];
          uint32_t d = table[(h * 0xc2b2ae35u >> 7) & mask];
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
    device.free(d_table);
    device.free(d_out);
    return compare_exact(got, want, "out");
  }
};

const bool registered = register_workload(
    {"long_short_mix", "even warps gather from global memory, odd warps run long ALU chains (LFWS)",
     /*ipdom_safe=*/true, [] { return std::make_unique<LongShortMix>(); }});

}  // namespace
}  // namespace tlmgpu::workloads
