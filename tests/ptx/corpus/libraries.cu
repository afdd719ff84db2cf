// Corpus: kernels built from CUDA's own device libraries (CUB block
// algorithms, cooperative-groups reductions, libcu++ atomics) and half-precision
// atomics.
#include <cub/cub.cuh>
#include <cuda_fp16.h>
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cuda/atomic>
namespace cg = cooperative_groups;
extern "C" __global__ void cub_reduce(const int* in, int* out) {
  using BlockReduce = cub::BlockReduce<int, 128>;
  __shared__ typename BlockReduce::TempStorage tmp;
  int v = in[blockIdx.x * 128 + threadIdx.x];
  int s = BlockReduce(tmp).Sum(v);
  if (threadIdx.x == 0) out[blockIdx.x] = s;
}
extern "C" __global__ void cub_scan(const int* in, int* out) {
  using BlockScan = cub::BlockScan<int, 128>;
  __shared__ typename BlockScan::TempStorage tmp;
  int v = in[blockIdx.x * 128 + threadIdx.x];
  BlockScan(tmp).ExclusiveSum(v, v);
  out[blockIdx.x * 128 + threadIdx.x] = v;
}
extern "C" __global__ void cub_sort(int* keys) {
  using BlockSort = cub::BlockRadixSort<int, 128, 4>;
  __shared__ typename BlockSort::TempStorage tmp;
  int k[4];
  for (int i = 0; i < 4; ++i) k[i] = keys[threadIdx.x * 4 + i];
  BlockSort(tmp).Sort(k);
  for (int i = 0; i < 4; ++i) keys[threadIdx.x * 4 + i] = k[i];
}
extern "C" __global__ void cg_reduce(const float* in, float* out) {
  auto tile = cg::tiled_partition<32>(cg::this_thread_block());
  float v = in[blockIdx.x * blockDim.x + threadIdx.x];
  float s = cg::reduce(tile, v, cg::plus<float>());
  if (tile.thread_rank() == 0) atomicAdd(out, s);
}
extern "C" __global__ void half_atomics(__half2* h, __half* h1, double* d, unsigned long long* u) {
  atomicAdd(h, __floats2half2_rn(1.0f, 2.0f));
  atomicAdd(h1, __float2half(1.0f));
  atomicAdd(d, 1.0);
  cuda::atomic_ref<unsigned long long, cuda::thread_scope_device> r(*u);
  r.fetch_add(1, cuda::memory_order_relaxed);
  r.fetch_max(7, cuda::memory_order_acq_rel);
}
