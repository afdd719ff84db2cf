// Dot products of many vector pairs. Each CTA takes pairs in a grid-stride
// loop; its threads accumulate strided partial sums, then halve them in a
// shared-memory tree with a barrier at every level (barrier-heavy, as seed
// 000's best case). blockDim.x must be a power of two; the dynamic shared
// allocation holds blockDim.x floats.

extern "C" __global__ void scalar_prod(const float* __restrict__ a, const float* __restrict__ b,
                                       float* __restrict__ out, int num_pairs, int n)
{
  extern __shared__ float partial[];
  const int t = threadIdx.x;
  for (int p = blockIdx.x; p < num_pairs; p += gridDim.x) {
    const float* va = a + (size_t)p * n;
    const float* vb = b + (size_t)p * n;
    float sum = 0.0f;
    for (int i = t; i < n; i += blockDim.x) sum += va[i] * vb[i];
    partial[t] = sum;
    for (int half = blockDim.x / 2; half > 0; half >>= 1) {
      __syncthreads();
      if (t < half) partial[t] += partial[t + half];
    }
    if (t == 0) out[p] = partial[0];
    // partial[0] must be read before the next pair overwrites it.
    __syncthreads();
  }
}
