// hashtable as a CUDA program: the host steps of
// workloads/hashtable/hashtable.cpp (chained inserts under per-bucket spin
// locks; each bucket's sorted keys checked, since chain order depends on the
// warps' interleaving).
#include <algorithm>

#include "tests/cuda/workloads/program_support.h"
#include "workloads/hashtable/hashtable.cu"

namespace {
uint32_t cpu_bucket_of(uint32_t key, uint32_t num_buckets) { return (key * 2654435761u) % num_buckets; }
}  // namespace

int main(int argc, char** argv) {
  const program::Options opt = program::parse_options(argc, argv);
  const bool small = opt.size == program::Size::Small;
  const unsigned block = small ? 128 : 256;
  const unsigned grid = small ? 8 : 90;
  const int num_keys = small ? 2048 : 92160;
  const uint32_t num_buckets = small ? 64 : 1024;

  program::InputRng rng(opt.seed);
  std::vector<uint32_t> keys(static_cast<size_t>(num_keys));
  for (auto& k : keys) k = uint32_t(rng.next() >> 32);

  // The locks start at zero: the program relies on cudaMalloc's fresh,
  // zeroed memory as the workload does (no cudaMemset there to mirror).
  int* d_locks = program::device_alloc<int>(num_buckets);
  int* d_heads = program::device_alloc<int>(num_buckets);
  CUDA_CHECK(cudaMemset(d_heads, 0xff, num_buckets * sizeof(int)));  // -1: empty chain
  int* d_next = program::device_alloc<int>(static_cast<size_t>(num_keys));
  unsigned* d_keys = program::upload(keys);
  hashtable_insert<<<grid, block>>>(d_locks, d_heads, d_next, d_keys, num_keys, num_buckets);
  CUDA_CHECK_LAUNCH();
  const std::vector<int> heads = program::download(d_heads, num_buckets);
  const std::vector<int> next = program::download(d_next, size_t(num_keys));

  // Walk every chain; a node seen twice means a lost or doubled link.
  std::vector<std::vector<uint32_t>> got(num_buckets), want(num_buckets);
  std::vector<bool> seen(size_t(num_keys), false);
  for (uint32_t b = 0; b < num_buckets; ++b) {
    for (int node = heads[b]; node != -1; node = next[size_t(node)]) {
      if (node < 0 || node >= num_keys)
        return program::report("hashtable", {false, "bucket " + std::to_string(b) + ": bad node index " +
                                                        std::to_string(node)});
      if (seen[size_t(node)])
        return program::report("hashtable", {false, "bucket " + std::to_string(b) + ": node " +
                                                        std::to_string(node) + " linked twice"});
      seen[size_t(node)] = true;
      got[b].push_back(keys[size_t(node)]);
    }
    std::sort(got[b].begin(), got[b].end());
  }
  for (int i = 0; i < num_keys; ++i) want[cpu_bucket_of(keys[size_t(i)], num_buckets)].push_back(keys[size_t(i)]);

  std::vector<uint32_t> got_sizes, want_sizes, got_flat, want_flat;
  size_t longest = 0;
  for (uint32_t b = 0; b < num_buckets; ++b) {
    std::sort(want[b].begin(), want[b].end());
    got_sizes.push_back(uint32_t(got[b].size()));
    want_sizes.push_back(uint32_t(want[b].size()));
    got_flat.insert(got_flat.end(), got[b].begin(), got[b].end());
    want_flat.insert(want_flat.end(), want[b].begin(), want[b].end());
    longest = std::max(longest, want[b].size());
  }
  program::Result r = program::compare_exact(got_sizes, want_sizes, "bucket size");
  if (r.verified) r = program::compare_exact(got_flat, want_flat, "sorted bucket key");
  if (r.verified)
    r.detail = std::to_string(num_keys) + " keys in " + std::to_string(num_buckets) +
               " buckets match (longest chain " + std::to_string(longest) + ")";
  return program::report("hashtable", r);
}
