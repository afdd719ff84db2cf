// c = a + b over float vectors. A grid-stride loop: the grid is smaller than
// the vector and the length is not a multiple of the block size, so the last
// pass diverges on the bounds check.
extern "C" __global__ void vector_add(const float* __restrict__ a, const float* __restrict__ b,
                                      float* __restrict__ c, int n)
{
  int stride = gridDim.x * blockDim.x;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
    c[i] = a[i] + b[i];
  }
}
