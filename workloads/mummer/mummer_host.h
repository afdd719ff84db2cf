// mummer's host side, shared by the workload (mummer.cpp) and its
// CUDA-program twin: the suffix tree of the reference (built by suffix
// insertion, suffix links added afterwards), its texture layouts, the query
// set layout of MUMmerGPU and the CPU reference of the match records.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace mummer {

// Texture layouts (the kernel's addressing, mummer.cu).
constexpr unsigned kNodeTexWidth = 4096;     // node id -> (id % 4096, id / 4096)
constexpr unsigned kRefTexWidth = 65536;     // 4 consecutive bases share a column, in 4 rows
constexpr unsigned kRoot = 1;                // node ids: 0 is "none"

inline int base_index(char c) {
  switch (c) {
    case 'A': return 0;
    case 'C': return 1;
    case 'G': return 2;
    case 'T': return 3;
    default: return -1;
  }
}

struct MatchCoord {
  int32_t node;               // the node whose edge holds the match's end (0: no match recorded)
  int32_t edge_match_length;  // bases of that edge matched (0: the match ends at the node)
};

// A suffix tree of text = reference + '$' with nodes numbered breadth-first
// from kRoot. Edge into node v: text[start[v] .. end[v]]; depth[v]: the
// string depth at v; link[v]: suffix link (0 for the root).
struct SuffixTree {
  std::string text;
  std::vector<int32_t> start, end, depth, link;
  std::vector<std::array<int32_t, 4>> child;  // by base A, C, G, T (the '$' edges are not followed)
  size_t nodes() const { return start.size(); }
};

inline SuffixTree build_suffix_tree(const std::string& reference) {
  // Build by inserting every suffix from the root (splitting edges), with
  // five-way children ('$' included) and creation-order ids.
  const std::string text = reference + '$';
  const int n = int(text.size());
  struct Raw {
    int32_t start = 0, end = -1, depth = 0, any_suffix = 0;
    int32_t kids[5] = {-1, -1, -1, -1, -1};
  };
  auto sym = [&](int pos) { const int b = base_index(text[size_t(pos)]); return b < 0 ? 4 : b; };
  std::vector<Raw> raw(1);  // raw[0]: the root
  for (int i = 0; i < n; ++i) {
    int v = 0;
    while (true) {
      const int pos = i + raw[size_t(v)].depth;
      const int c = sym(pos);
      const int u = raw[size_t(v)].kids[c];
      if (u < 0) {
        Raw leaf;
        leaf.start = pos;
        leaf.end = n - 1;
        leaf.depth = raw[size_t(v)].depth + (n - pos);
        leaf.any_suffix = i;
        raw[size_t(v)].kids[c] = int32_t(raw.size());
        raw.push_back(leaf);
        break;
      }
      const int s = raw[size_t(u)].start, e = raw[size_t(u)].end;
      int k = 0;
      while (s + k <= e && text[size_t(s + k)] == text[size_t(pos + k)]) ++k;
      if (s + k > e) {
        v = u;
        continue;
      }
      // Split u's edge after k bases: w takes text[s .. s+k-1].
      Raw w;
      w.start = s;
      w.end = s + k - 1;
      w.depth = raw[size_t(v)].depth + k;
      w.any_suffix = i;
      const int wi = int(raw.size());
      w.kids[sym(s + k)] = u;
      raw.push_back(w);
      raw[size_t(u)].start = s + k;
      raw[size_t(v)].kids[c] = wi;
      v = wi;  // the next pass adds the leaf below w
    }
  }
  // Breadth-first ids from kRoot (children in A, C, G, T, $ order).
  std::vector<int32_t> id(raw.size(), 0), order{0};
  id[0] = int32_t(kRoot);
  for (size_t q = 0; q < order.size(); ++q)
    for (int c = 0; c < 5; ++c)
      if (const int32_t u = raw[size_t(order[q])].kids[c]; u >= 0) {
        id[size_t(u)] = int32_t(kRoot + order.size());
        order.push_back(u);
      }
  SuffixTree t;
  t.text = text;
  const size_t count = kRoot + order.size();
  t.start.assign(count, 0);
  t.end.assign(count, -1);
  t.depth.assign(count, 0);
  t.link.assign(count, 0);
  t.child.assign(count, {0, 0, 0, 0});
  for (int32_t r : order) {
    const Raw& x = raw[size_t(r)];
    const size_t v = size_t(id[size_t(r)]);
    t.start[v] = x.start;
    t.end[v] = x.end;
    t.depth[v] = x.depth;
    for (int c = 0; c < 4; ++c)
      if (x.kids[c] >= 0) t.child[v][size_t(c)] = id[size_t(x.kids[c])];
  }
  // Suffix links of internal nodes: label x.alpha -> the node spelling alpha,
  // found from the root by skipping whole edges (it ends on a node).
  for (int32_t r : order) {
    const Raw& x = raw[size_t(r)];
    const size_t v = size_t(id[size_t(r)]);
    if (r == 0 || x.end == n - 1) continue;  // the root and leaves
    const int from = x.any_suffix + 1, len = x.depth - 1;
    int32_t w = int32_t(kRoot);
    int done = 0;
    while (done < len) {
      w = t.child[size_t(w)][size_t(base_index(text[size_t(from + done)]))];
      done = t.depth[size_t(w)];
    }
    t.link[v] = w;
  }
  return t;
}

