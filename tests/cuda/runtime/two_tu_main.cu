// Two translation units compiled whole-program (no -rdc): main() here
// launches a kernel of this file and one of two_tu_other.cu, whose fatbins
// the runtime registers separately.
#include <vector>

#include "tests/cuda/runtime/rt_check.h"
#include "tests/cuda/runtime/two_tu_kernels.h"

__global__ void square_kernel(const int* in, int* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i] * in[i];
}

int main() {
  const int n = 1000, scale = 3;
  std::vector<int> in(n);
  for (int i = 0; i < n; ++i) in[i] = i % 97 - 40;

  int *d_in, *d_sq, *d_out;
  RT_CHECK(cudaMalloc(&d_in, n * sizeof(int)));
  RT_CHECK(cudaMalloc(&d_sq, n * sizeof(int)));
  RT_CHECK(cudaMalloc(&d_out, n * sizeof(int)));
  RT_CHECK(cudaMemcpy(d_in, in.data(), n * sizeof(int), cudaMemcpyHostToDevice));
  const int block = 128, grid = (n + block - 1) / block;
  square_kernel<<<grid, block>>>(d_in, d_sq, n);
  RT_CHECK(cudaGetLastError());
  add_scaled_kernel<<<grid, block>>>(d_sq, d_in, d_out, scale, n);
  RT_CHECK(cudaGetLastError());
  std::vector<int> out(n);
  RT_CHECK(cudaMemcpy(out.data(), d_out, n * sizeof(int), cudaMemcpyDeviceToHost));

  long long sum = 0;
  int wrong = 0;
  for (int i = 0; i < n; ++i) {
    const int want = in[i] * in[i] + scale * in[i];
    if (out[i] != want) ++wrong;
    sum += out[i];
  }
  RT_EXPECT(wrong == 0);
  std::printf("two_tu: n=%d sum=%lld\n", n, sum);
  RT_CHECK(cudaFree(d_in));
  RT_CHECK(cudaFree(d_sq));
  RT_CHECK(cudaFree(d_out));
  return rt_finish("two_tu");
}
