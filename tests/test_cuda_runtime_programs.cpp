// Unmodified CUDA programs (tests/cuda/runtime/, built by nvcc with
// `-cudart shared -arch=sm_75`) run under `tlmgpu exec` on tlmgpu's
// libcudart.so.13: what they print, what they return, the statistics and
// traces exec writes. Each program checks its own results against the CPU
// and prints "NAME: ok"; the expected text here is what a real GPU prints.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "scratch_dir.h"

namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

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

size_t count_of(const std::string& text, const std::string& needle) {
  size_t n = 0;
  for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + needle.size())) ++n;
  return n;
}

struct ProgramRun {
  int status = -1;
  std::string out, err;
};

std::ostream& operator<<(std::ostream& os, const ProgramRun& r) {
  return os << "exit status " << r.status << "\n--- stdout\n" << r.out << "--- stderr\n" << r.err;
}

class RuntimePrograms : public ::testing::Test {
 protected:
  void SetUp() override {
    if (std::string(TLMGPU_NVCC).empty())
      GTEST_SKIP() << "nvcc was not found when CMake configured the build: the CUDA programs were not compiled";
  }

  static std::string program(const std::string& name) {
    return std::string(TLMGPU_CUDA_PROGRAMS_DIR) + "/" + name;
  }
  std::string tmp(const std::string& name) const { return (dir_.path() / name).string(); }

  // Runs `command` through the shell with stdout and stderr captured;
  // `timeout` keeps a hanging program from hanging the test.
  ProgramRun shell(const std::string& command) const {
    const std::string out = tmp("stdout.txt"), err = tmp("stderr.txt");
    const std::string cmd = "timeout 900 " + command + " >'" + out + "' 2>'" + err + "'";
    const int rc = std::system(cmd.c_str());
    ProgramRun r;
    r.status = WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
    r.out = read_text(out);
    r.err = read_text(err);
    return r;
  }

  // `tlmgpu exec OPTIONS -- PROGRAM ARGS`.
  ProgramRun exec(const std::string& options, const std::string& name, const std::string& args = "") const {
    return shell("'" + std::string(TLMGPU_CLI) + "' exec " + options + " -- '" + program(name) + "' " + args);
  }

  // The program run directly on the library, configured by `env`.
  ProgramRun direct(const std::string& env, const std::string& name, const std::string& args = "") const {
    const std::string lib = (fs::path(TLMGPU_CLI).parent_path() / "cudart").string();
    return shell("env LD_LIBRARY_PATH='" + lib + "' " + env + " '" + program(name) + "' " + args);
  }

  json load(const std::string& name) const { return json::parse(read_text(tmp(name))); }

  ScratchDir dir_{"tlmgpu_cuda_rt"};
};

// The program succeeds and prints exactly `expected`.
void expect_output(const ProgramRun& r, const std::string& expected) {
  EXPECT_EQ(r.status, 0) << r;
  EXPECT_EQ(r.out, expected) << r;
}

// ------------------------------------------------ programs in every mode

struct ModeCase {
  const char* mode;
  bool timed;  // a mode whose events have a duration
};

class RuntimeProgramsInMode : public RuntimePrograms, public ::testing::WithParamInterface<ModeCase> {
 protected:
  std::string mode() const { return std::string("--mode ") + GetParam().mode; }
};

TEST_P(RuntimeProgramsInMode, TwoTranslationUnits) {
  expect_output(exec(mode(), "rt_two_tu"), "two_tu: n=1000 sum=865300\ntwo_tu: ok\n");
}

TEST_P(RuntimeProgramsInMode, Templates) {
  expect_output(exec(mode(), "rt_templates"),
                "templates: int affine sum=4847.000\n"
                "templates: int square sum=29405.000\n"
                "templates: float affine sum=1599.500\n"
                "templates: double affine sum=-2861.000\n"
                "templates: double square sum=29405.000\n"
                "templates: ok\n");
}

// In timing and LT mode, time passes while a kernel runs: the elapsed time
// between the events around it is > 0; in functional mode >= 0.
TEST_P(RuntimeProgramsInMode, StreamsAndEvents) {
  expect_output(exec(mode(), "rt_streams", GetParam().timed ? "positive" : "nonnegative"),
                "streams: sum_a=524288.0 sum_b=491528.0 elapsed_ok=1\nstreams: ok\n");
}

