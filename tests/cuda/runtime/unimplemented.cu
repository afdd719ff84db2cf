// An entry point the runtime does not implement (CUDA graphs) returns
// cudaErrorNotSupported, called twice; the program then goes on with a
// kernel, which must still work.
#include "tests/cuda/runtime/rt_check.h"

__global__ void fill_kernel(int* p, int v) { p[threadIdx.x] = v + threadIdx.x; }

int main() {
  cudaGraph_t graph = nullptr;
  const cudaError_t first = cudaGraphCreate(&graph, 0);
  const cudaError_t second = cudaGraphCreate(&graph, 0);
  std::printf("cudaGraphCreate: %s, %s\n", cudaGetErrorName(first), cudaGetErrorName(second));
  RT_EXPECT(first == cudaErrorNotSupported);
  RT_EXPECT(second == cudaErrorNotSupported);
  // Not sticky: cleared by cudaGetLastError.
  RT_EXPECT_ERROR(cudaGetLastError(), cudaErrorNotSupported);
  RT_CHECK(cudaGetLastError());

  int* d;
  RT_CHECK(cudaMalloc(&d, 32 * sizeof(int)));
  fill_kernel<<<1, 32>>>(d, 100);
  RT_CHECK(cudaGetLastError());
  int h[32];
  RT_CHECK(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
  for (int i = 0; i < 32; ++i) RT_EXPECT(h[i] == 100 + i);
  RT_CHECK(cudaFree(d));
  return rt_finish("unimplemented");
}
