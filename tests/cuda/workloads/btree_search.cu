// btree_search as a CUDA program: the host steps of
// workloads/btree_search/btree_search.cpp (a B+tree bulk-loaded from seeded
// keys, point and range queries checked against std::map look-ups; at the
// paper size Rodinia's wide tree and one CTA per query).
#include <algorithm>
#include <map>
#include <utility>

#include "tests/cuda/workloads/program_support.h"
#include "workloads/btree_search/btree_search.cu"

namespace {

constexpr int kMaxKeys = 7;  // keys per node in btree_search.cu's layout

struct Tree {
  std::vector<int32_t> nodes;
  int32_t root = 0;
  int depth = 0;
};

int32_t new_node(Tree& t, bool leaf) {
  const int32_t id = int32_t(t.nodes.size() / NODE_INTS);
  t.nodes.resize(t.nodes.size() + NODE_INTS, 0);
  t.nodes[size_t(id) * NODE_INTS + IS_LEAF] = leaf ? 1 : 0;
  t.nodes[size_t(id) * NODE_INTS + NEXT_LEAF] = -1;
  return id;
}

// The workload's bulk load, draw for draw: leaves of 4-7 records, inner
// nodes of 4-8 children (never a single child).
Tree build_tree(const std::map<int32_t, int32_t>& records, program::InputRng& rng) {
  Tree t;
  std::vector<std::pair<int32_t, int32_t>> level;  // (node, smallest key), left to right
  size_t left = records.size();
  for (auto it = records.begin(); it != records.end();) {
    const int32_t leaf = new_node(t, true);
    const int fill = int(std::min<size_t>(4 + rng.below(4), left));
    left -= size_t(fill);
    int32_t* nd = &t.nodes[size_t(leaf) * NODE_INTS];
    nd[NUM_KEYS] = fill;
    level.push_back({leaf, it->first});
    for (int c = 0; c < fill; ++c, ++it) {
      nd[KEYS + c] = it->first;
      nd[CHILDREN + c] = it->second;
    }
    if (level.size() > 1) t.nodes[size_t(level[level.size() - 2].first) * NODE_INTS + NEXT_LEAF] = leaf;
  }
  t.depth = 1;
  while (level.size() > 1) {
    std::vector<std::pair<int32_t, int32_t>> upper;
    for (size_t i = 0; i < level.size();) {
      size_t take = std::min<size_t>(4 + rng.below(5), level.size() - i);
      if (level.size() - i - take == 1) take = take < size_t(kMaxKeys) + 1 ? take + 1 : take - 1;
      const int32_t inner = new_node(t, false);
      int32_t* nd = &t.nodes[size_t(inner) * NODE_INTS];
      nd[NUM_KEYS] = int32_t(take) - 1;
      for (size_t c = 0; c < take; ++c) {
        nd[CHILDREN + c] = level[i + c].first;
        if (c > 0) nd[KEYS + c - 1] = level[i + c].second;
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

struct WideTree {
  std::vector<int32_t> nodes;
  int32_t root = 0;
  int levels = 0;  // inner levels above the leaves
};

int32_t new_wide_node(WideTree& t, bool leaf, int count, int32_t first) {
  const int32_t id = int32_t(t.nodes.size() / WIDE_NODE_INTS);
  t.nodes.resize(t.nodes.size() + WIDE_NODE_INTS, 0);
  int32_t* nd = &t.nodes[size_t(id) * WIDE_NODE_INTS];
  nd[W_COUNT] = count;
  nd[1] = leaf ? 1 : 0;  // the leaf flag (the kernels do not read it)
  nd[W_FIRST] = first;
  nd[W_SLOTS] = INT32_MIN;
  for (int s = 1; s <= ORDER; ++s) nd[W_SLOTS + s] = INT32_MAX;
  return id;
}

// The workload's wide bulk load, draw for draw: leaves of 128-255 keys,
// inner nodes of 128-256 children.
WideTree build_wide_tree(const std::vector<int32_t>& keys, program::InputRng& rng) {
  WideTree t;
  std::vector<std::pair<int32_t, int32_t>> level;  // (node, smallest key)
  for (size_t i = 0; i < keys.size();) {
    const int fill = int(std::min<size_t>(128 + rng.below(128), keys.size() - i));
    const int32_t leaf = new_wide_node(t, true, fill, int32_t(i));
    int32_t* nd = &t.nodes[size_t(leaf) * WIDE_NODE_INTS];
    for (int c = 0; c < fill; ++c) nd[W_SLOTS + 1 + c] = keys[i + size_t(c)];
    level.push_back({leaf, keys[i]});
    i += size_t(fill);
  }
  while (level.size() > 1) {
    std::vector<std::pair<int32_t, int32_t>> upper;
    for (size_t i = 0; i < level.size();) {
      const size_t take = std::min<size_t>(128 + rng.below(129), level.size() - i);
      const int32_t inner = new_wide_node(t, false, int(take) - 1, -1);
      int32_t* nd = &t.nodes[size_t(inner) * WIDE_NODE_INTS];
      for (size_t c = 0; c < take; ++c) {
        nd[W_CHILDREN + c] = level[i + c].first;
        if (c > 0) nd[W_SLOTS + c] = level[i + c].second;
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

// The paper size: Rodinia b+tree's default run (1 M records, "j 6000 3000",
// "k 10000"), one CTA of ORDER threads per query.
int run_paper(uint64_t seed) {
  const int records_n = 1000000, finds = 10000, ranges = 6000;
  const int32_t range_width = 3000;

  program::InputRng rng(seed);
  std::vector<int32_t> keys(static_cast<size_t>(records_n)), values(static_cast<size_t>(records_n));
  int32_t key = 0;
  for (int r = 0; r < records_n; ++r) {
    key += 1 + int32_t(rng.below(4));
    keys[size_t(r)] = key;
    values[size_t(r)] = int32_t(rng.below(1u << 30));
  }
  const int32_t key_limit = key + 16;
  const WideTree tree = build_wide_tree(keys, rng);

  std::vector<int32_t> starts(static_cast<size_t>(ranges)), ends(static_cast<size_t>(ranges)),
      queries(static_cast<size_t>(finds));
  for (int i = 0; i < ranges; ++i) {
    starts[size_t(i)] = int32_t(rng.below(uint32_t(key_limit)));
    ends[size_t(i)] = starts[size_t(i)] + range_width;
  }
  for (auto& q : queries) {
    q = int32_t(rng.below(uint32_t(key_limit)));
    if (rng.below(2) == 0) {  // half the queries hit
      auto it = std::lower_bound(keys.begin(), keys.end(), q);
      if (it != keys.end()) q = *it;
    }
  }

  int* d_nodes = program::upload(tree.nodes);
  int* d_values = program::upload(values);
  int* d_starts = program::upload(starts);
  int* d_ends = program::upload(ends);
  int* d_queries = program::upload(queries);
  int* d_answers = program::upload(std::vector<int32_t>(size_t(finds), -1));
  int* d_first = program::device_alloc<int>(static_cast<size_t>(ranges));
  int* d_count = program::device_alloc<int>(static_cast<size_t>(ranges));
  findRangeK<<<unsigned(ranges), ORDER>>>(d_nodes, tree.root, tree.levels, d_starts, d_ends, d_first, d_count);
  CUDA_CHECK_LAUNCH();
  findK<<<unsigned(finds), ORDER>>>(d_nodes, tree.root, tree.levels, d_values, d_queries, d_answers);
  CUDA_CHECK_LAUNCH();
  const std::vector<int> got_first = program::download(d_first, size_t(ranges));
  const std::vector<int> got_count = program::download(d_count, size_t(ranges));
  const std::vector<int> got_answers = program::download(d_answers, size_t(finds));
  program::free_all(d_nodes, d_values, d_starts, d_ends, d_queries, d_answers, d_first, d_count);

  std::vector<int> want_first(static_cast<size_t>(ranges)), want_count(static_cast<size_t>(ranges)),
      want_answers(static_cast<size_t>(finds));
  for (int i = 0; i < ranges; ++i) {
    const auto lo = std::lower_bound(keys.begin(), keys.end(), starts[size_t(i)]);
    const auto hi = std::upper_bound(keys.begin(), keys.end(), ends[size_t(i)]);
    want_first[size_t(i)] = int(lo - keys.begin());
    want_count[size_t(i)] = int(hi - lo);
  }
  for (int i = 0; i < finds; ++i) {
    const auto it = std::lower_bound(keys.begin(), keys.end(), queries[size_t(i)]);
    want_answers[size_t(i)] = it != keys.end() && *it == queries[size_t(i)] ? values[size_t(it - keys.begin())] : -1;
  }
  program::Result r = program::compare_exact(got_first, want_first, "range first record");
  if (r.verified) r = program::compare_exact(got_count, want_count, "range count");
  if (r.verified) r = program::compare_exact(got_answers, want_answers, "value");
  if (r.verified) r.detail += " (" + std::to_string(tree.levels) + " inner levels)";
  return program::report("btree_search", r);
}

}  // namespace

int main(int argc, char** argv) {
  const program::Options opt = program::parse_options(argc, argv);
  if (opt.size == program::Size::Paper) return run_paper(opt.seed);
  const bool small = opt.size == program::Size::Small;
  const int records_n = small ? 3000 : 1000000, finds = small ? 1000 : 100000, ranges = small ? 300 : 30000;
  const uint32_t max_width = 512;

  program::InputRng rng(opt.seed);
  std::map<int32_t, int32_t> records;
  int32_t key = 0;
  for (int r = 0; r < records_n; ++r) {
    key += 1 + int32_t(rng.below(4));
    records[key] = int32_t(rng.below(1u << 30));
  }
  const int32_t key_limit = key + 16;
  const Tree tree = build_tree(records, rng);

  std::vector<int32_t> queries(static_cast<size_t>(finds)), lower(static_cast<size_t>(ranges)), upper(static_cast<size_t>(ranges));
  for (auto& q : queries) {
    q = int32_t(rng.below(uint32_t(key_limit)));
    if (rng.below(2) == 0) {  // half the queries hit
      auto it = records.lower_bound(q);
      if (it != records.end()) q = it->first;
    }
  }
  for (int i = 0; i < ranges; ++i) {
    lower[size_t(i)] = int32_t(rng.below(uint32_t(key_limit)));
    upper[size_t(i)] = lower[size_t(i)] + int32_t(rng.below(max_width));
  }

  int* d_nodes = program::upload(tree.nodes);
  int* d_queries = program::upload(queries);
  int* d_lower = program::upload(lower);
  int* d_upper = program::upload(upper);
  int* d_values = program::device_alloc<int>(static_cast<size_t>(finds));
  int* d_counts = program::device_alloc<int>(static_cast<size_t>(ranges));
  unsigned* d_sums = program::device_alloc<unsigned>(static_cast<size_t>(ranges));
  const unsigned block = 256;
  btree_find<<<unsigned((finds + int(block) - 1) / int(block)), block>>>(d_nodes, tree.root, d_queries, d_values,
                                                                         finds);
  CUDA_CHECK_LAUNCH();
  btree_range<<<unsigned((ranges + int(block) - 1) / int(block)), block>>>(d_nodes, tree.root, d_lower, d_upper,
                                                                           d_counts, d_sums, ranges);
  CUDA_CHECK_LAUNCH();
  const std::vector<int> got_values = program::download(d_values, size_t(finds));
  const std::vector<int> got_counts = program::download(d_counts, size_t(ranges));
  const std::vector<unsigned> got_sums = program::download(d_sums, size_t(ranges));
  program::free_all(d_nodes, d_queries, d_lower, d_upper, d_values, d_counts, d_sums);

  std::vector<int> want_values(static_cast<size_t>(finds)), want_counts(static_cast<size_t>(ranges));
  std::vector<unsigned> want_sums(static_cast<size_t>(ranges));
  for (int i = 0; i < finds; ++i) {
    auto it = records.find(queries[size_t(i)]);
    want_values[size_t(i)] = it == records.end() ? -1 : it->second;
  }
  for (int i = 0; i < ranges; ++i) {
    int count = 0;
    unsigned sum = 0;
    for (auto it = records.lower_bound(lower[size_t(i)]); it != records.end() && it->first <= upper[size_t(i)]; ++it)
      ++count, sum += unsigned(it->second);
    want_counts[size_t(i)] = count;
    want_sums[size_t(i)] = sum;
  }
  program::Result r = program::compare_exact(got_values, want_values, "value");
  if (r.verified) r = program::compare_exact(got_counts, want_counts, "range count");
  if (r.verified) r = program::compare_exact(got_sums, want_sums, "range sum");
  if (r.verified) r.detail += " (tree depth " + std::to_string(tree.depth) + ")";
  return program::report("btree_search", r);
}
