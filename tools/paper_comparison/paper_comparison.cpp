#include "tools/paper_comparison/paper_comparison.h"

#include <spawn.h>
#include <sys/wait.h>
#include <fcntl.h>
#include <unistd.h>

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

extern char** environ;

namespace paper_cmp {

namespace fs = std::filesystem;

std::string RunSpec::options_text() const {
  std::string s;
  for (const std::string& a : extra) s += (s.empty() ? "" : " ") + a;
  return s;
}

std::string RunSpec::key(const std::string& size) const {
  return preset + "|" + workload + "|" + size + "|" + scheduler + "|" + options_text() +
         (launch.empty() ? "" : "|launch=" + launch);
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
         "base_sim_cycles,ours,paper,paper_source,agrees,details";
}

std::string csv_line(const Row& r) {
  const std::vector<std::string> f = {
      r.paper, r.workload, r.size, r.preset, r.scheduler, r.options, r.status,
      format_number(r.sim_cycles), format_number(r.ipc), r.metric, r.baseline,
      format_number(r.base_sim_cycles), format_number(r.ours), paper_text(r.paper_value),
      r.paper_value.source, r.agrees_text, r.details};
  std::string line;
  for (std::size_t i = 0; i < f.size(); ++i) line += (i ? "," : "") + csv_field(f[i]);
  return line;
}

// ------------------------------------------------------------ running

std::vector<std::string> run_arguments(const RunSpec& spec, const std::string& size,
                                       const std::string& stats_path) {
  std::vector<std::string> a = {"run"};
  if (spec.launch.empty())
    a.insert(a.end(), {"--workload", spec.workload, "--mode", "timing", "--size", size});
  else
    a.insert(a.end(), {"--launch", spec.launch, "--mode", "timing"});
  a.insert(a.end(), {"--preset", spec.preset, "--scheduler", spec.scheduler});
  a.insert(a.end(), spec.extra.begin(), spec.extra.end());
  a.push_back("--stats");
  a.push_back(stats_path);
  return a;
}

namespace {

std::string file_stem_for(std::size_t index, const RunSpec& spec) {
  std::string s = std::to_string(index) + "_" + spec.preset + "_" + spec.workload + "_" + spec.scheduler;
  for (const std::string& e : spec.extra) s += "_" + e;
  for (char& c : s)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '-') c = '_';
  return s;
}

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), {});
}

// Exit 2 is any bad input; only the messages for something the model does not
// know yet (an option, a policy, a parameter, a configuration key) make a row
// `unsupported` rather than a mistake in our table.
bool names_unknown_feature(const std::string& log) {
  for (const char* needle : {"unrecognised option", "unrecognized option", "unknown option", "has no parameter",
                             "unknown policy", "unknown parameter", "unknown configuration key"})
    if (log.find(needle) != std::string::npos) return true;
  return false;
}

std::string first_diagnostic(const std::string& log) {
  std::istringstream is(log);
  std::string fallback;
  for (std::string line; std::getline(is, line);) {
    if (line.rfind("tlmgpu", 0) == 0 || line.find("error") != std::string::npos ||
        line.find("fault") != std::string::npos || line.find("FAIL") != std::string::npos) {
      // "tlmgpu: invalid configuration:" introduces the reason on the next line.
      std::string next;
      if (!line.empty() && line.back() == ':' && std::getline(is, next))
        line += " " + next.substr(std::min(next.size(), next.find_first_not_of(' ')));
      return line;
    }
    if (fallback.empty() && !line.empty() && line.find_first_not_of(' ') != std::string::npos) fallback = line;
  }
  return fallback;
}

struct Child {
  pid_t pid;
  std::string key;
  const RunSpec* spec;
  bool fallback;  // this is the second try, with spec->fallback_scheduler
};

pid_t spawn(const std::string& binary, const std::vector<std::string>& args, const std::string& log_path) {
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 1, log_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&fa, 1, 2);
  std::vector<char*> argv;
  argv.push_back(const_cast<char*>(binary.c_str()));
  for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  pid_t pid = -1;
  const int rc = posix_spawn(&pid, binary.c_str(), &fa, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  if (rc != 0) throw std::runtime_error("cannot start " + binary + ": " + std::strerror(rc));
  return pid;
}

