// Kernels for the launch-file and CLI tests.
// Regenerate: nvcc -ptx -arch=sm_75 -O3 kernels.cu -o kernels.ptx

// y[i] = a * x[i] + y[i]
extern "C" __global__ void saxpy(float* y, const float* x, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}

// out[y][x] = y * 1000 + x over a 2-D grid of 2-D blocks.
extern "C" __global__ void fill2d(int* out, int width, int height) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < width && y < height) out[y * width + x] = y * 1000 + x;
}

// One step of a host loop: decrement the counter; raise the flag while it is
// still non-zero. `steps` counts how often the kernel ran.
extern "C" __global__ void countdown(unsigned* counter, int* flag, unsigned* steps) {
  if (threadIdx.x == 0 && blockIdx.x == 0) {
    steps[0] += 1;
    if (counter[0] > 0) counter[0] -= 1;
    if (counter[0] != 0) flag[0] = 1;
  }
}

__constant__ float coef[4];
__device__ int offset;

// out[i] = in[i] * coef[i % 4] + offset: reads symbols the host wrote.
extern "C" __global__ void use_symbols(float* out, const float* in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i] * coef[i % 4] + float(offset);
}

// Writes one element past the end of its buffer from the last thread: a fault.
extern "C" __global__ void store_oob(int* p, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i == n - 1) p[i + 4096] = 7;
  else if (i < n) p[i] = i;
}

// Mixed element types: widen bytes and shorts, sum into 64-bit.
extern "C" __global__ void widen(long long* out, const unsigned char* a, const short* b,
                                 const double* c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = (long long)a[i] + (long long)b[i] + (long long)c[i];
}

// Adds the first n elements into a __device__ variable the host reads back
// (cudaMemcpyFromSymbol; "copy": {"from_symbol": ...} in a launch file).
__device__ int total;
extern "C" __global__ void sum_into_total(const int* v, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(&total, v[i]);
}

// A device-side assert: fails (__assertfail) for a non-positive element.
#include <cassert>
extern "C" __global__ void assert_positive(const int* v, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) assert(v[i] > 0);
}