TEST_P(RuntimeProgramsInMode, CooperativeLaunch) {
  expect_output(exec(mode(), "rt_cooperative"), "cooperative: total=9990000\ncooperative: ok\n");
}

INSTANTIATE_TEST_SUITE_P(Modes, RuntimeProgramsInMode,
                         ::testing::Values(ModeCase{"functional", false}, ModeCase{"timing", true},
                                           ModeCase{"lt", true}),
                         [](const ::testing::TestParamInfo<ModeCase>& p) { return std::string(p.param.mode); });

// ------------------------------------------------------ functional mode

TEST_F(RuntimePrograms, SeparateCompilation) {
  expect_output(exec("--mode functional", "rt_rdc"), "rdc: n=777 sum=451836 bias=11\nrdc: ok\n");
}

TEST_F(RuntimePrograms, Symbols) {
  expect_output(exec("--mode functional", "rt_symbols"),
                "symbols: table[10]=1030 hits=256 scale=5 sizes=64,256,4\nsymbols: ok\n");
}

// On a GPU every __constant__ variable has a device address.
TEST_F(RuntimePrograms, ConstantSymbolAddress) {
  expect_output(exec("--mode functional", "rt_symbols", "constant-address"), "symbols constant-address: ok\n");
}

TEST_F(RuntimePrograms, ManagedMemory) {
  expect_output(exec("--mode functional", "rt_managed"), "managed: n=4096 total=607680 then 1223552\nmanaged: ok\n");
}

TEST_F(RuntimePrograms, TexturesAndSurfaces) {
  expect_output(exec("--mode functional", "rt_textures"), "textures: tex_sum=1277094 surf_sum=76296\ntextures: ok\n");
}

TEST_F(RuntimePrograms, Memory) {
  expect_output(exec("--mode functional", "rt_memory"),
                "memory: pitch_ok=1 memset=0 2d=0 copies=0 mapped=0 async=0\nmemory: ok\n");
}

TEST_F(RuntimePrograms, HostCallbacksInStreamOrder) {
  expect_output(exec("--mode functional", "rt_callbacks"),
                "callbacks: hostfunc1(ok) callback2(ok) hostfunc3(ok) \n"
                "callbacks: default stream hostfunc1(ok) \n"
                "callbacks: ok\n");
}

TEST_F(RuntimePrograms, FunctionAttributesAndDynamicSharedMemory) {
  expect_output(exec("--mode functional", "rt_func_attributes"),
                "func_attributes: tile_kernel shared=4096 regs_positive=1\n"
                "func_attributes: dynamic shared up to the opt-in maximum ok\n"
                "func_attributes: ok\n");
}

TEST_F(RuntimePrograms, PreferredCarveoutSetsTheLaunchesSharedMemoryAndOccupancy) {
  // qv100: 8 KB CTAs of 256 threads. No preference: 8 CTAs per SM (threads),
  // and the adaptive rule gives the 8 resident CTAs 64 KB. 25 % of 96 KB is
  // 24 KB, rounded up to the 32 KB carve-out: 4 CTAs. 0 % (MaxL1): the 0 KB
  // carve-out is raised to the first that holds one CTA, 8 KB: 1 CTA.
  const ProgramRun r = exec("--mode timing --preset qv100 --stats '" + tmp("s.json") + "'", "rt_carveout");
  expect_output(r,
                "carveout: default occupancy=8\n"
                "carveout: 25% occupancy=4\n"
                "carveout: 0% occupancy=1\n"
                "carveout: ok\n");
  const json s = load("s.json");
  const json& launches = s["launches"];
  ASSERT_EQ(launches.size(), 3u);
  const uint32_t want_kb[] = {64, 32, 8}, want_ctas[] = {8, 4, 1};
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(launches[i]["shared_carveout_kb"], want_kb[i]) << i;
    // The L1D keeps the rest of the 128 KB array.
    EXPECT_EQ(launches[i]["l1d_bytes"], (128 - want_kb[i]) * 1024) << i;
    EXPECT_EQ(launches[i]["occupancy"]["ctas_per_sm"], want_ctas[i]) << i;
  }
  // Fewer CTAs at once on the same grid: the kernel takes longer.
  EXPECT_GT(launches[2]["cycles"].get<uint64_t>(), launches[0]["cycles"].get<uint64_t>());
}

