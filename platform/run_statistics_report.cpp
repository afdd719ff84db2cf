#include "platform/run_statistics_report.h"

#include <algorithm>
#include <cctype>
#include <fstream>
#include <iterator>
#include <map>
#include <memory>
#include <stdexcept>

#include "platform/config_keys.h"
#include "platform/occupancy.h"
#include "platform/timing_gpu.h"
#include "schedulers/warp_scheduler_policy.h"

namespace tlmgpu::platform {

RunStatistics::Entry& RunStatistics::Entry::labelled(std::string label) {
  // Keeps a text given by shown_as().
  if (rows_ && rows_->size() == 1) rows_->front().first = std::move(label);
  else rows_ = default_rows(label, value_ ? *value_ : json());
  return *this;
}

RunStatistics::Entry& RunStatistics::Entry::shown_as(std::string text) {
  const std::string label = rows_ && !rows_->empty() ? rows_->front().first : key_;
  rows_ = cli::Rows{{label, std::move(text)}};
  return *this;
}

RunStatistics::Entry& RunStatistics::Entry::shown_as_rows(cli::Rows rows) {
  rows_ = std::move(rows);
  return *this;
}

RunStatistics::Entry& RunStatistics::Entry::json_only() {
  rows_ = cli::Rows{};
  return *this;
}

RunStatistics::Entry& RunStatistics::add(const std::string& key, json value) {
  Entry e;
  e.key_ = key;
  e.value_ = std::move(value);
  entries_.push_back(std::move(e));
  return entries_.back();
}

void RunStatistics::add_row(const std::string& label, const std::string& text) {
  Entry e;
  e.key_ = label;
  e.rows_ = cli::Rows{{label, text}};
  entries_.push_back(std::move(e));
}

RunStatistics::json RunStatistics::to_json() const {
  json j = json::object();
  for (const Entry& e : entries_)
    if (e.value_) j[e.key_] = *e.value_;
  return j;
}

cli::Rows RunStatistics::table_rows() const {
  cli::Rows rows;
  for (const Entry& e : entries_) {
    const cli::Rows own = e.rows_ ? *e.rows_ : default_rows(e.key_, e.value_ ? *e.value_ : json());
    rows.insert(rows.end(), own.begin(), own.end());
  }
  return rows;
}

cli::Rows RunStatistics::default_rows(const std::string& key, const json& value) {
  if (value.is_string()) return {{key, value.get<std::string>()}};
  if (value.is_number_unsigned()) return {{key, std::to_string(value.get<uint64_t>())}};
  if (value.is_number_integer()) return {{key, std::to_string(value.get<int64_t>())}};
  if (value.is_number_float()) return {{key, cli::format_number(value.get<double>())}};
  if (value.is_boolean()) return {{key, value.get<bool>() ? "yes" : "no"}};
  return {};  // arrays, objects, null
}

void print_statistics_columns(std::ostream& out, const std::vector<RunStatistics>& runs, size_t text_columns) {
  if (runs.empty()) return;
  std::vector<std::vector<std::string>> table(1);
  for (const auto& [label, text] : runs.front().table_rows()) table[0].push_back(label);
  for (const RunStatistics& run : runs) {
    table.emplace_back();
    for (const auto& [label, text] : run.table_rows()) table.back().push_back(text);
  }
  std::vector<size_t> width(table[0].size(), 0);
  for (const auto& row : table)
    for (size_t i = 0; i < row.size() && i < width.size(); ++i) width[i] = std::max(width[i], row[i].size());
  for (const auto& row : table) {
    for (size_t i = 0; i < row.size() && i < width.size(); ++i) {
      const size_t pad = width[i] - row[i].size();
      if (i < text_columns) out << row[i] << std::string(pad, ' ');
      else out << std::string(pad, ' ') << row[i];
      out << (i + 1 < row.size() ? "  " : "\n");
    }
  }
}

void add_device_counters(RunStatistics& stats, const DeviceStats& counters, double host_seconds) {
  const double rate = host_seconds > 0 ? double(counters.warp_insts) / host_seconds : 0.0;
  stats.add("kernels_launched", counters.kernels_launched);
  stats.add("ctas", counters.ctas);
  stats.add("warp_insts", counters.warp_insts);
  stats.add("thread_insts", counters.thread_insts);
  stats.add("host_seconds", host_seconds);
  stats.add("warp_insts_per_host_second", rate).labelled("warp_insts/host_s");
}

namespace {

double ipc(const DeviceStats& counters) {
  return counters.sim_cycles ? double(counters.thread_insts) / double(counters.sim_cycles) : 0.0;
}

}  // namespace

void add_timing_statistics(RunStatistics& stats, const core::GpuConfig& config, const DeviceStats& counters) {
  using json = RunStatistics::json;
  stats.add("preset", config.preset).json_only();
  stats.add("scheduler", config.scheduler).json_only();
  stats.add("sim_cycles", counters.sim_cycles);
  stats.add("ipc", ipc(counters));
  json modules = json::object();
  for (const auto& [k, v] : timing_stats()) modules[k] = v;
  stats.add("modules", modules);
  json launches = json::array();
  for (const TimingLaunchRecord& l : timing_launches()) {
    json ctas = json::array();
    for (const auto& c : l.ctas) ctas.push_back({{"sm", c.sm}, {"start", c.start}, {"end", c.end}});
    const Occupancy& o = l.occupancy;
    const json occupancy = {{"regs_per_thread", o.regs_per_thread},
                            {"regs_source", register_source_name(o.regs_source)},
                            {"regs_per_cta", o.regs_per_cta},
                            {"ctas_per_sm", o.ctas_per_sm},
                            {"warps_per_sm", o.warps_per_sm},
                            {"warps_per_scheduler", o.warps_per_scheduler},
                            {"limited_by", o.limited_by}};
    json launch = {{"kernel", l.kernel},
                   {"cycles", l.cycles},
                   {"last_cta_execution_time", l.last_cta_execution_time},
                   {"occupancy", occupancy},
                   {"ctas", ctas}};
    if (l.shared_carveout_kb >= 0) {  // a unified L1D / shared array only
      launch["shared_carveout_kb"] = l.shared_carveout_kb;
      launch["l1d_bytes"] = l.l1d_bytes;
    }
    if (l.faulted) launch["faulted"] = true;  // only then: completed launches' entries stay as they were
    launches.push_back(std::move(launch));
  }
  const std::string last_cta =
      launches.empty() ? "-" : std::to_string(launches.back()["last_cta_execution_time"].get<uint64_t>());
  stats.add("launches", std::move(launches));
  stats.add_row("last_cta_execution_time", last_cta);
}

namespace {

/// gpu.sm12.l2_3.up14_request_bytes -> gpu.smN.l2_N.upN_request_bytes: the
/// index that ends a module's name, and one before an underscore in the
/// statistic's own name.
std::string with_indices_as_n(const std::string& name) {
  const auto is_digit = [](char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; };
  std::string out;
  size_t begin = 0;
  while (true) {
    const size_t dot = name.find('.', begin);
    std::string part = name.substr(begin, dot == std::string::npos ? std::string::npos : dot - begin);
    if (dot != std::string::npos) {
      size_t d = part.size();
      while (d > 0 && is_digit(part[d - 1])) --d;
      if (d > 0 && d < part.size()) part = part.substr(0, d) + "N";
      out += part + ".";
      begin = dot + 1;
      continue;
    }
    const size_t underscore = part.find('_');
    size_t d = underscore == std::string::npos ? 0 : underscore;
    while (d > 0 && is_digit(part[d - 1])) --d;
    if (underscore != std::string::npos && d > 0 && d < underscore) part = part.substr(0, d) + "N" + part.substr(underscore);
    return out + part;
  }
}

}  // namespace

void print_statistics_descriptions(std::ostream& out) {
  using core::Unit;
  struct Line {
    std::string unit, description;
  };
  std::map<std::string, Line> lines;
  // The run totals (add_device_counters, add_timing_statistics).
  const std::pair<const char*, Line> totals[] = {
      {"kernels_launched", {"count", "kernel launches"}},
      {"ctas", {"count", "CTAs of all launches"}},
      {"warp_insts", {"count", "warp instructions executed"}},
      {"thread_insts", {"count", "thread instructions executed (active lanes)"}},
      {"sim_cycles", {"cycles", "core cycles of all launches"}},
      {"ipc", {"average", "thread_insts / sim_cycles"}},
      {"host_seconds", {"seconds", "host time of the run (not a simulated quantity)"}},
      {"warp_insts_per_host_second", {"average", "simulation speed: warp_insts / host_seconds"}},
      {"launches", {"list", "per launch: kernel, cycles, last CTA's execution time, occupancy, each CTA's SM, start and end; on a unified L1D / shared array its shared_carveout_kb and l1d_bytes"}},
  };
  for (const auto& [name, line] : totals) lines.emplace(name, line);
  core::StatDescriptions descriptions;
  const core::StatMap values = timing_stats(&descriptions);
  for (const auto& [name, value] : values) {
    const auto d = descriptions.find(name);
    if (d == descriptions.end() || d->second.description.empty())
      throw std::logic_error("statistic '" + name + "' has no description");
    lines.emplace("modules." + with_indices_as_n(name), Line{unit_name(d->second.unit), d->second.description});
  }
  size_t name_width = 0, unit_width = 0;
  for (const auto& [name, line] : lines) {
    name_width = std::max(name_width, name.size());
    unit_width = std::max(unit_width, line.unit.size());
  }
  for (const auto& [name, line] : lines)
    out << name << std::string(name_width - name.size() + 2, ' ') << line.unit
        << std::string(unit_width - line.unit.size() + 2, ' ') << line.description << '\n';
}

void add_lt_statistics(RunStatistics& stats, const core::GpuConfig& config, const GpuDevice& device) {
  using json = RunStatistics::json;
  const DeviceStats& s = device.stats();
  stats.add("preset", config.preset).json_only();
  stats.add("sim_cycles", s.sim_cycles).shown_as(std::to_string(s.sim_cycles) + " (estimated)");
  stats.add("sim_cycles_estimated", true).json_only();
  stats.add("ipc", ipc(s)).shown_as(cli::format_number(ipc(s)) + " (estimated)");
  static const char* const kPipes[] = {"sp", "sfu", "dp", "int_div", "fp_div_sqrt", "mem", "ctrl", "bar", "tensor"};
  static_assert(std::size(kPipes) == LtLaunchCounts::kPipes);
  json launches = json::array();
  for (const LtLaunchRecord& l : device.lt_launches()) {
    const auto& c = l.counts;
    const auto& e = l.estimate;
    json by_pipe = json::object();
    for (size_t p = 0; p < c.warp_insts.size(); ++p) by_pipe[kPipes[p]] = c.warp_insts[p];
    const json counts = {{"warp_insts", by_pipe},
                         {"global_loads", c.global_loads},
                         {"global_stores", c.global_stores},
                         {"global_lines", c.global_lines},
                         {"global_sectors", c.global_sectors},
                         {"hottest_line_atomics", c.hottest_line_atomics},
                         {"shared_accesses", c.shared_accesses},
                         {"shared_bank_cycles", c.shared_bank_cycles},
                         {"ctas", c.ctas},
                         {"warps_per_cta", c.warps_per_cta}};
    const Occupancy& o = e.occupancy;
    const json occupancy = {{"regs_per_thread", o.regs_per_thread},
                            {"regs_source", register_source_name(o.regs_source)},
                            {"ctas_per_sm", o.ctas_per_sm},
                            {"warps_per_sm", o.warps_per_sm},
                            {"limited_by", o.limited_by}};
    json launch = {{"kernel", l.kernel},
                   {"cycles", e.cycles},
                   {"ctas_on_busiest_sm", e.ctas_on_busiest_sm},
                   {"waves", e.waves},
                   {"issue_bound", e.issue_bound},
                   {"latency_bound", e.latency_bound},
                   {"bandwidth_bound", e.bandwidth_bound},
                   {"contention_bound", e.contention_bound},
                   {"occupancy", occupancy},
                   {"counts", counts}};
    if (l.faulted) launch["faulted"] = true;
    launches.push_back(std::move(launch));
  }
  stats.add("launches", std::move(launches));
}

void add_launch_file_result(RunStatistics& stats, const LaunchFileResult& result) {
  using json = RunStatistics::json;
  json kernels = json::array();
  cli::Rows kernel_rows;
  for (const KernelRecord& k : result.kernels) {
    kernels.push_back({{"kernel", k.kernel},
                       {"launches", k.launches},
                       {"warp_insts", k.warp_insts},
                       {"thread_insts", k.thread_insts},
                       {"faulted", k.faulted}});
    kernel_rows.emplace_back("kernel " + k.kernel,
                             std::to_string(k.launches) + " launch" + (k.launches == 1 ? "" : "es") +
                                 (k.faulted ? " (" + std::to_string(k.faulted) + " faulted)" : std::string()) + ", " +
                                 std::to_string(k.warp_insts) + " warp insts");
  }
  stats.add("kernels", std::move(kernels)).shown_as_rows(std::move(kernel_rows));
  json repeats = json::array();
  cli::Rows repeat_rows;
  for (const RepeatRecord& r : result.repeats) {
    repeats.push_back({{"path", r.path}, {"iterations", r.iterations}});
    repeat_rows.emplace_back("repeat " + r.path,
                             std::to_string(r.iterations) + " iteration" + (r.iterations == 1 ? "" : "s"));
  }
  stats.add("repeats", std::move(repeats)).shown_as_rows(std::move(repeat_rows));
  cli::Rows dumped_rows;
  for (const std::string& d : result.dumped) dumped_rows.emplace_back("dumped", d);
  stats.add("dumped", result.dumped).shown_as_rows(std::move(dumped_rows));
  stats.add("expectations", result.expectations).json_only();
  stats.add("expected_faults", result.expected_faults).json_only();
  json faults = json::array();
  cli::Rows fault_rows;
  for (const ExpectedFaultRecord& f : result.faults_as_expected) {
    faults.push_back({{"path", f.path}, {"kernel", f.kernel}, {"kind", f.kind}, {"what", f.what}});
    fault_rows.emplace_back("expected fault", f.path + ": " + f.kind + " in kernel " + f.kernel + " (" + f.what + ")");
  }
  stats.add("faults_as_expected", std::move(faults)).shown_as_rows(std::move(fault_rows));
  stats.add("detail", result.detail)
      .labelled("verified")
      .shown_as(std::string(result.verified ? "yes" : "no") + " (" + result.detail + ")");
}

std::string beside_statistics(const std::string& stats_file, const std::string& suffix) {
  std::string path = stats_file;
  if (path.size() > 5 && path.compare(path.size() - 5, 5, ".json") == 0) path.resize(path.size() - 5);
  return path + suffix;
}

namespace {

// The files policies write beside the statistics, opened on first use.
class FilesBesideStatistics final : public schedulers::PolicyOutputFiles {
 public:
  explicit FilesBesideStatistics(std::string stats_file) : stats_file_(std::move(stats_file)) {}

  std::ostream& file(const std::string& suffix) override {
    std::unique_ptr<std::ofstream>& f = files_[suffix];
    if (!f) f = std::make_unique<std::ofstream>(beside_statistics(stats_file_, suffix));
    return *f;
  }

 private:
  std::string stats_file_;
  std::map<std::string, std::unique_ptr<std::ofstream>> files_;
};

}  // namespace

void write_files_beside_statistics(const std::string& stats_file, const DeviceOptions& device) {
  if (device.mode == SimulationMode::Functional) return;
  const std::string path = beside_statistics(stats_file, ".config.ini");
  std::ofstream out(path);
  out << dump_config(device.config);
  if (!out) throw std::runtime_error("cannot write '" + path + "'");
  FilesBesideStatistics files(stats_file);
  for (const auto& [name, policy] : timing_policies()) policy->write_extra_outputs(name, files);
}

}  // namespace tlmgpu::platform
