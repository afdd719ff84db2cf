#include "tools/experiment/child_process.h"

#include <poll.h>

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>

extern char** environ;

namespace experiment {

namespace {

std::vector<char*> c_argv(const std::vector<std::string>& argv) {
  std::vector<char*> v;
  for (const std::string& a : argv) v.push_back(const_cast<char*>(a.c_str()));
  v.push_back(nullptr);
  return v;
}

pid_t spawn_task(const LaunchTask& t) {
  if (t.argv.empty()) throw LauncherError("empty command line");
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 2, t.log_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (t.stdout_path.empty())
    posix_spawn_file_actions_adddup2(&fa, 2, 1);
  else
    posix_spawn_file_actions_addopen(&fa, 1, t.stdout_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  // After the opens: the log paths stay relative to the launcher's directory.
  if (!t.cwd.empty()) posix_spawn_file_actions_addchdir_np(&fa, t.cwd.c_str());
  std::vector<char*> argv = c_argv(t.argv);
  pid_t pid = -1;
  const int rc = posix_spawnp(&pid, t.argv[0].c_str(), &fa, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  if (rc != 0) throw LauncherError("cannot start " + t.argv[0] + ": " + std::strerror(rc));
  return pid;
}

LaunchOutcome outcome_of(int wait_status) {
  LaunchOutcome o;
  if (WIFEXITED(wait_status)) {
    o.exited = true;
    o.exit_code = WEXITSTATUS(wait_status);
  } else if (WIFSIGNALED(wait_status)) {
    o.signal = WTERMSIG(wait_status);
    o.note = "killed by signal " + std::to_string(o.signal);
  }
  return o;
}

}  // namespace

void launch_local(const std::vector<LaunchTask>& tasks, unsigned jobs, const TaskFinished& finished,
                  const std::function<void(std::size_t index)>& started) {
  struct Running {
    pid_t pid;
    std::size_t index;
  };
  std::vector<Running> running;
  std::size_t next = 0;
  jobs = std::max(1u, jobs);
  while (next < tasks.size() || !running.empty()) {
    while (next < tasks.size() && running.size() < jobs) {
      if (started) started(next);
      running.push_back({spawn_task(tasks[next]), next});
      ++next;
    }
    int wstatus = 0;
    const pid_t pid = waitpid(-1, &wstatus, 0);
    if (pid < 0) {
      if (errno == EINTR) continue;
      throw std::runtime_error(std::string("waitpid: ") + std::strerror(errno));
    }
    auto it = std::find_if(running.begin(), running.end(), [pid](const Running& r) { return r.pid == pid; });
    if (it == running.end()) continue;  // a child this launcher did not start
    const std::size_t index = it->index;
    running.erase(it);
    finished(index, outcome_of(wstatus));
  }
}

CapturedRun run_and_capture(const std::vector<std::string>& argv) {
  if (argv.empty()) throw LauncherError("empty command line");
  int out_pipe[2], err_pipe[2];
  if (pipe(out_pipe) != 0) throw std::runtime_error(std::string("pipe: ") + std::strerror(errno));
  if (pipe(err_pipe) != 0) {
    close(out_pipe[0]);
    close(out_pipe[1]);
    throw std::runtime_error(std::string("pipe: ") + std::strerror(errno));
  }
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, out_pipe[1], 1);
  posix_spawn_file_actions_adddup2(&fa, err_pipe[1], 2);
  posix_spawn_file_actions_addclose(&fa, out_pipe[0]);
  posix_spawn_file_actions_addclose(&fa, err_pipe[0]);
  std::vector<char*> cargv = c_argv(argv);
  pid_t pid = -1;
  const int rc = posix_spawnp(&pid, argv[0].c_str(), &fa, nullptr, cargv.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  close(out_pipe[1]);
  close(err_pipe[1]);
  if (rc != 0) {
    close(out_pipe[0]);
    close(err_pipe[0]);
    throw LauncherError("cannot start '" + argv[0] + "': " + std::strerror(rc));
  }
  // Both pipes are drained together: a child filling one while we block on
  // the other would never finish.
  CapturedRun r;
  pollfd fds[2] = {{out_pipe[0], POLLIN, 0}, {err_pipe[0], POLLIN, 0}};
  std::string* sinks[2] = {&r.out, &r.err};
  int open_fds = 2;
  char buf[65536];
  while (open_fds > 0) {
    if (poll(fds, 2, -1) < 0) {
      if (errno == EINTR) continue;
      break;
    }
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      const ssize_t n = read(fds[i].fd, buf, sizeof buf);
      if (n > 0) {
        sinks[i]->append(buf, static_cast<std::size_t>(n));
      } else if (n == 0 || errno != EINTR) {
        close(fds[i].fd);
        fds[i].fd = -1;
        --open_fds;
      }
    }
  }
  for (pollfd& p : fds)
    if (p.fd >= 0) close(p.fd);
  int wstatus = 0;
  while (waitpid(pid, &wstatus, 0) < 0 && errno == EINTR) {
  }
  r.exit_code = WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : -1;
  return r;
}

std::string shell_quote(const std::string& s) {
  const bool plain = !s.empty() && std::all_of(s.begin(), s.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || std::strchr("_-./:=,+@%", c) != nullptr;
  });
  if (plain) return s;
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

std::string shell_join(const std::vector<std::string>& words) {
  std::string s;
  for (const std::string& w : words) s += (s.empty() ? "" : " ") + shell_quote(w);
  return s;
}

}  // namespace experiment
