// The launch-file library: schema checks with key paths, and runs on a device.
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

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

}  // namespace
