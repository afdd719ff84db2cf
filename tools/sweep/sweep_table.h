// The numbers of a sweep: per run, every top-level numeric statistic (host
// times left out, so the CSV is the same on every machine) and the
// scheduler's issue-slot classes summed over all SMs and schedulers; and the
// CSV that holds them beside the grid coordinates.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "tools/paper_comparison/paper_comparison.h"
#include "tools/sweep/sweep_grid.h"
#include "tools/sweep/sweep_spec.h"

namespace sweep {

struct SweepTable {
  std::vector<std::string> statistics;         // sim_cycles, ipc, then the others by name
  std::vector<std::string> scheduler_classes;  // sched_CLASS, by name
  std::vector<std::map<std::string, double>> values;  // per run, column -> value

  std::optional<double> value(std::size_t run, const std::string& column) const;
  bool has_column(const std::string& column) const;
};

// `results[i]` is the result of grid run i. A statistic named like a
// dimension (the `seed` a run reports) is left out: the coordinate holds it.
SweepTable collect_table(const std::vector<Dimension>& dims, const std::vector<const paper_cmp::RunResult*>& results);

// The whole CSV (docs/EXPERIMENTS.md, "sweep.csv"): run, coordinates, status,
// note, statistics, scheduler classes, command, config_hash.
std::string csv_text(const std::vector<Dimension>& dims, const std::vector<GridRun>& runs,
                     const std::vector<const paper_cmp::RunResult*>& results, const SweepTable& table);

// Integral values as integers, others with 12 significant digits (ratios
// computed from the CSV then agree with report.json to about 1e-11).
std::string format_value(double v);

}  // namespace sweep
