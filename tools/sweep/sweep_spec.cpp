#include "tools/sweep/sweep_spec.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <stdexcept>

#include <unistd.h>

namespace sweep {

namespace fs = std::filesystem;

SpecError SweepSpec::error(int line, const std::string& key, const std::string& reason) const {
  std::string where = path;
  if (line > 0) where += ":" + std::to_string(line);
  return SpecError(where + ": " + (key.empty() ? "" : "key '" + key + "': ") + reason);
}

bool is_number(const std::string& s) {
  if (s.empty()) return false;
  char* end = nullptr;
  std::strtod(s.c_str(), &end);
  return end == s.c_str() + s.size();
}

std::vector<std::string> split_command_line(const std::string& text) {
  std::vector<std::string> words;
  std::string word;
  bool in_word = false;  // rather than !word.empty(): '' is an empty argument
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == ' ' || c == '\t') {
      if (in_word) words.push_back(word);
      word.clear();
      in_word = false;
      continue;
    }
    in_word = true;
    if (c == '\'') {
      const std::size_t end = text.find('\'', i + 1);
      if (end == std::string::npos) throw std::invalid_argument("a ' is not closed: " + text.substr(i));
      word += text.substr(i + 1, end - i - 1);
      i = end;
    } else if (c == '"') {
      std::size_t j = i + 1;
      for (; j < text.size() && text[j] != '"'; ++j) {
        if (text[j] == '\\' && j + 1 < text.size() && (text[j + 1] == '"' || text[j + 1] == '\\')) ++j;
        word += text[j];
      }
      if (j >= text.size()) throw std::invalid_argument("a \" is not closed: " + text.substr(i));
      i = j;
    } else if (c == '\\') {
      if (i + 1 >= text.size()) throw std::invalid_argument("the line ends with a \\ that escapes nothing");
      word += text[++i];
    } else {
      word += c;
    }
  }
  if (in_word) words.push_back(word);
  return words;
}

namespace {

std::string trim(const std::string& s) {
  const std::size_t b = s.find_first_not_of(" \t\r");
  if (b == std::string::npos) return "";
  const std::size_t e = s.find_last_not_of(" \t\r");
  return s.substr(b, e - b + 1);
}

std::vector<std::string> split_words(const std::string& s) {
  std::vector<std::string> v;
  std::istringstream is(s);
  for (std::string w; is >> w;) v.push_back(w);
  return v;
}

// Besides `program` and `program.NAME` (Parser::program_key).
const std::set<std::string> kSweepKeys = {"title",      "size",    "mode",  "workloads", "launches",
                                          "schedulers", "presets", "seeds", "baseline"};
const std::set<std::string> kFigureKeys = {"title", "metric", "baseline", "kind", "x", "series", "where", "aggregate"};

bool valid_name(const std::string& s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-';
  });
}

// A configuration key as tlmgpu spells it: section.name.
bool looks_like_config_key(const std::string& s) {
  const std::size_t dot = s.find('.');
  return dot != std::string::npos && dot > 0 && dot + 1 < s.size() &&
         std::all_of(s.begin(), s.end(), [](char c) {
           return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.';
         });
}

class Parser {
 public:
  explicit Parser(SweepSpec& spec) : s_(spec) {}

  void line(int n, const std::string& raw) {
    const std::string text = trim(raw);
    if (text.empty() || text[0] == '#' || text[0] == ';') return;
    if (text[0] == '[') return header(n, text);
    const std::size_t eq = text.find('=');
    if (eq == std::string::npos) throw s_.error(n, "", "expected 'key = value' or a [section] header, got '" + text + "'");
    const std::string key = trim(text.substr(0, eq));
    const std::string value = trim(text.substr(eq + 1));
    if (key.empty()) throw s_.error(n, "", "a line starts with '=': the key is missing");
    switch (section_) {
      case Section::None: throw s_.error(n, key, "comes before any section; start with [sweep]");
      case Section::Sweep: return sweep_key(n, key, value);
      case Section::Set: return set_key(n, key, value);
      case Section::Figure: return figure_key(n, key, value);
    }
  }

