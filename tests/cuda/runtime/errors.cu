// The error API: names and strings of a few codes, cudaPeekAtLastError
// (keeps the error) against cudaGetLastError (reads and clears it), an
// invalid launch configuration and a failed allocation, neither sticky.
#include "tests/cuda/runtime/rt_check.h"

__global__ void touch_kernel(int* p) { p[threadIdx.x] = threadIdx.x; }

int main() {
  const cudaError_t codes[] = {cudaSuccess,           cudaErrorInvalidValue,   cudaErrorMemoryAllocation,
                               cudaErrorInvalidConfiguration, cudaErrorIllegalAddress, cudaErrorNotSupported,
                               cudaErrorInvalidDevice};
  for (cudaError_t e : codes) std::printf("%d %s: %s\n", int(e), cudaGetErrorName(e), cudaGetErrorString(e));

  RT_CHECK(cudaGetLastError());  // nothing yet
  int* d;
  RT_CHECK(cudaMalloc(&d, 1024 * sizeof(int)));

  // 2048 threads per block is over every device's limit.
  touch_kernel<<<1, 2048>>>(d);
  const cudaError_t peek1 = cudaPeekAtLastError(), peek2 = cudaPeekAtLastError();
  const cudaError_t get1 = cudaGetLastError(), get2 = cudaGetLastError();
  std::printf("invalid launch: peek %s, peek %s, get %s, get %s\n", cudaGetErrorName(peek1), cudaGetErrorName(peek2),
              cudaGetErrorName(get1), cudaGetErrorName(get2));
  RT_EXPECT(peek1 == cudaErrorInvalidConfiguration && peek2 == cudaErrorInvalidConfiguration);
  RT_EXPECT(get1 == cudaErrorInvalidConfiguration && get2 == cudaSuccess);
  touch_kernel<<<dim3(1, 1, 1), dim3(1, 1, 65)>>>(d);  // z is limited to 64
  const cudaError_t zdim = cudaGetLastError();
  std::printf("block z 65: %s\n", cudaGetErrorName(zdim));
  RT_EXPECT(zdim == cudaErrorInvalidConfiguration);

  // The context is fine: a valid launch works.
  touch_kernel<<<1, 256>>>(d);
  RT_CHECK(cudaGetLastError());
  RT_CHECK(cudaDeviceSynchronize());
  int h[256];
  RT_CHECK(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
  for (int i = 0; i < 256; ++i) RT_EXPECT(h[i] == i);

  // An allocation larger than the device: cudaErrorMemoryAllocation, once.
  void* huge = nullptr;
  const cudaError_t alloc = cudaMalloc(&huge, size_t(1) << 50);
  const cudaError_t after_alloc = cudaGetLastError(), cleared = cudaGetLastError();
  std::printf("huge malloc: %s, last %s, then %s\n", cudaGetErrorName(alloc), cudaGetErrorName(after_alloc),
              cudaGetErrorName(cleared));
  RT_EXPECT(alloc == cudaErrorMemoryAllocation && after_alloc == cudaErrorMemoryAllocation && cleared == cudaSuccess);
  RT_EXPECT(huge == nullptr);

  // A null pointer argument.
  RT_EXPECT_ERROR(cudaMemcpy(nullptr, h, sizeof h, cudaMemcpyHostToDevice), cudaErrorInvalidValue);
  RT_EXPECT_ERROR(cudaGetLastError(), cudaErrorInvalidValue);
  std::printf("unknown code: %s\n", cudaGetErrorName(static_cast<cudaError_t>(12345)));
  RT_CHECK(cudaFree(d));
  return rt_finish("errors");
}
