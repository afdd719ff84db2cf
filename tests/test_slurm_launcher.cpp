// --launcher slurm against a real one-node Slurm started on this machine by
// scripts/slurm_localhost.sh (munged, slurmctld, slurmd under a scratch
// directory). Skipped where Slurm or munge is not installed. Run on their own
// with `ctest -R Slurm`.
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdlib>
#include <string>

#include "experiment_test_support.h"
#include "scratch_dir.h"

namespace {

using namespace experiment_test;

bool installed(const std::string& tool) {
  return std::system(("command -v " + tool + " >/dev/null 2>&1 || test -x /usr/sbin/" + tool).c_str()) == 0;
}

bool port_free(int port) {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return false;
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<uint16_t>(port));
  a.sin_addr.s_addr = htonl(INADDR_ANY);
  const bool ok = bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0;
  close(fd);
  return ok;
}

// Two free consecutive ports (slurmctld, slurmd), so that tests running at
// the same time, or a Slurm already on this machine, do not collide.
int free_port_pair() {
  for (int base = 17000 + static_cast<int>(getpid() % 4000) * 2, tries = 0; tries < 200; ++tries, base += 2) {
    if (base > 28998) base = 17000;
    if (port_free(base) && port_free(base + 1)) return base;
  }
  return 0;
}

class Slurm : public ::testing::Test {
 protected:
  void SetUp() override {
    for (const char* tool : {"munged", "slurmctld", "slurmd", "sbatch", "squeue", "sinfo"})
      if (!installed(tool))
        GTEST_SKIP() << "'" << tool << "' is not installed (Debian: apt-get install slurm-wlm munge); "
                     << "the Slurm launcher is not tested here";
    const int port = free_port_pair();
    ASSERT_NE(port, 0) << "no two free consecutive ports for slurmctld and slurmd";
    cluster_ = dir_ / "cluster";
    const std::string start = "SLURM_LOCALHOST_PORT=" + std::to_string(port) + " '" + script() + "' start '" +
                              cluster_.string() + "' >'" + (dir_ / "cluster.txt").string() + "' 2>&1";
    started_ = true;  // stop even a half-started cluster
    const int rc = std::system(start.c_str());
    ASSERT_EQ(rc, 0) << read_text(dir_ / "cluster.txt");
    env_ = "SLURM_CONF='" + (cluster_ / "slurm.conf").string() + "'";
  }

  // Kills the daemons by their pid files, also when the test failed.
  void TearDown() override {
    if (!started_) return;
    const std::string stop = "'" + script() + "' stop '" + cluster_.string() + "' >/dev/null 2>&1";
    EXPECT_EQ(std::system(stop.c_str()), 0);
  }

  static std::string script() { return std::string(TLMGPU_SOURCE_DIR) + "/scripts/slurm_localhost.sh"; }

  int papers(const std::string& args) { return run_papers(dir_, args, out_, err_, env_); }

  ScratchDir scratch_{"tlmgpu_slurm"};
  const fs::path dir_ = scratch_.path();
  fs::path cluster_;
  bool started_ = false;
  std::string env_, out_, err_;
};

// The same comparison through the cluster and on this machine: byte-identical
// CSVs (no host times, no output paths in them); a second Slurm invocation
// with the same --out submits nothing.
TEST_F(Slurm, PaperRunsMatchLocalLauncher) {
  const std::string common = "--paper pro --size small --workloads histogram --out ";
  const fs::path local = dir_ / "local", slurm = dir_ / "slurm";
  ASSERT_EQ(papers(common + "'" + local.string() + "' --jobs 2"), 0) << err_;
  ASSERT_EQ(papers(common + "'" + slurm.string() + "' --launcher slurm --slurm-time 10 --slurm-mem 500M"), 0) << err_;
  EXPECT_NE(err_.find("as a Slurm job array"), std::string::npos) << err_;
  const std::string local_csv = read_text(local / "pro.csv"), slurm_csv = read_text(slurm / "pro.csv");
  ASSERT_FALSE(local_csv.empty());
  EXPECT_EQ(slurm_csv, local_csv);
  EXPECT_EQ(slurm_csv.find(dir_.string()), std::string::npos) << "an output path in the CSV";

  // What the launcher leaves in OUT/runs: the job script, task list, job id
  // and one output file per element.
  const fs::path work = slurm / "runs" / "slurm" / "round1";
  EXPECT_TRUE(fs::exists(work / "job.sh"));
  EXPECT_EQ(count_of(read_text(work / "tasks.txt"), "\n"), 4u);
  EXPECT_TRUE(fs::exists(work / "job_id"));
  EXPECT_TRUE(fs::exists(work / "element_3.out"));

  fs::remove_all(work);
  ASSERT_EQ(papers(common + "'" + slurm.string() + "' --launcher slurm"), 0) << err_;
  EXPECT_NE(err_.find("runs: 0 to run, 4 reused"), std::string::npos) << err_;
  EXPECT_FALSE(fs::exists(work)) << "a resumed comparison submitted a job";
  EXPECT_EQ(read_text(slurm / "pro.csv"), local_csv);
}

