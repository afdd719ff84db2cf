// PTX decode phase: instruction text -> Instruction. One handler per
// instruction family; decode_table() maps each opcode name to its handler.
#include "model/ptx/ptx_decode.h"

#include <algorithm>
#include <charconv>
#include <optional>
#include <unordered_map>

#include "model/ptx/cfg.h"
#include "model/ptx/register_allocation.h"

namespace tlmgpu::ptx {

namespace {

using sv = std::string_view;

std::optional<CmpOp> cmp_of(sv m) {
  static const std::pair<sv, CmpOp> table[] = {
      {"eq", CmpOp::Eq},   {"ne", CmpOp::Ne},   {"lt", CmpOp::Lt},   {"le", CmpOp::Le},   {"gt", CmpOp::Gt},
      {"ge", CmpOp::Ge},   {"lo", CmpOp::Lo},   {"ls", CmpOp::Ls},   {"hi", CmpOp::Hi},   {"hs", CmpOp::Hs},
      {"equ", CmpOp::Equ}, {"neu", CmpOp::Neu}, {"ltu", CmpOp::Ltu}, {"leu", CmpOp::Leu}, {"gtu", CmpOp::Gtu},
      {"geu", CmpOp::Geu}, {"num", CmpOp::Num}, {"nan", CmpOp::Nan},
  };
  return look_up_name(table, m);
}

std::optional<Rounding> frnd_of(sv m) {
  static const std::pair<sv, Rounding> table[] = {
      {"rn", Rounding::Rn}, {"rz", Rounding::Rz}, {"rm", Rounding::Rm}, {"rp", Rounding::Rp}};
  return look_up_name(table, m);
}
std::optional<Rounding> irnd_of(sv m) {
  static const std::pair<sv, Rounding> table[] = {
      {"rni", Rounding::Rni}, {"rzi", Rounding::Rzi}, {"rmi", Rounding::Rmi}, {"rpi", Rounding::Rpi}};
  return look_up_name(table, m);
}

/// Memory-ordering and scope qualifiers the functional model can ignore.
bool is_sem_or_scope(sv m) {
  static const sv names[] = {"weak", "relaxed", "acquire", "release", "acq_rel", "cta", "gpu", "sys"};
  return name_in(names, m);
}

/// Cache-policy qualifiers (hints only). .L2::cache_hint is not here: it takes an extra operand.
bool is_cache_hint(sv m) {
  static const sv names[] = {"ca", "cg", "cs", "lu", "cv", "wb", "wt", "L1::evict_normal", "L1::evict_unchanged",
                             "L1::evict_first", "L1::evict_last", "L1::no_allocate", "L2::evict_normal",
                             "L2::evict_first", "L2::evict_last", "L2::64B", "L2::128B", "L2::256B"};
  return name_in(names, m);
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
  if (auto s = look_up_name(table, n)) return s;
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

class Decoder : PhaseReporter {
 public:
  Decoder(SyntaxTree& tree, const std::vector<Token>& tokens, sv source, Module& module, DiagnosticLog& log,
          CallGraph& calls)
      : PhaseReporter(log),
        src_(source),
        toks_(tokens),
        mod_(module),
        module_decls_(tree.module_decls),
        module_names_(tree.module_names),
        funcs_(tree.funcs),
        func_names_(tree.func_names),
        prototypes_(tree.prototypes),
        calls_(calls) {}

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

 private:
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

  using DecodeHandler = void (Decoder::*)(Dec&, sv);

 public:
  /// Opcode name (the part before the first '.') -> decode handler, built once.
  /// is_decodable_opcode and decode_instruction both use it, so they cannot
  /// disagree.
  static const std::unordered_map<sv, DecodeHandler>& decode_table() {
    static const std::unordered_map<sv, DecodeHandler> table = [] {
      std::unordered_map<sv, DecodeHandler> t = {
          {"mov", &Decoder::decode_mov},
          {"cvt", &Decoder::decode_cvt},
          {"cvta", &Decoder::decode_cvta},
          {"add", &Decoder::decode_add_sub},
          {"sub", &Decoder::decode_add_sub},
          {"mul", &Decoder::decode_mul_mad},
          {"mad", &Decoder::decode_mul_mad},
          {"mul24", &Decoder::decode_mul24_mad24},
          {"mad24", &Decoder::decode_mul24_mad24},
          {"div", &Decoder::decode_div},
          {"rem", &Decoder::decode_rem},
          {"abs", &Decoder::decode_abs_neg},
          {"neg", &Decoder::decode_abs_neg},
          {"min", &Decoder::decode_min_max},
          {"max", &Decoder::decode_min_max},
          {"fma", &Decoder::decode_fma},
          {"rcp", &Decoder::decode_rcp_sqrt_rsqrt},
          {"sqrt", &Decoder::decode_rcp_sqrt_rsqrt},
          {"rsqrt", &Decoder::decode_rcp_sqrt_rsqrt},
          {"ex2", &Decoder::decode_ex2_lg2_sin_cos_tanh},
          {"lg2", &Decoder::decode_ex2_lg2_sin_cos_tanh},
          {"sin", &Decoder::decode_ex2_lg2_sin_cos_tanh},
          {"cos", &Decoder::decode_ex2_lg2_sin_cos_tanh},
          {"tanh", &Decoder::decode_ex2_lg2_sin_cos_tanh},
          {"copysign", &Decoder::decode_copysign},
          {"testp", &Decoder::decode_testp},
          {"and", &Decoder::decode_and_or_xor},
          {"or", &Decoder::decode_and_or_xor},
          {"xor", &Decoder::decode_and_or_xor},
          {"not", &Decoder::decode_not_cnot},
          {"cnot", &Decoder::decode_not_cnot},
          {"shl", &Decoder::decode_shl_shr},
          {"shr", &Decoder::decode_shl_shr},
          {"popc", &Decoder::decode_popc_clz_brev},
          {"clz", &Decoder::decode_popc_clz_brev},
          {"brev", &Decoder::decode_popc_clz_brev},
          {"bfe", &Decoder::decode_bfe},
          {"bfi", &Decoder::decode_bfi},
          {"bfind", &Decoder::decode_bfind},
          {"prmt", &Decoder::decode_prmt},
          {"shf", &Decoder::decode_shf},
          {"bmsk", &Decoder::decode_bmsk_szext},
          {"szext", &Decoder::decode_bmsk_szext},
          {"setp", &Decoder::decode_setp_set},
          {"set", &Decoder::decode_setp_set},
          {"selp", &Decoder::decode_selp},
          {"slct", &Decoder::decode_slct},
          {"ld", &Decoder::decode_ld_st_op},
          {"st", &Decoder::decode_ld_st_op},
          {"atom", &Decoder::decode_atom_red},
          {"red", &Decoder::decode_atom_red},
          {"prefetch", &Decoder::decode_prefetch},
          {"membar", &Decoder::decode_membar_fence},
          {"fence", &Decoder::decode_membar_fence},
          {"bar", &Decoder::decode_bar},
          {"barrier", &Decoder::decode_bar},
          {"shfl", &Decoder::decode_shfl},
          {"vote", &Decoder::decode_vote},
          {"activemask", &Decoder::decode_activemask},
          {"match", &Decoder::decode_match},
          {"bra", &Decoder::decode_bra},
          {"dp4a", &Decoder::decode_dp4a_dp2a},
          {"dp2a", &Decoder::decode_dp4a_dp2a},
          {"sad", &Decoder::decode_sad},
          {"fns", &Decoder::decode_fns},
          {"brkpt", &Decoder::decode_brkpt_pmevent},
          {"pmevent", &Decoder::decode_brkpt_pmevent},
          {"wmma", &Decoder::decode_wmma},
          {"nanosleep", &Decoder::decode_nanosleep},
          {"lop3", &Decoder::decode_lop3},
          {"tex", &Decoder::decode_tex_tld4_op},
          {"tld4", &Decoder::decode_tex_tld4_op},
          {"suld", &Decoder::decode_suld_sust_op},
          {"sust", &Decoder::decode_suld_sust_op},
          {"ret", &Decoder::decode_ret_exit_trap_nop},
          {"exit", &Decoder::decode_ret_exit_trap_nop},
          {"trap", &Decoder::decode_ret_exit_trap_nop},
          {"nop", &Decoder::decode_ret_exit_trap_nop},
          {"addc", &Decoder::decode_carry_chain},
          {"subc", &Decoder::decode_carry_chain},
          {"madc", &Decoder::decode_carry_chain},
          {"call", &Decoder::decode_call_op},
      };
      for (sv n : {"vadd", "vsub", "vabsdiff", "vmin", "vmax", "vshl", "vshr", "vmad", "vset", "vadd2", "vsub2",
                   "vavrg2", "vabsdiff2", "vmin2", "vmax2", "vset2", "vadd4", "vsub4", "vavrg4", "vabsdiff4",
                   "vmin4", "vmax4", "vset4"})
        t.emplace(n, &Decoder::decode_video_op);
      return t;
    }();
    return table;
  }

  static DecodeHandler find_decoder(sv base) {
    const auto& t = decode_table();
    const auto it = t.find(base);
    return it == t.end() ? nullptr : it->second;
  }

 private:

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
    calls_.add_call(cur_->module_index, callee.module_index, {in.loc.line, in.loc.column});
  }

  /// The CUDA device runtime's kernel-launch entry points (CDP1 and CDP2 names).
  static bool is_device_launch_function(sv name) {
    return name.rfind("__cudaCDP", 0) == 0 || name == "cudaLaunchDevice" || name == "cudaLaunchDeviceV2" ||
           name == "cudaGetParameterBuffer" || name == "cudaGetParameterBufferV2";
  }

  static BuiltinFunction builtin_of(sv name) {
    static const std::pair<sv, BuiltinFunction> table[] = {{"vprintf", BuiltinFunction::Vprintf},
                                                           {"malloc", BuiltinFunction::Malloc},
                                                           {"free", BuiltinFunction::Free},
                                                           {"__assertfail", BuiltinFunction::AssertFail}};
    return look_up_name(table, name).value_or(BuiltinFunction::None);
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

  sv src_;
  const std::vector<Token>& toks_;
  Module& mod_;
  std::vector<Decl>& module_decls_;
  const std::unordered_map<std::string, size_t>& module_names_;
  std::vector<FuncDef>& funcs_;
  const std::unordered_map<std::string, size_t>& func_names_;
  const std::unordered_set<std::string>& prototypes_;
  CallGraph& calls_;

  FuncDef* cur_ = nullptr;
  std::vector<Scope> scopes_;
  std::unordered_map<sv, uint32_t> labels_;
  std::vector<Fixup> fixups_;
  Binding scratch_;
  uint32_t next_reg_ = 0, next_pred_ = 0;
  uint32_t kernel_reg_base_ = 0, kernel_pred_base_ = 0;
};

}  // namespace

void decode_functions(SyntaxTree& tree, const std::vector<Token>& tokens, sv source, Module& module,
                      DiagnosticLog& log, CallGraph& calls) {
  Decoder(tree, tokens, source, module, log, calls).decode_all();
}

bool is_decodable_opcode(sv opcode) { return Decoder::find_decoder(opcode) != nullptr; }

}  // namespace tlmgpu::ptx
