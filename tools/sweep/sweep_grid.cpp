#include "tools/sweep/sweep_grid.h"

#include <algorithm>
#include <filesystem>

namespace sweep {

namespace {

paper_cmp::RunSpec run_for(const SweepSpec& spec, const std::vector<Dimension>& dims,
                           const std::vector<std::string>& coords, bool is_launch, const std::string& output_dir) {
  paper_cmp::RunSpec r;
  if (is_launch)
    r.launch = (std::filesystem::path(spec.dir) / coords[0]).string();
  else
    r.workload = coords[0];
  r.scheduler = coords[1];
  r.preset = coords[2];
  // dims: workload, scheduler, preset, the [set] keys, seed.
  for (std::size_t d = 3; d + 1 < dims.size(); ++d) {
    r.extra.push_back("--set");
    r.extra.push_back(dims[d].name + "=" + coords[d]);
  }
  if (is_launch) {
    // Runs in parallel must not write the same dump files, nor into the
    // directory the launch file came from.
    r.extra.push_back("--output-dir");
    r.extra.push_back(output_dir);
  } else {
    r.extra.push_back("--seed");
    r.extra.push_back(coords.back());
  }
  return r;
}

}  // namespace

std::vector<GridRun> expand_grid(const SweepSpec& spec, const std::vector<Dimension>& dims, const std::string& out_dir) {
  std::vector<GridRun> runs;
  std::vector<std::size_t> index(dims.size(), 0);
  const std::size_t seed_dim = dims.size() - 1;
  if (std::any_of(dims.begin(), dims.end(), [](const Dimension& d) { return d.values.empty(); })) return runs;
  while (true) {
    std::vector<std::string> coords;
    for (std::size_t d = 0; d < dims.size(); ++d) coords.push_back(dims[d].values[index[d]]);
    const bool is_launch = std::find(spec.launches.values.begin(), spec.launches.values.end(), coords[0]) !=
                           spec.launches.values.end();
    if (is_launch) coords[seed_dim] = "";
    if (!is_launch || index[seed_dim] == 0) {
      const std::string output_dir =
          (std::filesystem::path(out_dir) / "launch_output" / std::to_string(runs.size())).string();
      runs.push_back({coords, run_for(spec, dims, coords, is_launch, output_dir)});
    }
    // Odometer: the last dimension turns fastest.
    std::size_t d = dims.size();
    while (d > 0) {
      --d;
      if (++index[d] < dims[d].values.size()) break;
      index[d] = 0;
      if (d == 0) return runs;
    }
  }
}

}  // namespace sweep
