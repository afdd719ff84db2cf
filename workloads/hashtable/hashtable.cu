// HashTable (seed 001): threads insert keys into a chained hash table whose
// buckets are guarded by per-bucket spin locks. Node i holds keys[i]; a chain
// is a linked list of node indices through next[], ending in -1. Contention is
// set by the number of buckets: with random keys, lanes of one warp and
// different warps collide on a bucket with probability ~ 1 / num_buckets.

__device__ __forceinline__ unsigned bucket_of(unsigned key, unsigned num_buckets)
{
  // Multiplicative hashing spreads sequential and clustered keys.
  return (key * 2654435761u) % num_buckets;
}

extern "C" __global__ void hashtable_insert(int* locks, volatile int* heads, int* next, const unsigned* keys,
                                            int num_keys, unsigned num_buckets)
{
  int stride = gridDim.x * blockDim.x;
  // Node n is inserted by thread n % stride: consecutive lanes take
  // consecutive keys, so the key loads coalesce.
  for (int node = blockIdx.x * blockDim.x + threadIdx.x; node < num_keys; node += stride) {
    unsigned b = bucket_of(keys[node], num_buckets);
    bool done = false;
    while (!done) {
      if (atomicCAS(&locks[b], 0, 1) == 0) {
        __threadfence();
        next[node] = heads[b];
        heads[b] = node;
        __threadfence();
        done = true;
        atomicExch(&locks[b], 0);
      }
    }
  }
}
