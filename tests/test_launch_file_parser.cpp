// The launch-file parser: the plan it builds from JSON text (what the runner
// gets), and the errors it reports before anything runs.
#include <gtest/gtest.h>

#include <string>

#include "platform/launch_file.h"
#include "platform/launch_file_parser.h"

namespace {

namespace lf = tlmgpu::platform::launch_file;
using lf::Elem;
using tlmgpu::platform::LaunchFileError;

const std::string kLaunchDir = std::string(TLMGPU_SOURCE_DIR) + "/tests/launch";

lf::LaunchPlan parse(const std::string& text) { return lf::parse_launch_plan(text, "t.json", kLaunchDir); }

TEST(LaunchFileParser, PlanHoldsBuffersArgsAndExpectations) {
  const lf::LaunchPlan p = parse(R"({
    "ptx": "kernels.ptx", "divergence": "ipdom",
    "buffers": [{"name": "x", "type": "f32", "count": 8, "init": {"random": {"seed": 3, "min": 0, "max": 1}}},
                {"name": "y", "type": "u16", "init": {"values": [1, 2, 3]}}],
    "launches": [{"kernel": "saxpy", "grid": [2, 3], "block": 32, "shared_bytes": 64,
                  "args": [{"buffer": "y"}, {"buffer": "x"}, {"type": "f32", "value": 2.5}, {"type": "s32", "value": -4}]}],
    "expect": [{"buffer": "y", "start": 1, "sorted": true, "values": [3, 2]},
               {"buffer": "x", "min": 0, "max": 1}]
  })");
  EXPECT_EQ(p.display_name, "t.json");
  EXPECT_EQ(p.ptx_path, kLaunchDir + "/kernels.ptx");
  ASSERT_TRUE(p.divergence.has_value());
  EXPECT_EQ(*p.divergence, tlmgpu::exec::DivergenceMode::Ipdom);

  ASSERT_EQ(p.buffers.size(), 2u);
  EXPECT_EQ(p.buffer_index.at("y"), 1u);
  EXPECT_EQ(p.buffers[0].init.source.kind, lf::Source::Kind::Random);
  EXPECT_EQ(p.buffers[0].init.source.seed, 3u);
  EXPECT_EQ(p.buffers[1].type, Elem::U16);
  EXPECT_EQ(p.buffers[1].count, 3u);  // implied by the values
  EXPECT_EQ(p.buffers[1].elem_bytes, 2u);

  ASSERT_EQ(p.root.steps.size(), 1u);
  const lf::Step& s = p.root.steps[0];
  EXPECT_EQ(s.kind, lf::Step::Kind::Launch);
  EXPECT_EQ(s.launch.path, "launches[0]");
  EXPECT_EQ(s.launch.grid.y, 3u);
  EXPECT_EQ(s.launch.shared_bytes, 64u);
  ASSERT_EQ(s.launch.args.size(), 4u);
  EXPECT_EQ(s.launch.args[0].kind, lf::ArgSpec::Kind::Buffer);
  EXPECT_EQ(s.launch.args[0].buffer, 1u);
  EXPECT_EQ(s.launch.args[2].bits, lf::from_double(Elem::F32, 2.5));
  EXPECT_EQ(s.launch.args[3].bits, 0xfffffffcu);

  ASSERT_EQ(p.expects.size(), 2u);
  EXPECT_EQ(p.expects[0].check, lf::ExpectSpec::Check::Sorted);
  EXPECT_EQ(p.expects[0].start, 1u);
  EXPECT_EQ(p.expects[0].count, 2u);  // the rest of the buffer
  EXPECT_EQ(p.expects[1].check, lf::ExpectSpec::Check::Range);
  EXPECT_FALSE(p.expect_fault.has_value());
}

TEST(LaunchFileParser, HostStepsAndRepeatGroupsNest) {
  const lf::LaunchPlan p = parse(R"({
    "ptx": "kernels.ptx",
    "buffers": [{"name": "a", "type": "u32", "count": 4}, {"name": "b", "type": "u32", "count": 4},
                {"name": "flag", "type": "s32", "count": 1}],
    "launches": [
      {"copy": {"from": "a", "to": "b", "from_offset": 1}},
      {"repeat": {"until_zero": "flag", "max_iterations": 7, "reset": {"a": {"fill": 9}}},
       "launches": [{"swap": ["a", "b"]},
                    {"repeat": {"times": 3}, "launches": [{"fill": "b", "init": {"constant": 1}}]}]}
    ],
    "repeat": {"times": 2}
  })");
  ASSERT_EQ(p.root.steps.size(), 2u);
  const lf::CopySpec& c = p.root.steps[0].copy;
  EXPECT_EQ(p.root.steps[0].kind, lf::Step::Kind::Copy);
  EXPECT_EQ(c.from_offset, 1u);
  EXPECT_EQ(c.count, 3u);  // what fits after the offset
  ASSERT_TRUE(p.root.repeat.has_value());
  EXPECT_EQ(p.root.repeat->times, 2u);

  const lf::Step& g = p.root.steps[1];
  ASSERT_EQ(g.kind, lf::Step::Kind::Group);
  EXPECT_EQ(g.group->path, "launches[1]");
  ASSERT_TRUE(g.group->repeat->flag.has_value());
  EXPECT_EQ(*g.group->repeat->flag, 2u);
  EXPECT_EQ(g.group->repeat->max_iterations, 7u);
  ASSERT_EQ(g.group->repeat->resets.size(), 1u);
  EXPECT_TRUE(g.group->repeat->resets[0].fill);
  EXPECT_EQ(g.group->repeat->resets[0].bits, 9u);
  ASSERT_EQ(g.group->steps.size(), 2u);
  EXPECT_EQ(g.group->steps[0].kind, lf::Step::Kind::Swap);
  EXPECT_EQ(g.group->steps[0].swap[1], 1u);
  const lf::Group& inner = *g.group->steps[1].group;
  EXPECT_EQ(inner.path, "launches[1].launches[1]");
  EXPECT_EQ(inner.repeat->times, 3u);
  ASSERT_EQ(inner.steps.size(), 1u);
  EXPECT_EQ(inner.steps[0].kind, lf::Step::Kind::Fill);
  EXPECT_EQ(inner.steps[0].fill.init.source.constant, 1u);
}

