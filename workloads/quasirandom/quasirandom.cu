// Quasirandom generator (CUDA SDK quasirandomGenerator). Two kernels:
// quasirandomGeneratorKernel writes QRNG_DIMENSIONS Niederreiter base-2
// sequences of N points each: point n of dimension d is the XOR of the
// direction numbers c_Table[d][b] over the set bits b of n, scaled into
// (0, 1]. inverseCNDKernel maps uniform values through Moro's inverse of
// the standard normal distribution function: those of an input array, or
// (no input) the evenly spaced points i / (count + 1).

#define QRNG_DIMENSIONS 3
#define QRNG_RESOLUTION 31
#define QRNG_INT_SCALE (1.0f / (float)0x80000001U)

__constant__ unsigned int c_Table[QRNG_DIMENSIONS][QRNG_RESOLUTION];

// Block: (x threads, QRNG_DIMENSIONS); threadIdx.y is the dimension, and
// the grid's x threads take the points n = seed + pos in a grid-stride loop.
// Output: dimension d's N points at out[d * N].
extern "C" __global__ void quasirandomGeneratorKernel(float* __restrict__ out, unsigned int seed, unsigned int n)
{
  const unsigned int* table = c_Table[threadIdx.y];
  const unsigned int stride = blockDim.x * gridDim.x;
  float* dim_out = out + threadIdx.y * n;
  for (unsigned int pos = blockIdx.x * blockDim.x + threadIdx.x; pos < n; pos += stride) {
    unsigned int bits = seed + pos;
    unsigned int acc = 0;
    for (int b = 0; b < QRNG_RESOLUTION; ++b, bits >>= 1)
      if (bits & 1) acc ^= table[b];
    dim_out[pos] = (float)(acc + 1) * QRNG_INT_SCALE;
  }
}

// Moro (1995): a rational approximation in the centre, a Chebyshev
// polynomial in log(-log p) in the tails. p in (0, 1).
__device__ inline float moro_inverse_cnd(float p)
{
  const float a1 = 2.50662823884f, a2 = -18.61500062529f, a3 = 41.39119773534f, a4 = -25.44106049637f;
  const float b1 = -8.4735109309f, b2 = 23.08336743743f, b3 = -21.06224101826f, b4 = 3.13082909833f;
  const float c1 = 0.337475482272615f, c2 = 0.976169019091719f, c3 = 0.160797971491821f,
              c4 = 2.76438810333863E-02f, c5 = 3.8405729373609E-03f, c6 = 3.951896511919E-04f,
              c7 = 3.21767881768E-05f, c8 = 2.888167364E-07f, c9 = 3.960315187E-07f;
  const float y = p - 0.5f;
  float z;
  if (fabsf(y) < 0.42f) {
    const float r = y * y;
    z = y * (((a4 * r + a3) * r + a2) * r + a1) / ((((b4 * r + b3) * r + b2) * r + b1) * r + 1.0f);
  } else {
    const float tail = y > 0.0f ? 1.0f - p : p;
    const float r = __logf(-__logf(tail));
    z = c1 + r * (c2 + r * (c3 + r * (c4 + r * (c5 + r * (c6 + r * (c7 + r * (c8 + r * c9)))))));
    if (y < 0.0f) z = -z;
  }
  return z;
}

// One thread per value in a grid-stride loop over `count` values.
extern "C" __global__ void inverseCNDKernel(float* __restrict__ out, const float* __restrict__ in, unsigned int count)
{
  const unsigned int stride = blockDim.x * gridDim.x;
  const unsigned int first = blockIdx.x * blockDim.x + threadIdx.x;
  if (in) {
    for (unsigned int pos = first; pos < count; pos += stride) out[pos] = moro_inverse_cnd(in[pos]);
  } else {
    const float step = 1.0f / (float)(count + 1);
    for (unsigned int pos = first; pos < count; pos += stride) out[pos] = moro_inverse_cnd((float)(pos + 1) * step);
  }
}
