// What the PTX front end's phases share: the diagnostic log every phase
// reports to, numeric literals, and the names of types and state spaces.
// Internal to the front end (ptx_syntax, ptx_layout, ptx_decode, ptx_link).
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "model/ptx/ptx_ir.h"
#include "model/ptx/ptx_lexer.h"
#include "model/ptx/ptx_parser.h"

namespace tlmgpu::ptx {

/// Thrown after a diagnostic has been recorded, to abandon the current statement.
struct StmtAbort {};

/// Every diagnostic of one parse, with the source lines they quote.
class DiagnosticLog {
 public:
  /// Beyond this many, further diagnostics are dropped.
  static constexpr size_t kMaxDiagnostics = 1000;

  DiagnosticLog(std::string_view source, std::string file, std::vector<uint32_t> line_starts);

  /// Records an error at line:col, quoting the source line. Lines the lexer
  /// already reported stay silent: its message explains them.
  void error_at(uint32_t line, uint32_t col, std::string msg);
  /// Silences later errors on a line the lexer has reported.
  void lexer_reported(uint32_t line) { lex_error_lines_.insert(line); }

  const std::string& file() const { return file_; }
  bool empty() const { return diags_.empty(); }
  /// The diagnostics by position, duplicates (same place and text) removed.
  std::vector<PtxDiagnostic> take_sorted();

 private:
  std::string line_text(uint32_t line) const;

  std::string_view src_;
  std::string file_;
  std::vector<uint32_t> line_starts_;
  std::unordered_set<uint32_t> lex_error_lines_;
  std::vector<PtxDiagnostic> diags_;
};

/// A numeric literal as written; its bits for an operand type are decided
/// by the instruction (literal_bits).
struct Literal {
  enum Kind : uint8_t { Int, F32Bits, F64Bits, Dec, SymbolAddress } kind = Int;
  uint64_t bits = 0;  ///< Int: two's complement value; F32Bits/F64Bits: raw bits
  double d = 0;       ///< Dec
  std::string symbol; ///< SymbolAddress: `name` or `generic(name)` in an initializer
  SourceLoc loc;      ///< SymbolAddress: where it was written
};

/// Base of each phase: reporting helpers over the shared log, and the
/// literal reader both declarations (initializers) and operands use.
class PhaseReporter {
 protected:
  explicit PhaseReporter(DiagnosticLog& log) : log_(log) {}

  void error_at(uint32_t line, uint32_t col, std::string msg) { log_.error_at(line, col, std::move(msg)); }
  void error(const Token& t, std::string msg) { error_at(t.line, t.column, std::move(msg)); }
  [[noreturn]] void fail(const Token& t, std::string msg) {
    error(t, std::move(msg));
    throw StmtAbort{};
  }
  static std::string describe(const Token& t);
  /// Reads a numeric literal token (the '-' already consumed when neg).
  bool read_literal(const Token& t, bool neg, Literal& lit);

  DiagnosticLog& log_;
};

/// Integer literal text (decimal, 0x, 0b, octal, optional U suffix).
bool parse_uint(std::string_view t, uint64_t& v);
/// Raw bits of literal `l` as an operand of type `t`; false when the literal
/// does not fit the type's kind (ptxas rejects integers for float operands and
/// floats for signed/unsigned ones).
bool literal_bits(const Literal& l, DataType t, uint64_t& out);
uint32_t align_up(uint64_t v, uint32_t a);

/// Modifiers and names are looked up in tables of {name as written, meaning}
/// rather than chains of comparisons; the tables are small (at most a few
/// dozen short names), where a scan costs no more than a hash.
template <typename T, size_t N>
std::optional<T> look_up_name(const std::pair<std::string_view, T> (&table)[N], std::string_view name) {
  for (const auto& [n, meaning] : table)
    if (n == name) return meaning;
  return std::nullopt;
}
template <size_t N>
bool name_in(const std::string_view (&names)[N], std::string_view name) {
  return std::find(std::begin(names), std::end(names), name) != std::end(names);
}


/// A type modifier without its dot ("u32"), or nothing.
std::optional<DataType> type_of(std::string_view m);
/// A state-space modifier without its dot ("shared::cta"), or nothing.
std::optional<StateSpace> space_of(std::string_view m);

}  // namespace tlmgpu::ptx
