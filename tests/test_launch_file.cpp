// The launch-file library: schema checks with key paths, and runs on a device.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "platform/gpu_device.h"
#include "platform/launch_file.h"
#include "scratch_dir.h"

namespace {

namespace fs = std::filesystem;
using tlmgpu::platform::GpuDevice;
using tlmgpu::platform::LaunchFile;
using tlmgpu::platform::LaunchFileError;
using tlmgpu::platform::LaunchFileOptions;
using tlmgpu::platform::LaunchFileResult;
using tlmgpu::platform::LaunchFileRunError;

const std::string kLaunchDir = std::string(TLMGPU_SOURCE_DIR) + "/tests/launch";

std::string read_text(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), {});
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream is(text);
  for (std::string line; std::getline(is, line);) out.push_back(line);
  return out;
}

// The message of the LaunchFileError that parsing `text` throws ("" if none).
std::string parse_error(const std::string& text) {
  try {
    LaunchFile::parse(text, "t.json", kLaunchDir);
  } catch (const LaunchFileError& e) {
    return e.what();
  }
  return "";
}

// A launch file around the given buffers and launches, using tests/launch/kernels.ptx.
std::string with(const std::string& buffers, const std::string& launches, const std::string& extra = "") {
  return "{\"ptx\": \"kernels.ptx\", \"buffers\": [" + buffers + "], \"launches\": [" + launches + "]" +
         (extra.empty() ? "" : ", " + extra) + "}";
}

const std::string kBufA = "{\"name\": \"a\", \"type\": \"u32\", \"count\": 4}";
const std::string kSaxpy = "{\"kernel\": \"saxpy\", \"grid\": 1, \"block\": 32, \"args\": [ARGS]}";

std::string saxpy(const std::string& args) {
  std::string s = kSaxpy;
  return s.replace(s.find("ARGS"), 4, args);
}

// assert_positive over v[0..1] (passes), then over all of v (faults; nothing expects it).
std::string passing_then_failing(const std::string& check) {
  const std::string all = "\"value\": 4";
  std::string passing = check;
  passing.replace(passing.find(all), all.size(), "\"value\": 2");
  return passing + "}, " + check + "}";
}

struct ErrorCase {
  std::string text;
  std::string message;  // what follows "launch file t.json: "
};

TEST(LaunchFile, SchemaErrorsNameTheKeyPath) {
  const std::string f32x = "{\"name\": \"x\", \"type\": \"f32\", \"count\": 4}";
  const ErrorCase cases[] = {
      {"{\"ptx\": \"kernels.ptx\",\n  \"launches\": [,]}", "JSON parse error at line 2, column"},
      {"[]", "expected a JSON object at the top level"},
      {"{}", "missing key 'ptx'"},
      {"{\"ptx\": 5, \"launches\": []}", "ptx: expected a string, got number"},
      {"{\"ptx\": \"nope.ptx\", \"launches\": []}", "ptx: file not found"},
      {"{\"ptx\": \"kernels.ptx\"}", "missing key 'launches'"},
      {with("", "", "\"lanches\": []"), "unknown key 'lanches'"},
      {with("", "", "\"divergence\": \"simt\""), "divergence: unknown mode 'simt'"},
      {with("{\"name\": \"a\", \"type\": \"float\", \"count\": 4}", ""), "buffers[0].type: unknown element type 'float'"},
      {with("{\"name\": \"a\", \"type\": \"u32\"}", ""), "buffers[0]: missing key 'count'"},
      {with("{\"type\": \"u32\", \"count\": 1}", ""), "buffers[0]: missing key 'name'"},
      {with("{\"name\": \"a\", \"type\": \"u32\", \"count\": \"4\"}", ""),
       "buffers[0].count: expected a non-negative integer, got string"},
      {with("{\"name\": \"a\", \"type\": \"u32\", \"count\": 0}", ""), "buffers[0].count: 0 is out of range"},
      {with(kBufA + ", " + kBufA, ""), "buffers[1].name: duplicate buffer 'a'"},
      {with("{\"name\": \"a\", \"type\": \"u8\", \"init\": {\"values\": [1, 300]}}", ""),
       "buffers[0].init.values[1]: 300 is out of range for u8"},
      {with("{\"name\": \"a\", \"type\": \"u16\", \"init\": {\"values\": [-1]}}", ""),
       "buffers[0].init.values[0]: -1 is out of range for u16"},
      {with("{\"name\": \"a\", \"type\": \"s32\", \"init\": {\"values\": [1.5]}}", ""),
       "buffers[0].init.values[0]: expected an integer for s32, got 1.5"},
      {with("{\"name\": \"a\", \"type\": \"u32\", \"count\": 4, \"init\": {\"values\": [1, 2, 3]}}", ""),
       "buffers[0].count: 4 elements, but init gives 3"},
      {with("{\"name\": \"a\", \"type\": \"u32\", \"init\": {\"file\": \"missing.bin\"}}", ""),
       "buffers[0].init.file: file not found"},
      {with("{\"name\": \"a\", \"type\": \"u32\", \"init\": {\"file\": \"widen_a.bin\"}}", ""),
       "buffers[0].init.file: file has 6 bytes, not a multiple of 4"},
      {with("{\"name\": \"a\", \"type\": \"u32\", \"count\": 2, \"init\": {\"constant\": 1, \"values\": [1, 2]}}", ""),
       "buffers[0].init: give only one of 'constant' and 'values'"},
      {with("{\"name\": \"a\", \"type\": \"u32\", \"count\": 2, \"init\": {\"random\": {\"min\": 5, \"max\": 1}}}", ""),
       "buffers[0].init.random: min is greater than max"},
      {with("{\"name\": \"a\", \"type\": \"u32\", \"count\": 2, \"init\": {\"random\": {\"min\": 0}}}", ""),
       "buffers[0].init.random: missing key 'max'"},
      {with("{\"name\": \"a\", \"type\": \"u32\", \"count\": 2, \"init\": \"ones\"}", ""),
       "buffers[0].init: unknown init 'ones'"},
      {with(kBufA, "{\"grid\": 1, \"block\": 1}"), "launches[0]: missing key 'kernel'"},
      {with(kBufA, "{\"kernel\": \"saxpy\", \"grid\": [0], \"block\": 1}"), "launches[0].grid[0]: 0 is out of range"},
      {with(kBufA, "{\"kernel\": \"saxpy\", \"grid\": [1, 2, 3, 4], \"block\": 1}"),
       "launches[0].grid: expected a number or an array of 1 to 3 numbers"},
      {with(kBufA, "{\"kernel\": \"saxpy\", \"grid\": 1, \"block\": 1, \"gird\": 1}"), "launches[0]: unknown key 'gird'"},
      {with(kBufA, "{\"kernel\": \"saxpy\", \"grid\": 1, \"block\": 1, \"regs_per_thread\": 0}"),
       "launches[0].regs_per_thread: 0 is out of range"},
      {with(kBufA, "{\"kernel\": \"saxpy\", \"grid\": 1, \"block\": 1, \"regs_per_thread\": \"40\"}"),
       "launches[0].regs_per_thread: expected a non-negative integer, got string"},
      {with(kBufA, "{\"kernel\": \"saxpy\", \"grid\": 1, \"block\": 1, \"preferred_shared_carveout\": 101}"),
       "launches[0].preferred_shared_carveout: 101 is out of range"},
      {with(kBufA + ", " + f32x, "{\"kernel\": \"saxpy\", \"grid\": 1, \"block\": 1},\n" +
                                     saxpy("{\"buffer\": \"a\"}, {\"buffer\": \"x\"}, {\"buffer\": \"foo\"}")),
       "launches[1].args[2].buffer: unknown buffer 'foo'"},
      {with(kBufA, saxpy("{\"type\": \"s32\"}")), "launches[0].args[0]: missing key 'value'"},
      {with(kBufA, saxpy("{\"type\": \"s32\", \"value\": \"five\"}")),
       "launches[0].args[0].value: expected an integer (or a \"0x...\" string) for s32, got string"},
      {with(kBufA, saxpy("{\"value\": 5, \"type\": \"i32\"}")), "launches[0].args[0].type: unknown element type 'i32'"},
      {with(kBufA, saxpy("{\"pointer\": \"a\"}")), "launches[0].args[0]: expected {\"buffer\": name}"},
      {with(kBufA, "{\"repeat\": {\"until_zero\": \"zz\"}, \"launches\": []}"),
       "launches[0].repeat.until_zero: unknown buffer 'zz'"},
      {with(kBufA, "{\"repeat\": {\"until_zero\": \"a\", \"reset\": {\"zz\": 0}}, \"launches\": []}"),
       "launches[0].repeat.reset.zz: unknown buffer 'zz'"},
      {with(kBufA, "{\"repeat\": {\"until_zero\": \"a\", \"max_iterations\": 0}, \"launches\": []}"),
       "launches[0].repeat.max_iterations: 0 is out of range"},
      {with(kBufA, "{\"repeat\": {\"until_zero\": \"a\"}}"), "launches[0]: missing key 'launches'"},
      {with(kBufA, "", "\"repeat\": {\"max_iterations\": 3}"), "repeat: missing key 'until_zero'"},
      {with(kBufA, "", "\"dump\": [{\"buffer\": \"a\", \"file\": \"a.hex\", \"format\": \"hex\"}]"),
       "dump[0].format: unknown format 'hex'"},
      {with(kBufA, "", "\"dump\": [{\"buffer\": \"b\", \"file\": \"b.bin\"}]"), "dump[0].buffer: unknown buffer 'b'"},
      {with(kBufA, "", "\"expect\": [{\"buffer\": \"a\", \"values\": [1, 2]}]"),
       "expect[0]: buffer 'a' has 4 elements, expected data has 2"},
      {with(kBufA, "", "\"expect\": [{\"buffer\": \"a\"}]"), "expect[0]: missing the data"},
      {with(kBufA, "", "\"expect\": [{\"buffer\": \"a\", \"constant\": 1, \"tolerance\": -1}]"),
       "expect[0]: tolerances must not be negative"},
      {with(kBufA, "", "\"symbols\": [{\"symbol\": \"coef\", \"buffer\": \"a\", \"values\": [1]}]"),
       "symbols[0]: give only one of 'values' and 'buffer'"},
      {with(kBufA, "", "\"symbols\": [{\"symbol\": \"coef\", \"values\": [1]}]"), "symbols[0]: missing key 'type'"},
  };
  for (const ErrorCase& c : cases) {
    const std::string msg = parse_error(c.text);
    EXPECT_EQ(msg.rfind("launch file t.json: ", 0), 0u) << c.text << "\n-> " << msg;
    EXPECT_NE(msg.find(c.message), std::string::npos) << c.text << "\n-> " << msg << "\nwanted: " << c.message;
  }
}

