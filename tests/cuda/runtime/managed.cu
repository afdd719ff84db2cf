// Unified memory: cudaMallocManaged written by the host, read and written by
// kernels, read by the host after cudaDeviceSynchronize without a copy; and
// a __managed__ variable used from both sides.
#include "tests/cuda/runtime/rt_check.h"

__managed__ long long m_total = 0;
__managed__ int m_factor = 1;

__global__ void scale_and_sum_kernel(int* data, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    data[i] *= m_factor;
    atomicAdd(reinterpret_cast<unsigned long long*>(&m_total), static_cast<unsigned long long>(data[i]));
  }
}

int main() {
  const int n = 4096;
  int* data = nullptr;
  RT_CHECK(cudaMallocManaged(&data, n * sizeof(int)));
  for (int i = 0; i < n; ++i) data[i] = i % 100;
  m_factor = 3;  // the host writes the managed variable directly

  scale_and_sum_kernel<<<n / 256, 256>>>(data, n);
  RT_CHECK(cudaGetLastError());
  RT_CHECK(cudaDeviceSynchronize());

  long long want = 0;
  int wrong = 0;
  for (int i = 0; i < n; ++i) {
    want += 3 * (i % 100);
    if (data[i] != 3 * (i % 100)) ++wrong;
  }
  RT_EXPECT(wrong == 0);
  RT_EXPECT(m_total == want);

  // A second round on the host-modified data: the kernel sees the host's writes.
  for (int i = 0; i < n; ++i) data[i] += 1;
  m_factor = 2;
  m_total = 0;
  scale_and_sum_kernel<<<n / 256, 256>>>(data, n);
  RT_CHECK(cudaGetLastError());
  RT_CHECK(cudaDeviceSynchronize());
  long long want2 = 0;
  for (int i = 0; i < n; ++i) want2 += 2 * (3 * (i % 100) + 1);
  RT_EXPECT(m_total == want2);
  RT_EXPECT(data[n - 1] == 2 * (3 * ((n - 1) % 100) + 1));

  cudaPointerAttributes attr;
  RT_CHECK(cudaPointerGetAttributes(&attr, data));
  RT_EXPECT(attr.type == cudaMemoryTypeManaged);

  std::printf("managed: n=%d total=%lld then %lld\n", n, want, static_cast<long long>(m_total));
  RT_CHECK(cudaFree(data));
  return rt_finish("managed");
}
