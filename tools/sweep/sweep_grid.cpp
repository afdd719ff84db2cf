#include "tools/sweep/sweep_grid.h"

#include <algorithm>
#include <filesystem>

namespace sweep {

namespace {

namespace fs = std::filesystem;

const ProgramSpec* program_named(const SweepSpec& spec, const std::string& name) {
  for (const ProgramSpec& p : spec.programs)
    if (p.name == name) return &p;
  return nullptr;
}

paper_cmp::RunSpec run_for(const SweepSpec& spec, const std::vector<Dimension>& dims,
                           const std::vector<std::string>& coords, bool is_launch, const ProgramSpec* program,
                           const std::string& output_dir) {
  paper_cmp::RunSpec r;
  if (program) {
    // Absolute, so that the command reproduces the run from anywhere; the
    // program runs in the spec's directory, where its relative arguments
    // start, as its path did.
    r.program = {fs::absolute(program->path).lexically_normal().string()};
    r.program.insert(r.program.end(), program->arguments.begin(), program->arguments.end());
    fs::path dir = fs::absolute(spec.dir.empty() ? fs::current_path() : fs::path(spec.dir)).lexically_normal();
    if (!dir.has_filename() && dir != dir.root_path()) dir = dir.parent_path();  // "/a/b/" from "/a/b/c/.."
    r.cwd = dir.string();
    r.workload = coords[0];  // not an option of exec: it names the run in progress lines and file names
  } else if (is_launch) {
    r.launch = (fs::path(spec.dir) / coords[0]).string();
  } else {
    r.workload = coords[0];
  }
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
  } else if (!program) {
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
    const ProgramSpec* program = is_launch ? nullptr : program_named(spec, coords[0]);
    const bool seeded = !is_launch && !program;
    if (!seeded) coords[seed_dim] = "";
    if (seeded || index[seed_dim] == 0) {
      const std::string output_dir = (fs::path(out_dir) / "launch_output" / std::to_string(runs.size())).string();
      runs.push_back({coords, run_for(spec, dims, coords, is_launch, program, output_dir)});
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
