// tlmgpu_sweep asks tlmgpu about names and configurations before it runs the
// grid (`tlmgpu list ...`, `tlmgpu run ... --dump-config`); these are short
// children whose output is read back rather than written to a log.
#pragma once

#include <string>
#include <vector>

namespace sweep {

struct CapturedOutput {
  int exit_code = -1;  // -1: killed by a signal
  std::string out, err;
};

// Runs BINARY ARGS... and waits for it. Throws std::runtime_error when the
// binary cannot be started.
CapturedOutput run_capture(const std::string& binary, const std::vector<std::string>& args);

// ARGS as one shell command line, each argument quoted only when it needs it.
std::string shell_command(const std::string& binary, const std::vector<std::string>& args);

}  // namespace sweep
