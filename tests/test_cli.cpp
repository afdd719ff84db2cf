// The tlmgpu program, run as a user would: exit codes, output, files written.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdio>
#include <cstring>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "scratch_dir.h"
#include "workloads/workload.h"

namespace {

namespace fs = std::filesystem;

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

struct CliRun {
  int status = -1;
  std::string out, err;
  std::string all() const { return out + err; }
};

class Cli : public ::testing::Test {
 protected:
  // `env` goes in front of the command (e.g. "env -u VAR"); `timeout` keeps a
  // hanging program from hanging the test.
  CliRun run(const std::string& args, const std::string& env = "") const {
    const fs::path out = dir_ / "stdout.txt", err = dir_ / "stderr.txt";
    std::string cmd = env + " timeout 600 '" + std::string(TLMGPU_CLI) + "' " + args + " >'" + out.string() +
                      "' 2>'" + err.string() + "'";
    int rc = std::system(cmd.c_str());
    CliRun r;
    r.status = WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
    r.out = read_text(out);
    r.err = read_text(err);
    return r;
  }

  std::string launch(const std::string& name) const { return "'" + kLaunchDir + "/" + name + "'"; }
  std::string tmp(const std::string& name) const { return (dir_ / name).string(); }

  std::string write(const std::string& name, const std::string& text) const {
    std::ofstream(dir_ / name) << text;
    return (dir_ / name).string();
  }

  ScratchDir scratch_{"tlmgpu_cli"};
  const fs::path dir_ = scratch_.path();
};

// ---------------------------------------------------------------- usage

TEST_F(Cli, TopLevelHelp) {
  for (const char* args : {"--help", "-h", "help"}) {
    CliRun r = run(args);
    EXPECT_EQ(r.status, 0) << args;
    EXPECT_NE(r.out.find("usage: tlmgpu"), std::string::npos) << args;
    for (const char* cmd : {"list", "run", "check-ptx"}) EXPECT_NE(r.out.find(cmd), std::string::npos) << cmd;
    EXPECT_EQ(r.err, "");
  }
}

TEST_F(Cli, CommandHelp) {
  const std::pair<const char*, const char*> cases[] = {
      {"list", "workloads|schedulers|presets"}, {"run", "--workload"}, {"check-ptx", "FILE..."}};
  for (const auto& [cmd, needle] : cases) {
    for (const std::string& args : {std::string(cmd) + " --help", std::string(cmd) + " -h", "help " + std::string(cmd)}) {
      CliRun r = run(args);
      EXPECT_EQ(r.status, 0) << args;
      EXPECT_NE(r.out.find(std::string("usage: tlmgpu ") + cmd), std::string::npos) << args << "\n" << r.out;
      EXPECT_NE(r.out.find(needle), std::string::npos) << args;
    }
  }
  CliRun r = run("run --help");
  for (const char* opt : {"--launch", "--size", "--divergence", "--seed", "--stats", "--mode", "--watchdog"})
    EXPECT_NE(r.out.find(opt), std::string::npos) << opt;
}

TEST_F(Cli, NoArgumentsPrintsUsageAndFails) {
  CliRun r = run("");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("usage: tlmgpu"), std::string::npos);
  EXPECT_EQ(r.out, "");
}

TEST_F(Cli, UnknownCommand) {
  CliRun r = run("frobnicate");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("unknown command 'frobnicate'"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("usage: tlmgpu"), std::string::npos);
  EXPECT_EQ(run("help frobnicate").status, 2);
}

TEST_F(Cli, UnknownOption) {
  for (const char* args : {"run --bogus", "list --bogus", "check-ptx --bogus x.ptx", "--bogus"}) {
    CliRun r = run(args);
    EXPECT_EQ(r.status, 2) << args;
    EXPECT_NE(r.err.find("--bogus"), std::string::npos) << args << "\n" << r.err;
    EXPECT_NE(r.err.find("usage: tlmgpu"), std::string::npos) << args;
  }
}

TEST_F(Cli, NoPrefixGuessing) {
  CliRun r = run("run --work vector_add");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("--work"), std::string::npos);
}

// ----------------------------------------------------------------- list

TEST_F(Cli, ListAllGroups) {
  CliRun r = run("list");
  ASSERT_EQ(r.status, 0) << r.err;
  const size_t w = r.out.find("workloads:"), s = r.out.find("schedulers:"), p = r.out.find("presets:");
  ASSERT_NE(w, std::string::npos);
  ASSERT_NE(s, std::string::npos);
  ASSERT_NE(p, std::string::npos);
  EXPECT_LT(w, s);
  EXPECT_LT(s, p);
  EXPECT_NE(r.out.find("  gtx480"), std::string::npos) << r.out;
  for (const auto* info : tlmgpu::workloads::all_workloads())
    EXPECT_NE(r.out.find("  " + info->name + " "), std::string::npos) << info->name;
}

TEST_F(Cli, ListOneGroupIsAligned) {
  CliRun r = run("list presets");
  ASSERT_EQ(r.status, 0) << r.err;
  std::vector<std::string> lines = lines_of(r.out);
  ASSERT_FALSE(lines.empty());
  EXPECT_EQ(lines[0].rfind("gtx480 ", 0), 0u) << lines[0];

  r = run("list workloads");
  ASSERT_EQ(r.status, 0) << r.err;
  lines = lines_of(r.out);
  const auto all = tlmgpu::workloads::all_workloads();
  ASSERT_EQ(lines.size(), all.size()) << r.out;
  size_t column = std::string::npos;
  for (size_t i = 0; i < lines.size(); ++i) {
    EXPECT_EQ(lines[i].rfind(all[i]->name, 0), 0u) << lines[i];
    if (all[i]->description.empty()) continue;
    size_t c = lines[i].find(all[i]->description, all[i]->name.size());
    ASSERT_NE(c, std::string::npos) << lines[i];
    if (column == std::string::npos) column = c;
    EXPECT_EQ(c, column) << "descriptions not aligned: " << lines[i];
  }
  EXPECT_EQ(run("list schedulers").status, 0);
}

TEST_F(Cli, ListUnknownGroup) {
  CliRun r = run("list gadgets");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("gadgets"), std::string::npos);
  EXPECT_EQ(run("list workloads presets").status, 2);
}

TEST_F(Cli, NoSystemCBannerInOutput) {
  CliRun r = run("list", "env -u SYSTEMC_DISABLE_COPYRIGHT_MESSAGE");
  ASSERT_EQ(r.status, 0);
  EXPECT_EQ(r.all().find("Copyright"), std::string::npos) << r.all();
  r = run("run --launch " + launch("saxpy.json") + " --output-dir " + tmp("o"),
          "env -u SYSTEMC_DISABLE_COPYRIGHT_MESSAGE");
  EXPECT_EQ(r.all().find("Copyright"), std::string::npos) << r.all();
}

// ------------------------------------------------------------- run: usage

