#include "tools/sweep/sweep_validate.h"

#include <set>
#include <sstream>
#include <stdexcept>
#include <vector>

#include "tools/experiment/child_process.h"

namespace sweep {

namespace {

// The first word of each line of `tlmgpu list WHAT`.
std::set<std::string> listed_names(const std::string& tlmgpu, const std::string& what) {
  const experiment::CapturedRun r = experiment::run_and_capture({tlmgpu, "list", what});
  if (r.exit_code != 0) throw std::runtime_error(tlmgpu + " list " + what + " failed: " + r.err);
  std::set<std::string> names;
  std::istringstream is(r.out);
  for (std::string line; std::getline(is, line);) {
    std::istringstream ls(line);
    std::string first;
    if (ls >> first) names.insert(first);
  }
  return names;
}

void check_listed(const SweepSpec& spec, const std::string& tlmgpu, const std::string& what, const ValueList& list,
                  const std::string& key, bool strip_parameters) {
  if (list.values.empty()) return;
  const std::set<std::string> known = listed_names(tlmgpu, what);
  for (const std::string& v : list.values) {
    const std::string name = strip_parameters ? v.substr(0, v.find(':')) : v;
    if (!known.count(name)) {
      std::string all;
      for (const std::string& k : known) all += (all.empty() ? "" : " ") + k;
      throw spec.error(list.line, key, "unknown " + std::string(what, 0, what.size() - 1) + " '" + name +
                                           "' (tlmgpu list " + what + ": " + all + ")");
    }
  }
}

// tlmgpu's diagnostic on one line ("tlmgpu: invalid configuration:\n  x = ...").
std::string one_line(const std::string& text) {
  std::string s;
  std::istringstream is(text);
  for (std::string line; std::getline(is, line);) {
    const std::size_t b = line.find_first_not_of(' ');
    if (b == std::string::npos) continue;
    if (line.rfind("usage:", b) == b) break;  // the usage text after the message adds nothing
    s += (s.empty() ? "" : " ") + line.substr(b);
  }
  return s;
}

void dump_config_check(const SweepSpec& spec, const std::string& tlmgpu, std::vector<std::string> args, int line,
                       const std::string& key) {
  args.insert(args.begin(), {tlmgpu, "run"});
  args.push_back("--dump-config");
  const experiment::CapturedRun r = experiment::run_and_capture(args);
  if (r.exit_code != 0) throw spec.error(line, key, "tlmgpu rejects it: " + one_line(r.err));
}

}  // namespace

void check_exec(const SweepSpec& spec, const std::string& tlmgpu) {
  if (spec.programs.empty()) return;
  const experiment::CapturedRun r = experiment::run_and_capture({tlmgpu, "help", "exec"});
  if (r.exit_code != 0)
    throw spec.error(spec.programs.front().line, spec.programs.front().key,
                     tlmgpu + " cannot run CUDA programs (it has no 'exec' command): " + one_line(r.err));
}

void check_against_tlmgpu(const SweepSpec& spec, const std::string& tlmgpu) {
  check_listed(spec, tlmgpu, "workloads", spec.workloads, "workloads", false);
  check_listed(spec, tlmgpu, "presets", spec.presets, "presets", false);
  check_listed(spec, tlmgpu, "schedulers", spec.schedulers, "schedulers", true);
  // Parameters and values: every scheduler on every preset, and each [set]
  // value on its own (on the first preset and scheduler), so that a rejection
  // points at the line that caused it.
  for (const std::string& p : spec.presets.values)
    for (const std::string& s : spec.schedulers.values)
      dump_config_check(spec, tlmgpu, {"--preset", p, "--scheduler", s}, spec.schedulers.line, "schedulers");
  for (const SetKey& k : spec.sets)
    for (const std::string& v : k.list.values)
      dump_config_check(spec, tlmgpu,
                        {"--preset", spec.presets.values.front(), "--scheduler", spec.schedulers.values.front(),
                         "--set", k.key + "=" + v},
                        k.list.line, k.key);
}

}  // namespace sweep
