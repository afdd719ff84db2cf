// BFS host side: a seeded random CSR graph, one expand + advance launch pair
// per level until the device reports no change, checked exactly against the
// levels of a CPU BFS.
#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "workloads/common/workload_support.h"
#include "workloads/ptxas_registers.h"

namespace tlmgpu::workloads {
namespace {

struct Graph {
  std::vector<int32_t> row_start;  // nodes + 1 offsets into edges
  std::vector<int32_t> edges;
};

// Each node has 1-8 random out-edges. A backbone edge from a random earlier
// node reaches almost every node from node 0 (1 in 64 nodes has none, so a
// few stay unreachable unless a random edge happens to reach them).
Graph make_graph(int nodes, InputRng& rng) {
  std::vector<std::vector<int32_t>> adj(static_cast<size_t>(nodes));
  for (int v = 0; v < nodes; ++v) {
    uint32_t degree = 1 + rng.below(8);
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

class Bfs : public Workload {
 public:
  /// paper_nodes: the graph's nodes at Size::Paper (Small and Default are
  /// the same for bfs and bfs_1m).
  explicit Bfs(int paper_nodes) : paper_nodes_(paper_nodes) {}

  WorkloadResult run(platform::GpuDevice& device, Size size, uint64_t seed) override {
    // Small: 3000 nodes (12 CTAs of 256, not a multiple of the block: tail
    // CTA). Default: 400,000 nodes (1563 CTAs). Paper: bfs 65,536 nodes, 256
    // CTAs per launch (seed 000 Table II: BFS kernel 256 TBs; seed 004 Table
    // 2: BFS_1 65536 nodes, 4 M instructions); bfs_1m 1,048,576 nodes, 4096
    // CTAs (seed 004 Table 2: BFS_2 1 M nodes, 724 M instructions). The
    // graph is our generator's (1-8 random out-edges per node and a
    // backbone), not the suites' graph files.
    const int nodes = size == Size::Small ? 3000 : size == Size::Paper ? paper_nodes_ : 400000;
    const uint32_t block = 256;
    InputRng rng(seed);
    Graph g = make_graph(nodes, rng);
    const int source = 0;

    std::vector<uint8_t> mask(size_t(nodes), 0), visited(size_t(nodes), 0);
    std::vector<int32_t> cost(size_t(nodes), -1);
    mask[source] = visited[source] = 1;
    cost[source] = 0;

    auto module = load_workload_module(device, "bfs");
    uint64_t d_row = device.upload(g.row_start, "row_start");
    uint64_t d_edges = device.upload(g.edges, "edges");
    uint64_t d_mask = device.upload(mask, "mask");
    uint64_t d_next = device.allocate(uint64_t(nodes), "next");
    device.memset(d_next, 0, uint64_t(nodes));
    uint64_t d_visited = device.upload(visited, "visited");
    uint64_t d_cost = device.upload(cost, "cost");
    uint64_t d_changed = device.allocate(sizeof(int32_t), "changed");

    const uint32_t ctas = uint32_t((nodes + int(block) - 1) / int(block));
    int levels = 0;
    for (int32_t changed = 1; changed != 0; ++levels) {
      if (levels > nodes) return {false, "the device never stopped reporting changes"};
      device.memset(d_changed, 0, sizeof(int32_t));
      device.launch(module, "bfs_expand", {ctas, 1, 1}, {block, 1, 1}, 0,
                    platform::KernelArgs()
                        .ptr(d_row)
                        .ptr(d_edges)
                        .ptr(d_mask)
                        .ptr(d_next)
                        .ptr(d_visited)
                        .ptr(d_cost)
                        .add<int32_t>(nodes));
      device.launch(module, "bfs_advance", {ctas, 1, 1}, {block, 1, 1}, 0,
                    platform::KernelArgs().ptr(d_mask).ptr(d_next).ptr(d_visited).ptr(d_changed).add<int32_t>(nodes));
      device.copy_from_device(&changed, d_changed, sizeof(int32_t));
    }
    auto got = device.download<int32_t>(d_cost, size_t(nodes));

    std::vector<int32_t> want(size_t(nodes), -1);
    std::deque<int32_t> queue{source};
    want[source] = 0;
    while (!queue.empty()) {
      int32_t v = queue.front();
      queue.pop_front();
      for (int32_t e = g.row_start[size_t(v)]; e < g.row_start[size_t(v) + 1]; ++e) {
        int32_t u = g.edges[size_t(e)];
        if (want[size_t(u)] < 0) {
          want[size_t(u)] = want[size_t(v)] + 1;
          queue.push_back(u);
        }
      }
    }
    for (uint64_t d : {d_row, d_edges, d_mask, d_next, d_visited, d_cost, d_changed}) device.free(d);

    WorkloadResult r = compare_exact(got, want, "level");
    if (r.verified) r.detail += " (" + std::to_string(levels) + " launch pairs)";
    return r;
  }

 private:
  int paper_nodes_;
};

const bool registered = register_workload(
    {"bfs", "level-synchronous breadth-first search over a random CSR graph, host loop on a changed flag",
     /*ipdom_safe=*/true, [] { return std::make_unique<Bfs>(65536); }});
// Seed 004's second BFS input: the same kernels on a 1 M-node graph at the
// paper size (one workload has one paper size).
const bool registered_1m = register_workload(
    {"bfs_1m", "bfs with seed 004's BFS_2 graph of 1 M nodes at the paper size (small and default as bfs)",
     /*ipdom_safe=*/true, [] { return std::make_unique<Bfs>(1 << 20); }});

}  // namespace
}  // namespace tlmgpu::workloads
