// tlmgpu_sweep, run as a user would: spec mistakes named by line, the grid's
// order, a real small sweep checked against tlmgpu run directly, the
// normalised figure data in report.json, and identical output on a rerun.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "experiment_test_support.h"
#include "scratch_dir.h"

namespace {

namespace fs = std::filesystem;
using Json = nlohmann::json;

using experiment_test::csv_fields;
using experiment_test::read_text;

// The CSV as one map column -> value per row.
std::vector<std::map<std::string, std::string>> read_rows(const fs::path& p, std::vector<std::string>* header = nullptr) {
  std::istringstream is(read_text(p));
  std::string line;
  std::vector<std::string> h;
  if (std::getline(is, line)) h = csv_fields(line);
  if (header) *header = h;
  std::vector<std::map<std::string, std::string>> rows;
  while (std::getline(is, line)) {
    const std::vector<std::string> f = csv_fields(line);
    std::map<std::string, std::string> row;
    for (std::size_t i = 0; i < h.size() && i < f.size(); ++i) row[h[i]] = f[i];
    row["#fields"] = std::to_string(f.size());
    rows.push_back(row);
  }
  return rows;
}

class Sweep : public ::testing::Test {
 protected:
  int run(const std::string& args, const std::string& env = "") {
    const std::string cmd = env + " timeout 300 '" + std::string(TLMGPU_SWEEP) + "' " + args + " --tlmgpu '" +
                            std::string(TLMGPU_CLI) + "' >'" + (dir_ / "stdout.txt").string() + "' 2>'" +
                            (dir_ / "stderr.txt").string() + "'";
    const int rc = std::system(cmd.c_str());
    out_ = read_text(dir_ / "stdout.txt");
    err_ = read_text(dir_ / "stderr.txt");
    return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
  }

  std::string write_spec(const std::string& text, const std::string& name = "spec.ini") {
    const fs::path p = dir_ / name;
    std::ofstream(p) << text;
    return p.string();
  }

  // Checks that the spec is rejected with exit 2 and "FILE:LINE: key 'KEY'".
  void expect_spec_error(const std::string& text, int line, const std::string& key, const std::string& reason) {
    const std::string spec = write_spec(text);
    EXPECT_EQ(run("'" + spec + "' --dry-run"), 2) << text << "\n" << out_ << err_;
    const std::string where = spec + ":" + std::to_string(line) + ": " + (key.empty() ? "" : "key '" + key + "': ");
    EXPECT_NE(err_.find(where), std::string::npos) << "expected '" << where << "' in: " << err_;
    EXPECT_NE(err_.find(reason), std::string::npos) << "expected '" << reason << "' in: " << err_;
    EXPECT_TRUE(out_.empty()) << "no run lines for a bad spec: " << out_;
  }

