// PTX source -> tokens. Internal to the PTX front end.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace tlmgpu::ptx {

enum class TokKind : uint8_t {
  End,       ///< end of input (always the last token)
  Word,      ///< identifier, directive, register or dotted opcode: ld.global.v4.f32, %tid.x, .reg
  Int,       ///< integer literal: 12, 0x1F, 017, 0b101, 7U
  Float,     ///< decimal floating-point literal: 1.5, 2e-3, 9.0
  HexFloat,  ///< 0f3F800000 (f32 bits) or 0d3FF0000000000000 (f64 bits)
  String,    ///< "..." including the quotes
  Punct,     ///< one character of , ; : { } [ ] ( ) + - ! @ | < > =
};

struct Token {
  TokKind kind = TokKind::End;
  char punct = 0;           ///< the character for Punct
  bool line_start = false;  ///< first token on its source line
  bool malformed = false;   ///< a bad number; the lexer already reported it
  uint32_t line = 0;        ///< 1-based
  uint32_t column = 0;      ///< 1-based, tabs count as one column
  uint32_t offset = 0;      ///< byte offset in the source
  uint32_t length = 0;
  std::string_view text;    ///< view into the lexed source
  bool is(char c) const { return kind == TokKind::Punct && punct == c; }
  bool is_word(std::string_view w) const { return kind == TokKind::Word && text == w; }
};

struct LexError {
  uint32_t line = 0, column = 0;
  std::string message;
};

struct LexResult {
  std::vector<Token> tokens;            ///< ends with one End token
  std::vector<uint32_t> line_starts;    ///< byte offset of each line (index = line - 1)
  std::vector<LexError> errors;
};

/// Splits PTX text into tokens, dropping comments and whitespace. Never throws
/// on bad input: problems are reported in LexResult::errors and skipped.
LexResult lex_ptx(std::string_view source);

}  // namespace tlmgpu::ptx
