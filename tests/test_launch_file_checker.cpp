// The launch-file Checker: JSON values read with messages that name the file
// and the key path, and the struct-type table it checks layouts with.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "platform/launch_file.h"
#include "platform/launch_file_checker.h"
#include "platform/launch_file_structs.h"

namespace {

namespace lf = tlmgpu::platform::launch_file;
using lf::Elem;
using lf::json;
using tlmgpu::platform::LaunchFileError;

const lf::Checker kCk("f.json", "/base");

// The message a checker call throws ("" if none).
template <typename F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const LaunchFileError& e) {
    return e.what();
  }
  return "";
}

TEST(LaunchFileChecker, PathsAndFailuresNameTheFileAndKey) {
  EXPECT_EQ(lf::key_path("", "ptx"), "ptx");
  EXPECT_EQ(lf::key_path(lf::index_path("buffers", 2), "count"), "buffers[2].count");
  EXPECT_EQ(error_of([] { kCk.fail("a.b", "bad"); }), "launch file f.json: a.b: bad");
  EXPECT_EQ(error_of([] { kCk.fail("", "bad"); }), "launch file f.json: bad");
  EXPECT_EQ(error_of([] { kCk.array(json::object(), "x"); }), "launch file f.json: x: expected an array, got object");
  EXPECT_EQ(error_of([] { kCk.require(json::object(), "name", "b[0]"); }),
            "launch file f.json: b[0]: missing key 'name'");
}

TEST(LaunchFileChecker, UnknownKeysAreErrorsButCommentsAreNot) {
  const json ok = json::parse(R"({"name": 1, "comment": "why"})");
  EXPECT_EQ(error_of([&] { kCk.allow_keys(ok, "p", {"name", "type"}); }), "");
  const json bad = json::parse(R"({"nmae": 1})");
  EXPECT_EQ(error_of([&] { kCk.allow_keys(bad, "p", {"name", "type"}); }),
            "launch file f.json: p: unknown key 'nmae' (expected one of: name, type)");
}

// (Parsed JSON holds non-negative numbers as unsigned: hence 7u.)
TEST(LaunchFileChecker, IntegersAreRangeChecked) {
  EXPECT_EQ(kCk.unsigned_int(json(7u), "n", 1, 10), 7u);
  EXPECT_EQ(kCk.unsigned_int(json(8.0), "n", 1, 10), 8u);  // an integral double is an integer
  EXPECT_EQ(error_of([] { kCk.unsigned_int(json(11u), "n", 1, 10); }),
            "launch file f.json: n: 11 is out of range [1, 10]");
  EXPECT_EQ(error_of([] { kCk.unsigned_int(json(-1), "n", 0, 10); }),
            "launch file f.json: n: expected a non-negative integer, got number -1");
  const tlmgpu::exec::Dim3 d = kCk.dim3(json::parse("[4, 2]"), "grid");
  EXPECT_EQ(d.x, 4u);
  EXPECT_EQ(d.y, 2u);
  EXPECT_EQ(d.z, 1u);
}

TEST(LaunchFileChecker, ElementValuesFitTheirType) {
  EXPECT_EQ(kCk.value_bits(json(-1), Elem::S8, "v"), 0xffu);
  EXPECT_EQ(kCk.value_bits(json("0xdeadbeef"), Elem::U32, "v"), 0xdeadbeefu);
  EXPECT_EQ(kCk.value_bits(json("-inf"), Elem::F32, "v"), 0xff800000u);
  EXPECT_EQ(error_of([] { kCk.value_bits(json(256u), Elem::U8, "v"); }), "launch file f.json: v: 256 is out of range for u8");
  EXPECT_EQ(error_of([] { kCk.value_bits(json(-129), Elem::S8, "v"); }),
            "launch file f.json: v: -129 is out of range for s8");
  EXPECT_EQ(error_of([] { kCk.value_bits(json(1.5), Elem::S32, "v"); }),
            "launch file f.json: v: expected an integer for s32, got 1.5");
  EXPECT_EQ(kCk.elem(json("f64"), "t"), Elem::F64);
  EXPECT_EQ(error_of([] { kCk.elem(json("f16"), "t"); }),
            "launch file f.json: t: unknown element type 'f16' (expected one of: " + lf::elem_names() + ")");
}

