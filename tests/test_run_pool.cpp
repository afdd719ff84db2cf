// The run pool both experiment programs use: resume from an earlier --out,
// --force, the configuration hash, the command column, and progress output.
// The comparisons run through a wrapper named tlmgpu that counts the
// simulations it starts and can add options (a changed configuration).
#include <gtest/gtest.h>

#include <cstdio>
#include <sstream>
#include <string>

#include "experiment_test_support.h"
#include "scratch_dir.h"
#include "tools/experiment/child_process.h"
#include "tools/experiment/progress.h"
#include "tools/experiment/run_pool.h"

namespace {

using namespace experiment_test;

class RunPool : public ::testing::Test {
 protected:
  void SetUp() override {
    // --dump-config calls are not simulations: only the others are counted.
    wrapper_ = write_script(dir_ / "tlmgpu", "case \"$*\" in *--dump-config*) ;; *) echo run >>'" +
                                                 (dir_ / "started").string() +
                                                 "';; esac\n"
                                                 "exec '" +
                                                 std::string(TLMGPU_CLI) + "' \"$@\" $(cat '" +
                                                 (dir_ / "extra_options").string() + "' 2>/dev/null)\n");
  }

  int papers(const std::string& extra = "") {
    return run_papers(dir_,
                      "--paper pro --size small --workloads histogram --jobs 2 --tlmgpu '" + wrapper_ + "' --out '" +
                          out_.string() + "' " + extra,
                      out_text_, err_);
  }
  std::size_t started() const { return count_of(read_text(dir_ / "started"), "run\n"); }
  std::string csv() const { return read_text(out_ / "pro.csv"); }

