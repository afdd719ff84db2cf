#include "cudart/ptx_join.h"

#include <cctype>
#include <set>

namespace tlmgpu::cudart {

namespace {

/// PTX statements at the top level of a text, split at ';' and at the
/// braces of function bodies (a body is kept whole with its header).
struct Statement {
  std::string text;
};

std::string trim_left(const std::string& s) {
  size_t i = 0;
  while (i < s.size()) {
    if (std::isspace(static_cast<unsigned char>(s[i]))) {
      ++i;
    } else if (s.compare(i, 2, "//") == 0) {
      while (i < s.size() && s[i] != '\n') ++i;
    } else {
      break;
    }
  }
  return s.substr(i);
}

bool starts_with(const std::string& s, const char* prefix) { return s.rfind(prefix, 0) == 0; }

bool is_header(const std::string& trimmed) {
  return starts_with(trimmed, ".version") || starts_with(trimmed, ".target") || starts_with(trimmed, ".address_size");
}

std::vector<Statement> top_level_statements(const std::string& ptx) {
  std::vector<Statement> out;
  std::string current;
  int depth = 0;
  bool in_comment = false, in_line_comment = false, in_string = false;
  for (size_t i = 0; i < ptx.size(); ++i) {
    const char c = ptx[i];
    current += c;
    if (in_line_comment) {
      if (c == '\n') in_line_comment = false;
      continue;
    }
    if (in_comment) {
      if (c == '/' && i > 0 && ptx[i - 1] == '*') in_comment = false;
      continue;
    }
    if (in_string) {
      if (c == '"') in_string = false;
      continue;
    }
    // .version, .target and .address_size end at the line's end, not at a ';'.
    if (c == '\n' && depth == 0 && is_header(trim_left(current))) {
      out.push_back({std::move(current)});
      current.clear();
      continue;
    }
    if (c == '/' && i + 1 < ptx.size() && ptx[i + 1] == '/') in_line_comment = true;
    else if (c == '/' && i + 1 < ptx.size() && ptx[i + 1] == '*') in_comment = true;
    else if (c == '"') in_string = true;
    else if (c == '{') ++depth;
    else if ((c == '}' && depth > 0 && --depth == 0) || (c == ';' && depth == 0)) {
      out.push_back({std::move(current)});
      current.clear();
    }
  }
  if (!current.empty()) out.push_back({std::move(current)});
  return out;
}

/// The symbol a top-level declaration or definition names: for a function
/// the identifier before its parameter list (after an optional return
/// list), for a variable the identifier before '[', '=' or the end.
std::string declared_name(const std::string& statement) {
  const std::string s = trim_left(statement);
  const bool is_func = s.find(".func") != std::string::npos && s.find(".func") < s.find_first_of("({;=");
  size_t end;
  if (is_func) {
    size_t pos = s.find(".func") + 5;
    while (pos < s.size() && std::isspace(static_cast<unsigned char>(s[pos]))) ++pos;
    if (pos < s.size() && s[pos] == '(') pos = s.find(')', pos) + 1;  // the return list
    while (pos < s.size() && std::isspace(static_cast<unsigned char>(s[pos]))) ++pos;
    size_t start = pos;
    while (pos < s.size() && (std::isalnum(static_cast<unsigned char>(s[pos])) || s[pos] == '_' || s[pos] == '$'))
      ++pos;
    return s.substr(start, pos - start);
  }
  end = s.find_first_of("[=;{");
  if (end == std::string::npos) end = s.size();
  size_t stop = end;
  while (stop > 0 && std::isspace(static_cast<unsigned char>(s[stop - 1]))) --stop;
  size_t start = stop;
  while (start > 0 && (std::isalnum(static_cast<unsigned char>(s[start - 1])) || s[start - 1] == '_' || s[start - 1] == '$'))
    --start;
  return s.substr(start, stop - start);
}

}  // namespace

std::string join_ptx_modules(const std::vector<std::string>& texts) {
  std::vector<std::vector<Statement>> parsed;
  std::set<std::string> defined;
  for (const std::string& t : texts) {
    parsed.push_back(top_level_statements(t));
    for (const Statement& st : parsed.back()) {
      const std::string s = trim_left(st.text);
      if (starts_with(s, ".extern") || is_header(s)) continue;
      const bool function_definition = s.find(".func") != std::string::npos && s.find('{') != std::string::npos;
      const bool variable = starts_with(s, ".visible") || starts_with(s, ".global") || starts_with(s, ".const");
      if (function_definition || (variable && s.find(".func") == std::string::npos) ||
          (s.find(".entry") != std::string::npos))
        defined.insert(declared_name(s));
    }
  }
  std::string out;
  for (size_t i = 0; i < parsed.size(); ++i) {
    for (const Statement& st : parsed[i]) {
      const std::string s = trim_left(st.text);
      if (i > 0 && is_header(s)) continue;
      if (starts_with(s, ".extern") && defined.count(declared_name(s))) continue;
      out += st.text;
    }
    out += "\n";
  }
  return out;
}

}  // namespace tlmgpu::cudart