TEST(LaunchFile, AcceptsCommentsAndOptionalKeys) {
  LaunchFile f = LaunchFile::parse(
      "// a comment\n{\"comment\": \"x\", \"ptx\": \"kernels.ptx\", /* c */ \"divergence\": \"ipdom\","
      " \"buffers\": [{\"name\": \"a\", \"type\": \"f32\", \"init\": {\"values\": [1, \"nan\", \"-inf\"]}},"
      "               {\"name\": \"b\", \"type\": \"u64\", \"init\": {\"values\": [18446744073709551615, \"0xff\"]}}],"
      " \"launches\": []}",
      "t.json", kLaunchDir);
  ASSERT_TRUE(f.divergence().has_value());
  EXPECT_EQ(*f.divergence(), tlmgpu::exec::DivergenceMode::Ipdom);
  EXPECT_EQ(f.ptx_path(), kLaunchDir + "/kernels.ptx");
  EXPECT_EQ(f.display_name(), "t.json");
}

TEST(LaunchFile, AcceptsRegsPerThreadPerLaunch) {
  EXPECT_EQ(parse_error(with(kBufA, "{\"kernel\": \"saxpy\", \"grid\": 1, \"block\": 1, \"regs_per_thread\": 40}")),
            "");
}

TEST(LaunchFile, LoadReportsMissingFile) {
  try {
    LaunchFile::load(kLaunchDir + "/absent.json");
    FAIL() << "no error";
  } catch (const LaunchFileError& e) {
    EXPECT_NE(std::string(e.what()).find("absent.json: file not found"), std::string::npos) << e.what();
  }
}

// ------------------------------------------------------------------ runs

class LaunchFileRun : public ::testing::Test {
 protected:
  void SetUp() override { options_.output_dir = dir_.string(); }

  LaunchFileResult run_fixture(const std::string& name) {
    LaunchFile f = LaunchFile::load(kLaunchDir + "/" + name);
    GpuDevice device;
    return f.run(device, options_);
  }

  LaunchFileResult run_text(const std::string& text) {
    LaunchFile f = LaunchFile::parse(text, "t.json", kLaunchDir);
    GpuDevice device;
    return f.run(device, options_);
  }

  // The LaunchFileError message of running `text` ("" if none).
  std::string run_error(const std::string& text) {
    try {
      run_text(text);
    } catch (const LaunchFileError& e) {
      return e.what();
    }
    return "";
  }

  ScratchDir scratch_{"tlmgpu_launch"};
  const fs::path dir_ = scratch_.path();
  LaunchFileOptions options_;
};

TEST_F(LaunchFileRun, SaxpyVerifiesAndDumps) {
  LaunchFileResult r = run_fixture("saxpy.json");
  EXPECT_TRUE(r.verified) << r.detail;
  EXPECT_EQ(r.expectations, 1u);
  EXPECT_EQ(r.kernel_launches, 1u);
  ASSERT_EQ(r.kernels.size(), 1u);
  EXPECT_EQ(r.kernels[0].kernel, "saxpy");
  EXPECT_GT(r.kernels[0].warp_insts, 0u);
  ASSERT_EQ(r.dumped.size(), 2u);
  EXPECT_EQ(r.dumped[0], (dir_ / "y.bin").string());
  EXPECT_EQ(fs::file_size(dir_ / "y.bin"), 1200u);
  EXPECT_EQ(lines_of(read_text(dir_ / "text" / "y.txt")).size(), 300u);
}

TEST_F(LaunchFileRun, RepeatUntilZero) {
  LaunchFileResult r = run_fixture("countdown.json");
  EXPECT_TRUE(r.verified) << r.detail;
  EXPECT_EQ(r.kernel_launches, 5u);
  ASSERT_EQ(r.repeats.size(), 1u);
  EXPECT_EQ(r.repeats[0].path, "launches[0]");
  EXPECT_EQ(r.repeats[0].iterations, 5u);
}

TEST_F(LaunchFileRun, RepeatLimitThrows) {
  try {
    run_fixture("countdown_limit.json");
    FAIL() << "no error";
  } catch (const LaunchFileRunError& e) {
    EXPECT_NE(std::string(e.what()).find("repeat: flag buffer 'flag' is still non-zero after max_iterations (10)"),
              std::string::npos)
        << e.what();
  }
}

TEST_F(LaunchFileRun, NestedRepeatAndResets) {
  // The outer loop (one iteration: nothing raises its flag) re-arms the
  // counter through `reset`; the inner loop counts it down to zero.
  const std::string text =
      "{\"ptx\": \"kernels.ptx\","
      " \"buffers\": [{\"name\": \"counter\", \"type\": \"u32\", \"count\": 1},"
      "              {\"name\": \"flag\", \"type\": \"s32\", \"count\": 1},"
      "              {\"name\": \"steps\", \"type\": \"u32\", \"count\": 1},"
      "              {\"name\": \"outer\", \"type\": \"u32\", \"count\": 2}],"
      " \"launches\": [{\"repeat\": {\"until_zero\": \"outer\", \"max_iterations\": 1, \"reset\": {\"counter\": 3, \"outer\": {\"fill\": 0}}},"
      "                 \"launches\": [{\"repeat\": {\"until_zero\": \"flag\"}, \"launches\": ["
      "                   {\"kernel\": \"countdown\", \"grid\": 1, \"block\": 32,"
      "                    \"args\": [{\"buffer\": \"counter\"}, {\"buffer\": \"flag\"}, {\"buffer\": \"steps\"}]}]}]}],"
      " \"expect\": [{\"buffer\": \"steps\", \"values\": [3]}, {\"buffer\": \"counter\", \"constant\": 0}]}";
  LaunchFileResult r = run_text(text);
  EXPECT_TRUE(r.verified) << r.detail;
  ASSERT_EQ(r.repeats.size(), 2u);
  EXPECT_EQ(r.repeats[0].path, "launches[0].launches[0]");
  EXPECT_EQ(r.repeats[0].iterations, 3u);
  EXPECT_EQ(r.repeats[1].path, "launches[0]");
  EXPECT_EQ(r.repeats[1].iterations, 1u);
}

TEST_F(LaunchFileRun, SymbolsAndElementTypes) {
  for (const char* f : {"symbols.json", "widen.json"}) {
    LaunchFileResult r = run_fixture(f);
    EXPECT_TRUE(r.verified) << f << ": " << r.detail;
    EXPECT_EQ(r.expectations, 1u) << f;
  }
}

TEST_F(LaunchFileRun, SymbolHoldsBufferAddress) {
  // 'offset' is a 4-byte .global; an 8-byte address does not fit.
  std::string msg = run_error(with(kBufA, "", "\"symbols\": [{\"symbol\": \"offset\", \"buffer\": \"a\"}]"));
  EXPECT_NE(msg.find("symbols[0]: writes 8 bytes at offset 0 but 'offset' has 4 bytes"), std::string::npos) << msg;
  msg = run_error(with(kBufA, "", "\"symbols\": [{\"symbol\": \"nope\", \"type\": \"u32\", \"values\": [1]}]"));
  EXPECT_NE(msg.find("symbols[0].symbol: no .global or .const variable 'nope'"), std::string::npos) << msg;
}

