// btree_search host side: a B+tree bulk-loaded from seeded sorted keys
// (leaves filled to a seeded 4-7 keys, inner nodes to 3-7), stored as
// 18-int nodes in one device array; point queries (half present, half
// absent) and range queries of seeded widths, checked exactly against
// std::map look-ups. The paper size builds Rodinia's wide tree (order 256)
// instead and runs one CTA per query (findRangeK, findK).
#include <algorithm>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "workloads/common/workload_support.h"
#include "workloads/ptxas_registers.h"

namespace tlmgpu::workloads {
namespace {

// Node layout of btree_search.cu.
constexpr int kNodeInts = 18, kNumKeys = 0, kIsLeaf = 1, kNextLeaf = 2, kKeys = 3, kChildren = 10;
constexpr int kMaxKeys = 7;

struct Tree {
  std::vector<int32_t> nodes;
  int32_t root = 0;
  int depth = 0;
};

int32_t new_node(Tree& t, bool leaf) {
  const int32_t id = int32_t(t.nodes.size() / kNodeInts);
  t.nodes.resize(t.nodes.size() + kNodeInts, 0);
  t.nodes[size_t(id) * kNodeInts + kIsLeaf] = leaf ? 1 : 0;
  t.nodes[size_t(id) * kNodeInts + kNextLeaf] = -1;
  return id;
}

Tree build_tree(const std::map<int32_t, int32_t>& records, InputRng& rng) {
  Tree t;
  // Leaves: (node, smallest key) left to right.
  std::vector<std::pair<int32_t, int32_t>> level;
  size_t left = records.size();  // records not yet in a leaf (std::distance on a map is linear)
  for (auto it = records.begin(); it != records.end();) {
    const int32_t leaf = new_node(t, true);
    const int fill = int(std::min<size_t>(4 + rng.below(4), left));
    left -= size_t(fill);
    int32_t* nd = &t.nodes[size_t(leaf) * kNodeInts];
    nd[kNumKeys] = fill;
    level.push_back({leaf, it->first});
    for (int c = 0; c < fill; ++c, ++it) {
      nd[kKeys + c] = it->first;
      nd[kChildren + c] = it->second;
    }
    if (level.size() > 1) t.nodes[size_t(level[level.size() - 2].first) * kNodeInts + kNextLeaf] = leaf;
  }
  t.depth = 1;
  // Inner levels: each node takes 4-8 children; key c separates child c
  // from child c + 1 and is child c + 1's smallest key.
  while (level.size() > 1) {
    std::vector<std::pair<int32_t, int32_t>> upper;
    for (size_t i = 0; i < level.size();) {
      size_t take = std::min<size_t>(4 + rng.below(5), level.size() - i);
      // No inner node with a single child: the last one takes a neighbour's.
      if (level.size() - i - take == 1) take = take < size_t(kMaxKeys) + 1 ? take + 1 : take - 1;
      const int32_t inner = new_node(t, false);
      int32_t* nd = &t.nodes[size_t(inner) * kNodeInts];
      nd[kNumKeys] = int32_t(take) - 1;
      for (size_t c = 0; c < take; ++c) {
        nd[kChildren + c] = level[i + c].first;
        if (c > 0) nd[kKeys + c - 1] = level[i + c].second;
      }
      upper.push_back({inner, level[i].second});
      i += take;
    }
    level.swap(upper);
    ++t.depth;
  }
  t.root = level.front().first;
  return t;
}

// The paper size's wide tree (btree_search.cu's findK / findRangeK layout).
constexpr int kOrder = 256, kWideInts = 3 + (kOrder + 1) + kOrder, kWideCount = 0, kWideLeaf = 1, kWideFirst = 2,
              kWideSlots = 3, kWideChildren = 3 + kOrder + 1;

struct WideTree {
  std::vector<int32_t> nodes;
  int32_t root = 0;
  int levels = 0;  // inner levels above the leaves
};

int32_t new_wide_node(WideTree& t, bool leaf, int count, int32_t first) {
  const int32_t id = int32_t(t.nodes.size() / kWideInts);
  t.nodes.resize(t.nodes.size() + kWideInts, 0);
  int32_t* nd = &t.nodes[size_t(id) * kWideInts];
  nd[kWideCount] = count;
  nd[kWideLeaf] = leaf ? 1 : 0;
  nd[kWideFirst] = first;
  nd[kWideSlots] = INT32_MIN;
  for (int s = 1; s <= kOrder; ++s) nd[kWideSlots + s] = INT32_MAX;
  return id;
}

// Bulk load: leaves take a seeded 128-255 keys, inner nodes 128-256
// children (a B+tree of order 256 at least half full, as Rodinia's default
// tree). Slot c of an inner node is child c's smallest key (c >= 1).
WideTree build_wide_tree(const std::vector<int32_t>& keys, InputRng& rng) {
  WideTree t;
  std::vector<std::pair<int32_t, int32_t>> level;  // (node, smallest key)
  for (size_t i = 0; i < keys.size();) {
    const int fill = int(std::min<size_t>(128 + rng.below(128), keys.size() - i));
    const int32_t leaf = new_wide_node(t, true, fill, int32_t(i));
    int32_t* nd = &t.nodes[size_t(leaf) * kWideInts];
    for (int c = 0; c < fill; ++c) nd[kWideSlots + 1 + c] = keys[i + size_t(c)];
    level.push_back({leaf, keys[i]});
    i += size_t(fill);
  }
  while (level.size() > 1) {
    std::vector<std::pair<int32_t, int32_t>> upper;
    for (size_t i = 0; i < level.size();) {
      const size_t take = std::min<size_t>(128 + rng.below(129), level.size() - i);
      const int32_t inner = new_wide_node(t, false, int(take) - 1, -1);
      int32_t* nd = &t.nodes[size_t(inner) * kWideInts];
      for (size_t c = 0; c < take; ++c) {
        nd[kWideChildren + c] = level[i + c].first;
        if (c > 0) nd[kWideSlots + c] = level[i + c].second;
      }
      upper.push_back({inner, level[i].second});
      i += take;
    }
    level.swap(upper);
    ++t.levels;
  }
  t.root = level.front().first;
  return t;
}

class BtreeSearch : public Workload {
 public:
  WorkloadResult run(platform::GpuDevice& device, Size size, uint64_t seed) override {
    // Small: 3000 records, 1000 point and 300 range queries.
    // Default: 1 M records (~180 k leaves, depth 8-9), 100 k point and 30 k
    // range queries (391 + 118 CTAs of 256).
    // Paper: Rodinia b+tree's default run (the 1 M-key mil.txt tree, order
    // 256, and command.txt's "j 6000 3000" and "k 10000"): 1 M records in a
    // wide tree, then findRangeK over 6000 ranges 3000 keys wide and findK
    // over 10000 keys, one CTA of 256 threads per query (seed 000 Table II:
    // findRangeK 6000 TBs, findK 10000 TBs; seed 002: BT 2 kernels, 6000 or
    // 10000 CTAs). Our records, not mil.txt's.
    if (size == Size::Paper) return run_paper(device, seed);
    const bool small = size == Size::Small;
    const int records_n = small ? 3000 : 1000000, finds = small ? 1000 : 100000, ranges = small ? 300 : 30000;
    const uint32_t max_width = 512;  // range widths in key space (about 2-3 keys apart on average)

    InputRng rng(seed);
    std::map<int32_t, int32_t> records;
    int32_t key = 0;
    for (int r = 0; r < records_n; ++r) {
      key += 1 + int32_t(rng.below(4));
      records[key] = int32_t(rng.below(1u << 30));
    }
    const int32_t key_limit = key + 16;
    Tree tree = build_tree(records, rng);

    std::vector<int32_t> queries(static_cast<size_t>(finds)), lower(static_cast<size_t>(ranges)),
        upper(static_cast<size_t>(ranges));
    for (auto& q : queries) {
      q = int32_t(rng.below(uint32_t(key_limit)));
      if (rng.below(2) == 0) {  // half the queries hit: the next present key
        auto it = records.lower_bound(q);
        if (it != records.end()) q = it->first;
      }
    }
    for (int i = 0; i < ranges; ++i) {
      lower[size_t(i)] = int32_t(rng.below(uint32_t(key_limit)));
      upper[size_t(i)] = lower[size_t(i)] + int32_t(rng.below(max_width));
    }

    auto module = load_workload_module(device, "btree_search");
    uint64_t d_nodes = device.upload(tree.nodes, "nodes"), d_queries = device.upload(queries, "queries"),
             d_lower = device.upload(lower, "lower"), d_upper = device.upload(upper, "upper");
    uint64_t d_values = device.allocate(size_t(finds) * sizeof(int32_t), "values");
    uint64_t d_counts = device.allocate(size_t(ranges) * sizeof(int32_t), "counts");
    uint64_t d_sums = device.allocate(size_t(ranges) * sizeof(uint32_t), "value_sums");
    const uint32_t block = 256;
    device.launch(
        module, "btree_find", {uint32_t((finds + int(block) - 1) / int(block)), 1, 1}, {block, 1, 1}, 0,
        platform::KernelArgs().ptr(d_nodes).add<int32_t>(tree.root).ptr(d_queries).ptr(d_values).add<int32_t>(finds));
    device.launch(module, "btree_range", {uint32_t((ranges + int(block) - 1) / int(block)), 1, 1}, {block, 1, 1}, 0,
                  platform::KernelArgs()
                      .ptr(d_nodes)
                      .add<int32_t>(tree.root)
                      .ptr(d_lower)
                      .ptr(d_upper)
                      .ptr(d_counts)
                      .ptr(d_sums)
                      .add<int32_t>(ranges));
    auto got_values = device.download<int32_t>(d_values, size_t(finds));
    auto got_counts = device.download<int32_t>(d_counts, size_t(ranges));
    auto got_sums = device.download<uint32_t>(d_sums, size_t(ranges));
    for (uint64_t d : {d_nodes, d_queries, d_lower, d_upper, d_values, d_counts, d_sums}) device.free(d);

    std::vector<int32_t> want_values(static_cast<size_t>(finds)), want_counts(static_cast<size_t>(ranges));
    std::vector<uint32_t> want_sums(static_cast<size_t>(ranges));
    for (int i = 0; i < finds; ++i) {
      auto it = records.find(queries[size_t(i)]);
      want_values[size_t(i)] = it == records.end() ? -1 : it->second;
    }
    for (int i = 0; i < ranges; ++i) {
      int32_t count = 0;
      uint32_t sum = 0;
      for (auto it = records.lower_bound(lower[size_t(i)]); it != records.end() && it->first <= upper[size_t(i)]; ++it)
        ++count, sum += uint32_t(it->second);
      want_counts[size_t(i)] = count;
      want_sums[size_t(i)] = sum;
    }
    WorkloadResult r = compare_exact(got_values, want_values, "value");
    if (r.verified) r = compare_exact(got_counts, want_counts, "range count");
    if (r.verified) r = compare_exact(got_sums, want_sums, "range sum");
    if (r.verified) r.detail += " (tree depth " + std::to_string(tree.depth) + ")";
    return r;
  }

