// The report scripts (scripts/report/*.py) and the pages they write:
//  - ReportScripts: the scripts on fixture directories (tests/report/): the
//    figures and the page, deterministic bytes, notes instead of failures
//    for missing data, exit 2 naming the key for a bad input;
//  - ReportPapers: tlmgpu_papers run for real, drawing its report at the end;
//  - ReportBrowser: the pages in headless Chromium: every figure renders
//    with a non-zero size and the console stays empty.
// Skipped with a message where no Python with matplotlib / no chromium is.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "scratch_dir.h"
#include "tools/experiment/python_report.h"

namespace {

namespace fs = std::filesystem;

const fs::path kFixtures = fs::path(TLMGPU_SOURCE_DIR) / "tests" / "report";
const fs::path kScripts = fs::path(TLMGPU_SOURCE_DIR) / "scripts" / "report";
constexpr const char* kChromium = "/usr/bin/chromium";

std::string read_text(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), {});
}

std::string shell_quoted(const std::string& s) { return "'" + s + "'"; }

struct Result {
  int code = -1;
  std::string out, err;
};

// Runs a shell command line, its output captured through files in `dir`.
Result run(const std::string& command, const fs::path& dir) {
  const fs::path out = dir / "cmd_stdout.txt", err = dir / "cmd_stderr.txt";
  const std::string line = "timeout 300 " + command + " >" + shell_quoted(out.string()) + " 2>" + shell_quoted(err.string());
  const int rc = std::system(line.c_str());
  Result r;
  r.code = WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
  r.out = read_text(out);
  r.err = read_text(err);
  return r;
}

// The figure names index.html points at (src="figures/NAME.svg").
std::set<std::string> figures_on_page(const std::string& html) {
  std::set<std::string> names;
  const std::regex img(R"(<img class="figure" src="figures/([A-Za-z0-9_.-]+)\.svg")");
  for (auto it = std::sregex_iterator(html.begin(), html.end(), img); it != std::sregex_iterator(); ++it)
    names.insert((*it)[1]);
  return names;
}

// Every figure is an SVG and a PNG that are what they say and not empty.
void expect_figure_files(const fs::path& out, const std::set<std::string>& names) {
  for (const std::string& n : names) {
    const std::string svg = read_text(out / "figures" / (n + ".svg"));
    const std::string png = read_text(out / "figures" / (n + ".png"));
    EXPECT_NE(svg.find("<svg"), std::string::npos) << n << ".svg is not an SVG";
    EXPECT_GT(svg.size(), 2000u) << n << ".svg";
    ASSERT_GT(png.size(), 1000u) << n << ".png";
    EXPECT_EQ(png.substr(1, 3), "PNG") << n << ".png";
  }
}

// Every file under figures/ and the page, by name.
std::map<std::string, std::string> page_bytes(const fs::path& out) {
  std::map<std::string, std::string> m{{"index.html", read_text(out / "index.html")}};
  for (const auto& e : fs::directory_iterator(out / "figures")) m[e.path().filename().string()] = read_text(e.path());
  return m;
}

class ReportScripts : public ::testing::Test {
 protected:
  void SetUp() override {
    python_ = experiment::python_with_matplotlib();
    if (python_.empty()) GTEST_SKIP() << "no Python 3 with matplotlib (Debian: apt-get install python3-matplotlib)";
  }
  // Copies a fixture into the scratch directory: the scripts write beside their input.
  fs::path fixture(const std::string& name) {
    const fs::path to = dir_.path() / name;
    fs::copy(kFixtures / name, to, fs::copy_options::recursive);
    return to;
  }
  Result script(const std::string& name, const std::string& arg) { return script(name, std::vector<std::string>{arg}); }
  Result script(const std::string& name, const std::vector<std::string>& args) {
    std::string command = shell_quoted(python_) + " " + shell_quoted((kScripts / name).string());
    for (const std::string& a : args) command += " " + shell_quoted(a);
    return run(command, dir_.path());
  }

