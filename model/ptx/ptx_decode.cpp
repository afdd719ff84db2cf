// PTX decode phase: the driver. Functions are decoded in definition order,
// each in scope order; registers get slots as their declarations are met; an
// instruction's operands are read, then its family's handler
// (ptx_decode_families.cpp) gives them meaning.
#include "model/ptx/ptx_decode.h"

#include <algorithm>
#include <charconv>

#include "model/ptx/cfg.h"
#include "model/ptx/ptx_decoder.h"
#include "model/ptx/register_allocation.h"

namespace tlmgpu::ptx {

namespace decoding {

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

bool is_sem_or_scope(sv m) {
  static const sv names[] = {"weak", "relaxed", "acquire", "release", "acq_rel", "cta", "gpu", "sys"};
  return name_in(names, m);
}

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

uint32_t reg_units(DataType t) {
  if (t == DataType::Pred) return 0;
  return type_bytes(t) == 8 ? 2 : 1;
}

void Decoder::decode_all() {
  shared_uses_.assign(mod_.functions.size(), {});
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
  charge_static_shared_memory();
  for (auto& fn : mod_.functions) {
    fn.num_regs = max_reg;
    fn.num_preds = max_pred;
  }
  const std::vector<uint32_t> regs = estimate_registers(mod_);
  for (size_t i = 0; i < regs.size(); ++i) mod_.functions[i].regs_per_thread = regs[i];
}

void Decoder::decode_function(FuncDef& f) {
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
  append_end_of_body_guard(fn);
  fn.end_pc = uint32_t(mod_.code.size());
  for (auto& fx : fixups_) {
    auto l = labels_.find(fx.name);
    if (l == labels_.end()) {
      error(*fx.tok, "unknown label '" + std::string(fx.name) + "'");
      continue;
    }
    Instruction& in = mod_.code[fx.pc];
    in.target = l->second;
    in.src[0].imm = l->second;
  }
  compute_reconvergence(mod_, fn);
  cur_ = nullptr;
}

void Decoder::append_end_of_body_guard(const Function& fn) {
  // Execution must not run on into the next function's code (or past the
  // module's). A body that can reach its end, by falling through its last
  // instruction or by a branch to a label after it (nvcc ends .noreturn
  // functions so), gets a trap there that names the function.
  const uint32_t end = uint32_t(mod_.code.size());
  bool reachable = end == fn.entry_pc;
  if (!reachable) {
    const Instruction& last = mod_.code.back();
    const bool terminates = last.guard == kNoReg && (last.op == Opcode::Bra || last.op == Opcode::Ret ||
                                                     last.op == Opcode::Exit || last.op == Opcode::Trap);
    reachable = !terminates;
  }
  for (const auto& [name, pc] : labels_) reachable = reachable || pc == end;
  if (!reachable) return;
  Instruction guard;
  guard.op = Opcode::Trap;
  guard.end_of_body = true;
  guard.unit = unit_of(guard);
  guard.loc = fn.loc;
  mod_.code.push_back(guard);
  mod_.text.push_back("(end of '" + fn.name + "')");
}

void Decoder::declare(const Decl& d, Binding b, bool range) {
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

void Decoder::bind_reg(const Decl& d) {
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

void Decoder::bind_var(const Decl& d) {
  Binding b;
  b.kind = Binding::Var;
  b.decl = &d;
  declare(d, b, false);
}

const Binding* Decoder::lookup(sv name) {
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

std::vector<RawOp> Decoder::parse_operands(size_t p, size_t e) {
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

const Token& Decoder::need(size_t p, size_t e, const char* what) {
  if (p >= e) fail(tok(e), std::string("expected ") + what + ", found " + describe(tok(e)));
  return tok(p);
}

RawOp Decoder::parse_operand(size_t& p, size_t e) {
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

void Decoder::parse_texture_coordinates(size_t& p, size_t e, RawOp& r) {
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

int64_t Decoder::parse_offset(size_t& p, size_t e) {
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

void Decoder::unsupported(const Dec& d) {
  fail(*d.op_tok, "unsupported PTX instruction '" + std::string(d.full) + "'");
}

void Decoder::bad_type(const Dec& d, DataType t) {
  fail(*d.op_tok, std::string("type ") + type_name(t) + " is not valid for '" + std::string(d.full) + "'");
}

void Decoder::want_count(const Dec& d, size_t lo, size_t hi) {
  if (hi == 0) hi = lo;
  size_t n = d.ops.size();
  if (n >= lo && n <= hi) return;
  std::string want = lo == hi ? std::to_string(lo) : std::to_string(lo) + " or " + std::to_string(hi);
  fail(*d.op_tok, "'" + std::string(d.full) + "' expects " + want + (lo == 1 && hi == 1 ? " operand" : " operands") +
           ", got " + std::to_string(n));
}

std::string Decoder::nth(size_t i) const {
  static const char* const names[] = {"first", "second", "third", "fourth", "fifth", "sixth"};
  return i < 6 ? names[i] : "an";
}

const Binding& Decoder::reg_binding(const RawOp& r, sv name) {
  const Binding* b = lookup(name);
  if (!b || b->kind == Binding::Var) {
    if (special_of(name)) fail(*r.tok, "special register '" + std::string(name) + "' cannot be written");
    fail(*r.tok, "unknown register '" + std::string(name) + "'");
  }
  return *b;
}

Operand Decoder::dst_operand(const Dec& d, size_t i, bool pred, bool allow_pipe) {
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

Operand Decoder::src_operand(const Dec& d, size_t i, DataType immty) {
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
        if (r.name == "%current_graph_exec")  // what cudaGetCurrentGraphExec() reads
          fail(*r.tok, "unsupported: " + std::string(unsupported_device_runtime_feature("cudaGraph")) +
                           " in kernel '" + cur_->name + "' (read of %current_graph_exec)");
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
        // ptxas takes any integer here, and nvcc writes true as -1: non-zero is true.
        if (r.lit.kind != Literal::Int) fail(*r.tok, "a predicate constant must be an integer (0 false, non-zero true)");
        o.imm = r.lit.bits != 0;
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

const Decl& Decoder::var_decl(const RawOp& r, sv name) {
  const Binding* b = lookup(name);
  if (b && b->kind == Binding::Var) return *b->decl;
  if (b) fail(*r.tok, "'" + std::string(name) + "' is a register, not a symbol");
  if (func_names_.count(std::string(name)))
    fail(*r.tok, "unsupported syntax: function addresses (function pointers to '" + std::string(name) + "') are not supported");
  fail(*r.tok, "unknown symbol '" + std::string(name) + "'");
}

Operand Decoder::symbol_operand(const RawOp& r) {
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
    note_shared_use(v);
  }
  return o;
}

StateSpace Decoder::home_space(const Decl& v) {
  if (v.space == StateSpace::Param && !v.kernel_param) return StateSpace::Local;
  return v.space;
}

Operand Decoder::address_operand(Dec& d, size_t i) {
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
    note_shared_use(v);
  }
  return o;
}

void Decoder::note_shared_use(const Decl& v) {
  if (v.space == StateSpace::Shared && v.size() > 0) shared_uses_[size_t(cur_->module_index)].insert(&v);
}

void Decoder::charge_static_shared_memory() {
  // Per function: the functions its calls may reach. An indirect call may
  // reach any device function.
  const size_t n = mod_.functions.size();
  std::vector<std::vector<uint32_t>> callees(n);
  for (size_t f = 0; f < n; ++f) {
    const Function& fn = mod_.functions[f];
    for (uint32_t pc = fn.entry_pc; pc < fn.end_pc; ++pc) {
      const Instruction& in = mod_.code[pc];
      if (in.op != Opcode::Call || in.target >= mod_.calls.size()) continue;
      const CallSite& site = mod_.calls[in.target];
      if (site.builtin != BuiltinFunction::None) continue;
      if (!site.indirect()) {
        callees[f].push_back(site.callee);
        continue;
      }
      for (uint32_t g = 0; g < n; ++g)
        if (!mod_.functions[g].is_entry) callees[f].push_back(g);
    }
  }
  for (size_t k = 0; k < n; ++k) {
    Function& kernel = mod_.functions[k];
    if (!kernel.is_entry) continue;
    std::vector<bool> reached(n, false);
    std::vector<uint32_t> work{uint32_t(k)};
    reached[k] = true;
    std::set<const Decl*> used;
    while (!work.empty()) {
      const uint32_t f = work.back();
      work.pop_back();
      used.insert(shared_uses_[f].begin(), shared_uses_[f].end());
      for (uint32_t g : callees[f]) {
        if (reached[g]) continue;
        reached[g] = true;
        work.push_back(g);
      }
    }
    // What a layout of only these variables takes (ptxas lays out each
    // kernel's own); the module-wide offsets stay as they are.
    std::vector<const Decl*> by_offset(used.begin(), used.end());
    std::sort(by_offset.begin(), by_offset.end(),
              [](const Decl* a, const Decl* b) { return a->offset < b->offset; });
    uint32_t end = 0;
    for (const Decl* d : by_offset) end = align_up(end, d->alignment()) + d->size();
    kernel.static_shared_bytes = end;
  }
}

Operand Decoder::vector_operand(const Dec& d, size_t i, unsigned want, bool allow_sink, bool allow_imm) {
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

DataType Decoder::one_type(const Dec& d, TypeSet allowed) {
  if (d.types.empty())
    fail(*d.op_tok, "'" + std::string(d.full) + "' needs a type (e.g. ." +
                        std::string(allowed & bit(DataType::S32) ? "s32" : allowed & bit(DataType::B32) ? "b32" : "f32") +
                        ")");
  if (d.types.size() > 1) bad_type(d, d.types[1]);
  if (!(allowed & bit(d.types[0]))) bad_type(d, d.types[0]);
  return d.types[0];
}

void Decoder::two_types(const Dec& d, TypeSet allowed1, TypeSet allowed2) {
  if (d.types.size() != 2)
    fail(*d.op_tok, "'" + std::string(d.full) + "' needs two types (destination and source)");
  if (!(allowed1 & bit(d.types[0]))) bad_type(d, d.types[0]);
  if (!(allowed2 & bit(d.types[1]))) bad_type(d, d.types[1]);
}

void Decoder::decode_instruction(const Item& it) {
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

bool Decoder::declared_erroneously(sv name) {
  const Binding* b = lookup(register_part(name));
  return b && b->decl && b->decl->erroneous;
}

void Decoder::skip_if_uses_erroneous_declaration(const Dec& d) {
  for (const RawOp& r : d.ops) {
    bool bad = (!r.name.empty() && declared_erroneously(r.name)) || (!r.name2.empty() && declared_erroneously(r.name2));
    for (sv n : r.elems) bad = bad || declared_erroneously(n);
    if (bad) throw StmtAbort{};
  }
}

std::string Decoder::statement_text(const Item& it) const {
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

}  // namespace decoding

using decoding::sv;

void decode_functions(SyntaxTree& tree, const std::vector<Token>& tokens, sv source, Module& module,
                      DiagnosticLog& log, CallGraph& calls) {
  decoding::Decoder(tree, tokens, source, module, log, calls).decode_all();
}

bool is_decodable_opcode(sv opcode) { return decoding::Decoder::find_decoder(opcode) != nullptr; }

}  // namespace tlmgpu::ptx
