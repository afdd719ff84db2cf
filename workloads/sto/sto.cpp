// sto host side: a seeded buffer, one sha1_overlap launch (a thread per
// 52-byte window, windows 4 bytes apart), the first digest word of every
// window checked exactly against a CPU SHA-1 (itself checked on the FIPS
// "abc" example first).
#include <memory>
#include <vector>

#include "workloads/common/workload_support.h"
#include "workloads/ptxas_registers.h"
#include "workloads/sto/sha1_reference.h"

namespace tlmgpu::workloads {
namespace {

class Sto : public Workload {
 public:
  WorkloadResult run(platform::GpuDevice& device, Size size, uint64_t seed) override {
    if (!sha1_reference::abc_vector_holds()) return {false, "CPU SHA-1 fails the FIPS \"abc\" example"};
    // 52-byte windows every 4 bytes (StoreGPU's chunkSize 52, offset 4), a
    // thread per window, CTAs of 128 threads. Small: 4 CTAs (2 KB of window
    // starts). Default and Paper: 49,152 windows over 192 KB, 384 CTAs: seed
    // 000 Table II (sha1_overlap, 384 thread blocks), seed 004 Table 2
    // (192 KB). The buffer has 64 bytes more than the window starts span:
    // every thread reads a whole 64-byte block.
    const uint32_t block = 128;
    const uint32_t grid = size == Size::Small ? 4 : 384;
    const int chunk = 52, offset = 4;
    const int windows = int(grid * block);
    const size_t buffer_words = size_t(windows) * offset / 4 + 16;

    InputRng rng(seed);
    std::vector<uint32_t> buffer(buffer_words);
    for (auto& w : buffer) w = uint32_t(rng.next() >> 32);

    auto module = load_workload_module(device, "sto");
    uint64_t d_in = device.upload(buffer, "buffer");
    uint64_t d_out = device.allocate(size_t(windows) * sizeof(uint32_t), "digests");
    device.launch(module, "sha1_overlap", {grid, 1, 1}, {block, 1, 1}, 0,
                  platform::KernelArgs().ptr(d_in).add<int32_t>(chunk).add<int32_t>(offset).add<int32_t>(windows).ptr(d_out));
    std::vector<uint32_t> got = device.download<uint32_t>(d_out, size_t(windows));

    // Little-endian words: the buffer's bytes in memory order.
    const auto* bytes = reinterpret_cast<const uint8_t*>(buffer.data());
    std::vector<uint32_t> want(static_cast<size_t>(windows));
    for (int t = 0; t < windows; ++t) want[size_t(t)] = sha1_reference::digest(bytes + size_t(t) * offset, size_t(chunk))[0];
    return compare_exact(got, want, "digest word");
  }
};

const bool registered = register_workload(
    {"sto", "SHA-1 of overlapping 52-byte windows, message schedule in shared memory (ISPASS STO)",
     /*ipdom_safe=*/true, [] { return std::make_unique<Sto>(); }});

}  // namespace
}  // namespace tlmgpu::workloads
