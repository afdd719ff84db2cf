#include "tools/experiment/python_report.h"

#include <spawn.h>
#include <fcntl.h>
#include <sys/wait.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>

extern char** environ;

#ifndef TLMGPU_REPORT_SCRIPTS
#error "TLMGPU_REPORT_SCRIPTS must name scripts/report (set by CMake)"
#endif

namespace experiment {

namespace {

// Spawns argv[0] (searched on PATH), output inherited or discarded; returns
// the exit code, -1 when it could not start or died by a signal.
int spawn_and_wait(const std::vector<std::string>& args, bool quiet) {
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  if (quiet) {
    posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_adddup2(&fa, 1, 2);
  }
  std::vector<char*> argv;
  for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  pid_t pid = -1;
  const int rc = posix_spawnp(&pid, argv[0], &fa, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  if (rc != 0) return -1;
  int status = 0;
  while (waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

}  // namespace

std::string report_scripts_dir() {
  if (const char* env = std::getenv("TLMGPU_REPORT_SCRIPTS"); env && *env) return env;
  return TLMGPU_REPORT_SCRIPTS;
}

std::string python_with_matplotlib() {
  if (const char* env = std::getenv("TLMGPU_PYTHON"); env && *env) return env;
  for (const char* candidate : {"/usr/bin/python3", "python3"})
    if (spawn_and_wait({candidate, "-c", "import matplotlib"}, true) == 0) return candidate;
  return {};
}

int run_report_script(const std::string& script, const std::vector<std::string>& args, std::ostream& err) {
  const std::string python = python_with_matplotlib();
  if (python.empty()) {
    err << "no Python 3 with matplotlib found (install Debian's python3-matplotlib, or set TLMGPU_PYTHON)\n";
    return 127;
  }
  const std::filesystem::path path = std::filesystem::path(report_scripts_dir()) / script;
  if (!std::filesystem::exists(path)) {
    err << "report script " << path.string() << " is missing (set TLMGPU_REPORT_SCRIPTS)\n";
    return 127;
  }
  std::vector<std::string> argv = {python, path.string()};
  argv.insert(argv.end(), args.begin(), args.end());
  const int rc = spawn_and_wait(argv, false);
  if (rc < 0) err << "cannot run " << python << " " << path.string() << '\n';
  return rc < 0 ? 127 : rc;
}

}  // namespace experiment