  int sweep_line() const { return sweep_line_; }

 private:
  enum class Section { None, Sweep, Set, Figure };

  void header(int n, const std::string& text) {
    if (text.back() != ']') throw s_.error(n, "", "a section header must end with ']': '" + text + "'");
    const std::vector<std::string> words = split_words(text.substr(1, text.size() - 2));
    const std::string name = words.empty() ? "" : words[0];
    auto once = [&](int& seen, const std::string& what) {
      if (seen) throw s_.error(n, "", "section [" + what + "] appears twice (first on line " + std::to_string(seen) + ")");
      seen = n;
    };
    if (name == "sweep" && words.size() == 1) {
      once(sweep_line_, "sweep");
      section_ = Section::Sweep;
    } else if (name == "set" && words.size() == 1) {
      once(set_line_, "set");
      section_ = Section::Set;
    } else if (name == "figure") {
      if (words.size() != 2 || !valid_name(words[1]))
        throw s_.error(n, "", "expected [figure NAME] with NAME of letters, digits, '_' or '-' (it names the figure's file)");
      for (const FigureSpec& f : s_.figures)
        if (f.name == words[1])
          throw s_.error(n, "", "figure '" + words[1] + "' appears twice (first on line " + std::to_string(f.line) + ")");
      FigureSpec f;
      f.name = words[1];
      f.line = n;
      s_.figures.push_back(f);
      section_ = Section::Figure;
    } else {
      throw s_.error(n, "", "unknown section '" + text + "' (known: [sweep], [set], [figure NAME])");
    }
  }

  static void first_use(const SweepSpec& s, std::map<std::string, int>& lines, int n, const std::string& key) {
    auto it = lines.find(key);
    if (it != lines.end())
      throw s.error(n, key, "given twice (first on line " + std::to_string(it->second) + ")");
    lines[key] = n;
  }

  ValueList list(int n, const std::string& key, const std::string& value) const {
    ValueList l;
    l.line = n;
    l.values = split_words(value);
    if (l.values.empty()) throw s_.error(n, key, "empty grid: the list has no values");
    std::set<std::string> seen;
    for (const std::string& v : l.values)
      if (!seen.insert(v).second) throw s_.error(n, key, "value '" + v + "' is listed twice");
    return l;
  }

  Coordinates coordinates(int n, const std::string& key, const std::string& value) const {
    Coordinates c;
    c.line = n;
    std::set<std::string> dims;
    for (const std::string& w : split_words(value)) {
      const std::size_t eq = w.find('=');
      if (eq == std::string::npos || eq == 0 || eq + 1 == w.size())
        throw s_.error(n, key, "expected DIMENSION=VALUE pairs (e.g. scheduler=lrr), got '" + w + "'");
      const std::string dim = w.substr(0, eq);
      if (!dims.insert(dim).second) throw s_.error(n, key, "dimension '" + dim + "' is given twice");
      c.pairs.emplace_back(dim, w.substr(eq + 1));
    }
    return c;
  }

