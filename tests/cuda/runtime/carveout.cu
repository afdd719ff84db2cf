// The preferred shared-memory carve-out (cudaFuncAttributePreferredSharedMemoryCarveout):
// the attribute reads back, a value outside -1..100 is refused, and the
// occupancy calculator follows the carve-out the preference gives. Three
// launches of one kernel (8 KB of shared memory, 256 threads per CTA): with
// no preference, with 25 % and with 0 % (cudaSharedmemCarveoutMaxL1); the
// test reads each launch's carve-out from the statistics. Every launch's
// result is checked.
#include <vector>

#include "tests/cuda/runtime/rt_check.h"

constexpr int kThreads = 256;
constexpr int kTile = 2048;  // floats: 8 KB of shared memory

// Each CTA stages kTile floats in shared memory and writes them back reversed, plus one.
__global__ void reverse_tiles(const float* in, float* out) {
  __shared__ float tile[kTile];
  const int base = blockIdx.x * kTile;
  for (int j = threadIdx.x; j < kTile; j += blockDim.x) tile[j] = in[base + j];
  __syncthreads();
  for (int j = threadIdx.x; j < kTile; j += blockDim.x) out[base + j] = tile[kTile - 1 - j] + 1.0f;
}

static int occupancy() {
  int blocks = 0;
  RT_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, reverse_tiles, kThreads, 0));
  return blocks;
}

static bool run(int ctas) {
  const int n = ctas * kTile;
  std::vector<float> in(n), out(n, 0.0f);
  for (int i = 0; i < n; ++i) in[i] = float(i % 977);
  float *d_in, *d_out;
  RT_CHECK(cudaMalloc(&d_in, n * sizeof(float)));
  RT_CHECK(cudaMalloc(&d_out, n * sizeof(float)));
  RT_CHECK(cudaMemcpy(d_in, in.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  reverse_tiles<<<ctas, kThreads>>>(d_in, d_out);
  RT_CHECK(cudaGetLastError());
  RT_CHECK(cudaMemcpy(out.data(), d_out, n * sizeof(float), cudaMemcpyDeviceToHost));
  RT_CHECK(cudaFree(d_in));
  RT_CHECK(cudaFree(d_out));
  int wrong = 0;
  for (int c = 0; c < ctas; ++c)
    for (int j = 0; j < kTile; ++j) wrong += out[c * kTile + j] != in[c * kTile + kTile - 1 - j] + 1.0f;
  return wrong == 0;
}

int main() {
  int sms = 0;
  RT_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  const int ctas = sms * 8;  // enough to fill every SM at the default occupancy
  cudaFuncAttributes fa;
  RT_CHECK(cudaFuncGetAttributes(&fa, reverse_tiles));
  RT_EXPECT(fa.preferredShmemCarveout == -1);
  std::printf("carveout: default occupancy=%d\n", occupancy());
  RT_EXPECT(run(ctas));

  RT_CHECK(cudaFuncSetAttribute(reverse_tiles, cudaFuncAttributePreferredSharedMemoryCarveout, 25));
  RT_CHECK(cudaFuncGetAttributes(&fa, reverse_tiles));
  RT_EXPECT(fa.preferredShmemCarveout == 25);
  std::printf("carveout: 25%% occupancy=%d\n", occupancy());
  RT_EXPECT(run(ctas));

  RT_CHECK(cudaFuncSetAttribute(reverse_tiles, cudaFuncAttributePreferredSharedMemoryCarveout,
                                cudaSharedmemCarveoutMaxL1));
  std::printf("carveout: 0%% occupancy=%d\n", occupancy());
  RT_EXPECT(run(ctas));

  RT_EXPECT_ERROR(cudaFuncSetAttribute(reverse_tiles, cudaFuncAttributePreferredSharedMemoryCarveout, 101),
                  cudaErrorInvalidValue);
  RT_EXPECT_ERROR(cudaGetLastError(), cudaErrorInvalidValue);
  RT_CHECK(cudaFuncGetAttributes(&fa, reverse_tiles));
  RT_EXPECT(fa.preferredShmemCarveout == 0);
  return rt_finish("carveout");
}