  std::string python_;
  ScratchDir dir_{"tlmgpu_report"};
};

TEST_F(ReportScripts, PapersPageHasEachPapersFiguresAndCommands) {
  const fs::path out = fixture("papers");
  const Result r = script("papers_report.py", out.string());
  ASSERT_EQ(r.code, 0) << r.err;
  const std::string html = read_text(out / "index.html");
  const std::set<std::string> expected = {"pro_speedup", "pro_stall_ratios", "pro_stall_classes", "pro_cta_timeline",
                                          "spin_backoff_cycles"};
  EXPECT_EQ(figures_on_page(html), expected);
  expect_figure_files(out, expected);
  // Only the papers with a CSV are on the page.
  EXPECT_NE(html.find("PRO: progress-aware"), std::string::npos);
  EXPECT_NE(html.find("Spin detection and back-off"), std::string::npos);
  EXPECT_EQ(html.find("KAWS:"), std::string::npos);
  EXPECT_EQ(html.find("SWaS:"), std::string::npos);
  // The pro CSV carries command and config_hash; spin_backoff's does not.
  EXPECT_NE(html.find("tlmgpu run --workload hotspot --mode timing --size small --preset gtx480 --scheduler pro"),
            std::string::npos);
  EXPECT_NE(html.find("9f1c2a7b3d4e5f60"), std::string::npos);
  EXPECT_NE(html.find("not recorded"), std::string::npos);
  // The paper's number beside ours: the Fig. 4 geomean 1.12 and its source.
  EXPECT_NE(html.find("seed 000 sec. IV, Fig. 4 (geomean speedup)"), std::string::npos);
  EXPECT_NE(html.find("tlmgpu_papers --paper pro --size small --workloads hotspot"), std::string::npos);
  // No host-specific text: the scratch path must not leak into the page.
  EXPECT_EQ(html.find(dir_.path().string()), std::string::npos);
}

TEST_F(ReportScripts, PapersPageIsDeterministic) {
  const fs::path out = fixture("papers");
  ASSERT_EQ(script("papers_report.py", out.string()).code, 0);
  const auto first = page_bytes(out);
  fs::remove_all(out / "figures");
  ASSERT_EQ(script("papers_report.py", out.string()).code, 0);
  const auto second = page_bytes(out);
  ASSERT_EQ(first.size(), second.size());
  for (const auto& [name, bytes] : first) EXPECT_TRUE(second.at(name) == bytes) << name << " differs between runs";
}

TEST_F(ReportScripts, PapersFigureWithoutStatisticsBecomesANote) {
  const fs::path out = fixture("papers");
  fs::remove_all(out / "runs");
  const Result r = script("papers_report.py", out.string());
  ASSERT_EQ(r.code, 0) << r.err;
  const std::string html = read_text(out / "index.html");
  EXPECT_EQ(figures_on_page(html), (std::set<std::string>{"pro_speedup", "pro_stall_ratios", "spin_backoff_cycles"}));
  EXPECT_NE(html.find("PRO CTA timeline: no workload has the statistics files"), std::string::npos);
  EXPECT_NE(html.find("PRO stall classes: no workload has the statistics files"), std::string::npos);
}

TEST_F(ReportScripts, PapersDirectoryWithoutCsvIsExit2) {
  fs::create_directories(dir_.path() / "empty");
  Result r = script("papers_report.py", (dir_.path() / "empty").string());
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("pro.csv"), std::string::npos) << r.err;
  r = script("papers_report.py", (dir_.path() / "missing").string());
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("is not a directory"), std::string::npos) << r.err;
}

