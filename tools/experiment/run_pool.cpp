#include "tools/experiment/run_pool.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <set>
#include <sstream>
#include <stdexcept>

#include "tools/experiment/child_process.h"
#include "tools/experiment/progress.h"
#include "tools/experiment/slurm_launcher.h"

namespace experiment {

namespace fs = std::filesystem;
using paper_cmp::Json;
using paper_cmp::RunnerOptions;
using paper_cmp::RunResult;
using paper_cmp::RunSpec;
using paper_cmp::RunStatus;

std::string fnv1a64_hex(const std::string& text) {
  std::uint64_t h = 14695981039346656037ull;
  for (unsigned char c : text) {
    h ^= c;
    h *= 1099511628211ull;
  }
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
  return buf;
}

std::string run_file_stem(const std::string& run_key) {
  // Readable part: the key with separators made safe, shortened; the hash
  // keeps two keys apart that differ only in what was cut or replaced.
  std::string s;
  for (char c : run_key) {
    const bool keep = std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '.';
    if (keep)
      s += c;
    else if (s.empty() || s.back() != '_')
      s += '_';
  }
  if (s.size() > 96) s.resize(96);
  while (!s.empty() && s.back() == '_') s.pop_back();
  return s + "_" + fnv1a64_hex(run_key).substr(0, 8);
}

namespace {

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), {});
}

