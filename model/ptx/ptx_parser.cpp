// PTX front end. Three steps:
//  1. structure: tokens -> module directives, variables, function signatures and
//     bodies as lists of items (declarations, scopes, labels, instruction token ranges);
//  2. layout: every .global/.const/.shared/.local variable and every parameter
//     gets its static offset (all declarations are known at this point, so
//     forward references to functions and symbols need no patching);
//  3. decode: each instruction becomes an Instruction; then branch targets are
//     resolved and reconvergence points computed.
// Errors are collected (a bad statement is skipped) and thrown together.
#include "model/ptx/ptx_parser.h"

#include "model/ptx/float_ops.h"
#include "model/ptx/half_ops.h"

#include <algorithm>
#include <charconv>
#include <cstring>
#include <fstream>
#include <optional>
#include <sstream>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

#include "model/ptx/cfg.h"
#include "model/ptx/register_allocation.h"
#include "model/ptx/ptx_lexer.h"

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

namespace {

using sv = std::string_view;

/// Thrown after a diagnostic has been recorded, to abandon the current statement.
struct StmtAbort {};

constexpr size_t kMaxDiagnostics = 1000;

uint32_t align_up(uint64_t v, uint32_t a) {
  if (a <= 1) return uint32_t(v);
  return uint32_t((v + a - 1) / a * a);
}

// ---------------------------------------------------------------- literals

struct Literal {
  enum Kind : uint8_t { Int, F32Bits, F64Bits, Dec, SymbolAddress } kind = Int;
  uint64_t bits = 0;  ///< Int: two's complement value; F32Bits/F64Bits: raw bits
  double d = 0;       ///< Dec
  std::string symbol; ///< SymbolAddress: `name` or `generic(name)` in an initializer
  SourceLoc loc;      ///< SymbolAddress: where it was written
};

bool parse_uint(sv t, uint64_t& v) {
  if (!t.empty() && t.back() == 'U') t.remove_suffix(1);
  if (t.empty()) return false;
  unsigned radix = 10;
  if (t.size() > 2 && t[0] == '0' && (t[1] == 'x' || t[1] == 'X')) {
    radix = 16;
    t.remove_prefix(2);
  } else if (t.size() > 2 && t[0] == '0' && (t[1] == 'b' || t[1] == 'B')) {
    radix = 2;
    t.remove_prefix(2);
  } else if (t.size() > 1 && t[0] == '0') {
    radix = 8;
    t.remove_prefix(1);
  }
  v = 0;
  for (char c : t) {
    unsigned dgt;
    if (c >= '0' && c <= '9') dgt = unsigned(c - '0');
    else if (c >= 'a' && c <= 'f') dgt = unsigned(c - 'a' + 10);
    else if (c >= 'A' && c <= 'F') dgt = unsigned(c - 'A' + 10);
    else return false;
    if (dgt >= radix) return false;
    if (v > (UINT64_MAX - dgt) / radix) return false;
    v = v * radix + dgt;
  }
  return true;
}

uint32_t f32_bits(float f) {
  uint32_t b;
  std::memcpy(&b, &f, 4);
  return b;
}
uint64_t f64_bits(double d) {
  uint64_t b;
  std::memcpy(&b, &d, 8);
  return b;
}
float bits_f32(uint32_t b) {
  float f;
  std::memcpy(&f, &b, 4);
  return f;
}
double bits_f64(uint64_t b) {
  double d;
  std::memcpy(&d, &b, 8);
  return d;
}

// An f16 immediate is rounded to nearest even, exactly as the executor's cvt does.
uint16_t f32_to_f16(float f) { return exec::fp::float_to_half(f, Rounding::Rn); }

double literal_as_double(const Literal& l) {
  switch (l.kind) {
    case Literal::F32Bits: return double(bits_f32(uint32_t(l.bits)));
    case Literal::F64Bits: return bits_f64(l.bits);
    case Literal::Dec: return l.d;
    case Literal::Int: case Literal::SymbolAddress: break;
  }
  return double(int64_t(l.bits));
}

/// Raw bits of literal `l` as an operand of type `t`; false when the literal
/// does not fit the type's kind (ptxas rejects integers for float operands and
/// floats for signed/unsigned ones).
bool literal_bits(const Literal& l, DataType t, uint64_t& out) {
  if (t == DataType::F32 || t == DataType::F64 || t == DataType::F16) {
    if (l.kind == Literal::Int) return false;
    if (t == DataType::F32) {
      out = l.kind == Literal::F32Bits ? l.bits : f32_bits(float(literal_as_double(l)));
    } else if (t == DataType::F64) {
      out = l.kind == Literal::F64Bits ? l.bits : f64_bits(literal_as_double(l));
    } else {
      out = f32_to_f16(float(literal_as_double(l)));
    }
    return true;
  }
  if (t == DataType::BF16) {  // rounded to nearest even, like cvt.rn.bf16
    if (l.kind == Literal::Int) return false;
    out = exec::fp::round_double_to_half(literal_as_double(l), 0.0, exec::fp::HalfFormat::BF16, Rounding::Rn);
    return true;
  }
  if (l.kind == Literal::Int) {
    out = l.bits;
    return true;
  }
  // Float literal on a bit-size type: raw bits (0f/0d) or the value's bits at that width.
  if (t == DataType::B32 || t == DataType::B64 || t == DataType::B16 || t == DataType::None) {
    if (l.kind == Literal::F32Bits || l.kind == Literal::F64Bits) {
      out = l.bits;
    } else if (t == DataType::B64) {
      out = f64_bits(l.d);
    } else if (t == DataType::B16) {
      out = f32_to_f16(float(l.d));
    } else {
      out = f32_bits(float(l.d));
    }
    return true;
  }
  return false;
}

std::optional<DataType> type_of(sv m) {
  static const std::pair<sv, DataType> table[] = {
      {"pred", DataType::Pred}, {"b8", DataType::B8},   {"b16", DataType::B16}, {"b32", DataType::B32},
      {"b64", DataType::B64},   {"u8", DataType::U8},   {"u16", DataType::U16}, {"u32", DataType::U32},
      {"u64", DataType::U64},   {"s8", DataType::S8},   {"s16", DataType::S16}, {"s32", DataType::S32},
      {"s64", DataType::S64},   {"f16", DataType::F16}, {"f32", DataType::F32}, {"f64", DataType::F64},
      {"bf16", DataType::BF16}, {"f16x2", DataType::F16x2}, {"bf16x2", DataType::BF16x2},
  };
  for (auto& [n, t] : table)
    if (n == m) return t;
  return std::nullopt;
}

std::optional<CmpOp> cmp_of(sv m) {
  static const std::pair<sv, CmpOp> table[] = {
      {"eq", CmpOp::Eq},   {"ne", CmpOp::Ne},   {"lt", CmpOp::Lt},   {"le", CmpOp::Le},   {"gt", CmpOp::Gt},
      {"ge", CmpOp::Ge},   {"lo", CmpOp::Lo},   {"ls", CmpOp::Ls},   {"hi", CmpOp::Hi},   {"hs", CmpOp::Hs},
      {"equ", CmpOp::Equ}, {"neu", CmpOp::Neu}, {"ltu", CmpOp::Ltu}, {"leu", CmpOp::Leu}, {"gtu", CmpOp::Gtu},
      {"geu", CmpOp::Geu}, {"num", CmpOp::Num}, {"nan", CmpOp::Nan},
  };
  for (auto& [n, c] : table)
    if (n == m) return c;
  return std::nullopt;
}

std::optional<Rounding> frnd_of(sv m) {
  if (m == "rn") return Rounding::Rn;
  if (m == "rz") return Rounding::Rz;
  if (m == "rm") return Rounding::Rm;
  if (m == "rp") return Rounding::Rp;
  return std::nullopt;
}
std::optional<Rounding> irnd_of(sv m) {
  if (m == "rni") return Rounding::Rni;
  if (m == "rzi") return Rounding::Rzi;
  if (m == "rmi") return Rounding::Rmi;
  if (m == "rpi") return Rounding::Rpi;
  return std::nullopt;
}

std::optional<StateSpace> space_of(sv m) {
  if (m == "global") return StateSpace::Global;
  if (m == "shared" || m == "shared::cta") return StateSpace::Shared;
  if (m == "local") return StateSpace::Local;
  if (m == "param") return StateSpace::Param;
  if (m == "const") return StateSpace::Const;
  return std::nullopt;
}

/// Memory-ordering and scope qualifiers the functional model can ignore.
bool is_sem_or_scope(sv m) {
  return m == "weak" || m == "relaxed" || m == "acquire" || m == "release" || m == "acq_rel" ||
         m == "cta" || m == "gpu" || m == "sys";
}

/// Cache-policy qualifiers (hints only). .L2::cache_hint is not here: it takes an extra operand.
bool is_cache_hint(sv m) {
  return m == "ca" || m == "cg" || m == "cs" || m == "lu" || m == "cv" || m == "wb" || m == "wt" ||
         m == "L1::evict_normal" || m == "L1::evict_unchanged" || m == "L1::evict_first" ||
         m == "L1::evict_last" || m == "L1::no_allocate" || m == "L2::evict_normal" ||
         m == "L2::evict_first" || m == "L2::evict_last" || m == "L2::64B" || m == "L2::128B" ||
         m == "L2::256B";
}

std::optional<SpecialReg> special_of(sv n) {
  static const std::pair<sv, SpecialReg> table[] = {
      {"%tid.x", SpecialReg::TidX},
      {"%tid.y", SpecialReg::TidY},
      {"%tid.z", SpecialReg::TidZ},
      {"%ntid.x", SpecialReg::NtidX},
      {"%ntid.y", SpecialReg::NtidY},
      {"%ntid.z", SpecialReg::NtidZ},
      {"%ctaid.x", SpecialReg::CtaidX},
      {"%ctaid.y", SpecialReg::CtaidY},
      {"%ctaid.z", SpecialReg::CtaidZ},
      {"%nctaid.x", SpecialReg::NctaidX},
      {"%nctaid.y", SpecialReg::NctaidY},
      {"%nctaid.z", SpecialReg::NctaidZ},
      {"%laneid", SpecialReg::LaneId},
      {"%warpid", SpecialReg::WarpId},
      {"%nwarpid", SpecialReg::NWarpId},
      {"%smid", SpecialReg::SmId},
      {"%nsmid", SpecialReg::NSmId},
      {"%gridid", SpecialReg::GridId},
      {"%lanemask_eq", SpecialReg::LanemaskEq},
      {"%lanemask_lt", SpecialReg::LanemaskLt},
      {"%lanemask_le", SpecialReg::LanemaskLe},
      {"%lanemask_gt", SpecialReg::LanemaskGt},
      {"%lanemask_ge", SpecialReg::LanemaskGe},
      {"%clock", SpecialReg::Clock},
      {"%clock64", SpecialReg::Clock64},
      {"%globaltimer", SpecialReg::GlobalTimer},
  };
  for (auto& [name, s] : table)
    if (name == n) return s;
  if (n.rfind("%envreg", 0) == 0 && n.size() > 7 && n.size() <= 9) {
    uint64_t k = 0;
    if (parse_uint(n.substr(7), k) && k < 32) return SpecialReg(unsigned(SpecialReg::EnvReg0) + unsigned(k));
  }
  return std::nullopt;
}

/// Registers a thread would need for one register of type t, in 32-bit units.
uint32_t reg_units(DataType t) {
  if (t == DataType::Pred) return 0;
  return type_bytes(t) == 8 ? 2 : 1;
}

/// Sets of data types an instruction accepts.
using TypeSet = uint32_t;
constexpr TypeSet bit(DataType t) { return TypeSet(1) << unsigned(t); }
constexpr TypeSet kB = bit(DataType::B16) | bit(DataType::B32) | bit(DataType::B64);
constexpr TypeSet kU = bit(DataType::U16) | bit(DataType::U32) | bit(DataType::U64);
constexpr TypeSet kS = bit(DataType::S16) | bit(DataType::S32) | bit(DataType::S64);
constexpr TypeSet kF = bit(DataType::F32) | bit(DataType::F64);
constexpr TypeSet kF16 = bit(DataType::F16);
/// f16, bf16 and the packed pairs f16x2, bf16x2.
constexpr TypeSet kHalf = kF16 | bit(DataType::BF16) | bit(DataType::F16x2) | bit(DataType::BF16x2);
constexpr TypeSet k8 = bit(DataType::B8) | bit(DataType::U8) | bit(DataType::S8);
constexpr TypeSet kP = bit(DataType::Pred);

// ---------------------------------------------------------------- structure

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

// ---------------------------------------------------------------- decode helpers

/// A syntactic operand before it is given meaning by its instruction.
struct RawOp {
  enum Kind : uint8_t { Reg, Name, Lit, Vector, Addr, List } kind = Reg;
  bool negate = false;
  bool minus = false;      ///< '-%r' (vmad operand negation)
  sv name;                 ///< Reg / Name / Addr base (empty: absolute address)
  sv name2;                ///< second register of '%r|%p'
  Literal lit;
  int64_t offset = 0;      ///< Addr: +imm; Name: sym+imm
  std::vector<sv> elems;   ///< Vector / List names ('_' for a sink)
  const Token* tok = nullptr;
  /// Addr of a texture/surface instruction, '[handle, {c0, ...}]': the coordinates.
  std::vector<sv> coords;
  const Token* coords_tok = nullptr;
};

struct Binding {
  enum Kind : uint8_t { Reg, Pred, Var } kind = Reg;
  uint32_t slot = 0;
  uint32_t count = 0;  ///< ranges: number of registers
  const Decl* decl = nullptr;
};

struct Scope {
  std::unordered_map<sv, Binding> names;
  std::unordered_map<sv, Binding> ranges;  ///< %r<13>: key "%r"
};

/// Per-instruction decoding state.
struct Dec {
  Instruction in;
  sv full;                      ///< the whole opcode text, for messages
  const Token* op_tok = nullptr;
  std::vector<sv> mods;         ///< dotted parts after the base
  std::vector<DataType> types;  ///< type modifiers in order
  std::vector<RawOp> ops;
  size_t operands_begin = 0, operands_end = 0;  ///< token range of the operands
};

class Parser {
 public:
  Parser(sv src, std::string file) : src_(src) {
    mod_.file = std::move(file);
  }

  Module run() {
    LexResult lr = lex_ptx(src_);
    toks_ = std::move(lr.tokens);
    line_starts_ = std::move(lr.line_starts);
    for (auto& e : lr.errors) error_at(e.line, e.column, e.message);
    for (auto& e : lr.errors) lex_error_lines_.insert(e.line);
    parse_module();
    if (!saw_version_) error_at(1, 1, "missing .version directive");
    layout();
    resolve_address_initializers();
    decode_all();
    mark_recursive();
    if (!diags_.empty()) {
      std::stable_sort(diags_.begin(), diags_.end(), [](const PtxDiagnostic& a, const PtxDiagnostic& b) {
        return a.line != b.line ? a.line < b.line : a.column < b.column;
      });
      diags_.erase(std::unique(diags_.begin(), diags_.end(),
                               [](const PtxDiagnostic& a, const PtxDiagnostic& b) {
                                 return a.line == b.line && a.column == b.column && a.message == b.message;
                               }),
                   diags_.end());
      throw PtxError(std::move(diags_));
    }
    return std::move(mod_);
  }

 private:
  // ------------------------------------------------------------ diagnostics

  std::string line_text(uint32_t line) const {
    if (line == 0 || line > line_starts_.size()) return {};
    size_t b = line_starts_[line - 1];
    size_t e = src_.find('\n', b);
    if (e == sv::npos) e = src_.size();
    sv t = src_.substr(b, e - b);
    while (!t.empty() && (t.front() == ' ' || t.front() == '\t')) t.remove_prefix(1);
    while (!t.empty() && (t.back() == ' ' || t.back() == '\t' || t.back() == '\r')) t.remove_suffix(1);
    return std::string(t);
  }

  void error_at(uint32_t line, uint32_t col, std::string msg) {
    if (diags_.size() >= kMaxDiagnostics) return;
    if (lex_error_lines_.count(line)) return;  // the lexer's message explains this line
    PtxDiagnostic d;
    d.file = mod_.file;
    d.line = line;
    d.column = col;
    d.message = std::move(msg);
    d.text = line_text(line);
    diags_.push_back(std::move(d));
  }
  void error(const Token& t, std::string msg) { error_at(t.line, t.column, std::move(msg)); }
  [[noreturn]] void fail(const Token& t, std::string msg) {
    error(t, std::move(msg));
    throw StmtAbort{};
  }
  std::string where(const Token& t) const {
    return mod_.file + ":" + std::to_string(t.line) + ":" + std::to_string(t.column);
  }
  static std::string describe(const Token& t) {
    switch (t.kind) {
      case TokKind::End: return "end of file";
      case TokKind::String: return "string " + std::string(t.text);
      default: return "'" + std::string(t.text) + "'";
    }
  }

  // ------------------------------------------------------------ token access

  const Token& peek(size_t k = 0) const {
    size_t i = std::min(pos_ + k, toks_.size() - 1);
    return toks_[i];
  }
  const Token& next() {
    const Token& t = toks_[pos_];
    if (pos_ + 1 < toks_.size()) ++pos_;
    return t;
  }
  bool at_end() const { return toks_[pos_].kind == TokKind::End; }
  bool accept(char c) {
    if (peek().is(c)) {
      next();
      return true;
    }
    return false;
  }
  const Token& expect(char c, const char* context) {
    if (!peek().is(c))
      fail(peek(), std::string("expected '") + c + "' " + context + ", found " + describe(peek()));
    return next();
  }
  const Token& expect_name(const char* what) {
    const Token& t = peek();
    if (t.kind != TokKind::Word || t.text[0] == '.')
      fail(t, std::string("expected ") + what + ", found " + describe(t));
    return next();
  }
  uint64_t expect_uint(const char* what) {
    const Token& t = peek();
    uint64_t v = 0;
    if (t.kind != TokKind::Int) fail(t, std::string("expected ") + what + ", found " + describe(t));
    if (t.malformed) throw StmtAbort{};
    if (!parse_uint(t.text, v)) fail(t, "malformed integer '" + std::string(t.text) + "'");
    next();
    return v;
  }
  uint32_t expect_u32(const char* what) {
    const Token& t = peek();
    uint64_t v = expect_uint(what);
    if (v > UINT32_MAX) fail(t, std::string(what) + " out of range");
    return uint32_t(v);
  }

  /// Skips the rest of a line (.loc/.file have no terminating ';').
  /// `name: .callprototype (.param .b32 _) _ (.param .b64 _, ...);` names the
  /// signature of indirect calls; the callee's own parameters are matched
  /// when the call runs, so only the name is kept.
  void skip_call_prototype(FuncDef&) {
    prototypes_.insert(std::string(next().text));
    while (!at_end() && !peek().is(';')) next();
    expect(';', "after .callprototype");
  }

  void skip_line() {
    uint32_t line = peek().line;
    next();
    while (!at_end() && peek().line == line) next();
  }

  void skip_balanced_braces() {
    int depth = 0;
    while (!at_end()) {
      const Token& t = next();
      if (t.is('{')) ++depth;
      if (t.is('}') && --depth <= 0) return;
    }
  }

  static bool starts_module_directive(const Token& t) {
    return t.kind == TokKind::Word &&
           (t.text == ".visible" || t.text == ".weak" || t.text == ".extern" || t.text == ".entry" ||
            t.text == ".func" || t.text == ".global" || t.text == ".const" || t.text == ".version" ||
            t.text == ".target" || t.text == ".address_size" || t.text == ".common");
  }

  // ------------------------------------------------------------ module structure

  void parse_module() {
    while (!at_end()) {
      size_t start = pos_;
      try {
        parse_module_statement();
      } catch (const StmtAbort&) {
        recover_module(start);
      }
    }
  }

  void recover_module(size_t start) {
    if (pos_ == start) next();
    while (!at_end()) {
      const Token& t = peek();
      if (t.is(';')) {
        next();
        return;
      }
      if (t.is('{')) {
        skip_balanced_braces();
        return;
      }
      if (t.line_start && starts_module_directive(t)) return;
      next();
    }
  }

