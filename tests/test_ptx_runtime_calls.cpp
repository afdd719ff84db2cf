// The CUDA device runtime calls and function pointers of real CUDA programs
// (issue 18): printf, assert, malloc/free, virtual functions and pointer
// tables, as nvcc 13 emits them (tests/ptx/breadth/runtime_calls.cu -> .ptx),
// in both divergence modes and in timing mode, checked against the CPU.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "model/exec/kernel_context.h"
#include "model/ptx/ptx_parser.h"
#include "platform/gpu_device.h"
#include "tests/scratch_dir.h"

namespace tlmgpu {
namespace {

using platform::GpuDevice;
using platform::KernelArgs;

std::string read_fixture(const std::string& name) {
  std::ifstream f(std::string(TLMGPU_SOURCE_DIR) + "/tests/ptx/breadth/" + name);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

// The CPU's printf formats the expected text (fmt is always a literal at the call).
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
#pragma GCC diagnostic ignored "-Wformat-security"
template <typename... A>
std::string cpu_printf(const char* fmt, A... args) {
  char buf[1024];
  std::snprintf(buf, sizeof buf, fmt, args...);
  return buf;
}
#pragma GCC diagnostic pop

struct RuntimeCase {
  exec::DivergenceMode divergence;
  platform::SimulationMode mode;
};

class RuntimeCalls : public ::testing::TestWithParam<RuntimeCase> {
 protected:
  RuntimeCalls() : dev(options()) { m = dev.load_module(read_fixture("runtime_calls.ptx"), "runtime_calls.ptx"); }
  platform::DeviceOptions options() const {
    platform::DeviceOptions o;
    o.divergence = GetParam().divergence;
    o.mode = GetParam().mode;
    return o;
  }
  uint64_t device_string(const std::string& s) {
    std::vector<char> bytes(s.begin(), s.end());
    bytes.push_back('\0');
    return dev.upload(bytes);
  }
  /// Runs `launch` and returns the fault it must end in.
  template <typename F>
  exec::DeviceFault expect_fault(F launch) {
    try {
      launch();
    } catch (const exec::DeviceFault& f) {
      return f;
    }
    ADD_FAILURE() << "the launch did not fault";
    return exec::DeviceFault(exec::FaultKind::Unsupported, "");
  }
  GpuDevice dev;
  platform::ModuleHandle m;
};

TEST_P(RuntimeCalls, PrintfIntegerConversionsMatchTheCpu) {
  const std::vector<int> iv = {0, -1, 42, 255, -12345, INT_MAX, INT_MIN, 7};
  const uint64_t div = dev.upload(iv);
  const std::string s = "hello";
  dev.launch(m, "printf_ints", {2, 1, 1}, {4, 1, 1}, 0, KernelArgs().ptr(div).ptr(device_string(s)));
  std::string want;
  for (int t = 0; t < 8; ++t) {
    const int v = iv[size_t(t)];
    want += cpu_printf("t=%d i=%i u=%u x=%x X=%X o=%o c=%c\n", t, v, unsigned(v), v, v, v, 'A' + t);
    want += cpu_printf("[%-6d|%+d|%05d|% d|%#x|%#o|%8.3d] %s|%10s|%-4.2s| %ld %lld %hd %hhd %lu %llx %%\n", v, v, v, v,
                       v, v, v, s.c_str(), s.c_str(), s.c_str(), long((unsigned long)long(v) * 100000000000UL), -(long long)v, short(v),
                       char(v), (unsigned long)t, (unsigned long long)(long long)v << 33);
  }
  EXPECT_EQ(dev.printf_output(), want);
  EXPECT_EQ(dev.take_printf_output(), want);
  EXPECT_EQ(dev.printf_output(), "");
}

TEST_P(RuntimeCalls, PrintfFloatConversionsAndReturnValue) {
  const std::vector<double> dv = {0.0,    1.0 / 3,  -2.5e10, 1e-7, 123456.789,
                                  -0.0,   std::numeric_limits<double>::infinity(), 6.02214076e23};
  const uint64_t ddv = dev.upload(dv);
  const uint64_t dret = dev.allocate(dv.size() * 4);
  dev.launch(m, "printf_floats", {1, 1, 1}, {uint32_t(dv.size()), 1, 1}, 0, KernelArgs().ptr(ddv).ptr(dret));
  std::string want;
  for (double d : dv) {
    want += cpu_printf("f=%f F=%8.3F e=%e E=%.2E g=%g G=%G a=%a\n", d, d, d, d, d, d, d);
    const float f = float(d);
    want += cpu_printf("float %f %.2f %+10.4e|%-12g|\n", double(f), 1.5, double(f), d);
  }
  EXPECT_EQ(dev.take_printf_output(), want);
  // CUDA's printf returns the number of arguments it formatted.
  for (int r : dev.download<int>(dret, dv.size())) EXPECT_EQ(r, 7 * 100 + 4);
}

TEST_P(RuntimeCalls, PrintfOutputIsOrderedByCtaThenThreadThenCall) {
  const uint32_t ctas = 3, threads = 40, steps = 3;  // two warps, the second partial
  dev.launch(m, "printf_order", {ctas, 1, 1}, {threads, 1, 1}, 0, KernelArgs().add<int>(int(steps)));
  std::string want;
  for (uint32_t c = 0; c < ctas; ++c)
    for (uint32_t t = 0; t < threads; ++t)
      for (uint32_t k = 0; k < steps; ++k) want += cpu_printf("cta %u thread %u step %u\n", c, t, k);
  EXPECT_EQ(dev.take_printf_output(), want);
  // A second launch appends its own output after the first's.
  dev.launch(m, "printf_order", {1, 1, 1}, {1, 1, 1}, 0, KernelArgs().add<int>(1));
  dev.launch(m, "printf_order", {1, 1, 1}, {2, 1, 1}, 0, KernelArgs().add<int>(1));
  EXPECT_EQ(dev.take_printf_output(),
            "cta 0 thread 0 step 0\ncta 0 thread 0 step 0\ncta 0 thread 1 step 0\n");
}

TEST_P(RuntimeCalls, AssertFailureIsADeviceFaultNamingTheExpression) {
  std::vector<int> v(32, 1);
  const uint64_t dv = dev.upload(v);
  dev.launch(m, "assert_kernel", {1, 1, 1}, {32, 1, 1}, 0, KernelArgs().ptr(dv));  // holds everywhere
  v[9] = 5;
  v[20] = 100;
  dev.copy_to_device(dv, v.data(), v.size() * 4);
  const exec::DeviceFault f =
      expect_fault([&] { dev.launch(m, "assert_kernel", {1, 1, 1}, {32, 1, 1}, 0, KernelArgs().ptr(dv)); });
  EXPECT_EQ(f.kind(), exec::FaultKind::AssertionFailed);
  const std::string what = f.what();
  EXPECT_NE(what.find("assertion `v[t] < 5` failed"), std::string::npos) << what;
  EXPECT_NE(what.find("runtime_calls.cu:31"), std::string::npos) << what;
  EXPECT_NE(what.find("void assert_kernel(const int *)"), std::string::npos) << what;
  EXPECT_NE(what.find("kernel assert_kernel, CTA (0,0,0), thread (9,0,0)"), std::string::npos) << what;
  EXPECT_NE(what.find("PC 0x"), std::string::npos) << what;
  EXPECT_EQ(f.site().thread, 9u);
}

TEST_P(RuntimeCalls, MallocIsDeterministicAlignedAndReturnsZeroWhenExhausted) {
  const uint32_t n = 32;
  const uint64_t dout = dev.allocate(2 * n * 8);
  dev.launch(m, "malloc_kernel", {1, 1, 1}, {n, 1, 1}, 0, KernelArgs().ptr(dout).add<int>(40).add<int>(0));
  const exec::DeviceHeap& heap = dev.device_heap();
  ASSERT_EQ(heap.bytes(), 8u << 20);  // CUDA's default cudaLimitMallocHeapSize
  std::vector<uint64_t> out = dev.download<uint64_t>(dout, 2 * n);
  for (uint32_t t = 0; t < n; ++t) {
    // First fit, lanes in order, 40 bytes rounded up to 48 (16-byte aligned).
    EXPECT_EQ(out[t], heap.base() + t * 48) << "thread " << t;
    EXPECT_EQ(out[t] % 16, 0u);
    EXPECT_EQ(out[n + t], t * 7) << "thread " << t;
  }
  EXPECT_EQ(heap.bytes_in_use(), n * 48);
  // Freed blocks come back: the same launch with free runs in the space after.
  dev.launch(m, "malloc_kernel", {1, 1, 1}, {n, 1, 1}, 0, KernelArgs().ptr(dout).add<int>(40).add<int>(1));
  out = dev.download<uint64_t>(dout, 2 * n);
  for (uint32_t t = 0; t < n; ++t) EXPECT_EQ(out[t], heap.base() + (n + t) * 48) << "thread " << t;
  EXPECT_EQ(heap.bytes_in_use(), n * 48);
  // 1 MiB each: only as many as fit in what is left; the rest get NULL.
  const uint64_t mib = 1 << 20;
  dev.launch(m, "malloc_kernel", {1, 1, 1}, {n, 1, 1}, 0, KernelArgs().ptr(dout).add<int>(int(mib)).add<int>(0));
  out = dev.download<uint64_t>(dout, 2 * n);
  const uint64_t fit = (heap.bytes() - n * 48) / mib;
  for (uint32_t t = 0; t < n; ++t) {
    if (t < fit) EXPECT_EQ(out[t], heap.base() + n * 48 + t * mib) << "thread " << t;
    else EXPECT_EQ(out[t], 0u) << "thread " << t;
  }
}

TEST_P(RuntimeCalls, FreeOfAPointerMallocDidNotReturnIsADeviceFault) {
  dev.launch(m, "bad_free", {1, 1, 1}, {4, 1, 1}, 0, KernelArgs().add<int>(0));
  const exec::DeviceFault f =
      expect_fault([&] { dev.launch(m, "bad_free", {1, 1, 1}, {4, 1, 1}, 0, KernelArgs().add<int>(16)); });
  const std::string what = f.what();
  EXPECT_NE(what.find("free() of a pointer malloc() did not return"), std::string::npos) << what;
  EXPECT_NE(what.find("kernel bad_free"), std::string::npos) << what;
}

TEST_P(RuntimeCalls, VirtualFunctionsOfObjectsBuiltOnTheDevice) {
  const uint32_t n = 64;
  const int k = 3;
  const uint64_t dout = dev.allocate(n * 4);
  dev.launch(m, "virtual_calls", {1, 1, 1}, {n, 1, 1}, 0, KernelArgs().ptr(dout).add<int>(k));
  const std::vector<int> out = dev.download<int>(dout, n);
  for (uint32_t t = 0; t < n; ++t) {
    const int x = int(t);
    EXPECT_EQ(out[t], t % 3 == 0 ? x * x * k : x * (x + 1) / 2) << "thread " << t;
  }
}

TEST_P(RuntimeCalls, FunctionPointerTableAndPointerInitialisedWithAVariableAddress) {
  const uint32_t n = 64;
  std::mt19937 rng(18);
  std::vector<int> sel(n);
  for (int& s : sel) s = int(rng() % 1000);
  const uint64_t dsel = dev.upload(sel);
  const uint64_t dout = dev.allocate(n * 4);
  dev.launch(m, "pointer_table", {1, 1, 1}, {n, 1, 1}, 0, KernelArgs().ptr(dout).ptr(dsel));
  const std::vector<int> out = dev.download<int>(dout, n);
  const int data[4] = {10, 20, 30, 40};
  for (uint32_t t = 0; t < n; ++t) {
    const int a = int(t), b = data[t & 3];
    const int want = sel[t] % 3 == 0 ? a + b : sel[t] % 3 == 1 ? a * b : a - b;
    EXPECT_EQ(out[t], want) << "thread " << t;
  }
}

TEST_P(RuntimeCalls, CallThroughABadFunctionPointerIsADeviceFault) {
  const uint64_t dout = dev.allocate(32 * 4);
  const exec::DeviceFault f = expect_fault(
      [&] { dev.launch(m, "bad_pointer", {1, 1, 1}, {32, 1, 1}, 0, KernelArgs().ptr(dout).ptr(0x1234)); });
  const std::string what = f.what();
  EXPECT_NE(what.find("no function's address"), std::string::npos) << what;
  EXPECT_NE(what.find("0x1234"), std::string::npos) << what;
}

TEST_P(RuntimeCalls, FunctionsEndingInANoreturnCallRun) {
  const uint64_t dv = dev.upload(std::vector<int>{0, 1, 0, 1});
  const uint64_t dout = dev.allocate(4 * 4);
  dev.launch(m, "noreturn_call", {1, 1, 1}, {1, 1, 1}, 0, KernelArgs().ptr(dv).ptr(dout));
  EXPECT_EQ(dev.download<int>(dout, 1)[0], 1);
  dev.launch(m, "trap_tail", {1, 1, 1}, {4, 1, 1}, 0, KernelArgs().ptr(dv).ptr(dout));
  EXPECT_EQ(dev.download<int>(dout, 4), (std::vector<int>{1, 5, 1, 5}));
  const uint64_t d7 = dev.upload(std::vector<int>{7, 2, 0, 1});
  EXPECT_EQ(expect_fault([&] {
              dev.launch(m, "noreturn_call", {1, 1, 1}, {1, 1, 1}, 0, KernelArgs().ptr(d7).ptr(dout));
            }).kind(),
            exec::FaultKind::Trap);
  EXPECT_EQ(expect_fault([&] {
              dev.launch(m, "trap_tail", {1, 1, 1}, {4, 1, 1}, 0, KernelArgs().ptr(d7).ptr(dout));
            }).kind(),
            exec::FaultKind::Trap);
}

TEST_P(RuntimeCalls, GridBarrierOfACooperativeLaunchOrdersPhasesAcrossCtas) {
  const platform::ModuleHandle g = dev.load_module(read_fixture("grid_sync.ptx"), "grid_sync.ptx");
  const uint32_t ctas = 12, threads = 128, n = ctas * threads - 37;
  std::mt19937 rng(7);
  std::vector<int> in(n);
  for (int& v : in) v = int(rng() % 2001) - 1000;
  const uint64_t din = dev.upload(in);
  const uint64_t dpartial = dev.allocate(ctas * 4);
  const uint64_t dout = dev.allocate((ctas + 1) * 4);
  dev.launch_cooperative(g, "grid_reduce", {ctas, 1, 1}, {threads, 1, 1}, 0,
                         KernelArgs().ptr(din).ptr(dpartial).ptr(dout).add<int>(int(n)));
  long long sum = 0;
  for (int v : in) sum += v;
  const std::vector<int> out = dev.download<int>(dout, ctas + 1);
  for (uint32_t c = 0; c < ctas; ++c) EXPECT_EQ(out[c], sum) << "CTA " << c;
  EXPECT_EQ(out[ctas], 1);
  // A second cooperative launch starts from a fresh barrier word.
  dev.memset(dout, 0, (ctas + 1) * 4);
  dev.launch_cooperative(g, "grid_reduce", {ctas, 1, 1}, {threads, 1, 1}, 0,
                         KernelArgs().ptr(din).ptr(dpartial).ptr(dout).add<int>(int(n)));
  EXPECT_EQ(dev.download<int>(dout, 1)[0], sum);
  // Not cooperative: this_grid() finds no workspace (%envreg1/2 are 0) and traps, as on a GPU.
  EXPECT_EQ(expect_fault([&] {
              dev.launch(g, "grid_reduce", {ctas, 1, 1}, {threads, 1, 1}, 0,
                         KernelArgs().ptr(din).ptr(dpartial).ptr(dout).add<int>(int(n)));
            }).kind(),
            exec::FaultKind::Trap);
}

TEST_P(RuntimeCalls, CooperativeGridThatDoesNotFitCoResidentIsALaunchError) {
  const platform::ModuleHandle g = dev.load_module(read_fixture("grid_sync.ptx"), "grid_sync.ptx");
  const uint64_t d = dev.allocate(4096 * 4);
  try {
    dev.launch_cooperative(g, "grid_reduce", {4096, 1, 1}, {256, 1, 1}, 0,
                           KernelArgs().ptr(d).ptr(d).ptr(d).add<int>(0));
    ADD_FAILURE() << "no LaunchError";
  } catch (const platform::LaunchError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("cooperative launch of 'grid_reduce'"), std::string::npos) << what;
    EXPECT_NE(what.find("do not fit co-resident"), std::string::npos) << what;
  }
}

TEST_P(RuntimeCalls, PrintfOutputOfALaunchThatFaultsIsKept) {
  // fail_hard prints, then traps: the text printed before the fault is delivered.
  const uint64_t dv = dev.upload(std::vector<int>{4, -3, 5, 6});
  const uint64_t dout = dev.allocate(4 * 4);
  EXPECT_EQ(expect_fault([&] {
              dev.launch(m, "noreturn_tail", {1, 1, 1}, {4, 1, 1}, 0, KernelArgs().ptr(dv).ptr(dout));
            }).kind(),
            exec::FaultKind::Trap);
  EXPECT_EQ(dev.take_printf_output(), "fatal -3\n");
}

INSTANTIATE_TEST_SUITE_P(
    Modes, RuntimeCalls,
    ::testing::Values(RuntimeCase{exec::DivergenceMode::Ipdom, platform::SimulationMode::Functional},
                      RuntimeCase{exec::DivergenceMode::Its, platform::SimulationMode::Functional},
                      RuntimeCase{exec::DivergenceMode::Ipdom, platform::SimulationMode::Timing}),
    [](const ::testing::TestParamInfo<RuntimeCase>& param_info) {
      std::string name = param_info.param.divergence == exec::DivergenceMode::Its ? "Its" : "Ipdom";
      return name + (param_info.param.mode == platform::SimulationMode::Timing ? "Timing" : "Functional");
    });

// ------------------------------------------------------------ parse errors

std::string parse_error(const std::string& source, const std::string& name) {
  try {
    ptx::parse_ptx(source, name);
  } catch (const ptx::PtxError& e) {
    return e.what();
  }
  return "";
}

TEST(RuntimeCallsParse, DynamicParallelismIsRejectedNamingTheKernelAndLine) {
  const std::string src = read_fixture("device_launch.ptx");
  const std::string what = parse_error(src, "device_launch.ptx");
  EXPECT_NE(what.find("unsupported: dynamic parallelism (device-side kernel launch) in kernel 'parent'"),
            std::string::npos)
      << what;
  // The located call is the first device-runtime launch call in the source.
  std::istringstream lines(src);
  std::string line;
  int number = 0, first = 0;
  while (std::getline(lines, line)) {
    ++number;
    if (!first && line.find("__cudaCDP2GetParameterBufferV2,") != std::string::npos) first = number;
  }
  ASSERT_GT(first, 0);
  EXPECT_NE(what.find("device_launch.ptx:" + std::to_string(first) + ":"), std::string::npos) << what;
}

std::string module_with(const std::string& decls, const std::string& body) {
  return ".version 8.0\n.target sm_75\n.address_size 64\n" + decls +
         ".visible .entry k()\n{\n  .reg .b64 %rd<4>;\n" + body + "  ret;\n}\n";
}

TEST(RuntimeCallsParse, DeviceGraphCallsAreRejectedLikeDynamicParallelism) {
  const std::string src = read_fixture("device_graph.ptx");
  try {
    ptx::parse_ptx(src, "device_graph.ptx");
    FAIL() << "device graph calls were accepted";
  } catch (const ptx::PtxError& e) {
    ASSERT_EQ(e.diagnostics().size(), 2u) << e.what();
    const std::string feature = "unsupported: device-side CUDA graph call (graph launch, conditional or node update)";
    EXPECT_EQ(e.diagnostics()[0].message, feature + " in kernel 'launch_graph' (call of 'cudaGraphLaunch')");
    EXPECT_EQ(e.diagnostics()[1].message, feature + " in kernel 'set_condition' (call of 'cudaGraphSetConditional')");
    // Each is located at the callee's name in its call.
    for (const ptx::PtxDiagnostic& d : e.diagnostics())
      EXPECT_EQ(d.text.rfind("cudaGraph", 0), 0u) << d.format();
  }
  const std::string current = module_with("", "  mov.u64 %rd1, %current_graph_exec;\n");
  EXPECT_NE(parse_error(current, "g.ptx").find("unsupported: device-side CUDA graph call (graph launch, conditional or "
                                               "node update) in kernel 'k' (read of %current_graph_exec)"),
            std::string::npos)
      << parse_error(current, "g.ptx");
}

TEST(RuntimeCallsParse, BadRuntimeDeclarationsAndInitialisersAreLocatedErrors) {
  // vprintf declared with another signature.
  std::string what = parse_error(
      module_with(".extern .func (.param .b32 r) vprintf (.param .b64 a);\n",
                  "  {\n  .param .b64 p0;\n  .param .b32 r0;\n  call.uni (r0), vprintf, (p0);\n  }\n"),
      "bad.ptx");
  EXPECT_NE(what.find("signature other than the CUDA device runtime's"), std::string::npos) << what;
  EXPECT_NE(what.find("bad.ptx:11:"), std::string::npos) << what;
  // An initialiser naming nothing this module defines.
  what = parse_error(module_with(".global .align 8 .u64 tab[2] = {nowhere, 0};\n", ""), "bad.ptx");
  EXPECT_NE(what.find("'nowhere' is not a function or .global variable"), std::string::npos) << what;
  EXPECT_NE(what.find("bad.ptx:4:"), std::string::npos) << what;
  // An indirect call needs a prototype.
  what = parse_error(module_with(".func f(.param .b32 a) { ret; }\n",
                                 "  {\n  .param .b32 p0;\n  call %rd1, (p0);\n  }\n"),
                     "bad.ptx");
  EXPECT_NE(what.find(".callprototype"), std::string::npos) << what;
}

// ------------------------------------------------------------ the CLI

struct CliResult {
  int status = -1;
  std::string out, err;
};

CliResult run_launch_json(const std::string& json) {
  ScratchDir dir("tlmgpu_rt18");
  const std::string launch = (dir.path() / "launch.json").string();
  std::ofstream(launch) << json;
  const std::string out = (dir.path() / "out.txt").string(), err = (dir.path() / "err.txt").string();
  const std::string cmd = "timeout 600 '" + std::string(TLMGPU_CLI) + "' run --launch '" + launch + "' >'" + out +
                          "' 2>'" + err + "'";
  const int rc = std::system(cmd.c_str());
  CliResult r;
  r.status = WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
  std::stringstream so, se;
  so << std::ifstream(out).rdbuf();
  se << std::ifstream(err).rdbuf();
  r.out = so.str();
  r.err = se.str();
  return r;
}

const std::string kFixturePtx = std::string(TLMGPU_SOURCE_DIR) + "/tests/ptx/breadth/runtime_calls.ptx";

TEST(RuntimeCallsCli, PrintfOutputGoesToStdout) {
  const CliResult r = run_launch_json(R"({"ptx": ")" + kFixturePtx + R"(", "launches": [
      {"kernel": "printf_order", "grid": 2, "block": 3, "args": [{"type": "s32", "value": 2}]}]})");
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  std::string want;
  for (int c = 0; c < 2; ++c)
    for (int t = 0; t < 3; ++t)
      for (int k = 0; k < 2; ++k) want += cpu_printf("cta %d thread %d step %d\n", c, t, k);
  EXPECT_EQ(r.out.substr(0, want.size()), want) << r.out;
}