TEST_F(Cli, RunNeedsExactlyOneOfWorkloadAndLaunch) {
  CliRun r = run("run");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("--workload"), std::string::npos);
  EXPECT_EQ(run("run --workload vector_add --launch " + launch("saxpy.json")).status, 2);
  EXPECT_EQ(run("run vector_add").status, 2);
  EXPECT_EQ(run("run --launch " + launch("saxpy.json") + " --size small").status, 2);
}

TEST_F(Cli, RunUnknownWorkload) {
  CliRun r = run("run --workload no_such_workload");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("unknown workload 'no_such_workload'"), std::string::npos) << r.err;
  for (const auto* info : tlmgpu::workloads::all_workloads())
    EXPECT_NE(r.err.find(info->name), std::string::npos) << "known workloads should be listed: " << info->name;
}

TEST_F(Cli, RunBadOptionValues) {
  const std::pair<const char*, const char*> cases[] = {
      {"--size huge", "small, default, paper"},
      {"--divergence simt", "ipdom, its"},
      {"--mode cycle", "functional, timing"},
      {"--seed abc", "--seed"},
      {"--watchdog 0", "--watchdog"},
      {"--starvation -1", "--starvation"},
  };
  for (const auto& [opt, needle] : cases) {
    CliRun r = run(std::string("run --workload vector_add ") + opt);
    EXPECT_EQ(r.status, 2) << opt;
    EXPECT_NE(r.err.find(needle), std::string::npos) << opt << "\n" << r.err;
  }
  CliRun r = run("run --workload vector_add --mode cycle");
  EXPECT_NE(r.err.find("--mode"), std::string::npos) << r.err;
}

// ------------------------------------------------------- run: workloads

TEST_F(Cli, RunVectorAddWritesStats) {
  const std::string stats = tmp("out.json");
  CliRun r = run("run --workload vector_add --size small --seed 3 --stats '" + stats + "'");
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("verified"), std::string::npos);
  EXPECT_NE(r.out.find("yes"), std::string::npos);
  nlohmann::json j = nlohmann::json::parse(read_text(stats));
  for (const char* key : {"workload", "size", "divergence", "seed", "mode", "warp_insts", "thread_insts",
                          "kernels_launched", "ctas", "verified", "detail", "host_seconds"})
    EXPECT_TRUE(j.contains(key)) << key;
  EXPECT_EQ(j["workload"], "vector_add");
  EXPECT_EQ(j["size"], "small");
  EXPECT_EQ(j["seed"], 3);
  EXPECT_EQ(j["mode"], "functional");
  EXPECT_EQ(j["verified"], true);
  EXPECT_GT(j["warp_insts"].get<uint64_t>(), 0u);
  EXPECT_GE(j["thread_insts"].get<uint64_t>(), j["warp_insts"].get<uint64_t>());
  EXPECT_GE(j["kernels_launched"].get<uint64_t>(), 1u);
}

TEST_F(Cli, RunDivergenceDefaultAndOverride) {
  const auto* info = tlmgpu::workloads::find_workload("vector_add");
  ASSERT_NE(info, nullptr);
  const std::string stats = tmp("s.json");
  ASSERT_EQ(run("run --workload vector_add --size small --stats '" + stats + "'").status, 0);
  EXPECT_EQ(nlohmann::json::parse(read_text(stats))["divergence"], info->ipdom_safe ? "ipdom" : "its");
  ASSERT_EQ(run("run --workload vector_add --size small --divergence its --stats '" + stats + "'").status, 0);
  EXPECT_EQ(nlohmann::json::parse(read_text(stats))["divergence"], "its");
}

// ------------------------------------------------------------- check-ptx

TEST_F(Cli, CheckPtxGoodFile) {
  CliRun r = run("check-ptx " + launch("kernels.ptx"));
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(std::regex_search(r.out, std::regex("kernels\\.ptx: ok: 8 kernels, [0-9]+ instructions\n")))
      << r.out;
}

TEST_F(Cli, CheckPtxBadFile) {
  CliRun r = run("check-ptx " + launch("bad.ptx"));
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.all().find("bad.ptx:14:"), std::string::npos) << r.all();
  EXPECT_NE(r.all().find("frobnicate"), std::string::npos) << r.all();
  EXPECT_EQ(r.out.find(": ok:"), std::string::npos);
}

TEST_F(Cli, CheckPtxStatesAnUnsupportedInstructionsPlaceOnce) {
  CliRun r = run("check-ptx " + launch("bad.ptx"));
  const std::string place = "bad.ptx:14:2";
  const size_t first = r.err.find(place);
  ASSERT_NE(first, std::string::npos) << r.err;
  EXPECT_EQ(r.err.find(place, first + 1), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(place + ": error: unsupported PTX instruction 'frobnicate.u32'\n"), std::string::npos) << r.err;
}

TEST_F(Cli, CheckPtxMissingFile) {
  CliRun r = run("check-ptx " + tmp("missing.ptx"));
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.all().find("missing.ptx"), std::string::npos) << r.all();
  EXPECT_EQ(run("check-ptx").status, 2);
}

TEST_F(Cli, CheckPtxReportsEveryFile) {
  CliRun r = run("check-ptx " + launch("bad.ptx") + " " + launch("kernels.ptx"));
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.out.find("kernels.ptx: ok:"), std::string::npos) << r.out;
  EXPECT_NE(r.all().find("bad.ptx:14:"), std::string::npos);
}

// ---------------------------------------------------------- launch files

TEST_F(Cli, LaunchRunsAndDumps) {
  const std::string stats = tmp("stats.json");
  CliRun r = run("run --launch " + launch("saxpy.json") + " --output-dir '" + tmp("out") + "' --stats '" + stats + "'");
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("verified"), std::string::npos);

  std::string bin = read_text(dir_ / "out" / "y.bin");
  ASSERT_EQ(bin.size(), 300 * sizeof(float));
  std::vector<float> y(300);
  std::memcpy(y.data(), bin.data(), bin.size());
  for (size_t i = 0; i < y.size(); ++i) ASSERT_EQ(y[i], 7.0f) << i;
  std::vector<std::string> text = lines_of(read_text(dir_ / "out" / "text" / "y.txt"));
  ASSERT_EQ(text.size(), 300u);
  EXPECT_EQ(text[0], "7");

  nlohmann::json j = nlohmann::json::parse(read_text(stats));
  EXPECT_EQ(j["verified"], true);
  EXPECT_EQ(j["divergence"], "its");
  EXPECT_EQ(j["kernels_launched"], 1);
  EXPECT_EQ(j["ctas"], 3);
  EXPECT_EQ(j["kernels"][0]["kernel"], "saxpy");
  EXPECT_EQ(j["dumped"].size(), 2u);
  EXPECT_GT(j["warp_insts"].get<uint64_t>(), 0u);
}

TEST_F(Cli, LaunchTwoDimensional) {
  const std::string stats = tmp("stats.json");
  CliRun r = run("run --launch " + launch("fill2d.json") + " --output-dir '" + tmp("") + "' --stats '" + stats + "'");
  ASSERT_EQ(r.status, 0) << r.err;
  std::vector<std::string> text = lines_of(read_text(dir_ / "fill2d.txt"));
  ASSERT_EQ(text.size(), 200u);
  for (int y = 0; y < 10; ++y)
    for (int x = 0; x < 20; ++x) ASSERT_EQ(text[size_t(y * 20 + x)], std::to_string(y * 1000 + x)) << x << "," << y;
  nlohmann::json j = nlohmann::json::parse(read_text(stats));
  EXPECT_EQ(j["divergence"], "ipdom");  // from the file
  EXPECT_EQ(j["ctas"], 9);
}