TEST_F(RuntimePrograms, PreferredCarveoutChangesNothingWithoutAUnifiedArray) {
  // gtx480: 48 KB of shared memory of its own; 6 CTAs of 256 threads whatever the preference.
  const ProgramRun r = exec("--mode timing --stats '" + tmp("s.json") + "'", "rt_carveout");
  expect_output(r,
                "carveout: default occupancy=6\n"
                "carveout: 25% occupancy=6\n"
                "carveout: 0% occupancy=6\n"
                "carveout: ok\n");
  const json s = load("s.json");
  for (const json& l : s["launches"]) {
    EXPECT_FALSE(l.contains("shared_carveout_kb"));
    EXPECT_EQ(l["occupancy"]["ctas_per_sm"], 6);
  }
}

TEST_F(RuntimePrograms, ParametersOver4KB) {
  expect_output(exec("--mode functional", "rt_big_params"), "big_params: bytes=8200 sum=6119595.0\nbig_params: ok\n");
}

TEST_F(RuntimePrograms, ErrorApi) {
  expect_output(exec("--mode functional", "rt_errors"),
                "0 cudaSuccess: no error\n"
                "1 cudaErrorInvalidValue: invalid argument\n"
                "2 cudaErrorMemoryAllocation: out of memory\n"
                "9 cudaErrorInvalidConfiguration: invalid configuration argument\n"
                "700 cudaErrorIllegalAddress: an illegal memory access was encountered\n"
                "801 cudaErrorNotSupported: operation not supported\n"
                "101 cudaErrorInvalidDevice: invalid device ordinal\n"
                "invalid launch: peek cudaErrorInvalidConfiguration, peek cudaErrorInvalidConfiguration, "
                "get cudaErrorInvalidConfiguration, get cudaSuccess\n"
                "block z 65: cudaErrorInvalidConfiguration\n"
                "huge malloc: cudaErrorMemoryAllocation, last cudaErrorMemoryAllocation, then cudaSuccess\n"
                "unknown code: unrecognized error code\n"
                "errors: ok\n");
}

// ----------------------------------------------------------- device printf

// Each launch's lines come out at the synchronisation after it, between the
// host lines around it; within a launch the order is unspecified on a GPU,
// so a launch's lines are compared as a sorted multiset.
TEST_F(RuntimePrograms, DevicePrintf) {
  const ProgramRun r = exec("--mode functional", "rt_printf");
  ASSERT_EQ(r.status, 0) << r;
  const std::vector<std::string> lines = lines_of(r.out);
  auto hello = [](int launch, int blocks, int threads) {
    std::vector<std::string> out;
    for (int b = 0; b < blocks; ++b)
      for (int t = 0; t < threads; ++t) {
        const int i = b * threads + t;
        out.push_back("launch " + std::to_string(launch) + " block " + std::to_string(b) + " thread " +
                      std::to_string(t) + " value " + std::to_string(i * i));
      }
    return out;
  };
  std::vector<std::vector<std::string>> groups = {{}};
  std::vector<std::string> hosts;
  for (const std::string& line : lines) {
    if (line.rfind("host: ", 0) == 0 || line == "printf: ok") {
      hosts.push_back(line);
      groups.emplace_back();
    } else {
      groups.back().push_back(line);
    }
  }
  ASSERT_EQ(hosts, (std::vector<std::string>{"host: before launch 0", "host: between launches", "host: before formats",
                                             "host: done", "printf: ok"}))
      << r;
  ASSERT_EQ(groups.size(), 6u) << r;
  std::vector<std::string> want1 = hello(0, 2, 4), want2 = hello(1, 3, 2), w22 = hello(2, 1, 3);
  want2.insert(want2.end(), w22.begin(), w22.end());
  const std::vector<std::vector<std::string>> want = {
      {},
      want1,
      want2,
      {"formats: -42|    7|3   |4000000000|beef|BEEF|10|1234567890123|2469135780246|3.142|1.500000e+00|0.0001234|Z|"
       "str|%"},
      {},
      {}};
  for (size_t g = 0; g < groups.size(); ++g) {
    std::vector<std::string> got = groups[g], expected = want[g];
    std::sort(got.begin(), got.end());
    std::sort(expected.begin(), expected.end());
    EXPECT_EQ(got, expected) << "between host lines " << g << "\n" << r;
  }
}

