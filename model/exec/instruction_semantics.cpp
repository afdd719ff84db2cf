// Functional semantics of every PTX data instruction, per the PTX ISA.
//
// Register convention: a register holds 64 bits per lane whatever its
// declared type. Readers always truncate to the instruction's type; writers
// store the value zero-extended from the type's width, except where PTX lets
// the destination register be wider than the type (ld, cvt), where signed
// types are sign-extended to 64 bits. So ld.s8 into %rd, st.u32 of %rd and
// cvt.s32.s8 come out right.
//
// Speed: the opcode/type dispatch happens once per instruction; the lane
// loops below are small lambdas over raw lane arrays (full warps take a
// straight loop the compiler can vectorise, partial ones walk the set bits).
#include <algorithm>
#include <cmath>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#include <cstring>
#include <string>
#include <type_traits>

#include "core/int_ops.h"
#include "core/issue_order_gate.h"
#include "memory/device_memory.h"
#include "model/exec/cta.h"
#include "model/exec/texture_unit.h"
#include "model/exec/video_ops.h"
#include "model/exec/warp.h"
#include "model/ptx/float_ops.h"
#include "model/ptx/half_ops.h"

namespace tlmgpu::exec {

namespace intops = core::intops;

namespace {

using ptx::AtomOp;
using ptx::CmpOp;
using ptx::DataType;
using ptx::Instruction;
using ptx::Opcode;
using ptx::Operand;
using ptx::OperandKind;
using ptx::Rounding;
using ptx::StateSpace;

constexpr uint32_t kAllLanes = 0xffffffffu;
constexpr unsigned kLanes = ptx::kWarpSize;

/// Storage type of an f16 value (arithmetic goes through float).
struct Half {
  uint16_t bits;
};

template <typename T>
struct Tag {
  using type = T;
};

template <typename F>
inline __attribute__((always_inline)) void for_lanes(uint32_t mask, F&& f) {
  if (mask == kAllLanes) {
    for (unsigned l = 0; l < kLanes; ++l) f(l);
  } else {
    for (uint32_t m = mask; m; m &= m - 1) f(unsigned(__builtin_ctz(m)));
  }
}

// ------------------------------------------------------------ value access

template <typename T>
inline T get(uint64_t v) {
  if constexpr (std::is_same_v<T, float>) return fp::f32(uint32_t(v));
  else if constexpr (std::is_same_v<T, double>) return fp::f64(v);
  else if constexpr (std::is_same_v<T, Half>) return Half{uint16_t(v)};
  else return T(v);
}

/// Register bits of a value: zero-extended from its width.
template <typename T>
inline uint64_t put(T v) {
  if constexpr (std::is_same_v<T, float>) return fp::bits(v);
  else if constexpr (std::is_same_v<T, double>) return fp::bits(v);
  else if constexpr (std::is_same_v<T, Half>) return v.bits;
  else return uint64_t(std::make_unsigned_t<T>(v));
}

/// Register bits for a destination that may be wider than the type (cvt):
/// signed integers sign-extended to 64 bits.
template <typename T>
inline uint64_t put_wide(T v) {
  if constexpr (std::is_integral_v<T> && std::is_signed_v<T>) return uint64_t(int64_t(v));
  else return put(v);
}

/// A float-like value widened for computation (f16 -> float).
template <typename T>
inline auto widen(T v) {
  if constexpr (std::is_same_v<T, Half>) return fp::half_to_float(v.bits);
  else return v;
}

template <typename T>
constexpr bool kIsFloat = std::is_floating_point_v<T> || std::is_same_v<T, Half>;

// ------------------------------------------------------------ type dispatch

/// f(Tag<T>) for an integer type (bit types as unsigned); false if not one.
template <typename F>
bool with_int(DataType t, F&& f) {
  switch (t) {
    case DataType::B8: case DataType::U8: f(Tag<uint8_t>{}); return true;
    case DataType::B16: case DataType::U16: f(Tag<uint16_t>{}); return true;
    case DataType::B32: case DataType::U32: f(Tag<uint32_t>{}); return true;
    case DataType::B64: case DataType::U64: f(Tag<uint64_t>{}); return true;
    case DataType::S8: f(Tag<int8_t>{}); return true;
    case DataType::S16: f(Tag<int16_t>{}); return true;
    case DataType::S32: f(Tag<int32_t>{}); return true;
    case DataType::S64: f(Tag<int64_t>{}); return true;
    default: return false;
  }
}

/// f(Tag<T>) for f32 / f64.
template <typename F>
bool with_float(DataType t, F&& f) {
  switch (t) {
    case DataType::F32: f(Tag<float>{}); return true;
    case DataType::F64: f(Tag<double>{}); return true;
    default: return false;
  }
}

/// Integers, f16 (as Half), f32, f64.
template <typename F>
bool with_any(DataType t, F&& f) {
  if (t == DataType::F16) {
    f(Tag<Half>{});
    return true;
  }
  return with_float(t, f) || with_int(t, f);
}

// ------------------------------------------------------------ operands

[[noreturn]] __attribute__((cold, noinline)) void unsupported(const Instruction& in, uint32_t mask, Warp& w,
                                                               const std::string& why) {
  std::string what = std::string("unsupported instruction ") + ptx::opcode_name(in.op);
  if (in.type != DataType::None) what += std::string(".") + ptx::type_name(in.type);
  if (in.type2 != DataType::None) what += std::string(".") + ptx::type_name(in.type2);
  if (!why.empty()) what += ": " + why;
  w.fault(FaultKind::Unsupported, what, mask ? unsigned(__builtin_ctz(mask)) : 0, 0);
}

inline void fill(uint64_t* s, uint64_t v) {
  for (unsigned l = 0; l < kLanes; ++l) s[l] = v;
}

inline uint32_t pred_value(const Operand& o, const Warp& w) {
  if (o.kind == OperandKind::Pred) return o.negate ? ~w.pred(o.reg) : w.pred(o.reg);
  if (o.kind == OperandKind::Imm) return o.imm ? kAllLanes : 0;
  return 0;
}

/// Lane values of a non-register source operand: `scratch` filled with the
/// immediate / special register / address / predicate bit.
const uint64_t* lanes_of_slow(const Instruction& in, const Operand& o, uint32_t mask, Warp& w, uint64_t* scratch) {
  switch (o.kind) {
    case OperandKind::Reg:
      return w.reg(o.reg);
    case OperandKind::Imm:
    case OperandKind::Symbol:
    case OperandKind::Label:
      fill(scratch, o.imm);
      return scratch;
    case OperandKind::Special:
      w.special_lanes(o.sreg, mask, scratch);
      return scratch;
    case OperandKind::Pred: {
      const uint32_t p = pred_value(o, w);
      for (unsigned l = 0; l < kLanes; ++l) scratch[l] = (p >> l) & 1u;
      return scratch;
    }
    case OperandKind::Address:
      if (o.reg == ptx::kNoReg) {
        fill(scratch, o.imm);
      } else {
        const uint64_t* r = w.reg(o.reg);
        for_lanes(mask, [&](unsigned l) { scratch[l] = r[l] + o.imm; });
      }
      return scratch;
    default:
      unsupported(in, mask, w, "unexpected operand kind");
  }
}

/// Lane values of a source operand (the register array itself for a register).
inline const uint64_t* lanes_of(const Instruction& in, const Operand& o, uint32_t mask, Warp& w, uint64_t* scratch) {
  if (o.kind == OperandKind::Reg) return w.reg(o.reg);
  return lanes_of_slow(in, o, mask, w, scratch);
}

inline __attribute__((always_inline)) uint64_t* dst_reg(const Instruction& in, uint32_t mask, Warp& w) {
  if (in.dst.kind != OperandKind::Reg || in.dst.reg == ptx::kNoReg)
    unsupported(in, mask, w, "destination must be a register");
  return w.reg(in.dst.reg);
}

/// Predicate write for the lanes in mask.
inline void write_pred(Warp& w, const Operand& o, uint32_t value, uint32_t mask) {
  if (o.kind != OperandKind::Pred || o.reg == ptx::kNoReg) return;
  uint32_t& p = w.pred(o.reg);
  p = (p & ~mask) | (value & mask);
}

using Scratch = uint64_t[kLanes];

// map1/map2/map3: d = f(sources) per lane. The usual operands (registers,
// an immediate second source) take a loop that needs no scratch lanes; the
// rest goes through a separate function, so that callers get no 64-byte
// aligned frame for the scratch arrays on the common path.

inline bool is_reg(const Operand& o) { return o.kind == OperandKind::Reg && o.reg != ptx::kNoReg; }

template <typename F>
[[gnu::noinline]] void map1_general(const Instruction& in, uint32_t mask, Warp& w, F f) {
  alignas(64) Scratch s0;
  const uint64_t* a = lanes_of(in, in.src[0], mask, w, s0);
  uint64_t* d = dst_reg(in, mask, w);
  for_lanes(mask, [&](unsigned l) { d[l] = f(a[l]); });
}

template <typename F>
inline void map1(const Instruction& in, uint32_t mask, Warp& w, F f) {
  if (is_reg(in.dst) && in.src[0].kind == OperandKind::Reg) {
    const uint64_t* a = w.reg(in.src[0].reg);
    uint64_t* d = w.reg(in.dst.reg);
    for_lanes(mask, [&](unsigned l) { d[l] = f(a[l]); });
    return;
  }
  map1_general(in, mask, w, f);
}

template <typename F>
[[gnu::noinline]] void map2_general(const Instruction& in, uint32_t mask, Warp& w, F f) {
  alignas(64) Scratch s0, s1;
  const uint64_t* a = lanes_of(in, in.src[0], mask, w, s0);
  const uint64_t* b = lanes_of(in, in.src[1], mask, w, s1);
  uint64_t* d = dst_reg(in, mask, w);
  for_lanes(mask, [&](unsigned l) { d[l] = f(a[l], b[l]); });
}

template <typename F>
inline void map2(const Instruction& in, uint32_t mask, Warp& w, F f) {
  if (is_reg(in.dst) && in.src[0].kind == OperandKind::Reg) {
    const uint64_t* a = w.reg(in.src[0].reg);
    uint64_t* d = w.reg(in.dst.reg);
    if (in.src[1].kind == OperandKind::Reg) {
      const uint64_t* b = w.reg(in.src[1].reg);
      for_lanes(mask, [&](unsigned l) { d[l] = f(a[l], b[l]); });
      return;
    }
    if (in.src[1].kind == OperandKind::Imm) {
      const uint64_t b = in.src[1].imm;
      for_lanes(mask, [&](unsigned l) { d[l] = f(a[l], b); });
      return;
    }
  }
  map2_general(in, mask, w, f);
}

template <typename F>
[[gnu::noinline]] void map3_general(const Instruction& in, uint32_t mask, Warp& w, F f) {
  alignas(64) Scratch s0, s1, s2;
  const uint64_t* a = lanes_of(in, in.src[0], mask, w, s0);
  const uint64_t* b = lanes_of(in, in.src[1], mask, w, s1);
  const uint64_t* c = lanes_of(in, in.src[2], mask, w, s2);
  uint64_t* d = dst_reg(in, mask, w);
  for_lanes(mask, [&](unsigned l) { d[l] = f(a[l], b[l], c[l]); });
}

template <typename F>
inline void map3(const Instruction& in, uint32_t mask, Warp& w, F f) {
  if (is_reg(in.dst) && in.src[0].kind == OperandKind::Reg && in.src[1].kind == OperandKind::Reg &&
      in.src[2].kind == OperandKind::Reg) {
    const uint64_t* a = w.reg(in.src[0].reg);
    const uint64_t* b = w.reg(in.src[1].reg);
    const uint64_t* c = w.reg(in.src[2].reg);
    uint64_t* d = w.reg(in.dst.reg);
    for_lanes(mask, [&](unsigned l) { d[l] = f(a[l], b[l], c[l]); });
    return;
  }
  map3_general(in, mask, w, f);
}

template <typename F>
inline void map4(const Instruction& in, uint32_t mask, Warp& w, F f) {
  alignas(64) Scratch s0, s1, s2, s3;
  const uint64_t* a = lanes_of(in, in.src[0], mask, w, s0);
  const uint64_t* b = lanes_of(in, in.src[1], mask, w, s1);
  const uint64_t* c = lanes_of(in, in.src[2], mask, w, s2);
  const uint64_t* e = lanes_of(in, in.src[3], mask, w, s3);
  uint64_t* d = dst_reg(in, mask, w);
  for_lanes(mask, [&](unsigned l) { d[l] = f(a[l], b[l], c[l], e[l]); });
}

// ------------------------------------------------------------ float arithmetic

/// Runs a float operation over the lanes with the instruction's rounding,
/// .ftz (f32 inputs and result) and .sat. `op` takes and returns T. The
/// plain form (no modifier) is a separate instantiation so that it vectorises.
template <typename T, int N, typename Op>
void float_op(const Instruction& in, uint32_t mask, Warp& w, Op op) {
  const bool flush = in.ftz && std::is_same_v<T, float>;
  const bool sat = in.sat;
  const bool pin = fp::is_directed(in.rnd);
  auto run = [&](auto cond, auto post) {
    if constexpr (N == 1) {
      map1(in, mask, w, [&](uint64_t a) { return put<T>(post(op(cond(get<T>(a))))); });
    } else if constexpr (N == 2) {
      map2(in, mask, w, [&](uint64_t a, uint64_t b) { return put<T>(post(op(cond(get<T>(a)), cond(get<T>(b))))); });
    } else {
      map3(in, mask, w, [&](uint64_t a, uint64_t b, uint64_t c) {
        return put<T>(post(op(cond(get<T>(a)), cond(get<T>(b)), cond(get<T>(c)))));
      });
    }
  };
  if (!flush && !sat && !pin) {
    run([](T v) { return v; }, [](T r) { return r; });
    return;
  }
  if (flush && !sat && !pin) {  // fast-math code: .ftz everywhere
    run([](T v) { return fp::ftz(v); }, [](T r) { return fp::ftz(r); });
    return;
  }
  // Under a directed rounding mode values are pinned (fp::opaque) so that
  // the operation happens inside the RoundingScope.
  auto cond = [flush, pin](T v) {
    if (flush) v = fp::ftz(v);
    return pin ? fp::opaque(v) : v;
  };
  auto post = [flush, sat, pin](T r) {
    if (pin) r = fp::opaque(r);
    if (flush) r = fp::ftz(r);
    return sat ? fp::saturate(r) : r;
  };
  if (pin) {
    fp::RoundingScope scope(in.rnd);
    run(cond, post);
  } else {
    run(cond, post);
  }
}

// ------------------------------------------------------------ f16 / bf16 (and packed pairs)

fp::HalfArith half_arith(const Instruction& in, DataType type) {
  fp::HalfArith m;
  m.format = fp::half_format_of(type);
  m.ftz = in.ftz;
  m.sat = in.sat;
  m.relu = in.relu;
  m.propagate_nan = in.nan_out;
  return m;
}

/// d = op(sources) on 16-bit floats: once for f16/bf16, on each half of the
/// register for f16x2/bf16x2 (element 0 in bits 0..15).
template <int N, typename Op>
void half_lanes(const Instruction& in, uint32_t mask, Warp& w, Op op) {
  const bool packed = ptx::type_is_packed_half(in.type);
  auto both = [packed, &op](auto... v) -> uint64_t {
    const uint64_t lo = op(uint16_t(v)...);
    if (!packed) return lo;
    return lo | (uint64_t(op(uint16_t(v >> 16)...)) << 16);
  };
  if constexpr (N == 1) map1(in, mask, w, [&](uint64_t a) { return both(a); });
  else if constexpr (N == 2) map2(in, mask, w, [&](uint64_t a, uint64_t b) { return both(a, b); });
  else map3(in, mask, w, [&](uint64_t a, uint64_t b, uint64_t c) { return both(a, b, c); });
}

/// add sub mul fma min max neg abs ex2 tanh on f16, bf16, f16x2, bf16x2.
[[gnu::noinline]] void exec_half(const Instruction& in, uint32_t mask, Warp& w) {
  const fp::HalfArith m = half_arith(in, in.type);
  using H = uint16_t;
  switch (in.op) {
    case Opcode::Add: half_lanes<2>(in, mask, w, [&m](H a, H b) { return fp::half_add(a, b, m); }); return;
    case Opcode::Sub: half_lanes<2>(in, mask, w, [&m](H a, H b) { return fp::half_sub(a, b, m); }); return;
    case Opcode::Mul: half_lanes<2>(in, mask, w, [&m](H a, H b) { return fp::half_mul(a, b, m); }); return;
    case Opcode::Fma: case Opcode::Mad:
      half_lanes<3>(in, mask, w, [&m](H a, H b, H c) { return fp::half_fma(a, b, c, m); });
      return;
    case Opcode::Min: half_lanes<2>(in, mask, w, [&m](H a, H b) { return fp::half_min(a, b, m); }); return;
    case Opcode::Max: half_lanes<2>(in, mask, w, [&m](H a, H b) { return fp::half_max(a, b, m); }); return;
    case Opcode::Neg: half_lanes<1>(in, mask, w, [&m](H a) { return fp::half_neg(a, m); }); return;
    case Opcode::Abs: half_lanes<1>(in, mask, w, [&m](H a) { return fp::half_abs(a, m); }); return;
    case Opcode::Ex2: half_lanes<1>(in, mask, w, [&m](H a) { return fp::half_ex2(a, m); }); return;
    case Opcode::Tanh: half_lanes<1>(in, mask, w, [&m](H a) { return fp::half_tanh(a, m); }); return;
    default: unsupported(in, mask, w, "no 16-bit float form");
  }
}

// Fused multiply-add over full warps without a libm call per lane when the
// host has FMA (the hottest float instruction of real kernels). Not under
// ThreadSanitizer: the clones' resolver runs at load time, before its
// runtime is ready, and crashes the program.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(__SANITIZE_THREAD__)
#define TLMGPU_FMA_CLONES __attribute__((target_clones("fma", "default")))
#else
#define TLMGPU_FMA_CLONES
#endif

/// fma.rn.f32 (flush: fma.rn.ftz.f32, inputs and result flushed).
TLMGPU_FMA_CLONES
void fma_f32_lanes(const uint64_t* a, const uint64_t* b, const uint64_t* c, uint64_t* d, uint32_t mask,
                   bool flush) {
  auto in = [](uint64_t v) { return fp::f32(uint32_t(v)); };
  auto in_ftz = [](uint64_t v) { return fp::ftz(fp::f32(uint32_t(v))); };
  if (mask == kAllLanes) {
    float r[kLanes];
    if (flush) {
      for (unsigned l = 0; l < kLanes; ++l) r[l] = fp::ftz(__builtin_fmaf(in_ftz(a[l]), in_ftz(b[l]), in_ftz(c[l])));
    } else {
      for (unsigned l = 0; l < kLanes; ++l) r[l] = __builtin_fmaf(in(a[l]), in(b[l]), in(c[l]));
    }
    for (unsigned l = 0; l < kLanes; ++l) d[l] = fp::bits(r[l]);
    return;
  }
  for (uint32_t m = mask; m; m &= m - 1) {
    const unsigned l = unsigned(__builtin_ctz(m));
    const float r = flush ? fp::ftz(__builtin_fmaf(in_ftz(a[l]), in_ftz(b[l]), in_ftz(c[l])))
                          : __builtin_fmaf(in(a[l]), in(b[l]), in(c[l]));
    d[l] = fp::bits(r);
  }
}

TLMGPU_FMA_CLONES
void fma_f64_lanes(const uint64_t* a, const uint64_t* b, const uint64_t* c, uint64_t* d, uint32_t mask) {
  for_lanes(mask, [&](unsigned l) { d[l] = fp::bits(__builtin_fma(fp::f64(a[l]), fp::f64(b[l]), fp::f64(c[l]))); });
}

[[gnu::noinline]] void exec_fma(const Instruction& in, uint32_t mask, Warp& w) {
  if (!fp::is_directed(in.rnd) && !in.sat && (in.type == DataType::F32 || in.type == DataType::F64)) {
    alignas(64) Scratch s0, s1, s2;
    const uint64_t* a = lanes_of(in, in.src[0], mask, w, s0);
    const uint64_t* b = lanes_of(in, in.src[1], mask, w, s1);
    const uint64_t* c = lanes_of(in, in.src[2], mask, w, s2);
    uint64_t* d = dst_reg(in, mask, w);
    if (in.type == DataType::F32) fma_f32_lanes(a, b, c, d, mask, in.ftz);
    else fma_f64_lanes(a, b, c, d, mask);
    return;
  }
  if (ptx::type_is_half(in.type)) {
    exec_half(in, mask, w);
    return;
  }
  if (!with_float(in.type, [&](auto tag) {
        using T = typename decltype(tag)::type;
        float_op<T, 3>(in, mask, w, [](T a, T b, T c) { return std::fma(a, b, c); });
      }))
    unsupported(in, mask, w, "");
}

// ------------------------------------------------------------ carry chain

/// add.cc/addc, sub.cc/subc, mad.cc/madc on the unsigned type U of the
/// instruction's width (signed and unsigned behave alike, except the high half
/// of a signed product). The flag is the carry out of the width; for sub/subc
/// it is the borrow, so that subc computes d = a - (b + CF) as the ISA says.
template <typename U>
[[gnu::noinline]] void carry_arith(const Instruction& in, uint32_t mask, Warp& w) {
  alignas(64) Scratch s0, s1, s2;
  const uint64_t* a = lanes_of(in, in.src[0], mask, w, s0);
  const uint64_t* b = lanes_of(in, in.src[1], mask, w, s1);
  const uint64_t* c = in.num_src > 2 ? lanes_of(in, in.src[2], mask, w, s2) : nullptr;
  uint64_t* d = dst_reg(in, mask, w);
  uint32_t& flags = w.carry_flags();
  const uint32_t old_flags = flags;
  uint32_t new_flags = 0;
  constexpr unsigned bits = sizeof(U) * 8;
  const bool is_signed = ptx::type_is_signed(in.type);
  for_lanes(mask, [&](unsigned l) {
    const U cin = in.carry_in ? U((old_flags >> l) & 1u) : U(0);
    const U x = U(a[l]), y = U(b[l]);
    U result;
    bool cout;
    if (in.op == Opcode::SubCarry) {
      const U t = U(x - y);
      result = U(t - cin);
      cout = y > x || cin > t;
    } else {
      U addend = y;
      U base = x;
      if (in.op == Opcode::MadCarry) {
        const unsigned __int128 prod = is_signed
            ? static_cast<unsigned __int128>(static_cast<__int128>(std::make_signed_t<U>(x)) *
                                             std::make_signed_t<U>(y))
            : static_cast<unsigned __int128>(x) * y;
        base = in.mul == ptx::MulMode::Hi ? U(prod >> bits) : U(prod);
        addend = U(c[l]);
      }
      const U t = U(base + addend);
      result = U(t + cin);
      cout = t < base || result < t;
    }
    d[l] = result;
    if (cout) new_flags |= 1u << l;
  });
  if (in.carry_out) flags = (old_flags & ~mask) | new_flags;
}

[[gnu::noinline]] void exec_carry(const Instruction& in, uint32_t mask, Warp& w) {
  if (type_bytes(in.type) == 8) carry_arith<uint64_t>(in, mask, w);
  else carry_arith<uint32_t>(in, mask, w);
}

// ------------------------------------------------------------ add sub mul mad

/// Integer add/sub without .sat; wrapping, so signed and unsigned types of
/// one width share the unsigned instantiation.
template <typename T>
[[gnu::noinline]] void add_sub_wrapping(const Instruction& in, uint32_t mask, Warp& w) {
  if (in.op == Opcode::Sub) map2(in, mask, w, [](uint64_t a, uint64_t b) { return put(intops::wrap_sub(get<T>(a), get<T>(b))); });
  else map2(in, mask, w, [](uint64_t a, uint64_t b) { return put(intops::wrap_add(get<T>(a), get<T>(b))); });
}

[[gnu::noinline]] void add_sub_sat_s32(const Instruction& in, uint32_t mask, Warp& w) {
  if (in.op == Opcode::Sub)
    map2(in, mask, w, [](uint64_t a, uint64_t b) { return put(intops::sat_add(int64_t(int32_t(a)) - int32_t(b))); });
  else
    map2(in, mask, w, [](uint64_t a, uint64_t b) { return put(intops::sat_add(int64_t(int32_t(a)) + int32_t(b))); });
}

[[gnu::noinline]] void add_sub_float(const Instruction& in, uint32_t mask, Warp& w) {
  const bool sub = in.op == Opcode::Sub;
  if (ptx::type_is_half(in.type)) {
    exec_half(in, mask, w);
    return;
  }
  if (!with_float(in.type, [&](auto tag) {
        using T = typename decltype(tag)::type;
        if (sub) float_op<T, 2>(in, mask, w, [](T a, T b) { return a - b; });
        else float_op<T, 2>(in, mask, w, [](T a, T b) { return a + b; });
      }))
    unsupported(in, mask, w, "");
}

/// One of the commonest instructions: a dispatch by type that needs no frame.
[[gnu::noinline]] void exec_add_sub(const Instruction& in, uint32_t mask, Warp& w) {
  switch (in.type) {
    case DataType::B8: case DataType::U8: case DataType::S8: add_sub_wrapping<uint8_t>(in, mask, w); return;
    case DataType::B16: case DataType::U16: case DataType::S16: add_sub_wrapping<uint16_t>(in, mask, w); return;
    case DataType::B32: case DataType::U32: add_sub_wrapping<uint32_t>(in, mask, w); return;
    case DataType::S32:
      if (in.sat) add_sub_sat_s32(in, mask, w);
      else add_sub_wrapping<uint32_t>(in, mask, w);
      return;
    case DataType::B64: case DataType::U64: case DataType::S64: add_sub_wrapping<uint64_t>(in, mask, w); return;
    default: add_sub_float(in, mask, w); return;  // f16, f32, f64 (anything else is unsupported there)
  }
}

/// The type twice as wide as T, same signedness (mul.wide / mad.wide).
template <typename T>
using Wide = std::conditional_t<
    sizeof(T) == 1, std::conditional_t<std::is_signed_v<T>, int16_t, uint16_t>,
    std::conditional_t<sizeof(T) == 2, std::conditional_t<std::is_signed_v<T>, int32_t, uint32_t>,
                       std::conditional_t<std::is_signed_v<T>, int64_t, uint64_t>>>;

[[gnu::noinline]] void exec_mul(const Instruction& in, uint32_t mask, Warp& w) {
  if (ptx::type_is_half(in.type)) {
    exec_half(in, mask, w);
    return;
  }
  if (with_float(in.type, [&](auto tag) {
        using T = typename decltype(tag)::type;
        float_op<T, 2>(in, mask, w, [](T a, T b) { return a * b; });
      }))
    return;
  if (!with_int(in.type, [&](auto tag) {
        using T = typename decltype(tag)::type;
        switch (in.mul) {
          case ptx::MulMode::Hi:
            map2(in, mask, w, [](uint64_t a, uint64_t b) { return put(intops::mul_hi(get<T>(a), get<T>(b))); });
            break;
          case ptx::MulMode::Wide:
            if constexpr (sizeof(T) < 8) {
              using W = Wide<T>;
              map2(in, mask, w, [](uint64_t a, uint64_t b) {
                return put(intops::wrap_mul(W(get<T>(a)), W(get<T>(b))));
              });
            } else {
              unsupported(in, mask, w, "mul.wide of a 64-bit type");
            }
            break;
          default:
            map2(in, mask, w, [](uint64_t a, uint64_t b) { return put(intops::wrap_mul(get<T>(a), get<T>(b))); });
            break;
        }
      }))
    unsupported(in, mask, w, "");
}

[[gnu::noinline]] void exec_mad(const Instruction& in, uint32_t mask, Warp& w) {
  if (ptx::type_is_float(in.type)) {
    exec_fma(in, mask, w);  // mad.f32 / mad.f64 are fused (sm_20 and later)
    return;
  }
  if (!with_int(in.type, [&](auto tag) {
        using T = typename decltype(tag)::type;
        switch (in.mul) {
          case ptx::MulMode::Hi:
            if (in.sat && std::is_same_v<T, int32_t>) {
              map3(in, mask, w, [](uint64_t a, uint64_t b, uint64_t c) {
                return put(intops::sat_add(int64_t(intops::mul_hi(int32_t(a), int32_t(b))) + int32_t(c)));
              });
            } else {
              map3(in, mask, w, [](uint64_t a, uint64_t b, uint64_t c) {
                return put(intops::wrap_add(intops::mul_hi(get<T>(a), get<T>(b)), get<T>(c)));
              });
            }
            break;
          case ptx::MulMode::Wide:
            if constexpr (sizeof(T) < 8) {
              using W = Wide<T>;
              map3(in, mask, w, [](uint64_t a, uint64_t b, uint64_t c) {
                return put(intops::wrap_add(intops::wrap_mul(W(get<T>(a)), W(get<T>(b))), get<W>(c)));
              });
            } else {
              unsupported(in, mask, w, "mad.wide of a 64-bit type");
            }
            break;
          default:
            map3(in, mask, w, [](uint64_t a, uint64_t b, uint64_t c) {
              return put(intops::wrap_add(intops::wrap_mul(get<T>(a), get<T>(b)), get<T>(c)));
            });
            break;
        }
      }))
    unsupported(in, mask, w, "");
}

/// mul24 / mad24: 24-bit operands, 48-bit product; .lo keeps bits 0..31, .hi bits 16..47.
[[gnu::noinline]] void exec_mul24(const Instruction& in, uint32_t mask, Warp& w) {
  const bool is_signed = in.type == DataType::S32;
  if (in.type != DataType::S32 && in.type != DataType::U32) unsupported(in, mask, w, "");
  const bool hi = in.mul == ptx::MulMode::Hi;
  auto product = [is_signed](uint64_t a, uint64_t b) -> int64_t {
    if (is_signed) {
      const int64_t x = int64_t(uint64_t(a) << 40) >> 40, y = int64_t(uint64_t(b) << 40) >> 40;
      return x * y;
    }
    return int64_t((a & 0xffffffu) * (b & 0xffffffu));
  };
  if (in.op == Opcode::Mul24) {
    map2(in, mask, w, [=](uint64_t a, uint64_t b) {
      const int64_t p = product(a, b);
      const uint32_t r = uint32_t(uint64_t(hi ? (p >> 16) : p));
      return is_signed ? put(int32_t(r)) : put(r);
    });
    return;
  }
  const bool sat = in.sat && is_signed && hi;
  map3(in, mask, w, [=](uint64_t a, uint64_t b, uint64_t c) {
    const int64_t p = product(a, b);
    const uint32_t part = uint32_t(uint64_t(hi ? (p >> 16) : p));
    if (sat) return put(intops::sat_add(int64_t(int32_t(part)) + int32_t(c)));
    const uint32_t r = part + uint32_t(c);
    return is_signed ? put(int32_t(r)) : put(r);
  });
}

// ------------------------------------------------- dot products, sad, fns

/// dp4a / dp2a.lo / dp2a.hi: a dot product of packed 8- or 16-bit elements,
/// each element sign- or zero-extended by its operand's type, plus c; the sum
/// wraps to 32 bits.
[[gnu::noinline]] void exec_dot_product(const Instruction& in, uint32_t mask, Warp& w) {
  const bool a_signed = type_is_signed(in.type), b_signed = type_is_signed(in.type2);
  auto element = [](uint32_t v, unsigned index, unsigned bits, bool is_signed) -> int64_t {
    const uint32_t raw = (v >> (index * bits)) & ((1u << bits) - 1u);
    if (!is_signed) return int64_t(raw);
    return int64_t(raw) - ((raw >> (bits - 1)) ? (int64_t(1) << bits) : 0);
  };
  if (in.op == Opcode::Dp4a) {
    map3(in, mask, w, [=](uint64_t a, uint64_t b, uint64_t c) {
      int64_t sum = 0;
      for (unsigned i = 0; i < 4; ++i)
        sum += element(uint32_t(a), i, 8, a_signed) * element(uint32_t(b), i, 8, b_signed);
      return put(uint32_t(uint64_t(sum) + c));
    });
    return;
  }
  const unsigned b_first = in.mul == ptx::MulMode::Hi ? 2 : 0;
  map3(in, mask, w, [=](uint64_t a, uint64_t b, uint64_t c) {
    const int64_t sum = element(uint32_t(a), 0, 16, a_signed) * element(uint32_t(b), b_first, 8, b_signed) +
                        element(uint32_t(a), 1, 16, a_signed) * element(uint32_t(b), b_first + 1, 8, b_signed);
    return put(uint32_t(uint64_t(sum) + c));
  });
}

/// lop3: each set bit k of the table adds the minterm (a or ~a) & (b or ~b) &
/// (c or ~c) chosen by k's bits 2, 1, 0.
[[gnu::noinline]] void exec_lop3(const Instruction& in, uint32_t mask, Warp& w) {
  const uint32_t table = uint32_t(in.src[3].imm);
  map3(in, mask, w, [table](uint64_t a64, uint64_t b64, uint64_t c64) {
    const uint32_t a = uint32_t(a64), b = uint32_t(b64), c = uint32_t(c64);
    uint32_t r = 0;
    for (unsigned k = 0; k < 8; ++k)
      if ((table >> k) & 1u) r |= ((k & 4) ? a : ~a) & ((k & 2) ? b : ~b) & ((k & 1) ? c : ~c);
    return put(r);
  });
}

/// sad: c + |a - b|, the difference taken in the operands' signedness.
[[gnu::noinline]] void exec_sad(const Instruction& in, uint32_t mask, Warp& w) {
  if (!with_int(in.type, [&](auto tag) {
        using T = typename decltype(tag)::type;
        map3(in, mask, w, [](uint64_t a, uint64_t b, uint64_t c) {
          const T x = get<T>(a), y = get<T>(b);
          using U = std::make_unsigned_t<T>;
          const U diff = x < y ? U(U(y) - U(x)) : U(U(x) - U(y));
          return put(T(U(diff + U(c))));
        });
      }))
    unsupported(in, mask, w, "");
}

/// fns: the bit position of the offset-th set bit of mask counting from base
/// (upwards for a positive offset, downwards for a negative one, base itself
/// for zero), or 0xffffffff when there is none.
[[gnu::noinline]] void exec_fns(const Instruction& in, uint32_t mask, Warp& w) {
  map3(in, mask, w, [](uint64_t m, uint64_t b, uint64_t o) {
    const uint32_t bits = uint32_t(m), base = uint32_t(b);
    const int32_t offset = int32_t(uint32_t(o));
    uint32_t found = 0xffffffffu;
    if (base > 31) return put(found);  // undefined in the ISA: report "not found"
    if (offset == 0) return put((bits >> base) & 1u ? base : found);
    const int step = offset > 0 ? 1 : -1;
    int64_t remaining = offset > 0 ? int64_t(offset) - 1 : -int64_t(offset) - 1;
    for (int pos = int(base); pos >= 0 && pos < 32; pos += step) {
      if (!((bits >> pos) & 1u)) continue;
      if (remaining == 0) {
        found = uint32_t(pos);
        break;
      }
      --remaining;
    }
    return put(found);
  });
}

// ------------------------------------------------------------ div rem and unary

[[gnu::noinline]] void exec_div(const Instruction& in, uint32_t mask, Warp& w) {
  // div.approx / div.full f32 are computed as exact IEEE division: within
  // their documented error bounds, and what a CPU reference computes.
  if (with_float(in.type, [&](auto tag) {
        using T = typename decltype(tag)::type;
        float_op<T, 2>(in, mask, w, [](T a, T b) { return a / b; });
      }))
    return;
  if (!with_int(in.type, [&](auto tag) {
        using T = typename decltype(tag)::type;
        map2(in, mask, w, [](uint64_t a, uint64_t b) { return put(intops::div(get<T>(a), get<T>(b))); });
      }))
    unsupported(in, mask, w, "");
}

[[gnu::noinline]] void exec_rem(const Instruction& in, uint32_t mask, Warp& w) {
  if (!with_int(in.type, [&](auto tag) {
        using T = typename decltype(tag)::type;
        map2(in, mask, w, [](uint64_t a, uint64_t b) { return put(intops::rem(get<T>(a), get<T>(b))); });
      }))
    unsupported(in, mask, w, "");
}

[[gnu::noinline]] void exec_abs_neg(const Instruction& in, uint32_t mask, Warp& w) {
  const bool neg = in.op == Opcode::Neg;
  if (ptx::type_is_half(in.type)) {  // sign-bit operations: exact, no rounding
    exec_half(in, mask, w);
    return;
  }
  if (with_float(in.type, [&](auto tag) {
        using T = typename decltype(tag)::type;
        if (neg) float_op<T, 1>(in, mask, w, [](T a) { return -a; });
        else float_op<T, 1>(in, mask, w, [](T a) { return std::fabs(a); });
      }))
    return;
  if (!with_int(in.type, [&](auto tag) {
        using T = typename decltype(tag)::type;
        if (neg) map1(in, mask, w, [](uint64_t a) { return put(intops::wrap_neg(get<T>(a))); });
        else map1(in, mask, w, [](uint64_t a) { return put(intops::abs(get<T>(a))); });
      }))
    unsupported(in, mask, w, "");
}

[[gnu::noinline]] void exec_min_max(const Instruction& in, uint32_t mask, Warp& w) {
  const bool mx = in.op == Opcode::Max;
  if (ptx::type_is_half(in.type)) {
    exec_half(in, mask, w);
    return;
  }
  if (with_float(in.type, [&](auto tag) {
        using T = typename decltype(tag)::type;
        if (mx) float_op<T, 2>(in, mask, w, [](T a, T b) { return fp::ptx_max(a, b); });
        else float_op<T, 2>(in, mask, w, [](T a, T b) { return fp::ptx_min(a, b); });
      }))
    return;
  if (!with_int(in.type, [&](auto tag) {
        using T = typename decltype(tag)::type;
        if (mx) map2(in, mask, w, [](uint64_t a, uint64_t b) { return put(std::max(get<T>(a), get<T>(b))); });
        else map2(in, mask, w, [](uint64_t a, uint64_t b) { return put(std::min(get<T>(a), get<T>(b))); });
      }))
    unsupported(in, mask, w, "");
}

/// rcp sqrt rsqrt ex2 lg2 sin cos tanh. The .approx forms use the host's
/// correctly rounded (or libm) result: within the PTX error bounds.
[[gnu::noinline]] void exec_float_unary(const Instruction& in, uint32_t mask, Warp& w) {
  const Opcode op = in.op;
  if (ptx::type_is_half(in.type)) {  // ex2.approx / tanh.approx on 16-bit floats
    exec_half(in, mask, w);
    return;
  }
  if (!with_float(in.type, [&](auto tag) {
        using T = typename decltype(tag)::type;
        switch (op) {
          case Opcode::Rcp: float_op<T, 1>(in, mask, w, [](T a) { return T(1) / a; }); break;
          case Opcode::Sqrt: float_op<T, 1>(in, mask, w, [](T a) { return std::sqrt(a); }); break;
          case Opcode::Rsqrt: float_op<T, 1>(in, mask, w, [](T a) { return T(1) / std::sqrt(a); }); break;
          case Opcode::Ex2: float_op<T, 1>(in, mask, w, [](T a) { return std::exp2(a); }); break;
          case Opcode::Lg2: float_op<T, 1>(in, mask, w, [](T a) { return std::log2(a); }); break;
          case Opcode::Sin: float_op<T, 1>(in, mask, w, [](T a) { return std::sin(a); }); break;
          case Opcode::Cos: float_op<T, 1>(in, mask, w, [](T a) { return std::cos(a); }); break;
          default: float_op<T, 1>(in, mask, w, [](T a) { return std::tanh(a); }); break;
        }
      }))
    unsupported(in, mask, w, "");
}

[[gnu::noinline]] void exec_copysign(const Instruction& in, uint32_t mask, Warp& w) {
  // copysign d, a, b: the sign of a on the magnitude of b.
  if (in.type == DataType::F32)
    map2(in, mask, w, [](uint64_t a, uint64_t b) { return uint64_t((uint32_t(a) & 0x80000000u) | (uint32_t(b) & 0x7fffffffu)); });
  else if (in.type == DataType::F64)
    map2(in, mask, w, [](uint64_t a, uint64_t b) { return (a & (1ull << 63)) | (b & ~(1ull << 63)); });
  else
    unsupported(in, mask, w, "");
}

[[gnu::noinline]] void exec_testp(const Instruction& in, uint32_t mask, Warp& w) {
  alignas(64) Scratch s0;
  const uint64_t* a = lanes_of(in, in.src[0], mask, w, s0);
  uint32_t bits = 0;
  const ptx::TestpMode mode = in.testp;
  auto test = [mode](auto v) {
    const int c = std::fpclassify(v);
    switch (mode) {
      case ptx::TestpMode::Finite: return c != FP_INFINITE && c != FP_NAN;
      case ptx::TestpMode::Infinite: return c == FP_INFINITE;
      case ptx::TestpMode::Number: return c != FP_NAN;
      case ptx::TestpMode::NotANumber: return c == FP_NAN;
      case ptx::TestpMode::Normal: return c == FP_NORMAL || c == FP_ZERO;  // zero counts as normal
      default: return c == FP_SUBNORMAL;
    }
  };
  if (in.type == DataType::F32)
    for_lanes(mask, [&](unsigned l) { bits |= uint32_t(test(get<float>(a[l]))) << l; });
  else if (in.type == DataType::F64)
    for_lanes(mask, [&](unsigned l) { bits |= uint32_t(test(get<double>(a[l]))) << l; });
  else
    unsupported(in, mask, w, "");
  write_pred(w, in.dst, bits, mask);
}

// ------------------------------------------------------------ bit manipulation

[[gnu::noinline]] void exec_logic(const Instruction& in, uint32_t mask, Warp& w) {
  const Opcode op = in.op;
  if (in.type == DataType::Pred || in.dst.kind == OperandKind::Pred) {
    const uint32_t a = pred_value(in.src[0], w);
    const uint32_t b = in.num_src > 1 ? pred_value(in.src[1], w) : 0;
    uint32_t r = 0;
    switch (op) {
      case Opcode::And: r = a & b; break;
      case Opcode::Or: r = a | b; break;
      case Opcode::Xor: r = a ^ b; break;
      case Opcode::Not: case Opcode::Cnot: r = ~a; break;
      default: break;
    }
    write_pred(w, in.dst, r, mask);
    return;
  }
  if (!with_int(in.type, [&](auto tag) {
        using T = typename decltype(tag)::type;
        using UT = std::make_unsigned_t<T>;
        switch (op) {
          case Opcode::And: map2(in, mask, w, [](uint64_t a, uint64_t b) { return put(UT(a & b)); }); break;
          case Opcode::Or: map2(in, mask, w, [](uint64_t a, uint64_t b) { return put(UT(a | b)); }); break;
          case Opcode::Xor: map2(in, mask, w, [](uint64_t a, uint64_t b) { return put(UT(a ^ b)); }); break;
          case Opcode::Not: map1(in, mask, w, [](uint64_t a) { return put(UT(~a)); }); break;
          default: map1(in, mask, w, [](uint64_t a) { return put(UT(UT(a) == 0 ? 1 : 0)); }); break;
        }
      }))
    unsupported(in, mask, w, "");
}

[[gnu::noinline]] void exec_shift(const Instruction& in, uint32_t mask, Warp& w) {
  const bool left = in.op == Opcode::Shl;
  if (in.src[1].kind == OperandKind::Imm) {
    // The usual case: one shift amount for the whole warp, so the loop
    // vectorises (per-lane variable shifts need AVX2).
    const uint32_t n = uint32_t(in.src[1].imm);
    if (with_int(in.type, [&](auto tag) {
          using T = typename decltype(tag)::type;
          using UT = std::make_unsigned_t<T>;
          constexpr uint32_t width = 8 * sizeof(T);
          if (left) {
            if (n >= width) map1(in, mask, w, [](uint64_t) { return put(UT(0)); });
            else map1(in, mask, w, [n](uint64_t a) { return put(UT(UT(a) << n)); });
          } else if constexpr (std::is_signed_v<T>) {
            const uint32_t k = n >= width ? width - 1 : n;
            map1(in, mask, w, [k](uint64_t a) { return put(T(get<T>(a) >> k)); });
          } else {
            if (n >= width) map1(in, mask, w, [](uint64_t) { return put(UT(0)); });
            else map1(in, mask, w, [n](uint64_t a) { return put(UT(UT(a) >> n)); });
          }
        }))
      return;
    unsupported(in, mask, w, "");
  }
  if (!with_int(in.type, [&](auto tag) {
        using T = typename decltype(tag)::type;
        if (left) {
          using UT = std::make_unsigned_t<T>;
          map2(in, mask, w, [](uint64_t a, uint64_t b) { return put(intops::shl(get<UT>(a), uint32_t(b))); });
        } else {
          map2(in, mask, w, [](uint64_t a, uint64_t b) { return put(intops::shr(get<T>(a), uint32_t(b))); });
        }
      }))
    unsupported(in, mask, w, "");
}

// bmsk, szext and the video instructions: per-lane functions in video_ops.
[[gnu::noinline]] void exec_video(const Instruction& in, uint32_t mask, Warp& w) {
  if (in.op == Opcode::Bmsk) {
    const bool clamp = in.clamp;
    map2(in, mask, w, [clamp](uint64_t a, uint64_t b) { return put(video::bmsk(uint32_t(a), uint32_t(b), clamp)); });
    return;
  }
  if (in.op == Opcode::Szext) {
    const bool clamp = in.clamp, is_signed = in.type == DataType::S32;
    map2(in, mask, w, [clamp, is_signed](uint64_t a, uint64_t b) {
      return put(video::szext(uint32_t(a), uint32_t(b), clamp, is_signed));
    });
    return;
  }
  const ptx::VideoForm v = in.video;
  const ptx::CmpOp cmp = in.cmp;
  const bool sat = in.sat;
  map3(in, mask, w, [&v, cmp, sat](uint64_t a, uint64_t b, uint64_t c) {
    return put(video::execute(v, cmp, sat, uint32_t(a), uint32_t(b), uint32_t(c)));
  });
}

[[gnu::noinline]] void exec_bits(const Instruction& in, uint32_t mask, Warp& w) {
  const Opcode op = in.op;
  const bool shiftamt = in.shiftamt;
  const ptx::PrmtMode pm = in.prmt;
  if (op == Opcode::Prmt) {
    if (pm == ptx::PrmtMode::Default)
      map3(in, mask, w, [](uint64_t a, uint64_t b, uint64_t c) {
        return put(intops::prmt(uint32_t(a), uint32_t(b), uint32_t(c)));
      });
    else
      map3(in, mask, w, [pm](uint64_t a, uint64_t b, uint64_t c) {
        return put(intops::prmt_mode(uint32_t(a), uint32_t(b), uint32_t(c), int(pm)));
      });
    return;
  }
  if (op == Opcode::Shf) {
    const ptx::ShfMode m = in.shf;
    const bool clamp = m == ptx::ShfMode::LeftClamp || m == ptx::ShfMode::RightClamp;
    const bool l = m == ptx::ShfMode::LeftWrap || m == ptx::ShfMode::LeftClamp;
    map3(in, mask, w, [clamp, l](uint64_t a, uint64_t b, uint64_t c) {
      const uint32_t n = clamp ? std::min<uint32_t>(uint32_t(c), 32) : (uint32_t(c) & 31);
      const uint64_t pair = (uint64_t(uint32_t(b)) << 32) | uint32_t(a);  // {b, a}
      return put(l ? uint32_t((pair << n) >> 32) : uint32_t(pair >> n));
    });
    return;
  }
  if (!with_int(in.type, [&](auto tag) {
        using T = typename decltype(tag)::type;
        switch (op) {
          case Opcode::Popc: map1(in, mask, w, [](uint64_t a) { return put(intops::popc(put(std::make_unsigned_t<T>(a)))); }); break;
          case Opcode::Clz: map1(in, mask, w, [](uint64_t a) { return put(intops::clz(get<T>(a))); }); break;
          case Opcode::Brev: map1(in, mask, w, [](uint64_t a) { return put(intops::brev(get<T>(a))); }); break;
          case Opcode::Bfind:
            map1(in, mask, w, [shiftamt](uint64_t a) { return put(intops::bfind(get<T>(a), shiftamt)); });
            break;
          case Opcode::Bfe:
            map3(in, mask, w, [](uint64_t a, uint64_t b, uint64_t c) {
              return put(intops::bfe(get<T>(a), uint32_t(b), uint32_t(c)));
            });
            break;
          default:  // Bfi
            map4(in, mask, w, [](uint64_t a, uint64_t b, uint64_t c, uint64_t d) {
              return put(intops::bfi(get<T>(a), get<T>(b), uint32_t(c), uint32_t(d)));
            });
            break;
        }
      }))
    unsupported(in, mask, w, "");
}

// ------------------------------------------------------------ compare and select

/// Packs 32 bytes of 0/1 into a lane mask.
inline uint32_t pack_bits(const uint8_t* r) {
#if defined(__SSE2__)
  const __m128i lo = _mm_slli_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(r)), 7);
  const __m128i hi = _mm_slli_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(r + 16)), 7);
  return uint32_t(_mm_movemask_epi8(lo)) | (uint32_t(_mm_movemask_epi8(hi)) << 16);
