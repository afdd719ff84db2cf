// Level-synchronous breadth-first search over a CSR graph.
// expand: every node in the frontier (mask) visits its neighbours and marks
// unvisited ones for the next level. All frontier nodes share one level, so
// concurrent writers of cost[] store the same value and the result does not
// depend on the interleaving.
// advance: the marked nodes become the new frontier; `changed` tells the host
// whether another level is needed.

extern "C" __global__ void bfs_expand(const int* __restrict__ row_start, const int* __restrict__ edges,
                                      unsigned char* mask, unsigned char* next, const unsigned char* visited,
                                      int* cost, int nodes) {
  int v = blockIdx.x * blockDim.x + threadIdx.x;
  if (v >= nodes || !mask[v]) return;
  mask[v] = 0;
  int level = cost[v] + 1;
  for (int e = row_start[v]; e < row_start[v + 1]; ++e) {
    int u = edges[e];
    if (!visited[u]) {
      cost[u] = level;
      next[u] = 1;
    }
  }
}

extern "C" __global__ void bfs_advance(unsigned char* mask, unsigned char* next, unsigned char* visited,
                                       int* changed, int nodes) {
  int v = blockIdx.x * blockDim.x + threadIdx.x;
  if (v >= nodes || !next[v]) return;
  next[v] = 0;
  mask[v] = 1;
  visited[v] = 1;
  *changed = 1;
}