// The issue's own check: a small sweep of one's own gives the same CSV
// through Slurm as on this machine.
TEST_F(Slurm, SweepMatchesLocalLauncher) {
  const fs::path spec = dir_ / "small.ini";
  std::ofstream(spec) << "[sweep]\nworkloads = vector_add histogram\nschedulers = lrr gto\nsize = small\n"
                         "[set]\nl1d.hit_latency = 20 35\n";
  const fs::path local = dir_ / "sweep_local", slurm = dir_ / "sweep_slurm";
  auto sweep = [&](const std::string& args) {
    return run_experiment_program(TLMGPU_SWEEP, dir_, "'" + spec.string() + "' --no-report " + args, out_, err_,
                                  env_);
  };
  ASSERT_EQ(sweep("--out '" + local.string() + "' --jobs 2"), 0) << err_;
  ASSERT_EQ(sweep("--out '" + slurm.string() + "' --launcher slurm --slurm-time 10"), 0) << err_;
  EXPECT_NE(err_.find("as a Slurm job array"), std::string::npos) << err_;
  const std::string local_csv = read_text(local / "sweep.csv");
  EXPECT_EQ(count_of(local_csv, "\n"), 9u) << "header and 8 runs";
  EXPECT_EQ(read_text(slurm / "sweep.csv"), local_csv);
}

// Elements that fail are reported with their log and their array element;
// the command exits 1 as with the local launcher.
TEST_F(Slurm, FailedElementsAreReportedWithTheirLog) {
  const std::string fake =
      write_script(dir_ / "failing_tlmgpu", "echo 'tlmgpu: device fault: out-of-bounds' >&2\nexit 1\n");
  const fs::path out = dir_ / "out";
  EXPECT_EQ(
      papers("--paper pro --workloads histogram --tlmgpu '" + fake + "' --launcher slurm --out '" + out.string() + "'"),
      1);
  EXPECT_EQ(count_of(err_, "] failed  gtx480|histogram|small|"), 4u) << err_;
  EXPECT_NE(err_.find("device fault"), std::string::npos) << err_;
  EXPECT_NE(err_.find("log " + fs::absolute(out).string() + "/runs/"), std::string::npos) << err_;
  EXPECT_NE(err_.find("Slurm job "), std::string::npos) << err_;
  const auto rows = read_csv(out / "pro.csv");
  ASSERT_GE(rows.size(), 2u);
  EXPECT_EQ(rows[1][column_of(rows[0], "status")], "failed");
}

TEST_F(Slurm, RejectedSubmissionIsABadOption) {
  EXPECT_EQ(papers("--paper pro --workloads histogram --launcher slurm --slurm-partition no_such_partition --out '" +
                   (dir_ / "out").string() + "'"),
            2);
  EXPECT_NE(err_.find("sbatch rejected the job array"), std::string::npos) << err_;
  EXPECT_NE(err_.find("no_such_partition"), std::string::npos) << err_;
}

// Needs no cluster: without sbatch on PATH the launcher says what is missing.
TEST(SlurmWithoutCluster, MissingSbatchIsAClearError) {
  ScratchDir scratch{"tlmgpu_slurm_missing"};
  std::string out, err;
  EXPECT_EQ(
      run_papers(scratch.path(),
                 "--paper pro --workloads histogram --launcher slurm --out '" + (scratch.path() / "out").string() + "'",
                 out, err, "PATH=/nonexistent"),
      2);
  EXPECT_NE(err.find("cannot start 'sbatch'"), std::string::npos) << err;
  EXPECT_NE(err.find("--launcher slurm needs"), std::string::npos) << err;
  EXPECT_EQ(run_papers(scratch.path(), "--slurm-time 10", out, err), 2);
  EXPECT_NE(err.find("--slurm-time needs --launcher slurm"), std::string::npos) << err;
}

}  // namespace
