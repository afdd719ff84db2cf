// Device faults. "oob": a store far outside any allocation; the synchronising
// call returns cudaErrorIllegalAddress and the error is sticky: every later
// call returns it, cudaGetLastError included. "assert": a failed device
// assert gives cudaErrorAssert. Prints what each call returned, then exits 0
// when every call returned what CUDA specifies.
#include <cassert>
#include <cstring>

#include "tests/cuda/runtime/rt_check.h"

__global__ void store_kernel(int* p, long long offset) {
  if (threadIdx.x == 3) p[offset] = 42;
}

__global__ void assert_kernel(const int* v, int n) {
  const int i = threadIdx.x;
  if (i < n) assert(v[i] < 5);
}

static void show(const char* what, cudaError_t e) { std::printf("%s: %s\n", what, cudaGetErrorName(e)); }

int main(int argc, char** argv) {
  const bool oob = argc > 1 && std::strcmp(argv[1], "oob") == 0;
  int* d = nullptr;
  RT_CHECK(cudaMalloc(&d, 64 * sizeof(int)));
  const cudaError_t fault = oob ? cudaErrorIllegalAddress : cudaErrorAssert;
  if (oob) {
    // 2^36 ints past the allocation: 256 GB away, far outside any allocation.
    store_kernel<<<1, 32>>>(d, 1LL << 36);
  } else {
    int values[8] = {0, 1, 2, 3, 4, 5, 6, 7};  // threads 5..7 fail the assert
    RT_CHECK(cudaMemcpy(d, values, sizeof values, cudaMemcpyHostToDevice));
    assert_kernel<<<1, 8>>>(d, 8);
  }
  // The launch itself is valid; the fault shows by the synchronisation at
  // the latest (a launch running at once may report it already: not printed).
  const cudaError_t launch = cudaPeekAtLastError();
  RT_EXPECT(launch == cudaSuccess || launch == fault);
  const cudaError_t sync = cudaDeviceSynchronize();
  show("synchronize", sync);
  RT_EXPECT(sync == fault);
  const cudaError_t last1 = cudaGetLastError(), last2 = cudaGetLastError();
  show("last error", last1);
  show("last error again", last2);
  RT_EXPECT(last1 == fault);
  RT_EXPECT(last2 == fault);
  RT_EXPECT(cudaPeekAtLastError() == fault);
  int* other = nullptr;
  const cudaError_t malloc_after = cudaMalloc(&other, 256);
  show("malloc after", malloc_after);
  RT_EXPECT(malloc_after == fault);
  int host = 0;
  const cudaError_t copy_after = cudaMemcpy(&host, d, sizeof host, cudaMemcpyDeviceToHost);
  show("memcpy after", copy_after);
  RT_EXPECT(copy_after == fault);
  store_kernel<<<1, 1>>>(d, 0);
  const cudaError_t launch_after = cudaGetLastError();
  show("launch after", launch_after);
  RT_EXPECT(launch_after == fault);
  const cudaError_t sync_after = cudaDeviceSynchronize();
  show("synchronize after", sync_after);
  RT_EXPECT(sync_after == fault);
  return rt_finish(oob ? "fault oob" : "fault assert");
}