  ScratchDir scratch_{"tlmgpu_sweep"};
  const fs::path dir_ = scratch_.path();
  std::string out_, err_;
};

const char* kGood = "[sweep]\nworkloads = vector_add\nschedulers = lrr\n";

TEST_F(Sweep, SpecErrorsNameTheFileLineAndKey) {
  expect_spec_error("[sweep]\nworkloads = vector_add\nschedulers = lrr\ncolour = red\n", 4, "colour",
                    "unknown key in [sweep]");
  expect_spec_error("# a comment\n[sweeps]\nworkloads = vector_add\n", 2, "", "unknown section '[sweeps]'");
  expect_spec_error("[sweep]\nworkloads = vector_add\nschedulers =\n", 3, "schedulers", "empty grid");
  expect_spec_error("[sweep]\nworkloads = vector_add\n", 1, "schedulers", "empty grid");
  expect_spec_error(std::string(kGood) + "[set]\nl1d.hit_latency =\n", 5, "l1d.hit_latency", "empty grid");
  expect_spec_error("[sweep]\nschedulers = lrr\n\nworkloads = vector_add no_such_workload\n", 4, "workloads",
                    "unknown workload 'no_such_workload'");
  expect_spec_error("[sweep]\nlaunches = missing.json\nschedulers = lrr\n", 2, "launches", "does not exist");
  expect_spec_error("[sweep]\nworkloads = vector_add\nschedulers = lrr fastest\n", 3, "schedulers",
                    "unknown scheduler 'fastest'");
  // A parameter only tlmgpu's own check knows: its message is passed on.
  expect_spec_error("[sweep]\nworkloads = vector_add\nschedulers = lrr two_level:grp=8\n", 3, "schedulers",
                    "has no parameter 'grp'");
  expect_spec_error("[sweep]\nworkloads = vector_add\npresets = gtx480 gtx9000\nschedulers = lrr\n", 3, "presets",
                    "unknown preset 'gtx9000'");
  expect_spec_error(std::string(kGood) + "[set]\nl1d.hit_latency = 20\nl1d.no_such_key = 1 2\n", 6,
                    "l1d.no_such_key", "unknown configuration key");
  expect_spec_error(std::string(kGood) + "[set]\nl1d.hit_latency = 20 fast\n", 5, "l1d.hit_latency",
                    "expected an unsigned integer");
  expect_spec_error("[sweep]\nworkloads = vector_add\nschedulers = lrr\nworkloads = bfs\n", 4, "workloads",
                    "given twice (first on line 2)");
  expect_spec_error("[sweep]\nworkloads = vector_add\nschedulers = lrr gto lrr\n", 3, "schedulers",
                    "'lrr' is listed twice");
  expect_spec_error("workloads = vector_add\n", 1, "workloads", "before any section");
  expect_spec_error(std::string(kGood) + "[figure ipc]\nmetric = ipc\nx = colour\n", 6, "x",
                    "'colour' is not a dimension");
  expect_spec_error(std::string(kGood) + "[figure ipc]\nmetric = ipc\nx = workload\nbaseline = scheduler=gto\n", 7,
                    "baseline", "'gto' is not a value of scheduler");
  expect_spec_error(std::string(kGood) + "[figure ipc]\nmetric = ipc\nx = workload\nkind = lines\n", 7, "kind",
                    "lines need a numeric x");
  expect_spec_error(std::string(kGood) + "[figure ipc]\nx = workload\n", 4, "metric", "needs a metric");
  expect_spec_error(std::string(kGood) + "size = huge\n", 4, "size", "expected small, default or paper");
}

TEST_F(Sweep, MissingSpecAndBadOptionsAreUsageErrors) {
  EXPECT_EQ(run("'" + (dir_ / "none.ini").string() + "'"), 2);
  EXPECT_NE(err_.find("none.ini: cannot read the spec file"), std::string::npos) << err_;
  const std::string spec = write_spec(kGood);
  EXPECT_EQ(run("'" + spec + "' --jobs zero"), 2);
  EXPECT_NE(err_.find("--jobs 'zero'"), std::string::npos) << err_;
  EXPECT_EQ(run("'" + spec + "' --colour"), 2);
  EXPECT_NE(err_.find("unknown option '--colour'"), std::string::npos) << err_;
}

// The first dimension varies slowest: workload, scheduler, preset, [set] keys
// in file order, seed.
TEST_F(Sweep, DryRunListsTheGridInOrder) {
  const std::string spec = write_spec(
      "[sweep]\nworkloads = vector_add histogram\nschedulers = lrr two_level:group=4\nseeds = 1 7\n"
      "[set]\nl1d.hit_latency = 20 70\nsm.num_schedulers = 1 2\n");
  ASSERT_EQ(run("'" + spec + "' --dry-run"), 0) << err_;
  std::vector<std::string> lines;
  std::istringstream is(out_);
  for (std::string l; std::getline(is, l);) lines.push_back(l);
  std::vector<std::string> expected;
  for (const char* w : {"vector_add", "histogram"})
    for (const char* s : {"lrr", "two_level:group=4"})
      for (const char* lat : {"20", "70"})
        for (const char* n : {"1", "2"})
          for (const char* seed : {"1", "7"})
            expected.push_back(std::string(TLMGPU_CLI) + " run --workload " + w + " --mode timing --size small" +
                               " --preset gtx480 --scheduler " + s + " --set l1d.hit_latency=" + lat +
                               " --set sm.num_schedulers=" + n + " --seed " + seed);
  EXPECT_EQ(lines, expected);
  EXPECT_NE(err_.find("32 run(s)"), std::string::npos) << err_;
  EXPECT_FALSE(fs::exists(dir_ / "sweep_out")) << "a dry run runs nothing";
}

TEST_F(Sweep, LaunchFilesTakeNoSeedAndRun) {
  // A copy, so that nothing is written into the source tree.
  for (const char* f : {"saxpy.json", "kernels.ptx"})
    fs::copy_file(fs::path(TLMGPU_SOURCE_DIR) / "tests/launch" / f, dir_ / f);
  const std::string spec =
      write_spec("[sweep]\nworkloads = vector_add\nlaunches = saxpy.json\nschedulers = lrr gto\nseeds = 1 2\n");
  const fs::path out = dir_ / "out";
  ASSERT_EQ(run("'" + spec + "' --no-report --jobs 2 --out '" + out.string() + "'"), 0) << err_;
  const auto rows = read_rows(out / "sweep.csv");
  ASSERT_EQ(rows.size(), 6u);  // vector_add x 2 schedulers x 2 seeds, saxpy x 2 schedulers
  for (std::size_t i = 4; i < 6; ++i) {
    EXPECT_EQ(rows[i].at("workload"), "saxpy.json");
    EXPECT_EQ(rows[i].at("seed"), "");
    EXPECT_EQ(rows[i].at("status"), "ok") << rows[i].at("note");
    EXPECT_NE(rows[i].at("command").find("--launch " + (dir_ / "saxpy.json").string()), std::string::npos);
    EXPECT_EQ(rows[i].at("command").find("--seed"), std::string::npos);
    EXPECT_TRUE(fs::exists(out / "launch_output" / std::to_string(i) / "y.bin"));
  }
  EXPECT_FALSE(fs::exists(dir_ / "y.bin")) << "dumps go under --out";
}

// A run that fails (a launch file whose expectation is wrong) is a row with
// its status and reason; the sweep finishes the other runs and exits 1.
TEST_F(Sweep, FailedRunIsARowAndExitsOne) {
  for (const char* f : {"expect_fail.json", "saxpy.json", "kernels.ptx"})
    fs::copy_file(fs::path(TLMGPU_SOURCE_DIR) / "tests/launch" / f, dir_ / f);
  const std::string spec = write_spec(
      "[sweep]\nlaunches = saxpy.json expect_fail.json\nschedulers = lrr\nbaseline = workload=saxpy.json\n"
      "[figure f]\nmetric = sim_cycles\nx = workload\n");
  const fs::path out = dir_ / "out";
  ASSERT_EQ(run("'" + spec + "' --no-report --out '" + out.string() + "'"), 1) << err_;
  const auto rows = read_rows(out / "sweep.csv");
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].at("status"), "ok");
  EXPECT_EQ(rows[1].at("status"), "failed");
  EXPECT_FALSE(rows[1].at("note").empty());
  EXPECT_EQ(rows[1].at("sim_cycles"), "");
  EXPECT_FALSE(rows[1].at("command").empty());
  const Json rep = Json::parse(read_text(out / "report.json"));
  EXPECT_EQ(rep.at("runs").at("failed"), 1);
  const Json& points = rep.at("figures")[0].at("points");
  ASSERT_EQ(points.size(), 2u);
  EXPECT_EQ(points[0].at("value"), 1.0);
  EXPECT_EQ(points[1].at("value"), nullptr) << "a failed run is a gap, not 0";
  EXPECT_EQ(points[1].at("n"), 0);
}