  void sweep_key(int n, const std::string& key, const std::string& value) {
    if (key == "program" || key.rfind("program.", 0) == 0) return program_key(n, key, value);
    if (!kSweepKeys.count(key)) {
      std::string known;
      for (const std::string& k : kSweepKeys) known += (known.empty() ? "" : ", ") + k;
      throw s_.error(n, key, "unknown key in [sweep] (known: " + known + ", program, program.NAME)");
    }
    first_use(s_, s_.key_lines, n, key);
    if (key == "title") {
      if (value.empty()) throw s_.error(n, key, "needs a value");
      s_.title = value;
    } else if (key == "size") {
      if (value != "small" && value != "default" && value != "paper")
        throw s_.error(n, key, "'" + value + "': expected small, default or paper");
      s_.size = value;
    } else if (key == "mode") {
      // The run pool runs `tlmgpu run --mode timing`; the other modes have no
      // cycle-level statistics worth sweeping over schedulers.
      if (value != "timing") throw s_.error(n, key, "'" + value + "': sweeps run timing mode only (expected timing)");
      s_.mode = value;
    } else if (key == "baseline") {
      s_.baseline = value == "none" ? Coordinates{{}, n} : coordinates(n, key, value);
    } else {
      ValueList l = list(n, key, value);
      if (key == "seeds")
        for (const std::string& v : l.values)
          if (v.find_first_not_of("0123456789") != std::string::npos || v.size() > 9)
            throw s_.error(n, key, "'" + v + "': a seed is an unsigned integer");
      if (key == "launches")
        for (const std::string& v : l.values) {
          const fs::path p = fs::path(s_.dir) / v;
          std::error_code ec;
          if (!fs::is_regular_file(p, ec)) throw s_.error(n, key, "launch file '" + p.string() + "' does not exist");
        }
      (key == "workloads" ? s_.workloads
       : key == "launches" ? s_.launches
       : key == "schedulers" ? s_.schedulers
       : key == "presets" ? s_.presets
                          : s_.seeds) = l;
    }
  }

  // program = PATH ARGS... (named after PATH's file name), or
  // program.NAME = PATH ARGS...; the name is the program's workload value.
  void program_key(int n, const std::string& key, const std::string& value) {
    std::string name;
    if (key != "program") {
      name = key.substr(std::string("program.").size());
      if (!valid_name(name))
        throw s_.error(n, key, "expected program.NAME with NAME of letters, digits, '_' or '-' (the workload column shows it)");
    }
    first_use(s_, s_.key_lines, n, key);
    std::vector<std::string> words;
    try {
      words = split_command_line(value);
    } catch (const std::invalid_argument& e) {
      throw s_.error(n, key, std::string("bad quoting: ") + e.what());
    }
    if (words.empty()) throw s_.error(n, key, "needs a command line: the program's path, then its arguments");
    ProgramSpec p;
    p.key = key;
    p.line = n;
    const fs::path path = fs::path(words[0]).is_absolute() ? fs::path(words[0]) : fs::path(s_.dir) / words[0];
    p.path = path.lexically_normal().string();
    p.arguments.assign(words.begin() + 1, words.end());
    p.name = name.empty() ? path.filename().string() : name;
    // A figure's `where` and `baseline` name values in blank-separated words.
    if (p.name.find_first_of(" \t") != std::string::npos)
      throw s_.error(n, key, "the file name '" + p.name + "' has a blank; name the program: program.NAME = ...");
    std::error_code ec;
    if (!fs::exists(path, ec))
      throw s_.error(n, key, "program '" + p.path + "' does not exist" +
                                 (fs::path(words[0]).is_absolute() ? "" : " (a relative path starts at the spec's directory)"));
    if (!fs::is_regular_file(path, ec)) throw s_.error(n, key, "program '" + p.path + "' is not a file");
    if (::access(p.path.c_str(), X_OK) != 0) throw s_.error(n, key, "program '" + p.path + "' is not executable");
    for (const ProgramSpec& other : s_.programs)
      if (other.name == p.name)
        throw s_.error(n, key, "the name '" + p.name + "' is taken by " + other.key + " on line " +
                                   std::to_string(other.line) + " (name them: program.NAME = ...)");
    s_.programs.push_back(p);
  }

  void set_key(int n, const std::string& key, const std::string& value) {
    if (!looks_like_config_key(key))
      throw s_.error(n, key, "a [set] key is a tlmgpu configuration key, section.name (e.g. l1d.hit_latency)");
    if (key == "gpu.scheduler") throw s_.error(n, key, "list schedulers in [sweep] schedulers instead");
    first_use(s_, set_lines_, n, key);
    s_.sets.push_back({key, list(n, key, value)});
  }

