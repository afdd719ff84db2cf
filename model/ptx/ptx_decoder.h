// The PTX decoder: the class both decode sources define. ptx_decode.cpp
// holds the driver (functions, scopes and register binding, operand syntax and
// meaning, the instruction loop); ptx_decode_families.cpp one handler per
// instruction family and the opcode table. Internal to the decode phase
// (its interface is ptx_decode.h).
#pragma once

#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "model/ptx/ptx_decode.h"

namespace tlmgpu::ptx::decoding {

using sv = std::string_view;

// Modifier and name tables (look_up_name).
std::optional<CmpOp> cmp_of(sv m);
std::optional<Rounding> frnd_of(sv m);
std::optional<Rounding> irnd_of(sv m);

/// Memory-ordering and scope qualifiers the functional model can ignore.
bool is_sem_or_scope(sv m);

/// Cache-policy qualifiers (hints only). .L2::cache_hint is not here: it takes an extra operand.
bool is_cache_hint(sv m);
/// %tid.x, %laneid, %envreg3, ...
std::optional<SpecialReg> special_of(sv n);

/// Registers a thread would need for one register of type t, in 32-bit units.
uint32_t reg_units(DataType t);

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

/// What a declared name is bound to in a scope.
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
  void decode_all();

 private:
  void decode_function(FuncDef& f);
  void append_end_of_body_guard(const Function& fn);
  /// Records that the function being decoded names shared variable `v`.
  void note_shared_use(const Decl& v);
  /// Function::static_shared_bytes of each kernel, from the shared variables
  /// it and the functions it may call name.
  void charge_static_shared_memory();
  void declare(const Decl& d, Binding b, bool range);
  void bind_reg(const Decl& d);
  void bind_var(const Decl& d);

  /// Looks a name up through the scopes, then module variables.
  const Binding* lookup(sv name);

  // -------------------------------------------------- operand syntax

  const Token& tok(size_t i) const { return toks_[i]; }

  /// Parses the operands in [p, e): comma-separated RawOps.
  std::vector<RawOp> parse_operands(size_t p, size_t e);

  /// The register name of 'r.sel' (video selectors follow a '.').
  static sv register_part(sv name) { return name.substr(0, name.find('.')); }
  const Token& need(size_t p, size_t e, const char* what);
  RawOp parse_operand(size_t& p, size_t e);

  /// The ', {c0, ...}' after a texture/surface handle in '[...]'.
  void parse_texture_coordinates(size_t& p, size_t e, RawOp& r);

  /// [-]integer, as in [%rd+-4] or [%rd-4] (the '+' already consumed).
  int64_t parse_offset(size_t& p, size_t e);

  // -------------------------------------------------- operand meaning

  [[noreturn]] void unsupported(const Dec& d);
  [[noreturn]] void bad_type(const Dec& d, DataType t);
  void want_count(const Dec& d, size_t lo, size_t hi = 0);
  std::string nth(size_t i) const;
  const Binding& reg_binding(const RawOp& r, sv name);

  /// A destination register; a predicate when `pred`.
  Operand dst_operand(const Dec& d, size_t i, bool pred, bool allow_pipe = false);

  /// A register, immediate, special register or symbol address; a predicate
  /// (possibly negated) when immty is Pred.
  Operand src_operand(const Dec& d, size_t i, DataType immty);
  const Decl& var_decl(const RawOp& r, sv name);

  /// Address of a variable as a value: .global -> Symbol (patched by the
  /// loader); other spaces -> the resolved offset in that space.
  Operand symbol_operand(const RawOp& r);

  /// The space the variable's data is actually in (non-kernel params live in local memory).
  static StateSpace home_space(const Decl& v);

  /// Memory operand; adjusts the instruction space for .param and generic symbol accesses.
  Operand address_operand(Dec& d, size_t i);

  /// allow_imm: integer elements are allowed (mov pack); they go to the
  /// operand's imm, already shifted into place, with vregs[k] = kNoReg.
  Operand vector_operand(const Dec& d, size_t i, unsigned want, bool allow_sink, bool allow_imm = false);

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
  DataType one_type(const Dec& d, TypeSet allowed);
  void two_types(const Dec& d, TypeSet allowed1, TypeSet allowed2);

  // -------------------------------------------------- instructions

  void decode_instruction(const Item& it);
  bool declared_erroneously(sv name);

  /// An instruction that names a register whose declaration failed is dropped
  /// without a message of its own: the declaration's error explains it.
  void skip_if_uses_erroneous_declaration(const Dec& d);
  std::string statement_text(const Item& it) const;
  static bool is_int(DataType t) { return !type_is_float(t) && t != DataType::Pred && t != DataType::None; }

  /// Modifiers of f16/bf16 arithmetic (add sub mul fma min max neg abs) per
  /// the PTX ISA: only round-to-nearest (.rn, the default); .ftz and .sat
  /// exist for f16 only; .relu only on fma.rn (not with .sat); .NaN only on
  /// min/max. Non-half types must not carry .relu or .NaN.
  void check_half_modifiers(const Dec& d);