TEST(LaunchFileParser, StructBuffersInitialiseFieldsAndTexturesReferToBuffers) {
  const lf::LaunchPlan p = parse(R"({
    "ptx": "kernels.ptx",
    "types": [{"name": "pt", "fields": [{"name": "x", "type": "f32"}, {"name": "n", "type": "u8", "count": 2}]}],
    "buffers": [{"name": "pts", "type": "pt", "count": 5, "init": {"fields": {"n[1]": {"constant": 4}}}},
                {"name": "img", "type": "f32", "count": 16}],
    "textures": [{"name": "t", "buffer": "img", "resource": "pitch2d", "width": 4, "height": 4, "pitch_bytes": 16,
                  "filter": "linear", "address": ["clamp", "wrap"]}],
    "launches": [],
    "expect": [{"buffer": "pts", "field": "n", "constant": 0}],
    "expect_fault": {"kind": "trap"}
  })");
  ASSERT_EQ(p.buffers[0].struct_type, 0);
  EXPECT_EQ(p.buffers[0].elem_bytes, 8u);
  ASSERT_EQ(p.buffers[0].init.fields.size(), 1u);
  EXPECT_EQ(p.buffers[0].init.fields[0].leaf.offset, 5u);
  const std::vector<uint8_t> bytes = lf::materialise_buffer(p.buffers[0], p.buffers[0].init);
  ASSERT_EQ(bytes.size(), 40u);
  EXPECT_EQ(bytes[5], 4);
  EXPECT_EQ(bytes[13], 4);
  EXPECT_EQ(bytes[4], 0);

  ASSERT_EQ(p.textures.size(), 1u);
  EXPECT_EQ(p.texture_index.at("t"), 0u);
  EXPECT_EQ(p.textures[0].buffer, 1u);
  EXPECT_EQ(p.textures[0].resource.kind, tlmgpu::exec::TexResourceKind::Pitch2D);
  EXPECT_EQ(p.textures[0].sampler.address[0], tlmgpu::exec::TexAddressMode::Clamp);
  EXPECT_EQ(p.textures[0].sampler.address[2], tlmgpu::exec::TexAddressMode::Wrap);  // the last one given

  ASSERT_TRUE(p.expects[0].field.has_value());
  EXPECT_EQ(p.expects[0].field->count, 2u);
  EXPECT_EQ(p.expects[0].type, Elem::U8);
  ASSERT_TRUE(p.expect_fault.has_value());
  EXPECT_EQ(p.expect_fault->kind, tlmgpu::exec::FaultKind::Trap);
}

TEST(LaunchFileParser, ErrorsComeBeforeAnythingRuns) {
  auto error_of = [](const std::string& text) -> std::string {
    try {
      parse(text);
    } catch (const LaunchFileError& e) {
      return e.what();
    }
    return "";
  };
  EXPECT_EQ(error_of(R"({"ptx": "none.ptx", "launches": []})"),
            "launch file t.json: ptx: file not found: " + kLaunchDir + "/none.ptx");
  EXPECT_EQ(error_of(R"({"ptx": "kernels.ptx", "launches": [{"kernel": "k", "grid": 1, "block": 1,
                                                             "args": [{"buffer": "nope"}]}]})"),
            "launch file t.json: launches[0].args[0].buffer: unknown buffer 'nope'");
  EXPECT_EQ(error_of(R"({"ptx": "kernels.ptx", "launches": [], "dump": [{"buffer": "a"}]})"),
            "launch file t.json: dump[0].buffer: unknown buffer 'a'");
  // Kernel names are the runner's to check: the parser has no module.
  EXPECT_EQ(error_of(R"({"ptx": "kernels.ptx", "launches": [{"kernel": "no_such_kernel", "grid": 1, "block": 1}]})"),
            "");
}

}  // namespace