  void parse_module_statement() {
    const Token& t = peek();
    if (t.kind != TokKind::Word)
      fail(t, "unexpected " + describe(t) + " at module scope; expected a directive such as .entry or .global");
    sv w = t.text;
    if (w == ".version") return parse_version();
    if (w == ".target") {
      next();
      std::string target;
      do {
        const Token& n = expect_name("a target name");
        if (target.empty()) target = std::string(n.text);
      } while (accept(','));
      mod_.target = target;
      accept(';');  // nvcc writes none
      return;
    }
    if (w == ".address_size") {
      next();
      const Token& n = peek();
      uint32_t v = expect_u32("an address size");
      if (v != 64 && v != 32) fail(n, "invalid .address_size " + std::to_string(v));
      if (v != 64) fail(n, "unsupported syntax: .address_size 32 is not supported (only 64-bit PTX)");
      mod_.address_size = v;
      accept(';');
      return;
    }
    if (w == ".file" || w == ".loc") return skip_line();
    if (w == ".section") {
      next();
      while (!at_end() && !peek().is('{') && !peek().is(';')) next();
      if (peek().is('{')) skip_balanced_braces();
      else accept(';');
      return;
    }
    if (w == ".pragma") {
      next();
      while (peek().kind == TokKind::String || peek().is(',')) next();
      expect(';', "after .pragma");
      return;
    }
    bool is_extern = false;
    while (peek().kind == TokKind::Word &&
           (peek().text == ".visible" || peek().text == ".weak" || peek().text == ".extern" ||
            peek().text == ".common")) {
      if (peek().text == ".extern") is_extern = true;
      next();
    }
    const Token& d = peek();
    if (d.is_word(".entry") || d.is_word(".func")) return parse_function(is_extern);
    if (d.is_word(".global") || d.is_word(".const") || d.is_word(".shared") || d.is_word(".local")) {
      std::vector<Decl> decls = parse_var_decl(is_extern);
      for (auto& x : decls) add_module_var(std::move(x));
      return;
    }
    if (d.kind == TokKind::Word && d.text[0] == '.')
      fail(d, "unsupported syntax: unknown or unsupported directive '" + std::string(d.text) + "' at module scope");
    fail(d, "unexpected " + describe(d) + " at module scope; expected a directive such as .entry or .global");
  }

  void parse_version() {
    next();
    const Token& t = peek();
    if (t.kind != TokKind::Float && t.kind != TokKind::Int)
      fail(t, "expected a version number after .version, found " + describe(t));
    next();
    sv text = t.text;
    size_t dot = text.find('.');
    uint64_t major = 0, minor = 0;
    bool ok = dot != sv::npos && parse_uint(text.substr(0, dot), major) &&
              dot + 1 < text.size() && parse_uint(text.substr(dot + 1), minor);
    if (!ok) fail(t, "malformed PTX version '" + std::string(text) + "'");
    saw_version_ = true;
    if (major < 6 || major > 9)
      fail(t, "unsupported PTX version " + std::string(text) + " (supported: 6.0 to 9.x)");
    mod_.version_major = uint32_t(major);
    mod_.version_minor = uint32_t(minor);
    accept(';');
  }

  void add_module_var(Decl d) {
    if (module_names_.count(d.name)) {
      error_at(d.loc.line, d.loc.column, "duplicate declaration of '" + d.name + "'");
      return;
    }
    module_decls_.push_back(std::move(d));
    module_names_[module_decls_.back().name] = module_decls_.size() - 1;
  }

  /// After the state-space word: [.align N] [.vN] .type name[dims] [= init] {, name ...} ;
  std::vector<Decl> parse_var_decl(bool is_extern) {
    const Token& sp = next();
    Decl proto;
    proto.space = *space_of(sp.text.substr(1));
    proto.is_extern = is_extern;
    bool have_type = false;
    uint32_t vec = 1;
    while (peek().kind == TokKind::Word && peek().text[0] == '.') {
      const Token& m = next();
      sv w = m.text.substr(1);
      if (w == "align") {
        const Token& a = peek();
        proto.align = expect_u32("an alignment");
        if (proto.align == 0 || (proto.align & (proto.align - 1)))
          fail(a, "alignment must be a power of two");
      } else if (w == "v2" || w == "v4") {
        vec = w == "v2" ? 2 : 4;
      } else if (w == "ptr") {
      } else if (w == "texref" || w == "surfref" || w == "samplerref") {
        fail(m, "unsupported: texture references (." + std::string(w) + "); use texture objects");
      } else if (auto ty = type_of(w); ty && *ty != DataType::Pred) {
        proto.type = *ty;
        have_type = true;
      } else {
        // Reported once; the names are still declared (marked erroneous) so
        // that their uses raise no follow-on "unknown symbol" errors.
        error(m, "unsupported syntax: unsupported qualifier '" + std::string(m.text) + "' in variable declaration");
        proto.erroneous = true;
      }
    }
    if (!have_type) fail(peek(), "expected a type in variable declaration, found " + describe(peek()));
    std::vector<Decl> out;
    do {
      Decl d = proto;
      const Token& n = expect_name("a variable name");
      d.name = std::string(n.text);
      d.loc = {n.line, n.column};
      d.elems = vec;
      try {
        parse_var_declarator(d, n);
      } catch (const StmtAbort&) {
        // Reported already; the name stays declared (erroneous, no data) so
        // that its uses raise no follow-on "unknown symbol" errors.
        d.erroneous = true;
        d.unsized = false;
        d.elems = std::max(d.elems, 1u);
        d.init.clear();
        d.has_init = false;
        out.push_back(std::move(d));
        skip_rest_of_statement();
        return out;
      }
      out.push_back(std::move(d));
    } while (accept(','));
    expect(';', "after variable declaration");
    return out;
  }

  /// Skips to just after the current statement's ';' (braces of an initializer
  /// included; not past an unmatched '}' or the next directive line).
  void skip_rest_of_statement() {
    int depth = 0;
    while (!at_end()) {
      const Token& t = peek();
      if (t.is(';')) {
        next();
        return;
      }
      if (t.is('}') && depth == 0) return;
      if (t.line_start && t.kind == TokKind::Word && t.text[0] == '.') return;
      if (t.is('{')) ++depth;
      if (t.is('}')) --depth;
      next();
    }
  }

  /// The rest of one variable declarator after its name: [dims] [= init].
  void parse_var_declarator(Decl& d, const Token& n) {
    while (accept('[')) {
      if (peek().is(']')) {
        d.unsized = true;
      } else {
        const Token& nt = peek();
        uint32_t k = expect_u32("an array size");
        if (uint64_t(d.elems) * k * d.elem_bytes() > (1ull << 31)) fail(nt, "array too large");
        d.elems *= k;
      }
      expect(']', "after array size");
    }
    if (accept('=')) parse_initializer(d);
    if (d.unsized) {
      if (d.has_init) {
        d.elems = uint32_t(d.init.size());
        d.unsized = false;
      } else if (!(d.is_extern && d.space == StateSpace::Shared)) {
        fail(n, "array '" + d.name + "' has no size");
      } else {
        d.elems = 0;
      }
    }
    if (d.has_init && d.init.size() > d.elems)
      fail(n, "too many initializers for '" + d.name + "'");
  }

  void parse_initializer(Decl& d) {
    if (d.space == StateSpace::Shared || d.space == StateSpace::Local)
      fail(peek(), "variables in " + std::string(space_name(d.space)) + " cannot have initializers");
    d.has_init = true;
    int depth = 0;
    bool expect_value = true;
    while (true) {
      const Token& t = peek();
      if (t.is('{')) {
        ++depth;
        next();
        expect_value = true;
        continue;
      }
      if (t.is('}') && depth > 0) {
        --depth;
        next();
        if (depth == 0) return;
        expect_value = false;
        continue;
      }
      if (t.is(',') && !expect_value) {
        if (depth == 0) return;  // next declarator
        next();
        expect_value = true;
        continue;
      }
      if (expect_value) {
        bool neg = accept('-');
        const Token& v = peek();
        Literal lit;
        if (!read_literal(v, neg, lit)) {
          if (v.kind != TokKind::Word || neg) fail(v, "expected a constant in initializer, found " + describe(v));
          read_symbol_initializer(lit);
        } else {
          next();
        }
        d.init.push_back(lit);
        expect_value = false;
        if (depth == 0) return;
        continue;
      }
      fail(t, "expected ',' or '}' in initializer, found " + describe(t));
    }
  }

  /// `name` or `generic(name)`: a function's or variable's address as an
  /// initial value (vtables, function-pointer tables); resolved after layout.
  void read_symbol_initializer(Literal& lit) {
    const Token& v = next();
    lit.kind = Literal::SymbolAddress;
    lit.loc = {v.line, v.column};
    if (v.text == "generic" && peek().is('(')) {
      next();
      lit.symbol = std::string(expect_name("a symbol name").text);
      expect(')', "after generic(symbol");
    } else {
      lit.symbol = std::string(v.text);
    }
  }

  /// Writes function addresses into initializers and records where a
  /// .global variable's address goes (the loader adds its device address).
  void resolve_address_initializers() {
    for (const Decl& d : module_decls_) {
      for (size_t i = 0; i < d.init.size(); ++i) {
        const Literal& lit = d.init[i];
        if (lit.kind != Literal::SymbolAddress) continue;
        if (d.elem_bytes() != 8 || d.space != StateSpace::Global) {
          error_at(lit.loc.line, lit.loc.column,
                   "address of '" + lit.symbol + "' as initial value needs a 64-bit element of a .global variable");
          continue;
        }
        ModuleVariable& var = mod_.globals[size_t(d.global_index)];
        const uint32_t at = uint32_t(i * 8);
        if (auto f = func_names_.find(lit.symbol); f != func_names_.end()) {
          const FuncDef& fn = funcs_[f->second];
          if (fn.module_index < 0) {
            error_at(lit.loc.line, lit.loc.column, "address of function '" + lit.symbol + "' which has no body here");
            continue;
          }
          const uint64_t a = function_address(uint32_t(fn.module_index));
          if (var.init.size() < at + 8) var.init.resize(d.size(), 0);
          for (unsigned b = 0; b < 8; ++b) var.init[at + b] = uint8_t(a >> (8 * b));
          continue;
        }
        auto g = module_names_.find(lit.symbol);
        if (g == module_names_.end() || module_decls_[g->second].space != StateSpace::Global) {
          error_at(lit.loc.line, lit.loc.column,
                   "initial value '" + lit.symbol + "' is not a function or .global variable of this module");
          continue;
        }
        if (var.init.size() < at + 8) var.init.resize(d.size(), 0);
        var.address_inits.push_back({at, uint32_t(module_decls_[g->second].global_index)});
      }
    }
  }

  /// Reads a numeric literal token (the '-' already consumed when neg).
  bool read_literal(const Token& t, bool neg, Literal& lit) {
    if (t.malformed) throw StmtAbort{};  // the lexer has reported it
    if (t.kind == TokKind::Int) {
      uint64_t v = 0;
      if (!parse_uint(t.text, v)) fail(t, "malformed integer '" + std::string(t.text) + "'");
      lit.kind = Literal::Int;
      lit.bits = neg ? uint64_t(0) - v : v;
      return true;
    }
    if (t.kind == TokKind::HexFloat) {
      uint64_t v = 0;
      std::string hex = "0x" + std::string(t.text.substr(2));
      if (!parse_uint(hex, v)) fail(t, "malformed floating-point literal '" + std::string(t.text) + "'");
      bool single = t.text[1] == 'f' || t.text[1] == 'F';
      lit.kind = single ? Literal::F32Bits : Literal::F64Bits;
      lit.bits = v;
      if (neg) lit.bits ^= single ? 0x80000000ull : 0x8000000000000000ull;
      return true;
    }
    if (t.kind == TokKind::Float) {
      double d = 0;
      auto r = std::from_chars(t.text.data(), t.text.data() + t.text.size(), d);
      if (r.ec != std::errc() || r.ptr != t.text.data() + t.text.size())
        fail(t, "malformed floating-point literal '" + std::string(t.text) + "'");
      lit.kind = Literal::Dec;
      lit.d = neg ? -d : d;
      return true;
    }
    if (t.kind == TokKind::Word && t.text == "WARP_SZ") {
      lit.kind = Literal::Int;
      lit.bits = neg ? uint64_t(0) - 32 : 32;
      return true;
    }
    return false;
  }

  /// .param [.align N] [.ptr] [.space] .type name[[N]]
  Decl parse_param_decl(bool kernel) {
    const Token& p = peek();
    if (p.is_word(".reg")) fail(p, "unsupported syntax: register parameters (.reg in a parameter list) are not supported");
    if (!p.is_word(".param")) fail(p, "expected .param in parameter list, found " + describe(p));
    next();
    Decl d;
    d.space = StateSpace::Param;
    d.kernel_param = kernel;
    bool have_type = false;
    while (peek().kind == TokKind::Word && peek().text[0] == '.') {
      const Token& m = next();
      sv w = m.text.substr(1);
      if (w == "align") {
        const Token& a = peek();
        d.align = expect_u32("an alignment");
        if (d.align == 0 || (d.align & (d.align - 1))) fail(a, "alignment must be a power of two");
      } else if (w == "ptr" || space_of(w)) {
      } else if (auto ty = type_of(w); ty && *ty != DataType::Pred) {
        d.type = *ty;
        have_type = true;
      } else {
        // Reported once; the parameter stays declared (erroneous) so that the
        // function is still defined and uses of the name raise no follow-on errors.
        error(m, "unsupported syntax: unsupported qualifier '" + std::string(m.text) + "' in parameter declaration");
        d.erroneous = true;
      }
    }
    if (!have_type) fail(peek(), "expected a type in parameter declaration, found " + describe(peek()));
    const Token& n = expect_name("a parameter name");
    d.name = std::string(n.text);
    d.loc = {n.line, n.column};
    if (accept('[')) {
      const Token& nt = peek();
      uint32_t k = expect_u32("an array size");
      if (uint64_t(k) * d.elem_bytes() > (1u << 20)) fail(nt, "parameter too large");
      d.elems = k;
      expect(']', "after array size");
    }
    return d;
  }

  void parse_param_list(FuncDef& f, std::vector<uint32_t>& out, bool kernel) {
    expect('(', "before parameter list");
    if (accept(')')) return;
    while (true) {
      Decl d = parse_param_decl(kernel);
      for (uint32_t i : f.params)
        if (f.decls[i].name == d.name) fail(peek(), "duplicate declaration of '" + d.name + "'");
      for (uint32_t i : f.rets)
        if (f.decls[i].name == d.name) fail(peek(), "duplicate declaration of '" + d.name + "'");
      f.decls.push_back(std::move(d));
      out.push_back(uint32_t(f.decls.size() - 1));
      if (accept(',')) continue;
      expect(')', "after parameter");
      return;
    }
  }

  void parse_function(bool is_extern) {
    const Token& kw = next();
    FuncDef f;
    f.is_entry = kw.text == ".entry";
    f.is_extern = is_extern;
    f.loc = {kw.line, kw.column};
    if (!f.is_entry && peek().is('(')) parse_param_list(f, f.rets, false);
    const Token& n = expect_name("a function name");
    f.name = std::string(n.text);
    if (peek().is('(')) parse_param_list(f, f.params, f.is_entry);
    // Performance directives between the signature and the body.
    while (peek().kind == TokKind::Word && peek().text[0] == '.') {
      const Token& d = next();
      sv w = d.text;
      if (w == ".maxntid" || w == ".reqntid") {
        auto& dims = w == ".maxntid" ? f.maxntid : f.reqntid;
        dims = {1, 1, 1};
        for (int i = 0; i < 3; ++i) {
          dims[size_t(i)] = expect_u32("a thread count");
          if (!accept(',')) break;
        }
      } else if (w == ".minnctapersm") {
        f.minnctapersm = expect_u32("a CTA count");
      } else if (w == ".maxnreg") {
        f.maxnreg = expect_u32("a register count");
      } else if (w == ".maxnctapersm" || w == ".maxclusterrank") {
        expect_u32("a count");
      } else if (w == ".noreturn" || w == ".explicitcluster") {
      } else if (w == ".reqnctapercluster") {
        do expect_u32("a count");
        while (accept(','));
      } else if (w == ".pragma") {
        while (peek().kind == TokKind::String) {
          sv s = next().text;
          f.pragmas.emplace_back(s.substr(1, s.size() >= 2 ? s.size() - 2 : 0));
          accept(',');
        }
        expect(';', "after .pragma");
      } else {
        // Reported and skipped with its arguments: the function is still
        // defined, so calls to it raise no follow-on "unknown function".
        error(d, "unsupported syntax: unknown or unsupported function directive '" + std::string(w) + "'");
        while (!at_end() && !peek().is('{') && !peek().is(';') &&
               !(peek().kind == TokKind::Word && peek().text[0] == '.'))
          next();
      }
    }
    if (accept(';')) {
      register_function(std::move(f), n);
      return;
    }
    const Token& open = peek();
    if (!open.is('{')) fail(open, "expected '{' or ';' after function signature, found " + describe(open));
    next();
    f.has_body = true;
    parse_body(f, open);
    register_function(std::move(f), n);
  }

  void register_function(FuncDef f, const Token& name_tok) {
    auto it = func_names_.find(f.name);
    if (it == func_names_.end()) {
      funcs_.push_back(std::move(f));
      func_names_[funcs_.back().name] = funcs_.size() - 1;
      return;
    }
    FuncDef& old = funcs_[it->second];
    if (old.has_body && f.has_body) {
      error(name_tok, "duplicate definition of function '" + f.name + "'");
      return;
    }
    if (old.is_entry != f.is_entry) {
      error(name_tok, "'" + f.name + "' redeclared as a different kind of function");
      return;
    }
    if (f.has_body) old = std::move(f);  // a prototype followed by the definition
  }

  // ------------------------------------------------------------ function bodies

  void parse_body(FuncDef& f, const Token& open) {
    std::vector<const Token*> opens{&open};
    while (true) {
      const Token& t = peek();
      const bool next_function = t.line_start && starts_module_directive(t) && t.text != ".global" &&
                                 t.text != ".const" && !(t.text == ".extern" && peek(1).is_word(".shared"));
      if (t.kind == TokKind::End || next_function) {
        const Token& o = *opens.back();
        error(o, "unterminated block '{' (missing '}')");
        return;
      }
      if (t.is('}')) {
        next();
        opens.pop_back();
        if (opens.empty()) return;
        f.items.push_back(Item{ItemKind::Close, 0, pos_ - 1, pos_});
        continue;
      }
      if (t.is('{')) {
        opens.push_back(&next());
        f.items.push_back(Item{ItemKind::Open, 0, pos_ - 1, pos_});
        continue;
      }
      size_t start = pos_;
      try {
        parse_body_statement(f);
      } catch (const StmtAbort&) {
        recover_statement(start);
      }
    }
  }

  /// Skips to the end of a bad statement: its ';', or the next line when the
  /// statement obviously ended without one.
  void recover_statement(size_t start) {
    if (pos_ > start && peek().line_start && !peek().is(')') && !peek().is(',')) return;
    if (pos_ == start) next();
    while (!at_end()) {
      const Token& t = peek();
      if (t.is(';')) {
        next();
        return;
      }
      if (t.is('}') || (t.is('{') && t.line_start)) return;
      if (t.line_start && starts_module_directive(t)) return;
      next();
    }
  }

  void parse_body_statement(FuncDef& f) {
    const Token& t = peek();
    if (t.kind == TokKind::Word) {
      sv w = t.text;
      if (w == ".reg" || w.substr(0, 5) == ".reg.") return parse_reg_decl(f);
      const bool ext = w == ".extern" && peek(1).is_word(".shared");
      if (ext) next();
      if (ext || w == ".local" || w == ".shared" || w == ".param") {
        for (auto& d : parse_var_decl(ext)) {
          f.decls.push_back(std::move(d));
          f.items.push_back(Item{ItemKind::Decl, uint32_t(f.decls.size() - 1), 0, 0});
        }
        return;
      }
      if (w == ".global" || w == ".const")
        fail(t, "unsupported syntax: '" + std::string(w) + "' declarations inside a function are not supported");
      if (w == ".pragma") {
        next();
        while (peek().kind == TokKind::String) {
          sv s = next().text;
          f.pragmas.emplace_back(s.substr(1, s.size() >= 2 ? s.size() - 2 : 0));
          if (f.pragmas.back() == "nounroll") f.items.push_back(Item{ItemKind::NoUnroll, 0, 0, 0});
          accept(',');
        }
        expect(';', "after .pragma");
        return;
      }
      if (w == ".loc" || w == ".file") return skip_line();
      if (w[0] == '.') fail(t, "unsupported syntax: unknown or unsupported directive '" + std::string(w) + "' in function body");
      if (peek(1).is(':') && w[0] != '%' && w.find('.') == sv::npos) {
        if (peek(2).is_word(".callprototype")) return skip_call_prototype(f);
        f.items.push_back(Item{ItemKind::Label, 0, pos_, pos_ + 1});
        next();
        next();
        return;
      }
      return scan_instruction(f);
    }
    if (t.is('@')) return scan_instruction(f);
    fail(t, "unexpected " + describe(t) + "; expected an instruction, label or declaration");
  }