void finish(RunResult& r, int wait_status) {
  const std::string log = read_text(r.log_path);
  if (WIFEXITED(wait_status)) {
    r.exit_code = WEXITSTATUS(wait_status);
  } else {
    r.exit_code = -1;
    r.status = RunStatus::Failed;
    r.note = "killed by signal " + std::to_string(WIFSIGNALED(wait_status) ? WTERMSIG(wait_status) : 0);
    return;
  }
  if (r.exit_code == 0) {
    try {
      r.stats = Json::parse(read_text(r.stats_path));
      r.status = RunStatus::Ok;
    } catch (const std::exception& e) {
      r.status = RunStatus::Failed;
      r.note = std::string("unreadable statistics: ") + e.what();
    }
    return;
  }
  r.note = first_diagnostic(log);
  if (r.exit_code == 2)
    r.status = names_unknown_feature(log) ? RunStatus::Unsupported : RunStatus::BadInput;
  else
    r.status = RunStatus::Failed;
}

}  // namespace

void run_all(const std::vector<RunSpec>& specs, const RunnerOptions& opt,
             std::map<std::string, RunResult>& results) {
  const fs::path dir = fs::path(opt.out_dir) / "runs";
  fs::create_directories(dir);
  // Children inherit the environment; SystemC's banner would only fill the logs.
  setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 1);

  std::vector<const RunSpec*> todo;
  for (const RunSpec& s : specs) {
    const std::string k = s.key(opt.size);
    if (results.count(k)) continue;
    results[k] = RunResult{};
    todo.push_back(&s);
  }
  const std::size_t total = todo.size();
  std::size_t next = 0, done = 0;
  std::vector<Child> running;
  const unsigned jobs = std::max(1u, opt.jobs);
  while (next < total || !running.empty()) {
    while (next < total && running.size() < jobs) {
      const RunSpec& s = *todo[next];
      RunResult& r = results[s.key(opt.size)];
      const std::string stem = file_stem_for(next, s);
      r.stats_path = (dir / (stem + ".json")).string();
      r.log_path = (dir / (stem + ".log")).string();
      std::error_code ec;
      fs::remove(r.stats_path, ec);  // a stale file must not pass for this run's
      const std::vector<std::string> args = run_arguments(s, opt.size, r.stats_path);
      if (opt.verbose) {
        std::cerr << "  " << opt.tlmgpu;
        for (const std::string& a : args) std::cerr << ' ' << a;
        std::cerr << '\n';
      }
      running.push_back({spawn(opt.tlmgpu, args, r.log_path), s.key(opt.size), &s, false});
      ++next;
    }
    int wstatus = 0;
    const pid_t pid = waitpid(-1, &wstatus, 0);
    if (pid < 0) {
      if (errno == EINTR) continue;
      throw std::runtime_error(std::string("waitpid: ") + std::strerror(errno));
    }
    auto it = std::find_if(running.begin(), running.end(), [pid](const Child& c) { return c.pid == pid; });
    if (it == running.end()) continue;
    RunResult& r = results[it->key];
    finish(r, wstatus);
    if (r.status == RunStatus::Unsupported && !it->fallback && !it->spec->fallback_scheduler.empty()) {
      // The spec names a parameter this tlmgpu does not know yet; run what it
      // means on such a build instead, and say so in the row.
      RunSpec alt = *it->spec;
      alt.scheduler = alt.fallback_scheduler;
      r.ran_as = alt.scheduler + " (this tlmgpu rejects " + it->spec->scheduler + ")";
      r.log_path = r.log_path.substr(0, r.log_path.size() - 4) + "_fallback.log";
      const Child c{spawn(opt.tlmgpu, run_arguments(alt, opt.size, r.stats_path), r.log_path), it->key, it->spec,
                    true};
      running.erase(it);
      running.push_back(c);
      continue;
    }
    ++done;
    std::cerr << "[" << done << "/" << total << "] " << status_name(r.status) << "  " << it->key
              << (r.note.empty() ? "" : "  (" + r.note + ")") << '\n';
    running.erase(it);
  }
}

}  // namespace paper_cmp
