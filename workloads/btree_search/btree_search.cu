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

// The paper size: Rodinia b+tree's shape, one CTA of ORDER threads per query
// over a wide tree (order 256) whose threads test a node's key slots in
// parallel. A wide node is WIDE_NODE_INTS ints: key count, leaf flag, the
// global index of a leaf's first record, ORDER + 1 key slots and ORDER
// children. Slot 0 holds INT_MIN, slots 1 .. count the keys ascending, the
// rest INT_MAX, so lane t's test slot[t] <= key < slot[t + 1] is true for
// exactly one lane: in an inner node that lane's child covers the key; in a
// leaf it is the number of the leaf's keys <= key. Records are numbered in
// key order (a leaf's keys are records first .. first + count - 1).
#define ORDER 256
#define WIDE_NODE_INTS (3 + (ORDER + 1) + ORDER)
#define W_COUNT 0
#define W_FIRST 2
#define W_SLOTS 3
#define W_CHILDREN (3 + ORDER + 1)

// findK: the value of each query's key, or -1 (the host presets answers).
// `levels` inner levels lie above the leaves.
extern "C" __global__ void findK(const int* __restrict__ nodes, int root, int levels, const int* __restrict__ values,
                                 const int* __restrict__ keys, int* __restrict__ answers)
{
  __shared__ int current;
  const int t = threadIdx.x;
  const int key = keys[blockIdx.x];
  if (t == 0) current = root;
  __syncthreads();
  for (int level = 0; level < levels; ++level) {
    const int* nd = nodes + current * WIDE_NODE_INTS;
    const bool mine = nd[W_SLOTS + t] <= key && key < nd[W_SLOTS + t + 1];
    const int child = nd[W_CHILDREN + t];
    __syncthreads();  // every lane has read `current`
    if (mine) current = child;
    __syncthreads();  // the next level's node is set
  }
  const int* leaf = nodes + current * WIDE_NODE_INTS;
  if (leaf[W_SLOTS + t + 1] == key) answers[blockIdx.x] = values[leaf[W_FIRST] + t];
}

// findRangeK: for each query [start, end], the index of the first record
// with key >= start and the number of records with start <= key <= end.
// The two bounds descend side by side, as Rodinia's findRangeK does.
extern "C" __global__ void findRangeK(const int* __restrict__ nodes, int root, int levels,
                                      const int* __restrict__ starts, const int* __restrict__ ends,
                                      int* __restrict__ first_record, int* __restrict__ record_count)
{
  __shared__ int low_node, high_node, low_index, high_index;
  const int t = threadIdx.x;
  const int start = starts[blockIdx.x], end = ends[blockIdx.x];
  if (t == 0) low_node = high_node = root;
  __syncthreads();
  for (int level = 0; level < levels; ++level) {
    const int* lo = nodes + low_node * WIDE_NODE_INTS;
    const int* hi = nodes + high_node * WIDE_NODE_INTS;
    // The last inner node whose range holds start - 1 leads to the leaf
    // where the keys >= start begin.
    const bool low_mine = lo[W_SLOTS + t] < start && start <= lo[W_SLOTS + t + 1];
    const bool high_mine = hi[W_SLOTS + t] <= end && end < hi[W_SLOTS + t + 1];
    const int low_child = lo[W_CHILDREN + t], high_child = hi[W_CHILDREN + t];
    __syncthreads();
    if (low_mine) low_node = low_child;
    if (high_mine) high_node = high_child;
    __syncthreads();
  }
  const int* lo = nodes + low_node * WIDE_NODE_INTS;
  const int* hi = nodes + high_node * WIDE_NODE_INTS;
  if (lo[W_SLOTS + t] < start && start <= lo[W_SLOTS + t + 1]) low_index = lo[W_FIRST] + t;
  if (hi[W_SLOTS + t] <= end && end < hi[W_SLOTS + t + 1]) high_index = hi[W_FIRST] + t;
  __syncthreads();
  if (t == 0) {
    first_record[blockIdx.x] = low_index;
    record_count[blockIdx.x] = high_index - low_index;
  }
}
