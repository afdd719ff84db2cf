// Decoded PTX: the compact form the executor runs. Parsed once; no strings on
// the execution path. Every PC in this file is an index into Module::code.
#pragma once

#include <array>
#include <cstdint>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "model/ptx/ptx_types.h"

namespace tlmgpu::ptx {

constexpr uint32_t kNoReg = std::numeric_limits<uint32_t>::max();
constexpr uint32_t kNoPc = std::numeric_limits<uint32_t>::max();

enum class Opcode : uint8_t {
  // data movement and conversion
  Mov, Cvt, Cvta,
  // integer and float arithmetic
  Add, Sub, Mul, Mad, Mul24, Mad24, Div, Rem, Abs, Neg, Min, Max, Fma,
  // the integer carry chain (add.cc/addc, sub.cc/subc, mad.cc/madc): read
  // and/or write the per-lane carry flag, see Instruction::carry_in/carry_out
  AddCarry, SubCarry, MadCarry,
  Rcp, Sqrt, Rsqrt, Ex2, Lg2, Sin, Cos, Tanh, Copysign, Testp,
  // bit manipulation
  And, Or, Xor, Not, Cnot, Shl, Shr, Popc, Clz, Brev, Bfe, Bfi, Bfind, Prmt,
  Shf,
  // integer dot products and sum of absolute differences (dp4a, dp2a.lo/hi,
  // sad) and find-n-th-set-bit (fns)
  Dp4a, Dp2a, Sad, Fns,
  // bit mask generation and sign/zero extension of a bit field (sm_70+)
  Bmsk, Szext,
  // video instructions, scalar (vadd..vset) and SIMD (vadd2/4 ..), see VideoForm
  Video,
  // comparison and selection
  Setp, Set, Selp, Slct,
  // memory
  Ld, St, Atom, Red, Membar, Prefetch,
  // synchronisation and warp-level
  Bar, Shfl, Vote, Activemask, Match,
  // warp-level matrix multiply-accumulate (wmma.load / wmma.store / wmma.mma)
  WmmaLoad, WmmaStore, WmmaMma,
  // control flow
  Bra, Call, Ret, Exit, Trap, Nop,
  // texture and surface objects (appended so that other opcodes keep their values)
  Tex, Tld4, Suld, Sust,
  // three-input logic by lookup table (lop3.b32 d, a, b, c, immLut; src[3] = immLut)
  Lop3,
  Count_
};

enum class DataType : uint8_t {
  None, Pred,
  B8, B16, B32, B64,
  U8, U16, U32, U64,
  S8, S16, S32, S64,
  F16, F32, F64,
  /// bfloat16, and the packed pairs .f16x2/.bf16x2 (two values in one 32-bit
  /// register, element 0 in the low half; arithmetic applies to each half).
  BF16, F16x2, BF16x2,
};

/// Width in bytes of a data type (Pred -> 0).
inline constexpr unsigned type_bytes(DataType t) {
  switch (t) {
    case DataType::B8: case DataType::U8: case DataType::S8: return 1;
    case DataType::B16: case DataType::U16: case DataType::S16: case DataType::F16: case DataType::BF16: return 2;
    case DataType::B32: case DataType::U32: case DataType::S32: case DataType::F32:
    case DataType::F16x2: case DataType::BF16x2: return 4;
    case DataType::B64: case DataType::U64: case DataType::S64: case DataType::F64: return 8;
    default: return 0;
  }
}
inline constexpr bool type_is_signed(DataType t) {
  return t == DataType::S8 || t == DataType::S16 || t == DataType::S32 || t == DataType::S64;
}
inline constexpr bool type_is_float(DataType t) {
  return t == DataType::F16 || t == DataType::F32 || t == DataType::F64 || t == DataType::BF16 ||
         t == DataType::F16x2 || t == DataType::BF16x2;
}
/// The 16-bit float family: f16, bf16 and their packed pairs.
inline constexpr bool type_is_half(DataType t) {
  return t == DataType::F16 || t == DataType::BF16 || t == DataType::F16x2 || t == DataType::BF16x2;
}
inline constexpr bool type_is_packed_half(DataType t) { return t == DataType::F16x2 || t == DataType::BF16x2; }

enum class CmpOp : uint8_t {
  Eq, Ne, Lt, Le, Gt, Ge,          // ordered (and the integer ones)
  Lo, Ls, Hi, Hs,                  // unsigned integer aliases
  Equ, Neu, Ltu, Leu, Gtu, Geu,    // unordered float
  Num, Nan,
};

enum class BoolOp : uint8_t { None, And, Or, Xor };
enum class Rounding : uint8_t { None, Rn, Rz, Rm, Rp, Rni, Rzi, Rmi, Rpi };
enum class MulMode : uint8_t { None, Lo, Hi, Wide };
enum class AtomOp : uint8_t { None, Add, Min, Max, Inc, Dec, And, Or, Xor, Exch, Cas };
enum class ShflMode : uint8_t { Up, Down, Bfly, Idx };
enum class VoteMode : uint8_t { All, Any, Uni, Ballot };
/// bar.sync / barrier.sync wait; bar.arrive does not; bar.red reduces a predicate.
enum class BarMode : uint8_t { Sync, Arrive, RedPopc, RedAnd, RedOr, Warp };
/// Shift-funnel direction and mode (shf.l / shf.r, .wrap / .clamp).
enum class ShfMode : uint8_t { LeftWrap, LeftClamp, RightWrap, RightClamp };
/// testp.<mode>: which floating-point class the predicate tests for.
enum class TestpMode : uint8_t { Finite, Infinite, Number, NotANumber, Normal, Subnormal };
/// prmt.b32 selector mode; Default is the generic byte permute with the c selector.
enum class PrmtMode : uint8_t { Default, F4e, B4e, Rc8, Ecl, Ecr, Rc16 };

/// tex/tld4/suld/sust geometry (.1d .2d .3d .a1d .a2d .cube).
enum class TexGeom : uint8_t { D1, D2, D3, A1D, A2D, Cube };
/// tex level-of-detail form: implicit (compute has none: level 0), .level, .grad.
enum class TexLod : uint8_t { Base, Level, Grad };
/// suld/sust out-of-range handling (.trap .clamp .zero).
enum class SurfClamp : uint8_t { Trap, Clamp, Zero };
/// Video instruction operation (PTX ISA "Scalar Video Instructions" and
/// "SIMD Video Instructions").
enum class VideoOp : uint8_t { Add, Sub, Absdiff, Min, Max, Avrg, Shl, Shr, Mad, Set };
/// Scalar video secondary operation on the result and c: .add/.min/.max, or
/// Merge for the 'd.dsel' form (the result's byte/half-word replaces that part of c).
enum class VideoSecondary : uint8_t { None, Add, Min, Max, Merge };
/// Scalar part selector codes (asel/bsel/dsel): .b0-.b3, .h0, .h1, whole word.
constexpr uint8_t kVideoSelB0 = 0, kVideoSelH0 = 4, kVideoSelH1 = 5, kVideoSelWord = 6;

/// Decoded form of a video instruction (Opcode::Video). Signedness comes from
/// the three .u32/.s32 types (vset has no dtype: its result is unsigned).
struct VideoForm {
  VideoOp op = VideoOp::Add;
  VideoSecondary op2 = VideoSecondary::None;
  uint8_t lanes = 1;  ///< 1: scalar; 2: vop2 (half-words); 4: vop4 (bytes)
  bool d_signed = false, a_signed = false, b_signed = false;
  /// Scalar: kVideoSel* codes. SIMD: element i takes part (sel >> 4i) & 15 of
  /// the 8-byte / 4-half-word pair {b, a} (a is parts 0..3 for bytes, 0..1 for halves).
  uint16_t asel = kVideoSelWord, bsel = kVideoSelWord;
  /// Scalar: the merge selector (kVideoSelWord without one). SIMD: bit i set
  /// when element i of d is written (.mask); the others come from c.
  uint8_t dsel = kVideoSelWord;
  bool simd_accumulate = false;  ///< SIMD .add: d = c + sum of the masked elements
  uint8_t scale = 0;             ///< vmad .shr7 / .shr15: right shift of the result
  bool plus_one = false;         ///< vmad .po: (a*b) + c + 1
  bool neg_product = false;      ///< vmad: exactly one of a, b negated
  bool neg_c = false;            ///< vmad: c negated
  bool shift_clamp = false;      ///< vshl/vshr .clamp (else .wrap)
};

/// Which execution unit an instruction needs; the timing model uses it.
enum class UnitClass : uint8_t { SP, SFU, DP, MEM, CTRL, BAR };

enum class SpecialReg : uint8_t {
  TidX, TidY, TidZ, NtidX, NtidY, NtidZ,
  CtaidX, CtaidY, CtaidZ, NctaidX, NctaidY, NctaidZ,
  LaneId, WarpId, NWarpId, SmId, NSmId, GridId,
  LanemaskEq, LanemaskLt, LanemaskLe, LanemaskGt, LanemaskGe,
  Clock, Clock64, GlobalTimer,
  /// %envreg0..31: the driver's per-launch environment words (EnvReg0 + n).
  EnvReg0, EnvReg31 = EnvReg0 + 31,
};

enum class OperandKind : uint8_t {
  None,
  Reg,      ///< reg = register slot
  Pred,     ///< reg = predicate index; negate for '!%p'
  Imm,      ///< imm = raw bits in the instruction's type (floats as IEEE bits)
  Special,  ///< sreg
  Vector,   ///< count registers in vregs ({%f1,%f2}); kNoReg for '_'
  Address,  ///< [reg + imm] or [imm]; reg == kNoReg when absolute
  Label,    ///< resolved: imm = target PC
  Symbol,   ///< address of a module .global variable: symbol index, patched at load
};

struct Operand {
  OperandKind kind = OperandKind::None;
  uint8_t count = 0;
  bool negate = false;
  SpecialReg sreg = SpecialReg::TidX;
  uint32_t reg = kNoReg;
  /// Up to 8: wmma fragments are vectors of eight registers.
  std::array<uint32_t, 8> vregs{{kNoReg, kNoReg, kNoReg, kNoReg, kNoReg, kNoReg, kNoReg, kNoReg}};
  /// Imm value, Label target, Address offset (two's complement), or for an
  /// Address/Symbol based on a module .global symbol, the byte offset added to
  /// that symbol's address.
  uint64_t imm = 0;
  /// Module::globals index for Symbol and for Address on a .global symbol
  /// (patched to an absolute address by the loader); -1 otherwise.
  int32_t symbol = -1;
};

/// Which matrix of D = A x B + C a wmma fragment holds.
enum class MatrixFragment : uint8_t { A, B, C, D };

/// The qualifiers of a wmma instruction. load: `fragment` (A, B or C),
/// `row_major` its layout in memory, Instruction::type its element type.
/// store: fragment D. mma: a_row_major/b_row_major the A and B layouts,
/// `a_type` the A and B element type, Instruction::type D's, type2 C's.
struct WarpMatrixShape {
  MatrixFragment fragment = MatrixFragment::A;
  uint8_t m = 0, n = 0, k = 0;
  bool row_major = true;
  bool a_row_major = true, b_row_major = true;
  bool satfinite = false;
  DataType a_type = DataType::None;
};

/// Rows and columns of a wmma fragment's matrix: A is m x k, B k x n, C and D m x n.
inline constexpr unsigned wmma_rows(const WarpMatrixShape& s, MatrixFragment f) {
  return f == MatrixFragment::B ? s.k : s.m;
}
inline constexpr unsigned wmma_cols(const WarpMatrixShape& s, MatrixFragment f) {
  return f == MatrixFragment::A ? s.k : s.n;
}
/// Elements of a fragment each lane holds. The PTX ISA gives every f16 A/B
/// fragment sixteen halves (eight .f16x2 registers) whatever the shape, so
/// those hold each element in more than one lane; every other fragment
/// spreads its matrix once over the 32 lanes.
inline constexpr unsigned wmma_lane_elements(const WarpMatrixShape& s, MatrixFragment f, DataType t) {
  if (t == DataType::F16 && (f == MatrixFragment::A || f == MatrixFragment::B)) return 16;
  return wmma_rows(s, f) * wmma_cols(s, f) / 32;
}
/// Registers of a fragment: elements packed into 32-bit registers.
inline constexpr unsigned wmma_fragment_registers(const WarpMatrixShape& s, MatrixFragment f, DataType t) {
  const unsigned bytes = wmma_lane_elements(s, f, t) * type_bytes(t);
  return bytes < 4 ? 1 : bytes / 4;
}

struct SourceLoc {
  uint32_t line = 0;
  uint32_t column = 0;
};

/// Operand layout (as the parser fills it):
///  ld: dst = Reg or Vector, src[0] = Address.  st: dst = Address, src[0] = Reg/Imm/Vector.
///  ld/st .param of a .func parameter or a call-sequence .param: space = Local,
///  Address offset already in the thread's local area.  Generic access to a
///  non-global symbol ([sym]): space = the symbol's space.
///  atom: dst, src[0] = Address, src[1] = b, src[2] = c (cas).  red: no dst, src[0] = Address, src[1] = b.
///  prefetch: src[0] = Address.
///  setp/set with boolop: src[2] = Pred (negate for '!').  selp: src[2] = Pred.
///  slct: src[2] is compared with 0 as type2.
///  bfi: src[0] = f (inserted bits), src[1] = base, src[2] = pos, src[3] = len.
///  mov unpack 'mov.b64 {%r1,%r2}, %rd1': dst = Vector; pack: src[0] = Vector.
///  bar Sync/Arrive: src[0] = barrier id, src[1] = thread count (kind None if absent).
///  bar Red*: dst (U32 for popc, Pred for and/or), src[0] = id, src[1] = count
///  (kind None if absent), src[2] = Pred (negate for '!').  bar Warp: src[0] = member mask.
///  video: dst, src[0] = a, src[1] = b, src[2] = c (Imm 0 when absent); num_src 3.
///  shfl: dst (+ dst2 Pred if '%r|%p'), src[0] = a, src[1] = lane/delta, src[2] = clamp,
///  src[3] = member mask (num_src 4 for .sync, 3 otherwise).
///  vote: src[0] = Pred (negate for '!'), src[1] = member mask (.sync only);
///  dst is Reg for ballot, else Pred.
///  match: vote = Any or All; src[0] = value, src[1] = member mask; match.all may set dst2.
///  wmma.load: dst = Vector (the fragment), src[0] = Address, src[1] = stride in
///  elements (kind None: the layout's natural leading dimension).  wmma.store:
///  dst = Address, src[0] = Vector, src[1] = stride.  wmma.mma: dst = D, src[0..2]
///  = A, B, C vectors.
///  tex/tld4: dst = Vector(4), src[0] = Reg (texture object handle), src[1] = Vector of
///  coordinates (type2; a1d/a2d: element 0 is the s32 layer), tex.level: src[2] = lod,
///  tex.grad: src[2] / src[3] = Vector ddx / ddy.  suld: dst = Reg or Vector(vec),
///  src[0] = handle, src[1] = coordinates (x in bytes).  sust: no dst, src[0] = handle,
///  src[1] = coordinates, src[2] = value (Reg/Imm or Vector).
///  bra: target and src[0] (Label) = target PC.  call: target = Module::calls index, no operands.
struct Instruction {
  Opcode op = Opcode::Nop;
  DataType type = DataType::None;   ///< main type; cvt: destination type
  DataType type2 = DataType::None;  ///< cvt: source type; set: compare type
  StateSpace space = StateSpace::Generic;  ///< ld/st/atom/red/cvta; cvta: the non-generic side
  UnitClass unit = UnitClass::SP;
  CmpOp cmp = CmpOp::Eq;
  BoolOp boolop = BoolOp::None;     ///< setp/set .and/.or/.xor with src[2] predicate
  Rounding rnd = Rounding::None;
  MulMode mul = MulMode::None;
  AtomOp atom = AtomOp::None;
  ShflMode shfl = ShflMode::Idx;
  VoteMode vote = VoteMode::All;
  BarMode bar = BarMode::Sync;
  ShfMode shf = ShfMode::LeftWrap;
  TestpMode testp = TestpMode::Finite;  ///< testp.<mode>
  PrmtMode prmt = PrmtMode::Default;    ///< prmt.b32.<mode>
  WarpMatrixShape wmma;                 ///< wmma.*
  TexGeom tex_geom = TexGeom::D1;       ///< tex/tld4/suld/sust
  TexLod tex_lod = TexLod::Base;        ///< tex
  SurfClamp surf_clamp = SurfClamp::Trap;  ///< suld/sust
  uint8_t tld4_comp = 0;                ///< tld4.{r,g,b,a}: channel 0-3
  uint8_t vec = 1;                  ///< ld/st vector width (1, 2, 4)
  bool ftz = false, sat = false, approx = false, uni = false;
  bool to_generic = false;          ///< cvta: true for cvta.SPACE (to generic), false for cvta.to.SPACE
  bool volatile_ = false;
  bool noncoherent = false;         ///< ld.global.nc: read-only data, may be read before earlier stores
  bool shiftamt = false;            ///< bfind.shiftamt
  bool relu = false;                ///< fma.relu (f16/bf16): negative results become +0
  bool nan_out = false;             ///< min/max .NaN: a NaN operand gives the canonical NaN
  bool clamp = false;               ///< bmsk/szext .clamp (else .wrap)
  /// Trap: not in the source; it follows a body whose end can be reached
  /// (fall-through or a label there), so running off the end is a fault.
  bool end_of_body = false;
  VideoForm video;                  ///< Opcode::Video
  /// Carry chain: carry_in for addc/subc/madc (adds, or for subc subtracts, the
  /// lane's carry flag), carry_out for '.cc' (writes the flag: the carry, or for
  /// sub the borrow, out of the operation's width).
  bool carry_in = false, carry_out = false;
  uint8_t num_src = 0;
  /// Guard predicate index or kNoReg; guard_negated for '@!%p'.
  uint32_t guard = kNoReg;
  bool guard_negated = false;
  Operand dst;       ///< destination (Reg, Pred, Vector or Address for st)
  Operand dst2;      ///< second destination: setp '%p|%q', shfl '%r|%p'
  std::array<Operand, 4> src{};
  /// Bra: target PC. Call: index into Module::calls.
  uint32_t target = kNoPc;
  /// Immediate post-dominator PC of a branch (kNoPc: function exit); set by cfg analysis.
  uint32_t reconverge_pc = kNoPc;
  SourceLoc loc;
};

/// Byte copies in the thread's local memory that a `call` performs.
struct ParamCopy {
  uint32_t from = 0, to = 0, bytes = 0;
};

/// Device runtime functions nvcc declares `.extern .func` and the CUDA
/// runtime provides; the model implements them (model/exec/device_runtime.h).
enum class BuiltinFunction : uint8_t { None, Vprintf, Malloc, Free, AssertFail };

/// Function symbols used as values (function pointers, vtables) get distinct
/// addresses in a window no data lives in: base + function index x 16.
constexpr uint64_t kFunctionAddressBase = 0x00007c0000000000ull;
constexpr uint64_t kFunctionAddressStride = 16;
inline uint64_t function_address(uint32_t function_index) {
  return kFunctionAddressBase + uint64_t(function_index) * kFunctionAddressStride;
}

struct CallSite {
  uint32_t callee = 0;               ///< Module::functions index
  std::vector<ParamCopy> args;       ///< caller's param blocks -> callee's params
  std::vector<ParamCopy> rets;       ///< callee's return params -> caller's blocks (after ret)
  /// Built-in: args[k].from / rets[k].to are the caller's param blocks
  /// (to / from unused); callee is unused.
  BuiltinFunction builtin = BuiltinFunction::None;
  /// Indirect call `call (r), %rd, (a), proto;`: the register holding the
  /// function address; args[k] / rets[k] hold the caller's blocks (from / to)
  /// and sizes, matched to the callee's parameters when the call runs.
  uint32_t target_reg = 0xffffffffu;
  bool indirect() const { return target_reg != 0xffffffffu; }
};

struct KernelParam {
  std::string name;
  DataType type = DataType::B8;
  uint32_t size = 0;     ///< bytes (arrays: .param .align 8 .b8 p[16])
  uint32_t align = 1;
  uint32_t offset = 0;   ///< in the kernel parameter buffer
};

struct Function {
  std::string name;
  bool is_entry = false;
  uint32_t entry_pc = 0;       ///< first instruction
  uint32_t end_pc = 0;         ///< one past the last instruction
  std::vector<KernelParam> params;   ///< kernels only: the launch ABI
  uint32_t param_bytes = 0;          ///< kernels only: parameter buffer size
  /// Register slots a warp must allocate: the same for every function of the
  /// module (device functions own the low slots, each kernel's follow them).
  uint32_t num_regs = 0;
  uint32_t num_preds = 0;
  /// Per register slot (index = slot): 32-bit hardware registers one value of
  /// its declared type takes (2 for 64-bit types, 1 otherwise); 0 for slots
  /// this function does not declare and for predicates.
  std::vector<uint8_t> reg_units;
  /// Registers per thread ptxas would allocate, as estimated by
  /// estimate_registers (model/ptx/register_allocation.h), callees included;
  /// not capped at any architecture's limit. The occupancy calculation uses it.
  uint32_t regs_per_thread = 0;
  /// Kernels only: static shared memory per CTA, what ptxas would allocate
  /// for this kernel: the .shared variables it and the functions it may call
  /// name, packed. Their addresses are the module's layout (Module::
  /// static_shared_bytes spans every kernel's); this is what a CTA is charged.
  uint32_t static_shared_bytes = 0;
  /// .func only: local-memory offsets and sizes of its return values and
  /// parameters (what an indirect call copies to and from).
  std::vector<ParamCopy> ret_slots, param_slots;
  // Directives; 0 when absent.
  std::array<uint32_t, 3> maxntid{{0, 0, 0}};
  std::array<uint32_t, 3> reqntid{{0, 0, 0}};
  uint32_t minnctapersm = 0;
  /// A device function on a call-graph cycle. Registers and locals are
  /// static per function, so a call of it saves the activation it may
  /// overwrite: register slots [reg_first, reg_end), predicates
  /// [pred_first, pred_end) and local bytes [local_first, local_end), which
  /// include its parameters and the call blocks declared in its body.
  bool recursive = false;
  uint32_t reg_first = 0, reg_end = 0, pred_first = 0, pred_end = 0;
  uint32_t local_first = 0, local_end = 0;
  uint32_t maxnreg = 0;
  std::vector<std::string> pragmas;  ///< .pragma strings in the body, e.g. "nounroll"
  /// PCs of the instructions that follow a `.pragma "nounroll"` (the loop
  /// headers nvcc marks; the register estimate does not unroll those loops).
  std::vector<uint32_t> nounroll_pcs;
  SourceLoc loc;
};

/// A module-scope variable (.global / .const / .shared), or a .shared / .local
/// declared inside a function.
struct ModuleVariable {
  std::string name;
  StateSpace space = StateSpace::Global;
  uint32_t size = 0;        ///< bytes; 0 for `extern .shared x[]`
  uint32_t align = 1;
  uint64_t offset = 0;      ///< within its space's segment (see Module)
  bool is_extern = false;   ///< dynamic shared memory
  std::vector<uint8_t> init;  ///< initializer bytes (empty: zero)
  /// Initializer words that hold a .global variable's address
  /// (`generic(var)` or `var`): the loader adds that variable's device address.
  struct AddressInit {
    uint32_t offset = 0;   ///< byte offset of the 64-bit word in init
    uint32_t global = 0;   ///< Module::globals index
  };
  std::vector<AddressInit> address_inits;
};

struct Module {
  std::string file;                       ///< for messages
  uint32_t version_major = 0, version_minor = 0;
  std::string target;
  uint32_t address_size = 64;
  std::vector<Instruction> code;          ///< all functions, concatenated
  std::vector<Function> functions;
  std::map<std::string, uint32_t> function_index;
  std::vector<CallSite> calls;
  std::vector<ModuleVariable> globals;    ///< .global variables: offset in the global segment
  std::vector<ModuleVariable> consts;     ///< .const variables: offset in the const bank
  std::vector<ModuleVariable> shareds;    ///< static .shared: offset in the CTA's shared memory
  uint32_t global_segment_bytes = 0;
  uint32_t const_bank_bytes = 0;
  std::vector<uint8_t> const_bank;        ///< initial const bank image
  /// Dynamic shared memory starts at this (aligned) offset; every extern
  /// .shared symbol has it as its offset. Function-level .shared of different
  /// kernels overlap (only one kernel runs per launch).
  uint32_t static_shared_bytes = 0;
  uint32_t local_bytes_per_thread = 0;    ///< all functions' .local data and call params
  /// Per instruction: textual form for traces and messages (debug only; never on the hot path).
  std::vector<std::string> text;
};

const char* opcode_name(Opcode op);
const char* type_name(DataType t);
const char* space_name(StateSpace s);

}  // namespace tlmgpu::ptx
