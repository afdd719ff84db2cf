#include "tools/sweep/sweep_report.h"

#include <cmath>
#include <cstdlib>
#include <map>
#include <optional>

namespace sweep {

using paper_cmp::Json;

namespace {

std::size_t dimension_index(const std::vector<Dimension>& dims, const std::string& name) {
  for (std::size_t i = 0; i < dims.size(); ++i)
    if (dims[i].name == name) return i;
  return dims.size();
}

Json coordinates_json(const Coordinates& c) {
  Json j = Json::object();
  for (const auto& [k, v] : c.pairs) j[k] = v;
  return j;
}

Json optional_number(std::optional<double> v) { return v ? Json(*v) : Json(nullptr); }

struct Point {
  std::vector<double> values;  // one per contributing run
  std::vector<std::size_t> runs, baseline_runs;
  double raw_sum = 0;
  std::size_t raw_count = 0;
  std::size_t grid_runs = 0;  // runs of the grid at this point, successful or not
};

Json figure_json(const SweepSpec& spec, const FigureSpec& f, const std::vector<Dimension>& dims,
                 const std::vector<GridRun>& runs, const SweepTable& table) {
  const Coordinates& baseline = f.baseline_given ? f.baseline : spec.baseline;
  const bool normalised = !baseline.pairs.empty();
  const std::size_t xi = dimension_index(dims, f.x);
  const std::size_t si = f.series.empty() ? dims.size() : dimension_index(dims, f.series);

  std::map<std::vector<std::string>, std::size_t> run_at;
  for (std::size_t i = 0; i < runs.size(); ++i) run_at[runs[i].coords] = i;

  auto selected = [&](const std::vector<std::string>& coords) {
    for (const auto& [name, value] : f.where.pairs)
      if (coords[dimension_index(dims, name)] != value) return false;
    return true;
  };

  // The x and series values that occur after `where`, in dimension order.
  std::vector<std::string> x_values, series_values;
  for (const std::string& v : dims[xi].values)
    for (const GridRun& r : runs)
      if (r.coords[xi] == v && selected(r.coords)) {
        x_values.push_back(v);
        break;
      }
  if (si == dims.size()) {
    series_values = {""};
  } else {
    for (const std::string& v : dims[si].values)
      for (const GridRun& r : runs)
        if (r.coords[si] == v && selected(r.coords)) {
          series_values.push_back(v);
          break;
        }
  }

  std::map<std::pair<std::string, std::string>, Point> points;
  for (std::size_t i = 0; i < runs.size(); ++i) {
    const std::vector<std::string>& c = runs[i].coords;
    if (!selected(c)) continue;
    Point& p = points[{si == dims.size() ? "" : c[si], c[xi]}];
    ++p.grid_runs;
    const std::optional<double> v = table.value(i, f.metric);
    if (!v) continue;
    p.raw_sum += *v;
    ++p.raw_count;
    if (!normalised) {
      p.values.push_back(*v);
      p.runs.push_back(i);
      continue;
    }
    std::vector<std::string> base = c;
    for (const auto& [name, value] : baseline.pairs) base[dimension_index(dims, name)] = value;
    auto b = run_at.find(base);
    if (b == run_at.end()) continue;  // e.g. a launch-file run against a seeded baseline
    const std::optional<double> bv = table.value(b->second, f.metric);
    if (!bv || *bv == 0) continue;
    p.values.push_back(*v / *bv);
    p.runs.push_back(i);
    p.baseline_runs.push_back(b->second);
  }

  std::string aggregate = f.aggregate;
  if (aggregate.empty()) {
    bool one_each = true;
    for (const auto& [key, p] : points) one_each = one_each && p.grid_runs <= 1;
    aggregate = one_each ? "none" : normalised ? "geomean" : "mean";
  }

  Json pts = Json::array();
  for (const std::string& s : series_values)
    for (const std::string& x : x_values) {
      const Point p = points.count({s, x}) ? points.at({s, x}) : Point{};
      std::optional<double> value;
      if (!p.values.empty()) {
        double sum = 0, log_sum = 0;
        bool positive = true;
        for (double v : p.values) {
          sum += v;
          positive = positive && v > 0;
          if (v > 0) log_sum += std::log(v);
        }
        const double n = static_cast<double>(p.values.size());
        if (aggregate == "geomean") {
          if (positive) value = std::exp(log_sum / n);  // no geometric mean of zero or negative values
        } else {
          value = sum / n;
        }
      }
      Json point = {{"series", s},
                    {"x", x},
                    {"value", optional_number(value)},
                    {"raw", p.raw_count ? Json(p.raw_sum / static_cast<double>(p.raw_count)) : Json(nullptr)},
                    {"n", p.values.size()},
                    {"runs", p.runs},
                    {"baseline_runs", p.baseline_runs}};
      pts.push_back(point);
    }

  Json x_numeric = nullptr;
  if (f.kind == "lines") {
    x_numeric = Json::array();
    for (const std::string& x : x_values) x_numeric.push_back(std::strtod(x.c_str(), nullptr));
  }
  std::string y_label = f.metric;
  if (normalised) {
    std::string at;
    for (const auto& [k, v] : baseline.pairs) at += (at.empty() ? "" : ", ") + k + "=" + v;
    y_label = f.metric + " / " + f.metric + " at " + at;
  }
  return {{"name", f.name},
          {"title", f.title.empty() ? f.metric + " by " + f.x : f.title},
          {"metric", f.metric},
          {"normalise_to", normalised ? coordinates_json(baseline) : Json(nullptr)},
          {"kind", f.kind},
          {"x", f.x},
          {"series", f.series.empty() ? Json(nullptr) : Json(f.series)},
          {"where", coordinates_json(f.where)},
          {"aggregate", aggregate},
          {"y_label", y_label},
          {"x_values", x_values},
          {"x_numeric", x_numeric},
          {"series_values", series_values},
          {"points", pts}};
}

}  // namespace

Json report_json(const SweepSpec& spec, const std::vector<Dimension>& dims, const std::vector<GridRun>& runs,
                 const std::vector<const paper_cmp::RunResult*>& results, const SweepTable& table) {
  std::size_t ok = 0;
  for (const paper_cmp::RunResult* r : results) ok += r->status == paper_cmp::RunStatus::Ok;
  for (const FigureSpec& f : spec.figures)
    if (ok > 0 && !table.has_column(f.metric)) {
      std::string known;
      for (const std::string& c : table.statistics) known += (known.empty() ? "" : " ") + c;
      for (const std::string& c : table.scheduler_classes) known += " " + c;
      auto it = f.key_lines.find("metric");
      throw spec.error(it == f.key_lines.end() ? f.line : it->second, "metric",
                       "'" + f.metric + "' is not a column of sweep.csv (columns: " + known + ")");
    }

  Json j;
  j["schema"] = "tlmgpu-sweep-report/1";
  j["title"] = spec.title;
  j["spec"] = spec.path;
  j["csv"] = "sweep.csv";
  j["size"] = spec.size;
  j["mode"] = spec.mode;
  j["baseline"] = spec.baseline.pairs.empty() ? Json(nullptr) : coordinates_json(spec.baseline);
  Json d = Json::array();
  std::vector<std::string> coordinate_columns;
  for (const Dimension& dim : dims) {
    d.push_back({{"name", dim.name}, {"values", dim.values}, {"numeric", dim.numeric}});
    coordinate_columns.push_back(dim.name);
  }
  j["dimensions"] = d;
  // What each program value of the workload dimension ran (the CSV's command
  // column has it per run).
  Json programs = Json::array();
  for (const ProgramSpec& p : spec.programs)
    programs.push_back({{"name", p.name}, {"path", p.path}, {"arguments", p.arguments}});
  j["programs"] = programs;
  j["columns"] = {{"coordinates", coordinate_columns},
                  {"statistics", table.statistics},
                  {"scheduler_classes", table.scheduler_classes}};
  j["runs"] = {{"total", runs.size()}, {"ok", ok}, {"failed", runs.size() - ok}};
  Json figs = Json::array();
  for (const FigureSpec& f : spec.figures) figs.push_back(figure_json(spec, f, dims, runs, table));
  j["figures"] = figs;
  return j;
}

}  // namespace sweep
