// The front end's shared diagnostic log and literal handling.
#include "model/ptx/ptx_front_end.h"

#include <algorithm>
#include <charconv>
#include <cstring>

#include "model/ptx/float_ops.h"
#include "model/ptx/half_ops.h"

namespace tlmgpu::ptx {

using sv = std::string_view;

DiagnosticLog::DiagnosticLog(sv source, std::string file, std::vector<uint32_t> line_starts)
    : src_(source), file_(std::move(file)), line_starts_(std::move(line_starts)) {}

std::string DiagnosticLog::line_text(uint32_t line) const {
  if (line == 0 || line > line_starts_.size()) return {};
  size_t b = line_starts_[line - 1];
  size_t e = src_.find('\n', b);
  if (e == sv::npos) e = src_.size();
  sv t = src_.substr(b, e - b);
  while (!t.empty() && (t.front() == ' ' || t.front() == '\t')) t.remove_prefix(1);
  while (!t.empty() && (t.back() == ' ' || t.back() == '\t' || t.back() == '\r')) t.remove_suffix(1);
  return std::string(t);
}

void DiagnosticLog::error_at(uint32_t line, uint32_t col, std::string msg) {
  if (diags_.size() >= kMaxDiagnostics) return;
  if (lex_error_lines_.count(line)) return;  // the lexer's message explains this line
  PtxDiagnostic d;
  d.file = file_;
  d.line = line;
  d.column = col;
  d.message = std::move(msg);
  d.text = line_text(line);
  diags_.push_back(std::move(d));
}

std::vector<PtxDiagnostic> DiagnosticLog::take_sorted() {
  std::stable_sort(diags_.begin(), diags_.end(), [](const PtxDiagnostic& a, const PtxDiagnostic& b) {
    return a.line != b.line ? a.line < b.line : a.column < b.column;
  });
  diags_.erase(std::unique(diags_.begin(), diags_.end(),
                           [](const PtxDiagnostic& a, const PtxDiagnostic& b) {
                             return a.line == b.line && a.column == b.column && a.message == b.message;
                           }),
               diags_.end());
  return std::move(diags_);
}

std::string PhaseReporter::describe(const Token& t) {
  switch (t.kind) {
    case TokKind::End: return "end of file";
    case TokKind::String: return "string " + std::string(t.text);
    default: return "'" + std::string(t.text) + "'";
  }
}

bool PhaseReporter::read_literal(const Token& t, bool neg, Literal& lit) {
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

std::optional<DataType> type_of(sv m) {
  static const std::pair<sv, DataType> table[] = {
      {"pred", DataType::Pred}, {"b8", DataType::B8},   {"b16", DataType::B16}, {"b32", DataType::B32},
      {"b64", DataType::B64},   {"u8", DataType::U8},   {"u16", DataType::U16}, {"u32", DataType::U32},
      {"u64", DataType::U64},   {"s8", DataType::S8},   {"s16", DataType::S16}, {"s32", DataType::S32},
      {"s64", DataType::S64},   {"f16", DataType::F16}, {"f32", DataType::F32}, {"f64", DataType::F64},
      {"bf16", DataType::BF16}, {"f16x2", DataType::F16x2}, {"bf16x2", DataType::BF16x2},
  };
  return look_up_name(table, m);
}

std::optional<StateSpace> space_of(sv m) {
  static const std::pair<sv, StateSpace> table[] = {
      {"global", StateSpace::Global}, {"shared", StateSpace::Shared}, {"shared::cta", StateSpace::Shared},
      {"local", StateSpace::Local},   {"param", StateSpace::Param},   {"const", StateSpace::Const},
  };
  return look_up_name(table, m);
}

bool parse_uint(std::string_view t, uint64_t& v) {
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

namespace {

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

}  // namespace

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

uint32_t align_up(uint64_t v, uint32_t a) {
  if (a <= 1) return uint32_t(v);
  return uint32_t((v + a - 1) / a * a);
}

}  // namespace tlmgpu::ptx