  /// set.CmpOp.dtype.stype with 16-bit floats (PTX ISA "Half Precision
  /// Comparison Instructions: set"): an f16/bf16 destination takes any scalar
  /// source; .u16/.s16 destinations only f16/bf16 sources; packed sources give
  /// a packed or 32-bit integer destination; .f32 takes no 16-bit float source.
  void check_half_set_types(const Dec& d);

  // One decode handler per instruction family; decode_table() maps every
  // opcode name to its handler.
  static bool ftz_sat_modifier(Instruction& in, sv m);
  static bool float_rounding_modifier(Instruction& in, sv m);
  /// Three-operand arithmetic and logic: d, a, b.
  void decode_binary(Dec& d, Opcode op, TypeSet allowed);
  void decode_unary(Dec& d, Opcode op, TypeSet allowed);
  /// Rounding modes and .ftz belong to floating-point types only.
  void check_float_only_modifiers(Dec& d);
  static bool has_carry_out(const Dec& d);

  // The carry chain: add.cc, addc[.cc], sub.cc, subc[.cc], mad[c].lo/.hi[.cc];
  // only 32- and 64-bit integer types carry a flag (PTX ISA "Extended-Precision
  // Integer Arithmetic Instructions").
  void decode_carry_chain(Dec& d, sv base);
  void decode_mov(Dec& d, sv /*base*/);
  void decode_cvt(Dec& d, sv /*base*/);
  void decode_cvta(Dec& d, sv /*base*/);
  void decode_add_sub(Dec& d, sv base);
  void decode_mul_mad(Dec& d, sv base);
  void decode_mul24_mad24(Dec& d, sv base);
  void decode_div(Dec& d, sv /*base*/);
  void decode_rem(Dec& d, sv /*base*/);
  void decode_abs_neg(Dec& d, sv base);
  void decode_min_max(Dec& d, sv base);
  void decode_fma(Dec& d, sv /*base*/);
  void decode_rcp_sqrt_rsqrt(Dec& d, sv base);
  void decode_ex2_lg2_sin_cos_tanh(Dec& d, sv base);
  void decode_copysign(Dec& d, sv /*base*/);
  void decode_testp(Dec& d, sv /*base*/);
  void decode_and_or_xor(Dec& d, sv base);
  void decode_not_cnot(Dec& d, sv base);
  void decode_shl_shr(Dec& d, sv base);
  void decode_popc_clz_brev(Dec& d, sv base);
  void decode_bfe(Dec& d, sv /*base*/);
  void decode_bfi(Dec& d, sv /*base*/);
  void decode_bfind(Dec& d, sv /*base*/);
  void decode_prmt(Dec& d, sv /*base*/);
  void decode_shf(Dec& d, sv /*base*/);
  void decode_setp_set(Dec& d, sv base);
  void decode_selp(Dec& d, sv /*base*/);
  void decode_slct(Dec& d, sv /*base*/);
  void decode_ld_st_op(Dec& d, sv base);
  void decode_atom_red(Dec& d, sv base);
  void decode_prefetch(Dec& d, sv /*base*/);
  void decode_membar_fence(Dec& d, sv base);
  void decode_shfl(Dec& d, sv /*base*/);
  void decode_vote(Dec& d, sv /*base*/);
  void decode_activemask(Dec& d, sv /*base*/);
  void decode_match(Dec& d, sv /*base*/);
  void decode_bra(Dec& d, sv /*base*/);
  void decode_dp4a_dp2a(Dec& d, sv base);
  void decode_sad(Dec& d, sv /*base*/);
  void decode_fns(Dec& d, sv /*base*/);
  void decode_brkpt_pmevent(Dec& d, sv base);

  /// lop3.b32 d, a, b, c, immLut: bit i of d is bit ((a_i << 2) | (b_i << 1) | c_i)
  /// of the 8-bit table (inline assembly; nvcc leaves three-input logic to ptxas).
  void decode_lop3(Dec& d, sv /*base*/);
  void decode_nanosleep(Dec& d, sv /*base*/);
  void decode_tex_tld4_op(Dec& d, sv base);
  void decode_suld_sust_op(Dec& d, sv base);
  void decode_ret_exit_trap_nop(Dec& d, sv base);
  void decode_video_op(Dec& d, sv base);
  void decode_call_op(Dec& d, sv /*base*/) { decode_call(d, d.operands_begin, d.operands_end); }
  using DecodeHandler = void (Decoder::*)(Dec&, sv);
 public:
  /// Opcode name (the part before the first '.') -> decode handler, built once.
  /// is_decodable_opcode and decode_instruction both use it, so they cannot
  /// disagree.
  static const std::unordered_map<sv, DecodeHandler>& decode_table();
  static DecodeHandler find_decoder(sv base);
 private:

  /// wmma.load.{a,b,c}, wmma.store.d and wmma.mma with the shapes and types
  /// sm_70/sm_75 define for f16 and 8-bit integers (m16n16k16, m32n8k16,
  /// m8n32k16); sub-byte, bf16, tf32 and f64 forms are named as unsupported.
  void decode_wmma(Dec& d, sv /*base*/);

  // -------------------------------------------------- bmsk, szext, video

  /// bmsk.{clamp,wrap}.b32 d, a, b;  szext.{clamp,wrap}.{u32,s32} d, a, b;
  void decode_bmsk_szext(Dec& d, sv base);

  /// Video opcode name -> operation and lanes (1 scalar, 2 or 4 SIMD).
  static std::optional<std::pair<VideoOp, uint8_t>> video_op_of(sv base);

  /// Splits 'reg.sel' into the register and its selector text (empty if none).
  sv split_selector(RawOp& r);

  /// Scalar selector .b0-.b3, .h0, .h1.
  uint8_t scalar_selector(const Dec& d, const RawOp& r, sv sel);

  /// SIMD source selector .hxy (2 lanes, digits 0-3) or .bxyzw (4 lanes, digits
  /// 0-7); the first digit is the top element's.
  uint16_t simd_selector(const Dec& d, const RawOp& r, sv sel, unsigned lanes);

  /// SIMD destination mask: .h0/.h1/.h10 or .b with strictly descending digits 0-3.
  uint8_t simd_mask(const Dec& d, const RawOp& r, sv sel, unsigned lanes);

  /// Scalar video (vadd vsub vabsdiff vmin vmax vshl vshr vmad vset) and SIMD
  /// video (vadd2/4 vsub2/4 vavrg2/4 vabsdiff2/4 vmin2/4 vmax2/4 vset2/4).
  void decode_video(Dec& d, VideoOp op, uint8_t lanes);
  void decode_ld_st(Dec& d, bool is_ld);

  // -------------------------------------------------- textures and surfaces

  /// Coordinate count of a geometry (PTX ISA: 3d, a2d and cube take a .v4 vector).
  static unsigned tex_coord_count(TexGeom g);
  bool tex_geom_mod(sv m, TexGeom& g, bool& have);

  /// The handle register of '[handle, {coords}]': a .u64 texture/surface object.
  Operand tex_handle_operand(const Dec& d, size_t i);
  Operand tex_coord_operand(const Dec& d, size_t i, unsigned want);

  /// tex[.level|.grad].geom.v4.dtype.ctype d, [a, c] {, lod | , ddx, ddy};
  /// tld4.comp.2d.v4.dtype.f32 d, [a, c];
  void decode_tex(Dec& d, bool tld4);

  /// suld.b.geom{.v2,.v4}.btype.clamp d, [a, c];  sust.b.geom{.v2,.v4}.btype.clamp [a, c], b;
  void decode_surface(Dec& d, bool is_ld);
  void decode_atom(Dec& d, bool is_red);
  void decode_bar(Dec& d, sv /*base*/);

  /// call[.uni] [(rets),] func[, (args)];
  /// call[.uni] [(rets),] %reg, (args), prototype;   (indirect)
  void decode_call(Dec& d, size_t p, size_t e);

  /// What a call of a CUDA device runtime function the model does not
  /// provide would need ("dynamic parallelism (device-side kernel launch)"
  /// for the CDP1/CDP2 launch entry points, "device-side graph calls ..."
  /// for the cudaGraph* functions); empty for any other name.
  static sv unsupported_device_runtime_feature(sv name);
  static BuiltinFunction builtin_of(sv name);

  /// The caller's call-sequence .param block `name`.
  const Decl& call_param_block(const RawOp& fn, sv name);

  /// A call of a device runtime function (vprintf, malloc, free,
  /// __assertfail): the extern declaration must have the CUDA signature.
  void decode_builtin_call(Dec& d, const RawOp& fn, const FuncDef& callee, const std::vector<sv>& rets,
                           const std::vector<sv>& args);

  /// call (rets), %rd, (args), prototype: the callee is found from the
  /// register's function address when the call runs.
  void decode_indirect_call(Dec& d, const RawOp& fn, const std::vector<sv>& rets, const std::vector<sv>& args,
                            size_t i);

  /// The execution-unit class the timing model issues the instruction to.
  static UnitClass unit_of(const Instruction& in);

  /// A branch to a label, resolved at the end of its function.
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

  // The function being decoded.
  FuncDef* cur_ = nullptr;
  std::vector<Scope> scopes_;
  std::unordered_map<sv, uint32_t> labels_;
  std::vector<Fixup> fixups_;
  Binding scratch_;
  uint32_t next_reg_ = 0, next_pred_ = 0;
  uint32_t kernel_reg_base_ = 0, kernel_pred_base_ = 0;
  /// Per function (Module::functions index): the static .shared variables
  /// its instructions name.
  std::vector<std::set<const Decl*>> shared_uses_;
};

}  // namespace tlmgpu::ptx::decoding
