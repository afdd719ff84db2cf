// A sweep spec: the INI file a user writes to describe a grid of tlmgpu runs
// and the figures to draw from it (docs/EXPERIMENTS.md, "Sweeps of your own").
// Every value keeps the line it came from, so that each mistake found later
// (a workload tlmgpu does not know, a bad --set key) can name it.
#pragma once

#include <map>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace sweep {

// A mistake in the spec; what() is "FILE:LINE: key 'KEY': reason".
struct SpecError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// A whitespace-separated list of values from one line.
struct ValueList {
  std::vector<std::string> values;
  int line = 0;  // 0: the key was not given
  bool given() const { return line != 0; }
};

// dimension=value pairs (a baseline, a figure's `where`).
struct Coordinates {
  std::vector<std::pair<std::string, std::string>> pairs;
  int line = 0;
};

struct SetKey {
  std::string key;  // a tlmgpu configuration key, section.name
  ValueList list;
};

// A CUDA program the sweep runs under `tlmgpu exec` (`program = ...` or
// `program.NAME = ...` in [sweep]).
struct ProgramSpec {
  std::string key;   // program or program.NAME, for messages
  std::string name;  // its value of the workload dimension: NAME, else the file name
  std::string path;  // as resolved: relative to the spec's directory, or absolute
  std::vector<std::string> arguments;
  int line = 0;
};

struct FigureSpec {
  std::string name;
  int line = 0;  // of the [figure NAME] header
  std::map<std::string, int> key_lines;
  std::string title;
  std::string metric;
  bool baseline_given = false;  // else the [sweep] baseline applies
  Coordinates baseline;         // empty pairs: raw values
  std::string kind = "bars";
  std::string x, series;        // series empty: one series
  Coordinates where;
  std::string aggregate;        // empty: automatic
};

struct SweepSpec {
  std::string path;  // as given
  std::string dir;   // launch files are relative to it
  std::map<std::string, int> key_lines;  // [sweep] keys
  std::string title;
  std::string size = "small";
  std::string mode = "timing";
  ValueList workloads, launches, schedulers, presets, seeds;
  std::vector<ProgramSpec> programs;  // in file order
  Coordinates baseline;
  std::vector<SetKey> sets;  // in file order
  std::vector<FigureSpec> figures;

  // "FILE:LINE: key 'KEY': reason" (key omitted when empty).
  SpecError error(int line, const std::string& key, const std::string& reason) const;
};

// One axis of the grid, in grid order: workload (workloads, launch files, then
// programs),
// scheduler, preset, each [set] key in file order, seed.
struct Dimension {
  std::string name;
  std::vector<std::string> values;
  bool numeric = false;  // every value parses as a number
  int line = 0;
};

// Reads and checks the file on its own (syntax, keys, empty or repeated
// values, figures naming real dimensions and values, launch files and
// programs that exist). Throws SpecError.
SweepSpec parse_spec(const std::string& path);

std::vector<Dimension> dimensions(const SweepSpec& spec);

bool is_number(const std::string& s);

// A `program` value as words: split at blanks; '...' keeps everything
// literally, "..." keeps blanks and takes \" \\ as escapes, and outside
// quotes \ escapes the next character. No variables, globs or redirections.
// Throws std::invalid_argument naming an unterminated quote or a trailing \.
std::vector<std::string> split_command_line(const std::string& text);

}  // namespace sweep
