// Running the experiment programs from a test and reading what they wrote:
// shared by the paper comparison, sweep, run pool and Slurm launcher tests.
#pragma once

#include <sys/stat.h>
#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace experiment_test {

namespace fs = std::filesystem;

inline std::string read_text(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), {});
}

// Splits one CSV line; quoted fields may hold commas and doubled quotes.
inline std::vector<std::string> csv_fields(const std::string& line) {
  std::vector<std::string> f(1);
  bool quoted = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
        f.back() += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        f.back() += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      f.emplace_back();
    } else {
      f.back() += c;
    }
  }
  return f;
}

inline std::vector<std::vector<std::string>> read_csv(const fs::path& p) {
  std::vector<std::vector<std::string>> rows;
  std::istringstream is(read_text(p));
  for (std::string line; std::getline(is, line);) rows.push_back(csv_fields(line));
  return rows;
}

// The index of column `name` in the header row (the first match).
inline std::size_t column_of(const std::vector<std::string>& header, const std::string& name) {
  for (std::size_t i = 0; i < header.size(); ++i)
    if (header[i] == name) return i;
  return header.size();
}

// Runs `tlmgpu_papers ARGS` with `env` prepended (VAR=value ...), its output
// in `out` / `err`; returns the exit code.
inline int run_experiment_program(const std::string& program, const fs::path& dir, const std::string& args,
                                  std::string& out, std::string& err, const std::string& env = "") {
  const std::string cmd = env + (env.empty() ? "" : " ") + "/usr/bin/timeout 300 '" + program + "' " + args + " >'" +
                          (dir / "stdout.txt").string() + "' 2>'" + (dir / "stderr.txt").string() + "'";
  const int rc = std::system(cmd.c_str());
  out = read_text(dir / "stdout.txt");
  err = read_text(dir / "stderr.txt");
  return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

inline int run_papers(const fs::path& dir, const std::string& args, std::string& out, std::string& err,
                      const std::string& env = "") {
  return run_experiment_program(TLMGPU_PAPERS, dir, args, out, err, env);
}

// An executable shell script.
inline std::string write_script(const fs::path& p, const std::string& body) {
  std::ofstream(p) << "#!/bin/sh\n" << body;
  chmod(p.c_str(), 0755);
  return p.string();
}

inline std::size_t count_of(const std::string& text, const std::string& needle) {
  std::size_t n = 0;
  for (std::size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) ++n;
  return n;
}

}  // namespace experiment_test
