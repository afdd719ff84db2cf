// mummer as a CUDA program: the host steps of workloads/mummer/mummer.cpp
// (suffix tree and reference in 2-D texture arrays, one thread per read,
// every match record checked against host walks from the root).
#include <cstdio>
#include <string>

#include "tests/cuda/workloads/program_support.h"
#include "workloads/mummer/mummer.cu"

namespace {

// A 2-D CUDA array of width x height texels filled from `host` (the
// workload's upload of the same bytes).
template <typename T>
void make_array(const std::vector<T>& host, cudaChannelFormatDesc desc, size_t width, size_t height,
                cudaArray_t* array) {
  CUDA_CHECK(cudaMallocArray(array, &desc, width, height));
  const size_t row = host.size() * sizeof(T) / height;
  CUDA_CHECK(cudaMemcpy2DToArray(*array, 0, 0, host.data(), row, row, height, cudaMemcpyHostToDevice));
}

// A point-sampled, clamped, unnormalised texture object reading `array`.
cudaTextureObject_t texture_of(cudaArray_t array) {
  cudaResourceDesc res = {};
  res.resType = cudaResourceTypeArray;
  res.res.array.array = array;
  cudaTextureDesc tex = {};
  tex.addressMode[0] = tex.addressMode[1] = tex.addressMode[2] = cudaAddressModeClamp;
  tex.filterMode = cudaFilterModePoint;
  tex.readMode = cudaReadModeElementType;
  tex.normalizedCoords = 0;
  cudaTextureObject_t t = 0;
  CUDA_CHECK(cudaCreateTextureObject(&t, &res, &tex, nullptr));
  return t;
}

}  // namespace

int main(int argc, char** argv) {
  const program::Options opt = program::parse_options(argc, argv);
  const bool small = opt.size == program::Size::Small;
  const int ref_len = small ? 2000 : 20000;
  const int num_queries = small ? 1000 : 50000;
  const unsigned from_ref_one_in = small ? 4 : 256;
  const int read_len = 25, min_match = 20;
  const unsigned block = 256;
  const unsigned grid = unsigned((num_queries + int(block) - 1) / int(block));

  program::InputRng rng(opt.seed);
  const char* acgt = "ACGT";
  std::string reference(size_t(ref_len), 'A');
  for (char& c : reference) c = acgt[rng.below(4)];
  mummer::QuerySet qs;
  for (int q = 0; q < num_queries; ++q) {
    std::string read(size_t(read_len), 'A');
    if (rng.below(from_ref_one_in) == 0) {
      read = reference.substr(rng.below(unsigned(ref_len - read_len + 1)), size_t(read_len));
      if (rng.below(2) == 0) read[rng.below(unsigned(read_len))] = acgt[rng.below(4)];
    } else {
      for (char& c : read) c = acgt[rng.below(4)];
    }
    mummer::add_query(qs, read);
  }
  const mummer::SuffixTree tree = mummer::build_suffix_tree(reference);
  const unsigned node_h = mummer::node_tex_height(tree), ref_h = mummer::ref_tex_height(tree);

  cudaArray_t ref_array, node_array, children_array;
  make_array(mummer::ref_texels(tree), cudaCreateChannelDesc(8, 0, 0, 0, cudaChannelFormatKindSigned),
               mummer::kRefTexWidth, ref_h, &ref_array);
  make_array(mummer::node_texels(tree), cudaCreateChannelDesc(32, 32, 32, 32, cudaChannelFormatKindUnsigned),
               mummer::kNodeTexWidth, node_h, &node_array);
  make_array(mummer::children_texels(tree), cudaCreateChannelDesc(32, 32, 32, 32, cudaChannelFormatKindUnsigned),
               mummer::kNodeTexWidth, node_h, &children_array);
  const cudaTextureObject_t reftex = texture_of(ref_array), nodetex = texture_of(node_array),
                            childrentex = texture_of(children_array);
  char* d_queries = program::upload(qs.text);
  int* d_addrs = program::upload(qs.addrs);
  int* d_lengths = program::upload(qs.lengths);
  const size_t num_coords = qs.num_coords(min_match);
  mummer::MatchCoord* d_coords = program::device_alloc<mummer::MatchCoord>(num_coords);
  CUDA_CHECK(cudaMemset(d_coords, 0, num_coords * sizeof(mummer::MatchCoord)));

  mummergpuKernel<<<grid, block>>>(d_coords, d_queries, d_addrs, d_lengths, num_queries, min_match, nodetex,
                                   childrentex, reftex);
  CUDA_CHECK_LAUNCH();
  const std::vector<mummer::MatchCoord> got = program::download(d_coords, num_coords);
  for (cudaTextureObject_t t : {reftex, nodetex, childrentex}) CUDA_CHECK(cudaDestroyTextureObject(t));
  for (cudaArray_t a : {ref_array, node_array, children_array}) CUDA_CHECK(cudaFreeArray(a));
  program::free_all(d_queries, d_addrs, d_lengths, d_coords);

  const std::vector<mummer::MatchCoord> want = mummer::reference_matches(tree, qs, min_match);
  std::vector<int32_t> got_flat, want_flat;
  for (size_t i = 0; i < num_coords; ++i) {
    got_flat.insert(got_flat.end(), {got[i].node, got[i].edge_match_length});
    want_flat.insert(want_flat.end(), {want[i].node, want[i].edge_match_length});
  }
  program::Result r = program::compare_exact(got_flat, want_flat, "match_coord_word");
  if (!r.verified) return program::report("mummer", r);
  const std::string bad = mummer::check_matches_in_reference(tree, qs, min_match, want);
  if (!bad.empty()) return program::report("mummer", {false, bad});
  char buf[96];
  std::snprintf(buf, sizeof buf, " (%zu tree nodes; %zu of %zu start positions match >= %d bases)", tree.nodes(),
                mummer::count_matches(want), num_coords, min_match);
  r.detail += buf;
  return program::report("mummer", r);
}