// docs/SCHEDULERS.md's tables: the CSV's numbers arranged per workload, with
// the aggregate, the paper's number and the agreement.
TEST_F(ReportScripts, PapersMarkdownTablesCarryTheCsvsNumbers) {
  const fs::path out = fixture("papers");
  const Result r = script("papers_markdown.py", out.string());
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("| hotspot | 1.022 | 1.024 | 1.006 |"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("| **geomean (1)** | **1.022** | **1.024** | **1.006** |"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("| paper | 1.12 | 1.13 | 1.02 |"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("| agrees | yes | yes | no |"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("| LRR | 1.078 (3.21, yes) |"), std::string::npos) << r.out;
  // Spin back-off: the best reduction with the back-off amount that gave it.
  EXPECT_NE(r.out.find("| global_increment | 0.000 (0) |"), std::string::npos) << r.out;
  // Only the papers with a CSV.
  EXPECT_EQ(r.out.find("**KAWS**"), std::string::npos);
  const Result none = script("papers_markdown.py", (dir_.path() / "nothing").string());
  EXPECT_EQ(none.code, 2);
  EXPECT_NE(none.err.find("no paper CSV"), std::string::npos) << none.err;
}

// The evidence table: every policy run on the paper's workload, found
// through the runs' meta keys (the baselines have no CSV row of their own),
// its stall classes as shares of scheduler-cycles and the SMs' busy share.
TEST_F(ReportScripts, PaperMechanismsTableHasEveryPolicysEvidence) {
  const fs::path out = fixture("papers");
  const Result r = script("paper_mechanisms.py", {out.string(), "--paper", "pro"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("**hotspot** (gtx480, 15 SMs): `hotspot_step` x 3: 20 CTAs"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("| lrr | 6998 | 20.0 | 48.6 | 31.3 | 0.0 |"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("| two_level | 7013 |"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("| pro | 6846 | 20.4 | 46.1 | 33.4 | 0.0 |  |  |  | 96.7 |"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("global_increment"), std::string::npos);  // --paper pro only
  // --differences: the aggregates against the paper's direction, and a
  // benchmark's own paper number (0.5) against ours (0) beyond a factor of two.
  const Result d = script("paper_mechanisms.py", {out.string(), "--differences"});
  ASSERT_EQ(d.code, 0) << d.err;
  EXPECT_NE(d.out.find("| geomean(1) | pro | speedup_over_gto | gto | 1.006 | 1.02 | direction |"), std::string::npos)
      << d.out;
  EXPECT_EQ(d.out.find("speedup_over_lrr"), std::string::npos) << d.out;  // agrees with the paper
  EXPECT_NE(d.out.find("| global_increment | spin_backoff:base=gto,detector=history,backoff=best | "
                       "best_cycle_reduction | gto | 0.000 | 0.5 | factor > 2 |"),
            std::string::npos)
      << d.out;
  EXPECT_EQ(script("paper_mechanisms.py", {out.string(), "--paper", "nonsense"}).code, 2);
  EXPECT_EQ(script("paper_mechanisms.py", (dir_.path() / "nothing").string()).code, 2);
}

TEST_F(ReportScripts, SweepPageHasEachFigureAndTheRunsOfEveryNumber) {
  const fs::path out = fixture("sweep");
  const Result r = script("sweep_report.py", (out / "report.json").string());
  ASSERT_EQ(r.code, 0) << r.err;
  const std::string html = read_text(out / "index.html");
  const std::set<std::string> expected = {"ipc_vs_scheduler", "cycles_vs_latency", "kmeans_cycles"};
  EXPECT_EQ(figures_on_page(html), expected);
  expect_figure_files(out, expected);
  EXPECT_NE(html.find("IPC relative to LRR"), std::string::npos);
  EXPECT_NE(html.find("tlmgpu run --workload kmeans --mode timing --size small --preset gtx480 --scheduler gto "
                      "--set l1d.hit_latency=20 --seed 1"),
            std::string::npos);
  EXPECT_NE(html.find("1234abcd5678ef00"), std::string::npos);
  // The failed run is reported, and its point is a gap, not a zero.
  EXPECT_NE(html.find("device fault: illegal address"), std::string::npos);
  EXPECT_NE(html.find("1 run(s) did not succeed"), std::string::npos);
}

TEST_F(ReportScripts, SweepBadReportIsExit2NamingTheKey) {
  const fs::path out = fixture("sweep");
  const fs::path report = out / "report.json";
  nlohmann::json good = nlohmann::json::parse(read_text(report));
  const auto write_and_run = [&](const nlohmann::json& j) {
    std::ofstream(report) << j.dump();
    return script("sweep_report.py", report.string());
  };
  nlohmann::json bad = good;
  bad["schema"] = "tlmgpu-sweep-report/99";
  Result r = write_and_run(bad);
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("report.schema"), std::string::npos) << r.err;
  bad = good;
  bad["figures"][1]["kind"] = "pie";
  r = write_and_run(bad);
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("figures[1].kind"), std::string::npos) << r.err;
  bad = good;
  bad["figures"][0].erase("points");
  r = write_and_run(bad);
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("figures[0]: no key 'points'"), std::string::npos) << r.err;
  bad = good;
  bad["figures"][0]["points"][0]["x"] = "no_such_workload";
  r = write_and_run(bad);
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("no_such_workload"), std::string::npos) << r.err;
  std::ofstream(report) << "{ not json";
  r = script("sweep_report.py", report.string());
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("is not JSON"), std::string::npos) << r.err;
}

// ------------------------------------------------------------ tlmgpu_papers

class ReportPapers : public ::testing::Test {
 protected:
  Result papers(const std::string& args) { return run(shell_quoted(TLMGPU_PAPERS) + " " + args, dir_.path()); }
  ScratchDir dir_{"tlmgpu_report_papers"};
};

TEST_F(ReportPapers, ComparisonWritesThePageAndFigures) {
  if (experiment::python_with_matplotlib().empty()) GTEST_SKIP() << "no Python 3 with matplotlib";
  const fs::path out = dir_.path() / "out";
  // hotspot is a workload of PRO, KAWS, LFWS and SWaS: four papers, one workload.
  const Result r = papers("--workloads hotspot --size small --jobs 2 --out " + shell_quoted(out.string()));
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("report: " + (out / "index.html").string()), std::string::npos) << r.out;
  const std::string html = read_text(out / "index.html");
  const std::set<std::string> expected = {"pro_speedup",        "pro_stall_ratios",    "pro_stall_classes",
                                          "pro_cta_timeline",   "kaws_speedup",        "kaws_last_cta",
                                          "lfws_normalized_ipc", "swas_error_rate",    "swas_ipc_ratio"};
  EXPECT_EQ(figures_on_page(html), expected);
  expect_figure_files(out, expected);
  EXPECT_EQ(html.find("class=\"note\""), std::string::npos) << "a figure was skipped on a full run";
  EXPECT_EQ(html.find("Spin detection"), std::string::npos);  // spin_backoff has no hotspot
}

TEST_F(ReportPapers, NoReportOptionAndMissingPythonLeaveTheExitCode) {
  const fs::path out = dir_.path() / "out";
  Result r = papers("--paper pro --workloads hotspot --no-report --jobs 2 --out " + shell_quoted(out.string()));
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(fs::exists(out / "pro.csv"));
  EXPECT_FALSE(fs::exists(out / "index.html"));
  EXPECT_FALSE(fs::exists(out / "figures"));
  r = run("env TLMGPU_PYTHON=/nonexistent/python3 " + shell_quoted(TLMGPU_PAPERS) +
              " --paper pro --workloads hotspot --jobs 2 --out " + shell_quoted(out.string()),
          dir_.path());
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.err.find("no report written"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(out / "index.html"));
}

// ------------------------------------------------------------ headless Chromium

// What the page's render check (report_common.RENDER_CHECK) recorded after
// the load event, from `chromium --dump-dom`; stderr keeps the console.
struct BrowserView {
  nlohmann::json check;  // {figures: [{src, naturalWidth, width, height}], errors: [...]}
  std::string console;   // the console lines Chromium logged
};

BrowserView open_in_chromium(const fs::path& page, const fs::path& scratch) {
  const fs::path profile = scratch / "chromium_profile";
  fs::create_directories(profile);
  const Result r = run(std::string(kChromium) +
                           " --headless --no-sandbox --disable-gpu --disable-quic --no-first-run"
                           " --disable-background-networking --disable-component-update --disable-sync"
                           " --user-data-dir=" + shell_quoted(profile.string()) +
                           " --enable-logging=stderr --v=0 --virtual-time-budget=10000 --dump-dom " + shell_quoted("file://" + page.string()),
                       scratch);
  BrowserView v;
  EXPECT_EQ(r.code, 0) << r.err;
  const std::regex pre(R"(<pre id="render-check"[^>]*>([^<]*)</pre>)");
  std::smatch m;
  if (std::regex_search(r.out, m, pre) && m[1].length() > 0) {
    std::string text = m[1];
    for (const auto& [entity, ch] : std::vector<std::pair<std::string, std::string>>{
             {"&quot;", "\""}, {"&lt;", "<"}, {"&gt;", ">"}, {"&amp;", "&"}})
      for (std::size_t at; (at = text.find(entity)) != std::string::npos;) text.replace(at, entity.size(), ch);
    v.check = nlohmann::json::parse(text, nullptr, false);
  }
  std::istringstream is(r.err);
  for (std::string line; std::getline(is, line);)
    if (line.find(":CONSOLE") != std::string::npos) v.console += line + "\n";
  return v;
}

class ReportBrowser : public ReportScripts {
 protected:
  void SetUp() override {
    ReportScripts::SetUp();
    if (IsSkipped()) return;
    if (access(kChromium, X_OK) != 0)
      GTEST_SKIP() << kChromium << " is missing (Debian: apt-get install chromium): the pages are not opened";
  }
  // Every figure of the page rendered with a non-zero size; no error, no console output.
  void expect_renders(const fs::path& out) {
    const std::set<std::string> names = figures_on_page(read_text(out / "index.html"));
    ASSERT_FALSE(names.empty());
    const BrowserView v = open_in_chromium(out / "index.html", dir_.path());
    ASSERT_TRUE(v.check.is_object()) << "the page's render check did not run (page did not load?)";
    ASSERT_EQ(v.check["figures"].size(), names.size());
    for (const auto& f : v.check["figures"]) {
      EXPECT_GT(f["naturalWidth"].get<double>(), 0) << f.dump();
      EXPECT_GT(f["width"].get<double>(), 0) << f.dump();
      EXPECT_GT(f["height"].get<double>(), 0) << f.dump();
    }
    EXPECT_TRUE(v.check["errors"].empty()) << v.check["errors"].dump();
    EXPECT_EQ(v.console, "");
  }
};

TEST_F(ReportBrowser, PapersPageRendersInChromium) {
  const fs::path out = fixture("papers");
  ASSERT_EQ(script("papers_report.py", out.string()).code, 0);
  expect_renders(out);
}

TEST_F(ReportBrowser, SweepPageRendersInChromium) {
  const fs::path out = fixture("sweep");
  ASSERT_EQ(script("sweep_report.py", (out / "report.json").string()).code, 0);
  expect_renders(out);
}

// The check itself: a page whose figure file is gone must not pass.
TEST_F(ReportBrowser, MissingFigureIsCaught) {
  const fs::path out = fixture("papers");
  ASSERT_EQ(script("papers_report.py", out.string()).code, 0);
  fs::remove(out / "figures" / "pro_speedup.svg");
  const BrowserView v = open_in_chromium(out / "index.html", dir_.path());
  ASSERT_TRUE(v.check.is_object());
  bool caught = false;
  for (const auto& f : v.check["figures"])
    if (f["src"] == "figures/pro_speedup.svg") caught = f["naturalWidth"].get<double>() == 0;
  EXPECT_TRUE(caught) << v.check.dump();
  EXPECT_FALSE(v.check["errors"].empty()) << v.check.dump();
}

}  // namespace