TEST_F(Cli, LaunchRepeatUntilZero) {
  const std::string stats = tmp("stats.json");
  CliRun r = run("run --launch " + launch("countdown.json") + " --output-dir '" + tmp("") + "' --stats '" + stats + "'");
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_EQ(read_text(dir_ / "steps.txt"), "5\n");
  nlohmann::json j = nlohmann::json::parse(read_text(stats));
  EXPECT_EQ(j["kernels_launched"], 5);
  ASSERT_EQ(j["repeats"].size(), 1u);
  EXPECT_EQ(j["repeats"][0]["path"], "launches[0]");
  EXPECT_EQ(j["repeats"][0]["iterations"], 5);
  EXPECT_NE(r.out.find("5 iterations"), std::string::npos) << r.out;
}

TEST_F(Cli, LaunchBfsHostLoopWithWorkloadPtx) {
  const std::string stats = tmp("stats.json");
  CliRun r = run("run --launch " + launch("bfs.json") + " --stats '" + stats + "'");
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  nlohmann::json j = nlohmann::json::parse(read_text(stats));
  EXPECT_EQ(j["verified"], true);
  EXPECT_EQ(j["repeats"][0]["iterations"], 5);  // one per BFS level, the last finds nothing new
  EXPECT_EQ(j["kernels_launched"], 10);
}

TEST_F(Cli, LaunchRepeatLimitIsAnError) {
  CliRun r = run("run --launch " + launch("countdown_limit.json"));
  EXPECT_EQ(r.status, 1) << r.out << r.err;
  EXPECT_NE(r.err.find("max_iterations"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("repeat"), std::string::npos) << r.err;
  EXPECT_NE(r.out.find("kernels_launched   10"), std::string::npos) << r.out;
}

TEST_F(Cli, LaunchExpectationMismatch) {
  const std::string stats = tmp("stats.json");
  CliRun r = run("run --launch " + launch("expect_fail.json") + " --stats '" + stats + "'");
  EXPECT_EQ(r.status, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("y[0] = 7, expected 8"), std::string::npos) << r.out;
  EXPECT_EQ(nlohmann::json::parse(read_text(stats))["verified"], false);
}

TEST_F(Cli, LaunchSymbolsAndTypes) {
  for (const char* f : {"symbols.json", "widen.json"}) {
    CliRun r = run(std::string("run --launch ") + launch(f));
    EXPECT_EQ(r.status, 0) << f << "\n" << r.out << r.err;
  }
}

TEST_F(Cli, LaunchDeviceFault) {
  const std::string stats = tmp("stats.json");
  CliRun r = run("run --launch " + launch("fault.json") + " --stats '" + stats + "'");
  EXPECT_EQ(r.status, 1) << r.out << r.err;
  for (const char* needle : {"store_oob", "CTA", "thread", "PC", "address"})
    EXPECT_NE(r.err.find(needle), std::string::npos) << needle << "\n" << r.err;
  nlohmann::json j = nlohmann::json::parse(read_text(stats));
  EXPECT_EQ(j["verified"], false);
  EXPECT_TRUE(j.contains("fault"));
}

TEST_F(Cli, LaunchExpectedFault) {
  // The fault a launch file expects passes (exit 0); a different one fails (exit 1).
  const std::string stats = tmp("stats.json");
  CliRun r = run("run --launch " + launch("fault_expected.json") + " --stats '" + stats + "'");
  EXPECT_EQ(r.status, 0) << r.out << r.err;
  nlohmann::json j = nlohmann::json::parse(read_text(stats));
  EXPECT_EQ(j["verified"], true);
  EXPECT_EQ(j["expected_faults"], 1);
  // The report says which fault happened as expected, and counts the faulted
  // launch (2 CTAs of store_oob, 1 of saxpy) like any other.
  EXPECT_NE(r.out.find("expected fault"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("launches[0].expect_fault: out_of_bounds in kernel store_oob"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("1 launch (1 faulted)"), std::string::npos) << r.out;
  ASSERT_EQ(j["faults_as_expected"].size(), 1u);
  EXPECT_EQ(j["faults_as_expected"][0]["path"], "launches[0].expect_fault");
  EXPECT_EQ(j["faults_as_expected"][0]["kind"], "out_of_bounds");
  EXPECT_EQ(j["faults_as_expected"][0]["kernel"], "store_oob");
  EXPECT_EQ(j["kernels_launched"], 2);
  EXPECT_EQ(j["ctas"], 2);
  uint64_t per_kernel = 0;
  for (const auto& k : j["kernels"]) per_kernel += k["warp_insts"].get<uint64_t>();
  EXPECT_EQ(per_kernel, j["warp_insts"].get<uint64_t>());
  EXPECT_EQ(j["kernels"][0]["faulted"], 1);
  r = run("run --launch " + launch("fault_wrong_kind.json"));
  EXPECT_EQ(r.status, 1) << r.out << r.err;
  EXPECT_NE(r.err.find("expect_fault: expected a fault of kind trap, got a fault of kind out_of_bounds"), std::string::npos)
      << r.err;
}

TEST_F(Cli, LaunchParticlesExample) {
  CliRun r = run("run --launch " + launch("particles.json") + " --output-dir '" + tmp("out") + "'");
  EXPECT_EQ(r.status, 0) << r.out << r.err;
}

TEST_F(Cli, LaunchFileErrorsNameTheKeyPath) {
  const std::string ptx = kLaunchDir + "/kernels.ptx";
  const std::pair<std::string, std::string> cases[] = {
      {"{\"ptx\": \"" + ptx + "\",\n \"launches\": [}", "line 2, column"},
      {"{\"ptx\": \"" + ptx + "\", \"buffers\": [{\"name\": \"a\", \"type\": \"u32\", \"count\": 4}],"
       " \"launches\": [{\"kernel\": \"saxpy\", \"grid\": 1, \"block\": 1,"
       " \"args\": [{\"buffer\": \"a\"}, {\"buffer\": \"foo\"}]}]}",
       "launches[0].args[1].buffer: unknown buffer 'foo'"},
      {"{\"ptx\": \"" + ptx + "\", \"buffers\": [{\"name\": \"a\", \"type\": \"float\", \"count\": 4}], \"launches\": []}",
       "buffers[0].type: unknown element type 'float'"},
      {"{\"ptx\": \"nowhere.ptx\", \"launches\": []}", "ptx: file not found"},
      {"{\"ptx\": \"" + ptx + "\", \"launches\": [{\"kernel\": \"no_such_kernel\", \"grid\": 1, \"block\": 1}]}",
       "launches[0].kernel: no kernel 'no_such_kernel'"},
  };
  for (const auto& [text, needle] : cases) {
    const std::string file = write("bad.json", text);
    CliRun r = run("run --launch '" + file + "'");
    EXPECT_EQ(r.status, 2) << text << "\n" << r.err;
    EXPECT_NE(r.err.find("launch file " + file + ": "), std::string::npos) << r.err;
    EXPECT_NE(r.err.find(needle), std::string::npos) << needle << "\n" << r.err;
  }
  CliRun r = run("run --launch '" + tmp("absent.json") + "'");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("absent.json"), std::string::npos);
}

TEST_F(Cli, LaunchWithBrokenPtxPrintsDiagnostics) {
  const std::string file =
      write("b.json", "{\"ptx\": \"" + kLaunchDir + "/bad.ptx\", \"launches\": []}");
  CliRun r = run("run --launch '" + file + "'");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("bad.ptx:14:"), std::string::npos) << r.err;
}

}  // namespace

