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
    "  --size SIZE         small or default (default: small)\n"
    "  --workloads A,B     only these of each paper's workloads\n"
    "  --jobs N            simulations at a time (default: number of cores; with\n"
    "                      --launcher slurm: array elements at a time, default no limit)\n"
    "  --out DIR           where the CSVs, stats and logs go (default: paper_comparison)\n"
    "  --force             rerun every run, also those an earlier invocation with\n"
    "                      this --out finished (default: resume, reusing them)\n"
    "  --launcher L        local (default) or slurm: one sbatch job array, waited for\n"
    "  --slurm-partition P sbatch --partition (default: the cluster's default)\n"
    "  --slurm-time T      sbatch --time per run, e.g. 30:00 or 2:00:00\n"
    "  --slurm-mem M       sbatch --mem per run, e.g. 2G\n"
    "  --slurm-account A   sbatch --account\n"
    "  --tlmgpu PATH       the tlmgpu binary (default: tlmgpu next to this program)\n"
    "  --dry-run           print the tlmgpu command lines and exit\n"
    "  --verbose           print each command line as it starts\n"
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

struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct Options {
  std::string paper = "all";
  std::string size = "small";
  std::vector<std::string> workloads;
  unsigned jobs = 0;
  std::string out = "paper_comparison";
  std::string tlmgpu;
  bool dry_run = false, verbose = false, force = false;
  bool jobs_given = false;
  std::string launcher = "local";
  experiment::SlurmOptions slurm;
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
  auto nonempty_value = [&](int& i, const std::string& name) -> std::string {
    std::string v = value(i, name);
    if (v.empty()) throw UsageError(name + " needs a non-empty value");
    return v;
  };
  std::string slurm_option;  // the last --slurm-* option given
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "-h" || a == "--help") {
      std::cout << kUsage;
      std::exit(0);
    } else if (a == "--paper") {
      o.paper = value(i, a);
    } else if (a == "--size") {
      o.size = value(i, a);
    } else if (a == "--workloads") {
      o.workloads = split_commas(value(i, a));
    } else if (a == "--jobs") {
      const std::string v = value(i, a);
      try {
        std::size_t used = 0;
        const long n = std::stol(v, &used);
        if (used != v.size() || n < 1 || n > 1024) throw std::invalid_argument(v);
        o.jobs = static_cast<unsigned>(n);
        o.jobs_given = true;
      } catch (const std::exception&) {
        throw UsageError("--jobs '" + v + "': expected a number 1..1024");
      }
    } else if (a == "--out") {
      o.out = value(i, a);
    } else if (a == "--tlmgpu") {
      o.tlmgpu = value(i, a);
    } else if (a == "--force") {
      o.force = true;
    } else if (a == "--launcher") {
      o.launcher = value(i, a);
      if (o.launcher != "local" && o.launcher != "slurm")
        throw UsageError("--launcher '" + o.launcher + "': expected local or slurm");
    } else if (a == "--slurm-partition") {
      o.slurm.partition = nonempty_value(i, a);
      slurm_option = a;
    } else if (a == "--slurm-time") {
      o.slurm.time = nonempty_value(i, a);
      slurm_option = a;
    } else if (a == "--slurm-mem") {
      o.slurm.mem = nonempty_value(i, a);
      slurm_option = a;
    } else if (a == "--slurm-account") {
      o.slurm.account = nonempty_value(i, a);
      slurm_option = a;
    } else if (a == "--dry-run") {
      o.dry_run = true;
    } else if (a == "--verbose") {
      o.verbose = true;
    } else {
      throw UsageError("unknown option '" + a + "'");
    }
  }
  if (!slurm_option.empty() && o.launcher != "slurm") throw UsageError(slurm_option + " needs --launcher slurm");
  if (o.launcher == "slurm" && o.jobs_given) o.slurm.array_limit = o.jobs;
  if (o.size != "small" && o.size != "default") throw UsageError("--size '" + o.size + "': expected small or default");
  std::set<std::string> names = {"all"};
  for (const Paper& p : papers()) names.insert(p.name);
  if (!names.count(o.paper)) {
    std::string known;
    for (const std::string& n : names) known += (known.empty() ? "" : ", ") + n;
    throw UsageError("unknown paper '" + o.paper + "' (known: " + known + ")");
  }
  if (o.jobs == 0) o.jobs = std::max(1u, std::thread::hardware_concurrency());
  if (o.tlmgpu.empty()) {
    // The build puts both programs in one directory.
    std::error_code ec;
    const fs::path self = fs::read_symlink("/proc/self/exe", ec);
    o.tlmgpu = ((ec ? fs::path(argv[0]) : self).parent_path() / "tlmgpu").string();
  }
  return o;
}

