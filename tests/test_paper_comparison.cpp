// tlmgpu_papers, run as a user would: a tiny real comparison (one paper, one
// small workload) and, with a stand-in tlmgpu script, the unsupported and
// failed paths. Each case takes a few seconds at most.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <iterator>
#include <map>
#include <set>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "experiment_test_support.h"
#include "scratch_dir.h"
#include "workloads/workload.h"

namespace {

namespace fs = std::filesystem;

const std::vector<std::string> kHeader = {"paper",    "workload", "size",     "preset",          "scheduler",
                                          "options",  "status",   "sim_cycles", "ipc",           "metric",
                                          "baseline", "base_sim_cycles", "ours", "paper",        "paper_source",
                                          "agrees",   "details",  "command",  "config_hash"};

using experiment_test::csv_fields;
using experiment_test::read_csv;
using experiment_test::read_text;

bool is_number(const std::string& s) {
  if (s.empty()) return false;
  char* end = nullptr;
  std::strtod(s.c_str(), &end);
  return end == s.c_str() + s.size();
}

class PaperComparison : public ::testing::Test {
 protected:
  int run(const std::string& args) {
    const std::string cmd = "timeout 300 '" + std::string(TLMGPU_PAPERS) + "' " + args + " >'" +
                            (dir_ / "stdout.txt").string() + "' 2>'" + (dir_ / "stderr.txt").string() + "'";
    const int rc = std::system(cmd.c_str());
    out_ = read_text(dir_ / "stdout.txt");
    err_ = read_text(dir_ / "stderr.txt");
    return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
  }

  // An executable shell script standing in for tlmgpu.
  std::string stand_in(const std::string& name, const std::string& script) {
    const fs::path p = dir_ / name;
    std::ofstream(p) << "#!/bin/sh\n" << script;
    chmod(p.c_str(), 0755);
    return p.string();
  }

  // A stand-in for tlmgpu that prints `message` and exits with `code`.
  std::string fake_tlmgpu(int code, const std::string& message) {
    return stand_in("fake_tlmgpu_" + std::to_string(code),
                    "echo '" + message + "' >&2\nexit " + std::to_string(code) + "\n");
  }

