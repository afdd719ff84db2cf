// Device printf from several threads and launches. The text of a launch
// reaches stdout at the synchronising call after it, so each launch's lines
// fall between the host lines around it (the order of lines within a launch
// is unspecified on a GPU). One thread prints every conversion kind.
#include "tests/cuda/runtime/rt_check.h"

__global__ void hello_kernel(int launch, const int* values) {
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  printf("launch %d block %d thread %d value %d\n", launch, blockIdx.x, threadIdx.x, values[t]);
}

__global__ void formats_kernel(double d, float f, long long ll, unsigned u) {
  if (threadIdx.x == 1)
    printf("formats: %d|%5d|%-4d|%u|%x|%X|%o|%lld|%llu|%.3f|%e|%g|%c|%s|%%\n", -42, 7, 3, u, 0xbeefu, 0xbeefu, 8u,
           ll, static_cast<unsigned long long>(ll) * 2ull, d, f, 0.0001234, 'Z', "str");
}

int main() {
  int host_values[16];
  for (int i = 0; i < 16; ++i) host_values[i] = i * i;
  int* d_values;
  RT_CHECK(cudaMalloc(&d_values, sizeof host_values));
  RT_CHECK(cudaMemcpy(d_values, host_values, sizeof host_values, cudaMemcpyHostToDevice));

  std::printf("host: before launch 0\n");
  hello_kernel<<<2, 4>>>(0, d_values);
  RT_CHECK(cudaDeviceSynchronize());
  std::printf("host: between launches\n");
  hello_kernel<<<3, 2>>>(1, d_values);
  hello_kernel<<<1, 3>>>(2, d_values);  // two launches before one synchronisation
  RT_CHECK(cudaDeviceSynchronize());
  std::printf("host: before formats\n");
  formats_kernel<<<1, 2>>>(3.14159265, 1.5f, 1234567890123LL, 4000000000u);
  RT_CHECK(cudaDeviceSynchronize());
  std::printf("host: done\n");
  RT_CHECK(cudaFree(d_values));
  return rt_finish("printf");
}