  /// Records the token range of one instruction up to its ';'. Braces inside
  /// belong to vector operands.
  void scan_instruction(FuncDef& f) {
    size_t start = pos_;
    int depth = 0;
    while (true) {
      const Token& t = peek();
      if (t.kind == TokKind::End) fail(t, "expected ';' at end of instruction, found end of file");
      if (t.is(';')) break;  // never part of an operand
      if (t.is('{') || t.is('[') || t.is('(')) ++depth;
      if (t.is('}') || t.is(']') || t.is(')')) {
        if (depth == 0) fail(t, "expected ';' at end of instruction, found " + describe(t));
        --depth;
      }
      next();
    }
    f.items.push_back(Item{ItemKind::Instr, 0, start, pos_});
    next();
  }

  void parse_reg_decl(FuncDef& f) {
    // '.reg .b32 x' or, as the inline asm of cuda_fp16.h writes it, '.reg.b32 x'.
    const Token& rt = next();
    const bool fused = rt.text.size() > 4;
    const Token& tt = fused ? rt : peek();
    const sv type_text = fused ? rt.text.substr(4) : tt.text;
    if (tt.kind != TokKind::Word || type_text[0] != '.')
      fail(tt, "expected a type after .reg, found " + describe(tt));
    // An unsupported register type is reported here once; its names are still
    // declared (marked erroneous) so that their uses raise no follow-on errors.
    bool erroneous = false;
    std::optional<DataType> ty;
    if (type_text == ".v2" || type_text == ".v4" || type_text == ".v8") {
      error(tt, "unsupported syntax: vector registers (.reg " + std::string(type_text) + ") are not supported");
      if (!fused) next();
      if (peek().kind == TokKind::Word && peek().text[0] == '.') next();  // the element type
      erroneous = true;
    } else {
      ty = type_of(type_text.substr(1));
      if (!ty) {
        error(tt, "unsupported syntax: unsupported register type '" + std::string(type_text) + "'");
        erroneous = true;
      }
      if (!fused) next();
    }
    if (!ty) ty = DataType::B32;
    do {
      const Token& n = expect_name("a register name");
      Decl d;
      d.space = StateSpace::Reg;
      d.type = *ty;
      d.name = std::string(n.text);
      d.loc = {n.line, n.column};
      d.erroneous = erroneous;
      if (accept('<')) {
        const Token& ct = peek();
        d.range = expect_u32("a register count");
        if (d.range == 0 || d.range > (1u << 20)) fail(ct, "bad register count");
        expect('>', "after register count");
      }
      f.decls.push_back(std::move(d));
      f.items.push_back(Item{ItemKind::Decl, uint32_t(f.decls.size() - 1), 0, 0});
    } while (accept(','));
    expect(';', "after .reg declaration");
  }

  // ------------------------------------------------------------ layout

  void layout() {
    // Module variables, in declaration order.
    uint32_t shared_end = 0;
    uint32_t extern_align = 0;
    std::vector<Decl*> extern_shared;
    for (auto& d : module_decls_) {
      ModuleVariable v;
      v.name = d.name;
      v.space = d.space;
      v.size = d.size();
      v.align = d.alignment();
      v.is_extern = d.is_extern && d.space == StateSpace::Shared && d.elems == 0;
      encode_init(d, v.init);
      if (d.space == StateSpace::Global) {
        d.offset = align_up(mod_.global_segment_bytes, v.align);
        mod_.global_segment_bytes = uint32_t(d.offset) + v.size;
        d.global_index = int32_t(mod_.globals.size());
        v.offset = d.offset;
        mod_.globals.push_back(std::move(v));
      } else if (d.space == StateSpace::Const) {
        d.offset = align_up(mod_.const_bank_bytes, v.align);
        mod_.const_bank_bytes = uint32_t(d.offset) + v.size;
        mod_.const_bank.resize(mod_.const_bank_bytes, 0);
        std::copy(v.init.begin(), v.init.end(), mod_.const_bank.begin() + long(d.offset));
        v.offset = d.offset;
        mod_.consts.push_back(std::move(v));
      } else if (d.space == StateSpace::Shared) {
        if (v.is_extern) {
          extern_align = std::max(extern_align, v.align);
          extern_shared.push_back(&d);
          mod_.shareds.push_back(std::move(v));
          shared_index_[&d] = mod_.shareds.size() - 1;
        } else {
          d.offset = align_up(shared_end, v.align);
          shared_end = uint32_t(d.offset) + v.size;
          v.offset = d.offset;
          mod_.shareds.push_back(std::move(v));
        }
      } else if (d.space == StateSpace::Local) {
        d.offset = alloc_local(d);
      }
    }
    // Function-level shared: device functions may be reached from any kernel,
    // so theirs is common; each kernel's own shared overlaps other kernels'.
    auto place_shared = [&](FuncDef& f, uint32_t& end) {
      for (auto& it : f.items) {
        if (it.kind != ItemKind::Decl) continue;
        Decl& d = f.decls[it.decl];
        if (d.space != StateSpace::Shared) continue;
        ModuleVariable v;
        v.name = d.name;
        v.space = StateSpace::Shared;
        v.size = d.size();
        v.align = d.alignment();
        v.is_extern = d.elems == 0;
        if (v.is_extern) {
          extern_align = std::max(extern_align, v.align);
          extern_shared.push_back(&d);
          mod_.shareds.push_back(std::move(v));
          shared_index_[&d] = mod_.shareds.size() - 1;
          continue;
        }
        d.offset = align_up(end, v.align);
        end = uint32_t(d.offset) + v.size;
        v.offset = d.offset;
        mod_.shareds.push_back(std::move(v));
      }
    };
    for (auto& f : funcs_)
      if (f.has_body && !f.is_entry) place_shared(f, shared_end);
    uint32_t static_end = shared_end;
    for (auto& f : funcs_) {
      if (!f.has_body || !f.is_entry) continue;
      uint32_t end = shared_end;
      place_shared(f, end);
      static_end = std::max(static_end, end);
    }
    if (extern_align) static_end = align_up(static_end, extern_align);
    mod_.static_shared_bytes = static_end;
    for (Decl* d : extern_shared) {
      d->offset = static_end;
      mod_.shareds[shared_index_[d]].offset = static_end;
    }

    // Parameters and .local data: kernel params in the launch buffer, all
    // other params and locals at static per-thread local offsets.
    for (auto& f : funcs_) {
      if (!f.has_body) continue;
      f.module_index = int32_t(mod_.functions.size());
      Function fn;
      fn.name = f.name;
      fn.is_entry = f.is_entry;
      fn.loc = f.loc;
      fn.maxntid = f.maxntid;
      fn.reqntid = f.reqntid;
      fn.minnctapersm = f.minnctapersm;
      fn.maxnreg = f.maxnreg;
      fn.pragmas = f.pragmas;
      fn.local_first = mod_.local_bytes_per_thread;
      for (uint32_t i : f.rets) {
        f.decls[i].offset = alloc_local(f.decls[i]);
        fn.ret_slots.push_back(ParamCopy{uint32_t(f.decls[i].offset), 0, f.decls[i].size()});
      }
      for (uint32_t i : f.params) {
        Decl& d = f.decls[i];
        if (f.is_entry) {
          d.offset = align_up(fn.param_bytes, d.alignment());
          fn.param_bytes = uint32_t(d.offset) + d.size();
          KernelParam kp;
          kp.name = d.name;
          kp.type = d.type;
          kp.size = d.size();
          kp.align = d.alignment();
          kp.offset = uint32_t(d.offset);
          fn.params.push_back(std::move(kp));
        } else {
          d.offset = alloc_local(d);
          fn.param_slots.push_back(ParamCopy{0, uint32_t(d.offset), d.size()});
        }
      }
      for (auto& it : f.items) {
        if (it.kind != ItemKind::Decl) continue;
        Decl& d = f.decls[it.decl];
        if (d.space == StateSpace::Local || d.space == StateSpace::Param) d.offset = alloc_local(d);
      }
      fn.local_end = mod_.local_bytes_per_thread;
      mod_.function_index[f.name] = uint32_t(mod_.functions.size());
      mod_.functions.push_back(std::move(fn));
    }
  }

  uint32_t alloc_local(const Decl& d) {
    uint32_t off = align_up(mod_.local_bytes_per_thread, d.alignment());
    mod_.local_bytes_per_thread = off + d.size();
    return off;
  }

  void encode_init(const Decl& d, std::vector<uint8_t>& out) {
    if (!d.has_init) return;
    const unsigned w = d.elem_bytes();
    out.assign(d.size(), 0);
    for (size_t i = 0; i < d.init.size() && (i + 1) * w <= out.size(); ++i) {
      uint64_t bits = 0;
      if (d.init[i].kind == Literal::SymbolAddress) continue;  // resolve_address_initializers
      if (!literal_bits(d.init[i], d.type, bits)) {
        error_at(d.loc.line, d.loc.column,
                 "initializer of '" + d.name + "' does not match its type " + type_name(d.type));
        return;
      }
      for (unsigned b = 0; b < w; ++b) out[i * w + b] = uint8_t(bits >> (8 * b));
    }
  }

  // ------------------------------------------------------------ decoding

  /// Register slots: a call keeps the warp's register file, so a kernel's
  /// registers must not collide with any device function's. Device functions
  /// share the low slots; each kernel's own start above them (kernels never
  /// run in the same warp, so they overlap each other, saving memory).
  void decode_all() {
    for (auto& f : funcs_) {
      if (!f.has_body || f.is_entry) continue;
      for (auto& d : f.decls) {
        if (d.space != StateSpace::Reg) continue;
        (d.type == DataType::Pred ? kernel_pred_base_ : kernel_reg_base_) += std::max(1u, d.range);
      }
    }
    uint32_t func_reg = 0, func_pred = 0, max_reg = kernel_reg_base_, max_pred = kernel_pred_base_;
    for (auto& f : funcs_) {
      if (!f.has_body) continue;
      next_reg_ = f.is_entry ? kernel_reg_base_ : func_reg;
      next_pred_ = f.is_entry ? kernel_pred_base_ : func_pred;
      Function& fn = mod_.functions[size_t(f.module_index)];
      fn.reg_first = next_reg_;
      fn.pred_first = next_pred_;
      decode_function(f);
      fn.reg_end = next_reg_;
      fn.pred_end = next_pred_;
      if (!f.is_entry) {
        func_reg = next_reg_;
        func_pred = next_pred_;
      }
      max_reg = std::max(max_reg, next_reg_);
      max_pred = std::max(max_pred, next_pred_);
    }
    for (auto& fn : mod_.functions) {
      fn.num_regs = max_reg;
      fn.num_preds = max_pred;
    }
    const std::vector<uint32_t> regs = estimate_registers(mod_);
    for (size_t i = 0; i < regs.size(); ++i) mod_.functions[i].regs_per_thread = regs[i];
  }

  void decode_function(FuncDef& f) {
    cur_ = &f;
    Function& fn = mod_.functions[size_t(f.module_index)];
    fn.entry_pc = uint32_t(mod_.code.size());
    labels_.clear();
    fixups_.clear();
    scopes_.clear();
    scopes_.emplace_back();
    for (uint32_t i : f.rets) bind_var(f.decls[i]);
    for (uint32_t i : f.params) bind_var(f.decls[i]);
    for (auto& it : f.items) {
      switch (it.kind) {
        case ItemKind::Open:
          scopes_.emplace_back();
          break;
        case ItemKind::Close:
          if (scopes_.size() > 1) scopes_.pop_back();
          break;
        case ItemKind::Decl: {
          const Decl& d = f.decls[it.decl];
          if (d.space == StateSpace::Reg) {
            bind_reg(d);
          } else {
            bind_var(d);
          }
          break;
        }
        case ItemKind::Label: {
          const Token& t = toks_[it.tb];
          if (!labels_.emplace(t.text, uint32_t(mod_.code.size())).second)
            error(t, "duplicate label '" + std::string(t.text) + "'");
          break;
        }
        case ItemKind::NoUnroll:
          fn.nounroll_pcs.push_back(uint32_t(mod_.code.size()));
          break;
        case ItemKind::Instr:
          try {
            decode_instruction(it);
          } catch (const StmtAbort&) {
          }
          break;
      }
    }
    fn.end_pc = uint32_t(mod_.code.size());
    for (auto& fx : fixups_) {
      auto l = labels_.find(fx.name);
      if (l == labels_.end()) {
        error(*fx.tok, "unknown label '" + std::string(fx.name) + "'");
        continue;
      }
      if (l->second == fn.end_pc) {  // would run into the next function
        error(*fx.tok, "label '" + std::string(fx.name) + "' is at the end of '" + f.name +
                           "': no instruction follows it");
        continue;
      }
      Instruction& in = mod_.code[fx.pc];
      in.target = l->second;
      in.src[0].imm = l->second;
    }
    compute_reconvergence(mod_, fn);
    cur_ = nullptr;
  }

  void declare(const Decl& d, Binding b, bool range) {
    Scope& s = scopes_.back();
    sv key = d.name;
    bool dup = s.names.count(key) || s.ranges.count(key);
    if (!range && !dup) {
      // %r3 declared where %r<5> already covers it.
      size_t k = key.size();
      while (k > 0 && key[k - 1] >= '0' && key[k - 1] <= '9') --k;
      if (k < key.size() && k > 0) {
        auto r = s.ranges.find(key.substr(0, k));
        uint64_t idx = 0;
        if (r != s.ranges.end() && parse_uint(key.substr(k), idx) && idx < r->second.count) dup = true;
      }
    }
    if (dup) {
      error_at(d.loc.line, d.loc.column, "duplicate declaration of '" + d.name + "'");
      return;
    }
    (range ? s.ranges : s.names)[key] = b;
  }

  void bind_reg(const Decl& d) {
    Binding b;
    const uint32_t n = std::max(1u, d.range);
    if (d.type == DataType::Pred) {
      b.kind = Binding::Pred;
      b.slot = next_pred_;
      next_pred_ += n;
    } else {
      b.kind = Binding::Reg;
      b.slot = next_reg_;
      next_reg_ += n;
      std::vector<uint8_t>& units = mod_.functions[size_t(cur_->module_index)].reg_units;
      units.resize(next_reg_, 0);
      std::fill(units.begin() + b.slot, units.end(), uint8_t(reg_units(d.type)));
    }
    b.count = n;
    b.decl = &d;
    declare(d, b, d.range > 0);
  }

  void bind_var(const Decl& d) {
    Binding b;
    b.kind = Binding::Var;
    b.decl = &d;
    declare(d, b, false);
  }

  /// Looks a name up through the scopes, then module variables.
  const Binding* lookup(sv name) {
    for (size_t i = scopes_.size(); i-- > 0;) {
      Scope& s = scopes_[i];
      auto it = s.names.find(name);
      if (it != s.names.end()) return &it->second;
      if (!s.ranges.empty()) {
        size_t k = name.size();
        while (k > 0 && name[k - 1] >= '0' && name[k - 1] <= '9') --k;
        if (k < name.size() && k > 0 && (name.size() - k == 1 || name[k] != '0')) {
          auto r = s.ranges.find(name.substr(0, k));
          uint64_t idx = 0;
          if (r != s.ranges.end() && parse_uint(name.substr(k), idx) && idx < r->second.count) {
            scratch_ = r->second;
            scratch_.slot += uint32_t(idx);
            scratch_.count = 1;
            return &scratch_;
          }
        }
      }
    }
    auto m = module_names_.find(std::string(name));
    if (m != module_names_.end()) {
      scratch_ = Binding{};
      scratch_.kind = Binding::Var;
      scratch_.decl = &module_decls_[m->second];
      return &scratch_;
    }
    return nullptr;
  }

  // -------------------------------------------------- operand syntax

  const Token& tok(size_t i) const { return toks_[i]; }

  /// Parses the operands in [p, e): comma-separated RawOps.
  std::vector<RawOp> parse_operands(size_t p, size_t e) {
    std::vector<RawOp> ops;
    if (p >= e) return ops;
    while (true) {
      ops.push_back(parse_operand(p, e));
      if (p >= e) break;
      if (!tok(p).is(',')) fail(tok(p), "expected ',' between operands, found " + describe(tok(p)));
      ++p;
      if (p >= e) fail(tok(e), "expected an operand after ','");
    }
    return ops;
  }

  /// The register name of 'r.sel' (video selectors follow a '.').
  static sv register_part(sv name) { return name.substr(0, name.find('.')); }

  const Token& need(size_t p, size_t e, const char* what) {
    if (p >= e) fail(tok(e), std::string("expected ") + what + ", found " + describe(tok(e)));
    return tok(p);
  }

  RawOp parse_operand(size_t& p, size_t e) {
    RawOp r;
    r.tok = &need(p, e, "an operand");
    if (tok(p).is('!')) {
      r.negate = true;
      ++p;
      need(p, e, "a predicate after '!'");
    }
    if (tok(p).is('-') && p + 1 < e && tok(p + 1).kind == TokKind::Word && tok(p + 1).text[0] != '.') {
      r.minus = true;  // negated register: only vmad accepts it
      ++p;
    }
    const Token& t = tok(p);
    if (t.is('-') || t.kind == TokKind::Int || t.kind == TokKind::Float || t.kind == TokKind::HexFloat) {
      bool neg = t.is('-');
      if (neg) ++p;
      const Token& v = need(p, e, "a number after '-'");
      r.kind = RawOp::Lit;
      if (!read_literal(v, neg, r.lit)) fail(v, "expected a number, found " + describe(v));
      ++p;
      return r;
    }
    if (t.kind == TokKind::Word && t.text[0] != '.') {
      ++p;
      if (t.text == "WARP_SZ") {
        r.kind = RawOp::Lit;
        read_literal(t, false, r.lit);
        return r;
      }
      r.name = t.text;
      const Binding* bound = t.text[0] == '%' ? nullptr : lookup(register_part(t.text));
      // A register; without '%' when declared so, e.g. temp_param_reg or the
      // 'p' and 'r0' of inline assembly blocks (cuda_fp16.h, CUB).
      if (t.text[0] == '%' || (bound && bound->kind != Binding::Var)) {
        r.kind = RawOp::Reg;
        if (p < e && tok(p).is('|')) {  // second destination: setp 'p|q', shfl 'r|p'
          ++p;
          const Token& n2 = need(p, e, "a register after '|'");
          if (n2.kind != TokKind::Word || n2.text[0] == '.')
            fail(n2, "expected a register after '|', found " + describe(n2));
          r.name2 = n2.text;
          ++p;
        }
      } else {
        r.kind = RawOp::Name;
        if (p < e && tok(p).is('+')) {
          ++p;
          r.offset = parse_offset(p, e);
        }
      }
      return r;
    }
    if (t.is('{')) {
      r.kind = RawOp::Vector;
      ++p;
      while (true) {
        const Token& n = need(p, e, "a register in vector");
        // Integer elements: 'mov.b32 %f1, {0, %rs1}' (cuda_bf16.h); checked by vector_operand.
        if (n.kind != TokKind::Int && (n.kind != TokKind::Word || n.text[0] == '.'))
          fail(n, "expected a register in vector operand, found " + describe(n));
        r.elems.push_back(n.text);
        ++p;
        const Token& s = need(p, e, "'}'");
        ++p;
        if (s.is('}')) break;
        if (!s.is(',')) fail(s, "expected ',' or '}' in vector operand, found " + describe(s));
      }
      if (r.elems.size() > 8) fail(t, "vector operands have at most 8 elements (wmma fragments)");
      return r;
    }
    if (t.is('[')) {
      r.kind = RawOp::Addr;
      ++p;
      const Token& b = need(p, e, "an address");
      if (b.kind == TokKind::Word && b.text[0] != '.') {
        r.name = b.text;
        ++p;
        const Token& s = need(p, e, "']'");
        if (s.is('+')) {
          ++p;
          r.offset = parse_offset(p, e);
        } else if (s.is('-')) {
          r.offset = parse_offset(p, e);
        } else if (s.is(',')) {
          parse_texture_coordinates(p, e, r);
        }
      } else if (b.kind == TokKind::Int || b.is('-')) {
        r.offset = parse_offset(p, e);
      } else {
        fail(b, "expected a register, symbol or address in '[...]', found " + describe(b));
      }
      const Token& c = need(p, e, "']'");
      if (!c.is(']')) fail(c, "expected ']' after address, found " + describe(c));
      ++p;
      return r;
    }
    if (t.is('(')) {
      r.kind = RawOp::List;
      ++p;
      if (need(p, e, "')'").is(')')) {
        ++p;
        return r;
      }
      while (true) {
        const Token& n = need(p, e, "a parameter name");
        if (n.kind != TokKind::Word || n.text[0] == '.')
          fail(n, "expected a parameter name, found " + describe(n));
        r.elems.push_back(n.text);
        ++p;
        const Token& s = need(p, e, "')'");
        ++p;
        if (s.is(')')) break;
        if (!s.is(',')) fail(s, "expected ',' or ')' in parameter list, found " + describe(s));
      }
      return r;
    }
    fail(t, "expected an operand, found " + describe(t));
  }