TEST_F(LaunchFileRun, MismatchReportsFirstElement) {
  LaunchFileResult r = run_fixture("expect_fail.json");
  EXPECT_FALSE(r.verified);
  EXPECT_NE(r.detail.find("expect[0]: y[0] = 7, expected 8"), std::string::npos) << r.detail;
  EXPECT_NE(r.detail.find("40 of 40 elements differ"), std::string::npos) << r.detail;
}

TEST_F(LaunchFileRun, RandomInitIsDeterministicAndInRange) {
  const std::string text = with(
      "{\"name\": \"i\", \"type\": \"s16\", \"count\": 1000, \"init\": {\"random\": {\"seed\": 9, \"min\": -5, \"max\": 5}}},"
      "{\"name\": \"f\", \"type\": \"f64\", \"count\": 1000, \"init\": {\"random\": {\"seed\": 9, \"min\": 2, \"max\": 3}}}",
      "",
      "\"dump\": [{\"buffer\": \"i\", \"file\": \"i.txt\", \"format\": \"text\"},"
      "          {\"buffer\": \"f\", \"file\": \"f.txt\", \"format\": \"text\"}]");
  run_text(text);
  const std::string i1 = read_text(dir_ / "i.txt"), f1 = read_text(dir_ / "f.txt");
  run_text(text);
  EXPECT_EQ(read_text(dir_ / "i.txt"), i1);
  EXPECT_EQ(read_text(dir_ / "f.txt"), f1);
  std::vector<int> seen(11, 0);
  for (const std::string& l : lines_of(i1)) {
    int v = std::stoi(l);
    ASSERT_GE(v, -5);
    ASSERT_LE(v, 5);
    ++seen[size_t(v + 5)];
  }
  for (int n : seen) EXPECT_GT(n, 0);
  for (const std::string& l : lines_of(f1)) {
    double v = std::stod(l);
    ASSERT_GE(v, 2.0);
    ASSERT_LE(v, 3.0);
  }
}

TEST_F(LaunchFileRun, TextDumpReadsBack) {
  run_text(with("{\"name\": \"f\", \"type\": \"f32\", \"init\": {\"values\": [0.1, -2.5, \"nan\", \"inf\"]}},"
                "{\"name\": \"u\", \"type\": \"u8\", \"init\": {\"values\": [\"0xff\", 0, 7]}},"
                "{\"name\": \"s\", \"type\": \"s64\", \"init\": {\"values\": [-9223372036854775808]}}",
                "",
                "\"dump\": [{\"buffer\": \"f\", \"file\": \"f.txt\", \"format\": \"text\"},"
                "          {\"buffer\": \"u\", \"file\": \"u.txt\", \"format\": \"text\"},"
                "          {\"buffer\": \"s\", \"file\": \"s.txt\", \"format\": \"text\"},"
                "          {\"buffer\": \"u\", \"file\": \"u.bin\"}]"));
  EXPECT_EQ(read_text(dir_ / "f.txt"), "0.100000001\n-2.5\nnan\ninf\n");
  EXPECT_EQ(read_text(dir_ / "u.txt"), "255\n0\n7\n");
  EXPECT_EQ(read_text(dir_ / "s.txt"), "-9223372036854775808\n");
  EXPECT_EQ(read_text(dir_ / "u.bin"), std::string("\xff\x00\x07", 3));
}

TEST_F(LaunchFileRun, ExpectFromFileConstantAndNan) {
  LaunchFileResult r = run_text(with(
      "{\"name\": \"a\", \"type\": \"u8\", \"init\": {\"file\": \"widen_a.bin\"}},"
      "{\"name\": \"f\", \"type\": \"f32\", \"init\": {\"values\": [\"nan\", 1.0001]}},"
      "{\"name\": \"z\", \"type\": \"s64\", \"count\": 3}",
      "",
      "\"expect\": [{\"buffer\": \"a\", \"file\": \"widen_a.bin\"},"
      "            {\"buffer\": \"f\", \"values\": [\"nan\", 1], \"relative_tolerance\": 1e-3},"
      "            {\"buffer\": \"z\", \"constant\": 0}]"));
  EXPECT_TRUE(r.verified) << r.detail;
  EXPECT_EQ(r.expectations, 3u);
  EXPECT_EQ(r.detail, "3 expectations hold (11 elements)");
}

TEST_F(LaunchFileRun, RawByteArguments) {
  // n passed as four raw bytes: only the first 5 of 8 elements change.
  LaunchFileResult r = run_text(with(
      "{\"name\": \"x\", \"type\": \"f32\", \"count\": 8, \"init\": {\"constant\": 1}},"
      "{\"name\": \"y\", \"type\": \"f32\", \"count\": 8}",
      saxpy("{\"buffer\": \"y\"}, {\"buffer\": \"x\"}, {\"type\": \"f32\", \"value\": 2}, {\"bytes\": [5, 0, 0, 0]}"),
      "\"expect\": [{\"buffer\": \"y\", \"values\": [2, 2, 2, 2, 2, 0, 0, 0]}]"));
  EXPECT_TRUE(r.verified) << r.detail;
}

TEST_F(LaunchFileRun, ErrorsThatNeedTheModule) {
  const std::string bufs = kBufA + ", {\"name\": \"x\", \"type\": \"f32\", \"count\": 4}";
  const std::pair<std::string, std::string> cases[] = {
      {with(bufs, "{\"kernel\": \"nope\", \"grid\": 1, \"block\": 1}"),
       "launches[0].kernel: no kernel 'nope' in " + kLaunchDir + "/kernels.ptx (kernels: saxpy, fill2d"},
      {with(bufs, saxpy("{\"buffer\": \"a\"}, {\"buffer\": \"x\"}, {\"type\": \"f32\", \"value\": 1}")),
       "launches[0].args: kernel 'saxpy' takes 4 arguments, got 3"},
      {with(bufs, saxpy("{\"buffer\": \"a\"}, {\"buffer\": \"x\"}, {\"type\": \"f32\", \"value\": 1}, "
                        "{\"type\": \"s64\", \"value\": 4}")),
       "launches[0].args[3]: type s64 is 8 bytes but parameter 3"},
      {with(bufs, saxpy("{\"buffer\": \"a\"}, {\"buffer\": \"x\"}, {\"type\": \"s32\", \"value\": 1}, "
                        "{\"type\": \"s32\", \"value\": 4}")),
       "launches[0].args[2]: type s32 does not match parameter 2"},
      {with(bufs, saxpy("{\"buffer\": \"a\"}, {\"type\": \"u32\", \"value\": 1}, {\"type\": \"f32\", \"value\": 1}, "
                        "{\"type\": \"s32\", \"value\": 4}")),
       "launches[0].args[1]: type u32 is 4 bytes but parameter 1"},
  };
  for (const auto& [text, needle] : cases) {
    std::string msg = run_error(text);
    EXPECT_EQ(msg.rfind("launch file t.json: ", 0), 0u) << msg;
    EXPECT_NE(msg.find(needle), std::string::npos) << msg << "\nwanted: " << needle;
  }
}

TEST_F(LaunchFileRun, DeviceLaunchErrorsCarryTheKeyPath) {
  // A block larger than any GPU allows: GpuDevice::launch rejects it.
  std::string msg = run_error(with(kBufA + ", {\"name\": \"x\", \"type\": \"f32\", \"count\": 4}",
                                   "{\"kernel\": \"saxpy\", \"grid\": 1, \"block\": 4096, \"args\": ["
                                   "{\"buffer\": \"a\"}, {\"buffer\": \"x\"}, {\"type\": \"f32\", \"value\": 1},"
                                   "{\"type\": \"s32\", \"value\": 4}]}"));
  EXPECT_EQ(msg.rfind("launch file t.json: launches[0]: ", 0), 0u) << msg;
}

TEST_F(LaunchFileRun, DeviceFaultPropagates) {
  EXPECT_THROW(run_fixture("fault.json"), tlmgpu::exec::DeviceFault);
}


// ------------------------------------------------ structs, checks, host steps

