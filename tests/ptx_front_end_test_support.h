// Runs the PTX front end's phases one by one, as parse_ptx does, so that a
// test can look at what each phase leaves behind (tests/test_ptx_<phase>.cpp).
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

#include "model/ptx/ptx_decode.h"
#include "model/ptx/ptx_layout.h"
#include "model/ptx/ptx_lexer.h"
#include "model/ptx/ptx_link.h"
#include "model/ptx/ptx_syntax.h"

namespace tlmgpu::ptx::test {

inline const char* const kPtxHeader = ".version 7.8\n.target sm_75\n.address_size 64\n";

/// One source taken through the phases up to a chosen one.
struct FrontEndRun {
  enum class Upto { Syntax, Layout, Link, Decode };

  explicit FrontEndRun(std::string text, Upto upto = Upto::Decode)
      : source(std::move(text)), lexed(lex_ptx(source)), log(source, "t.ptx", lexed.line_starts) {
    module.file = "t.ptx";
    tree = parse_syntax(lexed.tokens, module, log);
    if (upto == Upto::Syntax) return;
    lay_out_module(tree, module, log);
    if (upto == Upto::Layout) return;
    resolve_address_initializers(tree, module, log);
    if (upto == Upto::Link) return;
    decode_functions(tree, lexed.tokens, source, module, log, calls);
  }

  /// Every message logged so far, "line:column: message", by position.
  std::vector<std::string> messages() {
    std::vector<std::string> out;
    for (const PtxDiagnostic& d : log.take_sorted())
      out.push_back(std::to_string(d.line) + ":" + std::to_string(d.column) + ": " + d.message);
    return out;
  }

  const Decl& module_decl(const std::string& name) const { return tree.module_decls.at(tree.module_names.at(name)); }
  const FuncDef& func(const std::string& name) const { return tree.funcs.at(tree.func_names.at(name)); }
  /// A declaration of function `fn` (parameter, register or variable) by name.
  const Decl& func_decl(const std::string& fn, const std::string& name) const {
    for (const Decl& d : func(fn).decls)
      if (d.name == name) return d;
    throw std::out_of_range("no declaration '" + name + "' in '" + fn + "'");
  }

  std::string source;
  LexResult lexed;
  DiagnosticLog log;
  Module module;
  SyntaxTree tree;
  CallGraph calls;
};

}  // namespace tlmgpu::ptx::test
