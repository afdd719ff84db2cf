// Two streams with pinned host buffers, cudaMemcpyAsync both ways and
// kernels on each; stream 1 waits on an event of stream 0 to consume its
// result; events time a kernel. Argument "positive": the elapsed time around
// a kernel must be > 0 (a model with time), otherwise >= 0.
#include <cstring>

#include "tests/cuda/runtime/rt_check.h"

__global__ void affine_kernel(float* x, int n, float mul, float add) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) x[i] = x[i] * mul + add;
}

__global__ void combine_kernel(const float* a, float* b, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) b[i] += a[i];
}

int main(int argc, char** argv) {
  const bool want_positive = argc > 1 && std::strcmp(argv[1], "positive") == 0;
  const int n = 8192;
  const size_t bytes = n * sizeof(float);
  float *h_a, *h_b;
  RT_CHECK(cudaMallocHost(&h_a, bytes));
  RT_CHECK(cudaMallocHost(&h_b, bytes));
  for (int i = 0; i < n; ++i) {
    h_a[i] = float(i % 64);
    h_b[i] = float(i % 10);
  }
  float *d_a, *d_b;
  RT_CHECK(cudaMalloc(&d_a, bytes));
  RT_CHECK(cudaMalloc(&d_b, bytes));

  cudaStream_t s0, s1;
  RT_CHECK(cudaStreamCreate(&s0));
  RT_CHECK(cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking));
  cudaEvent_t start, stop, a_ready;
  RT_CHECK(cudaEventCreate(&start));
  RT_CHECK(cudaEventCreate(&stop));
  RT_CHECK(cudaEventCreateWithFlags(&a_ready, cudaEventDisableTiming));

  RT_CHECK(cudaMemcpyAsync(d_a, h_a, bytes, cudaMemcpyHostToDevice, s0));
  RT_CHECK(cudaEventRecord(start, s0));
  affine_kernel<<<16, 128, 0, s0>>>(d_a, n, 2.0f, 1.0f);
  RT_CHECK(cudaGetLastError());
  RT_CHECK(cudaEventRecord(stop, s0));
  RT_CHECK(cudaEventRecord(a_ready, s0));

  RT_CHECK(cudaMemcpyAsync(d_b, h_b, bytes, cudaMemcpyHostToDevice, s1));
  affine_kernel<<<8, 256, 0, s1>>>(d_b, n, -1.0f, 0.5f);
  RT_CHECK(cudaGetLastError());
  RT_CHECK(cudaStreamWaitEvent(s1, a_ready, 0));
  combine_kernel<<<n / 256, 256, 0, s1>>>(d_a, d_b, n);
  RT_CHECK(cudaGetLastError());
  RT_CHECK(cudaMemcpyAsync(h_b, d_b, bytes, cudaMemcpyDeviceToHost, s1));
  RT_CHECK(cudaMemcpyAsync(h_a, d_a, bytes, cudaMemcpyDeviceToHost, s0));

  // Work may or may not be done yet: both answers are legal.
  const cudaError_t q = cudaStreamQuery(s1);
  RT_EXPECT(q == cudaSuccess || q == cudaErrorNotReady);

  RT_CHECK(cudaEventSynchronize(stop));
  float ms = -1.0f;
  RT_CHECK(cudaEventElapsedTime(&ms, start, stop));
  RT_EXPECT(want_positive ? ms > 0.0f : ms >= 0.0f);
  RT_CHECK(cudaEventQuery(stop));
  // An event without timing has no elapsed time.
  float dummy = 0.0f;
  RT_EXPECT_ERROR(cudaEventElapsedTime(&dummy, start, a_ready), cudaErrorInvalidResourceHandle);

  RT_CHECK(cudaStreamSynchronize(s1));
  RT_CHECK(cudaStreamSynchronize(s0));
  RT_CHECK(cudaStreamQuery(s0));
  RT_CHECK(cudaStreamQuery(s1));

  double sum_a = 0.0, sum_b = 0.0;
  int wrong = 0;
  for (int i = 0; i < n; ++i) {
    const float a = float(i % 64) * 2.0f + 1.0f;
    const float b = -float(i % 10) + 0.5f + a;
    if (h_a[i] != a || h_b[i] != b) ++wrong;
    sum_a += h_a[i];
    sum_b += h_b[i];
  }
  RT_EXPECT(wrong == 0);
  std::printf("streams: sum_a=%.1f sum_b=%.1f elapsed_ok=%d\n", sum_a, sum_b,
              want_positive ? ms > 0.0f : ms >= 0.0f);

  RT_CHECK(cudaEventDestroy(start));
  RT_CHECK(cudaEventDestroy(stop));
  RT_CHECK(cudaEventDestroy(a_ready));
  RT_CHECK(cudaStreamDestroy(s0));
  RT_CHECK(cudaStreamDestroy(s1));
  RT_CHECK(cudaFree(d_a));
  RT_CHECK(cudaFree(d_b));
  RT_CHECK(cudaFreeHost(h_a));
  RT_CHECK(cudaFreeHost(h_b));
  return rt_finish("streams");
}
