// tlmgpu_papers: each seed paper's comparison on our workloads, as CSV files
// beside the paper's headline numbers, and a summary of the directions.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "tools/experiment/child_process.h"
#include "tools/experiment/python_report.h"
#include "tools/paper_comparison/paper_comparison.h"
#include "tools/paper_comparison/papers.h"

namespace {

namespace fs = std::filesystem;
using namespace paper_cmp;

constexpr const char* kUsage =
    "usage: tlmgpu_papers [options]\n"
    "\n"
    "Runs each seed paper's scheduler comparison on our workloads (one child\n"
    "'tlmgpu run --mode timing ... --stats FILE' per simulation) and writes one\n"
    "CSV per paper into --out, our numbers beside the paper's headline numbers.\n"
    "\n"
    "options:\n"
    "  --paper NAME        pro, spin_backoff, kaws, lfws, swas or all (default: all)\n"
    "  --size SIZE         small, default or paper (default: small)\n"
    "  --preset NAME       run every paper on this GPU preset instead of its own (e.g. qv100)\n"
    "  --workloads A,B     only these of each paper's workloads\n"
    "  --out DIR           where the CSVs, stats and logs go (default: paper_comparison)\n"
    "  --no-report         write no figures and no index.html (scripts/report/papers_report.py)\n";
constexpr const char* kUsageTail =
    "  -h, --help          this text\n"
    "\n"
    "Progress goes to stderr: on a terminal one line with runs done / total,\n"
    "failures, elapsed and estimated time left; otherwise one line per run.\n"
    "Each run's statistics, log, configuration (--dump-config) and a meta file\n"
    "(command, configuration hash, status) go into DIR/runs; running again with\n"
    "the same --out reuses runs whose command and configuration are unchanged.\n"
    "The CSVs end with each row's command and configuration hash.\n"
    "\n"
    "Rows whose run exits 2 naming an unknown option or parameter (a feature not\n"
    "built yet) are marked 'unsupported'. Exit codes: 0 every run finished or is\n"
    "unsupported; 1 a run failed (device fault, failed verification, bad input)\n"
    "or was interrupted; 2 bad usage, or the launcher cannot run (sbatch missing\n"
    "or rejecting the job). docs/EXPERIMENTS.md has the details.\n";

using experiment::UsageError;

void print_usage(std::ostream& out) { out << kUsage << experiment::kPoolOptionsHelp << kUsageTail; }

struct Options {
  std::string paper = "all";
  std::string size = "small";
  std::string preset;  // "": each paper's own preset for the size
  std::vector<std::string> workloads;
  std::string out = "paper_comparison";
  bool report = true;  // figures + index.html, drawn by scripts/report/papers_report.py
  experiment::PoolOptions pool;
};

std::vector<std::string> split_commas(const std::string& s) {
  std::vector<std::string> v;
  std::stringstream ss(s);
  for (std::string item; std::getline(ss, item, ',');)
    if (!item.empty()) v.push_back(item);
  return v;
}

Options parse(int argc, char** argv) {
  Options o;
  auto value = [&](int& i, const std::string& name) -> std::string {
    if (i + 1 >= argc) throw UsageError(name + " needs a value");
    return argv[++i];
  };
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "-h" || a == "--help") {
      print_usage(std::cout);
      std::exit(0);
    } else if (a == "--paper") {
      o.paper = value(i, a);
    } else if (a == "--size") {
      o.size = value(i, a);
    } else if (a == "--preset") {
      o.preset = value(i, a);
    } else if (a == "--workloads") {
      o.workloads = split_commas(value(i, a));
    } else if (a == "--out") {
      o.out = value(i, a);
    } else if (a == "--no-report") {
      o.report = false;
    } else if (!experiment::take_pool_option(argc, argv, i, o.pool)) {
      throw UsageError("unknown option '" + a + "'");
    }
  }
  experiment::finish_pool_options(o.pool, argv[0]);
  if (o.size != "small" && o.size != "default" && o.size != "paper")
    throw UsageError("--size '" + o.size + "': expected small, default or paper");
  std::set<std::string> names = {"all"};
  for (const Paper& p : papers()) names.insert(p.name);
  if (!names.count(o.paper)) {
    std::string known;
    for (const std::string& n : names) known += (known.empty() ? "" : ", ") + n;
    throw UsageError("unknown paper '" + o.paper + "' (known: " + known + ")");
  }
  return o;
}

std::vector<std::string> selected_workloads(const Paper& p, const Options& o) {
  const std::vector<std::string>& all = p.workloads_for(o.size);
  if (o.workloads.empty()) return all;
  std::vector<std::string> v;
  for (const std::string& w : all)
    if (std::find(o.workloads.begin(), o.workloads.end(), w) != o.workloads.end()) v.push_back(w);
  return v;
}

/// The preset a paper's runs use: --preset, else the paper's own for the size.
std::string preset_of(const Paper& p, const Options& o) { return o.preset.empty() ? p.preset_for(o.size) : o.preset; }