std::vector<std::string> selected_workloads(const Paper& p, const Options& o) {
  if (o.workloads.empty()) return p.workloads;
  std::vector<std::string> v;
  for (const std::string& w : p.workloads)
    if (std::find(o.workloads.begin(), o.workloads.end(), w) != o.workloads.end()) v.push_back(w);
  return v;
}

void print_summary(const Paper& p, const std::vector<std::string>& workloads, const std::string& size,
                   const std::vector<Row>& rows) {
  std::cout << "\n== " << p.name << ": " << p.title << " -- preset " << p.preset << ", size " << size << ", "
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
    std::cerr << "tlmgpu_papers: " << e.what() << "\n\n" << kUsage;
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
        for (const std::string& n : p.workloads) known += (known.empty() ? "" : ",") + n;
        std::cerr << "tlmgpu_papers: none of --workloads is one of " << p.name << "'s workloads (" << known << ")\n";
        return 2;
      }
      continue;
    }
    const std::vector<RunSpec> s = p.plan(w);
    specs.insert(specs.end(), s.begin(), s.end());
    chosen.push_back({&p, w});
  }
  if (chosen.empty()) {
    std::cerr << "tlmgpu_papers: no paper uses the workloads given by --workloads\n";
    return 2;
  }

  if (opt.dry_run) {
    std::set<std::string> seen;
    for (const RunSpec& s : specs) {
      if (!seen.insert(s.key(opt.size)).second) continue;
      std::cout << opt.tlmgpu;
      for (const std::string& a : run_arguments(s, opt.size, "STATS.json")) std::cout << ' ' << a;
      std::cout << '\n';
    }
    return 0;
  }
  if (!fs::exists(opt.tlmgpu)) {
    std::cerr << "tlmgpu_papers: no tlmgpu binary at '" << opt.tlmgpu << "' (use --tlmgpu PATH)\n";
    return 2;
  }

  std::map<std::string, RunResult> results;
  try {
    fs::create_directories(opt.out);
    RunnerOptions runner{opt.tlmgpu, opt.size, opt.out, opt.jobs, opt.verbose};
    runner.force = opt.force;
    runner.launcher = opt.launcher;
    runner.slurm = opt.slurm;
    run_all(specs, runner, results);
  } catch (const experiment::LauncherError& e) {
    std::cerr << "tlmgpu_papers: " << e.what() << '\n';
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "tlmgpu_papers: " << e.what() << '\n';
    return 1;
  }

  for (const Selected& s : chosen) {
    const std::vector<Row> rows = s.paper->compare({opt.size, s.workloads, &results});
    const fs::path csv = fs::path(opt.out) / (s.paper->name + ".csv");
    std::ofstream out(csv);
    out << csv_header() << '\n';
    for (const Row& r : rows) out << csv_line(r) << '\n';
    if (!out) {
      std::cerr << "tlmgpu_papers: cannot write " << csv.string() << '\n';
      return 1;
    }
    print_summary(*s.paper, s.workloads, opt.size, rows);
    std::cout << "  csv: " << csv.string() << '\n';
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
