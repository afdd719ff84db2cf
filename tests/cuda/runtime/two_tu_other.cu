// The second translation unit of rt_two_tu: a kernel the other one launches.
#include "tests/cuda/runtime/two_tu_kernels.h"

__global__ void add_scaled_kernel(const int* a, const int* b, int* out, int scale, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = a[i] + scale * b[i];
}
