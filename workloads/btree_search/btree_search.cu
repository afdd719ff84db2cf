// Queries over a B+tree of (key, value) records kept in device memory (nodes
// of 18 ints: key count, leaf flag, next leaf, 7 keys, 8 children or values).
// find: each thread walks from the root to a leaf, scanning each node's keys
// linearly, and returns the key's value or -1. Every level is a dependent
// load chain (pointer chasing) whose scan length differs between lanes:
// latency-bound and divergent.
// range: each thread descends to the leaf of its lower bound, then follows
// the leaves' next links until its upper bound, counting the records in
// range and summing their values. Range widths differ per query, so lanes
// leave the loop at very different times.

#define NODE_INTS 18
#define NUM_KEYS 0
#define IS_LEAF 1
#define NEXT_LEAF 2
#define KEYS 3
#define CHILDREN 10

__device__ int descend(const int* __restrict__ nodes, int root, int key) {
  int node = root;
  while (!nodes[node * NODE_INTS + IS_LEAF]) {
    const int* nd = nodes + node * NODE_INTS;
    const int count = nd[NUM_KEYS];
    int c = 0;
    while (c < count && key >= nd[KEYS + c]) ++c;
    node = nd[CHILDREN + c];
  }
  return node;
}

extern "C" __global__ void btree_find(const int* __restrict__ nodes, int root, const int* __restrict__ queries,
                                      int* __restrict__ values, int num_queries) {
  const int q = blockIdx.x * blockDim.x + threadIdx.x;
  if (q >= num_queries) return;
  const int key = queries[q];
  const int* leaf = nodes + descend(nodes, root, key) * NODE_INTS;
  int value = -1;
  for (int c = 0; c < leaf[NUM_KEYS]; ++c)
    if (leaf[KEYS + c] == key) value = leaf[CHILDREN + c];
  values[q] = value;
}

extern "C" __global__ void btree_range(const int* __restrict__ nodes, int root, const int* __restrict__ lower,
                                       const int* __restrict__ upper, int* __restrict__ counts,
                                       unsigned* __restrict__ value_sums, int num_queries) {
  const int q = blockIdx.x * blockDim.x + threadIdx.x;
  if (q >= num_queries) return;
  const int lo = lower[q], hi = upper[q];
  int node = descend(nodes, root, lo);
  int count = 0;
  unsigned sum = 0;
  while (node >= 0) {
    const int* leaf = nodes + node * NODE_INTS;
    const int keys = leaf[NUM_KEYS];
    for (int c = 0; c < keys; ++c) {
      const int key = leaf[KEYS + c];
      if (key >= lo && key <= hi) {
        ++count;
        sum += unsigned(leaf[CHILDREN + c]);
      }
    }
    // Keys ascend along the leaf chain: stop after the leaf that passes hi.
    node = leaf[KEYS + keys - 1] > hi ? -1 : leaf[NEXT_LEAF];
  }
  counts[q] = count;
  value_sums[q] = sum;
}
