// Starting child processes for the experiment programs: the tasks a launcher
// runs (one `tlmgpu run` each), and short commands whose output is needed
// (sbatch, squeue). Also the shell quoting that makes a command copy-pasteable.
#pragma once

#include <cstddef>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

namespace experiment {

// One process a launcher runs. argv[0] is the program (a path, or a name
// looked up on PATH). Its stderr goes to `log_path`; so does its stdout unless
// `stdout_path` is set. It runs in `cwd` (empty: the launcher's own working
// directory; on a cluster, the job's).
struct LaunchTask {
  std::vector<std::string> argv;
  std::string log_path;
  std::string stdout_path;
  std::string cwd;
};

// How a task ended. `exited` false means no exit code: killed by `signal`, or
// (on a cluster) the element never reported one; `note` then says why.
struct LaunchOutcome {
  bool exited = false;
  int exit_code = -1;
  int signal = 0;
  std::string note;
  // Where a cluster ran it ("Slurm job 12_3, output DIR/element_3.out"), for
  // failure reports; empty on this machine.
  std::string where;
};

// Called once per task as it ends (index into the task list), on the
// launcher's thread.
using TaskFinished = std::function<void(std::size_t index, const LaunchOutcome& outcome)>;

// A problem with the launcher itself rather than with a run (a missing
// program, a rejected submission): the experiment programs exit 2 on it.
struct LauncherError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Runs the tasks on this machine, at most `jobs` at a time; `started` (when
// given) is called as each one starts.
void launch_local(const std::vector<LaunchTask>& tasks, unsigned jobs, const TaskFinished& finished,
                  const std::function<void(std::size_t index)>& started = {});

struct CapturedRun {
  int exit_code = -1;  // -1 when killed by a signal
  std::string out, err;
  std::string output() const { return out + err; }  // for messages
};
// Runs argv (argv[0] looked up on PATH) to completion and returns what it
// wrote to stdout and to stderr.
// Throws LauncherError when the program cannot be started.
CapturedRun run_and_capture(const std::vector<std::string>& argv);

// `s` as one shell word: unchanged when it holds only characters no shell
// treats specially, else in single quotes.
std::string shell_quote(const std::string& s);
std::string shell_join(const std::vector<std::string>& words);

}  // namespace experiment