// The node texels: {start, end, suffix link, depth} and {child A, C, G, T},
// kNodeTexWidth per row.
inline unsigned node_tex_height(const SuffixTree& t) {
  return unsigned((t.nodes() + kNodeTexWidth - 1) / kNodeTexWidth);
}
inline std::vector<uint32_t> node_texels(const SuffixTree& t) {
  std::vector<uint32_t> out(size_t(node_tex_height(t)) * kNodeTexWidth * 4, 0);
  for (size_t v = 0; v < t.nodes(); ++v) {
    out[v * 4] = uint32_t(t.start[v]);
    out[v * 4 + 1] = uint32_t(t.end[v]);
    out[v * 4 + 2] = uint32_t(t.link[v]);
    out[v * 4 + 3] = uint32_t(t.depth[v]);
  }
  return out;
}
inline std::vector<uint32_t> children_texels(const SuffixTree& t) {
  std::vector<uint32_t> out(size_t(node_tex_height(t)) * kNodeTexWidth * 4, 0);
  for (size_t v = 0; v < t.nodes(); ++v)
    for (size_t c = 0; c < 4; ++c) out[v * 4 + c] = uint32_t(t.child[v][c]);
  return out;
}

// The reference texture (MUMmerGPU's layout): position i at column
// (i mod 2^18) / 4, row 4 * (i / 2^18) + i mod 4; unused texels 'Z'.
inline unsigned ref_tex_height(const SuffixTree& t) {
  return 4 * unsigned((t.text.size() + 4 * kRefTexWidth - 1) / (4 * kRefTexWidth));
}
inline std::vector<uint8_t> ref_texels(const SuffixTree& t) {
  std::vector<uint8_t> out(size_t(ref_tex_height(t)) * kRefTexWidth, uint8_t('Z'));
  for (size_t i = 0; i < t.text.size(); ++i) {
    const size_t bigx = i & 0x3ffff, bigy = i >> 18;
    out[(bigy * 4 + (bigx & 3)) * kRefTexWidth + (bigx >> 2)] = uint8_t(t.text[i]);
  }
  return out;
}

// MUMmerGPU's query set: every query as 'q', its bases, '\0'; addrs: offset
// of each 'q'; a query's results start at addr - id * (min_match + 1).
struct QuerySet {
  std::vector<char> text;
  std::vector<int32_t> addrs, lengths;
  size_t num_coords(int min_match) const { return text.size() - addrs.size() * size_t(min_match + 1); }
};
inline void add_query(QuerySet& qs, const std::string& bases) {
  qs.addrs.push_back(int32_t(qs.text.size()));
  qs.lengths.push_back(int32_t(bases.size()));
  qs.text.push_back('q');
  qs.text.insert(qs.text.end(), bases.begin(), bases.end());
  qs.text.push_back('\0');
}