// ------------------------------------------------------------ device faults

TEST_F(RuntimePrograms, OutOfBoundsStoreIsStickyIllegalAddress) {
  const ProgramRun r = exec("--mode functional", "rt_fault", "oob");
  expect_output(r,
                "synchronize: cudaErrorIllegalAddress\n"
                "last error: cudaErrorIllegalAddress\n"
                "last error again: cudaErrorIllegalAddress\n"
                "malloc after: cudaErrorIllegalAddress\n"
                "memcpy after: cudaErrorIllegalAddress\n"
                "launch after: cudaErrorIllegalAddress\n"
                "synchronize after: cudaErrorIllegalAddress\n"
                "fault oob: ok\n");
  EXPECT_FALSE(r.err.empty()) << "the model's fault message belongs on stderr\n" << r;
}

TEST_F(RuntimePrograms, OutOfBoundsStoreInTimingMode) {
  const ProgramRun r = exec("--mode timing", "rt_fault", "oob");
  EXPECT_EQ(r.status, 0) << r;
  EXPECT_NE(r.out.find("synchronize: cudaErrorIllegalAddress\n"), std::string::npos) << r;
  EXPECT_FALSE(r.err.empty()) << r;
}

TEST_F(RuntimePrograms, FailedDeviceAssert) {
  const ProgramRun r = exec("--mode functional", "rt_fault", "assert");
  expect_output(r,
                "synchronize: cudaErrorAssert\n"
                "last error: cudaErrorAssert\n"
                "last error again: cudaErrorAssert\n"
                "malloc after: cudaErrorAssert\n"
                "memcpy after: cudaErrorAssert\n"
                "launch after: cudaErrorAssert\n"
                "synchronize after: cudaErrorAssert\n"
                "fault assert: ok\n");
  // As on a GPU, the failed assertion is reported with its expression.
  EXPECT_NE(r.err.find("v[i] < 5"), std::string::npos) << r;
}

// ------------------------------------------------------ unimplemented calls

TEST_F(RuntimePrograms, UnimplementedCallIsNamedOnce) {
  const ProgramRun r = exec("--mode functional", "rt_unimplemented");
  expect_output(r, "cudaGraphCreate: cudaErrorNotSupported, cudaErrorNotSupported\nunimplemented: ok\n");
  EXPECT_EQ(count_of(r.err, "cudaGraphCreate"), 1u) << r;
}

// ---------------------------------------------------- programs exec refuses

TEST_F(RuntimePrograms, SharedCudartProgramRuns) {
  expect_output(exec("", "rt_vector_add"), "vector_add: n=3000 sum=13498500\nvector_add: ok\n");
}

TEST_F(RuntimePrograms, StaticCudartIsRefused) {
  const ProgramRun r = exec("--mode functional", "rt_vector_add_static");
  EXPECT_EQ(r.status, 2) << r;
  EXPECT_EQ(r.out, "") << r;
  EXPECT_NE(r.err.find("-cudart shared"), std::string::npos) << r;
}

TEST_F(RuntimePrograms, SassOnlyIsRefused) {
  const ProgramRun r = exec("--mode functional", "rt_vector_add_sass");
  EXPECT_EQ(r.status, 2) << r;
  EXPECT_EQ(r.out, "") << r;
  EXPECT_NE(r.err.find("-arch=sm_75"), std::string::npos) << r;
}

TEST_F(RuntimePrograms, BadUsage) {
  for (const std::string& options : {std::string("--mode bogus"), std::string("--bogus")}) {
    const ProgramRun r = exec(options, "rt_vector_add");
    EXPECT_EQ(r.status, 2) << options << "\n" << r;
    EXPECT_EQ(r.out, "") << options << "\n" << r;
    EXPECT_FALSE(r.err.empty()) << options;
  }
  const ProgramRun none = shell("'" + std::string(TLMGPU_CLI) + "' exec --mode functional --");
  EXPECT_EQ(none.status, 2) << none;
}

