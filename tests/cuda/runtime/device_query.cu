// The device API as deviceQuery-style programs use it: count, properties and
// attributes (printed; each attribute must equal its property), memory info,
// cudaSetDevice on the one device and on one that does not exist.
#include "tests/cuda/runtime/rt_check.h"

int main() {
  int count = 0;
  RT_CHECK(cudaGetDeviceCount(&count));
  RT_EXPECT(count == 1);
  RT_CHECK(cudaSetDevice(0));
  int device = -1;
  RT_CHECK(cudaGetDevice(&device));
  RT_EXPECT(device == 0);

  cudaDeviceProp p;
  RT_CHECK(cudaGetDeviceProperties(&p, 0));
  auto attr = [](cudaDeviceAttr a) {
    int v = -1;
    RT_CHECK(cudaDeviceGetAttribute(&v, a, 0));
    return v;
  };
  const int sms = attr(cudaDevAttrMultiProcessorCount);
  const int warp = attr(cudaDevAttrWarpSize);
  const int clock = attr(cudaDevAttrClockRate);
  const int smem_block = attr(cudaDevAttrMaxSharedMemoryPerBlock);
  const int smem_sm = attr(cudaDevAttrMaxSharedMemoryPerMultiprocessor);
  const int regs_block = attr(cudaDevAttrMaxRegistersPerBlock);
  const int regs_sm = attr(cudaDevAttrMaxRegistersPerMultiprocessor);
  const int threads_sm = attr(cudaDevAttrMaxThreadsPerMultiProcessor);
  const int threads_block = attr(cudaDevAttrMaxThreadsPerBlock);
  const int l2 = attr(cudaDevAttrL2CacheSize);
  const int bus = attr(cudaDevAttrGlobalMemoryBusWidth);
  const int major = attr(cudaDevAttrComputeCapabilityMajor);
  const int minor = attr(cudaDevAttrComputeCapabilityMinor);
  RT_EXPECT(sms == p.multiProcessorCount);
  RT_EXPECT(warp == p.warpSize);
  RT_EXPECT(smem_block == int(p.sharedMemPerBlock));
  RT_EXPECT(smem_sm == int(p.sharedMemPerMultiprocessor));
  RT_EXPECT(regs_block == p.regsPerBlock);
  RT_EXPECT(regs_sm == p.regsPerMultiprocessor);
  RT_EXPECT(threads_sm == p.maxThreadsPerMultiProcessor);
  RT_EXPECT(threads_block == p.maxThreadsPerBlock);
  RT_EXPECT(l2 == p.l2CacheSize);
  RT_EXPECT(bus == p.memoryBusWidth);
  RT_EXPECT(major == p.major && minor == p.minor);
  RT_EXPECT(p.totalGlobalMem > 0);
  RT_EXPECT(p.name[0] != '\0');

  std::printf("device: count=%d\n", count);
  std::printf("device: multiprocessors=%d\n", sms);
  std::printf("device: warp_size=%d\n", warp);
  std::printf("device: clock_khz=%d\n", clock);
  std::printf("device: shared_per_block=%d\n", smem_block);
  std::printf("device: shared_per_sm=%d\n", smem_sm);
  std::printf("device: registers_per_block=%d\n", regs_block);
  std::printf("device: registers_per_sm=%d\n", regs_sm);
  std::printf("device: threads_per_sm=%d\n", threads_sm);
  std::printf("device: threads_per_block=%d\n", threads_block);
  std::printf("device: l2_bytes=%d\n", l2);
  std::printf("device: bus_width=%d\n", bus);
  std::printf("device: compute_capability=%d.%d\n", major, minor);

  // Memory info: an allocation takes its size (at least) from the free memory.
  size_t free0 = 0, total = 0, free1 = 0;
  RT_CHECK(cudaMemGetInfo(&free0, &total));
  RT_EXPECT(total > 0 && free0 > 0 && free0 <= total);
  RT_EXPECT(total == p.totalGlobalMem);
  const size_t size = 64u << 20;
  void* big = nullptr;
  RT_CHECK(cudaMalloc(&big, size));
  RT_CHECK(cudaMemGetInfo(&free1, &total));
  RT_EXPECT(free1 + size <= free0);
  RT_CHECK(cudaFree(big));

  RT_EXPECT_ERROR(cudaSetDevice(1), cudaErrorInvalidDevice);
  RT_EXPECT_ERROR(cudaGetDeviceProperties(&p, 1), cudaErrorInvalidDevice);
  int v = 0;
  RT_EXPECT_ERROR(cudaDeviceGetAttribute(&v, cudaDevAttrWarpSize, 1), cudaErrorInvalidDevice);
  RT_CHECK(cudaGetDevice(&device));
  RT_EXPECT(device == 0);  // the failed cudaSetDevice changed nothing
  RT_EXPECT_ERROR(cudaGetLastError(), cudaErrorInvalidDevice);
  RT_CHECK(cudaGetLastError());
  return rt_finish("device_query");
}
