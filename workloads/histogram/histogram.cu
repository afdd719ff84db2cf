// 256-bin byte histogram in two kernels: each CTA counts its share of the
// input into a shared-memory histogram with shared atomics, then writes the
// partial histogram out; a merge kernel sums the partials per bin.

#define BINS 256

// Words are read 32 bits at a time and split into 4 bytes (4 shared atomics).
extern "C" __global__ void histogram_partial(const unsigned* __restrict__ words, int num_words,
                                             unsigned* __restrict__ partials)
{
  __shared__ unsigned hist[BINS];
  for (int i = threadIdx.x; i < BINS; i += blockDim.x) hist[i] = 0;
  __syncthreads();
  for (int w = blockIdx.x * blockDim.x + threadIdx.x; w < num_words; w += gridDim.x * blockDim.x) {
    unsigned v = words[w];
    atomicAdd(&hist[v & 0xffu], 1u);
    atomicAdd(&hist[(v >> 8) & 0xffu], 1u);
    atomicAdd(&hist[(v >> 16) & 0xffu], 1u);
    atomicAdd(&hist[v >> 24], 1u);
  }
  __syncthreads();
  for (int i = threadIdx.x; i < BINS; i += blockDim.x) partials[blockIdx.x * BINS + i] = hist[i];
}

// One thread per bin; adds the partials of every CTA in CTA order.
extern "C" __global__ void histogram_merge(const unsigned* __restrict__ partials, int num_partials,
                                           unsigned* __restrict__ hist)
{
  int bin = blockIdx.x * blockDim.x + threadIdx.x;
  if (bin >= BINS) return;
  unsigned sum = 0;
  for (int p = 0; p < num_partials; ++p) sum += partials[p * BINS + bin];
  hist[bin] = sum;
}