const char* kSmallSweep =
    "[sweep]\n"
    "title = small test sweep\n"
    "size = small\n"
    "workloads = vector_add histogram\n"
    "schedulers = lrr gto\n"
    "baseline = scheduler=lrr\n"
    "[set]\n"
    "l1d.hit_latency = 20 70\n"
    "[figure speedup]\n"
    "metric = ipc\n"
    "x = workload\n"
    "series = scheduler\n"
    "[figure cycles]\n"
    "metric = sim_cycles\n"
    "baseline = none\n"
    "kind = lines\n"
    "x = l1d.hit_latency\n"
    "series = scheduler\n"
    "where = workload=histogram\n";

double number(const std::string& s) {
  EXPECT_FALSE(s.empty());
  return std::strtod(s.c_str(), nullptr);
}

TEST_F(Sweep, SmallSweepRowsEqualTheIndividualRuns) {
  const std::string spec = write_spec(kSmallSweep);
  const fs::path out = dir_ / "out";
  ASSERT_EQ(run("'" + spec + "' --no-report --jobs 2 --out '" + out.string() + "'"), 0) << out_ << err_;
  std::vector<std::string> header;
  const auto rows = read_rows(out / "sweep.csv", &header);
  ASSERT_EQ(rows.size(), 8u);
  const std::vector<std::string> leading = {"run", "workload", "scheduler", "preset", "l1d.hit_latency", "seed",
                                            "status", "note", "sim_cycles", "ipc"};
  ASSERT_GE(header.size(), leading.size() + 2);
  EXPECT_EQ(std::vector<std::string>(header.begin(), header.begin() + leading.size()), leading);
  EXPECT_EQ(header[header.size() - 2], "command");
  EXPECT_EQ(header.back(), "config_hash");
  for (const char* col : {"warp_insts", "thread_insts", "ctas", "sched_issued", "sched_idle", "sched_scoreboard"})
    EXPECT_NE(std::find(header.begin(), header.end(), col), header.end()) << col;
  for (const std::string& h : header) EXPECT_EQ(h.find("host"), std::string::npos) << "host time column " << h;

  std::size_t i = 0;
  for (const char* w : {"vector_add", "histogram"})
    for (const char* s : {"lrr", "gto"})
      for (const char* lat : {"20", "70"}) {
        const auto& r = rows[i];
        EXPECT_EQ(r.at("#fields"), std::to_string(header.size()));
        EXPECT_EQ(r.at("run"), std::to_string(i));
        EXPECT_EQ(r.at("workload"), w);
        EXPECT_EQ(r.at("scheduler"), s);
        EXPECT_EQ(r.at("l1d.hit_latency"), lat);
        EXPECT_EQ(r.at("seed"), "1");
        EXPECT_EQ(r.at("status"), "ok") << r.at("note");
        EXPECT_TRUE(std::regex_match(r.at("config_hash"), std::regex("[0-9a-f]{16}"))) << r.at("config_hash");
        ++i;
      }
  // The configuration hash follows the configuration, not the workload.
  EXPECT_EQ(rows[0].at("config_hash"), rows[4].at("config_hash"));
  EXPECT_NE(rows[0].at("config_hash"), rows[1].at("config_hash"));
  EXPECT_NE(rows[0].at("config_hash"), rows[2].at("config_hash"));

  // Row 7 (histogram, gto, latency 70) against tlmgpu run by hand.
  const fs::path stats = dir_ / "by_hand.json";
  const std::string by_hand = "SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1 '" + std::string(TLMGPU_CLI) +
                              "' run --workload histogram --mode timing --size small --scheduler gto"
                              " --set l1d.hit_latency=70 --stats '" + stats.string() + "' >/dev/null 2>&1";
  ASSERT_EQ(std::system(by_hand.c_str()), 0);
  const Json j = Json::parse(read_text(stats));
  const auto& r = rows[7];
  EXPECT_EQ(number(r.at("sim_cycles")), j.at("sim_cycles").get<double>());
  EXPECT_EQ(number(r.at("warp_insts")), j.at("warp_insts").get<double>());
  EXPECT_NEAR(number(r.at("ipc")), j.at("ipc").get<double>(), 1e-6 * j.at("ipc").get<double>());
  double issued = 0, scoreboard = 0;
  const std::regex sched_key(R"(gpu\.sm[0-9]+\.sched[0-9]+\.(issued|scoreboard))");
  std::size_t schedulers = 0;
  for (auto it = j.at("modules").begin(); it != j.at("modules").end(); ++it) {
    std::smatch m;
    const std::string key = it.key();
    if (!std::regex_match(key, m, sched_key)) continue;
    (m[1] == "issued" ? issued : scoreboard) += it->get<double>();
    schedulers += m[1] == "issued";
  }
  EXPECT_EQ(schedulers, 30u) << "15 SMs x 2 schedulers on gtx480";
  EXPECT_EQ(number(r.at("sched_issued")), issued);
  EXPECT_EQ(number(r.at("sched_scoreboard")), scoreboard);
  EXPECT_EQ(number(r.at("sched_issued")), j.at("warp_insts").get<double>());

  // The command column reproduces the row, with the build directory on PATH
  // (it names the program, not where this build put it).
  const fs::path again = dir_ / "again.json";
  ASSERT_EQ(r.at("command").rfind("tlmgpu run ", 0), 0u) << r.at("command");
  const std::string cmd = "PATH='" + fs::path(TLMGPU_CLI).parent_path().string() +
                          "':\"$PATH\" SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1 " + r.at("command") + " --stats '" +
                          again.string() + "' >/dev/null 2>&1";
  ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
  EXPECT_EQ(Json::parse(read_text(again)).at("sim_cycles"), j.at("sim_cycles"));
}