// The program's arguments reach it and its exit status comes back.
TEST_F(RuntimePrograms, ExitStatusPassesThrough) {
  const ProgramRun r = exec("--mode functional", "rt_vector_add", "7");
  EXPECT_EQ(r.status, 7) << r;
  EXPECT_EQ(r.out, "vector_add: n=3000 sum=13498500\nvector_add: ok\n") << r;
  const ProgramRun missing = exec("--mode functional", "rt_no_such_program");
  EXPECT_NE(missing.status, 0) << missing;
  EXPECT_NE(missing.err.find("rt_no_such_program"), std::string::npos) << missing;
}

// ------------------------------------------------------- BFS host loop

constexpr const char* kBfsOutput =
    "bfs_loop: nodes=576 edges=969 sources=8 launches=319 depths=24..46 level_sum=87714\nbfs_loop: ok\n";
constexpr size_t kBfsLaunches = 319;

// The statistics of a whole program: one record per launch, summing up to
// the totals.
void check_program_stats(const json& s, const std::string& name, size_t launches, const std::string& kernel,
                         bool timed) {
  ASSERT_TRUE(s.contains("kernel_launches")) << s.dump(1).substr(0, 2000);
  const json& kl = s["kernel_launches"];
  ASSERT_EQ(kl.size(), launches);
  EXPECT_NE(s.value("program", std::string()).find(name), std::string::npos) << s["program"];
  EXPECT_TRUE(s.contains("arguments"));
  EXPECT_EQ(s.value("exit_status", -1), 0);
  EXPECT_EQ(s.value("kernels_launched", uint64_t(0)), launches);
  uint64_t ctas = 0, warp_insts = 0, thread_insts = 0;
  for (const json& l : kl) {
    EXPECT_NE(l.value("kernel", std::string()).find(kernel), std::string::npos) << l;
    for (const char* key : {"grid", "block", "dynamic_shared_bytes", "ctas", "warp_insts", "thread_insts", "cycles"})
      EXPECT_TRUE(l.contains(key)) << key << " " << l;
    EXPECT_FALSE(l.contains("fault")) << l;
    ctas += l.value("ctas", uint64_t(0));
    warp_insts += l.value("warp_insts", uint64_t(0));
    thread_insts += l.value("thread_insts", uint64_t(0));
    if (timed) {
      EXPECT_GT(l.value("cycles", uint64_t(0)), 0u) << l;
    }
  }
  EXPECT_EQ(s.value("ctas", uint64_t(0)), ctas);
  EXPECT_EQ(s.value("warp_insts", uint64_t(0)), warp_insts);
  EXPECT_EQ(s.value("thread_insts", uint64_t(0)), thread_insts);
  EXPECT_GT(warp_insts, 0u);
  if (timed) {
    EXPECT_GT(s.value("sim_cycles", uint64_t(0)), 0u);
  }
}

TEST_F(RuntimePrograms, BfsHostLoopFunctional) {
  const ProgramRun r = exec("--mode functional --stats '" + tmp("s.json") + "'", "rt_bfs_loop");
  expect_output(r, kBfsOutput);
  const json s = load("s.json");
  check_program_stats(s, "rt_bfs_loop", kBfsLaunches, "bfs_level_kernel", false);
  // (576 + 127) / 128 CTAs of 128 threads each.
  EXPECT_EQ(s.value("ctas", uint64_t(0)), kBfsLaunches * 5);
  EXPECT_EQ(s["kernel_launches"][0].value("ctas", uint64_t(0)), 5u);
  EXPECT_EQ(s["kernel_launches"][0].value("dynamic_shared_bytes", uint64_t(99)), 0u);
}

