// OUT/report.json: what the report script (scripts/report/sweep_report.py)
// draws. All grid lookups, baselines and averaging happen here, so the
// script only plots points (schema: docs/EXPERIMENTS.md, "report.json").
#pragma once

#include <string>
#include <vector>

#include "tools/paper_comparison/paper_comparison.h"
#include "tools/sweep/sweep_grid.h"
#include "tools/sweep/sweep_spec.h"
#include "tools/sweep/sweep_table.h"

namespace sweep {

// Throws SpecError when a figure's metric is not a column of the table
// (checked here because the columns are known only once runs have finished).
paper_cmp::Json report_json(const SweepSpec& spec, const std::vector<Dimension>& dims,
                            const std::vector<GridRun>& runs, const std::vector<const paper_cmp::RunResult*>& results,
                            const SweepTable& table);

}  // namespace sweep
