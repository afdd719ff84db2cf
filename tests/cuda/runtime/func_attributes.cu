// Function queries: cudaFuncGetAttributes, cudaOccupancyMaxPotentialBlockSize
// (and a launch with its answer), cudaFuncSetAttribute raising the dynamic
// shared memory limit to the opt-in maximum, and launches using extern
// __shared__ memory of the sizes allowed.
#include <vector>

#include "tests/cuda/runtime/rt_check.h"

// 1024 floats of static shared memory (sharedSizeBytes 4096), one per
// thread of the largest block; each thread reads its neighbour's (i ^ 1).
__global__ void tile_kernel(const float* in, float* out, int n) {
  __shared__ float tile[1024];
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  tile[threadIdx.x] = i < n ? in[i] : 0.0f;
  __syncthreads();
  if (i < n) out[i] = tile[threadIdx.x ^ 1] + 1.0f;
}

// Reverses each block's slice through `ints` ints of dynamic shared memory.
__global__ void reverse_dynamic_kernel(const int* in, int* out, int ints) {
  extern __shared__ int buf[];
  const int base = blockIdx.x * ints;
  for (int j = threadIdx.x; j < ints; j += blockDim.x) buf[j] = in[base + j];
  __syncthreads();
  for (int j = threadIdx.x; j < ints; j += blockDim.x) out[base + j] = buf[ints - 1 - j];
}

static bool run_reverse(int bytes, int blocks) {
  const int ints = bytes / int(sizeof(int)), n = ints * blocks;
  std::vector<int> in(n), out(n, 0);
  for (int i = 0; i < n; ++i) in[i] = i * 7 + 1;
  int *d_in, *d_out;
  RT_CHECK(cudaMalloc(&d_in, n * sizeof(int)));
  RT_CHECK(cudaMalloc(&d_out, n * sizeof(int)));
  RT_CHECK(cudaMemcpy(d_in, in.data(), n * sizeof(int), cudaMemcpyHostToDevice));
  reverse_dynamic_kernel<<<blocks, 128, bytes>>>(d_in, d_out, ints);
  RT_CHECK(cudaGetLastError());
  RT_CHECK(cudaMemcpy(out.data(), d_out, n * sizeof(int), cudaMemcpyDeviceToHost));
  RT_CHECK(cudaFree(d_in));
  RT_CHECK(cudaFree(d_out));
  int wrong = 0;
  for (int b = 0; b < blocks; ++b)
    for (int j = 0; j < ints; ++j) wrong += out[b * ints + j] != in[b * ints + ints - 1 - j];
  return wrong == 0;
}

int main() {
  cudaFuncAttributes fa;
  RT_CHECK(cudaFuncGetAttributes(&fa, tile_kernel));
  int max_threads_block = 0;
  RT_CHECK(cudaDeviceGetAttribute(&max_threads_block, cudaDevAttrMaxThreadsPerBlock, 0));
  RT_EXPECT(fa.sharedSizeBytes == 4096);
  RT_EXPECT(fa.numRegs > 0);
  RT_EXPECT(fa.maxThreadsPerBlock > 0 && fa.maxThreadsPerBlock <= max_threads_block);
  RT_EXPECT(fa.maxThreadsPerBlock % 32 == 0);
  std::printf("func_attributes: tile_kernel shared=%zu regs_positive=%d\n", fa.sharedSizeBytes, fa.numRegs > 0);

  // The occupancy calculator's block size works for a launch.
  int min_grid = 0, block = 0;
  RT_CHECK(cudaOccupancyMaxPotentialBlockSize(&min_grid, &block, tile_kernel, 0, 0));
  RT_EXPECT(block > 0 && block <= fa.maxThreadsPerBlock && block % 32 == 0);
  RT_EXPECT(min_grid > 0);
  const int n = 5000;
  std::vector<float> in(n), out(n);
  for (int i = 0; i < n; ++i) in[i] = float(i);
  float *d_in, *d_out;
  RT_CHECK(cudaMalloc(&d_in, n * sizeof(float)));
  RT_CHECK(cudaMalloc(&d_out, n * sizeof(float)));
  RT_CHECK(cudaMemcpy(d_in, in.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  // Block sizes are even: the neighbour i ^ 1 is in the same block.
  tile_kernel<<<(n + block - 1) / block, block>>>(d_in, d_out, n);
  RT_CHECK(cudaGetLastError());
  RT_CHECK(cudaMemcpy(out.data(), d_out, n * sizeof(float), cudaMemcpyDeviceToHost));
  int wrong = 0;
  for (int i = 0; i < n; ++i) {
    const int partner = i ^ 1;
    const float want = (partner < n ? float(partner) : 0.0f) + 1.0f;
    wrong += out[i] != want;
  }
  RT_EXPECT(wrong == 0);
  RT_CHECK(cudaFree(d_in));
  RT_CHECK(cudaFree(d_out));

  // Dynamic shared memory: 8 KB needs nothing; up to the opt-in maximum
  // after cudaFuncSetAttribute; beyond it the attribute is refused.
  int optin = 0, per_block = 0;
  RT_CHECK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, 0));
  RT_CHECK(cudaDeviceGetAttribute(&per_block, cudaDevAttrMaxSharedMemoryPerBlock, 0));
  RT_EXPECT(optin >= per_block && per_block >= 16 * 1024);
  RT_EXPECT(run_reverse(8 * 1024, 3));
  RT_CHECK(cudaFuncSetAttribute(reverse_dynamic_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, optin));
  RT_CHECK(cudaFuncGetAttributes(&fa, reverse_dynamic_kernel));
  RT_EXPECT(fa.maxDynamicSharedSizeBytes == optin);
  RT_EXPECT(fa.sharedSizeBytes == 0);
  RT_EXPECT(run_reverse(optin, 2));
  RT_EXPECT_ERROR(
      cudaFuncSetAttribute(reverse_dynamic_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, optin + 1),
      cudaErrorInvalidValue);
  RT_EXPECT_ERROR(cudaGetLastError(), cudaErrorInvalidValue);
  std::printf("func_attributes: dynamic shared up to the opt-in maximum ok\n");
  return rt_finish("func_attributes");
}
