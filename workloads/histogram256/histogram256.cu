// 256-bin histogram of bytes, the CUDA SDK sample histogram's histogram256
// path (seed 000 Table II). histogram256Kernel: 192 threads (6 warps) per
// CTA, one sub-histogram per warp in shared memory updated with shared
// atomics, 32-bit words read in a grid-stride loop over a fixed grid of 240
// CTAs; the CTA then adds its 6 warp histograms into one partial histogram.
// mergeHistogram256Kernel: one CTA per bin adds the 240 partial histograms
// with a shared-memory tree.

#define H256_THREADS 192
#define H256_WARPS (H256_THREADS / 32)
#define H256_BINS 256
#define MERGE_THREADS 256

extern "C" __global__ void histogram256Kernel(unsigned* __restrict__ partials, const unsigned* __restrict__ data,
                                              unsigned count)
{
  __shared__ unsigned warp_hist[H256_WARPS * H256_BINS];
  const unsigned t = threadIdx.x;
  for (unsigned i = t; i < H256_WARPS * H256_BINS; i += H256_THREADS) warp_hist[i] = 0;
  __syncthreads();

  unsigned* mine = warp_hist + (t / 32) * H256_BINS;
  for (unsigned pos = blockIdx.x * H256_THREADS + t; pos < count; pos += H256_THREADS * gridDim.x) {
    const unsigned w = data[pos];
    atomicAdd(mine + (w & 0xffu), 1u);
    atomicAdd(mine + ((w >> 8) & 0xffu), 1u);
    atomicAdd(mine + ((w >> 16) & 0xffu), 1u);
    atomicAdd(mine + (w >> 24), 1u);
  }
  __syncthreads();

  for (unsigned bin = t; bin < H256_BINS; bin += H256_THREADS) {
    unsigned sum = 0;
    for (unsigned w = 0; w < H256_WARPS; ++w) sum += warp_hist[w * H256_BINS + bin];
    partials[blockIdx.x * H256_BINS + bin] = sum;
  }
}

// One CTA per bin: strided sums over the partial histograms, then a tree.
extern "C" __global__ void mergeHistogram256Kernel(unsigned* __restrict__ hist, const unsigned* __restrict__ partials,
                                                   unsigned num_partials)
{
  __shared__ unsigned sums[MERGE_THREADS];
  const unsigned t = threadIdx.x;
  unsigned sum = 0;
  for (unsigned p = t; p < num_partials; p += MERGE_THREADS) sum += partials[p * H256_BINS + blockIdx.x];
  sums[t] = sum;
  for (unsigned half = MERGE_THREADS / 2; half > 0; half >>= 1) {
    __syncthreads();
    if (t < half) sums[t] += sums[t + half];
  }
  if (t == 0) hist[blockIdx.x] = sums[0];
}
