// Global Increment (seed 001): per-counter spin locks with intra- and
// inter-warp contention. Two registered names share this module:
//   global_increment        the paper's kernel shape (Listing 1)
//   global_increment_ipdom  the same loop with its test pinned so that no
//                           compiler can turn it into a CAS self-loop
// The module also exports spin_self_loop, the classic livelock under IPDOM,
// for the test suite.
#include <memory>
#include <string>
#include <vector>

#include "workloads/common/workload_support.h"
#include "workloads/ptxas_registers.h"

namespace tlmgpu::workloads {
namespace {

class GlobalIncrement : public Workload {
 public:
  explicit GlobalIncrement(std::string kernel) : kernel_(std::move(kernel)) {}

  WorkloadResult run(platform::GpuDevice& device, Size size, uint64_t /*seed*/) override {
    // Small: 8 CTAs x 128 threads (32 warps); 4 lanes of a warp share each
    // counter and 4 warps (in different CTAs) share each set of counters ->
    // 64 counters of 16 threads each. Default: 120 CTAs x 256 threads (960
    // warps); 8 lanes and 8 warps per counter -> 480 counters of 64 threads.
    // Paper (seed 001 sec. 4): every warp slot of the GTX480 filled, 48 warps
    // per SM on 15 SMs = 90 CTAs x 256 threads (23040, the paper's "23k
    // threads (fully activate GTX480)"); all 32 lanes of a warp take one lock
    // ("taking the lock 32 times for a warp") and two warps share it (the
    // paper's contention between the two schedulers' warps); one increment
    // per thread (Listing 1) -> 360 counters of 64 threads. The paper's
    // Figure 3 mapping itself is not in the text.
    const bool small = size == Size::Small, paper = size == Size::Paper;
    const uint32_t block = small ? 128 : 256;
    const uint32_t grid = small ? 8 : paper ? 90 : 120;
    const int lanes_per_counter = small ? 4 : paper ? 32 : 8;
    const int warps_per_counter = small ? 4 : paper ? 2 : 8;
    const int iters = small ? 2 : paper ? 1 : 4;

    const int threads = int(grid * block);
    const int warps = threads / 32;
    const int slots_per_warp = 32 / lanes_per_counter;
    const int warp_groups = warps / warps_per_counter;
    const int counters = slots_per_warp * warp_groups;

    auto module = load_workload_module(device, "global_increment");
    uint64_t d_locks = device.allocate(uint64_t(counters) * sizeof(int32_t), "locks");
    uint64_t d_counters = device.allocate(uint64_t(counters) * sizeof(int32_t), "counters");
    device.launch(module, kernel_, {grid, 1, 1}, {block, 1, 1}, 0,
                  platform::KernelArgs()
                      .ptr(d_locks)
                      .ptr(d_counters)
                      .add<int32_t>(slots_per_warp)
                      .add<int32_t>(warp_groups)
                      .add<int32_t>(iters));
    std::vector<int32_t> got = device.download<int32_t>(d_counters, counters);
    std::vector<int32_t> locks = device.download<int32_t>(d_locks, counters);

    // Each counter ends at (threads mapped to it) x iters; every lock is free.
    std::vector<int32_t> want(counters, 0);
    for (int tid = 0; tid < threads; ++tid)
      want[(tid / 32 % warp_groups) * slots_per_warp + (tid % 32) % slots_per_warp] += iters;
    WorkloadResult r = compare_exact(locks, std::vector<int32_t>(counters, 0), "lock");
    if (!r.verified) return r;
    return compare_exact(got, want, "counter");
  }

 private:
  std::string kernel_;
};

const bool registered =
    register_workload({"global_increment",
                       "seed 001 Listing 1: per-counter spin locks, contention within and across warps",
                       /*ipdom_safe=*/true, [] { return std::make_unique<GlobalIncrement>("global_increment"); }}) &&
    register_workload({"global_increment_ipdom",
                       "global_increment with the loop test pinned to the IPDOM-safe shape",
                       /*ipdom_safe=*/true,
                       [] { return std::make_unique<GlobalIncrement>("global_increment_ipdom"); }});

}  // namespace
}  // namespace tlmgpu::workloads