#else
  uint32_t bits = 0;
  for (unsigned l = 0; l < kLanes; ++l) bits |= uint32_t(r[l]) << l;
  return bits;
#endif
}

/// r[l] = cmp(a[l], b[l]) as T for all 32 lanes (a comparison has no side
/// effects, so inactive lanes are compared too and masked off later).
template <typename T, bool kFlush, typename Cmp>
inline void compare_fill(const uint64_t* a, const uint64_t* b, uint8_t* r, Cmp cmp) {
  for (unsigned l = 0; l < kLanes; ++l) {
    auto x = widen(get<T>(a[l]));
    auto y = widen(get<T>(b[l]));
    if constexpr (kFlush) {
      x = fp::ftz(x);
      y = fp::ftz(y);
    }
    r[l] = uint8_t(cmp(x, y));
  }
}

/// Dispatches the comparison once; each case is a plain loop that vectorises.
/// Unordered float comparisons are the negations of the ordered ones (true
/// when either operand is NaN); for integers they coincide.
template <typename T, bool kFlush>
void compare_all(CmpOp op, const uint64_t* a, const uint64_t* b, uint8_t* r) {
  switch (op) {
    case CmpOp::Eq: compare_fill<T, kFlush>(a, b, r, [](auto x, auto y) { return x == y; }); break;
    case CmpOp::Ne: compare_fill<T, kFlush>(a, b, r, [](auto x, auto y) { return (x < y) | (x > y); }); break;
    case CmpOp::Lt: case CmpOp::Lo: compare_fill<T, kFlush>(a, b, r, [](auto x, auto y) { return x < y; }); break;
    case CmpOp::Le: case CmpOp::Ls: compare_fill<T, kFlush>(a, b, r, [](auto x, auto y) { return x <= y; }); break;
    case CmpOp::Gt: case CmpOp::Hi: compare_fill<T, kFlush>(a, b, r, [](auto x, auto y) { return x > y; }); break;
    case CmpOp::Ge: case CmpOp::Hs: compare_fill<T, kFlush>(a, b, r, [](auto x, auto y) { return x >= y; }); break;
    case CmpOp::Equ: compare_fill<T, kFlush>(a, b, r, [](auto x, auto y) { return !((x < y) | (x > y)); }); break;
    case CmpOp::Neu: compare_fill<T, kFlush>(a, b, r, [](auto x, auto y) { return !(x == y); }); break;
    case CmpOp::Ltu: compare_fill<T, kFlush>(a, b, r, [](auto x, auto y) { return !(x >= y); }); break;
    case CmpOp::Leu: compare_fill<T, kFlush>(a, b, r, [](auto x, auto y) { return !(x > y); }); break;
    case CmpOp::Gtu: compare_fill<T, kFlush>(a, b, r, [](auto x, auto y) { return !(x <= y); }); break;
    case CmpOp::Geu: compare_fill<T, kFlush>(a, b, r, [](auto x, auto y) { return !(x < y); }); break;
    case CmpOp::Num: compare_fill<T, kFlush>(a, b, r, [](auto x, auto y) { return (x == x) & (y == y); }); break;
    case CmpOp::Nan: compare_fill<T, kFlush>(a, b, r, [](auto x, auto y) { return (x != x) | (y != y); }); break;
  }
}