// SplitMix64 uniform values as docs/LAUNCH_FILE.md specifies the random
// initialiser; the CPU references below regenerate the inputs with it.
std::vector<double> splitmix_uniform(uint64_t seed, double lo, double hi, size_t n) {
  std::vector<double> out(n);
  uint64_t state = seed;
  for (size_t i = 0; i < n; ++i) {
    uint64_t z = (state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    out[i] = lo + (hi - lo) * (double(z >> 11) * 0x1p-53);
  }
  return out;
}

std::string json_list(const std::vector<double>& v) {
  std::ostringstream os;
  os << std::setprecision(17) << "[";
  for (size_t i = 0; i < v.size(); ++i) os << (i ? ", " : "") << v[i];
  return os.str() + "]";
}

// The C++ compiler's layout of a struct is the CUDA layout for these types.
struct LayoutProbe {
  uint8_t tag;
  double weight;
  int16_t taps[3];
  struct Inner {
    uint8_t flag;
    float value;
  } inner[2];
  uint16_t tail;
};

const std::string kProbeTypes =
    "\"types\": [{\"name\": \"Inner\", \"fields\": [{\"name\": \"flag\", \"type\": \"u8\"}, {\"name\": \"value\", \"type\": \"f32\"}]},"
    " {\"name\": \"Probe\", \"fields\": [{\"name\": \"tag\", \"type\": \"u8\"}, {\"name\": \"weight\", \"type\": \"f64\"},"
    "  {\"name\": \"taps\", \"type\": \"s16\", \"count\": 3}, {\"name\": \"inner\", \"type\": \"Inner\", \"count\": 2},"
    "  {\"name\": \"tail\", \"type\": \"u16\"}]}]";

TEST_F(LaunchFileRun, StructLayoutMatchesTheCompiler) {
  static_assert(sizeof(LayoutProbe) == 48, "layout of the probe");
  const size_t n = 5;
  // Per-field initialisers: sequence, constant, values (n x 3 for the array field), random.
  std::string taps;
  for (size_t i = 0; i < n * 3; ++i) taps += (i ? ", " : "") + std::to_string(int(i) * 7 - 20);
  run_text("{\"ptx\": \"kernels.ptx\", " + kProbeTypes +
           ", \"buffers\": [{\"name\": \"p\", \"type\": \"Probe\", \"count\": 5, \"init\": {\"fields\": {"
           "  \"tag\": {\"sequence\": {\"start\": 250, \"step\": 3}},"
           "  \"weight\": {\"random\": {\"seed\": 5, \"min\": -2, \"max\": 2}},"
           "  \"taps\": {\"values\": [" + taps + "]},"
           "  \"inner[1].value\": {\"sequence\": {\"start\": 0.5, \"step\": -0.25}},"
           "  \"inner[0].flag\": {\"constant\": \"0x7f\"},"
           "  \"tail\": {\"constant\": 65535}}}}],"
           " \"launches\": [], \"dump\": [{\"buffer\": \"p\", \"file\": \"p.bin\"}]}");
  const std::string bytes = read_text(dir_ / "p.bin");
  ASSERT_EQ(bytes.size(), n * sizeof(LayoutProbe));
  const std::vector<double> weight = splitmix_uniform(5, -2, 2, n);
  for (size_t i = 0; i < n; ++i) {
    SCOPED_TRACE(i);
    const char* rec = bytes.data() + i * sizeof(LayoutProbe);
    LayoutProbe p;
    std::memcpy(&p, rec, sizeof p);
    EXPECT_EQ(p.tag, uint8_t(250 + 3 * i));  // wraps in u8
    EXPECT_EQ(p.weight, weight[i]);
    for (size_t k = 0; k < 3; ++k) EXPECT_EQ(p.taps[k], int16_t(int(i * 3 + k) * 7 - 20));
    EXPECT_EQ(p.inner[0].flag, 0x7f);
    EXPECT_EQ(p.inner[0].value, 0.0f);
    EXPECT_EQ(p.inner[1].flag, 0);
    EXPECT_EQ(p.inner[1].value, float(0.5 - 0.25 * double(i)));
    EXPECT_EQ(p.tail, 65535);
    // Padding stays zero: after tag, after taps, inside each Inner, at the tail.
    for (size_t off : {offsetof(LayoutProbe, tag) + 1, offsetof(LayoutProbe, taps) + 6,
                       offsetof(LayoutProbe, inner) + 1, offsetof(LayoutProbe, tail) + 2, sizeof(LayoutProbe) - 1})
      EXPECT_EQ(rec[off], 0) << "offset " << off;
  }
}

TEST_F(LaunchFileRun, StructExplicitOffsetAndAlignment) {
  // Like struct __align__(16) Gap { uint8_t a; /* 7 bytes */ uint32_t b; /* at 8 */ }:
  // offset 8 leaves a gap, align 16 pads the 12 bytes of fields to 16.
  struct alignas(16) Gap {
    uint8_t a;
    alignas(8) uint32_t b;
  };
  static_assert(sizeof(Gap) == 16 && offsetof(Gap, b) == 8, "reference layout");
  run_text("{\"ptx\": \"kernels.ptx\", \"structs\": [{\"name\": \"Gap\", \"align\": 16, \"fields\": ["
           "{\"name\": \"a\", \"type\": \"u8\"}, {\"name\": \"b\", \"type\": \"u32\", \"offset\": 8}]}],"
           " \"buffers\": [{\"name\": \"g\", \"type\": \"Gap\", \"count\": 3, \"init\": {\"fields\": {"
           "\"a\": {\"constant\": 5}, \"b\": {\"sequence\": {\"start\": \"0xfffffffe\", \"step\": 1}}}}}],"
           " \"launches\": [], \"dump\": [{\"buffer\": \"g\", \"file\": \"g.bin\"}]}");
  const std::string bytes = read_text(dir_ / "g.bin");
  ASSERT_EQ(bytes.size(), 3 * sizeof(Gap));
  for (size_t i = 0; i < 3; ++i) {
    Gap g;
    std::memcpy(&g, bytes.data() + i * sizeof(Gap), sizeof g);
    EXPECT_EQ(g.a, 5);
    EXPECT_EQ(g.b, uint32_t(0xfffffffeu + i)) << i;  // the sequence wraps in u32
    for (size_t off = 1; off < 8; ++off) EXPECT_EQ(bytes[i * sizeof(Gap) + off], 0) << off;
  }
}

TEST_F(LaunchFileRun, StructByValueParameterMatchesThePtx) {
  // particles.ptx: .param .align 8 .b8 advance_param_1[24] (StepParams).
  const std::string types =
      "\"types\": [{\"name\": \"Vec3\", \"fields\": [{\"name\": \"x\", \"type\": \"f32\"}, {\"name\": \"y\", \"type\": \"f32\"},"
      " {\"name\": \"z\", \"type\": \"f32\"}]},"
      " {\"name\": \"P\", \"fields\": [{\"name\": \"pos\", \"type\": \"Vec3\"}, {\"name\": \"vel\", \"type\": \"Vec3\"},"
      "  {\"name\": \"mass\", \"type\": \"f32\"}, {\"name\": \"alive\", \"type\": \"u8\"}]},"
      " {\"name\": \"StepParams\", \"fields\": [{\"name\": \"dt\", \"type\": \"DT\"}, {\"name\": \"gravity\", \"type\": \"Vec3\"},"
      "  {\"name\": \"n\", \"type\": \"s32\"}]}]";
  auto file = [&](const std::string& dt_type, const std::string& n) {
    std::string t = types;
    t.replace(t.find("DT"), 2, dt_type);
    return "{\"ptx\": \"particles.ptx\", " + t +
           ", \"buffers\": [{\"name\": \"p\", \"type\": \"P\", \"count\": 3, \"init\": {\"fields\": {"
           "\"alive\": {\"values\": [1, 0, 1]}, \"vel.x\": {\"constant\": 1}, \"pos.y\": {\"constant\": 10}}}}],"
           " \"launches\": [{\"kernel\": \"advance\", \"grid\": 1, \"block\": 4, \"args\": [{\"buffer\": \"p\"},"
           " {\"struct\": \"StepParams\", \"value\": {\"dt\": 0.5, \"gravity\": {\"x\": 2, \"y\": -4}, \"n\": " + n + "}}]}],"
           " \"expect\": [{\"buffer\": \"p\", \"field\": \"vel.x\", \"values\": [2, 1, 1]},"
           "            {\"buffer\": \"p\", \"field\": \"pos.y\", \"values\": [9, 10, 10]},"
           "            {\"buffer\": \"p\", \"field\": \"pos.x\", \"values\": [1, 0, 0]}]}";
  };
  // CPU: v.x = 1 + 2*0.5 = 2, x = 0 + 2*0.5 = 1; v.y = -2, y = 10 - 1 = 9;
  // particle 1 is dead and n = 2 leaves particle 2 alone.
  LaunchFileResult r = run_text(file("f64", "2"));
  EXPECT_TRUE(r.verified) << r.detail;
  // The same struct with a float dt is 20 bytes with alignment 4: not the kernel's parameter.
  std::string msg = run_error(file("f32", "2"));
  EXPECT_NE(msg.find("launches[0].args[1]: struct 'StepParams' (20 bytes, alignment 4) does not match parameter 1"),
            std::string::npos)
      << msg;
  // Struct values are checked like any value.
  msg = run_error(file("f64", "2.5"));
  EXPECT_NE(msg.find("launches[0].args[1].value.n: expected an integer for s32"), std::string::npos) << msg;
}

TEST(LaunchFile, StructAndStepErrorsNameTheKeyPath) {
  const std::string inner = "{\"name\": \"V\", \"fields\": [{\"name\": \"x\", \"type\": \"f32\"}, {\"name\": \"k\", \"type\": \"u8\", \"count\": 2}]}";
  auto typed = [&](const std::string& buffers, const std::string& launches, const std::string& extra = "") {
    return "{\"ptx\": \"kernels.ptx\", \"types\": [" + inner + "], \"buffers\": [" + buffers + "], \"launches\": [" +
           launches + "]" + (extra.empty() ? "" : ", " + extra) + "}";
  };
  const std::string vbuf = "{\"name\": \"v\", \"type\": \"V\", \"count\": 4}";
  const std::string f32a = "{\"name\": \"a\", \"type\": \"f32\", \"count\": 8}";
  const std::string f32b = "{\"name\": \"b\", \"type\": \"f32\", \"count\": 8}";
  const ErrorCase cases[] = {
      {"{\"ptx\": \"kernels.ptx\", \"types\": [{\"name\": \"S\", \"fields\": [{\"name\": \"a\", \"type\": \"W\"}]}], \"launches\": []}",
       "types[0].fields[0].type: unknown type 'W'"},
      {"{\"ptx\": \"kernels.ptx\", \"types\": [{\"name\": \"S\", \"fields\": [{\"name\": \"a\", \"type\": \"S\"}]}], \"launches\": []}",
       "types[0].fields[0].type: unknown type 'S'"},
      {"{\"ptx\": \"kernels.ptx\", \"types\": [{\"name\": \"S\", \"fields\": [{\"name\": \"a\", \"type\": \"u8\"},"
       " {\"name\": \"a\", \"type\": \"u8\"}]}], \"launches\": []}",
       "types[0].fields[1].name: duplicate field 'a'"},
      {"{\"ptx\": \"kernels.ptx\", \"types\": [{\"name\": \"S\", \"fields\": [{\"name\": \"a\", \"type\": \"u8\"},"
       " {\"name\": \"b\", \"type\": \"u32\", \"offset\": 2}]}], \"launches\": []}",
       "types[0].fields[1].offset: offset 2 is not a multiple of the field's alignment 4"},
      {"{\"ptx\": \"kernels.ptx\", \"types\": [{\"name\": \"S\", \"fields\": [{\"name\": \"a\", \"type\": \"u64\"},"
       " {\"name\": \"b\", \"type\": \"u32\", \"offset\": 4}]}], \"launches\": []}",
       "types[0].fields[1].offset: offset 4 overlaps the previous field, which ends at 8"},
      {"{\"ptx\": \"kernels.ptx\", \"types\": [{\"name\": \"S\", \"align\": 2, \"fields\": [{\"name\": \"a\", \"type\": \"u32\"}]}],"
       " \"launches\": []}",
       "types[0].align: alignment 2 is below the natural alignment 4"},
      {"{\"ptx\": \"kernels.ptx\", \"types\": [], \"structs\": [], \"launches\": []}", "give only one of 'types' and 'structs'"},
      {typed("{\"name\": \"v\", \"type\": \"V\", \"count\": 4, \"init\": {\"fields\": {\"y\": {\"constant\": 1}}}}", ""),
       "buffers[0].init.fields.y: struct 'V' has no scalar field 'y' (fields: x, k)"},
      {typed("{\"name\": \"v\", \"type\": \"V\", \"count\": 4, \"init\": {\"fields\": {\"k[2]\": {\"constant\": 1}}}}", ""),
       "buffers[0].init.fields.k[2]: index 2 is out of range for field 'k' of 2 elements"},
      {typed("{\"name\": \"v\", \"type\": \"V\", \"count\": 2, \"init\": {\"fields\": {\"k\": {\"values\": [1, 2, 3]}}}}", ""),
       "buffers[0].init.fields.k: 3 values, but 2 structs need 4"},
      {typed("{\"name\": \"v\", \"type\": \"V\", \"count\": 2, \"init\": {\"fields\": {\"k\": {\"constant\": 1}, \"k[1]\": {\"constant\": 2}}}}", ""),
       "buffers[0].init.fields.k[1]: overlaps field 'k', initialised too"},
      {typed("{\"name\": \"v\", \"type\": \"V\", \"count\": 2, \"init\": {\"constant\": 1}}", ""),
       "buffers[0].init: unknown key 'constant' (expected one of: fields, file)"},
      {typed(vbuf, "", "\"expect\": [{\"buffer\": \"v\", \"constant\": 0}]"),
       "expect[0]: buffer 'v' holds struct 'V': name the 'field' to check"},
      {typed(f32a, "", "\"expect\": [{\"buffer\": \"a\", \"field\": \"x\", \"constant\": 0}]"),
       "expect[0].field: buffer 'a' holds f32, not structs"},
      {typed(f32a, "", "\"expect\": [{\"buffer\": \"a\", \"start\": 2, \"stride\": 3, \"count\": 3, \"constant\": 0}]"),
       "expect[0].count: 3 elements from start 2 with stride 3 run past the end of 'a' (8 elements; at most 2 fit)"},
      {typed(f32a, "", "\"expect\": [{\"buffer\": \"a\", \"start\": 8, \"constant\": 0}]"), "expect[0].start: 8 is out of range"},
      {typed(f32a, "", "\"expect\": [{\"buffer\": \"a\", \"count\": 2, \"values\": [1, 2, 3]}]"),
       "expect[0]: the selection has 2 elements, expected data has 3"},
      {typed(f32a, "", "\"expect\": [{\"buffer\": \"a\", \"min\": 0, \"sum\": 1}]"), "expect[0]: give only one check"},
      {typed(f32a, "", "\"expect\": [{\"buffer\": \"a\", \"min\": 0, \"tolerance\": 1}]"), "expect[0]: 'min'/'max' take no tolerance"},
      {typed(f32a, "", "\"expect\": [{\"buffer\": \"a\", \"min\": 2, \"max\": 1}]"), "expect[0]: min is greater than max"},
      {typed(f32a, "", "\"expect\": [{\"buffer\": \"a\", \"sum\": 1, \"sorted\": true}]"),
       "expect[0].sorted: applies to 'values', 'file' and 'constant' only"},
      {typed(f32a + "," + vbuf, "{\"copy\": {\"from\": \"a\", \"to\": \"v\"}}"),
       "launches[0].copy: buffers 'a' (f32) and 'v' (struct 'V') hold different element types"},
      {typed(f32a + "," + f32b, "{\"copy\": {\"from\": \"a\", \"to\": \"b\", \"to_offset\": 6, \"count\": 3}}"),
       "launches[0].copy.count: 3 elements do not fit: 'a' has 8 after from_offset, 'b' 2 after to_offset"},
      {typed(f32a, "{\"copy\": {\"from\": \"a\", \"to\": \"c\"}}"), "launches[0].copy.to: unknown buffer 'c'"},
      {typed(f32a, "{\"fill\": \"a\", \"init\": {\"values\": [1, 2]}}"), "launches[0].init: buffer 'a' has 8 elements, init gives 2"},
      {typed(f32a, "{\"fill\": \"a\"}"), "launches[0]: missing key 'init'"},
      {typed(f32a + ", {\"name\": \"b\", \"type\": \"f32\", \"count\": 9}", "{\"swap\": [\"a\", \"b\"]}"),
       "launches[0].swap: only buffers of the same element type and count can swap: 'a' is 8 x f32, 'b' 9 x f32"},
      {typed(f32a, "{\"swap\": [\"a\"]}"), "launches[0].swap: expected an array of two buffer names"},
      {typed(f32a, "{\"swap\": [\"a\", \"a\"]}"), "launches[0].swap: swaps 'a' with itself"},
      {typed(f32a, "{\"repeat\": {\"times\": 2, \"until_zero\": \"a\"}, \"launches\": []}"),
       "launches[0].repeat: give only one of 'until_zero' and 'times'"},
      {typed(vbuf, "{\"repeat\": {\"until_zero\": \"v\"}, \"launches\": []}"),
       "launches[0].repeat.until_zero: a flag needs a buffer of scalars; 'v' holds struct 'V'"},
      {typed(vbuf, "", "\"dump\": [{\"buffer\": \"v\", \"file\": \"v.txt\", \"format\": \"text\"}]"),
       "dump[0].format: text format needs a buffer of scalars"},
      {typed(f32a, "", "\"expect_fault\": {\"kind\": \"segfault\"}"),
       "expect_fault.kind: unknown fault kind 'segfault' (expected one of: out_of_bounds, misaligned, trap"},
      {typed(f32a, "{\"kernel\": \"saxpy\", \"grid\": 1, \"block\": 1, \"args\": [{\"struct\": \"V\", \"value\": {\"z\": 1}}]}"),
       "launches[0].args[0].value: struct 'V' has no field 'z' (fields: x, k)"},
      {typed(f32a, "{\"kernel\": \"saxpy\", \"grid\": 1, \"block\": 1, \"args\": [{\"struct\": \"V\", \"value\": {\"k\": [1, 2, 3]}}]}"),
       "launches[0].args[0].value.k: 3 values for an array of 2"},
      {typed(f32a, "{\"kernel\": \"saxpy\", \"grid\": 1, \"block\": 1, \"args\": [{\"struct\": \"W\", \"value\": {}}]}"),
       "launches[0].args[0].struct: unknown struct type 'W'"},
  };
  for (const auto& [text, needle] : cases) {
    std::string msg = parse_error(text);
    EXPECT_EQ(msg.rfind("launch file t.json: ", 0), 0u) << msg << "\nwanted: " << needle;
    EXPECT_NE(msg.find(needle), std::string::npos) << msg << "\nwanted: " << needle;
  }
}

// Expectations checked on initialised data (no kernel): each kind of check
// holds on the CPU-computed truth and fails, naming the element, on a wrong one.
TEST_F(LaunchFileRun, SliceFieldRangeSortedAndSumChecks) {
  const size_t n = 40;
  const std::vector<double> r = splitmix_uniform(11, -3, 5, n);  // what the f64 buffer holds
  double sum = 0, lo = r[0], hi = r[0];
  for (double v : r) sum += v, lo = std::min(lo, v), hi = std::max(hi, v);
  std::vector<double> slice;  // elements 3, 8, 13, ... (start 3, stride 5)
  for (size_t i = 3; i < n; i += 5) slice.push_back(r[i]);
  std::vector<double> reversed(r.rbegin(), r.rend());
  std::vector<double> ids;  // the struct field k (s32 sequence 100, 97, ...), sorted backwards
  for (size_t i = 0; i < 6; ++i) ids.push_back(100 - 3.0 * double(5 - i));
  auto run_checks = [&](const std::string& expect) {
    return run_text("{\"ptx\": \"kernels.ptx\","
                    " \"types\": [{\"name\": \"S\", \"fields\": [{\"name\": \"k\", \"type\": \"s32\"}, {\"name\": \"w\", \"type\": \"f32\", \"count\": 2}]}],"
                    " \"buffers\": [{\"name\": \"r\", \"type\": \"f64\", \"count\": 40, \"init\": {\"random\": {\"seed\": 11, \"min\": -3, \"max\": 5}}},"
                    "  {\"name\": \"s\", \"type\": \"S\", \"count\": 6, \"init\": {\"fields\": {\"k\": {\"sequence\": {\"start\": 100, \"step\": -3}},"
                    "   \"w\": {\"sequence\": {\"start\": 0, \"step\": 0.5}}}}}],"
                    " \"launches\": [], \"expect\": [" + expect + "]}");
  };
  std::ostringstream good;
  good << std::setprecision(17);
  good << "{\"buffer\": \"r\", \"start\": 3, \"stride\": 5, \"values\": " << json_list(slice) << "},"
       << "{\"buffer\": \"r\", \"sorted\": true, \"values\": " << json_list(reversed) << "},"
       << "{\"buffer\": \"r\", \"min\": " << lo << ", \"max\": " << hi << "},"
       << "{\"buffer\": \"r\", \"sum\": " << sum << ", \"tolerance\": 1e-9},"
       << "{\"buffer\": \"s\", \"field\": \"k\", \"sorted\": true, \"values\": " << json_list(ids) << "},"
       << "{\"buffer\": \"s\", \"field\": \"w\", \"start\": 1, \"count\": 2, \"values\": [1, 1.5, 2, 2.5]},"
       << "{\"buffer\": \"s\", \"field\": \"w[1]\", \"stride\": 2, \"values\": [0.5, 2.5, 4.5]},"
       << "{\"buffer\": \"s\", \"field\": \"k\", \"sum\": " << 6 * 100 - 3 * 15 << "}";
  LaunchFileResult ok = run_checks(good.str());
  EXPECT_TRUE(ok.verified) << ok.detail;
  EXPECT_EQ(ok.expectations, 8u);

  std::ostringstream near_lo;
  near_lo << std::setprecision(17) << std::nextafter(lo, 10.0);
  std::vector<double> off = slice;
  off[2] += 1e-6;
  const std::pair<std::string, std::string> bad[] = {
      {"{\"buffer\": \"r\", \"start\": 3, \"stride\": 5, \"values\": " + json_list(off) + "}",
       "expect[0]: r[13] = "},
      {"{\"buffer\": \"r\", \"min\": " + near_lo.str() + "}", "elements out of range"},
      {"{\"buffer\": \"s\", \"field\": \"w[1]\", \"stride\": 2, \"values\": [0.5, 2.5, 4]}",
       "expect[0]: s[4].w[1] = 4.5, expected 4; 1 of 3 elements differ"},
      {"{\"buffer\": \"s\", \"field\": \"w\", \"start\": 1, \"count\": 2, \"values\": [1, 1.5, 2, 2.25]}",
       "expect[0]: s[2].w[1] = 2.5, expected 2.25"},
      {"{\"buffer\": \"s\", \"field\": \"k\", \"sorted\": true, \"values\": [85, 88, 91, 94, 97, 97]}",
       "expect[0]: as a sorted multiset, element 5 of s.k is 100, expected 97"},
      {"{\"buffer\": \"s\", \"field\": \"k\", \"sum\": 554}", "expect[0]: sum of 6 values of field k is 555, expected 554"},
      {"{\"buffer\": \"r\", \"sum\": " + std::to_string(sum + 0.01) + ", \"tolerance\": 1e-3}", "expect[0]: sum of 40 values is"},
  };
  for (const auto& [expect, needle] : bad) {
    LaunchFileResult r2 = run_checks(expect);
    EXPECT_FALSE(r2.verified) << expect;
    EXPECT_NE(r2.detail.find(needle), std::string::npos) << r2.detail << "\nwanted: " << needle;
  }
}

TEST_F(LaunchFileRun, HostCopyAndFillBetweenLaunches) {
  // CPU: x = random(seed 2) in [0, 10]; y = 1; y[i] = 3 x[i] + y[i] (saxpy over 16);
  // then y[4..9] := x[10..15] (copy), x := 0.5 + 0.25 i (fill), y += 3 x again.
  const std::vector<double> xr = splitmix_uniform(2, 0, 10, 16);
  std::vector<float> x(16), y(16, 1.0f);
  for (size_t i = 0; i < 16; ++i) x[i] = float(xr[i]);
  auto saxpy_cpu = [&] {
    for (size_t i = 0; i < 16; ++i) y[i] = std::fma(3.0f, x[i], y[i]);
  };
  saxpy_cpu();
  for (size_t i = 0; i < 6; ++i) y[4 + i] = x[10 + i];
  for (size_t i = 0; i < 16; ++i) x[i] = float(0.5 + 0.25 * double(i));
  saxpy_cpu();
  std::vector<double> want(y.begin(), y.end());
  const std::string launch = saxpy("{\"buffer\": \"y\"}, {\"buffer\": \"x\"}, {\"type\": \"f32\", \"value\": 3}, {\"type\": \"s32\", \"value\": 16}");
  LaunchFileResult r = run_text(with(
      "{\"name\": \"x\", \"type\": \"f32\", \"count\": 16, \"init\": {\"random\": {\"seed\": 2, \"min\": 0, \"max\": 10}}},"
      "{\"name\": \"y\", \"type\": \"f32\", \"count\": 16, \"init\": {\"constant\": 1}}",
      launch + ", {\"copy\": {\"from\": \"x\", \"to\": \"y\", \"from_offset\": 10, \"to_offset\": 4, \"count\": 6}},"
               "{\"fill\": \"x\", \"init\": {\"sequence\": {\"start\": 0.5, \"step\": 0.25}}}, " + launch,
      "\"expect\": [{\"buffer\": \"y\", \"relative_tolerance\": 1e-6, \"values\": " + json_list(want) + "}]"));
  EXPECT_TRUE(r.verified) << r.detail;
  EXPECT_EQ(r.kernel_launches, 2u);
}

TEST_F(LaunchFileRun, BufferArgumentAtAnElementOffset) {
  // saxpy(&y[4], &x[8], 2, 6): y[4..9] = 2 x[8..13] + 1; the rest of y stays 1.
  std::vector<double> want(16, 1.0);
  for (size_t i = 0; i < 6; ++i) want[4 + i] = 2.0 * double(8 + i) + 1.0;
  LaunchFileResult r = run_text(with(
      "{\"name\": \"x\", \"type\": \"f32\", \"count\": 16, \"init\": {\"sequence\": {\"start\": 0, \"step\": 1}}},"
      "{\"name\": \"y\", \"type\": \"f32\", \"count\": 16, \"init\": {\"constant\": 1}}",
      saxpy("{\"buffer\": \"y\", \"offset\": 4}, {\"buffer\": \"x\", \"offset\": 8}, {\"type\": \"f32\", \"value\": 2}, "
            "{\"type\": \"s32\", \"value\": 6}"),
      "\"expect\": [{\"buffer\": \"y\", \"values\": " + json_list(want) + "}]"));
  EXPECT_TRUE(r.verified) << r.detail;
  // One past the end is a pointer C allows; beyond it is not.
  EXPECT_EQ(parse_error(with("{\"name\": \"y\", \"type\": \"f32\", \"count\": 16}",
                             saxpy("{\"buffer\": \"y\", \"offset\": 16}, {\"buffer\": \"y\"}, "
                                   "{\"type\": \"f32\", \"value\": 2}, {\"type\": \"s32\", \"value\": 0}"))),
            "");
  EXPECT_NE(parse_error(with("{\"name\": \"y\", \"type\": \"f32\", \"count\": 16}",
                             saxpy("{\"buffer\": \"y\", \"offset\": 17}, {\"buffer\": \"y\"}, "
                                   "{\"type\": \"f32\", \"value\": 2}, {\"type\": \"s32\", \"value\": 0}")))
                .find("launches[0].args[0].offset"),
            std::string::npos);
}

TEST_F(LaunchFileRun, HostCopiesFromAndToModuleVariables) {
  // sum_into_total adds v into the __device__ int 'total'; the host reads it
  // out twice (cudaMemcpyFromSymbol), resets it from a buffer in between
  // (cudaMemcpyToSymbol), and sets use_symbols' 'offset' and 'coef' the same way.
  const std::string sum = "{\"kernel\": \"sum_into_total\", \"grid\": 1, \"block\": 32, "
                          "\"args\": [{\"buffer\": \"v\"}, {\"type\": \"s32\", \"value\": 10}]}";
  LaunchFileResult r = run_text(with(
      "{\"name\": \"v\", \"type\": \"s32\", \"count\": 10, \"init\": {\"sequence\": {\"start\": 1, \"step\": 1}}},"
      "{\"name\": \"totals\", \"type\": \"s32\", \"count\": 3},"
      "{\"name\": \"start\", \"type\": \"s32\", \"init\": {\"values\": [1000, -4]}},"
      "{\"name\": \"coefs\", \"type\": \"f32\", \"init\": {\"values\": [2, 2, 2, 2]}},"
      "{\"name\": \"in\", \"type\": \"f32\", \"count\": 4, \"init\": {\"constant\": 1.5}},"
      "{\"name\": \"out\", \"type\": \"f32\", \"count\": 4}",
      sum + ", {\"copy\": {\"from_symbol\": \"total\", \"to\": \"totals\", \"to_offset\": 0}},"
            "{\"copy\": {\"from\": \"start\", \"to_symbol\": \"total\", \"count\": 1}}, " + sum + ","
            "{\"copy\": {\"from_symbol\": \"total\", \"to\": \"totals\", \"to_offset\": 1, \"count\": 1}},"
            "{\"copy\": {\"from\": \"start\", \"from_offset\": 1, \"to_symbol\": \"offset\"}},"
            "{\"copy\": {\"from\": \"coefs\", \"to_symbol\": \"coef\"}},"
            "{\"kernel\": \"use_symbols\", \"grid\": 1, \"block\": 32, \"args\": [{\"buffer\": \"out\"}, {\"buffer\": \"in\"}, "
            "{\"type\": \"s32\", \"value\": 4}]}",
      "\"expect\": [{\"buffer\": \"totals\", \"values\": [55, 1055, 0]}, {\"buffer\": \"out\", \"constant\": -1}]"));
  EXPECT_TRUE(r.verified) << r.detail;

  // What needs the module is checked before anything runs.
  const std::string bufs = "{\"name\": \"t\", \"type\": \"s32\", \"count\": 4}";
  std::string msg = run_error(with(bufs, "{\"copy\": {\"from_symbol\": \"nope\", \"to\": \"t\"}}"));
  EXPECT_NE(msg.find("launches[0].copy.from_symbol: no .global or .const variable 'nope'"), std::string::npos) << msg;
  msg = run_error(with(bufs, "{\"copy\": {\"from\": \"t\", \"to_symbol\": \"total\", \"count\": 2}}"));
  EXPECT_NE(msg.find("launches[0].copy: copies 8 bytes at symbol_offset 0 but 'total' has 4 bytes"), std::string::npos)
      << msg;
  msg = parse_error(with(bufs, "{\"copy\": {\"from_symbol\": \"total\", \"to\": \"t\", \"from\": \"t\"}}"));
  EXPECT_NE(msg.find("launches[0].copy: unknown key 'from'"), std::string::npos) << msg;
}

TEST_F(LaunchFileRun, ExpectedAssertFaultAndFaultedLaunchesCounted) {
  const std::string v = "{\"name\": \"v\", \"type\": \"s32\", \"init\": {\"values\": [3, 2, 0, 5]}}";
  const std::string check = "{\"kernel\": \"assert_positive\", \"grid\": 1, \"block\": 32, "
                            "\"args\": [{\"buffer\": \"v\"}, {\"type\": \"s32\", \"value\": 4}]";
  LaunchFileResult r = run_text(with(v, check + ", \"expect_fault\": {\"kind\": \"assert\", \"message_contains\": \"v[i] > 0\"}}, " +
                                            check + ", \"expect_fault\": {\"kind\": \"assert\"}}"));
  EXPECT_TRUE(r.verified) << r.detail;
  EXPECT_EQ(r.expected_faults, 2u);
  ASSERT_EQ(r.faults_as_expected.size(), 2u);
  EXPECT_EQ(r.faults_as_expected[0].path, "launches[0].expect_fault");
  EXPECT_EQ(r.faults_as_expected[0].kernel, "assert_positive");
  EXPECT_EQ(r.faults_as_expected[0].kind, "assert");
  // Faulted launches count as launches, with the instructions they executed.
  EXPECT_EQ(r.kernel_launches, 2u);
  ASSERT_EQ(r.kernels.size(), 1u);
  EXPECT_EQ(r.kernels[0].launches, 2u);
  EXPECT_EQ(r.kernels[0].faulted, 2u);
  EXPECT_GT(r.kernels[0].warp_insts, 0u);
  // Another kind does not match an assert.
  try {
    run_text(with(v, check + ", \"expect_fault\": {\"kind\": \"trap\"}}"));
    FAIL() << "no error";
  } catch (const LaunchFileRunError& e) {
    EXPECT_NE(std::string(e.what()).find("expected a fault of kind trap, got a fault of kind assert"), std::string::npos)
        << e.what();
  }
  // A fault nothing expects: the result up to it, the faulted launch included,
  // and the device's own statistics agree.
  LaunchFile f = LaunchFile::parse(with(v, passing_then_failing(check)), "t.json", kLaunchDir);
  GpuDevice device;
  LaunchFileResult so_far;
  LaunchFileOptions o = options_;
  o.result_on_error = &so_far;
  EXPECT_THROW(f.run(device, o), tlmgpu::exec::DeviceFault);
  EXPECT_EQ(so_far.kernel_launches, 2u);
  ASSERT_EQ(so_far.kernels.size(), 1u);
  EXPECT_EQ(so_far.kernels[0].faulted, 1u);
  EXPECT_EQ(device.stats().kernels_launched, 2u);
  EXPECT_EQ(device.stats().ctas, 2u);
  EXPECT_EQ(device.stats().warp_insts, so_far.kernels[0].warp_insts);
}

TEST_F(LaunchFileRun, SwapInRepeatGroupFollowsTheBinding) {
  // Three Jacobi steps a -> b, swap: afterwards 'a' names the newest field,
  // 'b' the one before (CPU reference below, the kernel's fma order).
  const int n = 10;
  std::vector<float> a(n), b(n, 0.0f), prev;
  for (int i = 0; i < n; ++i) a[size_t(i)] = float(i * i);
  for (int s = 0; s < 3; ++s) {
    for (int i = 0; i < n; ++i) {
      float c = a[size_t(i)];
      b[size_t(i)] = (i == 0 || i == n - 1) ? c : std::fma(a[size_t(i) + 1] + (a[size_t(i) - 1] - (c + c)), 0.25f, c);
    }
    std::swap(a, b);
  }
  auto file = [&](int times) {
    return "{\"ptx\": \"particles.ptx\", \"buffers\": ["
           "{\"name\": \"a\", \"type\": \"f32\", \"init\": {\"values\": [0, 1, 4, 9, 16, 25, 36, 49, 64, 81]}},"
           "{\"name\": \"b\", \"type\": \"f32\", \"count\": 10}],"
           " \"launches\": [{\"repeat\": {\"times\": " + std::to_string(times) + "}, \"launches\": ["
           "  {\"kernel\": \"heat_step\", \"grid\": 1, \"block\": 32, \"args\": [{\"buffer\": \"a\"}, {\"buffer\": \"b\"},"
           "   {\"type\": \"s32\", \"value\": 10}, {\"type\": \"f32\", \"value\": 0.25}]}, {\"swap\": [\"a\", \"b\"]}]}],"
           " \"expect\": [{\"buffer\": \"a\", \"values\": " + json_list(std::vector<double>(a.begin(), a.end())) + "},"
           "            {\"buffer\": \"b\", \"values\": " + json_list(std::vector<double>(b.begin(), b.end())) + "}]}";
  };
  LaunchFileResult r = run_text(file(3));
  EXPECT_TRUE(r.verified) << r.detail;
  ASSERT_EQ(r.repeats.size(), 1u);
  EXPECT_EQ(r.repeats[0].iterations, 3u);
  // Two steps leave different data behind: the same expectations fail.
  EXPECT_FALSE(run_text(file(2)).verified);
}

TEST_F(LaunchFileRun, ExpectedFaults) {
  LaunchFileResult r = run_fixture("fault_expected.json");
  EXPECT_TRUE(r.verified) << r.detail;
  EXPECT_EQ(r.expected_faults, 1u);
  EXPECT_EQ(r.kernel_launches, 2u);  // the saxpy after the fault ran (y == 3 * 2 + 1 == 7)

  auto run_error_of = [&](const std::string& text) -> std::string {
    try {
      run_text(text);
    } catch (const LaunchFileRunError& e) {
      return e.what();
    }
    return "";
  };
  const std::string oob = "{\"kernel\": \"store_oob\", \"grid\": 1, \"block\": 64, \"args\": [{\"buffer\": \"p\"}, {\"type\": \"s32\", \"value\": 64}]";
  const std::string pbuf = "{\"name\": \"p\", \"type\": \"s32\", \"count\": 64}";
  std::string msg = run_error_of(with(pbuf, oob + ", \"expect_fault\": {\"kind\": \"misaligned\"}}"));
  EXPECT_NE(msg.find("launches[0].expect_fault: expected a fault of kind misaligned, got a fault of kind out_of_bounds: "), std::string::npos)
      << msg;
  msg = run_error_of(with(pbuf, oob + ", \"expect_fault\": {\"message_contains\": \"no such text\"}}"));
  EXPECT_NE(msg.find("expected a device fault whose report contains 'no such text', got a fault of kind out_of_bounds"),
            std::string::npos)
      << msg;
  // In bounds (n = 0: no thread stores): the kernel completes, so the run fails.
  msg = run_error_of(with(pbuf,
                          "{\"kernel\": \"store_oob\", \"grid\": 1, \"block\": 1, \"args\": [{\"buffer\": \"p\"}, "
                          "{\"type\": \"s32\", \"value\": 0}], \"expect_fault\": {\"kind\": \"out_of_bounds\"}}"));
  EXPECT_NE(msg.find("launches[0].expect_fault: expected a fault of kind out_of_bounds, but kernel 'store_oob' completed without a fault"),
            std::string::npos)
      << msg;
  // File-level: the fault ends the run and satisfies it; a different kind does not.
  r = run_text(with(pbuf, oob + "}", "\"expect_fault\": {\"kind\": \"out_of_bounds\"}"));
  EXPECT_EQ(r.expected_faults, 1u);
  msg = run_error_of(with(pbuf, "", "\"expect_fault\": {}"));
  EXPECT_NE(msg.find("expect_fault: expected a device fault, but every launch completed without a fault"), std::string::npos)
      << msg;
  // A fault nobody expected still propagates.
  EXPECT_THROW(run_fixture("fault.json"), tlmgpu::exec::DeviceFault);
}

namespace particles_ref {
// The launch-file random initialiser as docs/LAUNCH_FILE.md specifies it:
// SplitMix64, value = min + (max - min) * (r >> 11) * 2^-53, rounded to f32.
inline std::vector<float> random_f32(uint64_t seed, float lo, float hi, size_t n) {
  std::vector<float> out(n);
  uint64_t state = seed;
  for (size_t i = 0; i < n; ++i) {
    uint64_t z = (state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    out[i] = float(double(lo) + (double(hi) - double(lo)) * (double(z >> 11) * 0x1p-53));
  }
  return out;
}
struct P { float pos[3], vel[3], mass; uint8_t alive; };
struct Result {
  std::vector<P> initial, final;
  std::vector<float> energy;
  double energy_sum = 0;
  std::vector<int> alive_ids;
  std::vector<float> heat;  // final 'a'
  double heat_sum = 0;
};
constexpr int kParticles = 32, kSteps = 10, kHeat = 34, kHeatSteps = 20;
constexpr double kDt = 0.05;
constexpr float kGravityY = -9.81f, kAlpha = 0.25f;
inline Result compute() {
  Result r;
  std::vector<float> y0 = random_f32(3, 0.2f, 4.0f, kParticles), vx0 = random_f32(4, -1.0f, 1.0f, kParticles);
  for (int i = 0; i < kParticles; ++i) {
    P p{};
    p.pos[0] = float(0.0 + i * 0.5);
    p.pos[1] = y0[i];
    p.pos[2] = 1.0f;
    p.vel[0] = vx0[i];
    p.vel[1] = float(3.0 + i * -0.25);
    p.mass = float(1.0 + i * 0.125);
    p.alive = 1;
    r.initial.push_back(p);
  }
  r.final = r.initial;
  const float dt = float(kDt);
  const float g[3] = {0.0f, kGravityY, 0.0f};
  for (int s = 0; s < kSteps; ++s)
    for (P& p : r.final) {
      if (!p.alive) continue;
      for (int k = 0; k < 3; ++k) p.vel[k] = std::fma(g[k], dt, p.vel[k]);   // fma.rn.f32, as nvcc emits
      for (int k = 0; k < 3; ++k) p.pos[k] = std::fma(p.vel[k], dt, p.pos[k]);
      if (p.pos[1] < 0.0f) p.alive = 0;
    }
  for (int i = 0; i < kParticles; ++i) {
    const P& p = r.final[size_t(i)];
    float v2 = std::fma(p.vel[2], p.vel[2], std::fma(p.vel[1], p.vel[1], p.vel[0] * p.vel[0]));
    float e = p.alive ? v2 * (p.mass * 0.5f) : 0.0f;
    r.energy.push_back(e);
    r.energy_sum += e;
    if (p.alive) r.alive_ids.push_back(i);
  }
  std::vector<float> src = random_f32(9, 0.0f, 100.0f, kHeat - 2);
  std::vector<float> a(kHeat, 0.0f), b(kHeat, 0.0f);
  for (int i = 0; i < kHeat - 2; ++i) a[size_t(i) + 1] = src[size_t(i)];
  for (int s = 0; s < kHeatSteps; ++s) {
    for (int i = 0; i < kHeat; ++i) {
      if (i == 0 || i == kHeat - 1) { b[size_t(i)] = a[size_t(i)]; continue; }
      float l = a[size_t(i) - 1], c = a[size_t(i)], rr = a[size_t(i) + 1];
      b[size_t(i)] = std::fma(rr + (l - (c + c)), kAlpha, c);
    }
    std::swap(a, b);
  }
  r.heat = a;
  for (float h : a) r.heat_sum += h;
  return r;
}
}  // namespace particles_ref

// The launch file's expected values must be the CPU reference's (so none of
// them is hard-coded without a derivation), it must verify, and its dumped
// particles must match the reference field by field.
TEST_F(LaunchFileRun, ParticlesExampleMatchesTheCpuReference) {
  using namespace particles_ref;
  const Result ref = compute();
  const nlohmann::json file = nlohmann::json::parse(read_text(kLaunchDir + "/particles.json"));
  auto expect_entry = [&](const std::string& buffer, const std::string& what) -> const nlohmann::json& {
    for (const auto& e : file["expect"])
      if (e["buffer"] == buffer && (e.value("field", "") == what || e.contains(what))) return e;
    throw std::runtime_error("no expectation " + buffer + " " + what);
  };
  const auto& pos_y = expect_entry("particles", "pos.y")["values"];
  const auto& alive = expect_entry("particles", "alive")["values"];
  ASSERT_EQ(pos_y.size(), size_t(kParticles));
  for (size_t i = 0; i < size_t(kParticles); ++i) {
    EXPECT_EQ(pos_y[i].get<float>(), ref.final[i].pos[1]) << i;
    EXPECT_EQ(alive[i].get<int>(), ref.final[i].alive) << i;
  }
  EXPECT_NEAR(expect_entry("energy", "sum")["sum"].get<double>(), ref.energy_sum, 1e-4);
  EXPECT_EQ(expect_entry("live", "values")["values"][0].get<size_t>(), ref.alive_ids.size());
  EXPECT_EQ(expect_entry("ids", "sorted")["values"].get<std::vector<int>>(), ref.alive_ids);
  EXPECT_EQ(expect_entry("ids", "sorted")["count"].get<size_t>(), ref.alive_ids.size());
  EXPECT_EQ(expect_entry("ids", "constant")["start"].get<size_t>(), ref.alive_ids.size());
  const auto heat = expect_entry("a", "values")["values"].get<std::vector<float>>();
  EXPECT_EQ(heat, ref.heat);
  EXPECT_NEAR(expect_entry("a", "sum")["sum"].get<double>(), ref.heat_sum, 1e-3);

  LaunchFileResult r = run_fixture("particles.json");
  EXPECT_TRUE(r.verified) << r.detail;
  EXPECT_EQ(r.expectations, 11u);
  EXPECT_EQ(r.kernel_launches, 10u + 2u + 20u);
  const std::string bytes = read_text(dir_ / "particles.bin");
  ASSERT_EQ(bytes.size(), size_t(kParticles) * 32u);
  for (size_t i = 0; i < size_t(kParticles); ++i) {
    float f[7];
    std::memcpy(f, bytes.data() + i * 32, sizeof f);
    const P& p = ref.final[i];
    const float want[7] = {p.pos[0], p.pos[1], p.pos[2], p.vel[0], p.vel[1], p.vel[2], p.mass};
    for (size_t k = 0; k < 7; ++k) EXPECT_FLOAT_EQ(f[k], want[k]) << "particle " << i << " float " << k;
    EXPECT_EQ(uint8_t(bytes[i * 32 + 28]), p.alive) << i;
  }
}

}  // namespace
