#include "model/ptx/ptx_lexer.h"

namespace tlmgpu::ptx {
namespace {

bool is_alpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_hex(char c) { return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }
bool is_word_start(char c) { return is_alpha(c) || c == '_' || c == '$' || c == '%' || c == '.'; }
bool is_word_char(char c) { return is_alpha(c) || is_digit(c) || c == '_' || c == '$' || c == '.'; }

class Lexer {
 public:
  explicit Lexer(std::string_view src) : s_(src) { out_.line_starts.push_back(0); }

  LexResult run() {
    while (true) {
      skip_space_and_comments();
      if (i_ >= s_.size()) break;
      lex_one();
    }
    Token end;
    end.kind = TokKind::End;
    end.line = line_;
    end.column = column();
    end.offset = uint32_t(s_.size());
    end.line_start = true;
    out_.tokens.push_back(end);
    return std::move(out_);
  }

 private:
  char at(size_t k) const { return k < s_.size() ? s_[k] : '\0'; }
  uint32_t column() const { return uint32_t(i_ - out_.line_starts.back()) + 1; }

  void newline() {
    ++line_;
    out_.line_starts.push_back(uint32_t(i_));
    line_has_token_ = false;
  }

  void error(uint32_t line, uint32_t col, std::string msg) {
    out_.errors.push_back(LexError{line, col, std::move(msg)});
  }

  void skip_space_and_comments() {
    while (i_ < s_.size()) {
      char c = s_[i_];
      if (c == '\n') {
        ++i_;
        newline();
      } else if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v') {
        ++i_;
      } else if (c == '/' && at(i_ + 1) == '/') {
        while (i_ < s_.size() && s_[i_] != '\n') ++i_;
      } else if (c == '/' && at(i_ + 1) == '*') {
        uint32_t l = line_, col = column();
        i_ += 2;
        bool closed = false;
        while (i_ < s_.size()) {
          if (s_[i_] == '*' && at(i_ + 1) == '/') {
            i_ += 2;
            closed = true;
            break;
          }
          if (s_[i_] == '\n') {
            ++i_;
            newline();
          } else {
            ++i_;
          }
        }
        if (!closed) error(l, col, "unterminated comment '/*'");
      } else {
        return;
      }
    }
  }

  void push(TokKind kind, size_t start, uint32_t col, char punct = 0) {
    Token t;
    t.kind = kind;
    t.punct = punct;
    t.line = line_;
    t.column = col;
    t.offset = uint32_t(start);
    t.length = uint32_t(i_ - start);
    t.text = s_.substr(start, i_ - start);
    t.line_start = !line_has_token_;
    line_has_token_ = true;
    out_.tokens.push_back(t);
  }

  void lex_one() {
    size_t start = i_;
    uint32_t col = column();
    char c = s_[i_];
    if (is_word_start(c) && (c != '.' || is_word_char(at(i_ + 1)))) {
      ++i_;
      while (i_ < s_.size()) {
        if (is_word_char(s_[i_])) {
          ++i_;
        } else if (s_[i_] == ':' && at(i_ + 1) == ':' && (is_alpha(at(i_ + 2)) || is_digit(at(i_ + 2)) ||
                                                          at(i_ + 2) == '_')) {
          i_ += 2;  // qualifiers such as .L2::128B or .shared::cta
        } else {
          break;
        }
      }
      push(TokKind::Word, start, col);
      return;
    }
    if (is_digit(c)) {
      lex_number(start, col);
      return;
    }
    if (c == '"') {
      ++i_;
      bool closed = false;
      while (i_ < s_.size() && s_[i_] != '\n') {
        if (s_[i_] == '\\' && i_ + 1 < s_.size() && s_[i_ + 1] != '\n') {
          i_ += 2;
          continue;
        }
        if (s_[i_] == '"') {
          ++i_;
          closed = true;
          break;
        }
        ++i_;
      }
      if (!closed) error(line_, col, "unterminated string literal");
      push(TokKind::String, start, col);
      return;
    }
    switch (c) {
      case ',': case ';': case ':': case '{': case '}': case '[': case ']': case '(': case ')':
      case '+': case '-': case '!': case '@': case '|': case '<': case '>': case '=':
        ++i_;
        push(TokKind::Punct, start, col, c);
        return;
      default:
        break;
    }
    // Skip one UTF-8 sequence so a stray byte produces exactly one message.
    ++i_;
    while (i_ < s_.size() && (static_cast<unsigned char>(s_[i_]) & 0xC0) == 0x80) ++i_;
    std::string shown = (static_cast<unsigned char>(c) >= 0x20 && static_cast<unsigned char>(c) < 0x7F)
                            ? std::string(1, c)
                            : "\\x" + std::string(1, "0123456789abcdef"[(c >> 4) & 15]) +
                                  std::string(1, "0123456789abcdef"[c & 15]);
    error(line_, col, "unexpected character '" + shown + "'");
  }

  void lex_number(size_t start, uint32_t col) {
    TokKind kind = TokKind::Int;
    char c1 = at(i_ + 1);
    bool bad = false;
    if (s_[i_] == '0' && (c1 == 'f' || c1 == 'F' || c1 == 'd' || c1 == 'D')) {
      size_t want = (c1 == 'f' || c1 == 'F') ? 8 : 16;
      i_ += 2;
      size_t n = 0;
      while (i_ < s_.size() && is_hex(s_[i_])) ++i_, ++n;
      kind = TokKind::HexFloat;
      bad = n != want;
    } else if (s_[i_] == '0' && (c1 == 'x' || c1 == 'X')) {
      i_ += 2;
      size_t n = 0;
      while (i_ < s_.size() && is_hex(s_[i_])) ++i_, ++n;
      bad = n == 0;
      if (at(i_) == 'U') ++i_;
    } else if (s_[i_] == '0' && (c1 == 'b' || c1 == 'B')) {
      i_ += 2;
      size_t n = 0;
      while (i_ < s_.size() && (s_[i_] == '0' || s_[i_] == '1')) ++i_, ++n;
      bad = n == 0;
      if (at(i_) == 'U') ++i_;
    } else {
      while (i_ < s_.size() && is_digit(s_[i_])) ++i_;
      if (at(i_) == '.' && !is_alpha(at(i_ + 1)) && at(i_ + 1) != '_') {
        kind = TokKind::Float;
        ++i_;
        while (i_ < s_.size() && is_digit(s_[i_])) ++i_;
      }
      if (at(i_) == 'e' || at(i_) == 'E') {
        size_t k = i_ + 1;
        if (at(k) == '+' || at(k) == '-') ++k;
        if (is_digit(at(k))) {
          kind = TokKind::Float;
          i_ = k;
          while (i_ < s_.size() && is_digit(s_[i_])) ++i_;
        }
      }
      if (kind == TokKind::Int && at(i_) == 'U') ++i_;
    }
    // A literal running into letters (12ab, 0x1G) is one malformed token.
    while (i_ < s_.size() && (is_word_char(s_[i_]) && s_[i_] != '.')) {
      ++i_;
      bad = true;
    }
    push(kind, start, col);
    if (bad) {
      out_.tokens.back().malformed = true;
      error(line_, col, "malformed number '" + std::string(s_.substr(start, i_ - start)) + "'");
    }
  }

  std::string_view s_;
  size_t i_ = 0;
  uint32_t line_ = 1;
  bool line_has_token_ = false;
  LexResult out_;
};

}  // namespace

LexResult lex_ptx(std::string_view source) { return Lexer(source).run(); }

}  // namespace tlmgpu::ptx