/// Lane mask of `a cmp b` for the lanes in mask, compared as `type`.
uint32_t compare_lanes(const Instruction& in, DataType type, uint32_t mask, Warp& w) {
  alignas(64) Scratch s0, s1;
  const uint64_t* a = lanes_of(in, in.src[0], mask, w, s0);
  const uint64_t* b = lanes_of(in, in.src[1], mask, w, s1);
  alignas(16) uint8_t r[kLanes];
  if (in.ftz && type == DataType::F32) {
    compare_all<float, true>(in.cmp, a, b, r);
  } else if (!with_any(type, [&](auto tag) { compare_all<typename decltype(tag)::type, false>(in.cmp, a, b, r); })) {
    unsupported(in, mask, w, "comparison type");
  }
  return pack_bits(r) & mask;
}

/// Comparison of 16-bit floats: lane masks of the low halves (`lo`) and, for
/// f16x2/bf16x2, of the high halves (`hi`).
void compare_half_lanes(const Instruction& in, DataType type, uint32_t mask, Warp& w, uint32_t& lo, uint32_t& hi) {
  alignas(64) Scratch s0, s1;
  const uint64_t* a = lanes_of(in, in.src[0], mask, w, s0);
  const uint64_t* b = lanes_of(in, in.src[1], mask, w, s1);
  const fp::HalfArith m = half_arith(in, type);
  const bool packed = ptx::type_is_packed_half(type);
  lo = hi = 0;
  for_lanes(mask, [&](unsigned l) {
    if (fp::half_compare(uint16_t(a[l]), uint16_t(b[l]), in.cmp, m)) lo |= 1u << l;
    if (packed && fp::half_compare(uint16_t(a[l] >> 16), uint16_t(b[l] >> 16), in.cmp, m)) hi |= 1u << l;
  });
}

