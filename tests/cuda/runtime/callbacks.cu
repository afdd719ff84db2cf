// Host functions in stream order: cudaLaunchHostFunc and
// cudaStreamAddCallback each run after the work queued before them (they
// see the results the stream copied to pinned memory) and before the work
// queued after them.
#include <string>

#include "tests/cuda/runtime/rt_check.h"

struct Probe {
  const char* name;
  const int* host;  // pinned buffer the stream copied into just before
  int n, add;       // expected host[i] == i * 2 + add
  std::string* log;
};

static void check_probe(const Probe* p) {
  int wrong = 0;
  for (int i = 0; i < p->n; ++i) wrong += p->host[i] != i * 2 + p->add;
  *p->log += std::string(p->name) + (wrong ? "(wrong)" : "(ok)") + " ";
}

static void CUDART_CB host_func(void* data) { check_probe(static_cast<const Probe*>(data)); }

static void CUDART_CB stream_callback(cudaStream_t, cudaError_t status, void* data) {
  auto* p = static_cast<const Probe*>(data);
  if (status != cudaSuccess) *p->log += "(status " + std::string(cudaGetErrorName(status)) + ") ";
  check_probe(p);
}

__global__ void twice_plus_kernel(int* p, int n, int add) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] = i * 2 + add;
}

int main() {
  const int n = 512;
  int *d, *h1, *h2;
  RT_CHECK(cudaMalloc(&d, n * sizeof(int)));
  RT_CHECK(cudaMallocHost(&h1, n * sizeof(int)));
  RT_CHECK(cudaMallocHost(&h2, n * sizeof(int)));
  cudaStream_t s;
  RT_CHECK(cudaStreamCreate(&s));
  std::string log;
  Probe a{"hostfunc1", h1, n, 1, &log}, b{"callback2", h2, n, 100, &log}, c{"hostfunc3", h1, n, 1, &log};

  twice_plus_kernel<<<n / 128, 128, 0, s>>>(d, n, 1);
  RT_CHECK(cudaMemcpyAsync(h1, d, n * sizeof(int), cudaMemcpyDeviceToHost, s));
  RT_CHECK(cudaLaunchHostFunc(s, host_func, &a));
  twice_plus_kernel<<<n / 128, 128, 0, s>>>(d, n, 100);
  RT_CHECK(cudaMemcpyAsync(h2, d, n * sizeof(int), cudaMemcpyDeviceToHost, s));
  RT_CHECK(cudaStreamAddCallback(s, stream_callback, &b, 0));
  // h1 is not touched after the first copy: still the first kernel's values.
  RT_CHECK(cudaLaunchHostFunc(s, host_func, &c));
  RT_CHECK(cudaStreamSynchronize(s));
  std::printf("callbacks: %s\n", log.c_str());
  RT_EXPECT(log == "hostfunc1(ok) callback2(ok) hostfunc3(ok) ");

  // On the legacy default stream too.
  log.clear();
  twice_plus_kernel<<<n / 128, 128>>>(d, n, 1);
  RT_CHECK(cudaMemcpyAsync(h1, d, n * sizeof(int), cudaMemcpyDeviceToHost, 0));
  RT_CHECK(cudaLaunchHostFunc(0, host_func, &a));
  RT_CHECK(cudaDeviceSynchronize());
  std::printf("callbacks: default stream %s\n", log.c_str());
  RT_EXPECT(log == "hostfunc1(ok) ");

  RT_CHECK(cudaStreamDestroy(s));
  RT_CHECK(cudaFree(d));
  RT_CHECK(cudaFreeHost(h1));
  RT_CHECK(cudaFreeHost(h2));
  return rt_finish("callbacks");
}