TEST(RuntimeCallsCli, FailedAssertExitsWithOneAndNamesTheExpression) {
  const CliResult r = run_launch_json(R"({"ptx": ")" + kFixturePtx + R"(",
      "buffers": [{"name": "v", "type": "s32", "init": {"values": [0, 1, 7, 2]}}],
      "launches": [{"kernel": "assert_kernel", "grid": 1, "block": 4, "args": [{"buffer": "v"}]}]})");
  EXPECT_EQ(r.status, 1) << r.out << r.err;
  for (const char* needle : {"assertion `v[t] < 5` failed", "runtime_calls.cu:31", "assert_kernel", "thread (2,0,0)"})
    EXPECT_NE(r.err.find(needle), std::string::npos) << needle << "\n" << r.err;
}

TEST(RuntimeCallsCli, DynamicParallelismExitsWithTwo) {
  const CliResult r = run_launch_json(R"({"ptx": ")" + std::string(TLMGPU_SOURCE_DIR) +
                                      R"(/tests/ptx/breadth/device_launch.ptx",
      "buffers": [{"name": "p", "type": "s32", "count": 32}],
      "launches": [{"kernel": "parent", "grid": 1, "block": 32, "args": [{"buffer": "p"}]}]})");
  EXPECT_EQ(r.status, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("device_launch.ptx:"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("unsupported: dynamic parallelism (device-side kernel launch) in kernel 'parent'"),
            std::string::npos)
      << r.err;
}

TEST(RuntimeCallsCli, CooperativeLaunchFileRunsTheGridBarrier) {
  const CliResult r = run_launch_json(R"({"ptx": ")" + std::string(TLMGPU_SOURCE_DIR) +
                                      R"(/tests/ptx/breadth/grid_sync.ptx",
      "buffers": [{"name": "in", "type": "s32", "init": {"values": [1, 2, 3, 4, 5, 6, 7, 8]}},
                  {"name": "part", "type": "s32", "count": 8}, {"name": "out", "type": "s32", "count": 9}],
      "launches": [{"kernel": "grid_reduce", "grid": 8, "block": 1, "cooperative": true,
                    "args": [{"buffer": "in"}, {"buffer": "part"}, {"buffer": "out"}, {"type": "s32", "value": 8}]}],
      "expect": [{"buffer": "out", "values": [36, 36, 36, 36, 36, 36, 36, 36, 1]}]})");
  EXPECT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("verified"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace tlmgpu