// ------------------------------------------------------------ timing mode

TEST_F(Cli, TimingRunWritesCyclesAndModuleStatistics) {
  CliRun r = run("run --workload vector_add --size small --mode timing --scheduler gto --stats " + tmp("t.json"));
  ASSERT_EQ(r.status, 0) << r.all();
  const auto j = nlohmann::json::parse(read_text(tmp("t.json")));
  EXPECT_EQ(j["mode"], "timing");
  EXPECT_EQ(j["scheduler"], "gto");
  EXPECT_EQ(j["verified"], true);
  EXPECT_GT(j["sim_cycles"].get<uint64_t>(), 0u);
  const auto& m = j["modules"];
  EXPECT_TRUE(m.contains("gpu.sm0.sched0.issued")) << m.dump();
  EXPECT_TRUE(m.contains("gpu.sm0.l1d.hits") || m.contains("gpu.sm0.l1d.accesses")) << m.dump();
  EXPECT_TRUE(m.contains("gpu.dram0.row_hits")) << m.dump();
  EXPECT_TRUE(m.contains("gpu.dispatcher.last_cta_execution_time")) << m.dump();
  // Every scheduler cycle falls in exactly one of the four classes.
  const double classes = m["gpu.sm0.sched0.issued"].get<double>() + m["gpu.sm0.sched0.idle"].get<double>() +
                         m["gpu.sm0.sched0.scoreboard"].get<double>() + m["gpu.sm0.sched0.pipeline"].get<double>();
  EXPECT_EQ(classes, double(j["sim_cycles"].get<uint64_t>()));
  // Per-CTA start / end cycle and SM, and seed 002's last-CTA time.
  ASSERT_EQ(j["launches"].size(), 1u);
  const auto& launch = j["launches"][0];
  ASSERT_EQ(launch["ctas"].size(), j["ctas"].get<size_t>());
  for (const auto& c : launch["ctas"]) {
    EXPECT_LT(c["start"].get<uint64_t>(), c["end"].get<uint64_t>());
    EXPECT_LT(c["end"].get<uint64_t>(), launch["cycles"].get<uint64_t>());
    EXPECT_LT(c["sm"].get<uint32_t>(), 15u);
  }
  EXPECT_GT(launch["last_cta_execution_time"].get<uint64_t>(), 0u);
  // The effective configuration is written beside the statistics and loads back.
  const std::string ini = read_text(tmp("t.config.ini"));
  EXPECT_NE(ini.find("scheduler = gto"), std::string::npos) << ini;
  CliRun again = run("run --config " + tmp("t.config.ini") + " --dump-config");
  EXPECT_EQ(again.status, 0) << again.all();
  EXPECT_EQ(again.out, ini);
}

TEST_F(Cli, TimingStatisticsAreIdenticalAcrossRuns) {
  auto stats_of = [&](const std::string& args, const std::string& file) {
    CliRun r = run("run --size small --mode timing " + args + " --stats " + tmp(file));
    EXPECT_EQ(r.status, 0) << r.all();
    auto j = nlohmann::json::parse(read_text(tmp(file)));
    for (const char* host : {"host_seconds", "warp_insts_per_host_second"}) j.erase(host);
    return j;
  };
  // Plain, warp sharing across four schedulers, SWaS with its oracles, spin back-off.
  for (const std::string args : {"--workload hashtable --divergence its",
                                 "--workload sgemm --preset titanx_pascal --scheduler kaws:sharing=on",
                                 "--workload hotspot --preset vortex_1sm --scheduler swas:policy=gtlrr",
                                 "--workload transactions --scheduler spin_backoff:backoff=200"}) {
    const auto a = stats_of(args, "a.json");
    const auto b = stats_of(args, "b.json");
    EXPECT_GT(a["sim_cycles"].get<uint64_t>(), 0u) << args;
    EXPECT_EQ(a, b) << args;
  }
}

// --stats-describe: every statistic a timing run writes to --stats (the run
// totals and every module's, under every scheduler family that adds its own)
// is printed with its unit and description, indices as N.
TEST_F(Cli, StatsDescribeExplainsEveryStatisticOfTheRun) {
  const auto with_indices_as_n = [](const std::string& key) {
    static const std::regex module_index(R"(([A-Za-z_])[0-9]+\.)"), stat_index(R"(\.([a-z]+)[0-9]+_([a-z_]+)$)");
    std::string k = std::regex_replace(key, module_index, "$1N.");
    return std::regex_replace(k, stat_index, ".$1N_$2");
  };
  for (const std::string args : {"--workload vector_add",
                                 "--workload sgemm --preset titanx_pascal --scheduler kaws:sharing=on",
                                 "--workload hotspot --preset vortex_1sm --scheduler swas:policy=gtlrr",
                                 "--workload transactions --scheduler spin_backoff:backoff=200",
                                 "--workload bfs --scheduler pro", "--workload bfs --scheduler two_level",
                                 "--workload bfs --scheduler llos", "--workload bfs --scheduler lfws"}) {
    CliRun r = run("run --size small --mode timing " + args + " --stats " + tmp("s.json") + " --stats-describe");
    ASSERT_EQ(r.status, 0) << args << "\n" << r.all();
    // The table's names: lines "name  unit  description" (two spaces or more between columns).
    std::set<std::string> names;
    for (const std::string& line : lines_of(r.out)) {
      const size_t gap = line.find("  ");
      if (gap != std::string::npos && gap > 0 && line.find_first_not_of(' ', gap) != std::string::npos &&
          line.find("  ", line.find_first_not_of(' ', gap)) != std::string::npos)
        names.insert(line.substr(0, gap));
    }
    const auto described = [&](const std::string& name) { return names.count(name) != 0; };
    const auto j = nlohmann::json::parse(read_text(tmp("s.json")));
    for (const char* total : {"sim_cycles", "ipc", "warp_insts", "thread_insts", "ctas", "launches"})
      EXPECT_TRUE(described(total)) << args << ": " << total;
    size_t modules = 0;
    for (const auto& [key, value] : j.at("modules").items()) {
      ++modules;
      EXPECT_TRUE(described("modules." + with_indices_as_n(key))) << args << ": " << key;
    }
    EXPECT_GT(modules, 50u) << args;
  }
  // One line per statistic: name, unit, description.
  const std::string out = run("run --size small --mode timing --workload vector_add --stats-describe").out;
  for (const char* line : {R"(\nmodules\.gpu\.smN\.l1d\.hits +count +accesses whose sectors were all valid\n)",
                           R"(\nmodules\.gpu\.l2_N\.writeback_sectors +sectors +dirty sectors)",
                           R"(\nmodules\.gpu\.icnt\.upN_request_bytes +bytes +bytes of requests from upstream port N)",
                           R"(\nmodules\.gpu\.dramN\.bandwidth_gbps +GB/s +)", R"(\nsim_cycles +cycles +core cycles)"})
    EXPECT_TRUE(std::regex_search(out, std::regex(line))) << line << "\n" << out;
  CliRun functional = run("run --size small --workload vector_add --stats-describe");
  EXPECT_EQ(functional.status, 2);
  EXPECT_NE(functional.err.find("--stats-describe applies to --mode timing only"), std::string::npos) << functional.err;
}