// Exit 2 is any bad input; only the messages for something the model does not
// know yet (an option, a policy, a parameter, a configuration key) make a row
// `unsupported` rather than a mistake in our table.
bool names_unknown_feature(const std::string& log) {
  // "unknown command": a tlmgpu older than `tlmgpu exec`, asked to run a program.
  for (const char* needle : {"unrecognised option", "unrecognized option", "unknown option", "has no parameter",
                             "unknown policy", "unknown parameter", "unknown configuration key",
                             "unknown command"})
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

// A finished process becomes a RunResult status: the same rules for every
// launcher.
void classify(RunResult& r, const LaunchOutcome& o) {
  r.stats = Json();
  if (!o.exited) {
    r.exit_code = -1;
    r.status = RunStatus::Failed;
    r.note = o.note;
    return;
  }
  r.exit_code = o.exit_code;
  if (r.exit_code == 0) {
    try {
      r.stats = Json::parse(read_text(r.stats_path));
      r.status = RunStatus::Ok;
      r.note.clear();
    } catch (const std::exception& e) {
      r.status = RunStatus::Failed;
      r.note = std::string("unreadable statistics: ") + e.what();
    }
    return;
  }
  const std::string log = read_text(r.log_path);
  r.note = first_diagnostic(log);
  if (r.exit_code == 2)
    r.status = names_unknown_feature(log) ? RunStatus::Unsupported : RunStatus::BadInput;
  else
    r.status = RunStatus::Failed;
}

bool is_failure(RunStatus s) { return s == RunStatus::Failed || s == RunStatus::BadInput; }

struct PoolRun {
  std::string key;
  const RunSpec* spec = nullptr;
  RunResult* result = nullptr;
  std::string stem;
  RunSpec effective;                          // the spec actually run: `*spec`, or its fallback
  std::string primary_command, primary_hash;  // the spec's own identity (resume looks for it)
  bool fallback = false;
};

class Pool {
 public:
  Pool(const RunnerOptions& opt, fs::path dir)
      : opt_(opt),
        dir_(std::move(dir)),
        binary_name_(fs::path(opt.tlmgpu).filename().string()),
        binary_(opt.tlmgpu.find('/') == std::string::npos ? opt.tlmgpu : fs::absolute(opt.tlmgpu).string()) {}

  void run(std::vector<PoolRun>& runs) {
    std::vector<PoolRun*> all;
    for (PoolRun& p : runs) all.push_back(&p);
    hash_configs(all);
    std::vector<PoolRun*> todo;
    std::size_t reused = 0;
    for (PoolRun& p : runs) {
      p.primary_command = command_of(p);
      p.primary_hash = hashes_[p.primary_command];
      set_identity(p);
      if (!opt_.force && reuse(p)) {
        ++reused;
        continue;
      }
      todo.push_back(&p);
    }
    std::cerr << "runs: " << todo.size() << " to run";
    if (reused)
      std::cerr << ", " << reused << " reused from " << dir_.string()
                << " (same command and configuration; --force reruns them)";
    std::cerr << (todo.empty() || opt_.launcher != "slurm" ? "" : ", as a Slurm job array") << '\n';

    Progress progress(todo.size(), std::cerr, Progress::stderr_is_terminal());
    progress_ = &progress;
    for (int round = 1; !todo.empty(); ++round) todo = launch_round(todo, round);
    progress.close();
    progress_ = nullptr;
  }

 private:
  // The run without its statistics file: what it means, wherever its output goes.
  std::string command_of(const PoolRun& p) const {
    return paper_cmp::command_line(p.effective, opt_.size, binary_name_);
  }

  // A program's file content is part of a program run's identity: a rebuilt
  // program must run again. Hashed once per invocation; "" when unreadable
  // (the run then fails and says why).
  std::string program_hash(const PoolRun& p) {
    if (p.effective.program.empty()) return "";
    const std::string& path = p.effective.program.front();
    auto it = program_hashes_.find(path);
    if (it != program_hashes_.end()) return it->second;
    std::ifstream in(path, std::ios::binary);
    const std::string hash = in ? fnv1a64_hex(std::string((std::istreambuf_iterator<char>(in)), {})) : "";
    return program_hashes_[path] = hash;
  }

  void set_identity(PoolRun& p) {
    RunResult& r = *p.result;
    const std::string suffix = p.fallback ? "_fallback" : "";
    r.stats_path = (dir_ / (p.stem + ".json")).string();
    r.log_path = (dir_ / (p.stem + suffix + ".log")).string();
    r.command = command_of(p);
    r.config_hash = hashes_[r.command];
  }

  fs::path meta_path(const PoolRun& p) const { return dir_ / (p.stem + ".meta.json"); }

  // The configuration hash of every run not yet hashed: `tlmgpu run ...
  // --dump-config` prints the effective configuration as INI (kept beside the
  // run as STEM.config.ini). A command that cannot dump one (an unknown
  // option) gets an empty hash; its run reports why.
  void hash_configs(const std::vector<PoolRun*>& runs) {
    std::vector<LaunchTask> tasks;
    std::vector<std::string> commands;
    std::set<std::string> queued;
    for (const PoolRun* p : runs) {
      const std::string cmd = command_of(*p);
      if (hashes_.count(cmd) || !queued.insert(cmd).second) continue;
      const std::string base = (dir_ / (p->stem + (p->fallback ? "_fallback" : ""))).string();
      std::vector<std::string> argv = {binary_};
      const std::vector<std::string> args = paper_cmp::config_arguments(p->effective, opt_.size);
      argv.insert(argv.end(), args.begin(), args.end());
      argv.push_back("--dump-config");
      tasks.push_back({argv, base + ".config.log", base + ".config.ini", ""});
      commands.push_back(cmd);
    }
    launch_local(tasks, opt_.jobs, [&](std::size_t i, const LaunchOutcome& o) {
      const bool ok = o.exited && o.exit_code == 0;
      hashes_[commands[i]] = ok ? fnv1a64_hex(read_text(tasks[i].stdout_path)) : "";
      std::error_code ec;
      if (ok) fs::remove(tasks[i].log_path, ec);
    });
  }

  // A run of an earlier invocation counts when its meta file names the same
  // command and configuration hash with a finished status, and (when ok) its
  // statistics still parse.
  bool reuse(PoolRun& p) {
    RunResult& r = *p.result;
    Json meta;
    try {
      meta = Json::parse(read_text(meta_path(p).string()));
    } catch (const std::exception&) {
      return false;
    }
    if (!meta.is_object() || meta.value("command", "") != p.primary_command ||
        meta.value("config_hash", "") != p.primary_hash || meta.value("program_hash", "") != program_hash(p))
      return false;
    const std::string status = meta.value("status", "");
    if (status != paper_cmp::status_name(RunStatus::Ok) && status != paper_cmp::status_name(RunStatus::Unsupported))
      return false;
    RunResult prior;
    prior.status = status == "ok" ? RunStatus::Ok : RunStatus::Unsupported;
    prior.exit_code = meta.value("exit_code", -1);
    prior.note = meta.value("note", "");
    prior.ran_as = meta.value("ran_as", "");
    prior.command = meta.value("ran_command", p.primary_command);
    prior.config_hash = meta.value("ran_config_hash", p.primary_hash);
    prior.stats_path = r.stats_path;
    prior.log_path = meta.value("log", r.log_path);
    if (prior.status == RunStatus::Ok) {
      try {
        prior.stats = Json::parse(read_text(prior.stats_path));
      } catch (const std::exception&) {
        return false;
      }
    }
    prior.reused = true;
    r = std::move(prior);
    return true;
  }

  void write_meta(const PoolRun& p, const std::string& where) {
    const RunResult& r = *p.result;
    Json meta = {{"key", p.key},
                 {"command", p.primary_command},
                 {"config_hash", p.primary_hash},
                 {"status", paper_cmp::status_name(r.status)},
                 {"exit_code", r.exit_code},
                 {"note", r.note},
                 {"log", r.log_path},
                 {"launcher", opt_.launcher}};
    if (!where.empty()) meta["ran_on"] = where;
    if (!p.effective.program.empty()) meta["program_hash"] = program_hash(p);
    if (p.fallback) {
      meta["ran_as"] = r.ran_as;
      meta["ran_command"] = r.command;
      meta["ran_config_hash"] = r.config_hash;
    }
    // Written whole and renamed, so an interrupted run never leaves a meta
    // file that resume would trust.
    const fs::path path = meta_path(p), tmp = path.string() + ".tmp";
    {
      std::ofstream out(tmp);
      out << meta.dump(2) << '\n';
    }
    fs::rename(tmp, path);
  }

  // Launches `todo`; returns the runs to try again with their fallback scheduler.
  std::vector<PoolRun*> launch_round(const std::vector<PoolRun*>& todo, int round) {
    std::vector<LaunchTask> tasks;
    for (PoolRun* p : todo) {
      RunResult& r = *p->result;
      std::error_code ec;
      fs::remove(r.stats_path, ec);  // a stale file must not pass for this run's
      fs::remove(meta_path(*p), ec);
      std::vector<std::string> argv = {binary_};
      const std::vector<std::string> args = paper_cmp::run_arguments(p->effective, opt_.size, r.stats_path);
      argv.insert(argv.end(), args.begin(), args.end());
      // Host threads change no statistic: they are not in the run's command
      // (its identity), only in the process started.
      // (After the subcommand: exec's program and its arguments come last.)
      if (opt_.threads > 1) argv.insert(argv.begin() + 2, {"--threads", std::to_string(opt_.threads)});
      tasks.push_back({argv, r.log_path, "", p->effective.cwd});
    }
    std::vector<PoolRun*> again;
    auto finished = [&](std::size_t i, const LaunchOutcome& o) {
      PoolRun& p = *todo[i];
      RunResult& r = *p.result;
      classify(r, o);
      if (r.status == RunStatus::Unsupported && !p.fallback && !p.spec->fallback_scheduler.empty()) {
        // The spec names a parameter this tlmgpu does not know yet; run what it
        // means on such a build instead, and say so in the row.
        p.fallback = true;
        p.effective.scheduler = p.spec->fallback_scheduler;
        r.ran_as = p.effective.scheduler + " (this tlmgpu rejects " + p.spec->scheduler + ")";
        again.push_back(&p);
        return;
      }
      write_meta(p, o.where);
      const bool failed = is_failure(r.status);
      // The note goes into the CSV; where the run ran (paths, job ids) only
      // into the progress output and the meta file.
      progress_->finished(failed,
                          std::string(paper_cmp::status_name(r.status)) + "  " + p.key +
                              (r.note.empty() ? "" : "  (" + r.note + ")") +
                              (failed ? "\n    log " + r.log_path + (o.where.empty() ? "" : "; " + o.where) : ""));
    };
    if (opt_.launcher == "slurm") {
      if (opt_.verbose)
        for (const LaunchTask& t : tasks) progress_->note("  " + shell_join(t.argv));
      const fs::path work = dir_ / "slurm" / ("round" + std::to_string(round));
      fs::create_directories(work);
      launch_slurm(tasks, opt_.slurm, work.string(), finished);
    } else {
      launch_local(tasks, opt_.jobs, finished, [&](std::size_t i) {
        if (opt_.verbose) progress_->note("  " + shell_join(tasks[i].argv));
      });
    }
    if (!again.empty()) {
      hash_configs(again);
      for (PoolRun* p : again) set_identity(*p);
    }
    return again;
  }

  const RunnerOptions& opt_;
  const fs::path dir_;
  const std::string binary_name_;              // in commands: where the binary lives is not part of a run's identity
  const std::string binary_;                   // what is started (absolute: cluster nodes start it elsewhere)
  std::map<std::string, std::string> hashes_;  // command -> configuration hash
  std::map<std::string, std::string> program_hashes_;  // program path -> content hash
  Progress* progress_ = nullptr;
};

}  // namespace

void run_pool(const std::vector<RunSpec>& specs, const RunnerOptions& opt, std::map<std::string, RunResult>& results) {
  if (opt.launcher != "local" && opt.launcher != "slurm")
    throw LauncherError("unknown launcher '" + opt.launcher + "' (expected local or slurm)");
  const fs::path dir = fs::absolute(fs::path(opt.out_dir) / "runs");
  fs::create_directories(dir);
  // Children inherit the environment; SystemC's banner would only fill the logs.
  setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 1);

  std::vector<PoolRun> runs;
  for (const RunSpec& s : specs) {
    const std::string k = s.key(opt.size);
    if (results.count(k)) continue;
    results[k] = RunResult{};
    PoolRun p;
    p.key = k;
    p.spec = &s;
    p.stem = run_file_stem(k);
    p.effective = s;
    runs.push_back(std::move(p));
  }
  // Pointers into `results` stay valid: std::map does not move its nodes.
  for (PoolRun& p : runs) p.result = &results[p.key];
  Pool(opt, dir).run(runs);
}

}  // namespace experiment
