#include "tools/paper_comparison/paper_comparison.h"

#include "tools/experiment/child_process.h"
#include "tools/experiment/run_pool.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <stdexcept>

namespace paper_cmp {

namespace fs = std::filesystem;

std::string RunSpec::options_text() const {
  std::string s;
  for (const std::string& a : extra) s += (s.empty() ? "" : " ") + a;
  return s;
}

std::string RunSpec::key(const std::string& size) const {
  return preset + "|" + workload + "|" + size + "|" + scheduler + "|" + options_text() +
         (launch.empty() ? "" : "|launch=" + launch) +
         (program.empty() ? "" : "|program=" + experiment::shell_join(program) + "|cwd=" + cwd);
}

const char* status_name(RunStatus s) {
  switch (s) {
    case RunStatus::NotRun: return "not_run";
    case RunStatus::Ok: return "ok";
    case RunStatus::Unsupported: return "unsupported";
    case RunStatus::BadInput: return "bad_input";
    case RunStatus::Failed: return "failed";
  }
  return "?";
}

// ------------------------------------------------------------ statistics

namespace {

std::string normalise(const std::string& s) {
  std::string out;
  for (char c : s)
    if (c != '_' && c != '-') out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

bool name_matches(const std::string& full_key, const StatQuery& q) {
  if (!q.path_contains.empty() && full_key.find(q.path_contains) == std::string::npos) return false;
  const std::size_t dot = full_key.rfind('.');
  const std::string last = normalise(dot == std::string::npos ? full_key : full_key.substr(dot + 1));
  for (const std::string& n : q.names) {
    const std::string want = normalise(n);
    if (q.prefix ? last.compare(0, want.size(), want) == 0 : last == want) return true;
  }
  return false;
}

// `launches` holds per-launch timelines, not statistics; it is left out so
// that e.g. last_cta_execution_time is not counted twice.
void walk(const Json& j, const std::string& path, const StatQuery& q, StatValues& out) {
  if (!j.is_object()) return;
  for (auto it = j.begin(); it != j.end(); ++it) {
    if (path.empty() && it.key() == "launches") continue;
    const std::string full = path.empty() ? it.key() : path + "." + it.key();
    if (it->is_number()) {
      if (name_matches(full, q)) {
        out.sum += it->get<double>();
        ++out.count;
      }
    } else if (it->is_object()) {
      walk(*it, full, q, out);
    }
  }
}

}  // namespace

StatValues find_stats(const Json& stats, const StatQuery& q) {
  StatValues v;
  walk(stats, "", q, v);
  return v;
}

std::optional<double> stat_sum(const Json& stats, const StatQuery& q) {
  StatValues v = find_stats(stats, q);
  if (v.count == 0) return std::nullopt;
  return v.sum;
}

std::optional<double> top_level_number(const Json& stats, const std::string& key) {
  auto it = stats.find(key);
  if (it == stats.end() || !it->is_number()) return std::nullopt;
  return it->get<double>();
}

std::optional<double> last_cta_time(const Json& stats) {
  auto launches = stats.find("launches");
  if (launches != stats.end() && launches->is_array()) {
    double sum = 0;
    std::size_t n = 0;
    for (const Json& l : *launches) {
      auto t = l.find("last_cta_execution_time");
      if (t != l.end() && t->is_number()) {
        sum += t->get<double>();
        ++n;
      }
    }
    if (n) return sum / static_cast<double>(n);
  }
  StatValues v = find_stats(stats, {{"last_cta_execution_time"}, false, ""});
  if (v.count == 0) return std::nullopt;
  return v.mean();
}

// ------------------------------------------------------------ directions

int direction(double v, double neutral, double tol) {
  if (v > neutral + tol) return 1;
  if (v < neutral - tol) return -1;
  return 0;
}

std::string agrees(std::optional<double> ours, const Headline& h, double neutral) {
  if (!ours || std::isnan(*ours) || !h.known()) return "n/a";
  const int d = direction(*ours, neutral, h.tol);
  bool ok = false;
  switch (h.expect) {
    case Expect::FromValue:
      if (std::isnan(h.value)) return "n/a";
      ok = d == direction(h.value, neutral, h.tol);
      break;
    case Expect::Above: ok = d > 0; break;
    case Expect::Below: ok = d < 0; break;
    case Expect::Near: ok = d == 0; break;
    case Expect::NotAbove: ok = d <= 0; break;
    case Expect::Positive: ok = *ours > 0; break;
    case Expect::Zero: ok = *ours == 0; break;
  }
  return ok ? "yes" : "no";
}

// ------------------------------------------------------------ CSV

std::string format_number(std::optional<double> v) {
  if (!v || std::isnan(*v)) return "";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.6g", *v);
  return buf;
}

namespace {

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string q = "\"";
  for (char c : s) q += (c == '"') ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

// The paper column: its number, else its text ("> 1", "0.10..81.12").
std::string paper_text(const Headline& h) {
  if (!std::isnan(h.value)) return format_number(h.value);
  return h.text;
}

}  // namespace

std::string csv_header() {
  return "paper,workload,size,preset,scheduler,options,status,sim_cycles,ipc,metric,baseline,"
         "base_sim_cycles,ours,paper,paper_source,agrees,details,command,config_hash";
}

std::string csv_line(const Row& r) {
  const std::vector<std::string> f = {
      r.paper, r.workload, r.size, r.preset, r.scheduler, r.options, r.status,
      format_number(r.sim_cycles), format_number(r.ipc), r.metric, r.baseline,
      format_number(r.base_sim_cycles), format_number(r.ours), paper_text(r.paper_value),
      r.paper_value.source, r.agrees_text, r.details, r.command, r.config_hash};
  std::string line;
  for (std::size_t i = 0; i < f.size(); ++i) line += (i ? "," : "") + csv_field(f[i]);
  return line;
}

// ------------------------------------------------------------ running

std::vector<std::string> run_arguments(const RunSpec& spec, const std::string& size,
                                       const std::string& stats_path) {
  std::vector<std::string> a = {spec.program.empty() ? "run" : "exec"};
  if (!spec.program.empty())
    a.insert(a.end(), {"--mode", "timing"});
  else if (spec.launch.empty())
    a.insert(a.end(), {"--workload", spec.workload, "--mode", "timing", "--size", size});
  else
    a.insert(a.end(), {"--launch", spec.launch, "--mode", "timing"});
  a.insert(a.end(), {"--preset", spec.preset, "--scheduler", spec.scheduler});
  a.insert(a.end(), spec.extra.begin(), spec.extra.end());
  if (!stats_path.empty()) {
    a.push_back("--stats");
    a.push_back(stats_path);
  }
  if (!spec.program.empty()) {
    // `--` ends exec's options: the program's own may look like them.
    a.push_back("--");
    a.insert(a.end(), spec.program.begin(), spec.program.end());
  }
  return a;
}

std::vector<std::string> config_arguments(const RunSpec& spec, const std::string& size) {
  if (spec.program.empty()) return run_arguments(spec, size, "");
  std::vector<std::string> a = {"run", "--mode", "timing", "--preset", spec.preset, "--scheduler", spec.scheduler};
  a.insert(a.end(), spec.extra.begin(), spec.extra.end());
  return a;
}

std::string command_line(const RunSpec& spec, const std::string& size, const std::string& binary) {
  std::vector<std::string> words = run_arguments(spec, size, "");
  words.insert(words.begin(), binary);
  const std::string cmd = experiment::shell_join(words);
  return spec.program.empty() || spec.cwd.empty() ? cmd : "cd " + experiment::shell_quote(spec.cwd) + " && " + cmd;
}

void run_all(const std::vector<RunSpec>& specs, const RunnerOptions& opt,
             std::map<std::string, RunResult>& results) {
  experiment::run_pool(specs, opt, results);
}

RunnerOptions runner_options(const experiment::PoolOptions& pool, const std::string& size, const std::string& out) {
  RunnerOptions r(pool.tlmgpu, size, out, pool.jobs, pool.verbose);
  r.force = pool.force;
  r.threads = std::max(1u, pool.threads);
  r.launcher = pool.launcher;
  r.slurm = pool.slurm;
  return r;
}

}  // namespace paper_cmp
