// Runs a list of tasks as one Slurm job array: `sbatch --parsable --array`,
// then `squeue` until the job is gone. Each element runs one line of a task
// list and writes its exit code to a file, so no accounting database (sacct)
// is needed; statistics and logs land in the shared output directory.
#pragma once

#include <string>
#include <vector>

#include "tools/experiment/child_process.h"

namespace experiment {

struct SlurmOptions {
  std::string partition;     // sbatch --partition (empty: the cluster's default)
  std::string time;          // sbatch --time, per array element (one run)
  std::string mem;           // sbatch --mem, per array element
  std::string account;       // sbatch --account
  unsigned cpus_per_task = 1;  // sbatch --cpus-per-task: the host threads of one run (> 1 only)
  unsigned array_limit = 0;  // at most this many elements at once (--array=...%N); 0: no limit
  unsigned poll_ms = 1000;   // squeue interval
  std::string sbatch = "sbatch", squeue = "squeue", scancel = "scancel";
};

// Writes the job script and task list into `work_dir` (which must be on a
// file system the compute nodes share), submits one array job and waits for
// it, calling `finished` for each element as its exit code appears. Paths in
// the tasks must be absolute. Throws LauncherError when sbatch is missing or
// rejects the job. An interrupt (SIGINT, SIGTERM) while waiting cancels the
// job and throws std::runtime_error.
void launch_slurm(const std::vector<LaunchTask>& tasks, const SlurmOptions& opt, const std::string& work_dir,
                  const TaskFinished& finished);

}  // namespace experiment