  /// The ', {c0, ...}' after a texture/surface handle in '[...]'.
  void parse_texture_coordinates(size_t& p, size_t e, RawOp& r) {
    ++p;  // ','
    const Token& open = need(p, e, "a coordinate vector '{...}'");
    if (!open.is('{')) fail(open, "expected a coordinate vector '{...}' after ',', found " + describe(open));
    r.coords_tok = &open;
    ++p;
    while (true) {
      const Token& n = need(p, e, "a register in coordinate vector");
      if (n.kind != TokKind::Word || n.text[0] == '.')
        fail(n, "expected a register in coordinate vector, found " + describe(n));
      r.coords.push_back(n.text);
      ++p;
      const Token& s = need(p, e, "'}'");
      ++p;
      if (s.is('}')) break;
      if (!s.is(',')) fail(s, "expected ',' or '}' in coordinate vector, found " + describe(s));
    }
    if (r.coords.size() > 4) fail(open, "coordinate vectors have at most 4 elements");
  }

  /// [-]integer, as in [%rd+-4] or [%rd-4] (the '+' already consumed).
  int64_t parse_offset(size_t& p, size_t e) {
    bool neg = false;
    while (p < e && tok(p).is('-')) {
      neg = !neg;
      ++p;
    }
    const Token& n = need(p, e, "an offset");
    uint64_t v = 0;
    if (n.kind != TokKind::Int) fail(n, "expected an integer offset, found " + describe(n));
    if (n.malformed) throw StmtAbort{};
    if (!parse_uint(n.text, v) || v > (1ull << 62)) fail(n, "malformed offset '" + std::string(n.text) + "'");
    ++p;
    return neg ? -int64_t(v) : int64_t(v);
  }

  // -------------------------------------------------- operand meaning

  [[noreturn]] void unsupported(const Dec& d) {
    fail(*d.op_tok, "unsupported PTX instruction '" + std::string(d.full) + "' at " + where(*d.op_tok));
  }
  [[noreturn]] void bad_type(const Dec& d, DataType t) {
    fail(*d.op_tok, std::string("type ") + type_name(t) + " is not valid for '" + std::string(d.full) + "'");
  }

  void want_count(const Dec& d, size_t lo, size_t hi = 0) {
    if (hi == 0) hi = lo;
    size_t n = d.ops.size();
    if (n >= lo && n <= hi) return;
    std::string want = lo == hi ? std::to_string(lo) : std::to_string(lo) + " or " + std::to_string(hi);
    fail(*d.op_tok, "'" + std::string(d.full) + "' expects " + want + (lo == 1 && hi == 1 ? " operand" : " operands") +
             ", got " + std::to_string(n));
  }

  std::string nth(size_t i) const {
    static const char* const names[] = {"first", "second", "third", "fourth", "fifth", "sixth"};
    return i < 6 ? names[i] : "an";
  }

  const Binding& reg_binding(const RawOp& r, sv name) {
    const Binding* b = lookup(name);
    if (!b || b->kind == Binding::Var) {
      if (special_of(name)) fail(*r.tok, "special register '" + std::string(name) + "' cannot be written");
      fail(*r.tok, "unknown register '" + std::string(name) + "'");
    }
    return *b;
  }

  /// A destination register; a predicate when `pred`.
  Operand dst_operand(const Dec& d, size_t i, bool pred, bool allow_pipe = false) {
    const RawOp& r = d.ops[i];
    if (r.minus) fail(*r.tok, "'-' before a register is only allowed on vmad source operands");
    if (r.kind != RawOp::Reg || r.negate || (!allow_pipe && !r.name2.empty()))
      fail(*r.tok, "'" + std::string(d.full) + "' expects a " + (pred ? "predicate" : "register") + " as " +
                       nth(i) + " operand");
    const Binding& b = reg_binding(r, r.name);
    if ((b.kind == Binding::Pred) != pred)
      fail(*r.tok, "'" + std::string(d.full) + "' expects a " + (pred ? "predicate" : "non-predicate register") +
                       " as " + nth(i) + " operand, '" + std::string(r.name) + "' is " +
                       (pred ? "not a predicate" : "a predicate"));
    Operand o;
    o.kind = pred ? OperandKind::Pred : OperandKind::Reg;
    o.reg = b.slot;
    return o;
  }

  /// A register, immediate, special register or symbol address; a predicate
  /// (possibly negated) when immty is Pred.
  Operand src_operand(const Dec& d, size_t i, DataType immty) {
    const RawOp& r = d.ops[i];
    Operand o;
    const bool pred = immty == DataType::Pred;
    if (r.minus) fail(*r.tok, "'-' before a register is only allowed on vmad source operands");
    if (r.negate && !(pred && r.kind == RawOp::Reg))
      fail(*r.tok, "'!' is only allowed on predicate operands");
    switch (r.kind) {
      case RawOp::Reg: {
        if (!r.name2.empty()) fail(*r.tok, "'|' is only allowed in destinations");
        const Binding* b = lookup(r.name);
        if (!b || b->kind == Binding::Var) {
          if (auto s = special_of(r.name); s && !pred) {
            o.kind = OperandKind::Special;
            o.sreg = *s;
            return o;
          }
          fail(*r.tok, "unknown register '" + std::string(r.name) + "'");
        }
        if ((b->kind == Binding::Pred) != pred)
          fail(*r.tok, "'" + std::string(d.full) + "' expects a " + (pred ? "predicate" : "non-predicate") +
                           " as " + nth(i) + " operand, '" + std::string(r.name) + "' is " +
                           (pred ? "not a predicate" : "a predicate"));
        o.kind = pred ? OperandKind::Pred : OperandKind::Reg;
        o.reg = b->slot;
        o.negate = r.negate;
        return o;
      }
      case RawOp::Lit:
        o.kind = OperandKind::Imm;
        if (pred) {
          if (r.lit.kind != Literal::Int || r.lit.bits > 1) fail(*r.tok, "a predicate constant must be 0 or 1");
          o.imm = r.lit.bits;
          return o;
        }
        if (!literal_bits(r.lit, immty, o.imm)) {
          if (r.lit.kind == Literal::Int)
            fail(*r.tok, "'" + std::string(d.full) + "' needs a floating-point constant as " + nth(i) +
                             " operand (integer given)");
          fail(*r.tok, "'" + std::string(d.full) + "' needs an integer constant as " + nth(i) +
                           " operand (floating-point given)");
        }
        return o;
      case RawOp::Name: {
        if (pred) fail(*r.tok, "'" + std::string(d.full) + "' expects a predicate as " + nth(i) + " operand");
        return symbol_operand(r);
      }
      case RawOp::Vector:
        fail(*r.tok, "'" + std::string(d.full) + "' does not take a vector as " + nth(i) + " operand");
      case RawOp::Addr:
        fail(*r.tok, "'" + std::string(d.full) + "' does not take an address as " + nth(i) + " operand");
      case RawOp::List:
        break;
    }
    fail(*r.tok, "unexpected parameter list");
  }

  const Decl& var_decl(const RawOp& r, sv name) {
    const Binding* b = lookup(name);
    if (b && b->kind == Binding::Var) return *b->decl;
    if (b) fail(*r.tok, "'" + std::string(name) + "' is a register, not a symbol");
    if (func_names_.count(std::string(name)))
      fail(*r.tok, "unsupported syntax: function addresses (function pointers to '" + std::string(name) + "') are not supported");
    fail(*r.tok, "unknown symbol '" + std::string(name) + "'");
  }

  /// Address of a variable as a value: .global -> Symbol (patched by the
  /// loader); other spaces -> the resolved offset in that space.
  Operand symbol_operand(const RawOp& r) {
    Operand o;
    if (!lookup(r.name)) {
      if (auto f = func_names_.find(std::string(r.name)); f != func_names_.end()) {
        // A function's address (function pointer): a constant.
        const FuncDef& fn = funcs_[f->second];
        if (fn.module_index < 0)
          fail(*r.tok, "address of function '" + fn.name + "' which is declared but not defined in this module");
        o.kind = OperandKind::Imm;
        o.imm = function_address(uint32_t(fn.module_index)) + uint64_t(r.offset);
        return o;
      }
    }
    const Decl& v = var_decl(r, r.name);
    if (v.space == StateSpace::Global) {
      o.kind = OperandKind::Symbol;
      o.symbol = v.global_index;
      o.imm = uint64_t(r.offset);
    } else {
      o.kind = OperandKind::Imm;
      o.imm = v.offset + uint64_t(r.offset);
    }
    return o;
  }

  /// The space the variable's data is actually in (non-kernel params live in local memory).
  static StateSpace home_space(const Decl& v) {
    if (v.space == StateSpace::Param && !v.kernel_param) return StateSpace::Local;
    return v.space;
  }

  /// Memory operand; adjusts the instruction space for .param and generic symbol accesses.
  Operand address_operand(Dec& d, size_t i) {
    const RawOp& r = d.ops[i];
    if (r.kind != RawOp::Addr)
      fail(*r.tok, "'" + std::string(d.full) + "' expects an address '[...]' as " + nth(i) + " operand");
    Operand o;
    o.kind = OperandKind::Address;
    o.imm = uint64_t(r.offset);
    Instruction& in = d.in;
    if (r.name.empty()) return o;
    const Binding* b = lookup(r.name);
    if (b && b->kind == Binding::Reg) {
      o.reg = b->slot;
      if (in.space == StateSpace::Param && !cur_->is_entry) in.space = StateSpace::Local;
      return o;
    }
    if (b && b->kind == Binding::Pred) fail(*r.tok, "a predicate cannot be used as an address");
    if (!b && r.name[0] == '%') fail(*r.tok, "unknown register '" + std::string(r.name) + "'");
    const Decl& v = var_decl(r, r.name);
    const StateSpace home = home_space(v);
    if (in.space == StateSpace::Generic) {
      if (home != StateSpace::Global) in.space = home;
    } else if (in.space == StateSpace::Param && v.space == StateSpace::Param) {
      in.space = home;
    } else if (in.space != v.space) {
      fail(*r.tok, "symbol '" + std::string(r.name) + "' is in " + space_name(v.space) + ", but '" +
                       std::string(d.full) + "' accesses " + space_name(in.space));
    }
    if (v.space == StateSpace::Global) {
      o.symbol = v.global_index;
    } else {
      o.imm = v.offset + uint64_t(r.offset);
    }
    return o;
  }

  /// allow_imm: integer elements are allowed (mov pack); they go to the
  /// operand's imm, already shifted into place, with vregs[k] = kNoReg.
  Operand vector_operand(const Dec& d, size_t i, unsigned want, bool allow_sink, bool allow_imm = false) {
    const RawOp& r = d.ops[i];
    if (r.kind != RawOp::Vector)
      fail(*r.tok, "'" + std::string(d.full) + "' expects a vector '{...}' as " + nth(i) + " operand");
    if (r.elems.size() != want)
      fail(*r.tok, "'" + std::string(d.full) + "' expects a vector of " + std::to_string(want) + " registers, got " +
                       std::to_string(r.elems.size()));
    Operand o;
    o.kind = OperandKind::Vector;
    o.count = uint8_t(want);
    for (size_t k = 0; k < r.elems.size(); ++k) {
      sv n = r.elems[k];
      if (!n.empty() && n[0] >= '0' && n[0] <= '9') {
        uint64_t v = 0;
        const bool hex = n.size() > 2 && (n[1] == 'x' || n[1] == 'X');
        sv digits = hex ? n.substr(2) : n;
        if (!digits.empty() && digits.back() == 'U') digits.remove_suffix(1);
        const auto res = std::from_chars(digits.data(), digits.data() + digits.size(), v, hex ? 16 : 10);
        if (!allow_imm || res.ec != std::errc() || res.ptr != digits.data() + digits.size())
          fail(*r.tok, "expected a register in vector operand, found '" + std::string(n) + "'");
        const unsigned eb = 8 * type_bytes(d.in.type) / want;
        const uint64_t emask = eb >= 64 ? ~0ull : ((1ull << eb) - 1);
        if (v > emask) fail(*r.tok, "vector element '" + std::string(n) + "' does not fit " + std::to_string(eb) + " bits");
        o.imm |= v << (k * eb);
        continue;
      }
      if (n == "_") {
        if (!allow_sink) fail(*r.tok, "'_' is only allowed in destination vectors");
        continue;
      }
      const Binding* b = lookup(n);
      if (!b || b->kind == Binding::Var) fail(*r.tok, "unknown register '" + std::string(n) + "'");
      if (b->kind == Binding::Pred) fail(*r.tok, "predicate '" + std::string(n) + "' in a vector operand");
      o.vregs[k] = b->slot;
    }
    return o;
  }

  // -------------------------------------------------- modifiers

  template <class F>
  void mods(Dec& d, F&& accept_mod) {
    for (sv m : d.mods) {
      if (auto t = type_of(m)) {
        d.types.push_back(*t);
        continue;
      }
      if (!accept_mod(m)) unsupported(d);
    }
  }

  /// Exactly one type modifier, from `allowed`.
  DataType one_type(const Dec& d, TypeSet allowed) {
    if (d.types.empty())
      fail(*d.op_tok, "'" + std::string(d.full) + "' needs a type (e.g. ." +
                          std::string(allowed & bit(DataType::S32) ? "s32" : allowed & bit(DataType::B32) ? "b32" : "f32") +
                          ")");
    if (d.types.size() > 1) bad_type(d, d.types[1]);
    if (!(allowed & bit(d.types[0]))) bad_type(d, d.types[0]);
    return d.types[0];
  }

  void two_types(const Dec& d, TypeSet allowed1, TypeSet allowed2) {
    if (d.types.size() != 2)
      fail(*d.op_tok, "'" + std::string(d.full) + "' needs two types (destination and source)");
    if (!(allowed1 & bit(d.types[0]))) bad_type(d, d.types[0]);
    if (!(allowed2 & bit(d.types[1]))) bad_type(d, d.types[1]);
  }

  // -------------------------------------------------- instructions

  void decode_instruction(const Item& it) {
    Dec d;
    size_t p = it.tb;
    const size_t e = it.te;
    Instruction& in = d.in;
    if (tok(p).is('@')) {
      ++p;
      if (p < e && tok(p).is('!')) {
        in.guard_negated = true;
        ++p;
      }
      const Token& g = need(p, e, "a guard predicate after '@'");
      if (g.kind != TokKind::Word || g.text[0] == '.')
        fail(g, "expected a predicate register after '@', found " + describe(g));
      const Binding* b = lookup(g.text);
      if (b && b->decl && b->decl->erroneous) throw StmtAbort{};  // reported at its declaration
      if (!b || b->kind == Binding::Var) fail(g, "unknown register '" + std::string(g.text) + "'");
      if (b->kind != Binding::Pred) fail(g, "guard '" + std::string(g.text) + "' is not a predicate");
      in.guard = b->slot;
      ++p;
    }
    const Token& ot = need(p, e, "an instruction after the guard");
    if (ot.kind != TokKind::Word || ot.text[0] == '.' || ot.text[0] == '%')
      fail(ot, "expected an instruction, found " + describe(ot));
    d.op_tok = &ot;
    d.full = ot.text;
    in.loc = {ot.line, ot.column};
    sv base = d.full;
    size_t dot = base.find('.');
    if (dot != sv::npos) {
      sv rest = base.substr(dot + 1);
      base = base.substr(0, dot);
      while (true) {
        size_t k = rest.find('.');
        d.mods.push_back(rest.substr(0, k));
        if (k == sv::npos) break;
        rest = rest.substr(k + 1);
      }
      for (sv m : d.mods)
        if (m.empty()) fail(ot, "malformed instruction name '" + std::string(d.full) + "'");
    }
    ++p;
    const DecodeHandler decode = find_decoder(base);
    if (!decode) unsupported(d);
    d.operands_begin = p;
    d.operands_end = e;
    if (base != "call") {  // call parses its own operand lists
      d.ops = parse_operands(p, e);
      skip_if_uses_erroneous_declaration(d);
    }
    (this->*decode)(d, base);
    in.unit = unit_of(in);
    mod_.code.push_back(in);
    mod_.text.push_back(statement_text(it));
  }

  bool declared_erroneously(sv name) {
    const Binding* b = lookup(register_part(name));
    return b && b->decl && b->decl->erroneous;
  }

  /// An instruction that names a register whose declaration failed is dropped
  /// without a message of its own: the declaration's error explains it.
  void skip_if_uses_erroneous_declaration(const Dec& d) {
    for (const RawOp& r : d.ops) {
      bool bad = (!r.name.empty() && declared_erroneously(r.name)) || (!r.name2.empty() && declared_erroneously(r.name2));
      for (sv n : r.elems) bad = bad || declared_erroneously(n);
      if (bad) throw StmtAbort{};
    }
  }

  std::string statement_text(const Item& it) const {
    size_t b = toks_[it.tb].offset;
    size_t e = toks_[it.te].offset + 1;
    std::string s;
    s.reserve(e - b);
    bool space = false;
    for (size_t i = b; i < e && i < src_.size(); ++i) {
      char c = src_[i];
      if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
        space = true;
        continue;
      }
      if (space && !s.empty() && c != ',' && c != ')' && c != ';' && s.back() != '(') s += ' ';
      space = false;
      s += c;
    }
    return s;
  }

  static bool is_int(DataType t) { return !type_is_float(t) && t != DataType::Pred && t != DataType::None; }

  /// Modifiers of f16/bf16 arithmetic (add sub mul fma min max neg abs) per
  /// the PTX ISA: only round-to-nearest (.rn, the default); .ftz and .sat
  /// exist for f16 only; .relu only on fma.rn (not with .sat); .NaN only on
  /// min/max. Non-half types must not carry .relu or .NaN.
  void check_half_modifiers(const Dec& d) {
    const Instruction& in = d.in;
    if (!type_is_half(in.type)) {
      if (in.relu || in.nan_out) unsupported(d);
      return;
    }
    const bool bf = in.type == DataType::BF16 || in.type == DataType::BF16x2;
    if (in.rnd != Rounding::None && in.rnd != Rounding::Rn)
      fail(*d.op_tok, "'" + std::string(d.full) + "': " + type_name(in.type) + " arithmetic rounds only to nearest (.rn)");
    if (bf && (in.ftz || in.sat)) unsupported(d);
    if (in.relu && (in.op != Opcode::Fma || in.sat)) unsupported(d);
  }

  /// set.CmpOp.dtype.stype with 16-bit floats (PTX ISA "Half Precision
  /// Comparison Instructions: set"): an f16/bf16 destination takes any scalar
  /// source; .u16/.s16 destinations only f16/bf16 sources; packed sources give
  /// a packed or 32-bit integer destination; .f32 takes no 16-bit float source.
  void check_half_set_types(const Dec& d) {
    const DataType dt = d.in.type, st = d.in.type2;
    bool ok = true;
    if (type_is_packed_half(st)) ok = dt == st || dt == DataType::U32 || dt == DataType::S32;
    else if (type_is_packed_half(dt)) ok = false;
    else if (dt == DataType::U16 || dt == DataType::S16) ok = st == DataType::F16 || st == DataType::BF16;
    else if (dt == DataType::F32) ok = !type_is_half(st);
    if (!ok) bad_type(d, dt);
  }

  // One decode handler per instruction family; decode_table() maps every
  // opcode name to its handler.

  static bool ftz_sat_modifier(Instruction& in, sv m) {
    if (m == "ftz") return in.ftz = true;
    if (m == "sat") return in.sat = true;
    return false;
  }
  static bool float_rounding_modifier(Instruction& in, sv m) {
    if (auto r = frnd_of(m)) {
      in.rnd = *r;
      return true;
    }
    return false;
  }
  /// Three-operand arithmetic and logic: d, a, b.
  void decode_binary(Dec& d, Opcode op, TypeSet allowed) {
    Instruction& in = d.in;
    in.op = op;
    in.type = one_type(d, allowed);
    want_count(d, 3);
    in.dst = dst_operand(d, 0, in.type == DataType::Pred);
    in.src[0] = src_operand(d, 1, in.type);
    in.src[1] = src_operand(d, 2, in.type);
    in.num_src = 2;
  }
  void decode_unary(Dec& d, Opcode op, TypeSet allowed) {
    Instruction& in = d.in;
    in.op = op;
    in.type = one_type(d, allowed);
    want_count(d, 2);
    in.dst = dst_operand(d, 0, in.type == DataType::Pred);
    in.src[0] = src_operand(d, 1, in.type);
    in.num_src = 1;
  }
  /// Rounding modes and .ftz belong to floating-point types only.
  void check_float_only_modifiers(Dec& d) {
    const Instruction& in = d.in;
    if (in.rnd != Rounding::None && !type_is_float(in.type)) unsupported(d);
    if ((in.ftz) && !type_is_float(in.type)) unsupported(d);
  }
  static bool has_carry_out(const Dec& d) {
    return std::find(d.mods.begin(), d.mods.end(), sv("cc")) != d.mods.end();
  }