TEST_F(RuntimePrograms, BfsHostLoopTimingWithTimeline) {
  const ProgramRun r = exec("--mode timing --stats '" + tmp("s.json") + "' --timeline '" + tmp("t.json") + "'",
                            "rt_bfs_loop");
  expect_output(r, kBfsOutput);
  const json s = load("s.json");
  check_program_stats(s, "rt_bfs_loop", kBfsLaunches, "bfs_level_kernel", true);
  // The timeline has a span for every launch, in launch order.
  const json t = load("t.json");
  std::vector<json> spans;
  for (const json& e : t["traceEvents"])
    if (e.value("ph", "") == "X" && e.value("cat", "") == "launch") spans.push_back(e);
  ASSERT_EQ(spans.size(), kBfsLaunches);
  std::stable_sort(spans.begin(), spans.end(), [](const json& a, const json& b) { return a["ts"] < b["ts"]; });
  for (size_t i = 0; i < spans.size(); ++i)
    EXPECT_EQ(spans[i]["name"], s["kernel_launches"][i]["kernel"]) << i;
  for (size_t i = 1; i < spans.size(); ++i)  // launches on one stream do not overlap
    EXPECT_GE(spans[i]["ts"].get<double>(), spans[i - 1]["ts"].get<double>() + spans[i - 1]["dur"].get<double>())
        << i;
}

TEST_F(RuntimePrograms, BfsHostLoopLt) {
  const ProgramRun r = exec("--mode lt --stats '" + tmp("s.json") + "'", "rt_bfs_loop");
  expect_output(r, kBfsOutput);
  check_program_stats(load("s.json"), "rt_bfs_loop", kBfsLaunches, "bfs_level_kernel", true);
}

TEST_F(RuntimePrograms, VcdCoversTheProgram) {
  const ProgramRun r = exec("--mode timing --vcd '" + tmp("w.vcd") + "' --stats '" + tmp("s.json") + "'", "rt_two_tu");
  expect_output(r, "two_tu: n=1000 sum=865300\ntwo_tu: ok\n");
  const std::string vcd = read_text(tmp("w.vcd"));
  ASSERT_NE(vcd.find("$enddefinitions"), std::string::npos) << vcd.substr(0, 500);
  // The last time stamp reaches at least the time of both launches at
  // gtx480's 700 MHz core clock (1428.57 ps a cycle); SystemC's VCD unit is
  // 1 ps unless the file says otherwise.
  const json s = load("s.json");
  ASSERT_EQ(s["kernel_launches"].size(), 2u);
  const uint64_t cycles =
      s["kernel_launches"][0].value("cycles", uint64_t(0)) + s["kernel_launches"][1].value("cycles", uint64_t(0));
  EXPECT_GT(cycles, 0u);
  uint64_t unit_ps = 1;
  const size_t ts = vcd.find("$timescale");
  if (ts != std::string::npos) {
    const std::string spec = vcd.substr(ts, vcd.find("$end", ts) - ts);
    if (spec.find("ns") != std::string::npos) unit_ps = 1000;
    if (spec.find("us") != std::string::npos) unit_ps = 1000000;
    if (spec.find("fs") != std::string::npos) unit_ps = 0;  // finer than ps: compare below in fs
  }
  uint64_t last = 0;
  for (const std::string& line : lines_of(vcd))
    if (line.size() > 1 && line[0] == '#') last = std::max<uint64_t>(last, std::stoull(line.substr(1)));
  if (unit_ps == 0) {
    EXPECT_GE(last, cycles * 1428000) << vcd.substr(0, 300);
  } else {
    EXPECT_GE(last * unit_ps, cycles * 1428) << vcd.substr(0, 300);
  }
}

// ------------------------------------------ the library without exec

TEST_F(RuntimePrograms, DirectRunWithEnvironment) {
  const ProgramRun r = direct("TLMGPU_MODE=timing TLMGPU_STATS='" + tmp("s.json") + "'", "rt_two_tu");
  expect_output(r, "two_tu: n=1000 sum=865300\ntwo_tu: ok\n");
  ASSERT_TRUE(fs::exists(tmp("s.json"))) << r;
  const json s = load("s.json");
  check_program_stats(s, "rt_two_tu", 2, "_kernel", true);
  EXPECT_NE(s["kernel_launches"][0].value("kernel", std::string()).find("square_kernel"), std::string::npos);
  EXPECT_NE(s["kernel_launches"][1].value("kernel", std::string()).find("add_scaled_kernel"), std::string::npos);
}