/// t combined with the predicate c of setp/set .and/.or/.xor.
inline uint32_t combine(ptx::BoolOp op, uint32_t t, uint32_t c) {
  switch (op) {
    case ptx::BoolOp::And: return t & c;
    case ptx::BoolOp::Or: return t | c;
    case ptx::BoolOp::Xor: return t ^ c;
    default: return t;
  }
}

/// setp on f16/bf16 (p = result, q = its complement) and on f16x2/bf16x2
/// (p = low half's result, q = high half's), each combined with c.
[[gnu::noinline]] void exec_setp_half(const Instruction& in, uint32_t mask, Warp& w) {
  uint32_t lo, hi;
  compare_half_lanes(in, in.type, mask, w, lo, hi);
  const uint32_t c = in.boolop != ptx::BoolOp::None ? pred_value(in.src[2], w) : 0;
  const uint32_t q = ptx::type_is_packed_half(in.type) ? hi : ~lo;
  write_pred(w, in.dst, combine(in.boolop, lo, c), mask);
  write_pred(w, in.dst2, combine(in.boolop, q, c), mask);
}

/// set with a 16-bit float destination or source: true writes 1.0 for a
/// float destination, all ones for an integer one; a packed source sets each
/// 16-bit half of the destination from its own comparison.
[[gnu::noinline]] void exec_set_half(const Instruction& in, uint32_t mask, Warp& w) {
  uint32_t lo, hi = 0;
  if (ptx::type_is_half(in.type2)) compare_half_lanes(in, in.type2, mask, w, lo, hi);
  else lo = compare_lanes(in, in.type2, mask, w);
  const uint32_t c = in.boolop != ptx::BoolOp::None ? pred_value(in.src[2], w) : 0;
  lo = combine(in.boolop, lo, c);
  hi = combine(in.boolop, hi, c);
  uint64_t yes = 0;
  switch (in.type) {
    case DataType::F16: case DataType::F16x2: yes = 0x3c00u; break;
    case DataType::BF16: case DataType::BF16x2: yes = 0x3f80u; break;
    case DataType::U16: case DataType::S16: yes = 0xffffu; break;
    default: yes = ptx::type_is_packed_half(in.type2) ? 0xffffu : 0xffffffffu; break;  // u32 / s32
  }
  const bool packed = ptx::type_is_packed_half(in.type2);
  uint64_t* d = dst_reg(in, mask, w);
  for_lanes(mask, [&](unsigned l) {
    uint64_t v = ((lo >> l) & 1u) ? yes : 0;
    if (packed && ((hi >> l) & 1u)) v |= yes << 16;
    d[l] = v;
  });
}