  // The carry chain: add.cc, addc[.cc], sub.cc, subc[.cc], mad[c].lo/.hi[.cc];
  // only 32- and 64-bit integer types carry a flag (PTX ISA "Extended-Precision
  // Integer Arithmetic Instructions").
  void decode_carry_chain(Dec& d, sv base) {
    Instruction& in = d.in;
    const bool carry_base = base == "addc" || base == "subc" || base == "madc";
    in.carry_in = carry_base;
    const bool is_mad = base == "mad" || base == "madc";
    mods(d, [&](sv m) {
      if (m == "cc") return in.carry_out = true, true;
      if (is_mad && m == "lo") return in.mul = MulMode::Lo, true;
      if (is_mad && m == "hi") return in.mul = MulMode::Hi, true;
      return false;
    });
    if (is_mad && in.mul == MulMode::None)
      fail(*d.op_tok, "'" + std::string(d.full) + "' needs .lo or .hi");
    in.op = is_mad ? Opcode::MadCarry : (base[0] == 'a' ? Opcode::AddCarry : Opcode::SubCarry);
    in.type = one_type(d, bit(DataType::U32) | bit(DataType::S32) | bit(DataType::U64) | bit(DataType::S64));
    const size_t n = is_mad ? 4 : 3;
    want_count(d, n);
    in.dst = dst_operand(d, 0, false);
    for (size_t i = 1; i < n; ++i) in.src[i - 1] = src_operand(d, i, in.type);
    in.num_src = uint8_t(n - 1);
    return;
  }

  void decode_mov(Dec& d, sv /*base*/) {
    Instruction& in = d.in;
    mods(d, [](sv) { return false; });
    in.op = Opcode::Mov;
    in.type = one_type(d, kB | kU | kS | kF | kF16 | kP);
    want_count(d, 2);
    const bool pred = in.type == DataType::Pred;
    if (d.ops[0].kind == RawOp::Vector || d.ops[1].kind == RawOp::Vector) {
      // mov.b64 {lo,hi}, %rd (unpack) / mov.b64 %rd, {lo,hi} (pack)
      if (pred || (in.type != DataType::B64 && in.type != DataType::B32 && in.type != DataType::B16))
        bad_type(d, in.type);
      const unsigned parts = d.ops[0].kind == RawOp::Vector ? unsigned(d.ops[0].elems.size())
                                                            : unsigned(d.ops[1].elems.size());
      if (parts != 2 && parts != 4) fail(*d.op_tok, "'" + std::string(d.full) + "' packs 2 or 4 registers");
      if (d.ops[0].kind == RawOp::Vector) {
        in.dst = vector_operand(d, 0, parts, true);
        in.src[0] = src_operand(d, 1, in.type);
      } else {
        in.dst = dst_operand(d, 0, false);
        in.src[0] = vector_operand(d, 1, parts, false, true);
      }
    } else {
      in.dst = dst_operand(d, 0, pred);
      in.src[0] = src_operand(d, 1, in.type);
    }
    in.num_src = 1;
  }

  void decode_cvt(Dec& d, sv /*base*/) {
    Instruction& in = d.in;
    in.op = Opcode::Cvt;
    mods(d, [&](sv m) {
      if (float_rounding_modifier(in, m)) return true;
      if (auto r = irnd_of(m)) return in.rnd = *r, true;
      if (m == "relu") return in.relu = true;
      return ftz_sat_modifier(in, m);
    });
    const TypeSet num = kB | kU | kS | kF | kF16 | bit(DataType::BF16) | k8;
    two_types(d, num | bit(DataType::F16x2) | bit(DataType::BF16x2), num);
    in.type = d.types[0];
    in.type2 = d.types[1];
    // cvt.frnd2{.relu}.{f16,bf16,f16x2,bf16x2}.f32 (frnd2 = .rn/.rz); the
    // packed forms take two sources: d.hi = cvt(a), d.lo = cvt(b).
    const bool packed = type_is_packed_half(in.type);
    if (packed || in.relu) {
      if (in.type2 != DataType::F32 || !type_is_half(in.type)) bad_type(d, packed ? in.type2 : in.type);
      if ((in.rnd != Rounding::Rn && in.rnd != Rounding::Rz) || in.ftz || in.sat) unsupported(d);
    }
    want_count(d, packed ? 3 : 2);
    in.dst = dst_operand(d, 0, false);
    in.src[0] = src_operand(d, 1, in.type2);
    in.num_src = 1;
    if (packed) {
      in.src[1] = src_operand(d, 2, in.type2);
      in.num_src = 2;
    }
  }

  void decode_cvta(Dec& d, sv /*base*/) {
    Instruction& in = d.in;
    in.op = Opcode::Cvta;
    in.to_generic = true;
    bool have_space = false;
    mods(d, [&](sv m) {
      if (m == "to") return in.to_generic = false, true;
      if (auto s = space_of(m)) return in.space = *s, have_space = true;
      return false;
    });
    if (!have_space) unsupported(d);
    in.type = one_type(d, bit(DataType::U32) | bit(DataType::U64));
    want_count(d, 2);
    in.dst = dst_operand(d, 0, false);
    in.src[0] = src_operand(d, 1, in.type);
    in.num_src = 1;
  }

  void decode_add_sub(Dec& d, sv base) {
    if (has_carry_out(d)) return decode_carry_chain(d, base);
    Instruction& in = d.in;
    mods(d, [&](sv m) { return float_rounding_modifier(in, m) || ftz_sat_modifier(in, m); });
    decode_binary(d, base == "add" ? Opcode::Add : Opcode::Sub, kU | kS | kF | kHalf);
    check_float_only_modifiers(d);
    check_half_modifiers(d);
    if (in.sat && in.type != DataType::S32 && !type_is_float(in.type)) unsupported(d);
  }

  void decode_mul_mad(Dec& d, sv base) {
    if (has_carry_out(d)) return decode_carry_chain(d, base);
    Instruction& in = d.in;
    mods(d, [&](sv m) {
      if (m == "lo") return in.mul = MulMode::Lo, true;
      if (m == "hi") return in.mul = MulMode::Hi, true;
      if (m == "wide") return in.mul = MulMode::Wide, true;
      return float_rounding_modifier(in, m) || ftz_sat_modifier(in, m);
    });
    const bool is_mad = base == "mad";
    in.op = is_mad ? Opcode::Mad : Opcode::Mul;
    in.type = one_type(d, kU | kS | kF | (is_mad ? kF16 : kHalf));
    if (is_int(in.type)) {
      if (in.mul == MulMode::None)
        fail(*d.op_tok, "'" + std::string(d.full) + "' needs .lo, .hi or .wide for an integer type");
      if (in.mul == MulMode::Wide && type_bytes(in.type) == 8) bad_type(d, in.type);
      if (in.sat && !(is_mad && in.mul == MulMode::Hi && in.type == DataType::S32)) unsupported(d);
    } else if (in.mul != MulMode::None) {
      unsupported(d);
    }
    check_float_only_modifiers(d);
    if (!is_mad) check_half_modifiers(d);
    want_count(d, is_mad ? 4 : 3);
    in.dst = dst_operand(d, 0, false);
    in.src[0] = src_operand(d, 1, in.type);
    in.src[1] = src_operand(d, 2, in.type);
    in.num_src = 2;
    if (is_mad) {
      in.src[2] = src_operand(d, 3, in.type);
      in.num_src = 3;
    }
  }

  void decode_mul24_mad24(Dec& d, sv base) {
    Instruction& in = d.in;
    mods(d, [&](sv m) {
      if (m == "lo") return in.mul = MulMode::Lo, true;
      if (m == "hi") return in.mul = MulMode::Hi, true;
      return false;
    });
    if (in.mul == MulMode::None) unsupported(d);
    const bool is_mad = base == "mad24";
    in.op = is_mad ? Opcode::Mad24 : Opcode::Mul24;
    in.type = one_type(d, bit(DataType::U32) | bit(DataType::S32));
    want_count(d, is_mad ? 4 : 3);
    in.dst = dst_operand(d, 0, false);
    for (size_t i = 1; i < d.ops.size(); ++i) in.src[i - 1] = src_operand(d, i, in.type);
    in.num_src = uint8_t(d.ops.size() - 1);
  }

  void decode_div(Dec& d, sv /*base*/) {
    Instruction& in = d.in;
    mods(d, [&](sv m) {
      if (m == "approx") return in.approx = true;
      if (m == "full") return in.approx = true;
      if (m == "ftz") return in.ftz = true;
      return float_rounding_modifier(in, m);
    });
    decode_binary(d, Opcode::Div, kU | kS | kF);
    if (in.type == DataType::F32 && !in.approx && in.rnd == Rounding::None)
      fail(*d.op_tok, "'" + std::string(d.full) + "' needs .approx, .full or a rounding mode");
    if (in.type == DataType::F64 && in.approx) unsupported(d);
    check_float_only_modifiers(d);
    if (in.approx && !type_is_float(in.type)) unsupported(d);
  }

  void decode_rem(Dec& d, sv /*base*/) {
    mods(d, [](sv) { return false; });
    decode_binary(d, Opcode::Rem, kU | kS);
  }

  void decode_abs_neg(Dec& d, sv base) {
    Instruction& in = d.in;
    mods(d, [&](sv m) { return m == "ftz" && (in.ftz = true); });
    decode_unary(d, base == "abs" ? Opcode::Abs : Opcode::Neg, kS | kF | kHalf);
    check_float_only_modifiers(d);
    if (in.ftz && (in.type == DataType::BF16 || in.type == DataType::BF16x2)) unsupported(d);
  }

  void decode_min_max(Dec& d, sv base) {
    Instruction& in = d.in;
    mods(d, [&](sv m) {
      if (m == "NaN") return in.nan_out = true;
      return m == "ftz" && (in.ftz = true);
    });
    decode_binary(d, base == "min" ? Opcode::Min : Opcode::Max, kU | kS | kF | kHalf);
    check_float_only_modifiers(d);
    check_half_modifiers(d);
  }

  void decode_fma(Dec& d, sv /*base*/) {
    Instruction& in = d.in;
    mods(d, [&](sv m) {
      if (m == "relu") return in.relu = true;
      return float_rounding_modifier(in, m) || ftz_sat_modifier(in, m);
    });
    in.op = Opcode::Fma;
    in.type = one_type(d, kF | kHalf);
    if (in.rnd == Rounding::None) fail(*d.op_tok, "'" + std::string(d.full) + "' needs a rounding mode");
    check_half_modifiers(d);
    want_count(d, 4);
    in.dst = dst_operand(d, 0, false);
    for (size_t i = 1; i < 4; ++i) in.src[i - 1] = src_operand(d, i, in.type);
    in.num_src = 3;
  }

  void decode_rcp_sqrt_rsqrt(Dec& d, sv base) {
    Instruction& in = d.in;
    mods(d, [&](sv m) {
      if (m == "approx") return in.approx = true;
      return float_rounding_modifier(in, m) || (m == "ftz" && (in.ftz = true));
    });
    decode_unary(d, base == "rcp" ? Opcode::Rcp : base == "sqrt" ? Opcode::Sqrt : Opcode::Rsqrt, kF);
    if (base == "rsqrt" ? !in.approx : (in.approx == (in.rnd != Rounding::None)))
      fail(*d.op_tok, "'" + std::string(d.full) + "' needs " + (base == "rsqrt" ? ".approx" : ".approx or a rounding mode"));
  }

  void decode_ex2_lg2_sin_cos_tanh(Dec& d, sv base) {
    Instruction& in = d.in;
    mods(d, [&](sv m) {
      if (m == "approx") return in.approx = true;
      return m == "ftz" && (in.ftz = true);
    });
    Opcode op = base == "ex2" ? Opcode::Ex2 : base == "lg2" ? Opcode::Lg2 : base == "sin" ? Opcode::Sin
              : base == "cos" ? Opcode::Cos : Opcode::Tanh;
    // f16/bf16 forms exist for ex2 (bf16 only with .ftz, f16 without) and tanh.
    decode_unary(d, op, bit(DataType::F32) | (op == Opcode::Ex2 || op == Opcode::Tanh ? kHalf : 0));
    if (!in.approx) fail(*d.op_tok, "'" + std::string(d.full) + "' needs .approx");
    if (type_is_half(in.type)) {
      const bool bf = in.type == DataType::BF16 || in.type == DataType::BF16x2;
      if (op == Opcode::Ex2 ? in.ftz != bf : in.ftz) unsupported(d);
    }
  }

  void decode_copysign(Dec& d, sv /*base*/) {
    mods(d, [](sv) { return false; });
    decode_binary(d, Opcode::Copysign, kF);
  }

  void decode_testp(Dec& d, sv /*base*/) {
    Instruction& in = d.in;
    bool have = false;
    mods(d, [&](sv m) {
      static const std::pair<sv, TestpMode> table[] = {
          {"finite", TestpMode::Finite}, {"infinite", TestpMode::Infinite}, {"number", TestpMode::Number},
          {"notanumber", TestpMode::NotANumber}, {"normal", TestpMode::Normal}, {"subnormal", TestpMode::Subnormal}};
      for (auto& [n, t] : table)
        if (n == m) return in.testp = t, have = true;
      return false;
    });
    if (!have) unsupported(d);
    in.op = Opcode::Testp;
    in.type = one_type(d, kF);
    want_count(d, 2);
    in.dst = dst_operand(d, 0, true);
    in.src[0] = src_operand(d, 1, in.type);
    in.num_src = 1;
  }

  void decode_and_or_xor(Dec& d, sv base) {
    mods(d, [](sv) { return false; });
    decode_binary(d, base == "and" ? Opcode::And : base == "or" ? Opcode::Or : Opcode::Xor, kB | kP);
  }

  void decode_not_cnot(Dec& d, sv base) {
    mods(d, [](sv) { return false; });
    decode_unary(d, base == "not" ? Opcode::Not : Opcode::Cnot, base == "not" ? (kB | kP) : kB);
  }

  void decode_shl_shr(Dec& d, sv base) {
    Instruction& in = d.in;
    mods(d, [](sv) { return false; });
    in.op = base == "shl" ? Opcode::Shl : Opcode::Shr;
    in.type = one_type(d, base == "shl" ? kB : (kB | kU | kS));
    want_count(d, 3);
    in.dst = dst_operand(d, 0, false);
    in.src[0] = src_operand(d, 1, in.type);
    in.src[1] = src_operand(d, 2, DataType::U32);
    in.num_src = 2;
  }

  void decode_popc_clz_brev(Dec& d, sv base) {
    mods(d, [](sv) { return false; });
    decode_unary(d, base == "popc" ? Opcode::Popc : base == "clz" ? Opcode::Clz : Opcode::Brev,
          bit(DataType::B32) | bit(DataType::B64));
  }

  void decode_bfe(Dec& d, sv /*base*/) {
    Instruction& in = d.in;
    mods(d, [](sv) { return false; });
    in.op = Opcode::Bfe;
    in.type = one_type(d, bit(DataType::U32) | bit(DataType::S32) | bit(DataType::U64) | bit(DataType::S64));
    want_count(d, 4);
    in.dst = dst_operand(d, 0, false);
    in.src[0] = src_operand(d, 1, in.type);
    in.src[1] = src_operand(d, 2, DataType::U32);
    in.src[2] = src_operand(d, 3, DataType::U32);
    in.num_src = 3;
  }

  void decode_bfi(Dec& d, sv /*base*/) {
    Instruction& in = d.in;
    mods(d, [](sv) { return false; });
    in.op = Opcode::Bfi;
    in.type = one_type(d, bit(DataType::B32) | bit(DataType::B64));
    want_count(d, 5);
    in.dst = dst_operand(d, 0, false);
    in.src[0] = src_operand(d, 1, in.type);
    in.src[1] = src_operand(d, 2, in.type);
    in.src[2] = src_operand(d, 3, DataType::U32);
    in.src[3] = src_operand(d, 4, DataType::U32);
    in.num_src = 4;
  }

  void decode_bfind(Dec& d, sv /*base*/) {
    Instruction& in = d.in;
    mods(d, [&](sv m) { return m == "shiftamt" && (in.shiftamt = true); });
    in.op = Opcode::Bfind;
    in.type = one_type(d, bit(DataType::U32) | bit(DataType::S32) | bit(DataType::U64) | bit(DataType::S64));
    want_count(d, 2);
    in.dst = dst_operand(d, 0, false);
    in.src[0] = src_operand(d, 1, in.type);
    in.num_src = 1;
  }

  void decode_prmt(Dec& d, sv /*base*/) {
    Instruction& in = d.in;
    mods(d, [&](sv m) {
      static const std::pair<sv, PrmtMode> table[] = {{"f4e", PrmtMode::F4e}, {"b4e", PrmtMode::B4e},
                                                      {"rc8", PrmtMode::Rc8}, {"ecl", PrmtMode::Ecl},
                                                      {"ecr", PrmtMode::Ecr}, {"rc16", PrmtMode::Rc16}};
      for (auto& [n, t] : table)
        if (n == m) return in.prmt = t, true;
      return false;
    });
    in.op = Opcode::Prmt;
    in.type = one_type(d, bit(DataType::B32));
    want_count(d, 4);
    in.dst = dst_operand(d, 0, false);
    for (size_t i = 1; i < 4; ++i) in.src[i - 1] = src_operand(d, i, in.type);
    in.num_src = 3;
  }

  void decode_shf(Dec& d, sv /*base*/) {
    Instruction& in = d.in;
    int dir = -1, mode = -1;
    mods(d, [&](sv m) {
      if (m == "l" || m == "r") return dir = m == "l" ? 0 : 1, true;
      if (m == "wrap" || m == "clamp") return mode = m == "wrap" ? 0 : 1, true;
      return false;
    });
    if (dir < 0 || mode < 0) unsupported(d);
    in.shf = dir == 0 ? (mode == 0 ? ShfMode::LeftWrap : ShfMode::LeftClamp)
                      : (mode == 0 ? ShfMode::RightWrap : ShfMode::RightClamp);
    in.op = Opcode::Shf;
    in.type = one_type(d, bit(DataType::B32));
    want_count(d, 4);
    in.dst = dst_operand(d, 0, false);
    in.src[0] = src_operand(d, 1, in.type);
    in.src[1] = src_operand(d, 2, in.type);
    in.src[2] = src_operand(d, 3, DataType::U32);
    in.num_src = 3;
  }

  void decode_setp_set(Dec& d, sv base) {
    Instruction& in = d.in;
    bool have_cmp = false;
    sv cmp_text;
    mods(d, [&](sv m) {
      if (auto c = cmp_of(m); c && !have_cmp) return in.cmp = *c, cmp_text = m, have_cmp = true;
      if (m == "and") return in.boolop = BoolOp::And, true;
      if (m == "or") return in.boolop = BoolOp::Or, true;
      if (m == "xor") return in.boolop = BoolOp::Xor, true;
      return m == "ftz" && (in.ftz = true);
    });
    if (!have_cmp) unsupported(d);
    const TypeSet cmp_types = kB | kU | kS | kF | kHalf;
    DataType ct;
    if (base == "setp") {
      in.op = Opcode::Setp;
      in.type = ct = one_type(d, cmp_types);
    } else {
      in.op = Opcode::Set;
      two_types(d, bit(DataType::U32) | bit(DataType::S32) | bit(DataType::F32) | bit(DataType::U16) |
                       bit(DataType::S16) | kHalf, cmp_types);
      in.type = d.types[0];
      in.type2 = ct = d.types[1];
      check_half_set_types(d);
    }
    if (in.ftz && (ct == DataType::BF16 || ct == DataType::BF16x2)) unsupported(d);
    if (in.ftz && !type_is_float(ct)) unsupported(d);
    if (type_is_float(ct) ? (in.cmp >= CmpOp::Lo && in.cmp <= CmpOp::Hs) : (in.cmp >= CmpOp::Equ))
      fail(*d.op_tok, "comparison ." + std::string(cmp_text) + " is not valid for type " + type_name(ct));
    want_count(d, in.boolop == BoolOp::None ? 3 : 4);
    if (in.op == Opcode::Setp) {
      const RawOp& r = d.ops[0];
      in.dst = dst_operand(d, 0, true, true);
      // setp.f16x2 / .bf16x2 writes p (low half) | q (high half); both are required.
      if (type_is_packed_half(ct) && r.name2.empty())
        fail(*r.tok, "'" + std::string(d.full) + "' writes two predicates 'p|q'");
      if (!r.name2.empty()) {
        const Binding& b = reg_binding(r, r.name2);
        if (b.kind != Binding::Pred) fail(*r.tok, "'" + std::string(r.name2) + "' is not a predicate");
        in.dst2.kind = OperandKind::Pred;
        in.dst2.reg = b.slot;
      }
    } else {
      in.dst = dst_operand(d, 0, false);
    }
    in.src[0] = src_operand(d, 1, ct);
    in.src[1] = src_operand(d, 2, ct);
    in.num_src = 2;
    if (in.boolop != BoolOp::None) {
      in.src[2] = src_operand(d, 3, DataType::Pred);
      in.num_src = 3;
    }
  }

