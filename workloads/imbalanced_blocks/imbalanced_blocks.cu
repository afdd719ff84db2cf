// CTAs with very different amounts of work: CTA b runs trips[b] rounds
// (a few CTAs are ~10x heavier than the rest), and inside a round warps do
// 1, 7, 13 or 19 mixing steps depending on their index, so fast warps wait at the
// barriers for slow ones. Each round exchanges values through shared memory
// between two barriers. Integer math: the result is exact.

#define IB_MAX_BLOCK 256

extern "C" __global__ void imbalanced_blocks(const int* __restrict__ trips, const unsigned* __restrict__ input,
                                             unsigned* __restrict__ out, unsigned input_len) {
  __shared__ unsigned buf[IB_MAX_BLOCK];
  const unsigned t = threadIdx.x, n = blockDim.x;
  const unsigned gid = blockIdx.x * n + t;
  const unsigned warp = t / 32;
  const int rounds = trips[blockIdx.x];

  unsigned x = gid * 2654435761u + 12345u;
  for (int r = 0; r < rounds; ++r) {
    x += input[(gid * 7u + unsigned(r) * 131u) % input_len];
    const unsigned steps = 1u + 6u * (warp & 3u);
    // xorshift-multiply: nonlinear, so nvcc cannot fold the steps into one.
    for (unsigned j = 0; j < steps; ++j) x = ((x ^ (x >> 13)) * 0x5bd1e995u) + j;
    buf[t] = x;
    __syncthreads();
    x ^= buf[(t + unsigned(r) + 1u) % n] >> 3;
    __syncthreads();  // the neighbour's value is read before it is overwritten
  }
  out[gid] = x;
}