[[gnu::noinline]] void exec_setp(const Instruction& in, uint32_t mask, Warp& w) {
  if (ptx::type_is_half(in.type)) {
    exec_setp_half(in, mask, w);
    return;
  }
  const uint32_t t = compare_lanes(in, in.type, mask, w);
  uint32_t p = t, q = ~t;
  if (in.boolop != ptx::BoolOp::None) {
    const uint32_t c = pred_value(in.src[2], w);
    switch (in.boolop) {
      case ptx::BoolOp::And: p = t & c; q = ~t & c; break;
      case ptx::BoolOp::Or: p = t | c; q = ~t | c; break;
      default: p = t ^ c; q = ~t ^ c; break;
    }
  }
  write_pred(w, in.dst, p, mask);
  write_pred(w, in.dst2, q, mask);
}

[[gnu::noinline]] void exec_set(const Instruction& in, uint32_t mask, Warp& w) {
  if (ptx::type_is_half(in.type) || ptx::type_is_half(in.type2) || in.type == DataType::U16 ||
      in.type == DataType::S16) {
    exec_set_half(in, mask, w);
    return;
  }
  uint32_t t = compare_lanes(in, in.type2, mask, w);
  if (in.boolop != ptx::BoolOp::None) {
    const uint32_t c = pred_value(in.src[2], w);
    t = in.boolop == ptx::BoolOp::And ? (t & c) : in.boolop == ptx::BoolOp::Or ? (t | c) : (t ^ c);
  }
  uint64_t yes = 0;
  switch (in.type) {
    case DataType::F32: yes = fp::bits(1.0f); break;
    case DataType::U32: case DataType::S32: case DataType::B32: yes = 0xffffffffu; break;
    default: unsupported(in, mask, w, "set destination type");
  }
  uint64_t* d = dst_reg(in, mask, w);
  for_lanes(mask, [&](unsigned l) { d[l] = ((t >> l) & 1u) ? yes : 0; });
}

[[gnu::noinline]] void exec_selp(const Instruction& in, uint32_t mask, Warp& w) {
  const uint32_t c = pred_value(in.src[2], w);
  if (!with_any(in.type, [&](auto tag) {
        using T = typename decltype(tag)::type;
        alignas(64) Scratch s0, s1;
        const uint64_t* a = lanes_of(in, in.src[0], mask, w, s0);
        const uint64_t* b = lanes_of(in, in.src[1], mask, w, s1);
        uint64_t* d = dst_reg(in, mask, w);
        for_lanes(mask, [&](unsigned l) { d[l] = put(get<T>(((c >> l) & 1u) ? a[l] : b[l])); });
      }))
    unsupported(in, mask, w, "");
}

[[gnu::noinline]] void exec_slct(const Instruction& in, uint32_t mask, Warp& w) {
  const bool fsel = in.type2 == DataType::F32;
  const bool flush = in.ftz;
  if (!with_any(in.type, [&](auto tag) {
        using T = typename decltype(tag)::type;
        map3(in, mask, w, [fsel, flush](uint64_t a, uint64_t b, uint64_t c) {
          bool pick_a;
          if (fsel) {
            float f = get<float>(c);
            if (flush) f = fp::ftz(f);
            pick_a = f >= 0.0f;
          } else {
            pick_a = int32_t(c) >= 0;
          }
          return put(get<T>(pick_a ? a : b));
        });
      }))
    unsupported(in, mask, w, "");
}

// ------------------------------------------------------------ mov cvt cvta

[[gnu::noinline]] void exec_mov(const Instruction& in, uint32_t mask, Warp& w) {
  if (in.dst.kind == OperandKind::Pred) {
    write_pred(w, in.dst, pred_value(in.src[0], w), mask);
    return;
  }
  const unsigned bits = 8 * ptx::type_bytes(in.type);
  if (in.dst.kind == OperandKind::Vector) {
    // Unpack: element i takes bits [i*eb, (i+1)*eb) of the source.
    alignas(64) Scratch s0;
    const uint64_t* a = lanes_of(in, in.src[0], mask, w, s0);
    const unsigned n = in.dst.count;
    if (n == 0 || bits == 0 || bits % n != 0) unsupported(in, mask, w, "vector unpack");
    const unsigned eb = bits / n;
    const uint64_t emask = eb >= 64 ? ~0ull : ((1ull << eb) - 1);
    uint64_t tmp[kLanes];
    for_lanes(mask, [&](unsigned l) { tmp[l] = a[l]; });  // the source may be one of the destinations
    for (unsigned i = 0; i < n; ++i) {
      if (in.dst.vregs[i] == ptx::kNoReg) continue;
      uint64_t* d = w.reg(in.dst.vregs[i]);
      for_lanes(mask, [&](unsigned l) { d[l] = (tmp[l] >> (i * eb)) & emask; });
    }
    return;
  }
  if (in.src[0].kind == OperandKind::Vector) {
    // Pack: element 0 is the least significant; integer elements are in imm.
    const Operand& v = in.src[0];
    const unsigned n = v.count;
    if (n == 0 || bits == 0 || bits % n != 0) unsupported(in, mask, w, "vector pack");
    const unsigned eb = bits / n;
    const uint64_t emask = eb >= 64 ? ~0ull : ((1ull << eb) - 1);
    uint64_t tmp[kLanes];
    for (unsigned l = 0; l < kLanes; ++l) tmp[l] = v.imm;
    for (unsigned i = 0; i < n; ++i) {
      if (v.vregs[i] == ptx::kNoReg) continue;
      const uint64_t* s = w.reg(v.vregs[i]);
      for_lanes(mask, [&](unsigned l) { tmp[l] |= (s[l] & emask) << (i * eb); });
    }
    uint64_t* d = dst_reg(in, mask, w);
    for_lanes(mask, [&](unsigned l) { d[l] = tmp[l]; });
    return;
  }
  if (in.src[0].kind == OperandKind::Imm || in.src[0].kind == OperandKind::Symbol) {
    uint64_t v = in.src[0].imm;
    if (bits != 64 && !with_any(in.type, [&](auto tag) { v = put(get<typename decltype(tag)::type>(v)); }))
      unsupported(in, mask, w, "");
    uint64_t* d = dst_reg(in, mask, w);
    for_lanes(mask, [&](unsigned l) { d[l] = v; });
    return;
  }
  switch (bits) {
    case 64: map1(in, mask, w, [](uint64_t a) { return a; }); return;
    default:
      if (!with_any(in.type, [&](auto tag) {
            using T = typename decltype(tag)::type;
            map1(in, mask, w, [](uint64_t a) { return put(get<T>(a)); });
          }))
        unsupported(in, mask, w, "");
  }
}

template <typename D>
D int_saturate(__int128 v) {
  const __int128 lo = std::numeric_limits<D>::min(), hi = std::numeric_limits<D>::max();
  return D(v < lo ? lo : v > hi ? hi : v);
}

/// float -> integer: round per the mode (truncate when none), NaN -> 0,
/// saturate to the destination range (PTX always saturates these).
template <typename D>
D float_to_int(double v, Rounding r) {
  if (v != v) return 0;
  v = fp::round_integral(v, r);
  constexpr double lo = double(std::numeric_limits<D>::min());  // 0 or -2^(n-1): exact
  constexpr double top = double(uint64_t(1) << (8 * sizeof(D) - 1));
  constexpr double hi_excl = std::is_signed_v<D> ? top : 2.0 * top;  // 2^(n-1) or 2^n
  if (v <= lo) return std::numeric_limits<D>::min();
  if (v >= hi_excl) return std::numeric_limits<D>::max();
  return D(v);
}

template <typename D, typename S>
void cvt_typed(const Instruction& in, uint32_t mask, Warp& w) {
  const Rounding r = in.rnd;
  const bool flush = in.ftz;
  const bool sat = in.sat;
  if constexpr (!kIsFloat<D> && !kIsFloat<S>) {
    // int -> int: truncate or extend; .sat clamps to the destination range.
    if (sat) map1(in, mask, w, [](uint64_t a) { return put_wide(int_saturate<D>(__int128(get<S>(a)))); });
    else map1(in, mask, w, [](uint64_t a) { return put_wide(D(get<S>(a))); });
  } else if constexpr (!kIsFloat<D>) {
    // float -> int.
    map1(in, mask, w, [r, flush](uint64_t a) {
      auto v = widen(get<S>(a));
      if constexpr (std::is_same_v<S, float>) {
        if (flush) v = fp::ftz(v);
      }
      return put_wide(float_to_int<D>(double(v), r));
    });
  } else if constexpr (std::is_same_v<D, Half>) {
    // -> f16: exact rounding from the double value (ints beyond 2^53 overflow half anyway).
    map1(in, mask, w, [r, flush, sat](uint64_t a) {
      double v;
      if constexpr (kIsFloat<S>) {
        auto x = widen(get<S>(a));
        if constexpr (std::is_same_v<S, float>) {
          if (flush) x = fp::ftz(x);
        }
        v = double(x);
      } else {
        v = double(get<S>(a));
      }
      if (sat) v = fp::saturate(v);
      return uint64_t(fp::double_to_half(v, r));
    });
  } else {
    // -> f32 / f64 from an int, f16, f32 or f64.
    const bool irnd = r == Rounding::Rni || r == Rounding::Rzi || r == Rounding::Rmi || r == Rounding::Rpi;
    // Pin is true under a directed rounding mode: values go through
    // fp::opaque so the conversion happens inside the RoundingScope.
    auto convert = [=](auto pin) {
      constexpr bool kPin = decltype(pin)::value;
      auto maybe_pin = [](auto x) {
        if constexpr (kPin) return fp::opaque(x);
        else return x;
      };
      return [=](uint64_t a) {
        D v;
        if constexpr (kIsFloat<S>) {
          auto x = widen(get<S>(a));
          if constexpr (std::is_same_v<decltype(x), float>) {
            if (flush) x = fp::ftz(x);
          }
          if (irnd) x = fp::round_integral(x, r);
          v = maybe_pin(D(maybe_pin(x)));
        } else {
          v = maybe_pin(D(maybe_pin(get<S>(a))));
        }
        if constexpr (std::is_same_v<D, float>) {
          if (flush) v = fp::ftz(v);
        }
        if (sat) v = fp::saturate(v);
        return put(v);
      };
    };
    constexpr bool may_round = sizeof(D) < sizeof(S) || (!kIsFloat<S> && sizeof(S) >= sizeof(D));
    if (!flush && !sat && !irnd && !(may_round && fp::is_directed(r))) {
      // The common case (cvt.rn.f32.s32, cvt.f64.f32, ...): one plain conversion.
      map1(in, mask, w, [](uint64_t a) { return put(D(widen(get<S>(a)))); });
    } else if (may_round && fp::is_directed(r)) {
      fp::RoundingScope scope(r);
      map1(in, mask, w, convert(std::true_type{}));
    } else {
      map1(in, mask, w, convert(std::false_type{}));
    }
  }
}

/// Exact value of a cvt source lane as hi + lo (lo only carries the sign of
/// what a 64-bit integer loses in double); f32 sources flushed under .ftz.
template <typename S>
inline double cvt_source(uint64_t a, DataType type, bool flush, double& lo) {
  lo = 0.0;
  if (ptx::type_is_half(type)) return fp::half_bits_to_double(uint16_t(a), fp::half_format_of(type));
  if constexpr (std::is_same_v<S, float>) {
    const float f = get<float>(a);
    return double(flush ? fp::ftz(f) : f);
  } else if constexpr (std::is_same_v<S, double>) {
    return get<double>(a);
  } else {
    const S v = get<S>(a);
    const double hi = double(v);
    if constexpr (sizeof(S) == 8) {
      // 2^64 (the rounded value of a u64 near the top) still fits in __int128.
      const __int128 diff = __int128(v) - __int128(hi);
      lo = diff > 0 ? 1.0 : diff < 0 ? -1.0 : 0.0;
    }
    return hi;
  }
}

