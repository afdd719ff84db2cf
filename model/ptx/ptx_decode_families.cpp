// PTX decode phase: one handler per instruction family (arithmetic, logic,
// comparison, data movement, memory, synchronisation, control, video, warp
// matrix, textures and surfaces), and the opcode table that picks them.
#include <algorithm>

#include "model/ptx/ptx_decoder.h"

namespace tlmgpu::ptx::decoding {

void Decoder::check_half_modifiers(const Dec& d) {
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

void Decoder::check_half_set_types(const Dec& d) {
  const DataType dt = d.in.type, st = d.in.type2;
  bool ok = true;
  if (type_is_packed_half(st)) ok = dt == st || dt == DataType::U32 || dt == DataType::S32;
  else if (type_is_packed_half(dt)) ok = false;
  else if (dt == DataType::U16 || dt == DataType::S16) ok = st == DataType::F16 || st == DataType::BF16;
  else if (dt == DataType::F32) ok = !type_is_half(st);
  if (!ok) bad_type(d, dt);
}

bool Decoder::ftz_sat_modifier(Instruction& in, sv m) {
  if (m == "ftz") return in.ftz = true;
  if (m == "sat") return in.sat = true;
  return false;
}

bool Decoder::float_rounding_modifier(Instruction& in, sv m) {
  if (auto r = frnd_of(m)) {
    in.rnd = *r;
    return true;
  }
  return false;
}

void Decoder::decode_binary(Dec& d, Opcode op, TypeSet allowed) {
  Instruction& in = d.in;
  in.op = op;
  in.type = one_type(d, allowed);
  want_count(d, 3);
  in.dst = dst_operand(d, 0, in.type == DataType::Pred);
  in.src[0] = src_operand(d, 1, in.type);
  in.src[1] = src_operand(d, 2, in.type);
  in.num_src = 2;
}

void Decoder::decode_unary(Dec& d, Opcode op, TypeSet allowed) {
  Instruction& in = d.in;
  in.op = op;
  in.type = one_type(d, allowed);
  want_count(d, 2);
  in.dst = dst_operand(d, 0, in.type == DataType::Pred);
  in.src[0] = src_operand(d, 1, in.type);
  in.num_src = 1;
}

void Decoder::check_float_only_modifiers(Dec& d) {
  const Instruction& in = d.in;
  if (in.rnd != Rounding::None && !type_is_float(in.type)) unsupported(d);
  if ((in.ftz) && !type_is_float(in.type)) unsupported(d);
}

bool Decoder::has_carry_out(const Dec& d) {
  return std::find(d.mods.begin(), d.mods.end(), sv("cc")) != d.mods.end();
}

void Decoder::decode_carry_chain(Dec& d, sv base) {
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

void Decoder::decode_mov(Dec& d, sv /*base*/) {
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

void Decoder::decode_cvt(Dec& d, sv /*base*/) {
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

void Decoder::decode_cvta(Dec& d, sv /*base*/) {
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

void Decoder::decode_add_sub(Dec& d, sv base) {
  if (has_carry_out(d)) return decode_carry_chain(d, base);
  Instruction& in = d.in;
  mods(d, [&](sv m) { return float_rounding_modifier(in, m) || ftz_sat_modifier(in, m); });
  decode_binary(d, base == "add" ? Opcode::Add : Opcode::Sub, kU | kS | kF | kHalf);
  check_float_only_modifiers(d);
  check_half_modifiers(d);
  if (in.sat && in.type != DataType::S32 && !type_is_float(in.type)) unsupported(d);
}

void Decoder::decode_mul_mad(Dec& d, sv base) {
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

void Decoder::decode_mul24_mad24(Dec& d, sv base) {
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

void Decoder::decode_div(Dec& d, sv /*base*/) {
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

void Decoder::decode_rem(Dec& d, sv /*base*/) {
  mods(d, [](sv) { return false; });
  decode_binary(d, Opcode::Rem, kU | kS);
}

void Decoder::decode_abs_neg(Dec& d, sv base) {
  Instruction& in = d.in;
  mods(d, [&](sv m) { return m == "ftz" && (in.ftz = true); });
  decode_unary(d, base == "abs" ? Opcode::Abs : Opcode::Neg, kS | kF | kHalf);
  check_float_only_modifiers(d);
  if (in.ftz && (in.type == DataType::BF16 || in.type == DataType::BF16x2)) unsupported(d);
}

void Decoder::decode_min_max(Dec& d, sv base) {
  Instruction& in = d.in;
  mods(d, [&](sv m) {
    if (m == "NaN") return in.nan_out = true;
    return m == "ftz" && (in.ftz = true);
  });
  decode_binary(d, base == "min" ? Opcode::Min : Opcode::Max, kU | kS | kF | kHalf);
  check_float_only_modifiers(d);
  check_half_modifiers(d);
}

void Decoder::decode_fma(Dec& d, sv /*base*/) {
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

void Decoder::decode_rcp_sqrt_rsqrt(Dec& d, sv base) {
  Instruction& in = d.in;
  mods(d, [&](sv m) {
    if (m == "approx") return in.approx = true;
    return float_rounding_modifier(in, m) || (m == "ftz" && (in.ftz = true));
  });
  decode_unary(d, base == "rcp" ? Opcode::Rcp : base == "sqrt" ? Opcode::Sqrt : Opcode::Rsqrt, kF);
  if (base == "rsqrt" ? !in.approx : (in.approx == (in.rnd != Rounding::None)))
    fail(*d.op_tok, "'" + std::string(d.full) + "' needs " + (base == "rsqrt" ? ".approx" : ".approx or a rounding mode"));
}

void Decoder::decode_ex2_lg2_sin_cos_tanh(Dec& d, sv base) {
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

void Decoder::decode_copysign(Dec& d, sv /*base*/) {
  mods(d, [](sv) { return false; });
  decode_binary(d, Opcode::Copysign, kF);
}

void Decoder::decode_testp(Dec& d, sv /*base*/) {
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

void Decoder::decode_and_or_xor(Dec& d, sv base) {
  mods(d, [](sv) { return false; });
  decode_binary(d, base == "and" ? Opcode::And : base == "or" ? Opcode::Or : Opcode::Xor, kB | kP);
}

void Decoder::decode_not_cnot(Dec& d, sv base) {
  mods(d, [](sv) { return false; });
  decode_unary(d, base == "not" ? Opcode::Not : Opcode::Cnot, base == "not" ? (kB | kP) : kB);
}

void Decoder::decode_shl_shr(Dec& d, sv base) {
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

void Decoder::decode_popc_clz_brev(Dec& d, sv base) {
  mods(d, [](sv) { return false; });
  decode_unary(d, base == "popc" ? Opcode::Popc : base == "clz" ? Opcode::Clz : Opcode::Brev,
        bit(DataType::B32) | bit(DataType::B64));
}

void Decoder::decode_bfe(Dec& d, sv /*base*/) {
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

void Decoder::decode_bfi(Dec& d, sv /*base*/) {
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

void Decoder::decode_bfind(Dec& d, sv /*base*/) {
  Instruction& in = d.in;
  mods(d, [&](sv m) { return m == "shiftamt" && (in.shiftamt = true); });
  in.op = Opcode::Bfind;
  in.type = one_type(d, bit(DataType::U32) | bit(DataType::S32) | bit(DataType::U64) | bit(DataType::S64));
  want_count(d, 2);
  in.dst = dst_operand(d, 0, false);
  in.src[0] = src_operand(d, 1, in.type);
  in.num_src = 1;
}

void Decoder::decode_prmt(Dec& d, sv /*base*/) {
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

void Decoder::decode_shf(Dec& d, sv /*base*/) {
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

void Decoder::decode_setp_set(Dec& d, sv base) {
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

void Decoder::decode_selp(Dec& d, sv /*base*/) {
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

void Decoder::decode_slct(Dec& d, sv /*base*/) {
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

void Decoder::decode_ld_st_op(Dec& d, sv base) {
  decode_ld_st(d, base == "ld");
}

void Decoder::decode_atom_red(Dec& d, sv base) {
  decode_atom(d, base == "red");
}

void Decoder::decode_prefetch(Dec& d, sv /*base*/) {
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

void Decoder::decode_membar_fence(Dec& d, sv base) {
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

void Decoder::decode_shfl(Dec& d, sv /*base*/) {
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

void Decoder::decode_vote(Dec& d, sv /*base*/) {
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

void Decoder::decode_activemask(Dec& d, sv /*base*/) {
  Instruction& in = d.in;
  mods(d, [](sv) { return false; });
  in.op = Opcode::Activemask;
  in.type = one_type(d, bit(DataType::B32));
  want_count(d, 1);
  in.dst = dst_operand(d, 0, false);
}

void Decoder::decode_match(Dec& d, sv /*base*/) {
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

void Decoder::decode_bra(Dec& d, sv /*base*/) {
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

void Decoder::decode_dp4a_dp2a(Dec& d, sv base) {
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

void Decoder::decode_sad(Dec& d, sv /*base*/) {
  Instruction& in = d.in;
  mods(d, [](sv) { return false; });
  in.op = Opcode::Sad;
  in.type = one_type(d, kU | kS);
  want_count(d, 4);
  in.dst = dst_operand(d, 0, false);
  for (size_t i = 1; i < 4; ++i) in.src[i - 1] = src_operand(d, i, in.type);
  in.num_src = 3;
}

void Decoder::decode_fns(Dec& d, sv /*base*/) {
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

void Decoder::decode_brkpt_pmevent(Dec& d, sv base) {
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

void Decoder::decode_lop3(Dec& d, sv /*base*/) {
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

void Decoder::decode_nanosleep(Dec& d, sv /*base*/) {
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

void Decoder::decode_tex_tld4_op(Dec& d, sv base) {
  decode_tex(d, base == "tld4");
}

void Decoder::decode_suld_sust_op(Dec& d, sv base) {
  decode_surface(d, base == "suld");
}

void Decoder::decode_ret_exit_trap_nop(Dec& d, sv base) {
  Instruction& in = d.in;
  mods(d, [&](sv m) { return base == "ret" && m == "uni" && (in.uni = true); });
  if (!d.types.empty()) bad_type(d, d.types[0]);
  in.op = base == "ret" ? Opcode::Ret : base == "exit" ? Opcode::Exit : base == "trap" ? Opcode::Trap : Opcode::Nop;
  want_count(d, 0);
}

void Decoder::decode_video_op(Dec& d, sv base) {
  const auto v = video_op_of(base);
  decode_video(d, v->first, v->second);
}

const std::unordered_map<sv, Decoder::DecodeHandler>& Decoder::decode_table() {
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

Decoder::DecodeHandler Decoder::find_decoder(sv base) {
  const auto& t = decode_table();
  const auto it = t.find(base);
  return it == t.end() ? nullptr : it->second;
}

void Decoder::decode_wmma(Dec& d, sv /*base*/) {
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

void Decoder::decode_bmsk_szext(Dec& d, sv base) {
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

std::optional<std::pair<VideoOp, uint8_t>> Decoder::video_op_of(sv base) {
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

sv Decoder::split_selector(RawOp& r) {
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

uint8_t Decoder::scalar_selector(const Dec& d, const RawOp& r, sv sel) {
  if (sel.size() == 2 && sel[0] == 'b' && sel[1] >= '0' && sel[1] <= '3') return uint8_t(sel[1] - '0');
  if (sel.size() == 2 && sel[0] == 'h' && (sel[1] == '0' || sel[1] == '1'))
    return uint8_t(kVideoSelH0 + (sel[1] - '0'));
  fail(*r.tok, "'" + std::string(d.full) + "': bad selector '." + std::string(sel) +
                   "' (expected .b0, .b1, .b2, .b3, .h0 or .h1)");
}

uint16_t Decoder::simd_selector(const Dec& d, const RawOp& r, sv sel, unsigned lanes) {
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

uint8_t Decoder::simd_mask(const Dec& d, const RawOp& r, sv sel, unsigned lanes) {
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

void Decoder::decode_video(Dec& d, VideoOp op, uint8_t lanes) {
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

void Decoder::decode_ld_st(Dec& d, bool is_ld) {
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

unsigned Decoder::tex_coord_count(TexGeom g) {
  switch (g) {
    case TexGeom::D1: return 1;
    case TexGeom::D2: case TexGeom::A1D: return 2;
    default: return 4;
  }
}

bool Decoder::tex_geom_mod(sv m, TexGeom& g, bool& have) {
  static const std::pair<sv, TexGeom> table[] = {{"1d", TexGeom::D1},   {"2d", TexGeom::D2},
                                                 {"3d", TexGeom::D3},   {"a1d", TexGeom::A1D},
                                                 {"a2d", TexGeom::A2D}, {"cube", TexGeom::Cube}};
  for (auto& [n, v] : table)
    if (n == m && !have) return g = v, have = true;
  return false;
}

Operand Decoder::tex_handle_operand(const Dec& d, size_t i) {
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

Operand Decoder::tex_coord_operand(const Dec& d, size_t i, unsigned want) {
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

void Decoder::decode_tex(Dec& d, bool tld4) {
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

void Decoder::decode_surface(Dec& d, bool is_ld) {
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
  // Formatted (.p) access is not what CUDA's surf*read/write emit; cubemap
  // surfaces are not in the ISA's suld/sust geometries.
  if (!raw || !geom || in.tex_geom == TexGeom::Cube) unsupported(d);
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

void Decoder::decode_atom(Dec& d, bool is_red) {
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

void Decoder::decode_bar(Dec& d, sv /*base*/) {
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

void Decoder::decode_call(Dec& d, size_t p, size_t e) {
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
  if (sv feature = unsupported_device_runtime_feature(fn.name); !feature.empty())
    fail(*fn.tok, "unsupported: " + std::string(feature) + " in kernel '" + cur_->name + "' (call of '" +
                      std::string(fn.name) + "')");

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

sv Decoder::unsupported_device_runtime_feature(sv name) {
  if (name.rfind("__cudaCDP", 0) == 0 || name == "cudaLaunchDevice" || name == "cudaLaunchDeviceV2" ||
      name == "cudaGetParameterBuffer" || name == "cudaGetParameterBufferV2")
    return "dynamic parallelism (device-side kernel launch)";
  // cudaGraphLaunch, cudaGraphSetConditional, cudaGraphKernelNodeSetParam, ...
  if (name.rfind("cudaGraph", 0) == 0) return "device-side CUDA graph call (graph launch, conditional or node update)";
  return {};
}

BuiltinFunction Decoder::builtin_of(sv name) {
  static const std::pair<sv, BuiltinFunction> table[] = {{"vprintf", BuiltinFunction::Vprintf},
                                                         {"malloc", BuiltinFunction::Malloc},
                                                         {"free", BuiltinFunction::Free},
                                                         {"__assertfail", BuiltinFunction::AssertFail}};
  return look_up_name(table, name).value_or(BuiltinFunction::None);
}

const Decl& Decoder::call_param_block(const RawOp& fn, sv name) {
  RawOp tmp;
  tmp.tok = fn.tok;
  const Decl& v = var_decl(tmp, name);
  if (home_space(v) != StateSpace::Local || v.space != StateSpace::Param)
    fail(*fn.tok, "call argument '" + std::string(name) + "' is not a .param declared in the caller");
  return v;
}

void Decoder::decode_builtin_call(Dec& d, const RawOp& fn, const FuncDef& callee, const std::vector<sv>& rets,
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

void Decoder::decode_indirect_call(Dec& d, const RawOp& fn, const std::vector<sv>& rets, const std::vector<sv>& args,
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

UnitClass Decoder::unit_of(const Instruction& in) {
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

}  // namespace tlmgpu::ptx::decoding