TEST_F(RuntimePrograms, DirectRunPresetFromEnvironment) {
  const ProgramRun r = direct("TLMGPU_MODE=functional TLMGPU_PRESET=titanx_pascal", "rt_device_query");
  EXPECT_EQ(r.status, 0) << r;
  EXPECT_NE(r.out.find("device: multiprocessors=28\n"), std::string::npos) << r;
  const ProgramRun set = direct("TLMGPU_SET='gpu.num_sms=3;sm.shared_bytes=32768'", "rt_device_query");
  EXPECT_EQ(set.status, 0) << set;
  EXPECT_NE(set.out.find("device: multiprocessors=3\n"), std::string::npos) << set;
  EXPECT_NE(set.out.find("device: shared_per_sm=32768\n"), std::string::npos) << set;
}

TEST_F(RuntimePrograms, SchedulerAndDivergenceOptions) {
  const ProgramRun r = exec("--mode timing --scheduler gto --divergence its --stats '" + tmp("s.json") + "'",
                            "rt_templates");
  EXPECT_EQ(r.status, 0) << r;
  EXPECT_NE(r.out.find("templates: ok\n"), std::string::npos) << r;
  const json s = load("s.json");
  EXPECT_NE(s.value("scheduler", std::string()).find("gto"), std::string::npos) << s.value("scheduler", std::string());
  EXPECT_EQ(s["kernel_launches"].size(), 10u);
}

// ------------------------------------------------------------ device API

// What the library must report for a preset: configs/NAME.ini's values.
std::string device_lines(int sms, int clock_khz, int shared_block, int shared_sm, int regs, int threads_sm,
                         int l2, int bus, const char* cc) {
  std::ostringstream os;
  os << "device: count=1\n"
     << "device: multiprocessors=" << sms << "\n"
     << "device: warp_size=32\n"
     << "device: clock_khz=" << clock_khz << "\n"
     << "device: shared_per_block=" << shared_block << "\n"
     << "device: shared_per_sm=" << shared_sm << "\n"
     << "device: registers_per_block=" << regs << "\n"
     << "device: registers_per_sm=" << regs << "\n"
     << "device: threads_per_sm=" << threads_sm << "\n"
     << "device: threads_per_block=1024\n"
     << "device: l2_bytes=" << l2 << "\n"
     << "device: bus_width=" << bus << "\n"
     << "device: compute_capability=" << cc << "\n"
     << "device_query: ok\n";
  return os.str();
}

TEST_F(RuntimePrograms, DeviceQueryGtx480) {
  // gtx480.ini: 15 SMs at 700 MHz, 48 KB shared memory and 32768 registers
  // per SM, 1536 threads per SM, 12 L2 slices of 64 KB, 6 channels of 8
  // bytes; a Fermi GTX480 is compute capability 2.0.
  expect_output(exec("--mode functional", "rt_device_query"),
                device_lines(15, 700000, 49152, 49152, 32768, 1536, 12 * 65536, 6 * 8 * 8, "2.0"));
}

TEST_F(RuntimePrograms, DeviceQueryTitanXPascal) {
  // titanx_pascal.ini: 28 SMs at 1417 MHz, 96 KB shared memory per SM (48
  // KB per block, as on Pascal), 65536 registers, 2048 threads per SM, 24
  // L2 slices of 128 KB, 12 channels of 4 bytes; compute capability 6.1.
  expect_output(exec("--mode functional --preset titanx_pascal", "rt_device_query"),
                device_lines(28, 1417000, 49152, 98304, 65536, 2048, 24 * 131072, 12 * 4 * 8, "6.1"));
}

TEST_F(RuntimePrograms, DeviceQueryQv100) {
  // qv100.ini: 80 SMs at 1132 MHz, 96 KB shared memory per SM (48 KB per
  // block), 65536 registers, 2048 threads per SM, 64 L2 slices of 96 KB, 32
  // HBM2 channels of 16 bytes; a Tesla V100 is compute capability 7.0.
  expect_output(exec("--mode functional --preset qv100", "rt_device_query"),
                device_lines(80, 1132000, 49152, 98304, 65536, 2048, 64 * 98304, 32 * 16 * 8, "7.0"));
}

TEST_F(RuntimePrograms, DeviceQueryFollowsSet) {
  const ProgramRun r = exec("--mode functional --set gpu.num_sms=4", "rt_device_query");
  EXPECT_EQ(r.status, 0) << r;
  EXPECT_NE(r.out.find("device: multiprocessors=4\n"), std::string::npos) << r;
}

}  // namespace