 private:
  static WorkloadResult run_paper(platform::GpuDevice& device, uint64_t seed) {
    const int records_n = 1000000, finds = 10000, ranges = 6000;
    const int32_t range_width = 3000;  // in key space, as Rodinia's "j 6000 3000"

    // Records as the default size draws them, kept in key order.
    InputRng rng(seed);
    std::vector<int32_t> keys(static_cast<size_t>(records_n)), values(static_cast<size_t>(records_n));
    int32_t key = 0;
    for (int r = 0; r < records_n; ++r) {
      key += 1 + int32_t(rng.below(4));
      keys[size_t(r)] = key;
      values[size_t(r)] = int32_t(rng.below(1u << 30));
    }
    const int32_t key_limit = key + 16;
    WideTree tree = build_wide_tree(keys, rng);

    std::vector<int32_t> starts(static_cast<size_t>(ranges)), ends(static_cast<size_t>(ranges)),
        queries(static_cast<size_t>(finds));
    for (int i = 0; i < ranges; ++i) {
      starts[size_t(i)] = int32_t(rng.below(uint32_t(key_limit)));
      ends[size_t(i)] = starts[size_t(i)] + range_width;
    }
    for (auto& q : queries) {
      q = int32_t(rng.below(uint32_t(key_limit)));
      if (rng.below(2) == 0) {  // half the queries hit: the next present key
        auto it = std::lower_bound(keys.begin(), keys.end(), q);
        if (it != keys.end()) q = *it;
      }
    }

    auto module = load_workload_module(device, "btree_search");
    uint64_t d_nodes = device.upload(tree.nodes, "nodes"), d_values = device.upload(values, "values"),
             d_starts = device.upload(starts, "starts"), d_ends = device.upload(ends, "ends"),
             d_queries = device.upload(queries, "queries"),
             d_answers = device.upload(std::vector<int32_t>(size_t(finds), -1), "answers");
    uint64_t d_first = device.allocate(size_t(ranges) * sizeof(int32_t), "first_record");
    uint64_t d_count = device.allocate(size_t(ranges) * sizeof(int32_t), "record_count");
    const uint32_t block = kOrder;
    device.launch(module, "findRangeK", {uint32_t(ranges), 1, 1}, {block, 1, 1}, 0,
                  platform::KernelArgs()
                      .ptr(d_nodes)
                      .add<int32_t>(tree.root)
                      .add<int32_t>(tree.levels)
                      .ptr(d_starts)
                      .ptr(d_ends)
                      .ptr(d_first)
                      .ptr(d_count));
    device.launch(module, "findK", {uint32_t(finds), 1, 1}, {block, 1, 1}, 0,
                  platform::KernelArgs()
                      .ptr(d_nodes)
                      .add<int32_t>(tree.root)
                      .add<int32_t>(tree.levels)
                      .ptr(d_values)
                      .ptr(d_queries)
                      .ptr(d_answers));
    auto got_first = device.download<int32_t>(d_first, size_t(ranges));
    auto got_count = device.download<int32_t>(d_count, size_t(ranges));
    auto got_answers = device.download<int32_t>(d_answers, size_t(finds));
    for (uint64_t d : {d_nodes, d_values, d_starts, d_ends, d_queries, d_answers, d_first, d_count}) device.free(d);

    std::vector<int32_t> want_first(static_cast<size_t>(ranges)), want_count(static_cast<size_t>(ranges)),
        want_answers(static_cast<size_t>(finds));
    for (int i = 0; i < ranges; ++i) {
      const auto lo = std::lower_bound(keys.begin(), keys.end(), starts[size_t(i)]);
      const auto hi = std::upper_bound(keys.begin(), keys.end(), ends[size_t(i)]);
      want_first[size_t(i)] = int32_t(lo - keys.begin());
      want_count[size_t(i)] = int32_t(hi - lo);
    }
    for (int i = 0; i < finds; ++i) {
      const auto it = std::lower_bound(keys.begin(), keys.end(), queries[size_t(i)]);
      want_answers[size_t(i)] = it != keys.end() && *it == queries[size_t(i)] ? values[size_t(it - keys.begin())] : -1;
    }
    WorkloadResult r = compare_exact(got_first, want_first, "range first record");
    if (r.verified) r = compare_exact(got_count, want_count, "range count");
    if (r.verified) r = compare_exact(got_answers, want_answers, "value");
    if (r.verified) r.detail += " (" + std::to_string(tree.levels) + " inner levels)";
    return r;
  }
};

const bool registered = register_workload(
    {"btree_search", "B+tree point and range queries in device memory: pointer chasing, divergent scans",
     /*ipdom_safe=*/true, [] { return std::make_unique<BtreeSearch>(); }});

}  // namespace
}  // namespace tlmgpu::workloads