  ScratchDir scratch_{"tlmgpu_run_pool"};
  const fs::path dir_ = scratch_.path();
  const fs::path out_ = dir_ / "out";
  std::string wrapper_, out_text_, err_;
};

// PRO on one workload: PRO, LRR, two-level and GTO.
constexpr std::size_t kRuns = 4;

TEST_F(RunPool, SecondRunWithTheSameOutRunsNothingAndWritesTheSameCsv) {
  ASSERT_EQ(papers(), 0) << err_;
  ASSERT_EQ(started(), kRuns);
  const std::string first = csv();
  ASSERT_FALSE(first.empty());

  ASSERT_EQ(papers(), 0) << err_;
  EXPECT_EQ(started(), kRuns) << "a resumed comparison started simulations again";
  EXPECT_NE(err_.find("runs: 0 to run, 4 reused from"), std::string::npos) << err_;
  EXPECT_EQ(csv(), first);
}

TEST_F(RunPool, ForceRerunsEverything) {
  ASSERT_EQ(papers(), 0) << err_;
  const std::string first = csv();
  ASSERT_EQ(papers("--force"), 0) << err_;
  EXPECT_EQ(started(), 2 * kRuns);
  EXPECT_NE(err_.find("runs: 4 to run"), std::string::npos) << err_;
  EXPECT_EQ(csv(), first);  // the simulator is deterministic
}

// Removing a run's statistics (an interrupted run) redoes that run only.
TEST_F(RunPool, MissingStatisticsRedoOnlyThatRun) {
  ASSERT_EQ(papers(), 0) << err_;
  const std::string first = csv();
  std::size_t removed = 0;
  for (const auto& e : fs::directory_iterator(out_ / "runs")) {
    const std::string name = e.path().filename().string();
    if (name.find("_gto_") != std::string::npos && e.path().extension() == ".json" &&
        name.find(".meta.") == std::string::npos) {
      fs::remove(e.path());
      ++removed;
    }
  }
  ASSERT_EQ(removed, 1u);
  ASSERT_EQ(papers(), 0) << err_;
  EXPECT_EQ(started(), kRuns + 1);
  EXPECT_NE(err_.find("runs: 1 to run, 3 reused"), std::string::npos) << err_;
  EXPECT_EQ(csv(), first);
}

// The same command under a different effective configuration (here an added
// --set, as when a preset changes) is a different run: new hash, rerun.
TEST_F(RunPool, ChangedConfigurationChangesTheHashAndReruns) {
  ASSERT_EQ(papers(), 0) << err_;
  const auto before = read_csv(out_ / "pro.csv");
  std::ofstream(dir_ / "extra_options") << "--set gpu.core_clock_mhz=800\n";
  ASSERT_EQ(papers(), 0) << err_;
  EXPECT_EQ(started(), 2 * kRuns);
  const auto after = read_csv(out_ / "pro.csv");
  ASSERT_EQ(before.size(), after.size());
  ASSERT_GE(before.size(), 2u);
  const std::size_t command = column_of(before[0], "command"), hash = column_of(before[0], "config_hash");
  ASSERT_LT(hash, before[0].size());
  std::size_t compared = 0;
  for (std::size_t i = 1; i < before.size(); ++i) {
    if (before[i][command].empty()) continue;  // aggregates
    EXPECT_EQ(before[i][command], after[i][command]) << "row " << i;
    EXPECT_NE(before[i][hash], after[i][hash]) << "row " << i;
    ++compared;
  }
  EXPECT_GT(compared, 0u);
}

// The command column reproduces the row's run, and config_hash is the
// FNV-1a 64 hash of what that command's --dump-config prints.
TEST_F(RunPool, CommandColumnReproducesTheRunAndItsHash) {
  ASSERT_EQ(papers(), 0) << err_;
  const auto rows = read_csv(out_ / "pro.csv");
  ASSERT_GE(rows.size(), 2u);
  const std::size_t command = column_of(rows[0], "command"), hash = column_of(rows[0], "config_hash");
  ASSERT_EQ(hash, rows[0].size() - 1) << "command and config_hash are the last columns";
  ASSERT_EQ(command, rows[0].size() - 2);
  const std::vector<std::string>& row = rows[1];
  const std::string prefix = "tlmgpu run --workload histogram --mode timing --size small --preset gtx480 ";
  ASSERT_EQ(row[command].rfind(prefix, 0), 0u) << row[command];
  EXPECT_EQ(row[command].find("--stats"), std::string::npos) << row[command];
  EXPECT_EQ(row[hash].size(), 16u);

  const std::string dump =
      "'" + std::string(TLMGPU_CLI) + "'" + row[command].substr(std::string("tlmgpu").size()) + " --dump-config";
  FILE* p = popen(dump.c_str(), "r");
  ASSERT_NE(p, nullptr);
  std::string config;
  char buf[4096];
  for (std::size_t n; (n = fread(buf, 1, sizeof buf, p)) > 0;) config.append(buf, n);
  ASSERT_EQ(pclose(p), 0) << dump;
  EXPECT_EQ(row[hash], experiment::fnv1a64_hex(config));
}

// --threads N goes to each simulation the pool starts, after the
// subcommand, but not into its command (the run's identity): the same runs
// on another number of threads are reused, and the CSV is the same.
TEST_F(RunPool, HostThreadsGoToTheProcessNotToTheRunsIdentity) {
  const std::string logging = write_script(
      dir_ / "tlmgpu_logging", "case \"$*\" in *--dump-config*) ;; *) echo \"$*\" >>'" + (dir_ / "argv").string() +
                                   "';; esac\nexec '" + std::string(TLMGPU_CLI) + "' \"$@\"\n");
  const std::string common = "--paper pro --size small --workloads histogram --jobs 1 --tlmgpu '" + logging +
                             "' --out '" + out_.string() + "'";
  ASSERT_EQ(run_papers(dir_, common + " --threads 2", out_text_, err_), 0) << err_;
  const std::string argv = read_text(dir_ / "argv");
  EXPECT_EQ(count_of(argv, "\n"), kRuns) << argv;
  EXPECT_EQ(count_of(argv, "run --threads 2 --workload histogram"), kRuns) << argv;
  const std::string first = csv();
  EXPECT_EQ(first.find("--threads"), std::string::npos) << first;

  ASSERT_EQ(run_papers(dir_, common + " --threads 1", out_text_, err_), 0) << err_;
  EXPECT_EQ(count_of(read_text(dir_ / "argv"), "\n"), kRuns) << "the runs of two threads were not reused";
  EXPECT_EQ(csv(), first);
  EXPECT_NE(run_papers(dir_, common + " --threads 0", out_text_, err_), 0);
  EXPECT_NE(err_.find("--threads '0'"), std::string::npos) << err_;
}

// A run that fell back to another scheduler is reused as such: its row still
// says what ran, with that run's command.
TEST_F(RunPool, ResumedFallbackRunKeepsWhatRan) {
  const std::string fake =
      write_script(dir_ / "tlmgpu_no_sharing",
                   "for a in \"$@\"; do case \"$a\" in *sharing=*) "
                   "echo \"tlmgpu: scheduler policy 'kaws' has no parameter 'sharing'\" >&2; exit 2;; esac; done\n"
                   "case \"$*\" in *--dump-config*) echo \"scheduler = $*\"; exit 0;; esac\n"
                   "echo run >>'" +
                       (dir_ / "started").string() +
                       "'\n"
                       "while [ $# -gt 0 ]; do [ \"$1\" = --stats ] && f=\"$2\"; shift; done\n"
                       "echo '{\"sim_cycles\": 100, \"ipc\": 1}' > \"$f\"\n");
  const std::string args = "--paper kaws --workloads sgemm --tlmgpu '" + fake + "' --out '" + out_.string() + "'";
  ASSERT_EQ(run_papers(dir_, args, out_text_, err_), 0) << err_;
  const std::size_t first_started = started();
  const std::string first = read_text(out_ / "kaws.csv");
  ASSERT_NE(first.find("ran as kaws:base=gto"), std::string::npos) << first;
  std::size_t fallback_rows = 0;
  const auto rows = read_csv(out_ / "kaws.csv");
  for (const auto& r : rows) {
    if (r.size() != rows[0].size() || r[column_of(rows[0], "workload")] != "sgemm" ||
        r[column_of(rows[0], "scheduler")] != "kaws:base=gto,sharing=off")
      continue;
    // The row's command is the fallback's: the run that gave its numbers.
    EXPECT_EQ(r[column_of(rows[0], "command")],
              "tlmgpu_no_sharing run --workload sgemm --mode timing --size small --preset titanx_pascal "
              "--scheduler kaws:base=gto");
    ++fallback_rows;
  }
  EXPECT_GT(fallback_rows, 0u);
  ASSERT_EQ(run_papers(dir_, args, out_text_, err_), 0) << err_;
  EXPECT_EQ(started(), first_started);
  EXPECT_NE(err_.find("runs: 0 to run, 4 reused"), std::string::npos) << err_;
  EXPECT_EQ(read_text(out_ / "kaws.csv"), first);
}

TEST_F(RunPool, ProgressIsOnePlainLinePerRunWhenNotATerminal) {
  ASSERT_EQ(papers(), 0) << err_;
  for (std::size_t i = 1; i <= kRuns; ++i)
    EXPECT_NE(err_.find("[" + std::to_string(i) + "/4] ok  gtx480|histogram|small|"), std::string::npos) << err_;
  EXPECT_EQ(err_.find('\r'), std::string::npos);
  EXPECT_EQ(err_.find('\033'), std::string::npos);
}

TEST(RunPoolUnits, ProgressLineIsRewrittenOnATerminal) {
  std::ostringstream os;
  experiment::Progress p(3, os, true, false);  // no clock thread writing into `os` meanwhile
  p.finished(false, "ok  first");
  EXPECT_NE(os.str().find("\r\033[K[1/3] 0 failures, elapsed "), std::string::npos) << os.str();
  EXPECT_NE(os.str().find(" left"), std::string::npos) << os.str();
  EXPECT_EQ(os.str().find("ok  first"), std::string::npos) << "successes only move the line";
  p.finished(true, "failed  second");
  EXPECT_NE(os.str().find("\r\033[Kfailed  second\n"), std::string::npos) << "failures stay on screen";
  EXPECT_NE(os.str().find("[2/3] 1 failure, elapsed"), std::string::npos) << os.str();
  p.close();
  EXPECT_EQ(os.str().back(), '\n');
  EXPECT_EQ(experiment::Progress::format_duration(3725), "1h02m");
  EXPECT_EQ(experiment::Progress::format_duration(185), "3m05s");
}

TEST(RunPoolUnits, HashQuotingAndFileStems) {
  // FNV-1a 64 reference values.
  EXPECT_EQ(experiment::fnv1a64_hex(""), "cbf29ce484222325");
  EXPECT_EQ(experiment::fnv1a64_hex("a"), "af63dc4c8601ec8c");
  EXPECT_EQ(experiment::shell_quote("kaws:base=gto,sharing=on"), "kaws:base=gto,sharing=on");
  EXPECT_EQ(experiment::shell_quote("a b"), "'a b'");
  EXPECT_EQ(experiment::shell_quote("it's"), "'it'\\''s'");
  EXPECT_EQ(experiment::shell_quote(""), "''");
  const std::string stem = experiment::run_file_stem("gtx480|histogram|small|two_level:group=8|--x y");
  EXPECT_EQ(stem.rfind("gtx480_histogram_small_two_level_group_8_--x_y_", 0), 0u) << stem;
  EXPECT_NE(stem, experiment::run_file_stem("gtx480|histogram|small|two_level:group=8|--x_y"));
}

}  // namespace