// --threads: the SMs of a cycle on several host threads give the statistics
// of one, a faulting launch's too (the SMs other than the faulting one
// finish its cycle at every thread count); timing mode only; bad counts name
// the key.
TEST_F(Cli, HostThreadsChangeNoStatisticAndAreCheckedFirst) {
  const std::string file = write("oob_wide.json", R"({
  "ptx": ")" + std::string(TLMGPU_SOURCE_DIR) + R"(/tests/launch/kernels.ptx",
  "buffers": [{"name": "p", "type": "s32", "count": 1920}],
  "launches": [{"kernel": "store_oob", "grid": 30, "block": 64, "args": [{"buffer": "p"}, {"type": "s32", "value": 1920}],
                "expect_fault": {"kind": "out_of_bounds", "message_contains": "store_oob"}}]
})");
  std::string first;
  for (const char* threads : {"1", "2", "4"}) {
    CliRun r = run("run --mode timing --launch '" + file + "' --threads " + threads + " --stats " + tmp("f.json"));
    ASSERT_EQ(r.status, 0) << r.all();
    auto j = nlohmann::json::parse(read_text(tmp("f.json")));
    for (const char* host : {"host_seconds", "warp_insts_per_host_second"}) j.erase(host);
    EXPECT_EQ(j["faults_as_expected"].size(), 1u);
    if (first.empty())
      first = j.dump();
    else
      EXPECT_EQ(j.dump(), first) << threads << " threads";
  }
  CliRun bad = run("run --workload vector_add --mode timing --threads 0");
  EXPECT_EQ(bad.status, 2);
  EXPECT_NE(bad.err.find("host.threads"), std::string::npos) << bad.all();
  CliRun functional = run("run --workload vector_add --threads 2");
  EXPECT_EQ(functional.status, 2);
  EXPECT_NE(functional.err.find("--threads applies to --mode timing only"), std::string::npos) << functional.all();
  CliRun exec = run("exec --threads 2 -- /bin/true");
  EXPECT_EQ(exec.status, 2);
  EXPECT_NE(exec.err.find("--threads applies to --mode timing only"), std::string::npos) << exec.all();
}

// `run --workload all` runs every workload on its own device in one process,
// on the one GPU model SystemC lets a process build. Each device must see the
// GPU as a freshly built one: nothing in flight, empty caches, arbiters and
// scheduler policies without history, cycles counted from its start.
TEST_F(Cli, TimingResultsDoNotDependOnEarlierDevices) {
  for (const std::string policy : {"lrr", "pro:threshold=100"}) {
    CliRun all = run("run --workload all --size small --mode timing --scheduler " + policy + " --stats " +
                     tmp("all.json"));
    ASSERT_EQ(all.status, 0) << all.all();
    const auto runs = nlohmann::json::parse(read_text(tmp("all.json")))["runs"];
    ASSERT_EQ(runs.size(), tlmgpu::workloads::all_workloads().size());
    // Those that ran after others whose traffic, arbitration or policy state
    // could leak into them: spin locks and atomics react to any change.
    for (const std::string name : {"blackscholes", "global_increment", "hashtable", "transactions", "vector_add"}) {
      CliRun one = run("run --workload " + name + " --size small --mode timing --scheduler " + policy + " --stats " +
                       tmp("one.json"));
      ASSERT_EQ(one.status, 0) << one.all();
      const auto alone = nlohmann::json::parse(read_text(tmp("one.json")));
      bool found = false;
      for (const auto& r : runs) {
        if (r["workload"] != name) continue;
        found = true;
        EXPECT_EQ(r["sim_cycles"], alone["sim_cycles"]) << name << " under " << policy;
        EXPECT_EQ(r["warp_insts"], alone["warp_insts"]) << name << " under " << policy;
        EXPECT_EQ(r["thread_insts"], alone["thread_insts"]) << name << " under " << policy;
      }
      EXPECT_TRUE(found) << name;
    }
  }
}

TEST_F(Cli, CurrentGpusRunEveryWorkloadToAVerifiedResultUnderIts) {
  for (const std::string preset : {"qv100", "rtx2060", "rtx3070"}) {
    CliRun all = run("run --workload all --size small --mode timing --preset " + preset + " --stats " +
                     tmp(preset + ".json"));
    ASSERT_EQ(all.status, 0) << all.all();
    const auto runs = nlohmann::json::parse(read_text(tmp(preset + ".json")))["runs"];
    ASSERT_EQ(runs.size(), tlmgpu::workloads::all_workloads().size());
    for (const auto& r : runs) {
      EXPECT_EQ(r["verified"], true) << preset << " " << r["workload"];
      // The preset's divergence handling (gpu.divergence = its), where the
      // workload's own would be IPDOM.
      EXPECT_EQ(r["divergence"], "its") << preset << " " << r["workload"];
    }
  }
  // --divergence still decides.
  CliRun ipdom = run("run --workload vector_add --size small --mode timing --preset qv100 --divergence ipdom");
  ASSERT_EQ(ipdom.status, 0) << ipdom.all();
  EXPECT_NE(ipdom.out.find("ipdom"), std::string::npos) << ipdom.out;
}

TEST_F(Cli, ConfigurationOptions) {
  CliRun r = run("run --preset titanx_pascal --set sm.num_schedulers=2 --dump-config");
  ASSERT_EQ(r.status, 0) << r.all();
  EXPECT_NE(r.out.find("num_schedulers = 2"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("num_sms = 28"), std::string::npos) << r.out;

  r = run("run --workload vector_add --mode timing --set sm.num_schedulerz=4");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("sm.num_schedulerz"), std::string::npos) << r.err;
  r = run("run --workload vector_add --mode timing --set sm.num_schedulers=0");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("sm.num_schedulers"), std::string::npos) << r.err;
  r = run("run --workload vector_add --mode timing --preset gtx999");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("gtx480"), std::string::npos) << r.err;
  r = run("run --workload vector_add --mode timing --scheduler nosuch");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("nosuch"), std::string::npos) << r.err;
  r = run("run --workload vector_add --mode timing --scheduler two_level:size=3");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("group"), std::string::npos) << r.err;
}

