// psort: the Vortex project's parallel rank sort (seed 003, Table I) in one
// CTA: every key is compared with every other to find its position, then
// written there. Keys with many ties (the rank breaks them by index, so the
// sort is stable); checked exactly against std::stable_sort.
//
// Sizes (keys; CTA; threads per key):
//   Small:   64 keys; 1 CTA of 256 threads (8 warps); 4 threads per key.
//   Default: 1024 keys; 1 CTA of 1024 threads; 1 thread per key, each
//            scanning all the keys (Vortex's kernel as it is).
//   Paper:   256 keys; 1 CTA of 1024 threads = 32 warps of 32 threads
//            (seed 003 section VI-A: "each kernel is executed by 32 warps of
//            32 threads", on one SM); 4 threads per key, each scanning a
//            quarter of the keys. 256 keys (Vortex's psort launch uses
//            work groups of 256): 256^2 comparisons, which at ~7.5 RISC-V
//            instructions each are the 492,237 instructions of seed 003
//            Table I; ours are 701,440 thread instructions (~10 PTX
//            instructions per comparison). One thread per key would leave 24
//            of the 32 warps idle, and 1024 keys would take 16x as many.
#include <algorithm>
#include <cstdint>
#include <memory>
#include <vector>

#include "workloads/common/workload_support.h"
#include "workloads/ptxas_registers.h"

namespace tlmgpu::workloads {
namespace {

class Psort : public Workload {
 public:
  WorkloadResult run(platform::GpuDevice& device, Size size, uint64_t seed) override {
    const int n = size == Size::Small ? 64 : size == Size::Default ? 1024 : 256;
    const uint32_t threads = size == Size::Small ? 256 : 1024;

    InputRng rng(seed);
    std::vector<int32_t> keys(static_cast<size_t>(n));
    for (int32_t& k : keys) k = int32_t(rng.below(uint32_t(n / 2))) - n / 4;

    auto module = load_workload_module(device, "psort");
    uint64_t d_in = device.upload(keys, "keys");
    uint64_t d_out = device.allocate(uint64_t(n) * sizeof(int32_t), "sorted");
    device.launch(module, "psort", {1, 1, 1}, {threads, 1, 1}, 0,
                  platform::KernelArgs().ptr(d_in).ptr(d_out).add<int32_t>(n));
    std::vector<int32_t> got = device.download<int32_t>(d_out, size_t(n));

    std::vector<int32_t> want = keys;
    std::stable_sort(want.begin(), want.end());
    return compare_exact(got, want, "sorted");
  }
};

const bool registered = register_workload(
    {"psort", "Vortex psort: rank sort in one CTA, every key compared with every other", /*ipdom_safe=*/true,
     [] { return std::make_unique<Psort>(); }});

}  // namespace
}  // namespace tlmgpu::workloads
