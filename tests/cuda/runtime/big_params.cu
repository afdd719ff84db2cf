// A kernel parameter struct of 8 KB, over the old 4 KB limit (CUDA 12.1 and
// Volta or later allow 32764 bytes): every field must arrive intact.
#include <vector>

#include "tests/cuda/runtime/rt_check.h"

struct BigParams {
  int n;
  float coeff[2040];
  double scale;
  int tail[5];
};
static_assert(sizeof(BigParams) > 8000, "over 4 KB by far");

__global__ void big_params_kernel(BigParams p, float* out) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < p.n) out[i] = p.coeff[i] * float(p.scale) + float(p.tail[i % 5]);
}

int main() {
  BigParams p;
  p.n = 2040;
  for (int i = 0; i < p.n; ++i) p.coeff[i] = float(i % 101) - 50.0f;
  p.scale = 0.5;
  for (int k = 0; k < 5; ++k) p.tail[k] = 1000 * (k + 1);
  float* d_out;
  RT_CHECK(cudaMalloc(&d_out, p.n * sizeof(float)));
  big_params_kernel<<<(p.n + 255) / 256, 256>>>(p, d_out);
  RT_CHECK(cudaGetLastError());
  std::vector<float> out(p.n);
  RT_CHECK(cudaMemcpy(out.data(), d_out, p.n * sizeof(float), cudaMemcpyDeviceToHost));
  double sum = 0.0;
  int wrong = 0;
  for (int i = 0; i < p.n; ++i) {
    wrong += out[i] != p.coeff[i] * 0.5f + float(p.tail[i % 5]);
    sum += out[i];
  }
  RT_EXPECT(wrong == 0);
  std::printf("big_params: bytes=%zu sum=%.1f\n", sizeof(BigParams), sum);
  RT_CHECK(cudaFree(d_out));
  return rt_finish("big_params");
}