TEST_F(Sweep, ReportJsonHoldsTheNormalisedFigures) {
  const std::string spec = write_spec(kSmallSweep);
  const fs::path out = dir_ / "out";
  ASSERT_EQ(run("'" + spec + "' --no-report --jobs 2 --out '" + out.string() + "'"), 0) << out_ << err_;
  const auto rows = read_rows(out / "sweep.csv");
  ASSERT_EQ(rows.size(), 8u);
  const Json rep = Json::parse(read_text(out / "report.json"));
  EXPECT_EQ(rep.at("schema"), "tlmgpu-sweep-report/1");
  EXPECT_EQ(rep.at("title"), "small test sweep");
  EXPECT_EQ(rep.at("csv"), "sweep.csv");
  EXPECT_EQ(rep.at("baseline"), Json({{"scheduler", "lrr"}}));
  EXPECT_EQ(rep.at("runs").at("total"), 8);
  EXPECT_EQ(rep.at("runs").at("ok"), 8);
  ASSERT_EQ(rep.at("dimensions").size(), 5u);
  EXPECT_EQ(rep.at("dimensions")[3].at("name"), "l1d.hit_latency");
  EXPECT_EQ(rep.at("dimensions")[3].at("values"), Json({"20", "70"}));
  EXPECT_TRUE(rep.at("dimensions")[3].at("numeric").get<bool>());
  ASSERT_EQ(rep.at("figures").size(), 2u);

  // speedup: ipc / ipc of the lrr run at the same workload and latency,
  // geometric mean over the two latencies.
  const Json& f = rep.at("figures")[0];
  EXPECT_EQ(f.at("name"), "speedup");
  EXPECT_EQ(f.at("normalise_to"), Json({{"scheduler", "lrr"}}));
  EXPECT_EQ(f.at("aggregate"), "geomean");
  EXPECT_EQ(f.at("x_values"), Json({"vector_add", "histogram"}));
  EXPECT_EQ(f.at("series_values"), Json({"lrr", "gto"}));
  ASSERT_EQ(f.at("points").size(), 4u);
  auto ipc = [&](std::size_t run) { return number(rows[run].at("ipc")); };
  // Runs: workload w (0, 1) x scheduler s (lrr 0, gto 1) x latency l -> 4w + 2s + l.
  for (std::size_t s = 0; s < 2; ++s)
    for (std::size_t w = 0; w < 2; ++w) {
      const Json& p = f.at("points")[s * 2 + w];
      EXPECT_EQ(p.at("series"), s ? "gto" : "lrr");
      EXPECT_EQ(p.at("x"), w ? "histogram" : "vector_add");
      const std::size_t a = 4 * w + 2 * s, b = a + 1;
      EXPECT_EQ(p.at("runs"), Json({a, b}));
      EXPECT_EQ(p.at("baseline_runs"), Json({4 * w, 4 * w + 1}));
      EXPECT_EQ(p.at("n"), 2);
      const double expected = std::sqrt(ipc(a) / ipc(4 * w) * (ipc(b) / ipc(4 * w + 1)));
      EXPECT_NEAR(p.at("value").get<double>(), expected, 1e-9) << p.dump();
      EXPECT_NEAR(p.at("raw").get<double>(), (ipc(a) + ipc(b)) / 2, 1e-9);
      if (s == 0) {
        EXPECT_DOUBLE_EQ(p.at("value").get<double>(), 1.0);
      }
    }

  // cycles: raw sim_cycles of histogram against the latency, one run a point.
  const Json& c = rep.at("figures")[1];
  EXPECT_EQ(c.at("normalise_to"), nullptr);
  EXPECT_EQ(c.at("kind"), "lines");
  EXPECT_EQ(c.at("aggregate"), "none");
  EXPECT_EQ(c.at("where"), Json({{"workload", "histogram"}}));
  EXPECT_EQ(c.at("x_numeric"), Json({20.0, 70.0}));
  ASSERT_EQ(c.at("points").size(), 4u);
  for (std::size_t k = 0; k < 4; ++k) {
    const std::size_t run_index = 4 + k;  // histogram's runs, lrr then gto, 20 then 70
    EXPECT_EQ(c.at("points")[k].at("runs"), Json({run_index}));
    EXPECT_EQ(c.at("points")[k].at("value").get<double>(), number(rows[run_index].at("sim_cycles")));
  }
  EXPECT_GT(c.at("points")[1].at("value").get<double>(), c.at("points")[0].at("value").get<double>())
      << "a slower L1 hit costs cycles";
}

