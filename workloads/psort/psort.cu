// Parallel rank sort (the Vortex project's psort benchmark): the position
// of key k in the sorted output is the number of keys smaller than it plus
// the number of equal keys before it, so every key is compared with every
// other and written straight to its place (stable, any key values).
//
// One CTA of blockDim.x = n * parts threads: thread t ranks key t % n against
// the part t / n of the keys (n / parts of them), so that all the warps of a
// CTA larger than the input work; the parts' counts meet in shared memory.
// With parts = 1 this is Vortex's kernel (each thread scans all n keys).
// All the lanes of a warp read the same key at a time (one broadcast load).

#define PSORT_MAX_KEYS 1024

extern "C" __global__ void psort(const int* __restrict__ in, int* __restrict__ out, int n)
{
  __shared__ int rank[PSORT_MAX_KEYS];
  const int t = threadIdx.x;
  const int parts = blockDim.x / n;
  const int k = t % n, part = t / n;
  if (t < n) rank[t] = 0;
  __syncthreads();
  const int ref = in[k];
  const int begin = part * (n / parts), end = begin + n / parts;
  int pos = 0;
  for (int i = begin; i < end; ++i) {
    const int cur = in[i];
    pos += (cur < ref) || (cur == ref && i < k);
  }
  atomicAdd(&rank[k], pos);
  __syncthreads();
  if (part == 0) out[rank[k]] = ref;
}
