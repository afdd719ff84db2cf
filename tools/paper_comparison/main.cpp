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
#include "tools/experiment/python_report.h"

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
    "  --jobs N            simulations at a time (default: number of cores)\n"
    "  --out DIR           where the CSVs, stats and logs go (default: paper_comparison)\n"
    "  --tlmgpu PATH       the tlmgpu binary (default: tlmgpu next to this program)\n"
    "  --dry-run           print the tlmgpu command lines and exit\n"
    "  --no-report         write no figures and no index.html (scripts/report/papers_report.py)\n"
    "  --verbose           print each command line as it starts\n"
    "  -h, --help          this text\n"
    "\n"
    "Rows whose run exits 2 naming an unknown option or parameter (a feature not\n"
    "built yet) are marked 'unsupported'. Exit codes: 0 every run finished or is\n"
    "unsupported; 1 a run failed (device fault, failed verification, bad input);\n"
    "2 bad usage.\n";

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
  bool dry_run = false, verbose = false;
  bool report = true;  // figures + index.html, drawn by scripts/report/papers_report.py
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
      } catch (const std::exception&) {
        throw UsageError("--jobs '" + v + "': expected a number 1..1024");
      }
    } else if (a == "--out") {
      o.out = value(i, a);
    } else if (a == "--tlmgpu") {
      o.tlmgpu = value(i, a);
    } else if (a == "--dry-run") {
      o.dry_run = true;
    } else if (a == "--verbose") {
      o.verbose = true;
    } else if (a == "--no-report") {
      o.report = false;
    } else {
      throw UsageError("unknown option '" + a + "'");
    }
  }
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
    run_all(specs, {opt.tlmgpu, opt.size, opt.out, opt.jobs, opt.verbose}, results);
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
                << r.log_path << ")\n";
    }
  return failed ? 1 : 0;
}
