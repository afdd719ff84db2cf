// tlmgpu_sweep SPEC: runs the grid a user describes in an INI file (workloads,
// launch files or CUDA programs x schedulers x presets x --set values x
// seeds), writes one
// CSV row per run and report.json, and draws the figures the spec names.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "tools/experiment/child_process.h"
#include "tools/experiment/python_report.h"
#include "tools/paper_comparison/paper_comparison.h"
#include "tools/sweep/sweep_grid.h"
#include "tools/sweep/sweep_report.h"
#include "tools/sweep/sweep_spec.h"
#include "tools/sweep/sweep_table.h"
#include "tools/sweep/sweep_validate.h"

namespace {

namespace fs = std::filesystem;

constexpr const char* kUsage =
    "usage: tlmgpu_sweep SPEC [options]\n"
    "\n"
    "Runs the grid of tlmgpu runs that the INI file SPEC describes (workloads,\n"
    "launch files or CUDA programs x schedulers x presets x [set] values x seeds;\n"
    "format: docs/EXPERIMENTS.md, \"Sweeps of your own\") as child 'tlmgpu run\n"
    "--mode timing' processes ('tlmgpu exec --mode timing -- PROGRAM ARGS' for a\n"
    "program), and writes OUT/sweep.csv (one row per run), OUT/report.json and,\n"
    "from it, OUT/index.html with the spec's figures.\n"
    "\n"
    "options:\n"
    "  --out DIR           where the CSV, report, stats and logs go (default: sweep_out)\n"
    "  --no-report         write the CSV and report.json but not the HTML page\n";
constexpr const char* kUsageTail =
    "  -h, --help          this text\n"
    "\n"
    "--dry-run checks the spec and prints the runs' command lines in grid order.\n"
    "Progress, resume (--force) and the Slurm launcher work as for tlmgpu_papers\n"
    "(docs/EXPERIMENTS.md).\n"
    "\n"
    "Exit codes: 0 every run succeeded; 1 a run failed; 2 bad usage or a bad spec\n"
    "(the message names the file, the line and the key).\n";

using experiment::UsageError;

void print_usage(std::ostream& out) { out << kUsage << experiment::kPoolOptionsHelp << kUsageTail; }

struct Options {
  std::string spec;
  std::string out = "sweep_out";
  bool report = true;
  experiment::PoolOptions pool;
};

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
    } else if (a == "--out") {
      o.out = value(i, a);
    } else if (a == "--no-report") {
      o.report = false;
    } else if (experiment::take_pool_option(argc, argv, i, o.pool)) {
      continue;
    } else if (!a.empty() && a[0] == '-') {
      throw UsageError("unknown option '" + a + "'");
    } else if (o.spec.empty()) {
      o.spec = a;
    } else {
      throw UsageError("one spec file only ('" + o.spec + "' and '" + a + "')");
    }
  }
  if (o.spec.empty()) throw UsageError("no spec file given");
  if (o.out.empty()) throw UsageError("--out needs a directory");
  experiment::finish_pool_options(o.pool, argv[0]);
  std::error_code ec;
  if (!fs::is_regular_file(o.pool.tlmgpu, ec))
    throw UsageError("--tlmgpu '" + o.pool.tlmgpu + "': no such program");
  return o;
}

void write_file(const fs::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
  if (!out) throw std::runtime_error("cannot write " + path.string());
}

int run_sweep(const Options& opt) {
  const sweep::SweepSpec spec = sweep::parse_spec(opt.spec);
  sweep::check_against_tlmgpu(spec, opt.pool.tlmgpu);
  const std::vector<sweep::Dimension> dims = sweep::dimensions(spec);
  const std::vector<sweep::GridRun> grid = sweep::expand_grid(spec, dims, opt.out);

  std::vector<paper_cmp::RunSpec> specs;
  for (const sweep::GridRun& g : grid) specs.push_back(g.spec);
  if (opt.pool.dry_run) {
    for (const paper_cmp::RunSpec& s : specs) std::cout << paper_cmp::command_line(s, spec.size, opt.pool.tlmgpu) << '\n';
    std::cerr << "tlmgpu_sweep: " << grid.size() << " run(s)\n";
    return 0;
  }
  // Not in a dry run: listing the commands needs no `tlmgpu exec`.
  sweep::check_exec(spec, opt.pool.tlmgpu);

  const paper_cmp::RunnerOptions ropt = paper_cmp::runner_options(opt.pool, spec.size, opt.out);
  std::map<std::string, paper_cmp::RunResult> results;
  paper_cmp::run_all(specs, ropt, results);

  std::vector<const paper_cmp::RunResult*> ordered;
  bool all_ok = true;
  for (const paper_cmp::RunSpec& s : specs) {
    paper_cmp::RunResult& r = results.at(s.key(spec.size));
    all_ok = all_ok && r.status == paper_cmp::RunStatus::Ok;
    ordered.push_back(&r);
  }

  const sweep::SweepTable table = sweep::collect_table(dims, ordered);
  const fs::path out(opt.out);
  write_file(out / "sweep.csv", sweep::csv_text(dims, grid, ordered, table));
  std::cout << "tlmgpu_sweep: " << grid.size() << " run(s), " << (out / "sweep.csv").string() << '\n';
  // A figure naming a column no run produced is a spec mistake found only
  // now; the CSV is written first so the runs are not lost.
  write_file(out / "report.json", sweep::report_json(spec, dims, grid, ordered, table).dump(2) + "\n");
  if (opt.report) {
    // The page is an addition to the CSV: without Python or the script the
    // sweep still succeeded.
    const int rc = experiment::run_report_script("sweep_report.py", {(out / "report.json").string()}, std::cerr);
    if (rc == 0)
      std::cout << "tlmgpu_sweep: report " << (out / "index.html").string() << '\n';
    else
      std::cerr << "tlmgpu_sweep: no HTML report (the report script exited " << rc << "); the CSV and "
                << (out / "report.json").string() << " are complete\n";
  }
  if (!all_ok) std::cerr << "tlmgpu_sweep: some runs did not succeed (see the status and note columns)\n";
  return all_ok ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  Options opt;
  try {
    opt = parse(argc, argv);
  } catch (const UsageError& e) {
    std::cerr << "tlmgpu_sweep: " << e.what() << "\n\n";
    print_usage(std::cerr);
    return 2;
  }
  try {
    return run_sweep(opt);
  } catch (const sweep::SpecError& e) {
    std::cerr << "tlmgpu_sweep: " << e.what() << '\n';
    return 2;
  } catch (const experiment::LauncherError& e) {
    std::cerr << "tlmgpu_sweep: " << e.what() << '\n';
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "tlmgpu_sweep: " << e.what() << '\n';
    return 1;
  }
}
