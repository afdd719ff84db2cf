// global_increment as a CUDA program: the host steps of
// workloads/global_increment/global_increment.cpp. The module holds two
// variants of the kernel; GLOBAL_INCREMENT_KERNEL picks the one this program
// launches (global_increment_ipdom.cu defines it). No inputs: --seed is
// accepted and ignored, as by the workload.
#include "tests/cuda/workloads/program_support.h"
#include "workloads/global_increment/global_increment.cu"

#ifndef GLOBAL_INCREMENT_KERNEL
#define GLOBAL_INCREMENT_KERNEL global_increment
#define GLOBAL_INCREMENT_NAME "global_increment"
#endif

int main(int argc, char** argv) {
  const program::Options opt = program::parse_options(argc, argv);
  const bool small = opt.size == program::Size::Small, paper = opt.size == program::Size::Paper;
  const unsigned block = small ? 128 : 256;
  const unsigned grid = small ? 8 : paper ? 90 : 120;
  const int lanes_per_counter = small ? 4 : paper ? 32 : 8;
  const int warps_per_counter = small ? 4 : paper ? 2 : 8;
  const int iters = small ? 2 : paper ? 1 : 4;

  const int threads = int(grid * block);
  const int warps = threads / 32;
  const int slots_per_warp = 32 / lanes_per_counter;
  const int warp_groups = warps / warps_per_counter;
  const int counters = slots_per_warp * warp_groups;

  // Locks and counters start at zero: like the workload (whose device
  // allocations are zeroed), the program relies on cudaMalloc's fresh,
  // zeroed memory rather than a cudaMemset the workload does not make.
  int* d_locks = program::device_alloc<int>(static_cast<size_t>(counters));
  int* d_counters = program::device_alloc<int>(static_cast<size_t>(counters));
  GLOBAL_INCREMENT_KERNEL<<<grid, block>>>(d_locks, d_counters, slots_per_warp, warp_groups, iters);
  CUDA_CHECK_LAUNCH();
  const std::vector<int> got = program::download(d_counters, size_t(counters));
  const std::vector<int> locks = program::download(d_locks, size_t(counters));

  // Each counter ends at (threads mapped to it) x iters; every lock is free.
  std::vector<int> want(size_t(counters), 0);
  for (int tid = 0; tid < threads; ++tid)
    want[size_t((tid / 32 % warp_groups) * slots_per_warp + (tid % 32) % slots_per_warp)] += iters;
  program::Result r = program::compare_exact(locks, std::vector<int>(size_t(counters), 0), "lock");
  if (r.verified) r = program::compare_exact(got, want, "counter");
  return program::report(GLOBAL_INCREMENT_NAME, r);
}