TEST(LaunchFileChecker, RelativeFilesResolveAgainstTheBaseDirectory) {
  EXPECT_EQ(kCk.resolve("k/../a.ptx"), "/base/a.ptx");
  EXPECT_EQ(kCk.resolve("/abs/a.ptx"), "/abs/a.ptx");
  EXPECT_EQ(error_of([] { kCk.read_file(json("missing.bin"), "init.file"); }),
            "launch file f.json: init.file: file not found: /base/missing.bin");
}

TEST(LaunchFileStructs, LayoutFollowsCAlignmentRules) {
  lf::StructTable types;
  types.parse(kCk, json::parse(R"([
      {"name": "vec", "fields": [{"name": "x", "type": "f32"}, {"name": "y", "type": "f32"}]},
      {"name": "cell", "fields": [{"name": "tag", "type": "u8"}, {"name": "pos", "type": "vec"},
                                  {"name": "id", "type": "u64"}, {"name": "k", "type": "u16", "count": 3}]}
    ])"),
              "types");
  const lf::StructType& cell = types.type(size_t(types.find("cell")));
  ASSERT_EQ(cell.fields.size(), 4u);
  EXPECT_EQ(cell.fields[1].offset, 4u);   // vec aligned to 4 after one byte
  EXPECT_EQ(cell.fields[2].offset, 16u);  // u64 aligned to 8 after 4 + 8
  EXPECT_EQ(cell.fields[3].offset, 24u);
  EXPECT_EQ(cell.align, 8u);
  EXPECT_EQ(cell.size, 32u);  // 30 bytes of fields, tail padding to 8
  EXPECT_EQ(types.find("nothing"), -1);

  std::vector<std::string> names;
  for (const lf::FieldLeaf& l : types.leaves(size_t(types.find("cell")))) names.push_back(l.name);
  EXPECT_EQ(names, (std::vector<std::string>{"tag", "pos.x", "pos.y", "id", "k"}));
  const lf::FieldLeaf k2 = types.leaf(kCk, size_t(types.find("cell")), "k[2]", "field");
  EXPECT_EQ(k2.offset, 28u);
  EXPECT_EQ(k2.count, 1u);
  EXPECT_EQ(error_of([&] { types.leaf(kCk, size_t(types.find("cell")), "k[3]", "field"); }),
            "launch file f.json: field: index 3 is out of range for field 'k' of 3 elements");
}

TEST(LaunchFileStructs, ValuesEncodeAtTheDeclaredOffsets) {
  lf::StructTable types;
  types.parse(kCk, json::parse(R"([{"name": "p", "fields": [{"name": "a", "type": "u8"}, {"name": "b", "type": "u32"},
                                                           {"name": "c", "type": "u16", "count": 2}]}])"),
              "types");
  std::vector<uint8_t> out(types.type(0).size, 0);
  lf::encode_struct(kCk, types, 0, json::parse(R"({"a": 1, "b": 258, "c": [3]})"), "value", out.data());
  EXPECT_EQ(out, (std::vector<uint8_t>{1, 0, 0, 0, 2, 1, 0, 0, 3, 0, 0, 0}));
  EXPECT_EQ(error_of([&] { lf::encode_struct(kCk, types, 0, json::parse(R"({"d": 1})"), "value", out.data()); }),
            "launch file f.json: value: struct 'p' has no field 'd' (fields: a, b, c)");
  EXPECT_EQ(error_of([&] {
              lf::encode_struct(kCk, types, 0, json::parse(R"({"c": [1, 2, 3]})"), "value", out.data());
            }),
            "launch file f.json: value.c: 3 values for an array of 2");
}

}  // namespace
