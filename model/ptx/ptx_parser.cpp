// PTX front end: lex, then four phases over one diagnostic log.
//  1. syntax (ptx_syntax.h): tokens -> module directives, variables, function
//     signatures and bodies as lists of items;
//  2. layout (ptx_layout.h): every variable and parameter gets its static offset;
//  3. link, part one (ptx_link.h): address initializers get function and
//     variable addresses;
//  4. decode (ptx_decode.h): each instruction becomes an Instruction, branch
//     targets are resolved and reconvergence points computed; call sites
//     build the call graph, whose cycles mark recursive functions (link).
// Errors are collected (a bad statement is skipped) and thrown together.
#include "model/ptx/ptx_parser.h"

#include <fstream>
#include <sstream>

#include "model/ptx/ptx_decode.h"
#include "model/ptx/ptx_layout.h"
#include "model/ptx/ptx_lexer.h"
#include "model/ptx/ptx_link.h"
#include "model/ptx/ptx_syntax.h"

namespace tlmgpu::ptx {

std::string PtxDiagnostic::format() const {
  std::string s = file;
  if (line > 0) s += ":" + std::to_string(line) + ":" + std::to_string(column);
  s += ": error: " + message;
  if (!text.empty()) s += "\n    " + text;
  return s;
}

namespace {
std::string join_diagnostics(const std::vector<PtxDiagnostic>& d) {
  std::string s;
  for (size_t i = 0; i < d.size(); ++i) {
    if (i) s += "\n";
    s += d[i].format();
  }
  return s.empty() ? "PTX error" : s;
}
}  // namespace

PtxError::PtxError(std::vector<PtxDiagnostic> diagnostics)
    : std::runtime_error(join_diagnostics(diagnostics)), diagnostics_(std::move(diagnostics)) {}

Module parse_ptx(const std::string& source, const std::string& file_name) {
  LexResult lexed = lex_ptx(source);
  DiagnosticLog log(source, file_name, std::move(lexed.line_starts));
  for (auto& e : lexed.errors) log.error_at(e.line, e.column, e.message);
  for (auto& e : lexed.errors) log.lexer_reported(e.line);
  Module module;
  module.file = file_name;
  SyntaxTree tree = parse_syntax(lexed.tokens, module, log);
  lay_out_module(tree, module, log);
  resolve_address_initializers(tree, module, log);
  CallGraph calls;
  decode_functions(tree, lexed.tokens, source, module, log, calls);
  calls.mark_recursive(module);
  if (!log.empty()) throw PtxError(log.take_sorted());
  return module;
}

Module parse_ptx_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    PtxDiagnostic d;
    d.file = path;
    d.message = "cannot open PTX file '" + path + "'";
    throw PtxError({d});
  }
  std::ostringstream ss;
  ss << in.rdbuf();
  return parse_ptx(ss.str(), path);
}

}  // namespace tlmgpu::ptx