TEST_F(Sweep, SameSpecGivesIdenticalOutput) {
  const std::string spec = write_spec(kSmallSweep);
  ASSERT_EQ(run("'" + spec + "' --no-report --jobs 2 --out '" + (dir_ / "a").string() + "'"), 0) << err_;
  ASSERT_EQ(run("'" + spec + "' --no-report --jobs 1 --out '" + (dir_ / "b").string() + "'"), 0) << err_;
  const std::string csv = read_text(dir_ / "a" / "sweep.csv");
  EXPECT_FALSE(csv.empty());
  EXPECT_EQ(csv, read_text(dir_ / "b" / "sweep.csv"));
  EXPECT_EQ(read_text(dir_ / "a" / "report.json"), read_text(dir_ / "b" / "report.json"));
}

TEST_F(Sweep, MissingReportScriptKeepsTheCsvAndExitsZero) {
  const std::string spec = write_spec(kGood);
  const fs::path out = dir_ / "out";
  fs::create_directories(dir_ / "no_scripts");
  ASSERT_EQ(run("'" + spec + "' --out '" + out.string() + "'",
                "TLMGPU_REPORT_SCRIPTS='" + (dir_ / "no_scripts").string() + "'"),
            0)
      << err_;
  EXPECT_NE(err_.find("sweep_report.py"), std::string::npos) << err_;
  EXPECT_EQ(read_rows(out / "sweep.csv").size(), 1u);
  EXPECT_TRUE(fs::exists(out / "report.json"));
}