TEST_F(Cli, TimingVcdHasTheModuleTree) {
  CliRun r = run("run --workload vector_add --size small --mode timing --vcd " + tmp("w.vcd"));
  ASSERT_EQ(r.status, 0) << r.all();
  const std::string vcd = read_text(tmp("w.vcd"));
  EXPECT_NE(vcd.find("$scope module gpu $end"), std::string::npos) << vcd.substr(0, 2000);
  EXPECT_NE(vcd.find("last_cta_dispatched"), std::string::npos);
  EXPECT_NE(vcd.find("stall_class"), std::string::npos);
  EXPECT_NE(vcd.find("active_warps"), std::string::npos);
  EXPECT_NE(vcd.find("active_ctas"), std::string::npos);
  EXPECT_NE(vcd.find("queue_depth"), std::string::npos);
}

// A saxpy launch file over 1024 elements in CTAs of `block` threads,
// optionally with the launch's own regs_per_thread.
std::string saxpy_launch(uint32_t block, const std::string& regs_key) {
  return R"({
    "ptx": ")" + kLaunchDir + R"(/kernels.ptx",
    "buffers": [{"name": "x", "type": "f32", "count": 1024, "init": {"constant": 2}},
                {"name": "y", "type": "f32", "count": 1024, "init": {"constant": 1}}],
    "launches": [{"kernel": "saxpy", "grid": )" + std::to_string(1024 / block) + R"(, "block": )" +
                std::to_string(block) + regs_key + R"(,
                  "args": [{"buffer": "y"}, {"buffer": "x"}, {"type": "f32", "value": 3}, {"type": "s32", "value": 1024}]}],
    "expect": [{"buffer": "y", "constant": 7}]
  })";
}

TEST_F(Cli, ALaunchFilesPreferredCarveoutSetsTheCarveoutAndTheOccupancyOnQv100) {
  // 8 KB of dynamic shared memory per 256-thread CTA. 25 % of 96 KB rounds
  // up to the 32 KB carve-out: 4 CTAs, the L1D keeps 96 KB. 100 %: 96 KB,
  // 8 CTAs (threads), L1D 32 KB. None: the grid's 4 CTAs put one on an SM,
  // which the 8 KB carve-out holds.
  struct Case {
    std::string key;
    uint32_t carveout_kb, ctas;
  };
  for (const Case& c : {Case{R"(, "preferred_shared_carveout": 25)", 32, 4},
                        Case{R"(, "preferred_shared_carveout": 100)", 96, 8}, Case{"", 8, 8}}) {
    const std::string file = write("c.json", saxpy_launch(256, R"(, "shared_bytes": 8192)" + c.key));
    const CliRun r = run("run --launch " + file + " --preset qv100 --mode timing --stats " + tmp("c_stats.json"));
    ASSERT_EQ(r.status, 0) << r.all();
    const nlohmann::json l = nlohmann::json::parse(read_text(tmp("c_stats.json")))["launches"][0];
    EXPECT_EQ(l["shared_carveout_kb"], c.carveout_kb) << c.key << l;
    EXPECT_EQ(l["l1d_bytes"], (128 - c.carveout_kb) * 1024) << c.key;
    EXPECT_EQ(l["occupancy"]["ctas_per_sm"], c.ctas) << c.key;
  }
}

TEST_F(Cli, TimingStatsReportOccupancyAndWhereTheRegisterCountCameFrom) {
  const std::string plain = write("plain.json", saxpy_launch(256, ""));
  CliRun r = run("run --launch " + plain + " --mode timing --stats " + tmp("e.json"));
  ASSERT_EQ(r.status, 0) << r.all();
  nlohmann::json o = nlohmann::json::parse(read_text(tmp("e.json")))["launches"][0]["occupancy"];
  EXPECT_EQ(o["regs_source"], "estimate") << o;
  EXPECT_GE(o["regs_per_thread"].get<int>(), 8) << o;   // ptxas: 10
  EXPECT_LE(o["regs_per_thread"].get<int>(), 14) << o;
  EXPECT_EQ(o["ctas_per_sm"], 6) << o;  // what an SM holds, whatever the grid
  EXPECT_EQ(o["limited_by"], "threads") << o;  // 1536 / 256 threads
  EXPECT_EQ(o["warps_per_sm"], 8 * 6) << o;

  const std::string own = write("own.json", saxpy_launch(256, R"(, "regs_per_thread": 40)"));
  r = run("run --launch " + own + " --mode timing --stats " + tmp("l.json"));
  ASSERT_EQ(r.status, 0) << r.all();
  o = nlohmann::json::parse(read_text(tmp("l.json")))["launches"][0]["occupancy"];
  EXPECT_EQ(o["regs_source"], "launch") << o;
  EXPECT_EQ(o["regs_per_thread"], 40) << o;
  EXPECT_EQ(o["ctas_per_sm"], 3) << o;  // 8 warps x 1280 registers: 3 in 32768
  EXPECT_EQ(o["limited_by"], "registers") << o;
  EXPECT_EQ(o["warps_per_scheduler"], 12) << o;

  r = run("run --launch " + own + " --mode timing --regs-per-thread 20 --stats " + tmp("o.json"));
  ASSERT_EQ(r.status, 0) << r.all();
  o = nlohmann::json::parse(read_text(tmp("o.json")))["launches"][0]["occupancy"];
  EXPECT_EQ(o["regs_source"], "override") << o;
  EXPECT_EQ(o["regs_per_thread"], 20) << o;
}