// The records the kernel writes, computed independently of the suffix links:
// for each query start s in [0, len - min_match], the longest prefix of
// query[s..] spelled from the root; recorded (node, bases of its edge) when
// at least min_match long. The kernel reports a match that stops at a node
// with no child for the next base as (that node, 0).
inline std::vector<MatchCoord> reference_matches(const SuffixTree& t, const QuerySet& qs, int min_match) {
  std::vector<MatchCoord> out(qs.num_coords(min_match), MatchCoord{0, 0});
  for (size_t q = 0; q < qs.addrs.size(); ++q) {
    const char* bases = qs.text.data() + qs.addrs[q] + 1;
    const int len = qs.lengths[q];
    const size_t first = size_t(qs.addrs[q]) - q * size_t(min_match + 1);
    for (int s = 0; s <= len - min_match; ++s) {
      int32_t v = int32_t(kRoot);
      int matched = 0, on_edge = 0;
      while (true) {
        if (matched == len - s) break;  // the query's end
        if (on_edge == 0 || t.start[size_t(v)] + on_edge > t.end[size_t(v)]) {
          // At a node: follow the child for the next base, if any.
          const int32_t u = t.child[size_t(v)][size_t(base_index(bases[s + matched]))];
          if (u == 0) break;
          v = u;
          on_edge = 1;
          ++matched;
          continue;
        }
        if (t.text[size_t(t.start[size_t(v)] + on_edge)] != bases[s + matched]) break;
        ++on_edge;
        ++matched;
      }
      // A stop at a node's end with no child is reported as (node, 0).
      const bool at_node_end = t.start[size_t(v)] + on_edge > t.end[size_t(v)];
      const bool no_child = matched < len - s && at_node_end;
      if (matched >= min_match) out[first + size_t(s)] = no_child ? MatchCoord{v, 0} : MatchCoord{v, on_edge};
    }
  }
  return out;
}

inline size_t count_matches(const std::vector<MatchCoord>& m) {
  size_t n = 0;
  for (const MatchCoord& c : m) n += c.node != 0;
  return n;
}

// A check of the tree itself: each recorded match's bases occur in the
// reference where its node's path says. Empty when all hold, else the first
// failure.
inline std::string check_matches_in_reference(const SuffixTree& t, const QuerySet& qs, int min_match,
                                              const std::vector<MatchCoord>& m) {
  for (size_t q = 0; q < qs.addrs.size(); ++q) {
    const char* bases = qs.text.data() + qs.addrs[q] + 1;
    const int len = qs.lengths[q];
    const size_t first = size_t(qs.addrs[q]) - q * size_t(min_match + 1);
    for (int s = 0; s <= len - min_match; ++s) {
      const MatchCoord c = m[first + size_t(s)];
      if (c.node == 0) continue;
      const size_t v = size_t(c.node);
      // The path to v ends at text[end[v]]; the match ends edge_match_length
      // bases into v's edge (0: at v's parent's end, i.e. v's full path).
      const int path_len = c.edge_match_length == 0 ? t.depth[v]
                                                     : t.depth[v] - (t.end[v] - t.start[v] + 1) + c.edge_match_length;
      const int path_end = c.edge_match_length == 0 ? t.end[v] + 1 : t.start[v] + c.edge_match_length;
      const int at = path_end - path_len;
      if (path_len < min_match || at < 0 ||
          t.text.compare(size_t(at), size_t(path_len), bases + s, size_t(path_len)) != 0)
        return "query " + std::to_string(q) + " start " + std::to_string(s) + ": the recorded match is not in the reference";
    }
  }
  return {};
}

}  // namespace mummer
