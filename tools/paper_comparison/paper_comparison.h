// tlmgpu_papers: runs each seed paper's comparison as child `tlmgpu run`
// processes and writes our numbers beside the paper's headline numbers.
// This header holds the pieces every paper shares: a run, its result, the
// tolerant statistic lookup, the direction check, CSV rows and the runner.
#pragma once

#include <cmath>
#include <cstddef>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "tools/experiment/pool_options.h"
#include "tools/experiment/slurm_launcher.h"

namespace paper_cmp {

using Json = nlohmann::json;

inline constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// One `tlmgpu run --mode timing` invocation. `extra` holds options beyond the
// scheduler (e.g. the fetch policy), so that features still being built are one
// table line each.
struct RunSpec {
  RunSpec() = default;
  RunSpec(std::string w, std::string p, std::string s, std::vector<std::string> e = {}, std::string fallback = {})
      : workload(std::move(w)), preset(std::move(p)), scheduler(std::move(s)), extra(std::move(e)),
        fallback_scheduler(std::move(fallback)) {}

  std::string workload;
  std::string preset;
  std::string scheduler;
  std::vector<std::string> extra;
  // Run instead when `scheduler` is unsupported (exit 2) by this tlmgpu: what
  // the spec means on a build without the new parameter (e.g. kaws:base=gto
  // for kaws:base=gto,sharing=off before warp sharing existed).
  std::string fallback_scheduler;
  // A launch file (docs/LAUNCH_FILE.md): when set, the run is `--launch FILE`
  // instead of `--workload W --size S`.
  std::string launch;
  // A CUDA program, its path then its arguments: when set, the run is
  // `tlmgpu exec ... -- PROGRAM ARGS` in the directory `cwd` (empty: the
  // runner's own) rather than `tlmgpu run`.
  std::vector<std::string> program;
  std::string cwd;

  // Unique text: two papers asking for the same run share one simulation.
  std::string key(const std::string& size) const;
  std::string options_text() const;  // `extra` joined by spaces
};

enum class RunStatus {
  NotRun,
  Ok,
  Unsupported,  // exit 2 naming an unknown option / parameter / policy: a feature not built yet
  BadInput,     // any other exit 2: our table is wrong
  Failed,       // exit 1 (device fault, failed verification) or a crash
};
const char* status_name(RunStatus s);

struct RunResult {
  RunStatus status = RunStatus::NotRun;
  int exit_code = -1;
  std::string note;  // first diagnostic line of a run that did not succeed
  std::string stats_path, log_path;
  std::string ran_as;  // the fallback scheduler and why, when it was used
  Json stats;
  // What reproduces this result: the `tlmgpu run` command (binary name and
  // arguments, shell-quoted, without --stats) and the FNV-1a hash of the
  // configuration it simulates (its --dump-config output).
  std::string command, config_hash;
  bool reused = false;  // taken from an earlier invocation's --out (resume)
};

// ------------------------------------------------------------ statistics

// Statistic keys are looked up by name rather than by full path: a key
// matches when its last dotted component, lower-cased with '_' and '-'
// removed, equals (or with `prefix`, starts with) one of `names` normalised
// the same way. `path_contains` restricts the full key (e.g. "sched").
// Both flat keys ("gpu.sm0.sched1.idle") and nested objects are searched.
struct StatQuery {
  std::vector<std::string> names;
  bool prefix = false;
  std::string path_contains;
};

struct StatValues {
  double sum = 0.0;
  std::size_t count = 0;
  double mean() const { return count ? sum / static_cast<double>(count) : kNaN; }
};

StatValues find_stats(const Json& stats, const StatQuery& q);
std::optional<double> stat_sum(const Json& stats, const StatQuery& q);
std::optional<double> top_level_number(const Json& stats, const std::string& key);
// Mean over launches of launches[].last_cta_execution_time; else the summed
// module statistic of that name divided by its count.
std::optional<double> last_cta_time(const Json& stats);

// ------------------------------------------------------------ directions

// What the paper says about a metric. A metric has a neutral point (1 for a
// ratio, 0 for a reduction or an error rate); the direction of a value is
// +1 above neutral + tol, -1 below neutral - tol, else 0.
enum class Expect {
  FromValue,  // the direction of `value`
  Above,      // better / larger than neutral
  Below,
  Near,       // within tol of neutral
  NotAbove,   // "no improvement" (below or near)
  Positive,   // strictly > 0 (error rates)
  Zero,       // exactly 0
};

struct Headline {
  double value = kNaN;     // the paper's number, when it gives one
  std::string text;        // how it reads when there is no single number ("0.10..81.12")
  Expect expect = Expect::FromValue;
  std::string source;      // where in the paper
  double tol = 0.01;       // band around neutral counted as "no change"
  bool known() const { return !std::isnan(value) || !text.empty(); }
};

int direction(double v, double neutral, double tol);
// "yes" / "no", or "n/a" when either side is missing.
std::string agrees(std::optional<double> ours, const Headline& h, double neutral);

// ------------------------------------------------------------ rows

struct Row {
  std::string paper, workload, size, preset, scheduler, options;
  std::string status = "ok";  // ok / unsupported / failed / bad_input / no_statistic
  std::optional<double> sim_cycles, ipc;
  std::string metric;
  std::string baseline;  // the run the metric compares against (scheduler + options)
  std::optional<double> base_sim_cycles;
  std::optional<double> ours;
  Headline paper_value;
  double neutral = 1.0;
  std::string agrees_text = "n/a";
  std::string details;    // relevant statistics, key=value;...
  bool aggregate = false;  // a geomean / mean / best over workloads: the summary's rows
  // The row's own run (RunResult::command / config_hash); empty for aggregates.
  std::string command, config_hash;
};

// The header line and one line per row. Numbers use %.6g; fields with a comma
// or a quote are quoted.
std::string csv_header();
std::string csv_line(const Row& r);
std::string format_number(std::optional<double> v);

// ------------------------------------------------------------ running

struct RunnerOptions {
  // Keeps `RunnerOptions{tlmgpu, size, out, jobs, verbose}` working (and
  // warning-free) now that the launcher fields follow.
  RunnerOptions(std::string tlmgpu_path = {}, std::string run_size = {}, std::string out = {}, unsigned n_jobs = 1,
                bool verbose_lines = false)
      : tlmgpu(std::move(tlmgpu_path)), size(std::move(run_size)), out_dir(std::move(out)), jobs(n_jobs),
        verbose(verbose_lines) {}

