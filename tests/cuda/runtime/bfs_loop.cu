// A BFS host loop as graph codes write it: one level per launch, the host
// copying a device "changed" flag back after each launch and stopping when
// it stays 0. A 24 x 24 grid graph with some edges removed (deterministic),
// searched from 8 sources: 20 to 50 levels each, a few hundred launches.
// Prints the number of launches (the test compares it with --stats).
#include <algorithm>
#include <queue>
#include <vector>

#include "tests/cuda/runtime/rt_check.h"

__global__ void bfs_level_kernel(const int* row, const int* col, int* level, int n, int current, int* changed) {
  const int v = blockIdx.x * blockDim.x + threadIdx.x;
  if (v >= n || level[v] != current) return;
  for (int e = row[v]; e < row[v + 1]; ++e) {
    const int u = col[e];
    if (level[u] == -1) {
      level[u] = current + 1;  // every writer writes the same value
      *changed = 1;
    }
  }
}

int main() {
  const int side = 24, n = side * side;
  // Undirected grid edges, dropping about one in eight (never isolating the
  // graph: the horizontal edges of row 0 and the vertical ones of column 0 stay).
  std::vector<std::vector<int>> adj(n);
  unsigned seed = 12345u;
  auto keep = [&seed]() {
    seed = seed * 1103515245u + 12345u;
    return ((seed >> 16) & 7u) != 0;
  };
  for (int y = 0; y < side; ++y)
    for (int x = 0; x < side; ++x) {
      const int v = y * side + x;
      if (x + 1 < side && (y == 0 || keep())) {
        adj[v].push_back(v + 1);
        adj[v + 1].push_back(v);
      }
      if (y + 1 < side && (x == 0 || keep())) {
        adj[v].push_back(v + side);
        adj[v + side].push_back(v);
      }
    }
  std::vector<int> row(n + 1, 0), col;
  for (int v = 0; v < n; ++v) {
    row[v + 1] = row[v] + int(adj[v].size());
    col.insert(col.end(), adj[v].begin(), adj[v].end());
  }

  int *d_row, *d_col, *d_level, *d_changed;
  RT_CHECK(cudaMalloc(&d_row, (n + 1) * sizeof(int)));
  RT_CHECK(cudaMalloc(&d_col, col.size() * sizeof(int)));
  RT_CHECK(cudaMalloc(&d_level, n * sizeof(int)));
  RT_CHECK(cudaMalloc(&d_changed, sizeof(int)));
  RT_CHECK(cudaMemcpy(d_row, row.data(), (n + 1) * sizeof(int), cudaMemcpyHostToDevice));
  RT_CHECK(cudaMemcpy(d_col, col.data(), col.size() * sizeof(int), cudaMemcpyHostToDevice));

  const int sources[] = {0, side - 1, n - side, n - 1, n / 2 + side / 2, 5 * side + 7, 17 * side + 3, 11 * side + 20};
  int launches = 0, min_depth = n, max_depth = 0;
  long long level_sum = 0;
  for (int source : sources) {
    RT_CHECK(cudaMemset(d_level, 0xff, n * sizeof(int)));  // -1 everywhere
    const int zero = 0;
    RT_CHECK(cudaMemcpy(d_level + source, &zero, sizeof zero, cudaMemcpyHostToDevice));
    int current = 0;
    for (;; ++current) {
      RT_CHECK(cudaMemset(d_changed, 0, sizeof(int)));
      bfs_level_kernel<<<(n + 127) / 128, 128>>>(d_row, d_col, d_level, n, current, d_changed);
      RT_CHECK(cudaGetLastError());
      ++launches;
      int changed = 0;
      RT_CHECK(cudaMemcpy(&changed, d_changed, sizeof changed, cudaMemcpyDeviceToHost));
      if (!changed) break;
    }
    std::vector<int> level(n);
    RT_CHECK(cudaMemcpy(level.data(), d_level, n * sizeof(int), cudaMemcpyDeviceToHost));

    std::vector<int> want(n, -1);
    std::queue<int> q;
    want[source] = 0;
    q.push(source);
    while (!q.empty()) {
      const int v = q.front();
      q.pop();
      for (int u : adj[v])
        if (want[u] == -1) {
          want[u] = want[v] + 1;
          q.push(u);
        }
    }
    int depth = 0;
    for (int v = 0; v < n; ++v) {
      depth = std::max(depth, want[v]);
      level_sum += level[v];
    }
    RT_EXPECT(level == want);
    RT_EXPECT(current == depth);  // the last launch found nothing new
    min_depth = std::min(min_depth, depth);
    max_depth = std::max(max_depth, depth);
  }
  std::printf("bfs_loop: nodes=%d edges=%zu sources=%zu launches=%d depths=%d..%d level_sum=%lld\n", n,
              col.size() / 2, sizeof sources / sizeof sources[0], launches, min_depth, max_depth, level_sum);
  RT_CHECK(cudaFree(d_row));
  RT_CHECK(cudaFree(d_col));
  RT_CHECK(cudaFree(d_level));
  RT_CHECK(cudaFree(d_changed));
  return rt_finish("bfs_loop");
}