  void decode_selp(Dec& d, sv /*base*/) {
    Instruction& in = d.in;
    mods(d, [](sv) { return false; });
    in.op = Opcode::Selp;
    in.type = one_type(d, kB | kU | kS | kF | kF16);
    want_count(d, 4);
    in.dst = dst_operand(d, 0, false);
    in.src[0] = src_operand(d, 1, in.type);
    in.src[1] = src_operand(d, 2, in.type);
    in.src[2] = src_operand(d, 3, DataType::Pred);
    in.num_src = 3;
  }

  void decode_slct(Dec& d, sv /*base*/) {
    Instruction& in = d.in;
    mods(d, [&](sv m) { return m == "ftz" && (in.ftz = true); });
    in.op = Opcode::Slct;
    two_types(d, kB | kU | kS | kF, bit(DataType::S32) | bit(DataType::F32));
    in.type = d.types[0];
    in.type2 = d.types[1];
    want_count(d, 4);
    in.dst = dst_operand(d, 0, false);
    in.src[0] = src_operand(d, 1, in.type);
    in.src[1] = src_operand(d, 2, in.type);
    in.src[2] = src_operand(d, 3, in.type2);
    in.num_src = 3;
  }

  void decode_ld_st_op(Dec& d, sv base) {
    decode_ld_st(d, base == "ld");
  }

  void decode_atom_red(Dec& d, sv base) {
    decode_atom(d, base == "red");
  }

  void decode_prefetch(Dec& d, sv /*base*/) {
    Instruction& in = d.in;
    bool level = false;
    mods(d, [&](sv m) {
      if (auto s = space_of(m); s && (*s == StateSpace::Global || *s == StateSpace::Local))
        return in.space = *s, true;
      return (m == "L1" || m == "L2" || m == "L2::evict_last" || m == "L2::evict_normal") && (level = true);
    });
    if (!level) unsupported(d);
    if (!d.types.empty()) bad_type(d, d.types[0]);
    in.op = Opcode::Prefetch;
    want_count(d, 1);
    in.src[0] = address_operand(d, 0);
    in.num_src = 1;
  }

  void decode_membar_fence(Dec& d, sv base) {
    Instruction& in = d.in;
    bool scope = false;
    mods(d, [&](sv m) {
      if (base == "membar") return (m == "cta" || m == "gl" || m == "sys") && (scope = true);
      if (m == "sc" || m == "acq_rel") return true;
      return (m == "cta" || m == "gpu" || m == "sys") && (scope = true);
    });
    if (!scope || !d.types.empty()) unsupported(d);
    in.op = Opcode::Membar;
    want_count(d, 0);
  }

  void decode_shfl(Dec& d, sv /*base*/) {
    Instruction& in = d.in;
    bool have = false, sync = false;
    mods(d, [&](sv m) {
      if (m == "sync") return sync = true;
      if (m == "up") return in.shfl = ShflMode::Up, have = true;
      if (m == "down") return in.shfl = ShflMode::Down, have = true;
      if (m == "bfly") return in.shfl = ShflMode::Bfly, have = true;
      if (m == "idx") return in.shfl = ShflMode::Idx, have = true;
      return false;
    });
    if (!have) unsupported(d);
    in.op = Opcode::Shfl;
    in.type = one_type(d, bit(DataType::B32));
    want_count(d, sync ? 5 : 4);
    in.dst = dst_operand(d, 0, false, true);
    if (!d.ops[0].name2.empty()) {
      const Binding& b = reg_binding(d.ops[0], d.ops[0].name2);
      if (b.kind != Binding::Pred) fail(*d.ops[0].tok, "'" + std::string(d.ops[0].name2) + "' is not a predicate");
      in.dst2.kind = OperandKind::Pred;
      in.dst2.reg = b.slot;
    }
    in.src[0] = src_operand(d, 1, in.type);
    in.src[1] = src_operand(d, 2, DataType::U32);
    in.src[2] = src_operand(d, 3, DataType::U32);
    in.num_src = 3;
    if (sync) {
      in.src[3] = src_operand(d, 4, DataType::B32);
      in.num_src = 4;
    }
  }

  void decode_vote(Dec& d, sv /*base*/) {
    Instruction& in = d.in;
    bool have = false, sync = false;
    mods(d, [&](sv m) {
      if (m == "sync") return sync = true;
      if (m == "all") return in.vote = VoteMode::All, have = true;
      if (m == "any") return in.vote = VoteMode::Any, have = true;
      if (m == "uni") return in.vote = VoteMode::Uni, have = true;
      if (m == "ballot") return in.vote = VoteMode::Ballot, have = true;
      return false;
    });
    if (!have) unsupported(d);
    in.op = Opcode::Vote;
    in.type = one_type(d, in.vote == VoteMode::Ballot ? bit(DataType::B32) : kP);
    want_count(d, sync ? 3 : 2);
    in.dst = dst_operand(d, 0, in.vote != VoteMode::Ballot);
    in.src[0] = src_operand(d, 1, DataType::Pred);
    in.num_src = 1;
    if (sync) {
      in.src[1] = src_operand(d, 2, DataType::B32);
      in.num_src = 2;
    }
  }

  void decode_activemask(Dec& d, sv /*base*/) {
    Instruction& in = d.in;
    mods(d, [](sv) { return false; });
    in.op = Opcode::Activemask;
    in.type = one_type(d, bit(DataType::B32));
    want_count(d, 1);
    in.dst = dst_operand(d, 0, false);
  }

  void decode_match(Dec& d, sv /*base*/) {
    Instruction& in = d.in;
    bool have = false, sync = false;
    mods(d, [&](sv m) {
      if (m == "sync") return sync = true;
      if (m == "any") return in.vote = VoteMode::Any, have = true;
      if (m == "all") return in.vote = VoteMode::All, have = true;
      return false;
    });
    if (!have || !sync) unsupported(d);
    in.op = Opcode::Match;
    in.type = one_type(d, bit(DataType::B32) | bit(DataType::B64));
    want_count(d, 3);
    in.dst = dst_operand(d, 0, false, true);
    if (!d.ops[0].name2.empty()) {
      if (in.vote != VoteMode::All) fail(*d.ops[0].tok, "only match.all has a predicate destination");
      const Binding& b = reg_binding(d.ops[0], d.ops[0].name2);
      if (b.kind != Binding::Pred) fail(*d.ops[0].tok, "'" + std::string(d.ops[0].name2) + "' is not a predicate");
      in.dst2.kind = OperandKind::Pred;
      in.dst2.reg = b.slot;
    }
    in.src[0] = src_operand(d, 1, in.type);
    in.src[1] = src_operand(d, 2, DataType::B32);
    in.num_src = 2;
  }

  void decode_bra(Dec& d, sv /*base*/) {
    Instruction& in = d.in;
    mods(d, [&](sv m) { return m == "uni" && (in.uni = true); });
    if (!d.types.empty()) bad_type(d, d.types[0]);
    in.op = Opcode::Bra;
    want_count(d, 1);
    const RawOp& r = d.ops[0];
    if (r.kind != RawOp::Name || r.offset != 0) fail(*r.tok, "'" + std::string(d.full) + "' expects a label");
    in.src[0].kind = OperandKind::Label;
    in.num_src = 1;
    fixups_.push_back(Fixup{uint32_t(mod_.code.size()), r.name, r.tok});
  }

  void decode_dp4a_dp2a(Dec& d, sv base) {
    Instruction& in = d.in;
    // dp4a.atype.btype d, a, b, c / dp2a.{lo,hi}.atype.btype d, a, b, c:
    // type = atype, type2 = btype; dp2a's half of b in `mul`.
    mods(d, [&](sv m) {
      if (base == "dp2a" && m == "lo") return in.mul = MulMode::Lo, true;
      if (base == "dp2a" && m == "hi") return in.mul = MulMode::Hi, true;
      return false;
    });
    if (base == "dp2a" && in.mul == MulMode::None)
      fail(*d.op_tok, "'" + std::string(d.full) + "' needs .lo or .hi");
    const TypeSet t32 = bit(DataType::U32) | bit(DataType::S32);
    two_types(d, t32, t32);
    in.op = base == "dp4a" ? Opcode::Dp4a : Opcode::Dp2a;
    in.type = d.types[0];
    in.type2 = d.types[1];
    want_count(d, 4);
    in.dst = dst_operand(d, 0, false);
    in.src[0] = src_operand(d, 1, in.type);
    in.src[1] = src_operand(d, 2, in.type2);
    const bool is_signed = type_is_signed(in.type) || type_is_signed(in.type2);
    in.src[2] = src_operand(d, 3, is_signed ? DataType::S32 : DataType::U32);
    in.num_src = 3;
  }

  void decode_sad(Dec& d, sv /*base*/) {
    Instruction& in = d.in;
    mods(d, [](sv) { return false; });
    in.op = Opcode::Sad;
    in.type = one_type(d, kU | kS);
    want_count(d, 4);
    in.dst = dst_operand(d, 0, false);
    for (size_t i = 1; i < 4; ++i) in.src[i - 1] = src_operand(d, i, in.type);
    in.num_src = 3;
  }

  void decode_fns(Dec& d, sv /*base*/) {
    Instruction& in = d.in;
    // fns.b32 d, mask, base, offset: base is .b32/.u32/.s32, offset .s32.
    mods(d, [](sv) { return false; });
    in.op = Opcode::Fns;
    in.type = one_type(d, bit(DataType::B32));
    want_count(d, 4);
    in.dst = dst_operand(d, 0, false);
    in.src[0] = src_operand(d, 1, DataType::B32);
    in.src[1] = src_operand(d, 2, DataType::U32);
    in.src[2] = src_operand(d, 3, DataType::S32);
    in.num_src = 3;
  }

  void decode_brkpt_pmevent(Dec& d, sv base) {
    Instruction& in = d.in;
    // brkpt suspends the thread for an attached debugger and pmevent
    // signals a performance-monitor event; with no debugger and no event
    // counters to raise, both complete as a CTRL-unit Nop.
    mods(d, [&](sv m) { return base == "pmevent" && m == "mask"; });
    if (!d.types.empty()) bad_type(d, d.types[0]);
    in.op = Opcode::Nop;
    want_count(d, base == "brkpt" ? 0 : 1);
    if (base == "pmevent" && d.ops[0].kind != RawOp::Lit)
      fail(*d.op_tok, "'" + std::string(d.full) + "' expects an immediate event number");
  }

  /// lop3.b32 d, a, b, c, immLut: bit i of d is bit ((a_i << 2) | (b_i << 1) | c_i)
  /// of the 8-bit table (inline assembly; nvcc leaves three-input logic to ptxas).
  void decode_lop3(Dec& d, sv /*base*/) {
    Instruction& in = d.in;
    mods(d, [](sv) { return false; });
    in.op = Opcode::Lop3;
    in.type = one_type(d, bit(DataType::B32));
    want_count(d, 5);
    in.dst = dst_operand(d, 0, false);
    for (size_t i = 1; i < 4; ++i) in.src[i - 1] = src_operand(d, i, in.type);
    in.src[3] = src_operand(d, 4, DataType::B32);
    if (in.src[3].kind != OperandKind::Imm || in.src[3].imm > 0xff)
      fail(*d.ops[4].tok, "'" + std::string(d.full) + "' takes its lookup table as an immediate 0..255");
    in.num_src = 4;
  }

  void decode_nanosleep(Dec& d, sv /*base*/) {
    Instruction& in = d.in;
    // nanosleep.u32 t: the ISA lets the thread sleep up to t ns, with no
    // guaranteed duration, so sleeping not at all is a valid implementation;
    // it decodes as a Nop that reads t (the timing model sees one CTRL-unit
    // instruction with that register dependence).
    mods(d, [](sv) { return false; });
    in.op = Opcode::Nop;
    in.type = one_type(d, bit(DataType::U32));
    want_count(d, 1);
    in.src[0] = src_operand(d, 0, in.type);
    in.num_src = 1;
  }

  void decode_tex_tld4_op(Dec& d, sv base) {
    decode_tex(d, base == "tld4");
  }

  void decode_suld_sust_op(Dec& d, sv base) {
    decode_surface(d, base == "suld");
  }

  void decode_ret_exit_trap_nop(Dec& d, sv base) {
    Instruction& in = d.in;
    mods(d, [&](sv m) { return base == "ret" && m == "uni" && (in.uni = true); });
    if (!d.types.empty()) bad_type(d, d.types[0]);
    in.op = base == "ret" ? Opcode::Ret : base == "exit" ? Opcode::Exit : base == "trap" ? Opcode::Trap : Opcode::Nop;
    want_count(d, 0);
  }

  void decode_video_op(Dec& d, sv base) {
    const auto v = video_op_of(base);
    decode_video(d, v->first, v->second);
  }

  void decode_call_op(Dec& d, sv /*base*/) { decode_call(d, d.operands_begin, d.operands_end); }

  using DecodeHandler = void (Parser::*)(Dec&, sv);

  /// Opcode name (the part before the first '.') -> decode handler. known_opcode
  /// and decode_instruction both use it, so they cannot disagree.
  static const std::unordered_map<sv, DecodeHandler>& decode_table() {
    static const std::unordered_map<sv, DecodeHandler> table = [] {
      std::unordered_map<sv, DecodeHandler> t = {
          {"mov", &Parser::decode_mov},
          {"cvt", &Parser::decode_cvt},
          {"cvta", &Parser::decode_cvta},
          {"add", &Parser::decode_add_sub},
          {"sub", &Parser::decode_add_sub},
          {"mul", &Parser::decode_mul_mad},
          {"mad", &Parser::decode_mul_mad},
          {"mul24", &Parser::decode_mul24_mad24},
          {"mad24", &Parser::decode_mul24_mad24},
          {"div", &Parser::decode_div},
          {"rem", &Parser::decode_rem},
          {"abs", &Parser::decode_abs_neg},
          {"neg", &Parser::decode_abs_neg},
          {"min", &Parser::decode_min_max},
          {"max", &Parser::decode_min_max},
          {"fma", &Parser::decode_fma},
          {"rcp", &Parser::decode_rcp_sqrt_rsqrt},
          {"sqrt", &Parser::decode_rcp_sqrt_rsqrt},
          {"rsqrt", &Parser::decode_rcp_sqrt_rsqrt},
          {"ex2", &Parser::decode_ex2_lg2_sin_cos_tanh},
          {"lg2", &Parser::decode_ex2_lg2_sin_cos_tanh},
          {"sin", &Parser::decode_ex2_lg2_sin_cos_tanh},
          {"cos", &Parser::decode_ex2_lg2_sin_cos_tanh},
          {"tanh", &Parser::decode_ex2_lg2_sin_cos_tanh},
          {"copysign", &Parser::decode_copysign},
          {"testp", &Parser::decode_testp},
          {"and", &Parser::decode_and_or_xor},
          {"or", &Parser::decode_and_or_xor},
          {"xor", &Parser::decode_and_or_xor},
          {"not", &Parser::decode_not_cnot},
          {"cnot", &Parser::decode_not_cnot},
          {"shl", &Parser::decode_shl_shr},
          {"shr", &Parser::decode_shl_shr},
          {"popc", &Parser::decode_popc_clz_brev},
          {"clz", &Parser::decode_popc_clz_brev},
          {"brev", &Parser::decode_popc_clz_brev},
          {"bfe", &Parser::decode_bfe},
          {"bfi", &Parser::decode_bfi},
          {"bfind", &Parser::decode_bfind},
          {"prmt", &Parser::decode_prmt},
          {"shf", &Parser::decode_shf},
          {"bmsk", &Parser::decode_bmsk_szext},
          {"szext", &Parser::decode_bmsk_szext},
          {"setp", &Parser::decode_setp_set},
          {"set", &Parser::decode_setp_set},
          {"selp", &Parser::decode_selp},
          {"slct", &Parser::decode_slct},
          {"ld", &Parser::decode_ld_st_op},
          {"st", &Parser::decode_ld_st_op},
          {"atom", &Parser::decode_atom_red},
          {"red", &Parser::decode_atom_red},
          {"prefetch", &Parser::decode_prefetch},
          {"membar", &Parser::decode_membar_fence},
          {"fence", &Parser::decode_membar_fence},
          {"bar", &Parser::decode_bar},
          {"barrier", &Parser::decode_bar},
          {"shfl", &Parser::decode_shfl},
          {"vote", &Parser::decode_vote},
          {"activemask", &Parser::decode_activemask},
          {"match", &Parser::decode_match},
          {"bra", &Parser::decode_bra},
          {"dp4a", &Parser::decode_dp4a_dp2a},
          {"dp2a", &Parser::decode_dp4a_dp2a},
          {"sad", &Parser::decode_sad},
          {"fns", &Parser::decode_fns},
          {"brkpt", &Parser::decode_brkpt_pmevent},
          {"pmevent", &Parser::decode_brkpt_pmevent},
          {"wmma", &Parser::decode_wmma},
          {"nanosleep", &Parser::decode_nanosleep},
          {"lop3", &Parser::decode_lop3},
          {"tex", &Parser::decode_tex_tld4_op},
          {"tld4", &Parser::decode_tex_tld4_op},
          {"suld", &Parser::decode_suld_sust_op},
          {"sust", &Parser::decode_suld_sust_op},
          {"ret", &Parser::decode_ret_exit_trap_nop},
          {"exit", &Parser::decode_ret_exit_trap_nop},
          {"trap", &Parser::decode_ret_exit_trap_nop},
          {"nop", &Parser::decode_ret_exit_trap_nop},
          {"addc", &Parser::decode_carry_chain},
          {"subc", &Parser::decode_carry_chain},
          {"madc", &Parser::decode_carry_chain},
          {"call", &Parser::decode_call_op},
      };
      for (sv n : {"vadd", "vsub", "vabsdiff", "vmin", "vmax", "vshl", "vshr", "vmad", "vset", "vadd2", "vsub2",
                   "vavrg2", "vabsdiff2", "vmin2", "vmax2", "vset2", "vadd4", "vsub4", "vavrg4", "vabsdiff4",
                   "vmin4", "vmax4", "vset4"})
        t.emplace(n, &Parser::decode_video_op);
      return t;
    }();
    return table;
  }

  static DecodeHandler find_decoder(sv base) {
    const auto& t = decode_table();
    const auto it = t.find(base);
    return it == t.end() ? nullptr : it->second;
  }
  static bool known_opcode(sv base) { return find_decoder(base) != nullptr; }