/// cvt to or from f16/bf16: every rounding mode exact (one rounding of the
/// exact source value); to an integer: rounded per the mode, NaN -> 0,
/// saturated. .sat on a float destination clamps to [0, 1].
template <typename S>
void cvt_half_from(const Instruction& in, uint32_t mask, Warp& w) {
  const Rounding r = in.rnd;
  const bool flush = in.ftz && in.type2 == DataType::F32;
  const bool sat = in.sat;
  const DataType dt = in.type, st = in.type2;
  const bool irnd = r == Rounding::Rni || r == Rounding::Rzi || r == Rounding::Rmi || r == Rounding::Rpi;
  if (ptx::type_is_packed_half(dt)) {
    // cvt.{rn,rz}{.relu}.f16x2/.bf16x2.f32 d, a, b: a to the high half, b to the low.
    if constexpr (std::is_same_v<S, float>) {
      const fp::HalfFormat f = fp::half_format_of(dt);
      const bool relu = in.relu;
      auto one = [=](uint64_t x) {
        const uint16_t h = fp::round_double_to_half(double(get<float>(x)), 0.0, f, r);
        return relu && !fp::half_is_nan(h, f) && (h & 0x8000u) ? uint16_t(0) : h;
      };
      map2(in, mask, w, [=](uint64_t a, uint64_t b) { return (uint64_t(one(a)) << 16) | one(b); });
    } else {
      unsupported(in, mask, w, "packed conversion from a type other than f32");
    }
    return;
  }
  if (ptx::type_is_half(dt)) {
    const fp::HalfFormat f = fp::half_format_of(dt);
    const bool relu = in.relu;
    map1(in, mask, w, [=](uint64_t a) {
      double lo;
      double v = cvt_source<S>(a, st, flush, lo);
      if (irnd && ptx::type_is_float(st)) v = fp::round_integral(v, r);  // integral value, then exact
      if (sat) {
        const double c = fp::saturate(v);
        if (c != v) lo = 0.0;
        v = c;
      }
      const uint16_t h = fp::round_double_to_half(v, lo, f, r);
      // .relu: negative results (and -0) become +0; NaN stays NaN.
      return uint64_t(relu && !fp::half_is_nan(h, f) && (h & 0x8000u) ? uint16_t(0) : h);
    });
    return;
  }
  // From a 16-bit float: its value is exact in f32, f64 and double.
  const fp::HalfFormat f = fp::half_format_of(st);
  if (dt == DataType::F32 || dt == DataType::F64) {
    const bool flush_out = in.ftz && dt == DataType::F32;
    map1(in, mask, w, [=](uint64_t a) {
      // Through f32 so that a NaN keeps its payload (as the widening conversion does).
      const uint16_t h = uint16_t(a);
      double v = double(f == fp::HalfFormat::F16 ? fp::half_to_float(h) : fp::f32(uint32_t(h) << 16));
      if (irnd) v = fp::round_integral(v, r);
      if (sat) v = fp::saturate(v);
      if (dt == DataType::F64) return fp::bits(v);
      const float x = float(v);
      return uint64_t(fp::bits(flush_out ? fp::ftz(x) : x));
    });
    return;
  }
  if (!with_int(dt, [&](auto dtag) {
        using D = typename decltype(dtag)::type;
        map1(in, mask, w, [=](uint64_t a) { return put_wide(float_to_int<D>(fp::half_bits_to_double(uint16_t(a), f), r)); });
      }))
    unsupported(in, mask, w, "");
}

[[gnu::noinline]] void exec_cvt_half(const Instruction& in, uint32_t mask, Warp& w) {
  const DataType st = in.type2;
  if (ptx::type_is_half(st)) {
    cvt_half_from<uint16_t>(in, mask, w);
    return;
  }
  if (st == DataType::F32) cvt_half_from<float>(in, mask, w);
  else if (st == DataType::F64) cvt_half_from<double>(in, mask, w);
  else if (!with_int(st, [&](auto stag) { cvt_half_from<typename decltype(stag)::type>(in, mask, w); }))
    unsupported(in, mask, w, "");
}

[[gnu::noinline]] void exec_cvt(const Instruction& in, uint32_t mask, Warp& w) {
  if (ptx::type_is_half(in.type) || ptx::type_is_half(in.type2)) {
    exec_cvt_half(in, mask, w);
    return;
  }
  bool ok = false;
  with_any(in.type, [&](auto dtag) {
    using D = typename decltype(dtag)::type;
    ok = with_any(in.type2, [&](auto stag) {
      using S = typename decltype(stag)::type;
      cvt_typed<D, S>(in, mask, w);
    });
  });
  if (!ok) unsupported(in, mask, w, "");
}

uint64_t window_base(StateSpace s) {
  switch (s) {
    case StateSpace::Shared: return memory::kSharedWindowBase;
    case StateSpace::Local: return memory::kLocalWindowBase;
    case StateSpace::Const: return memory::kConstWindowBase;
    default: return 0;  // global (and generic) addresses are identity-mapped
  }
}

[[gnu::noinline]] void exec_cvta(const Instruction& in, uint32_t mask, Warp& w) {
  if (in.space == StateSpace::Param) unsupported(in, mask, w, "cvta of the param space");
  const uint64_t base = window_base(in.space);
  const bool wide = ptx::type_bytes(in.type) != 4;
  if (in.to_generic)
    map1(in, mask, w, [base, wide](uint64_t a) { return wide ? a + base : uint64_t(uint32_t(a + base)); });
  else
    map1(in, mask, w, [base, wide](uint64_t a) { return wide ? a - base : uint64_t(uint32_t(a - base)); });
}

// ------------------------------------------------------------ memory

/// Host base of the byte range [lo, end) when it lies wholly inside one
/// space and its bounds (the same windows and limits as Warp::resolve);
/// nullptr when it does not, or for local memory, which is per lane.
uint8_t* range_base(Warp& w, StateSpace space, uint64_t lo, uint64_t end, StateSpace* resolved) {
  if (end <= lo) return nullptr;
  if (space == StateSpace::Generic) {
    if (end <= memory::kConstWindowBase) {
      space = StateSpace::Global;  // below every window: identity-mapped global
    } else {
      const uint64_t bases[2] = {memory::kSharedWindowBase, memory::kConstWindowBase};
      const StateSpace spaces[2] = {StateSpace::Shared, StateSpace::Const};
      bool found = false;
      for (int i = 0; i < 2 && !found; ++i) {
        if (lo - bases[i] < memory::kWindowBytes && end - bases[i] <= memory::kWindowBytes) {
          space = spaces[i];
          lo -= bases[i];
          end -= bases[i];
          found = true;
        }
      }
      if (!found) return nullptr;
    }
  }
  *resolved = space;
  const KernelContext& ctx = w.context();
  switch (space) {
    case StateSpace::Global:
      core::await_issue_order();  // other SMs' stores of this cycle first
      return ctx.global->translate(lo, end - lo);
    case StateSpace::Shared: {
      auto& shared = w.cta().shared_memory();
      return end <= shared.size() ? shared.data() + lo : nullptr;
    }
    case StateSpace::Const:
      return end <= ctx.const_bytes ? const_cast<uint8_t*>(ctx.const_bank) + lo : nullptr;
    case StateSpace::Param:
      return end <= ctx.kernel->param_bytes ? const_cast<uint8_t*>(ctx.params) + lo : nullptr;
    default:
      return nullptr;
  }
}

/// Where every lane's access lands in host memory: either one linear
/// mapping for the whole warp (host = bias + address), or a pointer per lane.
struct LanePtrs {
  StateSpace space = StateSpace::Global;  ///< resolved (of the lowest active lane)
  bool linear = false;
  uintptr_t bias = 0;
  uint8_t* ptr[kLanes];
};

/// Calls f(lane, host pointer) for every lane in mask.
template <typename F>
inline __attribute__((always_inline)) void for_lane_ptrs(const LanePtrs& p, const uint64_t* addr, uint32_t mask,
                                                         F&& f) {
  if (p.linear) {
    const uintptr_t bias = p.bias;
    if (mask == kAllLanes) {
#pragma GCC unroll 8
      for (unsigned l = 0; l < kLanes; ++l) f(l, reinterpret_cast<uint8_t*>(bias + uintptr_t(addr[l])));
    } else {
      for_lanes(mask, [&](unsigned l) { f(l, reinterpret_cast<uint8_t*>(bias + uintptr_t(addr[l]))); });
    }
  } else {
    for_lanes(mask, [&](unsigned l) { f(l, p.ptr[l]); });
  }
}

/// Host memory of a space with one flat range [0, size) per warp (shared,
/// const, kernel params); nullptr for the others.
uint8_t* flat_space(Warp& w, StateSpace space, uint64_t* size) {
  const KernelContext& ctx = w.context();
  switch (space) {
    case StateSpace::Shared: {
      auto& shared = w.cta().shared_memory();
      *size = shared.size();
      return shared.data();
    }
    case StateSpace::Const: *size = ctx.const_bytes; return const_cast<uint8_t*>(ctx.const_bank);
    case StateSpace::Param: *size = ctx.kernel->param_bytes; return const_cast<uint8_t*>(ctx.params);
    default: return nullptr;
  }
}

/// Computes every lane's address of the memory operand `o` into addr and
/// resolves each access of `bytes` (natural alignment) into `out`. A warp
/// usually touches one small aligned range of one buffer: that is checked
/// once, in passes written to vectorise. Anything else goes lane by lane
/// through Warp::resolve, which also reports a fault for the right lane.
void resolve_lanes(const Instruction& in, const Operand& o, uint32_t mask, Warp& w, unsigned bytes, uint64_t* addr,
                   LanePtrs& out) {
  const uint64_t* r = nullptr;
  uint64_t off = o.imm;
  if (o.kind == OperandKind::Address || o.kind == OperandKind::Reg) {
    if (o.reg != ptx::kNoReg) r = w.reg(o.reg);
    if (o.kind == OperandKind::Reg) off = 0;
  } else if (o.kind != OperandKind::Imm && o.kind != OperandKind::Symbol) {
    unsupported(in, mask, w, "memory operand is not an address");
  }
  const StateSpace space = in.space;
  const uint64_t align_mask = bytes - 1;
  // A .shared address is an offset in the CTA's 32-bit window: register +
  // offset wraps at 32 bits (nvcc forms addresses from bases below the
  // array, e.g. 0xffffffc0 + 68 = 4).
  const uint64_t wrap = space == StateSpace::Shared ? 0xffffffffull : ~uint64_t(0);
  if (r == nullptr) {
    // One address for the whole warp ([symbol], [imm]).
    fill(addr, off);
    StateSpace rs = space;
    uint8_t* base = (off & align_mask) == 0 && space != StateSpace::Local
                        ? range_base(w, space, off, off + bytes, &rs) : nullptr;
    if (base != nullptr) {
      out.space = rs;
      out.linear = true;
      out.bias = reinterpret_cast<uintptr_t>(base) - uintptr_t(off);
      return;
    }
  } else {
    uint64_t size = 0;
    uint8_t* flat = flat_space(w, space, &size);
    if (flat != nullptr && size >= bytes) {
      // Every lane in [0, size - bytes] and aligned; (limit - a) | a has its
      // top bit set exactly when a > limit (for a limit below 2^63).
      const uint64_t limit = size - bytes;
      uint64_t check = 0, ored = 0;
      auto lane = [&](unsigned l) {
        const uint64_t a = (r[l] + off) & wrap;
        addr[l] = a;
        check |= (limit - a) | a;
        ored |= a;
      };
      if (mask == kAllLanes) {
        for (unsigned l = 0; l < kLanes; ++l) lane(l);
      } else {
        for_lanes(mask, lane);
      }
      if ((check >> 63) == 0 && (ored & align_mask) == 0) {
        out.space = space;
        out.linear = true;
        out.bias = reinterpret_cast<uintptr_t>(flat);
        return;
      }
    } else if (space != StateSpace::Local) {
      // Global or generic: the range [min, max] of the lanes' addresses.
      const unsigned first = unsigned(__builtin_ctz(mask));
      uint64_t lo = r[first] + off, hi = lo, ored = 0;
      bool near = true;
      if (mask == kAllLanes) {
        // Vectorises with plain SSE2: every address within +-2 GiB of lane 0
        // (64-bit add/shift/or), then min/max of 32-bit deltas.
        const uint64_t ref = lo;
        uint64_t far = 0;
        int32_t delta[kLanes];
        for (unsigned l = 0; l < kLanes; ++l) {
          const uint64_t a = r[l] + off;
          addr[l] = a;
          const uint64_t d = a - ref;
          ored |= a;
          far |= (d + 0x80000000ull) >> 32;
          delta[l] = int32_t(uint32_t(d));
        }
        if (far == 0) {
          int32_t dmin = 0, dmax = 0;
          for (unsigned l = 0; l < kLanes; ++l) {
            dmin = delta[l] < dmin ? delta[l] : dmin;
            dmax = delta[l] > dmax ? delta[l] : dmax;
          }
          lo = ref + uint64_t(int64_t(dmin));
          hi = ref + uint64_t(int64_t(dmax));
        } else {
          near = false;  // widely spread: lane by lane
        }
      } else {
        for_lanes(mask, [&](unsigned l) {
          const uint64_t a = r[l] + off;
          addr[l] = a;
          ored |= a;
          lo = a < lo ? a : lo;
          hi = a > hi ? a : hi;
        });
      }
      StateSpace rs = space;
      uint8_t* base = near && (ored & align_mask) == 0 ? range_base(w, space, lo, hi + bytes, &rs) : nullptr;
      if (base != nullptr) {
        out.space = rs;
        out.linear = true;
        out.bias = reinterpret_cast<uintptr_t>(base) - uintptr_t(lo);
        return;
      }
    } else {
      for_lanes(mask, [&](unsigned l) { addr[l] = (r[l] + off) & wrap; });
    }
  }
  out.linear = false;
  bool first_lane = true;
  for_lanes(mask, [&](unsigned l) {
    StateSpace rs = space;
    out.ptr[l] = w.resolve(space, addr[l], bytes, bytes, l, &rs);
    if (first_lane) out.space = rs;
    first_lane = false;
  });
}

/// Where resolve_lanes puts the lanes' addresses: straight into the warp's
/// MemAccess when the timing model records accesses (record() then only
/// fills in the rest), else `local`.
inline uint64_t* address_buffer(Warp& w, uint64_t* local) {
  return w.record_accesses() ? w.access().addr.data() : local;
}

