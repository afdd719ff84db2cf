// Separate compilation (-rdc=true): the kernel here calls mix() and reads
// g_bias, both defined in rdc_lib.cu; the device linker joins them, and the
// host reads g_bias through the symbol this file only declares.
#include <vector>

#include "tests/cuda/runtime/rt_check.h"

extern __device__ int g_bias;
__device__ int mix(int x, int y);
__global__ void set_bias_kernel(int bias);

__global__ void mix_kernel(const int* a, int* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = mix(a[i], i) + g_bias;
}

int main() {
  const int n = 777, bias = 11;
  std::vector<int> a(n);
  for (int i = 0; i < n; ++i) a[i] = (i * 13) % 50;
  int *d_a, *d_out;
  RT_CHECK(cudaMalloc(&d_a, n * sizeof(int)));
  RT_CHECK(cudaMalloc(&d_out, n * sizeof(int)));
  RT_CHECK(cudaMemcpy(d_a, a.data(), n * sizeof(int), cudaMemcpyHostToDevice));

  set_bias_kernel<<<1, 1>>>(bias);
  RT_CHECK(cudaGetLastError());
  mix_kernel<<<(n + 255) / 256, 256>>>(d_a, d_out, n);
  RT_CHECK(cudaGetLastError());
  std::vector<int> out(n);
  RT_CHECK(cudaMemcpy(out.data(), d_out, n * sizeof(int), cudaMemcpyDeviceToHost));

  long long sum = 0;
  int wrong = 0;
  for (int i = 0; i < n; ++i) {
    if (out[i] != a[i] * 7 + i + 2 * bias) ++wrong;
    sum += out[i];
  }
  RT_EXPECT(wrong == 0);

  // The host sees the variable of the other translation unit by its symbol.
  int host_bias = -1;
  RT_CHECK(cudaMemcpyFromSymbol(&host_bias, g_bias, sizeof(int)));
  RT_EXPECT(host_bias == bias);
  std::printf("rdc: n=%d sum=%lld bias=%d\n", n, sum, host_bias);
  RT_CHECK(cudaFree(d_a));
  RT_CHECK(cudaFree(d_out));
  return rt_finish("rdc");
}
