// The memory API: cudaMemset, pitched allocations with cudaMemcpy2D both
// ways, pinned host memory three ways, mapped zero-copy memory a kernel
// writes and the host reads without a copy, stream-ordered allocation,
// device-to-device copies and cudaMemcpyDefault.
#include <cstring>
#include <vector>

#include "tests/cuda/runtime/rt_check.h"

__global__ void add_rows_kernel(float* m, size_t pitch, int w, int h) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
  float* row = reinterpret_cast<float*>(reinterpret_cast<char*>(m) + y * pitch);
  if (x < w && y < h) row[x] += float(y);
}

__global__ void iota_kernel(int* p, int n, int base) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] = base + i;
}

int main() {
  // cudaMemset: bytes, not elements; an offset range.
  const int n = 1000;
  unsigned char* d_bytes;
  RT_CHECK(cudaMalloc(&d_bytes, n));
  RT_CHECK(cudaMemset(d_bytes, 0xab, n));
  RT_CHECK(cudaMemset(d_bytes + 100, 0x01, 50));
  std::vector<unsigned char> bytes(n);
  RT_CHECK(cudaMemcpy(bytes.data(), d_bytes, n, cudaMemcpyDeviceToHost));
  int bad_memset = 0;
  for (int i = 0; i < n; ++i) bad_memset += bytes[i] != ((i >= 100 && i < 150) ? 0x01 : 0xab);
  RT_EXPECT(bad_memset == 0);
  RT_CHECK(cudaFree(d_bytes));

  // Pitched 2D: rows of 37 floats, 19 rows.
  const int w = 37, h = 19;
  float* d_m;
  size_t pitch = 0;
  RT_CHECK(cudaMallocPitch(reinterpret_cast<void**>(&d_m), &pitch, w * sizeof(float), h));
  RT_EXPECT(pitch >= w * sizeof(float));
  std::vector<float> m(w * h);
  for (int i = 0; i < w * h; ++i) m[i] = float(i);
  RT_CHECK(cudaMemcpy2D(d_m, pitch, m.data(), w * sizeof(float), w * sizeof(float), h, cudaMemcpyHostToDevice));
  add_rows_kernel<<<dim3(1, h), 64>>>(d_m, pitch, w, h);
  RT_CHECK(cudaGetLastError());
  // Back into a wider host buffer (pitch 40 floats) whose padding must stay.
  std::vector<float> m2(40 * h, -1.0f);
  RT_CHECK(cudaMemcpy2D(m2.data(), 40 * sizeof(float), d_m, pitch, w * sizeof(float), h, cudaMemcpyDeviceToHost));
  int bad_2d = 0;
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < 40; ++x) bad_2d += m2[y * 40 + x] != (x < w ? float(y * w + x + y) : -1.0f);
  RT_EXPECT(bad_2d == 0);
  RT_CHECK(cudaMemset2D(d_m, pitch, 0, w * sizeof(float), h));
  RT_CHECK(cudaMemcpy2D(m.data(), w * sizeof(float), d_m, pitch, w * sizeof(float), h, cudaMemcpyDeviceToHost));
  int bad_memset2d = 0;
  for (float v : m) bad_memset2d += v != 0.0f;
  RT_EXPECT(bad_memset2d == 0);
  RT_CHECK(cudaFree(d_m));

  // Pinned host memory: cudaMallocHost, cudaHostAlloc, and device copies
  // between them through two device buffers (device to device in between).
  int *h_src, *h_dst, *d_a, *d_b;
  RT_CHECK(cudaMallocHost(&h_src, n * sizeof(int)));
  RT_CHECK(cudaHostAlloc(&h_dst, n * sizeof(int), cudaHostAllocDefault));
  RT_CHECK(cudaMalloc(&d_a, n * sizeof(int)));
  RT_CHECK(cudaMalloc(&d_b, n * sizeof(int)));
  for (int i = 0; i < n; ++i) h_src[i] = 3 * i - 7;
  std::memset(h_dst, 0, n * sizeof(int));
  RT_CHECK(cudaMemcpy(d_a, h_src, n * sizeof(int), cudaMemcpyDefault));  // direction from the pointers
  RT_CHECK(cudaMemcpy(d_b, d_a, n * sizeof(int), cudaMemcpyDeviceToDevice));
  RT_CHECK(cudaMemcpy(d_a + 10, d_b + 500, 20 * sizeof(int), cudaMemcpyDefault));  // device to device
  RT_CHECK(cudaMemcpy(h_dst, d_a, n * sizeof(int), cudaMemcpyDefault));
  int bad_copy = 0;
  for (int i = 0; i < n; ++i) bad_copy += h_dst[i] != ((i >= 10 && i < 30) ? 3 * (i + 490) - 7 : 3 * i - 7);
  RT_EXPECT(bad_copy == 0);
  cudaPointerAttributes pa;
  RT_CHECK(cudaPointerGetAttributes(&pa, h_src));
  RT_EXPECT(pa.type == cudaMemoryTypeHost);
  RT_CHECK(cudaPointerGetAttributes(&pa, d_a));
  RT_EXPECT(pa.type == cudaMemoryTypeDevice);

  // Mapped zero-copy memory: the kernel writes host memory, no copy back.
  int* h_mapped;
  RT_CHECK(cudaHostAlloc(&h_mapped, n * sizeof(int), cudaHostAllocMapped));
  for (int i = 0; i < n; ++i) h_mapped[i] = -1;
  int* d_mapped = nullptr;
  RT_CHECK(cudaHostGetDevicePointer(reinterpret_cast<void**>(&d_mapped), h_mapped, 0));
  iota_kernel<<<(n + 127) / 128, 128>>>(d_mapped, n, 5000);
  RT_CHECK(cudaGetLastError());
  RT_CHECK(cudaDeviceSynchronize());
  int bad_mapped = 0;
  for (int i = 0; i < n; ++i) bad_mapped += h_mapped[i] != 5000 + i;
  RT_EXPECT(bad_mapped == 0);

  // Stream-ordered allocation: allocate, fill, copy and free on one stream.
  cudaStream_t s;
  RT_CHECK(cudaStreamCreate(&s));
  int* d_async = nullptr;
  RT_CHECK(cudaMallocAsync(reinterpret_cast<void**>(&d_async), n * sizeof(int), s));
  iota_kernel<<<(n + 127) / 128, 128, 0, s>>>(d_async, n, -200);
  RT_CHECK(cudaGetLastError());
  RT_CHECK(cudaMemcpyAsync(h_dst, d_async, n * sizeof(int), cudaMemcpyDeviceToHost, s));
  RT_CHECK(cudaFreeAsync(d_async, s));
  RT_CHECK(cudaStreamSynchronize(s));
  int bad_async = 0;
  for (int i = 0; i < n; ++i) bad_async += h_dst[i] != -200 + i;
  RT_EXPECT(bad_async == 0);
  // The default memory pool: an allocation from it, and its release threshold.
  cudaMemPool_t pool;
  RT_CHECK(cudaDeviceGetDefaultMemPool(&pool, 0));
  unsigned long long threshold = 1 << 20, read_back = 0;
  RT_CHECK(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &threshold));
  RT_CHECK(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &read_back));
  RT_EXPECT(read_back == threshold);
  int* d_pool = nullptr;
  RT_CHECK(cudaMallocFromPoolAsync(reinterpret_cast<void**>(&d_pool), n * sizeof(int), pool, s));
  iota_kernel<<<(n + 127) / 128, 128, 0, s>>>(d_pool, n, 7);
  RT_CHECK(cudaMemcpyAsync(h_dst, d_pool, n * sizeof(int), cudaMemcpyDeviceToHost, s));
  RT_CHECK(cudaFreeAsync(d_pool, s));
  RT_CHECK(cudaStreamSynchronize(s));
  for (int i = 0; i < n; ++i) bad_async += h_dst[i] != 7 + i;
  RT_EXPECT(bad_async == 0);
  RT_CHECK(cudaStreamDestroy(s));

  std::printf("memory: pitch_ok=%d memset=%d 2d=%d copies=%d mapped=%d async=%d\n", pitch >= w * sizeof(float),
              bad_memset, bad_2d + bad_memset2d, bad_copy, bad_mapped, bad_async);
  RT_CHECK(cudaFreeHost(h_src));
  RT_CHECK(cudaFreeHost(h_dst));
  RT_CHECK(cudaFreeHost(h_mapped));
  RT_CHECK(cudaFree(d_a));
  RT_CHECK(cudaFree(d_b));
  return rt_finish("memory");
}