/// Completes the MemAccess whose addresses address_buffer() received.
void record(Warp& w, StateSpace rs, uint32_t mask, unsigned bytes, bool store, bool atomic) {
  if (!w.record_accesses()) return;
  MemAccess& m = w.access();
  m.space = rs;
  m.mask = mask;
  m.bytes = uint8_t(bytes);
  m.is_store = store;
  m.is_atomic = atomic;
  m.segments = 1;
}

/// Sign-extends the low `bytes` bytes of v.
inline uint64_t sext(uint64_t v, unsigned bytes) {
  const unsigned s = 64 - 8 * bytes;
  return uint64_t(int64_t(v << s) >> s);
}

[[gnu::noinline]] void exec_ld(const Instruction& in, uint32_t mask, Warp& w) {
  const unsigned es = ptx::type_bytes(in.type);
  const unsigned n = in.vec ? in.vec : 1;
  if (es == 0 || n > 4) unsupported(in, mask, w, "");
  const unsigned total = es * n;
  alignas(64) uint64_t local_addr[kLanes];
  uint64_t* addr = address_buffer(w, local_addr);
  LanePtrs lp;
  resolve_lanes(in, in.src[0], mask, w, total, addr, lp);
  record(w, lp.space, mask, total, false, false);

  uint64_t* dregs[4] = {nullptr, nullptr, nullptr, nullptr};
  if (in.dst.kind == OperandKind::Vector) {
    if (in.dst.count < n) unsupported(in, mask, w, "vector size");
    for (unsigned i = 0; i < n; ++i)
      if (in.dst.vregs[i] != ptx::kNoReg) dregs[i] = w.reg(in.dst.vregs[i]);
  } else {
    if (n != 1) unsupported(in, mask, w, "vector load into a scalar");
    dregs[0] = dst_reg(in, mask, w);
  }
  const bool is_signed = ptx::type_is_signed(in.type);
  for (unsigned i = 0; i < n; ++i) {
    uint64_t* d = dregs[i];
    if (d == nullptr) continue;
    const unsigned off = i * es;
    switch (es) {
      case 1: for_lane_ptrs(lp, addr, mask, [&](unsigned l, const uint8_t* p) { d[l] = p[off]; }); break;
      case 2:
        for_lane_ptrs(lp, addr, mask, [&](unsigned l, const uint8_t* p) {
          uint16_t v;
          std::memcpy(&v, p + off, 2);
          d[l] = v;
        });
        break;
      case 4:
        for_lane_ptrs(lp, addr, mask, [&](unsigned l, const uint8_t* p) {
          uint32_t v;
          std::memcpy(&v, p + off, 4);
          d[l] = v;
        });
        break;
      default:
        for_lane_ptrs(lp, addr, mask, [&](unsigned l, const uint8_t* p) { std::memcpy(&d[l], p + off, 8); });
        break;
    }
    if (is_signed && es < 8) for_lanes(mask, [&](unsigned l) { d[l] = sext(d[l], es); });
  }
  w.end_global_access();  // memory without DMI: staged copies end with the instruction
}

// ------------------------------------------------------------ wmma

/// Where element e of lane l's fragment lies in its matrix. The PTX ISA
/// leaves the distribution unspecified; this model gives each lane a run of
/// consecutive elements: for A and B in the order of their memory layout (the
/// mma names that layout too), for C and D in row-major order (the mma does
/// not name their layout). Fragments with more lane slots than elements
/// (f16 A/B) wrap around, so each element is held by several lanes.
struct MatrixCoordinate {
  unsigned row, col;
};
MatrixCoordinate wmma_element(const ptx::WarpMatrixShape& s, ptx::MatrixFragment f, bool row_major, unsigned per_lane,
                              unsigned lane, unsigned e) {
  const unsigned rows = ptx::wmma_rows(s, f), cols = ptx::wmma_cols(s, f);
  const unsigned i = (lane * per_lane + e) % (rows * cols);
  const bool accumulator = f == ptx::MatrixFragment::C || f == ptx::MatrixFragment::D;
  if (accumulator || row_major) return {i / cols, i % cols};
  return {i % rows, i / rows};
}

/// Element e of a fragment held in a lane's registers (packed little-endian).
uint64_t fragment_get(Warp& w, const Operand& frag, unsigned lane, unsigned e, unsigned bytes) {
  const unsigned bit = e * bytes * 8;
  const uint64_t reg = w.reg(frag.vregs[bit / 32])[lane];
  return (reg >> (bit % 32)) & (bytes == 4 ? 0xffffffffull : (1ull << (bytes * 8)) - 1);
}
void fragment_set(Warp& w, const Operand& frag, unsigned lane, unsigned e, unsigned bytes, uint64_t v) {
  const unsigned bit = e * bytes * 8;
  if (frag.vregs[bit / 32] == ptx::kNoReg) return;
  uint64_t& reg = w.reg(frag.vregs[bit / 32])[lane];
  const uint64_t field = (bytes == 4 ? 0xffffffffull : (1ull << (bytes * 8)) - 1) << (bit % 32);
  reg = (uint32_t(reg) & ~field) | ((v << (bit % 32)) & field);
}

/// wmma.load / wmma.store: every lane moves its fragment's elements; the
/// timing model sees each lane's elements as runs contiguous in memory.
[[gnu::noinline]] void exec_wmma_memory(const Instruction& in, uint32_t mask, Warp& w) {
  if (mask != 0xffffffffu) unsupported(in, mask, w, "wmma needs all 32 threads of the warp (.sync.aligned)");
  const bool store = in.op == Opcode::WmmaStore;
  const ptx::WarpMatrixShape& s = in.wmma;
  const ptx::MatrixFragment f = s.fragment;
  const unsigned bytes = ptx::type_bytes(in.type);
  const unsigned per_lane = ptx::wmma_lane_elements(s, f, in.type);
  const unsigned rows = ptx::wmma_rows(s, f), cols = ptx::wmma_cols(s, f);
  const Operand& address = store ? in.dst : in.src[0];
  const Operand& frag = store ? in.src[0] : in.dst;
  if (address.kind != OperandKind::Address) unsupported(in, mask, w, "memory operand is not an address");
  if (store && (in.space == StateSpace::Param || in.space == StateSpace::Const || in.space == StateSpace::Generic))
    core::await_issue_order();  // as exec_st
  const uint64_t* base_reg = address.reg == ptx::kNoReg ? nullptr : w.reg(address.reg);
  alignas(64) Scratch stride_scratch;
  const unsigned natural = s.row_major ? cols : rows;
  const uint64_t* stride = in.src[1].kind == OperandKind::None ? nullptr : lanes_of(in, in.src[1], mask, w, stride_scratch);
  // The fragment's runs in memory: A/B lanes hold consecutive elements of
  // the memory order; C/D lanes a run of one row, contiguous only row-major.
  const bool accumulator = f == ptx::MatrixFragment::C || f == ptx::MatrixFragment::D;
  const unsigned run = accumulator ? (s.row_major ? std::min(per_lane, cols) : 1u) : std::min(per_lane, natural);
  StateSpace space = in.space;
  for (unsigned lane = 0; lane < kLanes; ++lane) {
    const uint64_t ld = stride ? uint32_t(stride[lane]) : natural;
    for (unsigned e = 0; e < per_lane; ++e) {
      const MatrixCoordinate c = wmma_element(s, f, s.row_major, per_lane, lane, e);
      const uint64_t offset = s.row_major ? uint64_t(c.row) * ld + c.col : uint64_t(c.col) * ld + c.row;
      const uint64_t addr = (base_reg ? base_reg[lane] : 0) + address.imm + offset * bytes;
      StateSpace rs = in.space;
      uint8_t* p = w.resolve(in.space, addr, bytes, bytes, lane, &rs);
      if (lane == 0 && e == 0) space = rs;
      if (e == 0 && w.record_accesses()) w.access().addr[lane] = addr;
      uint64_t v = 0;
      if (store) {
        v = fragment_get(w, frag, lane, e, bytes);
        std::memcpy(p, &v, bytes);
      } else {
        std::memcpy(&v, p, bytes);
        fragment_set(w, frag, lane, e, bytes, v);
      }
      w.end_global_access();
    }
  }
  if (w.record_accesses()) {
    record(w, space, mask, run * bytes, store, false);
    MemAccess& m = w.access();
    m.segments = uint8_t(per_lane / run);
    const uint64_t ld = stride ? uint32_t(stride[0]) : natural;
    m.segment_stride = ld * bytes;
  }
}

/// wmma.mma: D = A x B + C over the whole warp's fragments. f16 products are
/// exact in f32 and accumulate in f32 (rounded once to f16 for an f16 D);
/// 8-bit integers accumulate in s32, wrapping, or clamped with .satfinite.
[[gnu::noinline]] void exec_wmma_mma(const Instruction& in, uint32_t mask, Warp& w) {
  if (mask != 0xffffffffu) unsupported(in, mask, w, "wmma needs all 32 threads of the warp (.sync.aligned)");
  const ptx::WarpMatrixShape& s = in.wmma;
  const unsigned M = s.m, N = s.n, K = s.k;
  const DataType ab = s.a_type;
  const bool integer = ab == DataType::S8 || ab == DataType::U8;
  auto gather = [&](ptx::MatrixFragment f, const Operand& frag, DataType t, bool row_major) {
    const unsigned per_lane = ptx::wmma_lane_elements(s, f, t), cols = ptx::wmma_cols(s, f);
    std::vector<double> m(ptx::wmma_rows(s, f) * cols);
    // Lanes in reverse, so that an element held by several lanes takes the
    // lowest lane's copy.
    for (unsigned lane = kLanes; lane-- > 0;)
      for (unsigned e = 0; e < per_lane; ++e) {
        const MatrixCoordinate c = wmma_element(s, f, row_major, per_lane, lane, e);
        const uint64_t raw = fragment_get(w, frag, lane, e, ptx::type_bytes(t));
        double v;
        switch (t) {
          case DataType::F16: v = fp::half_to_float(uint16_t(raw)); break;
          case DataType::F32: v = fp::f32(uint32_t(raw)); break;
          case DataType::S8: v = int8_t(raw); break;
          case DataType::U8: v = uint8_t(raw); break;
          default: v = int32_t(uint32_t(raw)); break;
        }
        m[c.row * cols + c.col] = v;
      }
    return m;
  };
  const auto a = gather(ptx::MatrixFragment::A, in.src[0], ab, s.a_row_major);
  const auto b = gather(ptx::MatrixFragment::B, in.src[1], ab, s.b_row_major);
  const auto c = gather(ptx::MatrixFragment::C, in.src[2], in.type2, true);
  std::vector<uint64_t> d(M * N);
  for (unsigned r = 0; r < M; ++r)
    for (unsigned col = 0; col < N; ++col) {
      if (integer) {
        int64_t acc = int64_t(c[r * N + col]);
        for (unsigned k = 0; k < K; ++k) acc += int64_t(a[r * K + k]) * int64_t(b[k * N + col]);
        if (s.satfinite) acc = std::clamp<int64_t>(acc, INT32_MIN, INT32_MAX);
        d[r * N + col] = uint32_t(uint64_t(acc));
        continue;
      }
      float acc = float(c[r * N + col]);
      for (unsigned k = 0; k < K; ++k) acc = std::fma(float(a[r * K + k]), float(b[k * N + col]), acc);
      d[r * N + col] = in.type == DataType::F16 ? fp::float_to_half(acc, ptx::Rounding::Rn) : fp::bits(acc);
    }
  const unsigned d_bytes = ptx::type_bytes(in.type);
  const unsigned per_lane = ptx::wmma_lane_elements(s, ptx::MatrixFragment::D, in.type);
  for (unsigned lane = 0; lane < kLanes; ++lane)
    for (unsigned e = 0; e < per_lane; ++e) {
      const MatrixCoordinate p = wmma_element(s, ptx::MatrixFragment::D, true, per_lane, lane, e);
      fragment_set(w, in.dst, lane, e, d_bytes, d[p.row * N + p.col]);
    }
}

template <typename U>
bool store_lanes(const LanePtrs& lp, const uint64_t* addr, uint32_t mask, unsigned off, const uint64_t* v) {
  bool changed = false;
  for_lane_ptrs(lp, addr, mask, [&](unsigned l, uint8_t* p) {
    const U x = U(v[l]);
    U old;
    std::memcpy(&old, p + off, sizeof(U));
    if (old != x) {
      std::memcpy(p + off, &x, sizeof(U));
      changed = true;
    }
  });
  return changed;
}

[[gnu::noinline]] void exec_st(const Instruction& in, uint32_t mask, Warp& w) {
  const unsigned es = ptx::type_bytes(in.type);
  const unsigned n = in.vec ? in.vec : 1;
  if (es == 0 || n > 4) unsupported(in, mask, w, "");
  const unsigned total = es * n;
  alignas(64) uint64_t local_addr[kLanes];
  uint64_t* addr = address_buffer(w, local_addr);
  // A store into the kernel's parameters or constant bank (PTX has none,
  // but the model accepts them) writes buffers every SM reads.
  if (in.space == StateSpace::Param || in.space == StateSpace::Const || in.space == StateSpace::Generic)
    core::await_issue_order();
  LanePtrs lp;
  resolve_lanes(in, in.dst, mask, w, total, addr, lp);
  record(w, lp.space, mask, total, true, false);

  alignas(64) Scratch scratch[4];
  const uint64_t* vals[4] = {nullptr, nullptr, nullptr, nullptr};
  const Operand& v = in.src[0];
  if (v.kind == OperandKind::Vector) {
    if (v.count < n) unsupported(in, mask, w, "vector size");
    for (unsigned i = 0; i < n; ++i) {
      if (v.vregs[i] == ptx::kNoReg) {
        fill(scratch[i], 0);
        vals[i] = scratch[i];
      } else {
        vals[i] = w.reg(v.vregs[i]);
      }
    }
  } else {
    if (n != 1) unsupported(in, mask, w, "vector store from a scalar");
    vals[0] = lanes_of(in, v, mask, w, scratch[0]);
  }
  bool changed = false;
  for (unsigned i = 0; i < n; ++i) {
    const unsigned off = i * es;
    switch (es) {
      case 1: changed |= store_lanes<uint8_t>(lp, addr, mask, off, vals[i]); break;
      case 2: changed |= store_lanes<uint16_t>(lp, addr, mask, off, vals[i]); break;
      case 4: changed |= store_lanes<uint32_t>(lp, addr, mask, off, vals[i]); break;
      default: changed |= store_lanes<uint64_t>(lp, addr, mask, off, vals[i]); break;
    }
  }
  if (changed) w.note_progress();
  w.end_global_access();
}

