// mummer: MUMmerGPU (ISPASS 2009 "MUM", seed 004 Table 2): short reads
// matched against a reference through its suffix tree in 2-D textures, one
// thread per read, suffix links between a read's start positions. The
// suffix tree is built on the host; every match record is checked against
// matches walked from the root for each start position on the host (no
// suffix links), and each recorded match's bases are found in the reference.
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "workloads/common/workload_support.h"
#include "workloads/mummer/mummer_host.h"
#include "workloads/ptxas_registers.h"

namespace tlmgpu::workloads {
namespace {

uint64_t make_texture(platform::GpuDevice& device, uint64_t base, exec::TexelFormat format, uint8_t channels,
                      uint32_t width, uint32_t height) {
  exec::TexResource r;
  r.kind = exec::TexResourceKind::Array;
  r.base = base;
  r.format = format;
  r.channels = channels;
  r.width = width;
  r.height = height;
  return device.create_texture_object(r, exec::TexSampler{});  // clamp, point, element type, unnormalised
}

class Mummer : public Workload {
 public:
  WorkloadResult run(platform::GpuDevice& device, Size size, uint64_t seed) override {
    // Paper and Default: the ISPASS MUM input, reference NC_003997.20k.fna
    // (20 kbases of B. anthracis) and queries NC_003997_q25bp.50k.fna
    // (50,000 reads of 25 bases drawn from the whole 5.2 Mbase genome), here
    // synthetic: a random 20,000-base reference, 1 read in 256 copied from it
    // (half of those with one substitution; ~20k of 5.2M bases is 1 in 260),
    // the rest random bases. MUMmerGPU's defaults: minimum match 20 bases,
    // 256-thread CTAs (196 CTAs). Small: 2,000 bases, 1,000 reads, 1 in 4
    // from the reference (4 CTAs).
    const bool small = size == Size::Small;
    const int ref_len = small ? 2000 : 20000;
    const int num_queries = small ? 1000 : 50000;
    const uint32_t from_ref_one_in = small ? 4 : 256;
    const int read_len = 25, min_match = 20;
    const uint32_t block = 256;
    const uint32_t grid = uint32_t((num_queries + int(block) - 1) / int(block));

    InputRng rng(seed);
    const char* acgt = "ACGT";
    std::string reference(size_t(ref_len), 'A');
    for (char& c : reference) c = acgt[rng.below(4)];
    mummer::QuerySet qs;
    for (int q = 0; q < num_queries; ++q) {
      std::string read(size_t(read_len), 'A');
      if (rng.below(from_ref_one_in) == 0) {
        read = reference.substr(rng.below(uint32_t(ref_len - read_len + 1)), size_t(read_len));
        if (rng.below(2) == 0) read[rng.below(uint32_t(read_len))] = acgt[rng.below(4)];
      } else {
        for (char& c : read) c = acgt[rng.below(4)];
      }
      mummer::add_query(qs, read);
    }
    const mummer::SuffixTree tree = mummer::build_suffix_tree(reference);
    const uint32_t node_h = mummer::node_tex_height(tree), ref_h = mummer::ref_tex_height(tree);

    auto module = load_workload_module(device, "mummer");
    const std::vector<uint8_t> ref_texels = mummer::ref_texels(tree);
    uint64_t d_ref = device.upload(ref_texels, "reference texture");
    const std::vector<uint32_t> node_texels = mummer::node_texels(tree);
    uint64_t d_nodes = device.upload(node_texels, "node texture");
    const std::vector<uint32_t> children_texels = mummer::children_texels(tree);
    uint64_t d_children = device.upload(children_texels, "children texture");
    const uint64_t reftex = make_texture(device, d_ref, exec::TexelFormat::S8, 1, mummer::kRefTexWidth, ref_h);
    const uint64_t nodetex = make_texture(device, d_nodes, exec::TexelFormat::U32, 4, mummer::kNodeTexWidth, node_h);
    const uint64_t childrentex =
        make_texture(device, d_children, exec::TexelFormat::U32, 4, mummer::kNodeTexWidth, node_h);
    uint64_t d_queries = device.upload(qs.text, "queries");
    uint64_t d_addrs = device.upload(qs.addrs, "query addrs");
    uint64_t d_lengths = device.upload(qs.lengths, "query lengths");
    const size_t num_coords = qs.num_coords(min_match);
    uint64_t d_coords = device.allocate(num_coords * sizeof(mummer::MatchCoord), "match coords");
    device.memset(d_coords, 0, num_coords * sizeof(mummer::MatchCoord));

    device.launch(module, "mummergpuKernel", {grid, 1, 1}, {block, 1, 1}, 0,
                  platform::KernelArgs()
                      .ptr(d_coords)
                      .ptr(d_queries)
                      .ptr(d_addrs)
                      .ptr(d_lengths)
                      .add<int32_t>(num_queries)
                      .add<int32_t>(min_match)
                      .add<uint64_t>(nodetex)
                      .add<uint64_t>(childrentex)
                      .add<uint64_t>(reftex));
    const std::vector<mummer::MatchCoord> got = device.download<mummer::MatchCoord>(d_coords, num_coords);
    for (uint64_t t : {reftex, nodetex, childrentex}) device.destroy_texture_object(t);
    for (uint64_t d : {d_ref, d_nodes, d_children, d_queries, d_addrs, d_lengths, d_coords}) device.free(d);

    const std::vector<mummer::MatchCoord> want = mummer::reference_matches(tree, qs, min_match);
    std::vector<int32_t> got_flat, want_flat;
    for (size_t i = 0; i < num_coords; ++i) {
      got_flat.insert(got_flat.end(), {got[i].node, got[i].edge_match_length});
      want_flat.insert(want_flat.end(), {want[i].node, want[i].edge_match_length});
    }
    WorkloadResult r = compare_exact(got_flat, want_flat, "match_coord_word");
    if (!r.verified) return r;
    const std::string bad = mummer::check_matches_in_reference(tree, qs, min_match, want);
    if (!bad.empty()) return {false, bad};
    char buf[96];
    std::snprintf(buf, sizeof buf, " (%zu tree nodes; %zu of %zu start positions match >= %d bases)", tree.nodes(),
                  mummer::count_matches(want), num_coords, min_match);
    r.detail += buf;
    return r;
  }
};

const bool registered = register_workload(
    {"mummer", "MUMmerGPU: reads matched through a suffix tree in textures, one thread per read, suffix links",
     /*ipdom_safe=*/true, [] { return std::make_unique<Mummer>(); }});

}  // namespace
}  // namespace tlmgpu::workloads
