#include "tools/sweep/sweep_table.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <regex>
#include <set>

namespace sweep {

using paper_cmp::Json;

std::optional<double> SweepTable::value(std::size_t run, const std::string& column) const {
  if (run >= values.size()) return std::nullopt;
  auto it = values[run].find(column);
  if (it == values[run].end()) return std::nullopt;
  return it->second;
}

bool SweepTable::has_column(const std::string& column) const {
  return std::find(statistics.begin(), statistics.end(), column) != statistics.end() ||
         std::find(scheduler_classes.begin(), scheduler_classes.end(), column) != scheduler_classes.end();
}

namespace {

// Host times differ from run to run; they would make two identical sweeps'
// CSVs differ.
bool is_host_time(const std::string& key) { return key.find("host") != std::string::npos; }

// Rates and averages do not add up over schedulers.
bool is_summable_class(const std::string& cls) {
  return cls.find("rate") == std::string::npos && cls.rfind("avg", 0) != 0;
}

const std::regex& scheduler_key() {
  // gpu.sm3.sched1.scoreboard, as a flat key or as the path of nested objects.
  static const std::regex re(R"((^|\.)sm[0-9]+\.sched[0-9]+\.([A-Za-z0-9_]+)$)");
  return re;
}

void add_scheduler_classes(const Json& j, const std::string& path, std::map<std::string, double>& out) {
  if (!j.is_object()) return;
  for (auto it = j.begin(); it != j.end(); ++it) {
    if (path.empty() && it.key() == "launches") continue;  // per-launch timelines, not statistics
    const std::string full = path.empty() ? it.key() : path + "." + it.key();
    if (it->is_object()) {
      add_scheduler_classes(*it, full, out);
    } else if (it->is_number()) {
      std::smatch m;
      if (std::regex_search(full, m, scheduler_key()) && is_summable_class(m[2].str()))
        out["sched_" + m[2].str()] += it->get<double>();
    }
  }
}

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string q = "\"";
  for (char c : s) q += (c == '"') ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

}  // namespace

std::string format_value(double v) {
  char buf[64];
  if (std::isfinite(v) && v == std::floor(v) && std::fabs(v) < 1e15)
    std::snprintf(buf, sizeof buf, "%.0f", v);
  else
    std::snprintf(buf, sizeof buf, "%.12g", v);
  return buf;
}

SweepTable collect_table(const std::vector<Dimension>& dims, const std::vector<const paper_cmp::RunResult*>& results) {
  SweepTable t;
  std::set<std::string> stats, classes, coordinates;
  for (const Dimension& d : dims) coordinates.insert(d.name);
  for (const paper_cmp::RunResult* r : results) {
    std::map<std::string, double> row;
    if (r->status == paper_cmp::RunStatus::Ok && r->stats.is_object()) {
      for (auto it = r->stats.begin(); it != r->stats.end(); ++it)
        if (it->is_number() && !is_host_time(it.key()) && !coordinates.count(it.key())) {
          row[it.key()] = it->get<double>();
          stats.insert(it.key());
        }
      std::map<std::string, double> sched;
      add_scheduler_classes(r->stats, "", sched);
      for (const auto& [k, v] : sched) {
        row[k] = v;
        classes.insert(k);
      }
    }
    t.values.push_back(std::move(row));
  }
  for (const char* first : {"sim_cycles", "ipc"})
    if (stats.erase(first)) t.statistics.push_back(first);
  t.statistics.insert(t.statistics.end(), stats.begin(), stats.end());
  t.scheduler_classes.assign(classes.begin(), classes.end());
  return t;
}

std::string csv_text(const std::vector<Dimension>& dims, const std::vector<GridRun>& runs,
                     const std::vector<const paper_cmp::RunResult*>& results, const SweepTable& table) {
  std::vector<std::string> header = {"run"};
  for (const Dimension& d : dims) header.push_back(d.name);
  header.insert(header.end(), {"status", "note"});
  header.insert(header.end(), table.statistics.begin(), table.statistics.end());
  header.insert(header.end(), table.scheduler_classes.begin(), table.scheduler_classes.end());
  header.insert(header.end(), {"command", "config_hash"});

  auto line = [](const std::vector<std::string>& fields) {
    std::string s;
    for (std::size_t i = 0; i < fields.size(); ++i) s += (i ? "," : "") + csv_field(fields[i]);
    return s + "\n";
  };
  std::string text = line(header);
  for (std::size_t i = 0; i < runs.size(); ++i) {
    const paper_cmp::RunResult& r = *results[i];
    std::vector<std::string> f = {std::to_string(i)};
    f.insert(f.end(), runs[i].coords.begin(), runs[i].coords.end());
    f.push_back(paper_cmp::status_name(r.status));
    f.push_back(r.note);
    for (const std::string& c : table.statistics) {
      const auto v = table.value(i, c);
      f.push_back(v ? format_value(*v) : "");
    }
    for (const std::string& c : table.scheduler_classes) {
      const auto v = table.value(i, c);
      f.push_back(v ? format_value(*v) : "");
    }
    f.push_back(r.command);
    f.push_back(r.config_hash);
    text += line(f);
  }
  return text;
}

}  // namespace sweep