  void figure_key(int n, const std::string& key, const std::string& value) {
    FigureSpec& f = s_.figures.back();
    if (!kFigureKeys.count(key)) {
      std::string known;
      for (const std::string& k : kFigureKeys) known += (known.empty() ? "" : ", ") + k;
      throw s_.error(n, key, "unknown key in [figure " + f.name + "] (known: " + known + ")");
    }
    first_use(s_, f.key_lines, n, key);
    if (value.empty() && key != "series" && key != "where") throw s_.error(n, key, "needs a value");
    if (key == "title") {
      f.title = value;
    } else if (key == "metric") {
      if (split_words(value).size() != 1) throw s_.error(n, key, "one CSV column, e.g. ipc or sim_cycles");
      f.metric = value;
    } else if (key == "baseline") {
      f.baseline_given = true;
      f.baseline = value == "none" ? Coordinates{{}, n} : coordinates(n, key, value);
    } else if (key == "kind") {
      if (value != "bars" && value != "lines") throw s_.error(n, key, "'" + value + "': expected bars or lines");
      f.kind = value;
    } else if (key == "x") {
      f.x = value;
    } else if (key == "series") {
      f.series = value == "none" ? "" : value;
    } else if (key == "where") {
      f.where = coordinates(n, key, value);
    } else if (key == "aggregate") {
      if (value != "geomean" && value != "mean") throw s_.error(n, key, "'" + value + "': expected geomean or mean");
      f.aggregate = value;
    }
  }

  SweepSpec& s_;
  Section section_ = Section::None;
  int sweep_line_ = 0, set_line_ = 0;
  std::map<std::string, int> set_lines_;
};

const Dimension* find_dimension(const std::vector<Dimension>& dims, const std::string& name) {
  for (const Dimension& d : dims)
    if (d.name == name) return &d;
  return nullptr;
}

std::string dimension_names(const std::vector<Dimension>& dims) {
  std::string s;
  for (const Dimension& d : dims) s += (s.empty() ? "" : ", ") + d.name;
  return s;
}

// Each DIMENSION=VALUE names a dimension of the grid and one of its values.
void check_coordinates(const SweepSpec& s, const std::vector<Dimension>& dims, const Coordinates& c,
                       const std::string& key) {
  for (const auto& [name, value] : c.pairs) {
    const Dimension* d = find_dimension(dims, name);
    if (!d) throw s.error(c.line, key, "'" + name + "' is not a dimension of the grid (dimensions: " + dimension_names(dims) + ")");
    if (std::find(d->values.begin(), d->values.end(), value) == d->values.end()) {
      std::string vals;
      for (const std::string& v : d->values) vals += (vals.empty() ? "" : " ") + v;
      throw s.error(c.line, key, "'" + value + "' is not a value of " + name + " (values: " + vals + ")");
    }
  }
}

void check_figure(const SweepSpec& s, const std::vector<Dimension>& dims, const FigureSpec& f) {
  auto line_of = [&](const std::string& key) {
    auto it = f.key_lines.find(key);
    return it == f.key_lines.end() ? f.line : it->second;
  };
  if (f.metric.empty()) throw s.error(f.line, "metric", "[figure " + f.name + "] needs a metric (a CSV column, e.g. ipc)");
  if (f.x.empty()) throw s.error(f.line, "x", "[figure " + f.name + "] needs x (a dimension: " + dimension_names(dims) + ")");
  const Dimension* x = find_dimension(dims, f.x);
  if (!x) throw s.error(line_of("x"), "x", "'" + f.x + "' is not a dimension of the grid (dimensions: " + dimension_names(dims) + ")");
  if (!f.series.empty()) {
    if (!find_dimension(dims, f.series))
      throw s.error(line_of("series"), "series",
                    "'" + f.series + "' is not a dimension of the grid (dimensions: " + dimension_names(dims) + ")");
    if (f.series == f.x) throw s.error(line_of("series"), "series", "the same dimension as x");
  }
  if (f.kind == "lines" && !x->numeric)
    throw s.error(line_of("kind"), "kind", "lines need a numeric x; '" + f.x + "' has non-numeric values (use bars)");
  check_coordinates(s, dims, f.baseline, "baseline");
  check_coordinates(s, dims, f.where, "where");
  for (const auto& [name, value] : f.where.pairs)
    if (name == f.x || name == f.series)
      throw s.error(f.where.line, "where", "'" + name + "' is the figure's x or series; 'where' fixes the other dimensions");
}

}  // namespace

