// The command-line options every experiment program (tlmgpu_papers,
// tlmgpu_sweep) takes for its run pool, parsed in one place.
#pragma once

#include <stdexcept>
#include <string>

#include "tools/experiment/slurm_launcher.h"

namespace experiment {

// Bad usage: the programs print it with their usage text and exit 2.
struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct PoolOptions {
  unsigned jobs = 0;  // 0 until finish_pool_options: the number of cores
  bool jobs_given = false;
  unsigned threads = 0;  // host threads per run (tlmgpu --threads); 0 until finish_pool_options
  std::string tlmgpu;  // default: tlmgpu beside this program
  bool force = false, dry_run = false, verbose = false;
  std::string launcher = "local";  // local | slurm
  SlurmOptions slurm;
  std::string slurm_option;  // the last --slurm-* option given (it needs --launcher slurm)
};

// The options' lines for a program's --help.
extern const char* const kPoolOptionsHelp;

// When argv[i] is one of the pool's options, takes it (and its value, moving
// i past it) into `o` and returns true. Throws UsageError on a bad value.
bool take_pool_option(int argc, char** argv, int& i, PoolOptions& o);

// After every option: the checks between options and the defaults.
void finish_pool_options(PoolOptions& o, const char* argv0);

}  // namespace experiment
