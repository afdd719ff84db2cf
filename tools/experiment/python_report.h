// The experiment programs (tlmgpu_papers, tlmgpu_sweep) draw their figures and
// HTML pages with Python scripts in scripts/report/ (matplotlib). The
// simulator never needs Python; these programs only call out to it at the end.
#pragma once

#include <ostream>
#include <string>
#include <vector>

namespace experiment {

// The directory holding the report scripts: $TLMGPU_REPORT_SCRIPTS when set,
// else the source tree's scripts/report (compiled in).
std::string report_scripts_dir();

// The Python interpreter to use: $TLMGPU_PYTHON when set; else the first of
// /usr/bin/python3 and `python3` on PATH that imports matplotlib (a user's
// pyenv python3 usually lacks Debian's python3-matplotlib). Empty when none does.
std::string python_with_matplotlib();

// Runs `PYTHON report_scripts_dir()/SCRIPT ARGS...`, its output going to
// this process's stdout/stderr. Returns its exit code; 127 with a message on
// `err` when no Python with matplotlib is found or the script is missing.
int run_report_script(const std::string& script, const std::vector<std::string>& args, std::ostream& err);

}  // namespace experiment