/// New memory value of an atomic: `b` is the operand (cas: the new value),
/// `cmp` the cas compare value.
template <typename T>
inline T atom_apply(AtomOp op, T old, T b, T cmp, bool& ok) {
  if constexpr (std::is_same_v<T, Half>) {
    ok = false;  // f16 atomics are not supported
    return old;
  } else if constexpr (kIsFloat<T>) {
    switch (op) {
      case AtomOp::Add:
        if constexpr (std::is_same_v<T, float>) return fp::ftz(fp::ftz(old) + fp::ftz(b));  // atom.add.f32 flushes
        else return old + b;
      case AtomOp::Exch: return b;
      default: ok = false; return old;
    }
  } else {
    switch (op) {
      case AtomOp::Add: return intops::wrap_add(old, b);
      case AtomOp::Min: return std::min(old, b);
      case AtomOp::Max: return std::max(old, b);
      case AtomOp::Inc: return old >= b ? T(0) : T(old + 1);
      case AtomOp::Dec: return (old == 0 || old > b) ? b : T(old - 1);
      case AtomOp::And: return T(old & b);
      case AtomOp::Or: return T(old | b);
      case AtomOp::Xor: return T(old ^ b);
      case AtomOp::Exch: return b;
      case AtomOp::Cas: return old == cmp ? b : old;
      default: ok = false; return old;
    }
  }
}

[[gnu::noinline]] void exec_atom(const Instruction& in, uint32_t mask, Warp& w) {
  // atom d, [a], b{, c}; red [a], b (the address may come as dst, like st).
  const bool addr_in_dst = in.dst.kind == OperandKind::Address;
  const Operand& aop = addr_in_dst ? in.dst : in.src[0];
  const unsigned vi = addr_in_dst ? 0 : 1;
  const AtomOp op = in.atom;
  const bool cas = op == AtomOp::Cas;
  const unsigned es = ptx::type_bytes(in.type);
  const bool half_float_add = ptx::type_is_half(in.type);  // atom.add.noftz.{f16,bf16}{,x2}
  if (es < 2 || (es == 2 && !cas && !half_float_add)) unsupported(in, mask, w, "atomic operand size");
  if ((op == AtomOp::Inc || op == AtomOp::Dec) && in.type != DataType::U32)
    unsupported(in, mask, w, "atom.inc/dec need .u32");

  alignas(64) uint64_t local_addr[kLanes];
  uint64_t* addr = address_buffer(w, local_addr);
  LanePtrs lp;
  resolve_lanes(in, aop, mask, w, es, addr, lp);
  if (lp.space != StateSpace::Global && lp.space != StateSpace::Shared)
    unsupported(in, mask, w, "atomics need global or shared memory");
  record(w, lp.space, mask, es, in.op == Opcode::Red, true);

  alignas(64) Scratch s1, s2;
  // cas d, [a], b, c: b is the compare value, c the new one.
  const uint64_t* b = lanes_of(in, in.src[vi], mask, w, s1);
  const uint64_t* c = cas ? lanes_of(in, in.src[vi + 1], mask, w, s2) : b;
  uint64_t* d = (in.op == Opcode::Atom && in.dst.kind == OperandKind::Reg) ? w.reg(in.dst.reg) : nullptr;

  bool changed = false, ok = true;
  auto run = [&](auto tag) {
    using T = typename decltype(tag)::type;
    // Lanes in ascending order, each seeing the previous lanes' results.
    for_lane_ptrs(lp, addr, mask, [&](unsigned l, uint8_t* p) {
      T old;
      std::memcpy(&old, p, sizeof(T));
      const T nv = cas ? atom_apply(op, old, get<T>(c[l]), get<T>(b[l]), ok)
                       : atom_apply(op, old, get<T>(b[l]), old, ok);
      if (std::memcmp(&nv, &old, sizeof(T)) != 0) {
        std::memcpy(p, &nv, sizeof(T));
        changed = true;
      }
      if (d) d[l] = put(old);
    });
  };
  if (half_float_add) {
    // Each 16-bit half rounds to nearest even; .noftz keeps subnormals.
    fp::HalfArith arith;
    arith.format = fp::half_format_of(in.type);
    for_lane_ptrs(lp, addr, mask, [&](unsigned l, uint8_t* p) {
      uint32_t old = 0;
      std::memcpy(&old, p, es);
      uint32_t nv = fp::half_add(uint16_t(old), uint16_t(b[l]), arith);
      if (es == 4) nv |= uint32_t(fp::half_add(uint16_t(old >> 16), uint16_t(b[l] >> 16), arith)) << 16;
      if (nv != old) {
        std::memcpy(p, &nv, es);
        changed = true;
      }
      if (d) d[l] = old;
    });
  } else if (es == 2) {
    run(Tag<uint16_t>{});
  } else if (!with_any(in.type, run)) {
    unsupported(in, mask, w, "");
  }
  if (!ok) unsupported(in, mask, w, "atomic operation for this type");
  if (changed) w.note_progress();
  w.end_global_access();
}

// ------------------------------------------------------------ warp-level

[[gnu::noinline]] void exec_activemask(const Instruction& in, uint32_t mask, Warp& w) {
  uint64_t* d = dst_reg(in, mask, w);
  for_lanes(mask, [&](unsigned l) { d[l] = mask; });
}

[[gnu::noinline]] void exec_shfl(const Instruction& in, uint32_t mask, Warp& w) {
  alignas(64) Scratch s0, s1, s2;
  const uint64_t* a = lanes_of(in, in.src[0], mask, w, s0);
  const uint64_t* b = lanes_of(in, in.src[1], mask, w, s1);
  const uint64_t* c = lanes_of(in, in.src[2], mask, w, s2);
  const ptx::ShflMode mode = in.shfl;
  uint32_t result[kLanes];
  uint32_t valid = 0;
  for_lanes(mask, [&](unsigned lane) {
    const int bval = int(b[lane] & 31u);
    const int cval = int(c[lane] & 31u);
    const int seg = int((c[lane] >> 8) & 31u);
    const int l = int(lane);
    const int max_lane = (l & seg) | (cval & ~seg);
    const int min_lane = l & seg;
    int j = l;
    bool p = false;
    switch (mode) {
      case ptx::ShflMode::Up: j = l - bval; p = j >= max_lane; break;
      case ptx::ShflMode::Down: j = l + bval; p = j <= max_lane; break;
      case ptx::ShflMode::Bfly: j = l ^ bval; p = j <= max_lane; break;
      case ptx::ShflMode::Idx: j = min_lane | (bval & ~seg); p = j <= max_lane; break;
    }
    // Out of range, or a source lane that is not taking part: keep our own value.
    if (!p || j < 0 || j > 31 || !((mask >> j) & 1u)) {
      j = l;
      p = false;
    }
    result[lane] = uint32_t(a[j]);
    valid |= uint32_t(p) << lane;
  });
  uint64_t* d = dst_reg(in, mask, w);
  for_lanes(mask, [&](unsigned l) { d[l] = result[l]; });
  write_pred(w, in.dst2, valid, mask);
}

[[gnu::noinline]] void exec_vote(const Instruction& in, uint32_t mask, Warp& w) {
  const uint32_t v = pred_value(in.src[0], w) & mask;
  if (in.vote == ptx::VoteMode::Ballot) {
    uint64_t* d = dst_reg(in, mask, w);
    for_lanes(mask, [&](unsigned l) { d[l] = v; });
    return;
  }
  bool r = false;
  switch (in.vote) {
    case ptx::VoteMode::All: r = v == mask; break;
    case ptx::VoteMode::Any: r = v != 0; break;
    default: r = v == 0 || v == mask; break;
  }
  write_pred(w, in.dst, r ? kAllLanes : 0, mask);
}

[[gnu::noinline]] void exec_match(const Instruction& in, uint32_t mask, Warp& w) {
  alignas(64) Scratch s0;
  const uint64_t* a = lanes_of(in, in.src[0], mask, w, s0);
  const uint64_t vm = ptx::type_bytes(in.type) == 8 ? ~0ull : 0xffffffffull;
  uint32_t result[kLanes];
  for_lanes(mask, [&](unsigned l) {
    uint32_t m = 0;
    for (uint32_t r = mask; r; r &= r - 1) {
      const unsigned j = unsigned(__builtin_ctz(r));
      if (((a[j] ^ a[l]) & vm) == 0) m |= 1u << j;
    }
    result[l] = m;
  });
  uint64_t* d = dst_reg(in, mask, w);
  if (in.vote == ptx::VoteMode::All) {
    // match.all: the whole set when every lane agrees, else 0; p says which.
    const bool all = result[__builtin_ctz(mask)] == mask;
    for_lanes(mask, [&](unsigned l) { d[l] = all ? mask : 0; });
    write_pred(w, in.dst2, all ? kAllLanes : 0, mask);
    return;
  }
  for_lanes(mask, [&](unsigned l) { d[l] = result[l]; });
}

[[noreturn]] __attribute__((cold, noinline)) void not_a_data_instruction(const Instruction& in, uint32_t mask,
                                                                         Warp& w) {
  unsupported(in, mask, w, "control instruction on the data path");
}

}  // namespace

// The handlers above are kept out of line (noinline) so that this dispatch
// needs no stack frame: their 64-byte-aligned scratch arrays would otherwise
// make every instruction pay for one.
void execute_instruction(const Instruction& in, uint32_t mask, Warp& warp) {
  if (mask == 0) return;
  switch (in.op) {
    case Opcode::Mov: exec_mov(in, mask, warp); return;
    case Opcode::Cvt: exec_cvt(in, mask, warp); return;
    case Opcode::Cvta: exec_cvta(in, mask, warp); return;
    case Opcode::Add: case Opcode::Sub: exec_add_sub(in, mask, warp); return;
    case Opcode::Mul: exec_mul(in, mask, warp); return;
    case Opcode::Mad: exec_mad(in, mask, warp); return;
    case Opcode::AddCarry: case Opcode::SubCarry: case Opcode::MadCarry: exec_carry(in, mask, warp); return;
    case Opcode::Fma: exec_fma(in, mask, warp); return;
    case Opcode::Mul24: case Opcode::Mad24: exec_mul24(in, mask, warp); return;
    case Opcode::Div: exec_div(in, mask, warp); return;
    case Opcode::Rem: exec_rem(in, mask, warp); return;
    case Opcode::Abs: case Opcode::Neg: exec_abs_neg(in, mask, warp); return;
    case Opcode::Min: case Opcode::Max: exec_min_max(in, mask, warp); return;
    case Opcode::Rcp: case Opcode::Sqrt: case Opcode::Rsqrt: case Opcode::Ex2: case Opcode::Lg2:
    case Opcode::Sin: case Opcode::Cos: case Opcode::Tanh:
      exec_float_unary(in, mask, warp);
      return;
    case Opcode::Copysign: exec_copysign(in, mask, warp); return;
    case Opcode::Testp: exec_testp(in, mask, warp); return;
    case Opcode::And: case Opcode::Or: case Opcode::Xor: case Opcode::Not: case Opcode::Cnot:
      exec_logic(in, mask, warp);
      return;
    case Opcode::Shl: case Opcode::Shr: exec_shift(in, mask, warp); return;
    case Opcode::Popc: case Opcode::Clz: case Opcode::Brev: case Opcode::Bfe: case Opcode::Bfi:
    case Opcode::Bfind: case Opcode::Prmt: case Opcode::Shf:
      exec_bits(in, mask, warp);
      return;
    case Opcode::Dp4a: case Opcode::Dp2a: exec_dot_product(in, mask, warp); return;
    case Opcode::WmmaLoad: case Opcode::WmmaStore: exec_wmma_memory(in, mask, warp); return;
    case Opcode::WmmaMma: exec_wmma_mma(in, mask, warp); return;
    case Opcode::Sad: exec_sad(in, mask, warp); return;
    case Opcode::Lop3: exec_lop3(in, mask, warp); return;
    case Opcode::Fns: exec_fns(in, mask, warp); return;
    case Opcode::Bmsk: case Opcode::Szext: case Opcode::Video: exec_video(in, mask, warp); return;
    case Opcode::Setp: exec_setp(in, mask, warp); return;
    case Opcode::Set: exec_set(in, mask, warp); return;
    case Opcode::Selp: exec_selp(in, mask, warp); return;
    case Opcode::Slct: exec_slct(in, mask, warp); return;
    case Opcode::Ld: exec_ld(in, mask, warp); return;
    case Opcode::St: exec_st(in, mask, warp); return;
    case Opcode::Atom: case Opcode::Red: exec_atom(in, mask, warp); return;
    case Opcode::Shfl: exec_shfl(in, mask, warp); return;
    case Opcode::Vote: exec_vote(in, mask, warp); return;
    case Opcode::Match: exec_match(in, mask, warp); return;
    case Opcode::Activemask: exec_activemask(in, mask, warp); return;
    case Opcode::Tex: case Opcode::Tld4: case Opcode::Suld: case Opcode::Sust:
      execute_texture_instruction(in, mask, warp);
      return;
    case Opcode::Membar: case Opcode::Prefetch: case Opcode::Nop:
      return;  // no functional effect: every access is immediately visible
    default:
      not_a_data_instruction(in, mask, warp);
  }
}

}  // namespace tlmgpu::exec