  std::string tlmgpu;   // path of the tlmgpu binary
  std::string size;     // small | default
  std::string out_dir;  // stats and logs go into OUT/runs
  unsigned jobs = 1;
  unsigned threads = 1;  // host threads per run (tlmgpu --threads): not part of a run's identity
  bool verbose = false;
  bool force = false;              // rerun runs an earlier invocation finished (no resume)
  std::string launcher = "local";  // local | slurm
  experiment::SlurmOptions slurm;  // with launcher "slurm"
};

// The runner's options from the pool's command-line options.
RunnerOptions runner_options(const experiment::PoolOptions& pool, const std::string& size, const std::string& out);

// Runs every spec not yet in `results` and stores its result under
// spec.key(size): on this machine (at most `jobs` at a time) or as one Slurm
// job array, resuming from OUT/runs unless `force` (tools/experiment/run_pool.h).
// Progress goes to stderr. Throws experiment::LauncherError when the launcher
// cannot run at all (exit 2 in the programs), std::runtime_error otherwise.
void run_all(const std::vector<RunSpec>& specs, const RunnerOptions& opt,
             std::map<std::string, RunResult>& results);

// The argument vector `tlmgpu run ...` or `tlmgpu exec ... -- PROGRAM ARGS`
// for a spec (without the binary); without --stats when `stats_path` is empty.
std::vector<std::string> run_arguments(const RunSpec& spec, const std::string& size,
                                       const std::string& stats_path);

// The `tlmgpu run` arguments whose --dump-config prints the configuration the
// spec simulates: run_arguments without --stats, and for a program the same
// options as a `tlmgpu run` of no workload (exec does not dump configurations).
std::vector<std::string> config_arguments(const RunSpec& spec, const std::string& size);

// What reproduces a run in a shell, without --stats: `BINARY run ...`, and for
// a program `cd CWD && BINARY exec ... -- PROGRAM ARGS`.
std::string command_line(const RunSpec& spec, const std::string& size, const std::string& binary);

}  // namespace paper_cmp
