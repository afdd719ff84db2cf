// The runner both experiment programs use (through paper_cmp::run_all): turns
// RunSpecs into `tlmgpu run` processes on a launcher (this machine or a Slurm
// job array), shows progress, and resumes from an earlier --out.
//
// A run's identity is its command line (binary name and arguments, without
// the statistics path) and the hash of the effective configuration that
// command would simulate (`tlmgpu run ... --dump-config`). Beside each run's
// statistics, OUT/runs/STEM.meta.json records both with the outcome; a later
// invocation with the same --out reuses a finished run (ok or unsupported)
// whose identity is unchanged, unless --force.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "tools/paper_comparison/paper_comparison.h"

namespace experiment {

// Runs every spec not yet in `results`; see paper_cmp::run_all.
void run_pool(const std::vector<paper_cmp::RunSpec>& specs, const paper_cmp::RunnerOptions& opt,
              std::map<std::string, paper_cmp::RunResult>& results);

// FNV-1a, 64 bits, as 16 lower-case hex digits: the configuration hash.
std::string fnv1a64_hex(const std::string& text);

// The file name stem of a run's statistics, log and meta files: readable,
// and stable across invocations (derived from the run's key alone).
std::string run_file_stem(const std::string& run_key);

}  // namespace experiment