  ScratchDir scratch_{"tlmgpu_papers"};
  const fs::path dir_ = scratch_.path();
  std::string out_, err_;
};

// "paper" names two columns: the paper's name (first) and its value (this one).
constexpr std::size_t kPaperValue = 13;

std::size_t column(const std::string& name) {
  for (std::size_t i = 0; i < kHeader.size(); ++i)
    if (kHeader[i] == name) return i;
  return kHeader.size();
}

TEST_F(PaperComparison, SmallProRunFillsTheCsv) {
  const fs::path out = dir_ / "out";
  ASSERT_EQ(run("--paper pro --size small --workloads histogram --jobs 2 --out '" + out.string() + "'"), 0)
      << out_ << err_;
  const auto rows = read_csv(out / "pro.csv");
  ASSERT_GE(rows.size(), 2u);
  EXPECT_EQ(rows[0], kHeader);
  std::size_t aggregates = 0;
  for (std::size_t i = 1; i < rows.size(); ++i) {
    const auto& r = rows[i];
    ASSERT_EQ(r.size(), kHeader.size()) << "row " << i;
    EXPECT_EQ(r[column("paper")], "pro");
    EXPECT_EQ(r[column("size")], "small");
    EXPECT_EQ(r[column("preset")], "gtx480");
    EXPECT_EQ(r[column("scheduler")], "pro");
    const std::string agrees = r[column("agrees")];
    EXPECT_TRUE(agrees == "yes" || agrees == "no" || agrees == "n/a") << agrees;
    // Every PRO metric has a paper number (Fig. 4, Table III).
    EXPECT_TRUE(is_number(r[kPaperValue])) << "paper value in row " << i << ": '" << r[kPaperValue] << "'";
    EXPECT_FALSE(r[column("paper_source")].empty());
    if (r[column("workload")].rfind("geomean", 0) == 0) {
      ++aggregates;
      continue;
    }
    EXPECT_EQ(r[column("workload")], "histogram");
    if (r[column("status")] == "ok") {
      EXPECT_TRUE(is_number(r[column("sim_cycles")])) << "row " << i;
      EXPECT_TRUE(is_number(r[column("ipc")])) << "row " << i;
      EXPECT_TRUE(is_number(r[column("base_sim_cycles")])) << "row " << i;
      EXPECT_TRUE(is_number(r[column("ours")])) << "row " << i;
      EXPECT_NE(agrees, "n/a") << "row " << i;
    } else {
      // Only a stall class that neither run had may lack a value.
      EXPECT_EQ(r[column("status")], "no_statistic") << "row " << i;
      EXPECT_NE(r[column("metric")].find("stall"), std::string::npos);
    }
  }
  EXPECT_EQ(aggregates, 15u);  // 3 baselines x (speedup + 4 stall ratios)
  // The speedup rows are never missing: cycles always exist.
  bool speedup_found = false;
  for (const auto& r : rows)
    if (r.size() == kHeader.size() && r[column("metric")] == "speedup_over_lrr" &&
        r[column("workload")] == "histogram") {
      speedup_found = true;
      EXPECT_EQ(r[column("status")], "ok");
      EXPECT_GT(std::stod(r[column("ours")]), 0.0);
    }
  EXPECT_TRUE(speedup_found);
  EXPECT_NE(out_.find("== pro"), std::string::npos) << out_;
  EXPECT_NE(out_.find("direction:"), std::string::npos) << out_;
  EXPECT_TRUE(fs::exists(out / "runs"));
}

TEST_F(PaperComparison, UnknownOptionMakesRowsUnsupported) {
  const fs::path out = dir_ / "out";
  const std::string fake = fake_tlmgpu(2, "tlmgpu run: unrecognised option '--fetch-scheduler'");
  ASSERT_EQ(run("--paper lfws --workloads hotspot --jobs 2 --tlmgpu '" + fake + "' --out '" + out.string() + "'"), 0)
      << out_ << err_;
  const auto rows = read_csv(out / "lfws.csv");
  ASSERT_GE(rows.size(), 2u);
  EXPECT_EQ(rows[0], kHeader);
  for (std::size_t i = 1; i < rows.size(); ++i) {
    EXPECT_EQ(rows[i][column("status")], "unsupported") << "row " << i;
    EXPECT_EQ(rows[i][column("agrees")], "n/a") << "row " << i;
  }
}

TEST_F(PaperComparison, FailedRunFailsTheCommand) {
  const fs::path out = dir_ / "out";
  const std::string fake = fake_tlmgpu(1, "tlmgpu: device fault: out-of-bounds");
  EXPECT_EQ(run("--paper kaws --workloads sgemm --jobs 2 --tlmgpu '" + fake + "' --out '" + out.string() + "'"), 1);
  const auto rows = read_csv(out / "kaws.csv");
  ASSERT_GE(rows.size(), 2u);
  EXPECT_EQ(rows[1][column("status")], "failed");
  EXPECT_NE(err_.find("device fault"), std::string::npos) << err_;
}

// A stand-in that writes statistics under slightly different names than the
// ones the tool documents: they are found by their last component, ignoring
// case and '_'.
TEST_F(PaperComparison, StatisticsAreFoundByName) {
  const fs::path out = dir_ / "out";
  const std::string fake = stand_in("fake_stats_tlmgpu",
                                    "while [ $# -gt 0 ]; do [ \"$1\" = --stats ] && f=\"$2\"; shift; done\n"
                                    "echo '{\"sim_cycles\": 1000, \"ipc\": 2.5, \"modules\": "
                                    "{\"gpu.sm0.sched0.osched2Errors\": 50}}' > \"$f\"\n");
  ASSERT_EQ(run("--paper swas --workloads sgemm --jobs 2 --tlmgpu '" + fake + "' --out '" + out.string() +
                "'"),
            0)
      << out_ << err_;
  const auto rows = read_csv(out / "swas.csv");
  ASSERT_GE(rows.size(), 2u);
  std::size_t baseline_rows = 0, ratio_rows = 0;
  for (const auto& r : rows) {
    if (r.size() != kHeader.size() || r[column("workload")] != "sgemm") continue;
    EXPECT_EQ(r[column("status")], "ok");
    EXPECT_EQ(r[column("sim_cycles")], "1000");
    if (r[column("metric")] == "error_rate_pct") {
      EXPECT_EQ(r[column("ours")], "5");  // 100 x 50 errors / 1000 cycles
      const bool swas = r[column("scheduler")].rfind("swas", 0) == 0;
      EXPECT_EQ(r[column("agrees")], swas ? "no" : "yes");  // SWaS should have none
      if (!swas) ++baseline_rows;
    } else if (r[column("metric")] == "ipc_ratio_swas_over_baseline") {
      EXPECT_EQ(r[column("ours")], "1");
      ++ratio_rows;
    }
  }
  EXPECT_EQ(baseline_rows, 9u);  // fetch x issue
  EXPECT_EQ(ratio_rows, 9u);
}

// A stand-in without KAWS warp sharing: sharing=off falls back to plain kaws
// (and says so), sharing=on stays unsupported.
TEST_F(PaperComparison, RejectedSpecRunsItsFallback) {
  const fs::path out = dir_ / "out";
  const std::string fake =
      stand_in("fake_no_sharing",
               "for a in \"$@\"; do case \"$a\" in *sharing=*) "
               "echo \"tlmgpu: scheduler policy 'kaws' has no parameter 'sharing'\" >&2; exit 2;; "
               "esac; done\n"
               "while [ $# -gt 0 ]; do [ \"$1\" = --stats ] && f=\"$2\"; shift; done\n"
               "echo '{\"sim_cycles\": 100, \"ipc\": 1}' > \"$f\"\n");
  ASSERT_EQ(run("--paper kaws --workloads sgemm --jobs 2 --tlmgpu '" + fake + "' --out '" + out.string() +
                "'"),
            0)
      << out_ << err_;
  std::size_t off = 0, on = 0;
  for (const auto& r : read_csv(out / "kaws.csv")) {
    if (r.size() != kHeader.size() || r[column("metric")] != "speedup_over_gto") continue;
    if (r[column("scheduler")] == "kaws:base=gto,sharing=off") {
      ++off;
      EXPECT_EQ(r[column("status")], "ok");
      if (r[column("workload")] == "sgemm") {
        EXPECT_NE(r[column("details")].find("ran as kaws:base=gto"), std::string::npos) << r[column("details")];
      }
    } else if (r[column("scheduler")] == "kaws:base=gto,sharing=on") {
      ++on;
      EXPECT_EQ(r[column("status")], "unsupported");
    }
  }
  EXPECT_EQ(off, 2u);  // sgemm and the geomean
  EXPECT_EQ(on, 2u);
}

// --size paper: each paper on the benchmarks of its own tables and its own
// configuration, every one a registered workload.
TEST_F(PaperComparison, PaperSizeRunsEachPaperOnItsOwnBenchmarksAndConfiguration) {
  ASSERT_EQ(run("--size paper --dry-run"), 0) << err_;
  std::map<std::string, std::set<std::string>> presets_of;  // workload -> presets it runs on
  std::istringstream lines(out_);
  for (std::string line; std::getline(lines, line);) {
    std::istringstream words(line);
    std::vector<std::string> w{std::istream_iterator<std::string>(words), std::istream_iterator<std::string>()};
    std::string workload, preset, size;
    for (std::size_t i = 0; i + 1 < w.size(); ++i) {
      if (w[i] == "--workload") workload = w[i + 1];
      if (w[i] == "--preset") preset = w[i + 1];
      if (w[i] == "--size") size = w[i + 1];
    }
    ASSERT_FALSE(workload.empty()) << line;
    EXPECT_EQ(size, "paper") << line;
    presets_of[workload].insert(preset);
  }
  for (const auto& [workload, presets] : presets_of)
    EXPECT_NE(tlmgpu::workloads::find_workload(workload), nullptr) << workload << " is not a workload";
  // Seed 000's AES on its Table I GPU (14 SMs), seed 003's psort and
  // hotspot on one Vortex SM, seed 002's MRI-q on the TITAN X, seed 004's BFS_2 on gtx480.
  EXPECT_EQ(presets_of["aes"], (std::set<std::string>{"gtx480_14sm", "gtx480"}));  // PRO and LFWS
  EXPECT_EQ(presets_of["psort"], std::set<std::string>{"vortex_1sm"});
  EXPECT_EQ(presets_of["hotspot_32x32"], std::set<std::string>{"vortex_1sm"});  // seed 003's hotspot shape
  EXPECT_EQ(presets_of["mri_q"], std::set<std::string>{"titanx_pascal"});
  EXPECT_EQ(presets_of["bfs_1m"], std::set<std::string>{"gtx480"});
  EXPECT_EQ(presets_of.count("imbalanced_blocks"), 0u);  // ours, in no paper's table
  EXPECT_GE(presets_of.size(), 40u);
  // The smaller sizes keep the common lists and presets.
  ASSERT_EQ(run("--paper pro --size small --dry-run"), 0) << err_;
  EXPECT_EQ(out_.find("--workload aes"), std::string::npos);
  EXPECT_EQ(out_.find("gtx480_14sm"), std::string::npos);
}

// --preset runs every paper on one GPU preset instead of its own; an unknown
// one is bad input, named before any run.
TEST_F(PaperComparison, PresetRunsThePapersOnAnotherGpu) {
  const fs::path out = dir_ / "out";
  ASSERT_EQ(run("--paper kaws --size small --workloads hotspot --preset qv100 --jobs 2 --no-report --out '" +
                out.string() + "'"),
            0) << out_ << err_;
  EXPECT_NE(out_.find("preset qv100"), std::string::npos) << out_;
  const auto rows = read_csv(out / "kaws.csv");
  ASSERT_GT(rows.size(), 1u);
  for (size_t i = 1; i < rows.size(); ++i) {
    if (rows[i].size() == kHeader.size()) {
      EXPECT_EQ(rows[i][column("preset")], "qv100");
    }
  }
  EXPECT_EQ(run("--paper kaws --size small --preset volta --out '" + (dir_ / "bad").string() + "'"), 2);
  EXPECT_NE(err_.find("unknown preset 'volta'"), std::string::npos) << err_;
  EXPECT_FALSE(fs::exists(dir_ / "bad" / "kaws.csv"));
}

// SWaS's error rates need the oracles, which only vortex_1sm turns on: on
// another preset its runs turn them on, and the error rates are there.
TEST_F(PaperComparison, SwasRunsHaveTheirOraclesOnAnyPreset) {
  const fs::path out = dir_ / "out";
  ASSERT_EQ(run("--paper swas --size small --workloads sgemm --preset gtx480 --jobs 2 --no-report --out '" +
                out.string() + "'"),
            0) << out_ << err_;
  size_t error_rows = 0;
  for (const auto& r : read_csv(out / "swas.csv")) {
    if (r.size() != kHeader.size() || r[column("workload")] != "sgemm") continue;
    EXPECT_NE(r[column("command")].find("--set sm.oracle_schedulers=true"), std::string::npos) << r[column("command")];
    if (r[column("metric")] == "error_rate_pct") {
      ++error_rows;
      EXPECT_EQ(r[column("status")], "ok");
      EXPECT_FALSE(r[column("ours")].empty());
    }
  }
  EXPECT_EQ(error_rows, 12u);  // nine baselines and three SWaS policies
}

// A benchmark the paper gives its own number for carries that number, not
// the paper's average: seed 002's hotspot gain over LRR and its last-CTA row.
TEST_F(PaperComparison, PerBenchmarkPaperNumbers) {
  const fs::path out = dir_ / "out";
  ASSERT_EQ(run("--paper kaws --size small --workloads hotspot --jobs 2 --no-report --out '" + out.string() + "'"),
            0) << out_ << err_;
  std::map<std::string, std::string> paper_value;  // metric (first KAWS subject) -> paper value
  for (const auto& r : read_csv(out / "kaws.csv"))
    if (r.size() == kHeader.size() && r[column("workload")] == "hotspot" && !paper_value.count(r[column("metric")]))
      paper_value[r[column("metric")]] = r[kPaperValue];
  EXPECT_EQ(paper_value["speedup_over_lrr"], "1.1964");
  EXPECT_EQ(paper_value["last_cta_time_vs_gto"], "0.8535");
  EXPECT_EQ(paper_value["speedup_over_gto"], "1.0326");  // no per-benchmark number: the average
}

TEST_F(PaperComparison, BadUsage) {
  EXPECT_EQ(run("--paper nosuch"), 2);
  EXPECT_NE(err_.find("unknown paper 'nosuch'"), std::string::npos) << err_;
  EXPECT_EQ(run("--size huge"), 2);
  EXPECT_EQ(run("--paper pro --workloads vector_add"), 2);
  EXPECT_EQ(run("--jobs 0"), 2);
  EXPECT_EQ(run("--help"), 0);
  EXPECT_NE(out_.find("usage: tlmgpu_papers"), std::string::npos);
}

}  // namespace