// The page itself is scripts/report/sweep_report.py's (tested with the
// report scripts); here: tlmgpu_sweep calls it and it finds what it needs.
TEST_F(Sweep, WritesTheHtmlReportWhenTheScriptIsThere) {
  if (!fs::exists(fs::path(TLMGPU_SOURCE_DIR) / "scripts/report/sweep_report.py"))
    GTEST_SKIP() << "scripts/report/sweep_report.py is not in this tree";
  if (std::system("/usr/bin/python3 -c 'import matplotlib' >/dev/null 2>&1") != 0)
    GTEST_SKIP() << "no /usr/bin/python3 with matplotlib (Debian python3-matplotlib)";
  const std::string spec = write_spec(kSmallSweep);
  const fs::path out = dir_ / "out";
  ASSERT_EQ(run("'" + spec + "' --jobs 2 --out '" + out.string() + "'"), 0) << out_ << err_;
  EXPECT_NE(out_.find((out / "index.html").string()), std::string::npos) << out_;
  EXPECT_GT(fs::file_size(out / "index.html"), 0u);
  for (const char* name : {"speedup", "cycles"})
    for (const char* ext : {".svg", ".png"}) {
      const fs::path f = out / "figures" / (std::string(name) + ext);
      ASSERT_TRUE(fs::exists(f)) << f;
      EXPECT_GT(fs::file_size(f), 0u) << f;
    }
}

TEST_F(Sweep, UnknownMetricIsNamedAfterTheRuns) {
  const std::string spec = write_spec(std::string(kGood) + "[figure f]\nmetric = ipcc\nx = workload\n");
  const fs::path out = dir_ / "out";
  EXPECT_EQ(run("'" + spec + "' --no-report --out '" + out.string() + "'"), 2);
  EXPECT_NE(err_.find(spec + ":5: key 'metric': 'ipcc' is not a column of sweep.csv"), std::string::npos) << err_;
  EXPECT_EQ(read_rows(out / "sweep.csv").size(), 1u) << "the runs are kept";
}

// ------------------------------------------------------------ programs

// An executable that is never started: the spec checks and --dry-run only
// look at it.
void write_fake_program(const fs::path& p, bool executable = true) {
  fs::create_directories(p.parent_path());
  std::ofstream(p) << "#!/bin/sh\nexit 0\n";
  fs::permissions(p, executable ? fs::perms::owner_all : fs::perms::owner_read | fs::perms::owner_write);
}

TEST_F(Sweep, ProgramSpecErrorsNameTheKey) {
  write_fake_program(dir_ / "bin/app");
  write_fake_program(dir_ / "bin/other/app");
  write_fake_program(dir_ / "bin/plain", false);
  const std::string s = "[sweep]\nschedulers = lrr\n";
  expect_spec_error(s + "programs = bin/app\n", 3, "programs", "known: baseline, launches, mode, presets, schedulers, "
                                                              "seeds, size, title, workloads, program, program.NAME");
  expect_spec_error(s + "program =\n", 3, "program", "needs a command line");
  expect_spec_error(s + "program = bin/app 'one two\n", 3, "program", "bad quoting: a ' is not closed: 'one two");
  expect_spec_error(s + "program = bin/app \"one\n", 3, "program", "bad quoting: a \" is not closed: \"one");
  expect_spec_error(s + "program = bin/app one\\\n", 3, "program", "bad quoting: the line ends with a \\");
  expect_spec_error(s + "program = bin/missing 10\n", 3, "program",
                    "program '" + (dir_ / "bin/missing").string() + "' does not exist (a relative path starts at the "
                    "spec's directory)");
  expect_spec_error(s + "program = /no/such/app\n", 3, "program", "program '/no/such/app' does not exist");
  expect_spec_error(s + "program = bin\n", 3, "program", "is not a file");
  expect_spec_error(s + "program = bin/plain\n", 3, "program", "program '" + (dir_ / "bin/plain").string() +
                                                                   "' is not executable");
  expect_spec_error(s + "program.a.b = bin/app\n", 3, "program.a.b", "expected program.NAME");
  expect_spec_error(s + "program = bin/app\nprogram = bin/app 2\n", 4, "program", "given twice (first on line 3)");
  expect_spec_error(s + "program = bin/app\nprogram = bin/other/app\n", 4, "program", "given twice");
  expect_spec_error(s + "program.x = bin/app\nprogram = bin/other/app\nprogram.app = bin/app 2\n", 5, "program.app",
                    "the name 'app' is taken by program on line 4");
  expect_spec_error(s + "workloads = vector_add\nprogram.vector_add = bin/app\n", 4, "program.vector_add",
                    "the name 'vector_add' is also listed in workloads");
  expect_spec_error(s + "program = bin/app\nseeds = 1 2\n", 4, "seeds", "launch files and programs take no seed");
  expect_spec_error("[sweep]\nschedulers = lrr\n", 1, "workloads", "names no workloads, launches or programs");
  expect_spec_error(s + "program.a = bin/app\n[figure f]\nmetric = ipc\nx = workload\nbaseline = workload=b\n", 7,
                    "baseline", "'b' is not a value of workload (values: a)");
}