void print_summary(const Paper& p, const std::vector<std::string>& workloads, const std::string& size,
                   const std::string& preset, const std::vector<Row>& rows) {
  std::cout << "\n== " << p.name << ": " << p.title << " -- preset " << preset << ", size " << size << ", "
            << workloads.size() << " workload(s)\n";
  int yes = 0, no = 0, na = 0;
  for (const Row& r : rows) {
    if (!r.aggregate) continue;
    const bool has_paper = r.paper_value.known();
    if (!has_paper) continue;  // rows the paper says nothing about stay in the CSV only
    const std::string subject = r.scheduler + (r.options.empty() ? "" : " " + r.options);
    char line[1024];
    std::snprintf(line, sizeof line, "  %-16s %-30s %-45s %-28s ours %-10s paper %-12s %s%s\n",
                  r.workload.c_str(), r.metric.c_str(), subject.c_str(),
                  (r.baseline.empty() ? "" : "vs " + r.baseline).c_str(), format_number(r.ours).c_str(),
                  (std::isnan(r.paper_value.value) ? r.paper_value.text : format_number(r.paper_value.value)).c_str(),
                  r.agrees_text == "n/a" ? "n/a" : (r.agrees_text == "yes" ? "agrees" : "DISAGREES"),
                  r.status == "ok" ? "" : (" (" + r.status + ")").c_str());
    std::cout << line;
    if (r.agrees_text == "yes")
      ++yes;
    else if (r.agrees_text == "no")
      ++no;
    else
      ++na;
  }
  std::cout << "  direction: " << yes << " agree, " << no << " disagree, " << na
            << " not comparable (unsupported or no statistic)\n";
}

}  // namespace

int main(int argc, char** argv) {
  Options opt;
  try {
    opt = parse(argc, argv);
  } catch (const UsageError& e) {
    std::cerr << "tlmgpu_papers: " << e.what() << "\n\n";
    print_usage(std::cerr);
    return 2;
  }

  struct Selected {
    const Paper* paper;
    std::vector<std::string> workloads;
  };
  std::vector<Selected> chosen;
  std::vector<RunSpec> specs;
  for (const Paper& p : papers()) {
    if (opt.paper != "all" && opt.paper != p.name) continue;
    std::vector<std::string> w = selected_workloads(p, opt);
    if (w.empty()) {
      if (opt.paper != "all") {
        std::string known;
        for (const std::string& n : p.workloads_for(opt.size)) known += (known.empty() ? "" : ",") + n;
        std::cerr << "tlmgpu_papers: none of --workloads is one of " << p.name << "'s workloads (" << known << ")\n";
        return 2;
      }
      continue;
    }
    const std::vector<RunSpec> s = p.plan(w, preset_of(p, opt));
    specs.insert(specs.end(), s.begin(), s.end());
    chosen.push_back({&p, w});
  }
  if (chosen.empty()) {
    std::cerr << "tlmgpu_papers: no paper uses the workloads given by --workloads\n";
    return 2;
  }

  if (opt.pool.dry_run) {
    std::set<std::string> seen;
    for (const RunSpec& s : specs) {
      if (!seen.insert(s.key(opt.size)).second) continue;
      std::cout << opt.pool.tlmgpu;
      for (const std::string& a : run_arguments(s, opt.size, "STATS.json")) std::cout << ' ' << a;
      std::cout << '\n';
    }
    return 0;
  }
  if (!fs::exists(opt.pool.tlmgpu)) {
    std::cerr << "tlmgpu_papers: no tlmgpu binary at '" << opt.pool.tlmgpu << "' (use --tlmgpu PATH)\n";
    return 2;
  }

  if (!opt.preset.empty()) {
    // An unknown preset is bad input, named once, before any run.
    const experiment::CapturedRun check =
        experiment::run_and_capture({opt.pool.tlmgpu, "run", "--preset", opt.preset, "--dump-config"});
    if (check.exit_code != 0) {
      std::cerr << "tlmgpu_papers: --preset " << opt.preset << ": " << check.err;
      return 2;
    }
  }

  std::map<std::string, RunResult> results;
  try {
    fs::create_directories(opt.out);
    const RunnerOptions runner = runner_options(opt.pool, opt.size, opt.out);
    run_all(specs, runner, results);
  } catch (const experiment::LauncherError& e) {
    std::cerr << "tlmgpu_papers: " << e.what() << '\n';
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "tlmgpu_papers: " << e.what() << '\n';
    return 1;
  }

  for (const Selected& s : chosen) {
    const std::vector<Row> rows = s.paper->compare({opt.size, preset_of(*s.paper, opt), s.workloads, &results});
    const fs::path csv = fs::path(opt.out) / (s.paper->name + ".csv");
    std::ofstream out(csv);
    out << csv_header() << '\n';
    for (const Row& r : rows) out << csv_line(r) << '\n';
    if (!out) {
      std::cerr << "tlmgpu_papers: cannot write " << csv.string() << '\n';
      return 1;
    }
    print_summary(*s.paper, s.workloads, opt.size, preset_of(*s.paper, opt), rows);
    std::cout << "  csv: " << csv.string() << '\n';
  }

  // The page is a view of the CSVs: without Python/matplotlib the CSVs stand
  // alone, so a missing report never changes the exit code.
  if (opt.report) {
    if (experiment::run_report_script("papers_report.py", {opt.out}, std::cerr) == 0)
      std::cout << "\nreport: " << (fs::path(opt.out) / "index.html").string() << '\n';
    else
      std::cerr << "tlmgpu_papers: no report written (the CSVs are complete)\n";
  }

  int failed = 0;
  for (const auto& [key, r] : results)
    if (r.status == RunStatus::Failed || r.status == RunStatus::BadInput) {
      ++failed;
      std::cerr << "tlmgpu_papers: run " << status_name(r.status) << ": " << key << " (" << r.note << "; log "
                << r.log_path << ")\n  command: " << r.command << '\n';
    }
  return failed ? 1 : 0;
}
