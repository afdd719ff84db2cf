#include "model/trace/warp_trace.h"

#include <algorithm>
#include <cctype>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>

namespace tlmgpu::trace {

namespace {

struct OpInfo {
  TraceOp op;
  const char* name;
  ptx::UnitClass unit;
  uint32_t latency;
  bool writes;  ///< may have destination registers
  bool reads;   ///< may have source registers
};

// Default latencies are round numbers in the range of a Fermi-class GPU;
// tests that check exact cycles set the ones they use.
constexpr OpInfo kOps[] = {
    {TraceOp::Alu, "alu", ptx::UnitClass::SP, 4, true, true},
    {TraceOp::Short, "short", ptx::UnitClass::SP, 1, true, true},
    {TraceOp::Long, "long", ptx::UnitClass::MEM, 10, true, true},
    {TraceOp::Sfu, "sfu", ptx::UnitClass::SFU, 16, true, true},
    {TraceOp::Dp, "dp", ptx::UnitClass::DP, 8, true, true},
    {TraceOp::LdGlobal, "ld.global", ptx::UnitClass::MEM, 100, true, true},
    {TraceOp::StGlobal, "st.global", ptx::UnitClass::MEM, 100, false, true},
    {TraceOp::LdLocal, "ld.local", ptx::UnitClass::MEM, 100, true, true},
    {TraceOp::StLocal, "st.local", ptx::UnitClass::MEM, 100, false, true},
    {TraceOp::LdShared, "ld.shared", ptx::UnitClass::MEM, 20, true, true},
    {TraceOp::StShared, "st.shared", ptx::UnitClass::MEM, 20, false, true},
    {TraceOp::Bar, "bar", ptx::UnitClass::BAR, 1, false, false},
    {TraceOp::Exit, "exit", ptx::UnitClass::CTRL, 1, false, false},
    {TraceOp::Nop, "nop", ptx::UnitClass::SP, 1, false, false},
};
static_assert(sizeof(kOps) / sizeof(kOps[0]) == static_cast<size_t>(TraceOp::Count_));

const OpInfo& info(TraceOp op) { return kOps[static_cast<size_t>(op)]; }

std::optional<TraceOp> op_by_name(const std::string& name) {
  for (const auto& o : kOps)
    if (name == o.name) return o.op;
  return std::nullopt;
}

std::string op_names() {
  std::vector<std::string> names;
  for (const auto& o : kOps) names.emplace_back(o.name);
  std::sort(names.begin(), names.end());
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

constexpr const char* kUnitNames[kUnitClasses] = {"sp", "sfu", "dp", "mem", "ctrl", "bar"};

// A cursor over one line; columns are 1-based for messages.
class LineCursor {
 public:
  LineCursor(const std::string& file, uint32_t line_no, const std::string& line)
      : file_(file), line_no_(line_no), s_(line) {}

  void skip_space() {
    while (pos_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[pos_]))) ++pos_;
  }
  bool at_end() {
    skip_space();
    return pos_ >= s_.size();
  }
  char peek() {
    skip_space();
    return pos_ < s_.size() ? s_[pos_] : '\0';
  }
  bool accept(const std::string& token) {
    skip_space();
    if (s_.compare(pos_, token.size(), token) != 0) return false;
    pos_ += token.size();
    return true;
  }
  void expect(const std::string& token, const std::string& what) {
    if (!accept(token)) fail("expected " + what);
  }
  /// Letters, digits, '.', '_'.
  std::string word() {
    skip_space();
    const size_t b = pos_;
    while (pos_ < s_.size() && (std::isalnum(static_cast<unsigned char>(s_[pos_])) || s_[pos_] == '.' ||
                                s_[pos_] == '_'))
      ++pos_;
    return s_.substr(b, pos_ - b);
  }
  uint32_t number(const std::string& what) {
    skip_space();
    const size_t b = pos_;
    while (pos_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[pos_]))) ++pos_;
    if (b == pos_) fail("expected " + what);
    if (pos_ - b > 9) fail_at(b, what + " is too large");
    return static_cast<uint32_t>(std::stoul(s_.substr(b, pos_ - b)));
  }
  size_t pos() {
    skip_space();
    return pos_;
  }
  uint32_t line() const { return line_no_; }
  uint32_t column_of(size_t p) const { return static_cast<uint32_t>(p + 1); }

  [[noreturn]] void fail(const std::string& message) { fail_at(pos(), message); }
  [[noreturn]] void fail_at(size_t p, const std::string& message) const {
    throw TraceError(file_, line_no_, column_of(p), message);
  }

 private:
  const std::string& file_;
  uint32_t line_no_;
  const std::string& s_;
  size_t pos_ = 0;
};

class TraceParser {
 public:
  explicit TraceParser(const std::string& source) { trace_.source = source; }