TEST_F(Cli, TimingRunsA1024ThreadCtaOnGtx480AndExplainsOneThatDoesNotFit) {
  const std::string big = write("big.json", saxpy_launch(1024, ""));
  CliRun r = run("run --launch " + big + " --mode timing --preset gtx480");
  EXPECT_EQ(r.status, 0) << r.all();
  r = run("run --launch " + big + " --mode timing --preset gtx480 --regs-per-thread 40");
  EXPECT_EQ(r.status, 2) << r.all();
  EXPECT_NE(r.err.find("40960 registers"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("32768 (sm.registers)"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("--regs-per-thread"), std::string::npos) << r.err;
}

TEST_F(Cli, TimingWatchdogEndsALivelockedSpinLock) {
  // The tight `atom.cas; setp; @p bra` self-loop: finishes under its, and
  // livelocks under ipdom, where the watchdog must end it.
  const std::string json = write("spin.json", R"({
    "ptx": ")" + std::string(TLMGPU_SOURCE_DIR) + R"(/workloads/global_increment/global_increment.ptx",
    "buffers": [{"name": "lock", "type": "s32", "count": 1, "init": "zeros"},
                {"name": "counter", "type": "s32", "count": 1, "init": "zeros"}],
    "launches": [{"kernel": "spin_self_loop", "grid": 2, "block": 64,
                  "args": [{"buffer": "lock"}, {"buffer": "counter"}]}],
    "expect": [{"buffer": "counter", "values": [128]}]
  })");
  CliRun r = run("run --launch " + json + " --mode timing --divergence its");
  EXPECT_EQ(r.status, 0) << r.all();
  r = run("run --launch " + json + " --mode timing --divergence ipdom --watchdog 100000");
  EXPECT_EQ(r.status, 1) << r.all();
  EXPECT_NE(r.err.find("no forward progress"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("PC 0x"), std::string::npos) << r.err;
}

TEST_F(Cli, TimingWatchdogEndsAWarpStarvedByItsPolicy) {
  // Greedy SWaS starves a lock holder while older warps spin, when spinning
  // warps are always ready: a 1-cycle L1 over 32-byte sectors and no L2 / DRAM
  // pipeline delays (docs/SCHEDULERS.md, swas).
  const std::string base = "run --workload transactions --size small --mode timing --preset vortex_1sm "
                            "--scheduler swas:policy=gtlo --set l1d.hit_latency=1 --set l1d.sector_bytes=32 "
                            "--set l2.rop_latency=0 --set dram.latency=0 ";
  CliRun r = run(base + "--starvation 300000");
  EXPECT_EQ(r.status, 1) << r.all();
  EXPECT_NE(r.err.find("warp starved in kernel transactions"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("has been ready to issue for"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("PC 0x"), std::string::npos) << r.err;
}

// Queues of one entry below the crossbar (the L2's input and DRAM queues, the
// DRAM scheduler) and a base-protocol checker on every link; the host copies
// leave nothing in the L2. vector_add's loads (with no fixed DRAM latency,
// they reach the schedulers together) fill the channels' queues;
// transactions' CAS retries crowd the slices of the locks. Both still verify.
TEST_F(Cli, OneEntryMemoryQueuesHoldRequestsBackAndWorkloadsStillVerify) {
  const std::string tight = " --set l2.input_queue=1 --set l2.dram_queue=1 --set dram.queue_depth=1 "
                            "--set host.protocol_checkers=true";
  auto summed = [](const nlohmann::json& stats, const std::string& module, const std::string& name) {
    double sum = 0;
    for (const auto& [key, value] : stats["modules"].items())
      if (key.rfind("gpu." + module, 0) == 0 && key.size() > name.size() &&
          key.compare(key.size() - name.size(), name.size(), name) == 0)
        sum += value.get<double>();
    return sum;
  };
  for (const char* workload : {"vector_add", "transactions"}) {
    const bool streaming = std::string(workload) == "vector_add";
    const std::string base = std::string("run --workload ") + workload +
                             " --size small --mode timing --set l2.fill_on_host_copy=false" +
                             (streaming ? " --set dram.latency=0" : "");
    CliRun r = run(base + tight + " --stats " + tmp("tight.json"));
    ASSERT_EQ(r.status, 0) << r.all();
    r = run(base + " --stats " + tmp("preset.json"));
    ASSERT_EQ(r.status, 0) << r.all();
    const auto held = nlohmann::json::parse(read_text(tmp("tight.json")));
    const auto preset = nlohmann::json::parse(read_text(tmp("preset.json")));
    // (The preset's crossbar input buffers do hold the L1s' stores back.)
    EXPECT_EQ(summed(preset, "l2_", "withheld_end_requests") + summed(preset, "dram", "withheld_end_requests"), 0)
        << workload;
    if (streaming) {
      EXPECT_GT(summed(held, "dram", "withheld_end_requests"), 0);
      EXPECT_GT(summed(held, "l2_", "dram_queue_full_cycles"), 0);
    } else {
      EXPECT_GT(summed(held, "l2_", "withheld_end_requests"), 0);
      EXPECT_GT(summed(held, "l2_", "crossbar_held_cycles"), 0);
      EXPECT_GT(held["modules"]["gpu.icnt.slice_held_cycles"].get<double>(), 0);
      // Retries wait at the crossbar for the lock's slice.
      EXPECT_GT(held["sim_cycles"].get<uint64_t>(), preset["sim_cycles"].get<uint64_t>());
    }
  }
}

TEST_F(Cli, FullCrossbarInputBuffersStallTheL1sAndWorkloadsStillVerify) {
  auto summed = [](const nlohmann::json& stats, const std::string& name) {
    double sum = 0;
    for (const auto& [key, value] : stats["modules"].items())
      if (key.size() > name.size() && key.compare(key.size() - name.size(), name.size(), name) == 0)
        sum += value.get<double>();
    return sum;
  };
  for (const char* workload : {"vector_add", "transactions"}) {
    const std::string base = std::string("run --workload ") + workload +
                             " --size small --mode timing --set host.protocol_checkers=true";
    CliRun r = run(base + " --set icnt.input_buffer_flits=1 --set l1d.miss_queue=1 --stats " + tmp("tight.json"));
    ASSERT_EQ(r.status, 0) << r.all();
    r = run(base + " --set icnt.input_buffer_flits=0 --set l1d.miss_queue=0 --stats " + tmp("open.json"));
    ASSERT_EQ(r.status, 0) << r.all();
    const auto tight = nlohmann::json::parse(read_text(tmp("tight.json")));
    const auto open = nlohmann::json::parse(read_text(tmp("open.json")));
    // One flit of buffer: every request longer than a flit, or behind one,
    // waits in its L1, whose one-entry miss queue then refuses the next.
    EXPECT_GT(tight["modules"]["gpu.icnt.withheld_end_requests"].get<double>(), 0) << workload;
    EXPECT_GT(summed(tight, "l1d.miss_queue_fails"), 0) << workload;
    EXPECT_EQ(open["modules"]["gpu.icnt.withheld_end_requests"].get<double>(), 0) << workload;
    EXPECT_EQ(summed(open, "miss_queue_fails"), 0) << workload;
    EXPECT_GE(tight["sim_cycles"].get<uint64_t>(), open["sim_cycles"].get<uint64_t>()) << workload;
  }
}

TEST_F(Cli, ProWritesItsSortedCtaOrderBesideTheStatistics) {
  CliRun r = run("run --workload imbalanced_blocks --size small --mode timing --scheduler pro:threshold=500 --stats " +
                 tmp("p.json"));
  ASSERT_EQ(r.status, 0) << r.all();
  const std::string csv = read_text(tmp("p.pro_order.csv"));
  EXPECT_EQ(csv.rfind("# gpu.sm0.sched0\ncycle,", 0), 0u) << csv.substr(0, 200);
  // A row per re-sort: every 500 cycles at least while CTAs run.
  EXPECT_GT(lines_of(csv).size(), 10u);
  const auto j = nlohmann::json::parse(read_text(tmp("p.json")));
  EXPECT_GT(j["modules"]["gpu.sm0.sched0.pro_resorts"].get<double>(), 10.0) << j["modules"].dump().substr(0, 500);
}

// ---------------------------------------------------------------- traces

TEST_F(Cli, TraceRunsOnTheCycleLevelSm) {
  const std::string trace = "'" + std::string(TLMGPU_SOURCE_DIR) + "/tests/traces/seed004_fig1.trace'";
  CliRun r = run("run --trace " + trace + " --preset vortex_1sm --scheduler srr --stats " + tmp("t.json"));
  ASSERT_EQ(r.status, 0) << r.all();
  EXPECT_NE(r.out.find("cta 0 cycles             45 (sm 0)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("warp_insts               24"), std::string::npos) << r.out;
  const auto j = nlohmann::json::parse(read_text(tmp("t.json")));
  EXPECT_EQ(j["modules"]["gpu.sm0.sched0.issued"].get<double>(), 24.0);
  EXPECT_EQ(j["launches"][0]["ctas"].size(), 1u);

  r = run("run --trace " + trace + " --ctas 3 --preset vortex_1sm --scheduler gto");
  ASSERT_EQ(r.status, 0) << r.all();
  EXPECT_NE(r.out.find("cta 2 cycles"), std::string::npos) << r.out;
}

TEST_F(Cli, TraceErrorsAreBadInput) {
  const std::string trace = "'" + std::string(TLMGPU_SOURCE_DIR) + "/tests/traces/seed004_fig1.trace'";
  CliRun r = run("run --trace " + trace + " --mode functional");
  EXPECT_EQ(r.status, 2) << r.all();
  EXPECT_NE(r.err.find("--trace runs in --mode timing only"), std::string::npos) << r.err;
  r = run("run --trace " + trace + " --size small");
  EXPECT_EQ(r.status, 2) << r.all();
  r = run("run --trace " + tmp("missing.trace"));
  EXPECT_EQ(r.status, 2) << r.all();
  EXPECT_NE(r.err.find("cannot read the trace file"), std::string::npos) << r.err;
  const std::string bad = write("bad.trace", "latency long=10\nwarp 1: long r1 <- r0 ; lng r2 <- r1\n");
  r = run("run --trace " + bad);
  EXPECT_EQ(r.status, 2) << r.all();
  EXPECT_NE(r.err.find("bad.trace:2:"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("'lng'"), std::string::npos) << r.err;
  r = run("run --workload vector_add --ctas 2");
  EXPECT_EQ(r.status, 2) << r.all();
}

// Seed 002's warp sharing end to end: one warp's eight 32-way bank-conflicted
// shared loads (32 cycles of its scheduler's LD/ST unit each) spread over the
// other schedulers' free MEM collectors and units. Same kernel as
// SmWarpSharing in test_sm.cpp.
TEST_F(Cli, KawsWarpSharingShortensABankConflictedWarp) {
  std::string ptx = ".version 8.0\n.target sm_75\n.address_size 64\n"
                    ".visible .entry conflicts(.param .u64 out) {\n"
                    "  .reg .b32 %r<24>; .reg .b64 %rd<4>;\n  .shared .align 4 .b8 sbuf[4096];\n"
                    "  mov.u32 %r1, %tid.x;\n  shl.b32 %r2, %r1, 7;\n  mov.u32 %r3, sbuf;\n  add.u32 %r4, %r3, %r2;\n";
  for (int i = 0; i < 8; ++i)
    ptx += "  ld.shared.u32 %r" + std::to_string(5 + i) + ", [%r4+" + std::to_string(4 * i) + "];\n";
  ptx += "  add.u32 %r13, %r5, %r6;\n  add.u32 %r14, %r7, %r8;\n  add.u32 %r15, %r9, %r10;\n"
         "  add.u32 %r16, %r11, %r12;\n  add.u32 %r17, %r13, %r14;\n  add.u32 %r18, %r15, %r16;\n"
         "  add.u32 %r19, %r17, %r18;\n  ld.param.u64 %rd1, [out];\n  cvta.to.global.u64 %rd2, %rd1;\n"
         "  mul.wide.u32 %rd3, %r1, 4;\n  add.u64 %rd2, %rd2, %rd3;\n  st.global.u32 [%rd2], %r19;\n  ret;\n}\n";
  const std::string ptx_file = write("conflicts.ptx", ptx);
  const std::string json = write("conflicts.json", R"({
    "ptx": ")" + ptx_file + R"(",
    "buffers": [{"name": "out", "type": "u32", "count": 32, "init": "zeros"}],
    "launches": [{"kernel": "conflicts", "grid": 1, "block": 32, "args": [{"buffer": "out"}]}]
  })");
  auto cycles = [&](const std::string& sharing) {
    CliRun r = run("run --launch " + json + " --mode timing --preset titanx_pascal --scheduler kaws:sharing=" +
                   sharing + " --stats " + tmp(sharing + ".json"));
    EXPECT_EQ(r.status, 0) << r.all();
    return nlohmann::json::parse(read_text(tmp(sharing + ".json")))["sim_cycles"].get<uint64_t>();
  };
  const uint64_t off = cycles("off"), on = cycles("on");
  // Without sharing the loads hold one unit for 8 x 32 cycles; with it, at
  // most about three loads stay in scheduler 0's unit.
  EXPECT_LT(on + 100, off) << "on " << on << " off " << off;
  const auto j = nlohmann::json::parse(read_text(tmp("on.json")));
  EXPECT_GT(j["modules"]["gpu.sm0.sched1.shared_issues_mem"].get<double>(), 0.0);
  EXPECT_FALSE(nlohmann::json::parse(read_text(tmp("off.json")))["modules"].contains("gpu.sm0.sched1.shared_issues_mem"));
  CliRun bad = run("run --workload vector_add --mode timing --scheduler kaws:sharing=maybe");
  EXPECT_EQ(bad.status, 2) << bad.all();
  EXPECT_NE(bad.err.find("sharing=maybe (allowed: on, off)"), std::string::npos) << bad.err;
}

// sm.issue_width and the fetch scheduler are real pipeline parameters.
TEST_F(Cli, IssueWidthAndFetchSchedulerChangeTheRun) {
  auto run_json = [&](const std::string& extra, const std::string& name) {
    CliRun r = run("run --workload sgemm --size small --mode timing " + extra + " --stats " + tmp(name));
    EXPECT_EQ(r.status, 0) << r.all();
    return nlohmann::json::parse(read_text(tmp(name)));
  };
  const auto one = run_json("", "w1.json");
  const auto two = run_json("--set sm.issue_width=2", "w2.json");
  EXPECT_EQ(one["warp_insts"], two["warp_insts"]);
  EXPECT_LT(two["sim_cycles"].get<uint64_t>(), one["sim_cycles"].get<uint64_t>());
  const auto greedy = run_json("--fetch-scheduler gtlo --set sm.fetch_instructions=1", "f.json");
  EXPECT_NE(greedy["sim_cycles"], one["sim_cycles"]);
  // Greedy fetch stays with a warp; round robin moves on unless only one warp can fetch.
  EXPECT_GT(greedy["modules"]["gpu.sm0.fetch.repeat_fetches"].get<double>(),
            10 * one["modules"]["gpu.sm0.fetch.repeat_fetches"].get<double>());
  CliRun bad = run("run --workload sgemm --mode timing --fetch-scheduler fifo");
  EXPECT_EQ(bad.status, 2) << bad.all();
  EXPECT_NE(bad.err.find("sm.fetch_policy = 'fifo' is not allowed (allowed: lrr, gtlrr, gtlo)"), std::string::npos)
      << bad.err;
}