std::vector<Dimension> dimensions(const SweepSpec& spec) {
  std::vector<Dimension> dims;
  Dimension w{"workload", spec.workloads.values, false, spec.workloads.line ? spec.workloads.line : spec.launches.line};
  w.values.insert(w.values.end(), spec.launches.values.begin(), spec.launches.values.end());
  for (const ProgramSpec& p : spec.programs) w.values.push_back(p.name);
  if (!w.line && !spec.programs.empty()) w.line = spec.programs.front().line;
  dims.push_back(w);
  dims.push_back({"scheduler", spec.schedulers.values, false, spec.schedulers.line});
  dims.push_back({"preset", spec.presets.values, false, spec.presets.line});
  for (const SetKey& k : spec.sets) dims.push_back({k.key, k.list.values, false, k.list.line});
  // Launch files and programs take no seed: their rows have an empty seed.
  if (!spec.workloads.values.empty()) dims.push_back({"seed", spec.seeds.values, false, spec.seeds.line});
  else dims.push_back({"seed", {""}, false, spec.seeds.line});
  for (Dimension& d : dims)
    d.numeric = !d.values.empty() && std::all_of(d.values.begin(), d.values.end(), is_number);
  return dims;
}

SweepSpec parse_spec(const std::string& path) {
  SweepSpec s;
  s.path = path;
  s.dir = fs::path(path).parent_path().string();
  std::ifstream in(path);
  if (!in) throw SpecError(path + ": cannot read the spec file");
  Parser p(s);
  int n = 0;
  for (std::string raw; std::getline(in, raw);) p.line(++n, raw);

  if (!p.sweep_line()) throw s.error(0, "", "no [sweep] section (it lists workloads, schedulers, ...)");
  if (!s.workloads.given() && !s.launches.given() && s.programs.empty())
    throw s.error(p.sweep_line(), "workloads", "empty grid: [sweep] names no workloads, launches or programs");
  if (!s.schedulers.given()) throw s.error(p.sweep_line(), "schedulers", "empty grid: [sweep] names no schedulers");
  if (s.seeds.given() && !s.workloads.given())
    throw s.error(s.seeds.line, "seeds", "seeds apply to workloads; launch files and programs take no seed");
  if (!s.presets.given()) s.presets.values = {"gtx480"};  // tlmgpu's default preset
  if (!s.seeds.given()) s.seeds.values = {"1"};           // tlmgpu's default seed
  for (const std::string& l : s.launches.values)
    if (std::find(s.workloads.values.begin(), s.workloads.values.end(), l) != s.workloads.values.end())
      throw s.error(s.launches.line, "launches", "'" + l + "' is also listed in workloads");
  // One workload column: a program's name must tell it from the others.
  for (const ProgramSpec& prog : s.programs)
    for (const ValueList* l : {&s.workloads, &s.launches})
      if (std::find(l->values.begin(), l->values.end(), prog.name) != l->values.end())
        throw s.error(prog.line, prog.key,
                      "the name '" + prog.name + "' is also listed in " + (l == &s.workloads ? "workloads" : "launches") +
                          " (name it: program.NAME = ...)");
  if (s.title.empty()) s.title = fs::path(path).stem().string();

  const std::vector<Dimension> dims = dimensions(s);
  check_coordinates(s, dims, s.baseline, "baseline");
  for (const FigureSpec& f : s.figures) check_figure(s, dims, f);
  return s;
}

}  // namespace sweep