  void parse_line(uint32_t line_no, const std::string& raw) {
    const std::string line = raw.substr(0, raw.find('#'));
    LineCursor c(trace_.source, line_no, line);
    if (c.at_end()) return;
    const size_t start = c.pos();
    const std::string keyword = c.word();
    if (keyword == "latency") {
      parse_latencies(c);
    } else if (keyword == "interval") {
      parse_intervals(c);
    } else if (keyword == "warp" || keyword == "warps") {
      parse_warp_line(c);
    } else {
      c.fail_at(start, "unknown directive '" + (keyword.empty() ? line.substr(start, 1) : keyword) +
                           "' (expected latency, interval or warp)");
    }
  }

  WarpTrace finish() {
    for (auto& w : trace_.warps)
      for (auto& inst : w.instructions)
        if (inst.latency == 0) {
          const auto it = latency_.find(inst.op);
          inst.latency = it != latency_.end() ? it->second : default_latency(inst.op);
        }
    std::sort(trace_.warps.begin(), trace_.warps.end(),
              [](const TraceWarp& a, const TraceWarp& b) { return a.id < b.id; });
    if (trace_.warps.empty()) throw TraceError(trace_.source, 0, 0, "the trace defines no warps");
    return std::move(trace_);
  }

 private:
  void parse_latencies(LineCursor& c) {
    if (c.at_end()) c.fail("expected CLASS=CYCLES after 'latency'");
    while (!c.at_end()) {
      const size_t at = c.pos();
      const std::string name = c.word();
      const auto op = op_by_name(name);
      if (!op) c.fail_at(at, "unknown instruction class '" + name + "' (known: " + op_names() + ")");
      c.expect("=", "'=' after '" + name + "'");
      const size_t value_at = c.pos();
      const uint32_t cycles = c.number("a latency in cycles");
      if (cycles == 0) c.fail_at(value_at, "latency of '" + name + "' must be at least 1");
      if (!latency_.emplace(*op, cycles).second) c.fail_at(at, "latency of '" + name + "' is set twice");
    }
  }

  void parse_intervals(LineCursor& c) {
    if (c.at_end()) c.fail("expected UNIT=CYCLES after 'interval'");
    while (!c.at_end()) {
      const size_t at = c.pos();
      const std::string name = c.word();
      size_t unit = kUnitClasses;
      for (size_t u = 0; u < kUnitClasses; ++u)
        if (name == kUnitNames[u]) unit = u;
      if (unit == kUnitClasses) c.fail_at(at, "unknown unit '" + name + "' (known: sp, sfu, dp, mem, ctrl, bar)");
      c.expect("=", "'=' after '" + name + "'");
      const size_t value_at = c.pos();
      const uint32_t cycles = c.number("an initiation interval in cycles");
      if (cycles == 0) c.fail_at(value_at, "interval of '" + name + "' must be at least 1");
      trace_.unit_interval[unit] = cycles;
    }
  }

  void parse_warp_line(LineCursor& c) {
    std::vector<uint32_t> ids;
    do {
      const uint32_t first = c.number("a warp number");
      uint32_t last = first;
      if (c.accept("-")) {
        const size_t at = c.pos();
        last = c.number("the end of a warp range");
        if (last < first) c.fail_at(at, "warp range ends before it starts");
        if (last - first > 4096) c.fail_at(at, "warp range is too long");
      }
      for (uint32_t id = first; id <= last; ++id) ids.push_back(id);
    } while (c.accept(","));
    c.expect(":", "':' after the warp numbers");

    std::vector<TraceInstruction> program;
    while (true) {
      if (c.at_end()) {
        if (program.empty()) c.fail("expected an instruction");
        break;
      }
      program.push_back(parse_instruction(c));
      if (c.at_end()) break;
      c.expect(";", "';' between instructions");
      if (c.at_end()) break;  // a trailing ';' is fine
    }
    for (const uint32_t id : ids) {
      auto it = std::find_if(trace_.warps.begin(), trace_.warps.end(),
                             [&](const TraceWarp& w) { return w.id == id; });
      if (it == trace_.warps.end()) {
        trace_.warps.push_back({id, {}});
        it = trace_.warps.end() - 1;
      }
      it->instructions.insert(it->instructions.end(), program.begin(), program.end());
    }
  }

