// Every workload as an unmodified CUDA program (tests/cuda/workloads/NAME.cu,
// built by nvcc against the CUDA runtime) under `tlmgpu exec`, against the
// workload itself under `tlmgpu run`: the program's host steps are the
// workload's, so both must verify and execute exactly the same instructions
// (and, in timing mode, take exactly the same cycles).
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <ostream>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "scratch_dir.h"
#include "workloads/workload.h"

namespace {

namespace fs = std::filesystem;

struct ProgramCase {
  std::string workload;
  std::string mode;  // functional, timing or lt
};

// ctest lists a case by its value: "vector_add timing", not its bytes.
void PrintTo(const ProgramCase& c, std::ostream* os) { *os << c.workload << " " << c.mode; }

// LT mode for a few workloads of different shapes: many launches with host
// round trips (bfs), a multi-launch stencil (hotspot), shared-memory atomics
// (histogram), spin locks (transactions).
const std::set<std::string> kLtWorkloads = {"bfs", "histogram", "hotspot", "transactions"};

std::vector<ProgramCase> cases() {
  std::vector<ProgramCase> out;
  for (const tlmgpu::workloads::WorkloadInfo* w : tlmgpu::workloads::all_workloads()) {
    out.push_back({w->name, "functional"});
    out.push_back({w->name, "timing"});
    if (kLtWorkloads.count(w->name)) out.push_back({w->name, "lt"});
  }
  return out;
}

std::string read_text(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), {});
}

struct Child {
  int status = -1;
  std::string out, err;
};

class CudaWorkloadPrograms : public ::testing::TestWithParam<ProgramCase> {
 protected:
  // Runs `command` through the shell with its output captured; `timeout`
  // keeps a hanging simulation from hanging ctest.
  Child run(const std::string& command, const std::string& tag) const {
    const fs::path out = dir_ / (tag + ".out"), err = dir_ / (tag + ".err");
    const std::string cmd = "timeout 1200 " + command + " >'" + out.string() + "' 2>'" + err.string() + "'";
    const int rc = std::system(cmd.c_str());
    Child c;
    c.status = WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
    c.out = read_text(out);
    c.err = read_text(err);
    return c;
  }

  ScratchDir scratch_{"tlmgpu_cuda_programs"};
  const fs::path dir_ = scratch_.path();
};

std::string quoted(const std::string& s) { return "'" + s + "'"; }

TEST_P(CudaWorkloadPrograms, ExecMatchesRun) {
  if (std::string(TLMGPU_NVCC).empty()) GTEST_SKIP() << "nvcc not found at configure time";
  const ProgramCase& c = GetParam();
  const tlmgpu::workloads::WorkloadInfo* info = tlmgpu::workloads::find_workload(c.workload);
  ASSERT_NE(info, nullptr);
  const fs::path program = fs::path(TLMGPU_CUDA_PROGRAMS_DIR) / ("workload_" + c.workload);
  ASSERT_TRUE(fs::exists(program)) << program << " is missing: every workload needs tests/cuda/workloads/"
                                   << c.workload << ".cu, listed in tests/cuda/workloads/programs.cmake";
  // The workload's own default, so both sides run the same reconvergence model.
  const std::string divergence = info->ipdom_safe ? "ipdom" : "its";
  const std::string cli = quoted(TLMGPU_CLI);
  const std::string run_json = (dir_ / "run.json").string(), exec_json = (dir_ / "exec.json").string();

  const Child ran = run(cli + " run --workload " + c.workload + " --size small --divergence " + divergence +
                            " --mode " + c.mode + " --stats " + quoted(run_json),
                        "run");
  ASSERT_EQ(ran.status, 0) << "tlmgpu run:\n" << ran.out << ran.err;
  const Child exec = run(cli + " exec --mode " + c.mode + " --divergence " + divergence + " --stats " +
                             quoted(exec_json) + " -- " + quoted(program.string()) + " --size small",
                         "exec");
  ASSERT_EQ(exec.status, 0) << "tlmgpu exec:\n" << exec.out << exec.err;
  EXPECT_NE(exec.out.find(c.workload + ": verified"), std::string::npos)
      << "the program did not report verification:\n" << exec.out << exec.err;

  const nlohmann::json a = nlohmann::json::parse(read_text(run_json));
  const nlohmann::json b = nlohmann::json::parse(read_text(exec_json));
  EXPECT_EQ(a.value("verified", false), true);
  EXPECT_EQ(a.value("divergence", ""), divergence);
  EXPECT_EQ(b.value("exit_status", -1), 0);
  std::vector<std::string> keys = {"kernels_launched", "ctas", "warp_insts", "thread_insts"};
  if (c.mode != "functional") keys.push_back("sim_cycles");
  for (const std::string& key : keys) {
    ASSERT_TRUE(a.contains(key)) << "run stats lack " << key;
    ASSERT_TRUE(b.contains(key)) << "exec stats lack " << key;
    EXPECT_EQ(b[key], a[key]) << key << ": exec of the program vs run of the workload";
  }
  // One record per launch, adding up to the totals.
  ASSERT_TRUE(b.contains("kernel_launches") && b["kernel_launches"].is_array());
  EXPECT_EQ(b["kernel_launches"].size(), a["kernels_launched"].get<uint64_t>());
  uint64_t warp_insts = 0;
  for (const auto& launch : b["kernel_launches"]) warp_insts += launch.value("warp_insts", uint64_t(0));
  EXPECT_EQ(warp_insts, a["warp_insts"].get<uint64_t>());
}

INSTANTIATE_TEST_SUITE_P(All, CudaWorkloadPrograms, testing::ValuesIn(cases()),
                         [](const testing::TestParamInfo<ProgramCase>& p) {
                           return p.param.workload + "_" + p.param.mode;
                         });

}  // namespace
