// 64-bin histogram of bytes (bin = byte >> 2), the CUDA SDK sample
// histogram's histogram64 path (seed 000 Table II). histogram64Kernel: 64
// threads per CTA, each with its own byte-wide counters in shared memory (no
// atomics), a 16-byte word read per step in a grid-stride loop; the grid is
// sized so that no thread sees more than 240 bytes (an 8-bit counter cannot
// overflow). The CTA then sums its 64 per-thread sub-histograms into one
// partial histogram. mergeHistogram64Kernel: one CTA per bin adds the
// partial histograms of all CTAs with a shared-memory tree.

#define H64_THREADS 64
#define H64_BINS 64
#define MERGE_THREADS 256

// Byte column of thread t's counters within a bin's 64-byte row: threads
// t and t+1 of a warp land 4 bytes apart (different banks), the four
// threads that share a word are 16 apart.
__device__ __forceinline__ unsigned counter_column(unsigned t) { return ((t & 15u) << 2) | (t >> 4); }

__device__ __forceinline__ void count_word(unsigned char* counters, unsigned word)
{
  counters[((word >> 2) & 0x3fu) * H64_THREADS] += 1;
  counters[((word >> 10) & 0x3fu) * H64_THREADS] += 1;
  counters[((word >> 18) & 0x3fu) * H64_THREADS] += 1;
  counters[((word >> 26) & 0x3fu) * H64_THREADS] += 1;
}

extern "C" __global__ void histogram64Kernel(unsigned* __restrict__ partials, const uint4* __restrict__ data,
                                             unsigned count)
{
  // Bin b's counters are bytes [b*64, b*64 + 64).
  __shared__ unsigned counters_words[H64_BINS * H64_THREADS / 4];
  unsigned char* counters = reinterpret_cast<unsigned char*>(counters_words);
  const unsigned t = threadIdx.x;

  for (unsigned i = t; i < H64_BINS * H64_THREADS / 4; i += H64_THREADS) counters_words[i] = 0;
  __syncthreads();

  unsigned char* mine = counters + counter_column(t);
  for (unsigned pos = blockIdx.x * H64_THREADS + t; pos < count; pos += H64_THREADS * gridDim.x) {
    const uint4 v = data[pos];
    count_word(mine, v.x);
    count_word(mine, v.y);
    count_word(mine, v.z);
    count_word(mine, v.w);
  }
  __syncthreads();

  // Thread t sums bin t: the 16 words of its row, 4 counters each. Thread t
  // starts at word t % 16 so that a warp's reads spread over the banks.
  if (t < H64_BINS) {
    const unsigned* row = counters_words + t * (H64_THREADS / 4);
    unsigned sum = 0;
    // Unrolled 4 (not 16) keeps ptxas's and the simulator's register counts close.
#pragma unroll 4
    for (unsigned i = 0; i < H64_THREADS / 4; ++i) {
      const unsigned w = row[(i + t) & 15u];
      sum += (w & 0xffu) + ((w >> 8) & 0xffu) + ((w >> 16) & 0xffu) + (w >> 24);
    }
    partials[blockIdx.x * H64_BINS + t] = sum;
  }
}

// One CTA per bin: strided sums over the partial histograms, then a tree.
extern "C" __global__ void mergeHistogram64Kernel(unsigned* __restrict__ hist, const unsigned* __restrict__ partials,
                                                  unsigned num_partials)
{
  __shared__ unsigned sums[MERGE_THREADS];
  const unsigned t = threadIdx.x;
  unsigned sum = 0;
  for (unsigned p = t; p < num_partials; p += MERGE_THREADS) sum += partials[p * H64_BINS + blockIdx.x];
  sums[t] = sum;
  for (unsigned half = MERGE_THREADS / 2; half > 0; half >>= 1) {
    __syncthreads();
    if (t < half) sums[t] += sums[t + half];
  }
  if (t == 0) hist[blockIdx.x] = sums[0];
}
