// The grid of a sweep spec as a list of runs, in a fixed order (the first
// dimension varies slowest), each with its coordinates and its tlmgpu run.
#pragma once

#include <string>
#include <vector>

#include "tools/paper_comparison/paper_comparison.h"
#include "tools/sweep/sweep_spec.h"

namespace sweep {

struct GridRun {
  std::vector<std::string> coords;  // one value per dimension, in dimensions() order
  paper_cmp::RunSpec spec;
};

// Every combination of the dimensions' values; launch-file and program runs
// take no seed, so they appear once with an empty seed rather than once per
// seed. A program runs under `tlmgpu exec` in the spec's directory. A launch
// file's dumps go to OUT_DIR/launch_output/RUN rather than beside the file.
std::vector<GridRun> expand_grid(const SweepSpec& spec, const std::vector<Dimension>& dims, const std::string& out_dir);

}  // namespace sweep