  TraceInstruction parse_instruction(LineCursor& c) {
    TraceInstruction inst;
    const size_t at = c.pos();
    inst.line = c.line();
    inst.column = c.column_of(at);
    const std::string name = c.word();
    if (name.empty()) c.fail("expected an instruction class");
    const auto op = op_by_name(name);
    if (!op) c.fail_at(at, "unknown instruction class '" + name + "' (known: " + op_names() + ")");
    inst.op = *op;
    inst.unit = info(*op).unit;
    inst.latency = 0;  // resolved in finish(): `latency` lines may come later
    if (c.accept(":")) {
      const size_t value_at = c.pos();
      inst.latency = c.number("a latency after ':'");
      if (inst.latency == 0) c.fail_at(value_at, "latency must be at least 1");
    }
    const size_t dst_at = c.pos();
    parse_registers(c, inst.dst);
    if (!inst.dst.empty() && !info(*op).writes) c.fail_at(dst_at, "'" + name + "' writes no register");
    if (c.accept("<-")) {
      const size_t src_at = c.pos();
      parse_registers(c, inst.src);
      if (inst.src.empty()) c.fail_at(src_at, "expected source registers after '<-'");
      if (!info(*op).reads) c.fail_at(src_at, "'" + name + "' reads no register");
    }
    const char next = c.peek();
    if (next != '\0' && next != ';') c.fail("unexpected '" + std::string(1, next) + "' in an instruction");
    return inst;
  }

  static void parse_registers(LineCursor& c, std::vector<uint32_t>& regs) {
    while (true) {
      const char first = c.peek();
      if (first != 'r' && first != 'p') return;
      const size_t at = c.pos();
      const std::string token = c.word();
      if (token.size() < 2 || !std::all_of(token.begin() + 1, token.end(), [](char ch) {
            return std::isdigit(static_cast<unsigned char>(ch)) != 0;
          }))
        c.fail_at(at, "bad register '" + token + "' (expected r<N> or p<N>)");
      if (token.size() > 7) c.fail_at(at, "register number too large in '" + token + "'");
      const uint32_t n = static_cast<uint32_t>(std::stoul(token.substr(1)));
      regs.push_back(token[0] == 'p' ? kPredicateRegister + n : n);
      c.accept(",");
    }
  }

  WarpTrace trace_;
  std::map<TraceOp, uint32_t> latency_;
};

}  // namespace

const char* to_string(TraceOp op) {
  return op < TraceOp::Count_ ? info(op).name : "?";
}
ptx::UnitClass unit_of(TraceOp op) { return info(op).unit; }
bool is_long_memory(TraceOp op) {
  return op == TraceOp::Long || op == TraceOp::LdGlobal || op == TraceOp::StGlobal || op == TraceOp::LdLocal ||
         op == TraceOp::StLocal;
}
bool is_store(TraceOp op) {
  return op == TraceOp::StGlobal || op == TraceOp::StLocal || op == TraceOp::StShared;
}
uint32_t default_latency(TraceOp op) { return info(op).latency; }

size_t WarpTrace::instruction_count() const {
  size_t n = 0;
  for (const auto& w : warps) n += w.instructions.size();
  return n;
}

TraceError::TraceError(const std::string& file, uint32_t line, uint32_t column, const std::string& message)
    : std::runtime_error(file + ":" + std::to_string(line) + ":" + std::to_string(column) + ": " + message),
      line_(line),
      column_(column) {}

WarpTrace parse_warp_trace(const std::string& text, const std::string& source_name) {
  TraceParser parser(source_name);
  std::istringstream in(text);
  std::string line;
  uint32_t line_no = 0;
  while (std::getline(in, line)) {
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    parser.parse_line(line_no, line);
  }
  return parser.finish();
}

WarpTrace load_warp_trace(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw TraceError(path, 0, 0, "cannot read the trace file");
  std::ostringstream text;
  text << in.rdbuf();
  return parse_warp_trace(text.str(), path);
}

core::HeadClass head_class_of(TraceOp op) {
  switch (op) {
    case TraceOp::Long:
    case TraceOp::LdGlobal:
    case TraceOp::StGlobal:
    case TraceOp::LdLocal:
    case TraceOp::StLocal: return core::HeadClass::LongMem;
    case TraceOp::LdShared:
    case TraceOp::StShared: return core::HeadClass::SharedMem;
    case TraceOp::Sfu: return core::HeadClass::Sfu;
    case TraceOp::Dp: return core::HeadClass::Dp;
    case TraceOp::Bar: return core::HeadClass::Barrier;
    case TraceOp::Exit: return core::HeadClass::Control;
    default: return core::HeadClass::ShortAlu;
  }
}

ptx::Opcode opcode_of(TraceOp op) {
  switch (op) {
    case TraceOp::Long:
    case TraceOp::LdGlobal:
    case TraceOp::LdLocal:
    case TraceOp::LdShared: return ptx::Opcode::Ld;
    case TraceOp::StGlobal:
    case TraceOp::StLocal:
    case TraceOp::StShared: return ptx::Opcode::St;
    case TraceOp::Sfu: return ptx::Opcode::Sqrt;
    case TraceOp::Dp: return ptx::Opcode::Fma;
    case TraceOp::Bar: return ptx::Opcode::Bar;
    case TraceOp::Exit: return ptx::Opcode::Exit;
    case TraceOp::Nop: return ptx::Opcode::Nop;
    default: return ptx::Opcode::Add;
  }
}

}  // namespace tlmgpu::trace