  /// wmma.load.{a,b,c}, wmma.store.d and wmma.mma with the shapes and types
  /// sm_70/sm_75 define for f16 and 8-bit integers (m16n16k16, m32n8k16,
  /// m8n32k16); sub-byte, bf16, tf32 and f64 forms are named as unsupported.
  void decode_wmma(Dec& d, sv /*base*/) {
    Instruction& in = d.in;
    WarpMatrixShape& w = in.wmma;
    enum class Kind { None, Load, Store, Mma } kind = Kind::None;
    int layouts = 0;
    bool shape_seen = false;
    mods(d, [&](sv m) {
      if (m == "sync" || m == "aligned") return true;
      if (kind == Kind::None && (m == "load" || m == "store" || m == "mma")) {
        kind = m == "load" ? Kind::Load : m == "store" ? Kind::Store : Kind::Mma;
        return true;
      }
      if (m.size() == 1 && (m == "a" || m == "b" || m == "c" || m == "d")) {
        w.fragment = m == "a" ? MatrixFragment::A : m == "b" ? MatrixFragment::B
                   : m == "c" ? MatrixFragment::C : MatrixFragment::D;
        return true;
      }
      if (m == "row" || m == "col") {
        const bool row = m == "row";
        if (layouts == 0) w.row_major = w.a_row_major = row;
        else w.b_row_major = row;
        ++layouts;
        return true;
      }
      if (m == "m16n16k16" || m == "m32n8k16" || m == "m8n32k16") {
        w.m = m == "m16n16k16" ? 16 : m == "m32n8k16" ? 32 : 8;
        w.n = m == "m16n16k16" ? 16 : m == "m32n8k16" ? 8 : 32;
        w.k = 16;
        return shape_seen = true;
      }
      if (m == "satfinite") return w.satfinite = true;
      if (auto sp = space_of(m); sp && (*sp == StateSpace::Global || *sp == StateSpace::Shared))
        return in.space = *sp, true;
      return false;
    });
    const std::string what = "'" + std::string(d.full) + "'";
    // Shapes for sub-byte types (m8n8k32, m8n8k128), bf16/tf32/f64: not modelled.
    if (!shape_seen) unsupported(d);
    const TypeSet elem = kF16 | bit(DataType::F32) | bit(DataType::S32) | bit(DataType::S8) | bit(DataType::U8);
    auto vector_of = [&](size_t i, MatrixFragment f, DataType t, bool is_dst) {
      return vector_operand(d, i, wmma_fragment_registers(w, f, t), is_dst);
    };
    auto stride = [&](size_t i) {
      if (d.ops.size() > i) in.src[1] = src_operand(d, i, DataType::U32);
    };
    switch (kind) {
      case Kind::Load:
      case Kind::Store: {
        const bool load = kind == Kind::Load;
        if (layouts != 1) fail(*d.op_tok, what + " needs one layout (.row or .col)");
        if (load ? w.fragment == MatrixFragment::D : w.fragment != MatrixFragment::D)
          fail(*d.op_tok, what + (load ? " loads fragment a, b or c" : " stores fragment d"));
        in.op = load ? Opcode::WmmaLoad : Opcode::WmmaStore;
        in.type = one_type(d, elem);
        const bool integer8 = in.type == DataType::S8 || in.type == DataType::U8;
        const bool accumulator = w.fragment == MatrixFragment::C || w.fragment == MatrixFragment::D;
        if (accumulator ? integer8 : !(integer8 || in.type == DataType::F16)) bad_type(d, in.type);
        want_count(d, 2, 3);
        if (load) {
          in.dst = vector_of(0, w.fragment, in.type, false);
          in.src[0] = address_operand(d, 1);
        } else {
          in.dst = address_operand(d, 0);
          in.src[0] = vector_of(1, w.fragment, in.type, false);
        }
        stride(2);
        in.num_src = 2;
        return;
      }
      case Kind::Mma: {
        if (layouts != 2) fail(*d.op_tok, what + " needs the A and B layouts (e.g. .row.col)");
        in.op = Opcode::WmmaMma;
        // f16/f32: .dtype.ctype; 8-bit integers: .s32.atype.btype.s32.
        if (d.types.size() == 2) {
          in.type = d.types[0];
          in.type2 = d.types[1];
          w.a_type = DataType::F16;
          for (DataType t : d.types)
            if (t != DataType::F16 && t != DataType::F32) bad_type(d, t);
        } else if (d.types.size() == 4) {
          in.type = d.types[0];
          w.a_type = d.types[1];
          in.type2 = d.types[3];
          if (in.type != DataType::S32 || in.type2 != DataType::S32) bad_type(d, in.type);
          if (d.types[1] != d.types[2] || (w.a_type != DataType::S8 && w.a_type != DataType::U8))
            bad_type(d, d.types[2]);
        } else {
          fail(*d.op_tok, "unsupported: " + what + " (wmma.mma types: .dtype.ctype for f16/f32, .s32.s8.s8.s32 or .s32.u8.u8.s32)");
        }
        want_count(d, 4);
        in.dst = vector_of(0, MatrixFragment::D, in.type, false);
        in.src[0] = vector_of(1, MatrixFragment::A, w.a_type, false);
        in.src[1] = vector_of(2, MatrixFragment::B, w.a_type, false);
        in.src[2] = vector_of(3, MatrixFragment::C, in.type2, false);
        in.num_src = 3;
        return;
      }
      case Kind::None: break;
    }
    fail(*d.op_tok, "unsupported: " + what + " (wmma.load, wmma.store or wmma.mma)");
  }

  // -------------------------------------------------- bmsk, szext, video

  /// bmsk.{clamp,wrap}.b32 d, a, b;  szext.{clamp,wrap}.{u32,s32} d, a, b;
  void decode_bmsk_szext(Dec& d, sv base) {
    Instruction& in = d.in;
    bool have_mode = false;
    mods(d, [&](sv m) {
      if (m == "clamp" || m == "wrap") return in.clamp = m == "clamp", have_mode = true;
      return false;
    });
    if (!have_mode) fail(*d.op_tok, "'" + std::string(d.full) + "' needs .clamp or .wrap");
    const bool is_bmsk = base == "bmsk";
    in.op = is_bmsk ? Opcode::Bmsk : Opcode::Szext;
    in.type = one_type(d, is_bmsk ? bit(DataType::B32) : (bit(DataType::U32) | bit(DataType::S32)));
    want_count(d, 3);
    in.dst = dst_operand(d, 0, false);
    in.src[0] = src_operand(d, 1, in.type);
    in.src[1] = src_operand(d, 2, DataType::U32);
    in.num_src = 2;
  }

  /// Video opcode name -> operation and lanes (1 scalar, 2 or 4 SIMD).
  static std::optional<std::pair<VideoOp, uint8_t>> video_op_of(sv base) {
    static const std::pair<sv, VideoOp> names[] = {
        {"vadd", VideoOp::Add}, {"vsub", VideoOp::Sub}, {"vabsdiff", VideoOp::Absdiff}, {"vmin", VideoOp::Min},
        {"vmax", VideoOp::Max}, {"vavrg", VideoOp::Avrg}, {"vshl", VideoOp::Shl},       {"vshr", VideoOp::Shr},
        {"vmad", VideoOp::Mad}, {"vset", VideoOp::Set}};
    uint8_t lanes = 1;
    if (!base.empty() && (base.back() == '2' || base.back() == '4')) {
      lanes = uint8_t(base.back() - '0');
      base.remove_suffix(1);
    }
    for (auto& [n, op] : names) {
      if (n != base) continue;
      const bool simd_op = op != VideoOp::Shl && op != VideoOp::Shr && op != VideoOp::Mad;
      if (lanes == 1 ? op == VideoOp::Avrg : !simd_op) return std::nullopt;
      return std::make_pair(op, lanes);
    }
    return std::nullopt;
  }

  /// Splits 'reg.sel' into the register and its selector text (empty if none).
  sv split_selector(RawOp& r) {
    if ((r.kind != RawOp::Reg && r.kind != RawOp::Name) || r.offset != 0) return {};
    const size_t dot = r.name.find('.');
    if (dot == sv::npos) return {};
    sv sel = r.name.substr(dot + 1);
    r.name = r.name.substr(0, dot);
    if (r.kind == RawOp::Name) {
      const Binding* b = lookup(r.name);
      if (b && b->kind != Binding::Var) r.kind = RawOp::Reg;
    }
    return sel;
  }

  /// Scalar selector .b0-.b3, .h0, .h1.
  uint8_t scalar_selector(const Dec& d, const RawOp& r, sv sel) {
    if (sel.size() == 2 && sel[0] == 'b' && sel[1] >= '0' && sel[1] <= '3') return uint8_t(sel[1] - '0');
    if (sel.size() == 2 && sel[0] == 'h' && (sel[1] == '0' || sel[1] == '1'))
      return uint8_t(kVideoSelH0 + (sel[1] - '0'));
    fail(*r.tok, "'" + std::string(d.full) + "': bad selector '." + std::string(sel) +
                     "' (expected .b0, .b1, .b2, .b3, .h0 or .h1)");
  }

  /// SIMD source selector .hxy (2 lanes, digits 0-3) or .bxyzw (4 lanes, digits
  /// 0-7); the first digit is the top element's.
  uint16_t simd_selector(const Dec& d, const RawOp& r, sv sel, unsigned lanes) {
    const char kind = lanes == 2 ? 'h' : 'b';
    const char top = lanes == 2 ? '3' : '7';
    bool ok = sel.size() == lanes + 1 && sel[0] == kind;
    uint16_t code = 0;
    for (unsigned i = 0; ok && i < lanes; ++i) {
      const char c = sel[1 + i];
      ok = c >= '0' && c <= top;
      code = uint16_t(code | ((c - '0') << (4 * (lanes - 1 - i))));
    }
    if (!ok)
      fail(*r.tok, "'" + std::string(d.full) + "': bad selector '." + std::string(sel) + "' (expected ." + kind +
                       " and " + std::to_string(lanes) + " digits 0-" + top + ")");
    return code;
  }

  /// SIMD destination mask: .h0/.h1/.h10 or .b with strictly descending digits 0-3.
  uint8_t simd_mask(const Dec& d, const RawOp& r, sv sel, unsigned lanes) {
    const char kind = lanes == 2 ? 'h' : 'b';
    bool ok = sel.size() >= 2 && sel.size() <= lanes + 1 && sel[0] == kind;
    uint8_t mask = 0;
    char prev = '9';
    for (size_t i = 1; ok && i < sel.size(); ++i) {
      const char c = sel[i];
      ok = c >= '0' && c < char('0' + lanes) && c < prev;
      prev = c;
      mask = uint8_t(mask | (1u << (c - '0')));
    }
    if (!ok)
      fail(*r.tok, "'" + std::string(d.full) + "': bad mask '." + std::string(sel) + "' (expected ." + kind +
                       " and descending element digits, e.g. ." + (lanes == 2 ? "h10" : "b3210") + ")");
    return mask;
  }

  /// Scalar video (vadd vsub vabsdiff vmin vmax vshl vshr vmad vset) and SIMD
  /// video (vadd2/4 vsub2/4 vavrg2/4 vabsdiff2/4 vmin2/4 vmax2/4 vset2/4).
  void decode_video(Dec& d, VideoOp op, uint8_t lanes) {
    Instruction& in = d.in;
    VideoForm& v = in.video;
    v.op = op;
    v.lanes = lanes;
    bool have_cmp = false, have_mode = false, accumulate = false;
    VideoSecondary op2 = VideoSecondary::None;
    mods(d, [&](sv m) {
      if (m == "sat" && op != VideoOp::Set) return in.sat = true;
      if (op == VideoOp::Set && !have_cmp) {
        if (auto c = cmp_of(m); c && *c <= CmpOp::Ge) return in.cmp = *c, have_cmp = true;
      }
      if ((op == VideoOp::Shl || op == VideoOp::Shr) && (m == "clamp" || m == "wrap"))
        return v.shift_clamp = m == "clamp", have_mode = true;
      if (op == VideoOp::Mad) {
        if (m == "po") return v.plus_one = true;
        if (m == "shr7" || m == "shr15") return v.scale = uint8_t(m == "shr7" ? 7 : 15), true;
        return false;
      }
      if (lanes > 1) return m == "add" && (accumulate = true);
      if (m == "add") return op2 = VideoSecondary::Add, true;
      if (m == "min") return op2 = VideoSecondary::Min, true;
      if (m == "max") return op2 = VideoSecondary::Max, true;
      return false;
    });
    if (op == VideoOp::Set && !have_cmp)
      fail(*d.op_tok, "'" + std::string(d.full) + "' needs a comparison (.eq, .ne, .lt, .le, .gt or .ge)");
    if ((op == VideoOp::Shl || op == VideoOp::Shr) && !have_mode)
      fail(*d.op_tok, "'" + std::string(d.full) + "' needs .clamp or .wrap");
    // Types: dtype.atype.btype (vset: atype.btype); vshl/vshr take b as .u32.
    const size_t ntypes = op == VideoOp::Set ? 2 : 3;
    if (d.types.size() != ntypes)
      fail(*d.op_tok, "'" + std::string(d.full) + "' needs " + std::to_string(ntypes) + " types (" +
                          (op == VideoOp::Set ? ".atype.btype" : ".dtype.atype.btype") + ", each .u32 or .s32)");
    for (DataType t : d.types)
      if (t != DataType::U32 && t != DataType::S32) bad_type(d, t);
    if ((op == VideoOp::Shl || op == VideoOp::Shr) && d.types[2] != DataType::U32) bad_type(d, d.types[2]);
    size_t k = 0;
    if (op != VideoOp::Set) v.d_signed = d.types[k++] == DataType::S32;
    v.a_signed = d.types[k++] == DataType::S32;
    v.b_signed = d.types[k] == DataType::S32;
    in.type = DataType::U32;

    // Operands with their selectors; c is Imm 0 when absent.
    const size_t n = d.ops.size();
    std::array<sv, 4> sel{};
    for (size_t i = 0; i < n && i < 4; ++i) sel[i] = split_selector(d.ops[i]);
    if (lanes > 1) {
      want_count(d, 4);
      if (in.sat && accumulate)
        fail(*d.op_tok, "'" + std::string(d.full) + "': .sat cannot be combined with the .add accumulate");
      v.simd_accumulate = accumulate;
      v.dsel = sel[0].empty() ? uint8_t((1u << lanes) - 1) : simd_mask(d, d.ops[0], sel[0], lanes);
      v.asel = sel[1].empty() ? uint16_t(lanes == 2 ? 0x10 : 0x3210) : simd_selector(d, d.ops[1], sel[1], lanes);
      v.bsel = sel[2].empty() ? uint16_t(lanes == 2 ? 0x32 : 0x7654) : simd_selector(d, d.ops[2], sel[2], lanes);
      if (!sel[3].empty()) fail(*d.ops[3].tok, "'" + std::string(d.full) + "': c takes no selector");
    } else if (op == VideoOp::Mad) {
      want_count(d, 4);
      if (!sel[0].empty()) fail(*d.ops[0].tok, "'" + std::string(d.full) + "' has no destination selector");
      if (!sel[3].empty()) fail(*d.ops[3].tok, "'" + std::string(d.full) + "': c takes no selector");
      if (v.plus_one && (d.ops[1].minus || d.ops[2].minus || d.ops[3].minus))
        fail(*d.op_tok, "'" + std::string(d.full) + "': operands cannot be negated in .po mode");
      v.neg_product = d.ops[1].minus != d.ops[2].minus;
      v.neg_c = d.ops[3].minus;
      if (v.neg_product && v.neg_c)
        fail(*d.op_tok, "'" + std::string(d.full) + "': negate either the product (a*b) or c, not both");
    } else {
      want_count(d, 3, 4);
      if (!sel[0].empty()) {
        v.dsel = scalar_selector(d, d.ops[0], sel[0]);
        if (n != 4) fail(*d.ops[0].tok, "'" + std::string(d.full) + "' with a destination selector needs c");
        if (op2 != VideoSecondary::None)
          fail(*d.op_tok, "'" + std::string(d.full) + "': a destination selector excludes .add/.min/.max");
        op2 = VideoSecondary::Merge;
      } else if ((n == 4) != (op2 != VideoSecondary::None)) {
        fail(*d.op_tok, "'" + std::string(d.full) + "' takes c with .add, .min, .max or a destination selector, "
                        "and only then");
      }
      if (n == 4 && !sel[3].empty()) fail(*d.ops[3].tok, "'" + std::string(d.full) + "': c takes no selector");
      v.op2 = op2;
    }
    if (lanes == 1) {
      if (!sel[1].empty()) v.asel = scalar_selector(d, d.ops[1], sel[1]);
      if (!sel[2].empty()) v.bsel = scalar_selector(d, d.ops[2], sel[2]);
    }
    for (size_t i = 1; i < n; ++i) d.ops[i].minus = false;  // taken into the form
    in.dst = dst_operand(d, 0, false);
    for (size_t i = 1; i < n; ++i) in.src[i - 1] = src_operand(d, i, DataType::U32);
    if (n == 3) {
      in.src[2].kind = OperandKind::Imm;
      in.src[2].imm = 0;
    }
    in.num_src = 3;
    in.op = Opcode::Video;
  }

  void decode_ld_st(Dec& d, bool is_ld) {
    Instruction& in = d.in;
    in.op = is_ld ? Opcode::Ld : Opcode::St;
    bool nc = false;
    mods(d, [&](sv m) {
      if (auto s = space_of(m)) return in.space = *s, true;
      if (m == "v2" || m == "v4") return in.vec = uint8_t(m == "v2" ? 2 : 4), true;
      if (m == "volatile") return in.volatile_ = true;
      if (m == "nc" && is_ld) return nc = true;
      return is_sem_or_scope(m) || is_cache_hint(m);
    });
    if (nc && in.space != StateSpace::Global) unsupported(d);
    in.noncoherent = nc;
    in.type = one_type(d, kB | kU | kS | kF | kF16 | k8);
    want_count(d, 2);
    if (is_ld) {
      in.dst = in.vec > 1 ? vector_operand(d, 0, in.vec, true) : dst_operand(d, 0, false);
      in.src[0] = address_operand(d, 1);
      in.num_src = 1;
    } else {
      in.dst = address_operand(d, 0);
      in.src[0] = in.vec > 1 ? vector_operand(d, 1, in.vec, false) : src_operand(d, 1, in.type);
      in.num_src = 1;
    }
  }

  // -------------------------------------------------- textures and surfaces

  /// Coordinate count of a geometry (PTX ISA: 3d, a2d and cube take a .v4 vector).
  static unsigned tex_coord_count(TexGeom g) {
    switch (g) {
      case TexGeom::D1: return 1;
      case TexGeom::D2: case TexGeom::A1D: return 2;
      default: return 4;
    }
  }

  bool tex_geom_mod(sv m, TexGeom& g, bool& have) {
    static const std::pair<sv, TexGeom> table[] = {{"1d", TexGeom::D1},   {"2d", TexGeom::D2},
                                                   {"3d", TexGeom::D3},   {"a1d", TexGeom::A1D},
                                                   {"a2d", TexGeom::A2D}, {"cube", TexGeom::Cube}};
    for (auto& [n, v] : table)
      if (n == m && !have) return g = v, have = true;
    return false;
  }

  /// The handle register of '[handle, {coords}]': a .u64 texture/surface object.
  Operand tex_handle_operand(const Dec& d, size_t i) {
    const RawOp& r = d.ops[i];
    if (r.kind != RawOp::Addr || r.coords_tok == nullptr || r.name.empty() || r.offset != 0)
      fail(*r.tok, "'" + std::string(d.full) + "' expects '[handle, {coordinates}]' as " + nth(i) + " operand");
    const Binding* b = lookup(r.name);
    if (b && b->kind == Binding::Reg) {
      Operand o;
      o.kind = OperandKind::Reg;
      o.reg = b->slot;
      return o;
    }
    if (b && b->kind == Binding::Pred) fail(*r.tok, "a predicate cannot be a texture or surface handle");
    if (!b && r.name[0] == '%') fail(*r.tok, "unknown register '" + std::string(r.name) + "'");
    fail(*r.tok, "unsupported: texture references (named texture/surface '" + std::string(r.name) +
                     "'); use texture objects");
  }

  Operand tex_coord_operand(const Dec& d, size_t i, unsigned want) {
    const RawOp& r = d.ops[i];
    if (r.coords.size() != want)
      fail(*r.coords_tok, "'" + std::string(d.full) + "' expects " + std::to_string(want) +
                              (want == 1 ? " coordinate" : " coordinates") + ", got " + std::to_string(r.coords.size()));
    Operand o;
    o.kind = OperandKind::Vector;
    o.count = uint8_t(want);
    for (size_t k = 0; k < r.coords.size(); ++k) {
      const Binding* b = lookup(r.coords[k]);
      if (!b || b->kind == Binding::Var) fail(*r.coords_tok, "unknown register '" + std::string(r.coords[k]) + "'");
      if (b->kind == Binding::Pred)
        fail(*r.coords_tok, "predicate '" + std::string(r.coords[k]) + "' in a coordinate vector");
      o.vregs[k] = b->slot;
    }
    return o;
  }

  /// tex[.level|.grad].geom.v4.dtype.ctype d, [a, c] {, lod | , ddx, ddy};
  /// tld4.comp.2d.v4.dtype.f32 d, [a, c];
  void decode_tex(Dec& d, bool tld4) {
    Instruction& in = d.in;
    in.op = tld4 ? Opcode::Tld4 : Opcode::Tex;
    in.space = StateSpace::Global;  // timing: the fetch reads device memory
    bool geom = false, v4 = false, comp = false;
    mods(d, [&](sv m) {
      if (tex_geom_mod(m, in.tex_geom, geom)) return true;
      if (m == "v4") return v4 = true;
      if (!tld4 && (m == "level" || m == "grad") && in.tex_lod == TexLod::Base)
        return in.tex_lod = m == "level" ? TexLod::Level : TexLod::Grad, true;
      if (tld4 && !comp && m.size() == 1 && sv("rgba").find(m[0]) != sv::npos)
        return in.tld4_comp = uint8_t(sv("rgba").find(m[0])), comp = true;
      return false;
    });
    if (!geom || !v4 || (tld4 && (!comp || in.tex_geom != TexGeom::D2))) unsupported(d);
    in.vec = 4;
    two_types(d, bit(DataType::F32) | bit(DataType::S32) | bit(DataType::U32),
              tld4 ? bit(DataType::F32) : bit(DataType::F32) | bit(DataType::S32));
    in.type = d.types[0];
    in.type2 = d.types[1];
    const size_t extra = in.tex_lod == TexLod::Level ? 1 : in.tex_lod == TexLod::Grad ? 2 : 0;
    want_count(d, 2 + extra);
    in.dst = vector_operand(d, 0, 4, true);
    in.src[0] = tex_handle_operand(d, 1);
    in.src[1] = tex_coord_operand(d, 1, tex_coord_count(in.tex_geom));
    in.num_src = 2;
    if (in.tex_lod == TexLod::Level) {
      in.src[2] = src_operand(d, 2, DataType::F32);
      in.num_src = 3;
    } else if (in.tex_lod == TexLod::Grad) {
      // One gradient per coordinate dimension, as a .v2 or .v4 vector.
      const unsigned n = in.tex_geom == TexGeom::D1 || in.tex_geom == TexGeom::A1D ? 1
                         : in.tex_geom == TexGeom::D2 || in.tex_geom == TexGeom::A2D ? 2 : 4;
      in.src[2] = vector_operand(d, 2, n, false);
      in.src[3] = vector_operand(d, 3, n, false);
      in.num_src = 4;
    }
  }

