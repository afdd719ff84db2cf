// Determinism soak: the same inputs give bit-identical statistics, run after
// run and on one or two host threads (--threads 2: the SMs of a cycle
// evaluated side by side, where thread timing varies from run to run), and the paper comparison's CSVs do not depend on how many runs went
// in parallel.
#include <gtest/gtest.h>

#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "scratch_dir.h"

namespace {

namespace fs = std::filesystem;
using Json = nlohmann::json;

std::string read_text(const fs::path& p) {
  std::ifstream in(p);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

int shell(const std::string& cmd) {
  const int rc = std::system(("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1 " + cmd).c_str());
  return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

// The statistics a run simulated: everything but host time.
std::string simulated_statistics(const fs::path& stats_file) {
  Json j = Json::parse(read_text(stats_file));
  j.erase("host_seconds");
  j.erase("warp_insts_per_host_second");
  return j.dump();
}

// The first repetition runs on one host thread, the nine others on two.
TEST(Determinism, TenRepetitionsOfFiveWorkloadsUnderThreeSchedulersAreBitIdentical) {
  ScratchDir dir("tlmgpu_determinism");
  const char* workloads[] = {"bfs", "hashtable", "sgemm", "transactions", "kmeans"};
  const char* schedulers[] = {"lrr", "gto", "pro"};
  for (const char* w : workloads)
    for (const char* s : schedulers) {
      std::string first;
      for (int rep = 0; rep < 10; ++rep) {
        const fs::path stats = dir.path() / "stats.json";
        ASSERT_EQ(shell("timeout 600 '" + std::string(TLMGPU_CLI) + "' run --mode timing --size small --workload " +
                        w + " --scheduler " + s + (rep == 0 ? "" : " --threads 2") + " --stats '" +
                        stats.string() + "' >/dev/null 2>&1"),
                  0)
            << w << " " << s;
        const std::string now = simulated_statistics(stats);
        if (rep == 0)
          first = now;
        else
          ASSERT_EQ(now, first) << w << " under " << s << ": repetition " << rep
                                << " (two host threads) differs from the first (one)";
      }
    }
}

TEST(Determinism, PaperCsvsDoNotDependOnParallelRuns) {
  ScratchDir dir("tlmgpu_determinism_papers");
  const fs::path one = dir.path() / "jobs1", two = dir.path() / "jobs2";
  // --no-report: only the CSVs are compared.
  const std::string common = "timeout 900 '" + std::string(TLMGPU_PAPERS) +
                             "' --paper pro --workloads hotspot,pathfinder,sgemm --size small --no-report";
  auto run = [&](const fs::path& out, int jobs) {
    return shell(common + " --jobs " + std::to_string(jobs) + " --out '" + out.string() + "' >/dev/null 2>&1");
  };
  ASSERT_EQ(run(one, 1), 0);
  ASSERT_EQ(run(two, 2), 0);
  const std::string a = read_text(one / "pro.csv"), b = read_text(two / "pro.csv");
  EXPECT_FALSE(a.empty());
  EXPECT_EQ(a, b) << "pro.csv with --jobs 1 and --jobs 2 differ";
}

}  // namespace
