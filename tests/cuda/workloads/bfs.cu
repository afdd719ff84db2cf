// bfs as a CUDA program: the host steps of workloads/bfs/bfs.cpp (a seeded
// CSR graph, expand + advance launches per level until nothing changes,
// levels checked against a CPU BFS). BFS_PAPER_NODES sets the paper size's
// graph (bfs_1m.cu defines it).
#include <deque>

#include "tests/cuda/workloads/program_support.h"
#include "workloads/bfs/bfs.cu"

namespace {

struct Graph {
  std::vector<int32_t> row_start;  // nodes + 1 offsets into edges
  std::vector<int32_t> edges;
};

// 1-8 random out-edges per node, plus a backbone edge from a random earlier
// node for 63 in 64 nodes (the workload's generator, draw for draw).
Graph make_graph(int nodes, program::InputRng& rng) {
  std::vector<std::vector<int32_t>> adj(static_cast<size_t>(nodes));
  for (int v = 0; v < nodes; ++v) {
    const uint32_t degree = 1 + rng.below(8);
    for (uint32_t k = 0; k < degree; ++k) adj[size_t(v)].push_back(int32_t(rng.below(uint32_t(nodes))));
  }
  for (int v = 1; v < nodes; ++v) {
    if (rng.below(64) == 0) continue;
    adj[rng.below(uint32_t(v))].push_back(v);
  }
  Graph g;
  g.row_start.push_back(0);
  for (const auto& out : adj) {
    g.edges.insert(g.edges.end(), out.begin(), out.end());
    g.row_start.push_back(int32_t(g.edges.size()));
  }
  return g;
}

}  // namespace

#ifndef BFS_PAPER_NODES
#define BFS_PAPER_NODES 65536
#define BFS_NAME "bfs"
#endif

int main(int argc, char** argv) {
  const program::Options opt = program::parse_options(argc, argv);
  const int nodes =
      opt.size == program::Size::Small ? 3000 : opt.size == program::Size::Paper ? BFS_PAPER_NODES : 400000;
  const unsigned block = 256;
  program::InputRng rng(opt.seed);
  const Graph g = make_graph(nodes, rng);
  const int source = 0;

  std::vector<uint8_t> mask(size_t(nodes), 0), visited(size_t(nodes), 0);
  std::vector<int32_t> cost(size_t(nodes), -1);
  mask[source] = visited[source] = 1;
  cost[source] = 0;

  int* d_row = program::upload(g.row_start);
  int* d_edges = program::upload(g.edges);
  uint8_t* d_mask = program::upload(mask);
  uint8_t* d_next = program::device_alloc<uint8_t>(static_cast<size_t>(nodes));
  CUDA_CHECK(cudaMemset(d_next, 0, size_t(nodes)));
  uint8_t* d_visited = program::upload(visited);
  int* d_cost = program::upload(cost);
  int* d_changed = program::device_alloc<int>(1);

  const unsigned ctas = unsigned((nodes + int(block) - 1) / int(block));
  int levels = 0;
  for (int32_t changed = 1; changed != 0; ++levels) {
    if (levels > nodes) return program::report("bfs", {false, "the device never stopped reporting changes"});
    CUDA_CHECK(cudaMemset(d_changed, 0, sizeof(int32_t)));
    bfs_expand<<<ctas, block>>>(d_row, d_edges, d_mask, d_next, d_visited, d_cost, nodes);
    CUDA_CHECK_LAUNCH();
    bfs_advance<<<ctas, block>>>(d_mask, d_next, d_visited, d_changed, nodes);
    CUDA_CHECK_LAUNCH();
    CUDA_CHECK(cudaMemcpy(&changed, d_changed, sizeof(int32_t), cudaMemcpyDeviceToHost));
  }
  const std::vector<int32_t> got = program::download(d_cost, size_t(nodes));

  std::vector<int32_t> want(size_t(nodes), -1);
  std::deque<int32_t> queue{source};
  want[source] = 0;
  while (!queue.empty()) {
    const int32_t v = queue.front();
    queue.pop_front();
    for (int32_t e = g.row_start[size_t(v)]; e < g.row_start[size_t(v) + 1]; ++e) {
      const int32_t u = g.edges[size_t(e)];
      if (want[size_t(u)] < 0) {
        want[size_t(u)] = want[size_t(v)] + 1;
        queue.push_back(u);
      }
    }
  }
  program::free_all(d_row, d_edges, d_mask, d_next, d_visited, d_cost, d_changed);

  program::Result r = program::compare_exact(got, want, "level");
  if (r.verified) r.detail += " (" + std::to_string(levels) + " launch pairs)";
  return program::report(BFS_NAME, r);
}