TEST_F(Sweep, ProgramCommandLinesAreSplitLikeAShell) {
  write_fake_program(dir_ / "bin/app");
  // The spec in a directory of its own: the program's path and its working
  // directory start there.
  fs::create_directories(dir_ / "specs");
  const std::string spec = write_spec(
      "[sweep]\n"
      "workloads = vector_add\n"
      "program.quoted = ../bin/app --n 1000 \"a b\" 'c  d' e\\ f \"q\\\"x\" '' \"x\\\\y\" 'it'\\''s'\n"
      "program = " + (dir_ / "bin/app").string() + "\n"
      "schedulers = lrr gto\n"
      "seeds = 1 2\n"
      "[set]\nl1d.hit_latency = 20 70\n"
      "[figure f]\nmetric = ipc\nx = workload\nbaseline = workload=quoted\n",
      "specs/spec.ini");
  ASSERT_EQ(run("'" + spec + "' --dry-run"), 0) << err_;
  std::vector<std::string> lines;
  std::istringstream is(out_);
  for (std::string l; std::getline(is, l);) lines.push_back(l);
  std::vector<std::string> expected;
  const std::string cli = TLMGPU_CLI;
  for (const char* s : {"lrr", "gto"})
    for (const char* lat : {"20", "70"})
      for (const char* seed : {"1", "2"})
        expected.push_back(cli + " run --workload vector_add --mode timing --size small --preset gtx480 --scheduler " +
                           s + " --set l1d.hit_latency=" + lat + " --seed " + seed);
  // Programs take no seed: one run per other coordinate, after the workloads.
  const std::string cd = "cd " + (dir_ / "specs").string() + " && ";
  const std::string app = (dir_ / "bin/app").string();
  for (const std::string& args : {std::string(" --n 1000 'a b' 'c  d' 'e f' 'q\"x' '' 'x\\y' 'it'\\''s'"), std::string()})
    for (const char* s : {"lrr", "gto"})
      for (const char* lat : {"20", "70"})
        expected.push_back(cd + cli + " exec --mode timing --preset gtx480 --scheduler " + s +
                           " --set l1d.hit_latency=" + lat + " -- " + app + args);
  EXPECT_EQ(lines, expected);
  EXPECT_NE(err_.find("16 run(s)"), std::string::npos) << err_;
}

