// mummer: exact matching of short reads against a reference with a suffix
// tree in texture memory, as MUMmerGPU (ISPASS 2009 "MUM", seed 004 Table 2
// "MUMmerGPU"). One thread per query: for every start position of the
// query (all but the last min_match - 1), the longest match in the
// reference from there, walked down the tree (children texels, node texels,
// reference bases all through 2-D textures); between start positions the
// walk continues through the suffix link of the last node, re-skipping the
// bases already known to match edge by edge. A match of min_match bases or
// more is recorded as (node, bases matched on its edge). Our own code, after
// the published algorithm; mummer_host.h builds the tree on the host.

#include <cstdint>

#include "mummer_host.h"

__device__ __forceinline__ uint4 mum_node(cudaTextureObject_t tex, unsigned id)
{
  return tex2D<uint4>(tex, float(id % mummer::kNodeTexWidth), float(id / mummer::kNodeTexWidth));
}

__device__ __forceinline__ char mum_ref(cudaTextureObject_t tex, int pos)
{
  const int bigx = pos & 0x3ffff, bigy = pos >> 18;
  return tex2D<char>(tex, float(bigx >> 2), float((bigy << 2) + (bigx & 3)));
}

__device__ __forceinline__ void mum_record(mummer::MatchCoord* result, unsigned node, int edge_match, int qry_match_len,
                                           int min_match)
{
  if (qry_match_len > min_match) {
    result->node = int(node);
    result->edge_match_length = edge_match;
  }
}

// qry_match_len is one more than the bases matched so far (queries[0] of a
// query is its 'q' marker).
extern "C" __global__ void mummergpuKernel(mummer::MatchCoord* __restrict__ match_coords,
                                           const char* __restrict__ queries, const int* __restrict__ query_addrs,
                                           const int* __restrict__ query_lengths, int num_queries, int min_match,
                                           cudaTextureObject_t nodetex, cudaTextureObject_t childrentex,
                                           cudaTextureObject_t reftex)
{
  const int qid = blockIdx.x * blockDim.x + threadIdx.x;
  if (qid >= num_queries) return;
  const int qlen = query_lengths[qid];
  const int addr = query_addrs[qid];
  mummer::MatchCoord* result = match_coords + addr - qid * (min_match + 1);
  const char* q = queries + addr;

  unsigned cur = 0, prev = 0;
  int mustmatch = 0, qry_match_len = 0;
  uint4 node = make_uint4(0, 0, 0, 0);  // start, end, suffix link, depth
  for (int qstart = 0; qstart <= qlen - min_match; ++qstart, ++result, ++q) {
    if (cur == 0 || qry_match_len < 1) {
      cur = mummer::kRoot;
      qry_match_len = 1;
      mustmatch = 0;
    }
    char c = q[qry_match_len];
    int refpos = 0;
    bool no_edge = false;
    while (c != '\0') {
      const uint4 children = mum_node(childrentex, cur);
      prev = cur;
      switch (c) {
        case 'A': cur = children.x; break;
        case 'C': cur = children.y; break;
        case 'G': cur = children.z; break;
        case 'T': cur = children.w; break;
        default: cur = 0; break;
      }
      if (cur == 0) {
        // No edge for this base: the match ends at prev.
        mum_record(result, prev, 0, qry_match_len, min_match);
        qry_match_len -= 1;
        mustmatch = 0;
        no_edge = true;
        break;
      }
      node = mum_node(nodetex, cur);
      const int start = int(node.x), end = int(node.y);
      if (mustmatch) {
        // Bases known to match: skip them edge by edge.
        const int edgelen = end - start + 1;
        if (mustmatch >= edgelen) {
          refpos = end + 1;
          qry_match_len += edgelen;
          mustmatch -= edgelen;
        } else {
          qry_match_len += mustmatch;
          refpos = start + mustmatch;
          mustmatch = 0;
        }
      } else {
        // The edge's first base is the one that chose it.
        qry_match_len++;
        refpos = start + 1;
      }
      c = q[qry_match_len];
      bool mismatch = false;
      while (refpos <= end && c != '\0') {
        if (mum_ref(reftex, refpos) != c) {
          mismatch = true;
          break;
        }
        qry_match_len++;
        refpos++;
        c = q[qry_match_len];
      }
      if (mismatch) break;
    }
    if (!no_edge) {
      // The match ends on cur's edge (a mismatch or the query's end).
      mum_record(result, cur, refpos - int(node.x), qry_match_len, min_match);
      mustmatch = refpos - int(node.x);
      qry_match_len -= mustmatch + 1;
    }
    // The next start position continues from prev's suffix link.
    cur = mum_node(nodetex, prev).z;
  }
}
