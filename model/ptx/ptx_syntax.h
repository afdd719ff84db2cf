// PTX syntax phase: tokens -> the module's declarations and functions, each
// function body a list of items (declarations, scopes, labels, instruction
// token ranges). Statements are recognised here; what an instruction means is
// the decode phase's (ptx_decode.h). Internal to the PTX front end.
#pragma once

#include <array>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "model/ptx/ptx_front_end.h"

namespace tlmgpu::ptx {

/// One declared name: a variable, a parameter or a register (range).
struct Decl {
  StateSpace space = StateSpace::Reg;
  DataType type = DataType::B32;
  uint32_t align = 0;      ///< 0: natural
  uint32_t elems = 1;      ///< array elements (times vector width)
  bool unsized = false;    ///< name[]
  bool is_extern = false;
  uint32_t range = 0;      ///< registers: %r<range>; 0 for a single name
  std::string name;
  SourceLoc loc;
  std::vector<Literal> init;
  bool has_init = false;
  bool erroneous = false;  ///< its declaration had an error (already reported)
  // Filled by layout:
  uint64_t offset = 0;
  int32_t global_index = -1;   ///< .global: Module::globals index
  bool kernel_param = false;   ///< in the launch parameter buffer (else params live in local memory)

  uint32_t elem_bytes() const { return std::max(1u, type_bytes(type)); }
  uint32_t size() const { return elem_bytes() * elems; }
  uint32_t alignment() const { return align ? align : elem_bytes(); }
};

enum class ItemKind : uint8_t { Open, Close, Decl, Label, Instr, NoUnroll };

struct Item {
  ItemKind kind = ItemKind::Instr;
  uint32_t decl = 0;      ///< Decl: index into FuncDef::decls
  size_t tb = 0, te = 0;  ///< Label: the name token; Instr: tokens [tb, te), te is the ';'
};

struct FuncDef {
  std::string name;
  bool is_entry = false;
  bool is_extern = false;
  bool has_body = false;
  SourceLoc loc;
  std::vector<uint32_t> params, rets;  ///< indices into decls
  std::vector<Decl> decls;
  std::vector<Item> items;
  std::array<uint32_t, 3> maxntid{{0, 0, 0}}, reqntid{{0, 0, 0}};
  uint32_t minnctapersm = 0, maxnreg = 0;
  std::vector<std::string> pragmas;
  int32_t module_index = -1;  ///< Module::functions index when defined
};

/// What the syntax phase finds in a module.
struct SyntaxTree {
  std::vector<Decl> module_decls;  ///< .global/.const/.shared/.local; later phases keep pointers into it
  std::unordered_map<std::string, size_t> module_names;  ///< name -> module_decls index
  std::vector<FuncDef> funcs;      ///< one per function name, the definition replacing a prototype
  std::unordered_map<std::string, size_t> func_names;    ///< name -> funcs index
  std::unordered_set<std::string> prototypes;  ///< .callprototype labels (indirect calls)
};

/// Reads the module's statements from `tokens` (lex_ptx's, ending with End).
/// The .version, .target and .address_size go to `module`; every problem
/// goes to `log` (a bad statement is skipped), "missing .version" included.
SyntaxTree parse_syntax(const std::vector<Token>& tokens, Module& module, DiagnosticLog& log);

}  // namespace tlmgpu::ptx