// `tlmgpu exec` runs a real CUDA program (tests/cuda/sweep/sweep_saxpy.cu) on
// the simulated GPU: its rows hold the whole program's statistics, a program
// that fails its own check is a failed row, and resume notices a rebuilt
// program.
TEST_F(Sweep, ProgramSweepRunsUnderExec) {
  if (std::string(TLMGPU_NVCC).empty()) GTEST_SKIP() << "nvcc not found: the CUDA test programs were not built";
  const fs::path built = fs::path(TLMGPU_CUDA_PROGRAMS_DIR) / "sweep_saxpy";
  ASSERT_TRUE(fs::exists(built)) << built << " (target cuda_program_sweep_saxpy)";
  fs::create_directories(dir_ / "bin");
  const fs::path app = dir_ / "bin/sweep_saxpy";
  fs::copy_file(built, app);  // a copy: the test rebuilds it below
  const std::string spec = write_spec(
      "[sweep]\n"
      "workloads = vector_add\n"
      "program.saxpy = bin/sweep_saxpy 2048 --write written.txt\n"
      "program.saxpy_wrong = bin/sweep_saxpy 2048 --wrong\n"
      "schedulers = lrr gto\n"
      "baseline = scheduler=lrr\n"
      "[figure speedup]\nmetric = ipc\nx = workload\nseries = scheduler\n");
  const fs::path out = dir_ / "out";
  ASSERT_EQ(run("'" + spec + "' --no-report --jobs 2 --out '" + out.string() + "'"), 1) << out_ << err_;
  std::vector<std::string> header;
  const auto rows = read_rows(out / "sweep.csv", &header);
  ASSERT_EQ(rows.size(), 6u);
  const std::vector<std::string> names = {"vector_add", "vector_add", "saxpy", "saxpy", "saxpy_wrong", "saxpy_wrong"};
  for (std::size_t i = 0; i < rows.size(); ++i) {
    EXPECT_EQ(rows[i].at("#fields"), std::to_string(header.size()));
    EXPECT_EQ(rows[i].at("workload"), names[i]);
    EXPECT_EQ(rows[i].at("scheduler"), i % 2 ? "gto" : "lrr");
    EXPECT_EQ(rows[i].at("seed"), i < 2 ? "1" : "");
  }
  for (std::size_t i = 2; i < 4; ++i) {
    const auto& r = rows[i];
    EXPECT_EQ(r.at("status"), "ok") << r.at("note");
    EXPECT_GT(number(r.at("sim_cycles")), 0);
    EXPECT_EQ(number(r.at("kernels_launched")), 1);
    EXPECT_EQ(number(r.at("exit_status")), 0);
    EXPECT_GT(number(r.at("sched_issued")), 0);
    EXPECT_TRUE(std::regex_match(r.at("config_hash"), std::regex("[0-9a-f]{16}"))) << r.at("config_hash");
    EXPECT_EQ(r.at("command").rfind("cd " + dir_.string() + " && tlmgpu exec --mode timing --preset gtx480", 0), 0u)
        << r.at("command");
    EXPECT_NE(r.at("command").find(" -- " + app.string() + " 2048 --write written.txt"), std::string::npos);
  }
  // The configuration hash is the GPU's, whatever runs on it.
  EXPECT_EQ(rows[2].at("config_hash"), rows[0].at("config_hash"));
  EXPECT_NE(rows[2].at("config_hash"), rows[3].at("config_hash"));
  EXPECT_EQ(read_text(dir_ / "written.txt"), "ok\n") << "the program runs in the spec's directory";
  for (std::size_t i = 4; i < 6; ++i) {
    EXPECT_EQ(rows[i].at("status"), "failed") << "exit status 1 is a failed verification";
    EXPECT_FALSE(rows[i].at("note").empty());
    EXPECT_EQ(rows[i].at("sim_cycles"), "");
  }

  // Row 3 (saxpy, gto) against tlmgpu exec by hand, from its command column
  // with --stats before the program's `--`.
  const fs::path stats = dir_ / "by_hand.json";
  std::string cmd = rows[3].at("command");
  const std::size_t dashes = cmd.find(" -- ");
  ASSERT_NE(dashes, std::string::npos);
  cmd.insert(dashes, " --stats '" + stats.string() + "'");
  // Exported: the command starts with `cd DIR &&`.
  cmd = "export PATH='" + fs::path(TLMGPU_CLI).parent_path().string() +
        "':\"$PATH\" SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1; " + cmd + " >/dev/null 2>&1";
  ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
  const Json j = Json::parse(read_text(stats));
  EXPECT_EQ(number(rows[3].at("sim_cycles")), j.at("sim_cycles").get<double>());
  EXPECT_EQ(number(rows[3].at("warp_insts")), j.at("warp_insts").get<double>());
  ASSERT_EQ(j.at("kernel_launches").size(), 1u);
  EXPECT_NE(j.at("kernel_launches")[0].at("kernel").get<std::string>().find("saxpy"), std::string::npos);

  // The figure: the program is one more x value, normalised like a workload;
  // the failed program is a gap.
  const Json rep = Json::parse(read_text(out / "report.json"));
  EXPECT_EQ(rep.at("programs"),
            Json::parse(R"([{"name": "saxpy", "path": ")" + app.string() +
                        R"(", "arguments": ["2048", "--write", "written.txt"]},)"
                        R"( {"name": "saxpy_wrong", "path": ")" + app.string() + R"(", "arguments": ["2048", "--wrong"]}])"));
  const Json& f = rep.at("figures")[0];
  EXPECT_EQ(f.at("x_values"), Json({"vector_add", "saxpy", "saxpy_wrong"}));
  const Json& gto_saxpy = f.at("points")[4];  // series gto, x saxpy
  ASSERT_EQ(gto_saxpy.at("runs"), Json({3}));
  EXPECT_NEAR(gto_saxpy.at("value").get<double>(), number(rows[3].at("ipc")) / number(rows[2].at("ipc")), 1e-9);
  EXPECT_EQ(f.at("points")[5].at("value"), nullptr);

  // Resume: the ok runs are reused, the failed ones rerun ...
  ASSERT_EQ(run("'" + spec + "' --no-report --jobs 2 --out '" + out.string() + "'"), 1) << err_;
  EXPECT_NE(err_.find("runs: 2 to run, 4 reused"), std::string::npos) << err_;
  EXPECT_EQ(read_rows(out / "sweep.csv").at(3).at("sim_cycles"), rows[3].at("sim_cycles"));
  // ... and a rebuilt program runs again.
  std::ofstream(app, std::ios::app) << '\0';
  ASSERT_EQ(run("'" + spec + "' --no-report --jobs 2 --out '" + out.string() + "'"), 1) << err_;
  EXPECT_NE(err_.find("runs: 4 to run, 2 reused"), std::string::npos) << err_;
  EXPECT_EQ(read_rows(out / "sweep.csv").at(3).at("status"), "ok");
}

}  // namespace
