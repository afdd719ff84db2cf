// A small complete program (vector addition), built three ways by
// programs.cmake: as exec needs it, with nvcc's default static cudart, and
// SASS only (no PTX); exec runs the first and refuses the other two. An
// argument, if any, is the exit status to return after success (the test
// checks that exec passes it through).
#include <cstdlib>
#include <vector>

#include "tests/cuda/runtime/rt_check.h"

__global__ void add_kernel(const float* a, const float* b, float* c, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}

int main(int argc, char** argv) {
  const int n = 3000;
  std::vector<float> a(n), b(n), c(n);
  for (int i = 0; i < n; ++i) {
    a[i] = float(i);
    b[i] = float(2 * i + 1);
  }
  float *da, *db, *dc;
  RT_CHECK(cudaMalloc(&da, n * sizeof(float)));
  RT_CHECK(cudaMalloc(&db, n * sizeof(float)));
  RT_CHECK(cudaMalloc(&dc, n * sizeof(float)));
  RT_CHECK(cudaMemcpy(da, a.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  RT_CHECK(cudaMemcpy(db, b.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  add_kernel<<<(n + 255) / 256, 256>>>(da, db, dc, n);
  RT_CHECK(cudaGetLastError());
  RT_CHECK(cudaMemcpy(c.data(), dc, n * sizeof(float), cudaMemcpyDeviceToHost));
  double sum = 0.0;
  for (int i = 0; i < n; ++i) {
    RT_EXPECT(c[i] == float(3 * i + 1));
    sum += c[i];
  }
  std::printf("vector_add: n=%d sum=%.0f\n", n, sum);
  RT_CHECK(cudaFree(da));
  RT_CHECK(cudaFree(db));
  RT_CHECK(cudaFree(dc));
  const int status = rt_finish("vector_add");
  return status == 0 && argc > 1 ? std::atoi(argv[1]) : status;
}