  /// suld.b.geom{.v2,.v4}.btype.clamp d, [a, c];  sust.b.geom{.v2,.v4}.btype.clamp [a, c], b;
  void decode_surface(Dec& d, bool is_ld) {
    Instruction& in = d.in;
    in.op = is_ld ? Opcode::Suld : Opcode::Sust;
    in.space = StateSpace::Global;
    bool geom = false, raw = false, clamp = false;
    mods(d, [&](sv m) {
      if (m == "b" && !raw) return raw = true;
      if (tex_geom_mod(m, in.tex_geom, geom)) return true;
      if (m == "v2" || m == "v4") return in.vec = uint8_t(m == "v2" ? 2 : 4), true;
      if (!clamp && (m == "trap" || m == "clamp" || m == "zero"))
        return in.surf_clamp = m == "trap" ? SurfClamp::Trap : m == "clamp" ? SurfClamp::Clamp : SurfClamp::Zero,
               clamp = true;
      return is_cache_hint(m);
    });
    // Formatted (.p) access and layered surfaces are not what CUDA's surf*Dread/write emit.
    if (!raw || !geom || in.tex_geom == TexGeom::A1D || in.tex_geom == TexGeom::A2D || in.tex_geom == TexGeom::Cube)
      unsupported(d);
    in.type = one_type(d, bit(DataType::B8) | bit(DataType::B16) | bit(DataType::B32) | bit(DataType::B64));
    if (in.vec == 4 && in.type == DataType::B64) bad_type(d, in.type);
    want_count(d, 2);
    const size_t ai = is_ld ? 1 : 0, vi = is_ld ? 0 : 1;
    in.src[0] = tex_handle_operand(d, ai);
    in.src[1] = tex_coord_operand(d, ai, tex_coord_count(in.tex_geom));
    // nvcc writes the scalar form's value as a one-element vector too: {%r1}.
    const bool vector = in.vec > 1 || d.ops[vi].kind == RawOp::Vector;
    if (is_ld) {
      in.dst = vector ? vector_operand(d, vi, in.vec, true) : dst_operand(d, vi, false);
      in.num_src = 2;
    } else {
      in.src[2] = vector ? vector_operand(d, vi, in.vec, false) : src_operand(d, vi, in.type);
      in.num_src = 3;
    }
  }

  void decode_atom(Dec& d, bool is_red) {
    Instruction& in = d.in;
    in.op = is_red ? Opcode::Red : Opcode::Atom;
    bool noftz = false;
    mods(d, [&](sv m) {
      if (auto s = space_of(m); s && (*s == StateSpace::Global || *s == StateSpace::Shared))
        return in.space = *s, true;
      static const std::pair<sv, AtomOp> table[] = {
          {"add", AtomOp::Add}, {"min", AtomOp::Min}, {"max", AtomOp::Max}, {"inc", AtomOp::Inc},
          {"dec", AtomOp::Dec}, {"and", AtomOp::And}, {"or", AtomOp::Or},   {"xor", AtomOp::Xor},
          {"exch", AtomOp::Exch}, {"cas", AtomOp::Cas}};
      for (auto& [n, op] : table)
        if (n == m && in.atom == AtomOp::None) return in.atom = op, true;
      if (m == "noftz") return noftz = true;
      return is_sem_or_scope(m);
    });
    if (in.atom == AtomOp::None) unsupported(d);
    // Half-precision add exists only as add.noftz (atomicAdd on __half,
    // __half2, __nv_bfloat16[2]); .noftz belongs to nothing else.
    if (noftz != (!d.types.empty() && type_is_half(d.types[0])) || (noftz && in.atom != AtomOp::Add)) unsupported(d);
    if (is_red && (in.atom == AtomOp::Cas || in.atom == AtomOp::Exch)) unsupported(d);
    TypeSet allowed;
    switch (in.atom) {
      case AtomOp::Add: allowed = bit(DataType::U32) | bit(DataType::S32) | bit(DataType::U64) | kF | kHalf; break;
      case AtomOp::Inc: case AtomOp::Dec: allowed = bit(DataType::U32); break;
      case AtomOp::Min: case AtomOp::Max:
        allowed = bit(DataType::U32) | bit(DataType::S32) | bit(DataType::U64) | bit(DataType::S64);
        break;
      case AtomOp::And: case AtomOp::Or: case AtomOp::Xor:
        allowed = bit(DataType::B32) | bit(DataType::B64);
        break;
      default: allowed = bit(DataType::B32) | bit(DataType::B64); break;  // exch, cas
    }
    in.type = one_type(d, allowed);
    if (is_red) {
      want_count(d, 2);
      in.src[0] = address_operand(d, 0);
      in.src[1] = src_operand(d, 1, in.type);
      in.num_src = 2;
      return;
    }
    want_count(d, in.atom == AtomOp::Cas ? 4 : 3);
    in.dst = dst_operand(d, 0, false);
    in.src[0] = address_operand(d, 1);
    in.src[1] = src_operand(d, 2, in.type);
    in.num_src = 2;
    if (in.atom == AtomOp::Cas) {
      in.src[2] = src_operand(d, 3, in.type);
      in.num_src = 3;
    }
  }

  void decode_bar(Dec& d, sv /*base*/) {
    Instruction& in = d.in;
    in.op = Opcode::Bar;
    bool have = false, red = false, warp = false;
    mods(d, [&](sv m) {
      if (m == "cta" || m == "aligned") return true;
      if (m == "warp") return warp = true;
      if (m == "sync" && !red) return in.bar = warp ? BarMode::Warp : BarMode::Sync, have = true;
      if (m == "arrive" && !warp) return in.bar = BarMode::Arrive, have = true;
      if (m == "red" && !warp) return red = have = true;
      if (red && m == "popc") return in.bar = BarMode::RedPopc, true;
      if (red && m == "and") return in.bar = BarMode::RedAnd, true;
      if (red && m == "or") return in.bar = BarMode::RedOr, true;
      return false;
    });
    if (!have || (red && in.bar != BarMode::RedPopc && in.bar != BarMode::RedAnd && in.bar != BarMode::RedOr))
      unsupported(d);
    if (in.bar == BarMode::Warp) {
      if (!d.types.empty()) bad_type(d, d.types[0]);
      want_count(d, 1);
      in.src[0] = src_operand(d, 0, DataType::B32);
      in.num_src = 1;
      return;
    }
    if (red) {
      in.type = one_type(d, in.bar == BarMode::RedPopc ? bit(DataType::U32) : kP);
      want_count(d, 3, 4);
      in.dst = dst_operand(d, 0, in.bar != BarMode::RedPopc);
      in.src[0] = src_operand(d, 1, DataType::U32);
      if (d.ops.size() == 4) in.src[1] = src_operand(d, 2, DataType::U32);
      in.src[2] = src_operand(d, d.ops.size() - 1, DataType::Pred);
      in.num_src = 3;
      return;
    }
    if (!d.types.empty()) bad_type(d, d.types[0]);
    want_count(d, in.bar == BarMode::Arrive ? 2 : 1, 2);
    in.src[0] = src_operand(d, 0, DataType::U32);
    if (d.ops.size() == 2) in.src[1] = src_operand(d, 1, DataType::U32);
    in.num_src = uint8_t(d.ops.size());
  }

  /// call[.uni] [(rets),] func[, (args)];
  /// call[.uni] [(rets),] %reg, (args), prototype;   (indirect)
  void decode_call(Dec& d, size_t p, size_t e) {
    Instruction& in = d.in;
    in.op = Opcode::Call;
    mods(d, [&](sv m) { return m == "uni" && (in.uni = true); });
    if (!d.types.empty()) bad_type(d, d.types[0]);
    d.ops = parse_operands(p, e);
    size_t i = 0;
    std::vector<sv> rets, args;
    if (i < d.ops.size() && d.ops[i].kind == RawOp::List) rets = d.ops[i++].elems;
    if (i >= d.ops.size()) fail(*d.op_tok, "'" + std::string(d.full) + "' expects a function name");
    const RawOp& fn = d.ops[i++];
    if (i < d.ops.size() && d.ops[i].kind == RawOp::List) args = d.ops[i++].elems;
    if (fn.kind == RawOp::Reg) return decode_indirect_call(d, fn, rets, args, i);
    if (fn.kind != RawOp::Name || fn.offset != 0)
      fail(*fn.tok, "'" + std::string(d.full) + "' expects a function name, found " + describe(*fn.tok));
    if (i < d.ops.size()) fail(*d.ops[i].tok, "unexpected operand in call (a prototype needs an indirect call)");
    if (is_device_launch_function(fn.name))
      fail(*fn.tok, "unsupported: dynamic parallelism (device-side kernel launch) in kernel '" + cur_->name +
                        "' (call of '" + std::string(fn.name) + "')");

    auto f = func_names_.find(std::string(fn.name));
    if (f == func_names_.end()) fail(*fn.tok, "call to unknown function '" + std::string(fn.name) + "'");
    FuncDef& callee = funcs_[f->second];
    if (callee.is_entry) fail(*fn.tok, "cannot call kernel '" + callee.name + "'");
    if (!callee.has_body && builtin_of(callee.name) != BuiltinFunction::None)
      return decode_builtin_call(d, fn, callee, rets, args);
    if (!callee.has_body)
      fail(*fn.tok, "call to undefined function '" + callee.name + "' (declared but not defined in this module)");
    if (args.size() != callee.params.size())
      fail(*fn.tok, "call of '" + callee.name + "' passes " + std::to_string(args.size()) + " arguments, it takes " +
                        std::to_string(callee.params.size()));
    if (rets.size() != callee.rets.size())
      fail(*fn.tok, "call of '" + callee.name + "' receives " + std::to_string(rets.size()) +
                        " return values, it returns " + std::to_string(callee.rets.size()));
    CallSite cs;
    cs.callee = uint32_t(callee.module_index);
    auto param_of = [&](sv name) -> const Decl& {
      RawOp tmp;
      tmp.tok = fn.tok;
      const Decl& v = var_decl(tmp, name);
      if (home_space(v) != StateSpace::Local || v.space != StateSpace::Param)
        fail(*fn.tok, "call argument '" + std::string(name) + "' is not a .param declared in the caller");
      return v;
    };
    for (size_t k = 0; k < args.size(); ++k) {
      const Decl& a = param_of(args[k]);
      const Decl& c = callee.decls[callee.params[k]];
      if (a.size() < c.size())
        fail(*fn.tok, "argument '" + a.name + "' (" + std::to_string(a.size()) + " bytes) is smaller than parameter '" +
                          c.name + "' (" + std::to_string(c.size()) + " bytes)");
      cs.args.push_back(ParamCopy{uint32_t(a.offset), uint32_t(c.offset), c.size()});
    }
    for (size_t k = 0; k < rets.size(); ++k) {
      const Decl& r = param_of(rets[k]);
      const Decl& c = callee.decls[callee.rets[k]];
      if (r.size() < c.size())
        fail(*fn.tok, "return block '" + r.name + "' is smaller than '" + c.name + "'");
      cs.rets.push_back(ParamCopy{uint32_t(c.offset), uint32_t(r.offset), c.size()});
    }
    in.target = uint32_t(mod_.calls.size());
    mod_.calls.push_back(std::move(cs));
    call_edges_.push_back({cur_->module_index, callee.module_index, {in.loc.line, in.loc.column}});
  }

  /// The CUDA device runtime's kernel-launch entry points (CDP1 and CDP2 names).
  static bool is_device_launch_function(sv name) {
    return name.rfind("__cudaCDP", 0) == 0 || name == "cudaLaunchDevice" || name == "cudaLaunchDeviceV2" ||
           name == "cudaGetParameterBuffer" || name == "cudaGetParameterBufferV2";
  }

  static BuiltinFunction builtin_of(sv name) {
    if (name == "vprintf") return BuiltinFunction::Vprintf;
    if (name == "malloc") return BuiltinFunction::Malloc;
    if (name == "free") return BuiltinFunction::Free;
    if (name == "__assertfail") return BuiltinFunction::AssertFail;
    return BuiltinFunction::None;
  }

  /// The caller's call-sequence .param block `name`.
  const Decl& call_param_block(const RawOp& fn, sv name) {
    RawOp tmp;
    tmp.tok = fn.tok;
    const Decl& v = var_decl(tmp, name);
    if (home_space(v) != StateSpace::Local || v.space != StateSpace::Param)
      fail(*fn.tok, "call argument '" + std::string(name) + "' is not a .param declared in the caller");
    return v;
  }

  /// A call of a device runtime function (vprintf, malloc, free,
  /// __assertfail): the extern declaration must have the CUDA signature.
  void decode_builtin_call(Dec& d, const RawOp& fn, const FuncDef& callee, const std::vector<sv>& rets,
                           const std::vector<sv>& args) {
    const BuiltinFunction b = builtin_of(callee.name);
    std::vector<uint32_t> want_args, want_rets;
    switch (b) {
      case BuiltinFunction::Vprintf: want_args = {8, 8}; want_rets = {4}; break;
      case BuiltinFunction::Malloc: want_args = {8}; want_rets = {8}; break;
      case BuiltinFunction::Free: want_args = {8}; break;
      default: want_args = {8, 8, 4, 8, 8}; break;  // __assertfail(msg, file, line, function, charSize)
    }
    auto sizes_of = [&](const std::vector<uint32_t>& idx) {
      std::vector<uint32_t> out;
      for (uint32_t k : idx) out.push_back(callee.decls[k].size());
      return out;
    };
    if (sizes_of(callee.params) != want_args || sizes_of(callee.rets) != want_rets)
      fail(*fn.tok, "'" + callee.name + "' is declared with a signature other than the CUDA device runtime's");
    // A caller may ignore the return value (no return block).
    if (args.size() != want_args.size() || rets.size() > want_rets.size())
      fail(*fn.tok, "call of '" + callee.name + "' passes " + std::to_string(args.size()) + " arguments and " +
                        std::to_string(rets.size()) + " return blocks; it takes " +
                        std::to_string(want_args.size()) + " and returns " + std::to_string(want_rets.size()));
    CallSite cs;
    cs.builtin = b;
    for (size_t k = 0; k < args.size(); ++k) {
      const Decl& a = call_param_block(fn, args[k]);
      if (a.size() < want_args[k])
        fail(*fn.tok, "argument '" + a.name + "' of '" + callee.name + "' is smaller than its parameter");
      cs.args.push_back(ParamCopy{uint32_t(a.offset), 0, want_args[k]});
    }
    for (size_t k = 0; k < rets.size(); ++k) {
      const Decl& r = call_param_block(fn, rets[k]);
      if (r.size() < want_rets[k]) fail(*fn.tok, "return block '" + r.name + "' is smaller than the return value");
      cs.rets.push_back(ParamCopy{0, uint32_t(r.offset), want_rets[k]});
    }
    d.in.target = uint32_t(mod_.calls.size());
    mod_.calls.push_back(std::move(cs));
  }

  /// call (rets), %rd, (args), prototype: the callee is found from the
  /// register's function address when the call runs.
  void decode_indirect_call(Dec& d, const RawOp& fn, const std::vector<sv>& rets, const std::vector<sv>& args,
                            size_t i) {
    if (i >= d.ops.size() || d.ops[i].kind != RawOp::Name)
      fail(*fn.tok, "an indirect call needs a .callprototype label (or a list of targets) as last operand");
    if (!prototypes_.count(std::string(d.ops[i].name)))
      fail(*d.ops[i].tok, "'" + std::string(d.ops[i].name) +
                              "' is not a .callprototype label (call target lists are not supported)");
    if (i + 1 < d.ops.size()) fail(*d.ops[i + 1].tok, "unexpected operand after the call prototype");
    CallSite cs;
    const Operand target = src_operand(d, rets.empty() ? 0 : 1, DataType::U64);
    if (target.kind != OperandKind::Reg) fail(*fn.tok, "an indirect call's target must be a 64-bit register");
    cs.target_reg = target.reg;
    for (sv a : args) {
      const Decl& b = call_param_block(fn, a);
      cs.args.push_back(ParamCopy{uint32_t(b.offset), 0, b.size()});
    }
    for (sv r : rets) {
      const Decl& b = call_param_block(fn, r);
      cs.rets.push_back(ParamCopy{0, uint32_t(b.offset), b.size()});
    }
    d.in.target = uint32_t(mod_.calls.size());
    mod_.calls.push_back(std::move(cs));
  }

  /// Marks the functions on a call-graph cycle (self-calls included): their
  /// calls save and restore the activation (Function::recursive).
  void mark_recursive() {
    const size_t n = mod_.functions.size();
    std::vector<std::vector<uint32_t>> out(n);
    for (auto& c : call_edges_) out[size_t(c.from)].push_back(uint32_t(c.to));
    // f is recursive when f reaches itself.
    for (size_t f = 0; f < n; ++f) {
      std::vector<uint8_t> seen(n, 0);
      std::vector<uint32_t> work(out[f].begin(), out[f].end());
      while (!work.empty() && !mod_.functions[f].recursive) {
        const uint32_t g = work.back();
        work.pop_back();
        if (g == f) mod_.functions[f].recursive = true;
        if (seen[g]) continue;
        seen[g] = 1;
        work.insert(work.end(), out[g].begin(), out[g].end());
      }
    }
  }

  static UnitClass unit_of(const Instruction& in) {
    const bool f64 = in.type == DataType::F64 || in.type2 == DataType::F64;
    switch (in.op) {
      case Opcode::Ld: case Opcode::St: case Opcode::Atom: case Opcode::Red: case Opcode::Prefetch:
      case Opcode::Membar: case Opcode::WmmaLoad: case Opcode::WmmaStore:
      case Opcode::Tex: case Opcode::Tld4: case Opcode::Suld: case Opcode::Sust:
        return UnitClass::MEM;
      case Opcode::Bra: case Opcode::Call: case Opcode::Ret: case Opcode::Exit: case Opcode::Trap: case Opcode::Nop:
        return UnitClass::CTRL;
      case Opcode::Bar:
        return UnitClass::BAR;
      case Opcode::Rcp: case Opcode::Sqrt: case Opcode::Rsqrt: case Opcode::Ex2: case Opcode::Lg2: case Opcode::Sin:
      case Opcode::Cos: case Opcode::Tanh:
        return f64 ? UnitClass::DP : UnitClass::SFU;
      case Opcode::Div:
        if (f64) return UnitClass::DP;
        return in.type == DataType::F32 && in.approx ? UnitClass::SFU : UnitClass::SP;
      case Opcode::Mov: case Opcode::Selp: case Opcode::Slct: case Opcode::Cvta: case Opcode::Shfl: case Opcode::Vote:
      case Opcode::Match: case Opcode::Activemask: case Opcode::And: case Opcode::Or: case Opcode::Xor:
      case Opcode::Not: case Opcode::Cnot: case Opcode::Shl: case Opcode::Shr: case Opcode::Popc: case Opcode::Clz:
      case Opcode::Brev: case Opcode::Bfe: case Opcode::Bfi: case Opcode::Bfind: case Opcode::Prmt: case Opcode::Shf:
        return UnitClass::SP;
      default:
        return f64 ? UnitClass::DP : UnitClass::SP;
    }
  }

  struct Fixup {
    uint32_t pc;
    sv name;
    const Token* tok;
  };
  struct CallEdge {
    int32_t from, to;
    SourceLoc loc;
  };

  sv src_;
  std::vector<Token> toks_;
  std::vector<uint32_t> line_starts_;
  size_t pos_ = 0;
  std::vector<PtxDiagnostic> diags_;
  Module mod_;
  bool saw_version_ = false;
  std::unordered_set<uint32_t> lex_error_lines_;

  std::vector<Decl> module_decls_;  // grows only in step 1; later steps keep pointers into it
  std::unordered_map<std::string, size_t> module_names_;
  std::vector<FuncDef> funcs_;
  std::unordered_map<std::string, size_t> func_names_;
  std::unordered_set<std::string> prototypes_;  // .callprototype labels (indirect calls)
  std::unordered_map<const Decl*, size_t> shared_index_;

  FuncDef* cur_ = nullptr;
  std::vector<Scope> scopes_;
  std::unordered_map<sv, uint32_t> labels_;
  std::vector<Fixup> fixups_;
  std::vector<CallEdge> call_edges_;
  Binding scratch_;
  uint32_t next_reg_ = 0, next_pred_ = 0;
  uint32_t kernel_reg_base_ = 0, kernel_pred_base_ = 0;
};

}  // namespace

Module parse_ptx(const std::string& source, const std::string& file_name) {
  return Parser(source, file_name).run();
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
