// A cooperative launch: the grid is sized by the occupancy API to be fully
// resident, and grid.sync() separates phases that read what other blocks
// wrote in the phase before (a rotation, then a sum of the whole array).
#include <cooperative_groups.h>

#include <vector>

#include "tests/cuda/runtime/rt_check.h"

namespace cg = cooperative_groups;

__global__ void phases_kernel(const int* in, int* rotated, int* block_sums, long long* total, int n) {
  cg::grid_group grid = cg::this_grid();
  const int stride = gridDim.x * blockDim.x;
  // Phase 1: rotated[i] = in[i + 1] * 2, across block boundaries.
  for (int i = grid.thread_rank(); i < n; i += stride) rotated[i] = in[(i + 1) % n] * 2;
  grid.sync();
  // Phase 2: each block sums a slice of rotated written by other blocks.
  __shared__ int partial;
  if (threadIdx.x == 0) partial = 0;
  __syncthreads();
  for (int i = grid.thread_rank(); i < n; i += stride) atomicAdd(&partial, rotated[(i + n / 2) % n]);
  __syncthreads();
  if (threadIdx.x == 0) block_sums[blockIdx.x] = partial;
  grid.sync();
  // Phase 3: one thread adds the blocks' sums.
  if (grid.thread_rank() == 0) {
    long long s = 0;
    for (int b = 0; b < gridDim.x; ++b) s += block_sums[b];
    *total = s;
  }
}

int main() {
  int device = 0, sms = 0, coop = 0;
  RT_CHECK(cudaGetDevice(&device));
  RT_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  RT_CHECK(cudaDeviceGetAttribute(&coop, cudaDevAttrCooperativeLaunch, device));
  RT_EXPECT(coop == 1);
  const int block = 128;
  int per_sm = 0;
  RT_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, phases_kernel, block, 0));
  RT_EXPECT(per_sm >= 1);
  const int blocks = per_sm * sms;

  const int n = 10000;
  std::vector<int> in(n);
  for (int i = 0; i < n; ++i) in[i] = (i * 31) % 1000;
  int *d_in, *d_rot, *d_sums;
  long long* d_total;
  RT_CHECK(cudaMalloc(&d_in, n * sizeof(int)));
  RT_CHECK(cudaMalloc(&d_rot, n * sizeof(int)));
  RT_CHECK(cudaMalloc(&d_sums, blocks * sizeof(int)));
  RT_CHECK(cudaMalloc(&d_total, sizeof(long long)));
  RT_CHECK(cudaMemcpy(d_in, in.data(), n * sizeof(int), cudaMemcpyHostToDevice));

  int nn = n;
  void* args[] = {&d_in, &d_rot, &d_sums, &d_total, &nn};
  RT_CHECK(cudaLaunchCooperativeKernel(reinterpret_cast<void*>(phases_kernel), dim3(blocks), dim3(block), args, 0,
                                       nullptr));
  RT_CHECK(cudaDeviceSynchronize());

  std::vector<int> rot(n);
  long long total = 0;
  RT_CHECK(cudaMemcpy(rot.data(), d_rot, n * sizeof(int), cudaMemcpyDeviceToHost));
  RT_CHECK(cudaMemcpy(&total, d_total, sizeof total, cudaMemcpyDeviceToHost));
  long long want = 0;
  int wrong = 0;
  for (int i = 0; i < n; ++i) {
    if (rot[i] != in[(i + 1) % n] * 2) ++wrong;
    want += in[i] * 2;
  }
  RT_EXPECT(wrong == 0);
  RT_EXPECT(total == want);

  // A grid larger than can be resident is refused.
  RT_EXPECT_ERROR(cudaLaunchCooperativeKernel(reinterpret_cast<void*>(phases_kernel), dim3(blocks * 2 + 1),
                                              dim3(block), args, 0, nullptr),
                  cudaErrorCooperativeLaunchTooLarge);
  // cudaGetLastError reports that error once: it is not sticky.
  RT_EXPECT_ERROR(cudaGetLastError(), cudaErrorCooperativeLaunchTooLarge);
  RT_CHECK(cudaGetLastError());
  std::printf("cooperative: total=%lld\n", total);
  RT_CHECK(cudaFree(d_in));
  RT_CHECK(cudaFree(d_rot));
  RT_CHECK(cudaFree(d_sums));
  RT_CHECK(cudaFree(d_total));
  return rt_finish("cooperative");
}
