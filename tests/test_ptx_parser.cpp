// PTX front end: directives, declarations, layout, every decoding convention,
// diagnostics, robustness on truncated input, and real nvcc output.
#include <gtest/gtest.h>

#include <algorithm>
#include <ctime>
#include <cstring>
#include <fstream>
#include <random>
#include <sstream>

#include "model/ptx/ptx_parser.h"
#include "model/ptx/register_allocation.h"

using namespace tlmgpu::ptx;

namespace {

const char* kHeader = ".version 7.8\n.target sm_75\n.address_size 64\n";

// Slot layout of the registers that kernel() declares, in declaration order.
constexpr uint32_t kRs = 0, kR = 4, kF = 24, kRd = 44, kFd = 64;
const char* kRegs =
    "  .reg .pred %p<8>;\n  .reg .b16 %rs<4>;\n  .reg .b32 %r<20>;\n  .reg .f32 %f<20>;\n"
    "  .reg .b64 %rd<20>;\n  .reg .f64 %fd<8>;\n";

constexpr uint32_t kBodyLine = 12;  // first line of a kernel() body

/// A module with one kernel `k(.param .u64 k_p0, .param .u32 k_p1)` around `body`.
std::string kernel(const std::string& body, const std::string& before = "") {
  return std::string(kHeader) + before + ".visible .entry k(.param .u64 k_p0, .param .u32 k_p1)\n{\n" + kRegs +
         body + "\n}\n";
}

Module parse(const std::string& src) { return parse_ptx(src, "t.ptx"); }

/// The first instruction of a kernel body.
Instruction first(const std::string& body) {
  Module m = parse(kernel(body));
  EXPECT_FALSE(m.code.empty());
  return m.code.empty() ? Instruction{} : m.code[0];
}

/// All diagnostics of a source that must fail.
std::vector<PtxDiagnostic> errors(const std::string& src, const std::string& file = "t.ptx") {
  try {
    parse_ptx(src, file);
  } catch (const PtxError& e) {
    return e.diagnostics();
  }
  ADD_FAILURE() << "expected a PtxError for:\n" << src;
  return {};
}

/// The single error message of a kernel body.
std::string error_of(const std::string& body) {
  auto d = errors(kernel(body));
  if (d.size() != 1) {
    std::string all;
    for (auto& x : d) all += x.format() + "\n";
    ADD_FAILURE() << "expected one diagnostic, got " << d.size() << ":\n" << all;
  }
  return d.empty() ? "" : d[0].message;
}

std::string fixture_path(const std::string& name) { return std::string(TLMGPU_SOURCE_DIR) + "/tests/ptx/" + name; }

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

uint32_t f32bits(float f) {
  uint32_t b;
  std::memcpy(&b, &f, 4);
  return b;
}
uint64_t f64bits(double d) {
  uint64_t b;
  std::memcpy(&b, &d, 8);
  return b;
}

/// First PC whose source text contains `needle` (kNoPc if none).
uint32_t pc_of(const Module& m, const std::string& needle, uint32_t from = 0) {
  for (uint32_t i = from; i < m.text.size(); ++i)
    if (m.text[i].find(needle) != std::string::npos) return i;
  return kNoPc;
}

}  // namespace

// ------------------------------------------------------------------ module level

TEST(PtxParser, HeaderDirectives) {
  Module m = parse(".version 9.0\n.target sm_75\n.address_size 64\n.visible .entry e()\n{\nret;\n}\n");
  EXPECT_EQ(m.version_major, 9u);
  EXPECT_EQ(m.version_minor, 0u);
  EXPECT_EQ(m.target, "sm_75");
  EXPECT_EQ(m.address_size, 64u);
  EXPECT_EQ(m.file, "t.ptx");
  ASSERT_EQ(m.functions.size(), 1u);
  EXPECT_TRUE(m.functions[0].is_entry);
  EXPECT_EQ(m.functions[0].name, "e");
  EXPECT_EQ(m.function_index.at("e"), 0u);

  Module m2 = parse(".version 6.0\n.target sm_75, debug\n.address_size 64\n");
  EXPECT_EQ(m2.version_major, 6u);
  EXPECT_EQ(m2.target, "sm_75");
  EXPECT_TRUE(m2.functions.empty());
}

TEST(PtxParser, CommentsAndDebugDirectivesAreSkipped) {
  Module m = parse(std::string(kHeader) +
                   "// line comment\n/* block\n comment */ .file 1 \"k.cu\"\n"
                   ".visible .entry e()\n{\n.loc 1 2 3\n  /* inline */ nop; // trailing\n ret;\n}\n"
                   ".section .debug_str\n{\n.b8 65,66\n}\n");
  ASSERT_EQ(m.code.size(), 2u);
  EXPECT_EQ(m.code[0].op, Opcode::Nop);
  EXPECT_EQ(m.code[1].op, Opcode::Ret);
}

TEST(PtxParser, KernelParamOffsetsAndAccess) {
  Module m = parse(std::string(kHeader) +
                   ".visible .entry e(.param .u64 a, .param .u32 b, .param .align 8 .b8 s[16], .param .u8 c,"
                   " .param .u64 .ptr .global .align 8 p)\n{\n.reg .b32 %r<3>;\n"
                   "ld.param.u32 %r1, [b];\nld.param.u32 %r2, [s+4];\nret;\n}\n");
  const Function& f = m.functions[0];
  ASSERT_EQ(f.params.size(), 5u);
  EXPECT_EQ(f.params[0].name, "a");
  EXPECT_EQ(f.params[0].offset, 0u);
  EXPECT_EQ(f.params[0].size, 8u);
  EXPECT_EQ(f.params[0].type, DataType::U64);
  EXPECT_EQ(f.params[1].offset, 8u);
  EXPECT_EQ(f.params[2].offset, 16u);
  EXPECT_EQ(f.params[2].size, 16u);
  EXPECT_EQ(f.params[2].align, 8u);
  EXPECT_EQ(f.params[2].type, DataType::B8);
  EXPECT_EQ(f.params[3].offset, 32u);
  EXPECT_EQ(f.params[3].size, 1u);
  EXPECT_EQ(f.params[4].offset, 40u);
  EXPECT_EQ(f.param_bytes, 48u);
  const Instruction& ld = m.code[0];
  EXPECT_EQ(ld.op, Opcode::Ld);
  EXPECT_EQ(ld.space, StateSpace::Param);
  EXPECT_EQ(ld.src[0].kind, OperandKind::Address);
  EXPECT_EQ(ld.src[0].reg, kNoReg);
  EXPECT_EQ(ld.src[0].imm, 8u);
  EXPECT_EQ(m.code[1].src[0].imm, 20u);
}

TEST(PtxParser, PerformanceDirectivesAndPragmas) {
  Module m = parse(std::string(kHeader) +
                   ".visible .entry e() .maxntid 256, 1, 1 .reqntid 128 .minnctapersm 2 .maxnreg 64\n"
                   "{\n.pragma \"nounroll\";\nret;\n}\n");
  const Function& f = m.functions[0];
  EXPECT_EQ(f.maxntid, (std::array<uint32_t, 3>{{256, 1, 1}}));
  EXPECT_EQ(f.reqntid, (std::array<uint32_t, 3>{{128, 1, 1}}));
  EXPECT_EQ(f.minnctapersm, 2u);
  EXPECT_EQ(f.maxnreg, 64u);
  ASSERT_EQ(f.pragmas.size(), 1u);
  EXPECT_EQ(f.pragmas[0], "nounroll");
}

TEST(PtxParser, FunctionLinkageAndPrototypes) {
  Module m = parse(std::string(kHeader) +
                   ".extern .func (.param .b32 func_retval0) vprintf(.param .b64 a, .param .b64 b);\n"
                   ".func (.param .b32 func_retval0) later(.param .b32 x);\n"
                   ".weak .func w()\n{\nret;\n}\n"
                   ".visible .entry e()\n{\n.reg .b32 %r<2>;\n{\n.param .b32 p0;\nst.param.b32 [p0+0], 1;\n"
                   ".param .b32 r0;\ncall.uni (r0), later, (p0);\nld.param.b32 %r1, [r0+0];\n}\nret;\n}\n"
                   ".func (.param .b32 func_retval0) later(.param .b32 x)\n{\n.reg .b32 %q;\n"
                   "ld.param.b32 %q, [x];\nst.param.b32 [func_retval0+0], %q;\nret;\n}\n");
  // Only defined functions are listed; the prototype's position fixes the order.
  ASSERT_EQ(m.functions.size(), 3u);
  EXPECT_EQ(m.functions[0].name, "later");
  EXPECT_EQ(m.functions[1].name, "w");
  EXPECT_EQ(m.functions[2].name, "e");
  EXPECT_FALSE(m.function_index.count("vprintf"));
  ASSERT_EQ(m.calls.size(), 1u);
  EXPECT_EQ(m.calls[0].callee, m.function_index.at("later"));
}

// ------------------------------------------------------------------ registers

TEST(PtxParser, RegisterRangesPlainNamesAndSlots) {
  Module m = parse(kernel("mov.u32 %r0, 1;\nmov.u32 %r19, 2;\nmov.b16 %rs3, 3;\nmov.b64 %rd19, 4;\n"
                          "setp.eq.s32 %p7, %r0, 0;\n",
                          ""));
  EXPECT_EQ(m.code[0].dst.kind, OperandKind::Reg);
  EXPECT_EQ(m.code[0].dst.reg, kR + 0);
  EXPECT_EQ(m.code[1].dst.reg, kR + 19);
  EXPECT_EQ(m.code[2].dst.reg, kRs + 3);
  EXPECT_EQ(m.code[3].dst.reg, kRd + 19);
  EXPECT_EQ(m.code[4].dst.kind, OperandKind::Pred);
  EXPECT_EQ(m.code[4].dst.reg, 7u);
  EXPECT_EQ(m.functions[0].num_regs, kFd + 8);
  EXPECT_EQ(m.functions[0].num_preds, 8u);

  Module n = parse(std::string(kHeader) + ".visible .entry e()\n{\n.reg .b64 %SP;\n.reg .b64 %SPL;\n"
                   ".reg .b32 temp_param_reg, %x, %y<3>;\nmov.u64 %SPL, 0;\nmov.u32 temp_param_reg, 1;\n"
                   "mov.u32 %y2, %x;\nret;\n}\n");
  EXPECT_EQ(n.code[0].dst.reg, 1u);
  EXPECT_EQ(n.code[1].dst.reg, 2u);
  EXPECT_EQ(n.code[2].dst.reg, 6u);
  EXPECT_EQ(n.code[2].src[0].reg, 3u);
}

TEST(PtxParser, RegsPerThreadEstimate) {
  Module m = parse(std::string(kHeader) +
                   ".visible .entry e()\n{\n.reg .pred %p<3>;\n.reg .b16 %rs<2>;\n.reg .b32 %r<5>;\n"
                   ".reg .f64 %fd<2>;\n.reg .b64 %rd<3>;\nret;\n}\n");
  // Declarations alone take no register: the estimate counts live values
  // (model/ptx/register_allocation.h). Each slot records its width: .b16
  // and .b32 one 32-bit register, .f64 and .b64 two, predicates none.
  EXPECT_EQ(m.functions[0].regs_per_thread, tlmgpu::ptx::kReservedRegisters);
  const std::vector<uint8_t> widths = {1, 1, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2};
  EXPECT_EQ(m.functions[0].reg_units, widths);
}

TEST(PtxParser, NestedScopesShadowRegisters) {
  Module m = parse(std::string(kHeader) +
                   ".visible .entry e()\n{\n.reg .pred %p<3>;\n.reg .b32 %r<3>;\n"
                   "setp.ne.u32 %p1, %r1, 0;\n"
                   "{\n.reg .pred %p1;\nsetp.ne.u32 %p1, %r1, 1;\n{\n.reg .pred %p1;\nsetp.ne.u32 %p1, %r1, 2;\n}\n}\n"
                   "setp.ne.u32 %p1, %r1, 3;\nret;\n}\n");
  ASSERT_EQ(m.code.size(), 5u);
  EXPECT_EQ(m.code[0].dst.reg, 1u);
  EXPECT_EQ(m.code[1].dst.reg, 3u);
  EXPECT_EQ(m.code[2].dst.reg, 4u);
  EXPECT_EQ(m.code[3].dst.reg, 1u);  // the inner %p1 is gone after '}'
  EXPECT_EQ(m.functions[0].num_preds, 5u);
}

TEST(PtxParser, SlotsDistinctAcrossCallerAndCallee) {
  Module m = parse(std::string(kHeader) +
                   ".func f()\n{\n.reg .b32 %r<4>;\n.reg .pred %p<2>;\nmov.u32 %r3, 1;\nret;\n}\n"
                   ".visible .entry a()\n{\n.reg .b32 %r<4>;\nmov.u32 %r0, 1;\ncall f;\nret;\n}\n"
                   ".visible .entry b()\n{\n.reg .b32 %r<6>;\n.reg .pred %p<1>;\nmov.u32 %r0, 1;\nret;\n}\n");
  // Device functions own the low slots; kernels follow and overlap each other.
  EXPECT_EQ(m.code[0].dst.reg, 3u);
  EXPECT_EQ(m.code[m.functions[1].entry_pc].dst.reg, 4u);
  EXPECT_EQ(m.code[m.functions[2].entry_pc].dst.reg, 4u);
  for (const Function& f : m.functions) {
    EXPECT_EQ(f.num_regs, 10u) << f.name;
    EXPECT_EQ(f.num_preds, 3u) << f.name;
  }
}

// ------------------------------------------------------------------ operands

TEST(PtxParser, OperandKinds) {
  Module m = parse(kernel("add.s32 %r1, %r2, 7;\n"
                          "@!%p3 mov.u32 %r1, %ctaid.y;\n"
                          "selp.b32 %r1, %r2, %r3, %p2;\n"
                          "setp.lt.and.s32 %p1|%p2, %r1, %r2, !%p4;\n"
                          "ld.global.v2.f32 {%f1, _}, [%rd2+-4];\n"
                          "st.global.u32 [%rd3+16], %r5;\n"
                          "ld.u8 %rs1, [%rd4-2];\n"
                          "L1: @%p1 bra.uni L1;\n"
                          "ld.param.u64 %rd1, [k_p0];\n"
                          "mov.u32 %r1, WARP_SZ;\n"));
  const auto& c = m.code;
  EXPECT_EQ(c[0].src[0].kind, OperandKind::Reg);
  EXPECT_EQ(c[0].src[0].reg, kR + 2);
  EXPECT_EQ(c[0].src[1].kind, OperandKind::Imm);
  EXPECT_EQ(c[0].src[1].imm, 7u);
  EXPECT_EQ(c[0].num_src, 2);
  EXPECT_EQ(c[0].guard, kNoReg);

  EXPECT_EQ(c[1].guard, 3u);
  EXPECT_TRUE(c[1].guard_negated);
  EXPECT_EQ(c[1].src[0].kind, OperandKind::Special);
  EXPECT_EQ(c[1].src[0].sreg, SpecialReg::CtaidY);

  EXPECT_EQ(c[2].src[2].kind, OperandKind::Pred);
  EXPECT_EQ(c[2].src[2].reg, 2u);
  EXPECT_FALSE(c[2].src[2].negate);

  EXPECT_EQ(c[3].dst.kind, OperandKind::Pred);
  EXPECT_EQ(c[3].dst.reg, 1u);
  EXPECT_EQ(c[3].dst2.kind, OperandKind::Pred);
  EXPECT_EQ(c[3].dst2.reg, 2u);
  EXPECT_EQ(c[3].boolop, BoolOp::And);
  EXPECT_EQ(c[3].src[2].kind, OperandKind::Pred);
  EXPECT_EQ(c[3].src[2].reg, 4u);
  EXPECT_TRUE(c[3].src[2].negate);
  EXPECT_EQ(c[3].num_src, 3);

  EXPECT_EQ(c[4].dst.kind, OperandKind::Vector);
  EXPECT_EQ(c[4].dst.count, 2);
  EXPECT_EQ(c[4].dst.vregs[0], kF + 1);
  EXPECT_EQ(c[4].dst.vregs[1], kNoReg);
  EXPECT_EQ(c[4].vec, 2);
  EXPECT_EQ(c[4].src[0].kind, OperandKind::Address);
  EXPECT_EQ(c[4].src[0].reg, kRd + 2);
  EXPECT_EQ(int64_t(c[4].src[0].imm), -4);

  EXPECT_EQ(c[5].dst.kind, OperandKind::Address);
  EXPECT_EQ(c[5].dst.reg, kRd + 3);
  EXPECT_EQ(c[5].dst.imm, 16u);
  EXPECT_EQ(c[5].src[0].kind, OperandKind::Reg);
  EXPECT_EQ(c[5].src[0].reg, kR + 5);

  EXPECT_EQ(c[6].space, StateSpace::Generic);
  EXPECT_EQ(int64_t(c[6].src[0].imm), -2);
  EXPECT_EQ(c[6].type, DataType::U8);

  EXPECT_EQ(c[7].op, Opcode::Bra);
  EXPECT_TRUE(c[7].uni);
  EXPECT_EQ(c[7].target, 7u);
  EXPECT_EQ(c[7].src[0].kind, OperandKind::Label);
  EXPECT_EQ(c[7].src[0].imm, 7u);

  EXPECT_EQ(c[8].src[0].imm, 0u);
  EXPECT_EQ(c[8].space, StateSpace::Param);
  EXPECT_EQ(c[9].src[0].imm, 32u);
}

TEST(PtxParser, AllSpecialRegisters) {
  const std::pair<const char*, SpecialReg> table[] = {
      {"%tid.x", SpecialReg::TidX},         {"%tid.y", SpecialReg::TidY},
      {"%tid.z", SpecialReg::TidZ},         {"%ntid.x", SpecialReg::NtidX},
      {"%ntid.y", SpecialReg::NtidY},       {"%ntid.z", SpecialReg::NtidZ},
      {"%ctaid.x", SpecialReg::CtaidX},     {"%ctaid.y", SpecialReg::CtaidY},
      {"%ctaid.z", SpecialReg::CtaidZ},     {"%nctaid.x", SpecialReg::NctaidX},
      {"%nctaid.y", SpecialReg::NctaidY},   {"%nctaid.z", SpecialReg::NctaidZ},
      {"%laneid", SpecialReg::LaneId},      {"%warpid", SpecialReg::WarpId},
      {"%nwarpid", SpecialReg::NWarpId},    {"%smid", SpecialReg::SmId},
      {"%nsmid", SpecialReg::NSmId},        {"%gridid", SpecialReg::GridId},
      {"%lanemask_eq", SpecialReg::LanemaskEq}, {"%lanemask_lt", SpecialReg::LanemaskLt},
      {"%lanemask_le", SpecialReg::LanemaskLe}, {"%lanemask_gt", SpecialReg::LanemaskGt},
      {"%lanemask_ge", SpecialReg::LanemaskGe}, {"%clock", SpecialReg::Clock},
      {"%clock64", SpecialReg::Clock64},    {"%globaltimer", SpecialReg::GlobalTimer},
  };
  for (auto& [name, sreg] : table) {
    const bool wide = std::string(name) == "%clock64" || std::string(name) == "%globaltimer";
    Instruction in = first(std::string(wide ? "mov.u64 %rd1, " : "mov.u32 %r1, ") + name + ";");
    EXPECT_EQ(in.src[0].kind, OperandKind::Special) << name;
    EXPECT_EQ(in.src[0].sreg, sreg) << name;
  }
}

TEST(PtxParser, ImmediatesConvertedToInstructionType) {
  EXPECT_EQ(first("mov.f32 %f1, 0f3F800000;").src[0].imm, 0x3F800000u);
  EXPECT_EQ(first("add.f32 %f1, %f2, 1.5;").src[1].imm, f32bits(1.5f));
  EXPECT_EQ(first("add.f32 %f1, %f2, -2.5e1;").src[1].imm, f32bits(-25.0f));
  EXPECT_EQ(first("add.f64 %fd1, %fd2, 1.5;").src[1].imm, f64bits(1.5));
  EXPECT_EQ(first("mov.f64 %fd1, 0d3FF0000000000000;").src[0].imm, 0x3FF0000000000000u);
  EXPECT_EQ(first("add.f64 %fd1, %fd2, 0f3F800000;").src[1].imm, f64bits(1.0));  // widened
  EXPECT_EQ(first("add.f32 %f1, %f2, 0d3FF0000000000000;").src[1].imm, f32bits(1.0f));  // narrowed
  EXPECT_EQ(first("mov.b32 %r1, 0f3F800000;").src[0].imm, 0x3F800000u);  // raw bits on .b32
  EXPECT_EQ(first("add.s32 %r1, %r2, -4;").src[1].imm, 0xFFFFFFFFFFFFFFFCull);  // sign-extended
  EXPECT_EQ(first("add.u32 %r1, %r2, 0xFFFFFFFF;").src[1].imm, 0xFFFFFFFFull);
  EXPECT_EQ(first("add.u32 %r1, %r2, 0x10U;").src[1].imm, 16u);
  EXPECT_EQ(first("add.u32 %r1, %r2, 42U;").src[1].imm, 42u);
  EXPECT_EQ(first("add.u32 %r1, %r2, 010;").src[1].imm, 8u);  // octal, as in C
  EXPECT_EQ(first("add.u32 %r1, %r2, 0b101;").src[1].imm, 5u);
  EXPECT_EQ(first("mov.b16 %rs1, 0x3C00;").src[0].imm, 0x3C00u);
  EXPECT_EQ(first("mov.f16 %rs1, 0f3F800000;").src[0].imm, 0x3C00u);  // f32 literal -> half
  EXPECT_EQ(first("mov.pred %p1, 1;").src[0].imm, 1u);
  EXPECT_EQ(first("mov.pred %p1, -1;").src[0].imm, 1u);  // nvcc's true
  EXPECT_EQ(first("mov.pred %p1, 0;").src[0].imm, 0u);
  EXPECT_EQ(first("bar.warp.sync -1;").src[0].imm, 0xFFFFFFFFFFFFFFFFull);
  EXPECT_EQ(first("mov.f32 %f1, -0f3F800000;").src[0].imm, 0xBF800000u);
}

TEST(PtxParser, MovPackUnpack) {
  Instruction un = first("mov.b64 {%r1, %r2}, %rd1;");
  EXPECT_EQ(un.op, Opcode::Mov);
  EXPECT_EQ(un.type, DataType::B64);
  EXPECT_EQ(un.dst.kind, OperandKind::Vector);
  EXPECT_EQ(un.dst.count, 2);
  EXPECT_EQ(un.dst.vregs[0], kR + 1);
  EXPECT_EQ(un.dst.vregs[1], kR + 2);
  EXPECT_EQ(un.src[0].kind, OperandKind::Reg);
  EXPECT_EQ(un.src[0].reg, kRd + 1);

  Instruction pk = first("mov.b64 %rd1, {%r3,%r4};");
  EXPECT_EQ(pk.dst.kind, OperandKind::Reg);
  EXPECT_EQ(pk.src[0].kind, OperandKind::Vector);
  EXPECT_EQ(pk.src[0].count, 2);
  EXPECT_EQ(pk.src[0].vregs[1], kR + 4);

  Instruction h = first("mov.b32 {%rs1, %rs2}, %r1;");
  EXPECT_EQ(h.dst.vregs[0], kRs + 1);
}

// ------------------------------------------------------------------ decoding conventions

TEST(PtxParser, ConversionConventions) {
  Instruction a = first("cvt.rn.f32.s32 %f1, %r1;");
  EXPECT_EQ(a.op, Opcode::Cvt);
  EXPECT_EQ(a.type, DataType::F32);
  EXPECT_EQ(a.type2, DataType::S32);
  EXPECT_EQ(a.rnd, Rounding::Rn);
  EXPECT_EQ(a.unit, UnitClass::SP);
  Instruction b = first("cvt.rni.s32.f32 %r1, %f1;");
  EXPECT_EQ(b.rnd, Rounding::Rni);
  EXPECT_EQ(b.type, DataType::S32);
  EXPECT_EQ(b.type2, DataType::F32);
  Instruction c = first("cvt.f64.f32 %fd1, %f1;");
  EXPECT_EQ(c.unit, UnitClass::DP);
  EXPECT_EQ(first("cvt.rzi.s32.f64 %r1, %fd1;").unit, UnitClass::DP);
  Instruction d = first("cvt.sat.ftz.f32.f32 %f1, %f2;");
  EXPECT_TRUE(d.sat);
  EXPECT_TRUE(d.ftz);
  Instruction e = first("cvt.u64.u32 %rd1, 7;");
  EXPECT_EQ(e.rnd, Rounding::None);
  EXPECT_EQ(e.src[0].imm, 7u);
  EXPECT_EQ(first("cvt.rn.f32.f64 %f1, 0d3FF0000000000000;").src[0].imm, 0x3FF0000000000000u);  // source type

  Instruction to = first("cvta.to.global.u64 %rd1, %rd2;");
  EXPECT_EQ(to.op, Opcode::Cvta);
  EXPECT_FALSE(to.to_generic);
  EXPECT_EQ(to.space, StateSpace::Global);
  Instruction from = first("cvta.shared.u64 %rd1, %rd2;");
  EXPECT_TRUE(from.to_generic);
  EXPECT_EQ(from.space, StateSpace::Shared);
  EXPECT_EQ(first("cvta.local.u64 %rd1, %rd2;").space, StateSpace::Local);
}

TEST(PtxParser, ComparisonAndSelection) {
  Instruction s = first("setp.lt.f32 %p1, %f1, %f2;");
  EXPECT_EQ(s.op, Opcode::Setp);
  EXPECT_EQ(s.type, DataType::F32);
  EXPECT_EQ(s.cmp, CmpOp::Lt);
  EXPECT_EQ(s.boolop, BoolOp::None);
  EXPECT_EQ(s.dst2.kind, OperandKind::None);
  EXPECT_EQ(s.num_src, 2);
  EXPECT_EQ(first("setp.geu.ftz.f32 %p1, %f1, 0f00000000;").cmp, CmpOp::Geu);
  EXPECT_TRUE(first("setp.geu.ftz.f32 %p1, %f1, 0f00000000;").ftz);
  EXPECT_EQ(first("setp.hs.u64 %p1, %rd1, %rd2;").cmp, CmpOp::Hs);
  EXPECT_EQ(first("setp.ne.s16 %p1, %rs1, 3;").type, DataType::S16);
  EXPECT_EQ(first("setp.nan.f64 %p1, %fd1, %fd2;").unit, UnitClass::DP);
  Instruction x = first("setp.eq.xor.s32 %p1, %r1, %r2, %p3;");
  EXPECT_EQ(x.boolop, BoolOp::Xor);
  EXPECT_FALSE(x.src[2].negate);

  Instruction st = first("set.lt.u32.f32 %r1, %f1, %f2;");
  EXPECT_EQ(st.op, Opcode::Set);
  EXPECT_EQ(st.type, DataType::U32);
  EXPECT_EQ(st.type2, DataType::F32);
  EXPECT_EQ(st.dst.kind, OperandKind::Reg);
  Instruction st2 = first("set.gt.or.f32.s32 %f1, %r1, 5, !%p2;");
  EXPECT_EQ(st2.boolop, BoolOp::Or);
  EXPECT_EQ(st2.src[1].imm, 5u);  // compare-type immediate
  EXPECT_TRUE(st2.src[2].negate);

  Instruction sel = first("selp.f32 %f1, 0f3F800000, %f2, %p1;");
  EXPECT_EQ(sel.op, Opcode::Selp);
  EXPECT_EQ(sel.type, DataType::F32);
  EXPECT_EQ(sel.src[0].imm, 0x3F800000u);
  EXPECT_EQ(sel.src[2].kind, OperandKind::Pred);
  EXPECT_EQ(sel.num_src, 3);

  Instruction sl = first("slct.f32.s32 %f1, %f2, %f3, %r1;");
  EXPECT_EQ(sl.op, Opcode::Slct);
  EXPECT_EQ(sl.type, DataType::F32);
  EXPECT_EQ(sl.type2, DataType::S32);
  EXPECT_EQ(first("slct.u32.s32 %r1, %r2, %r3, -1;").src[2].imm, 0xFFFFFFFFFFFFFFFFull);
}

TEST(PtxParser, IntegerArithmetic) {
  Instruction w = first("mul.wide.s32 %rd1, %r1, 4;");
  EXPECT_EQ(w.op, Opcode::Mul);
  EXPECT_EQ(w.type, DataType::S32);
  EXPECT_EQ(w.mul, MulMode::Wide);
  EXPECT_EQ(w.dst.reg, kRd + 1);
  Instruction m = first("mad.lo.s32 %r1, %r2, %r3, %r4;");
  EXPECT_EQ(m.op, Opcode::Mad);
  EXPECT_EQ(m.mul, MulMode::Lo);
  EXPECT_EQ(m.num_src, 3);
  EXPECT_EQ(first("mul.hi.u64 %rd1, %rd2, %rd3;").mul, MulMode::Hi);
  EXPECT_EQ(first("mad.wide.u32 %rd1, %r2, %r3, %rd4;").mul, MulMode::Wide);
  Instruction m24 = first("mul24.lo.s32 %r1, %r2, %r3;");
  EXPECT_EQ(m24.op, Opcode::Mul24);
  EXPECT_EQ(first("mad24.hi.u32 %r1, %r2, %r3, %r4;").op, Opcode::Mad24);
  EXPECT_TRUE(first("add.sat.s32 %r1, %r2, %r3;").sat);
  EXPECT_EQ(first("sub.s64 %rd1, %rd2, %rd3;").op, Opcode::Sub);
  EXPECT_EQ(first("div.s32 %r1, %r2, %r3;").unit, UnitClass::SP);
  EXPECT_EQ(first("rem.u64 %rd1, %rd2, 7;").op, Opcode::Rem);
  EXPECT_EQ(first("abs.s32 %r1, %r2;").op, Opcode::Abs);
  EXPECT_EQ(first("neg.s32 %r1, %r2;").op, Opcode::Neg);
  EXPECT_EQ(first("min.u32 %r1, %r2, %r3;").op, Opcode::Min);
  EXPECT_EQ(first("max.s64 %rd1, %rd2, %rd3;").op, Opcode::Max);
}

TEST(PtxParser, FloatArithmeticAndUnits) {
  Instruction dr = first("div.rn.f32 %f1, %f2, %f3;");
  EXPECT_EQ(dr.rnd, Rounding::Rn);
  EXPECT_FALSE(dr.approx);
  EXPECT_EQ(dr.unit, UnitClass::SP);
  Instruction da = first("div.approx.f32 %f1, %f2, %f3;");
  EXPECT_TRUE(da.approx);
  EXPECT_EQ(da.unit, UnitClass::SFU);
  Instruction df = first("div.full.ftz.f32 %f1, %f2, %f3;");
  EXPECT_TRUE(df.approx);
  EXPECT_TRUE(df.ftz);
  EXPECT_EQ(df.unit, UnitClass::SFU);
  EXPECT_EQ(first("div.rn.f64 %fd1, %fd2, %fd3;").unit, UnitClass::DP);

  Instruction sq = first("sqrt.approx.ftz.f32 %f1, %f2;");
  EXPECT_EQ(sq.op, Opcode::Sqrt);
  EXPECT_TRUE(sq.approx);
  EXPECT_TRUE(sq.ftz);
  EXPECT_EQ(sq.unit, UnitClass::SFU);
  EXPECT_EQ(first("sqrt.rn.f32 %f1, %f2;").rnd, Rounding::Rn);
  Instruction rc = first("rcp.rn.f64 %fd1, %fd2;");
  EXPECT_EQ(rc.op, Opcode::Rcp);
  EXPECT_EQ(rc.rnd, Rounding::Rn);
  EXPECT_EQ(rc.unit, UnitClass::DP);
  EXPECT_EQ(first("rsqrt.approx.f64 %fd1, %fd2;").unit, UnitClass::DP);
  Instruction ex = first("ex2.approx.ftz.f32 %f1, %f2;");
  EXPECT_EQ(ex.op, Opcode::Ex2);
  EXPECT_EQ(ex.unit, UnitClass::SFU);
  EXPECT_EQ(first("lg2.approx.f32 %f1, %f2;").op, Opcode::Lg2);
  EXPECT_EQ(first("sin.approx.f32 %f1, %f2;").op, Opcode::Sin);
  EXPECT_EQ(first("cos.approx.ftz.f32 %f1, %f2;").op, Opcode::Cos);
  Instruction th = first("tanh.approx.f32 %f1, %f2;");
  EXPECT_EQ(th.op, Opcode::Tanh);
  EXPECT_EQ(th.unit, UnitClass::SFU);

  Instruction fm = first("fma.rn.ftz.sat.f32 %f1, %f2, %f3, %f4;");
  EXPECT_EQ(fm.op, Opcode::Fma);
  EXPECT_EQ(fm.rnd, Rounding::Rn);
  EXPECT_TRUE(fm.ftz && fm.sat);
  EXPECT_EQ(fm.num_src, 3);
  EXPECT_EQ(fm.unit, UnitClass::SP);
  EXPECT_EQ(first("fma.rn.f64 %fd1, %fd2, %fd3, %fd4;").unit, UnitClass::DP);
  EXPECT_EQ(first("add.rz.f64 %fd1, %fd2, %fd3;").unit, UnitClass::DP);
  EXPECT_EQ(first("mul.rn.f32 %f1, %f2, %f3;").mul, MulMode::None);
  EXPECT_EQ(first("mad.rn.f32 %f1, %f2, %f3, %f4;").op, Opcode::Mad);
  EXPECT_TRUE(first("abs.ftz.f32 %f1, %f2;").ftz);
  EXPECT_EQ(first("min.f64 %fd1, %fd2, %fd3;").unit, UnitClass::DP);

  Instruction cs = first("copysign.f32 %f1, %f2, %f3;");
  EXPECT_EQ(cs.op, Opcode::Copysign);
  EXPECT_EQ(cs.num_src, 2);
  Instruction tp = first("testp.finite.f32 %p1, %f1;");
  EXPECT_EQ(tp.op, Opcode::Testp);
  EXPECT_EQ(tp.type, DataType::F32);
  EXPECT_EQ(tp.testp, TestpMode::Finite);
  EXPECT_EQ(tp.dst.kind, OperandKind::Pred);
  EXPECT_EQ(first("testp.notanumber.f64 %p1, %fd1;").testp, TestpMode::NotANumber);
  EXPECT_EQ(first("testp.subnormal.f32 %p1, %f1;").testp, TestpMode::Subnormal);
}

TEST(PtxParser, BitManipulation) {
  Instruction e = first("bfe.u32 %r1, %r2, 8, 4;");
  EXPECT_EQ(e.op, Opcode::Bfe);
  EXPECT_EQ(e.type, DataType::U32);
  EXPECT_EQ(e.num_src, 3);
  EXPECT_EQ(e.src[2].imm, 4u);
  Instruction i = first("bfi.b32 %r1, %r2, %r3, %r4, 5;");
  EXPECT_EQ(i.op, Opcode::Bfi);
  EXPECT_EQ(i.num_src, 4);
  EXPECT_EQ(i.src[0].reg, kR + 2);
  EXPECT_EQ(i.src[1].reg, kR + 3);
  EXPECT_EQ(i.src[2].reg, kR + 4);
  EXPECT_EQ(i.src[3].imm, 5u);
  EXPECT_EQ(first("bfi.b64 %rd1, %rd2, %rd3, 32, 32;").type, DataType::B64);
  Instruction f = first("bfind.u32 %r1, %r2;");
  EXPECT_EQ(f.op, Opcode::Bfind);
  EXPECT_FALSE(f.shiftamt);
  EXPECT_TRUE(first("bfind.shiftamt.u32 %r1, %r2;").shiftamt);
  Instruction s = first("shf.l.wrap.b32 %r1, %r2, %r3, %r4;");
  EXPECT_EQ(s.op, Opcode::Shf);
  EXPECT_EQ(s.shf, ShfMode::LeftWrap);
  EXPECT_EQ(first("shf.r.clamp.b32 %r1, %r2, %r3, 3;").shf, ShfMode::RightClamp);
  EXPECT_EQ(first("shf.r.wrap.b32 %r1, %r2, %r3, 3;").shf, ShfMode::RightWrap);
  EXPECT_EQ(first("shf.l.clamp.b32 %r1, %r2, %r3, 3;").shf, ShfMode::LeftClamp);
  Instruction p = first("prmt.b32 %r1, %r2, %r3, 21520;");
  EXPECT_EQ(p.op, Opcode::Prmt);
  EXPECT_EQ(p.prmt, PrmtMode::Default);
  EXPECT_EQ(p.src[2].imm, 21520u);
  EXPECT_EQ(first("prmt.b32.f4e %r1, %r2, %r3, %r4;").prmt, PrmtMode::F4e);
  EXPECT_EQ(first("prmt.b32.rc16 %r1, %r2, %r3, %r4;").prmt, PrmtMode::Rc16);
  EXPECT_EQ(first("popc.b64 %r1, %rd2;").op, Opcode::Popc);
  EXPECT_EQ(first("clz.b32 %r1, %r2;").op, Opcode::Clz);
  EXPECT_EQ(first("brev.b32 %r1, %r2;").op, Opcode::Brev);
  EXPECT_EQ(first("and.b32 %r1, %r2, 255;").op, Opcode::And);
  EXPECT_EQ(first("or.pred %p1, %p2, %p3;").dst.kind, OperandKind::Pred);
  EXPECT_EQ(first("xor.b64 %rd1, %rd2, %rd3;").op, Opcode::Xor);
  Instruction n = first("not.pred %p1, %p2;");
  EXPECT_EQ(n.op, Opcode::Not);
  EXPECT_EQ(n.src[0].kind, OperandKind::Pred);
  EXPECT_EQ(first("cnot.b32 %r1, %r2;").op, Opcode::Cnot);
  EXPECT_EQ(first("shl.b64 %rd1, %rd2, 3;").op, Opcode::Shl);
  EXPECT_EQ(first("shr.s32 %r1, %r2, %r3;").type, DataType::S32);
  EXPECT_EQ(first("shr.u16 %rs1, %rs2, 1;").type, DataType::U16);
}

TEST(PtxParser, LoadsAndStores) {
  Instruction l = first("ld.global.nc.v4.f32 {%f1,%f2,%f3,%f4}, [%rd1];");
  EXPECT_EQ(l.op, Opcode::Ld);
  EXPECT_EQ(l.space, StateSpace::Global);
  EXPECT_EQ(l.vec, 4);
  EXPECT_EQ(l.type, DataType::F32);
  EXPECT_EQ(l.dst.kind, OperandKind::Vector);
  EXPECT_EQ(l.dst.count, 4);
  EXPECT_EQ(l.dst.vregs[3], kF + 4);
  EXPECT_EQ(l.unit, UnitClass::MEM);
  EXPECT_EQ(l.num_src, 1);

  Instruction s = first("st.shared.v2.f32 [%rd1+8], {%f1, %f2};");
  EXPECT_EQ(s.op, Opcode::St);
  EXPECT_EQ(s.space, StateSpace::Shared);
  EXPECT_EQ(s.dst.kind, OperandKind::Address);
  EXPECT_EQ(s.dst.imm, 8u);
  EXPECT_EQ(s.src[0].kind, OperandKind::Vector);
  EXPECT_EQ(s.src[0].count, 2);
  EXPECT_EQ(s.vec, 2);

  EXPECT_EQ(first("ld.f32 %f1, [%rd1];").space, StateSpace::Generic);
  EXPECT_TRUE(first("ld.volatile.shared.u32 %r1, [%rd1];").volatile_);
  EXPECT_FALSE(first("ld.relaxed.gpu.global.u32 %r1, [%rd1];").volatile_);
  for (const char* q : {"ca", "cg", "cs", "lu", "cv", "L1::no_allocate", "L2::128B", "L1::evict_last"}) {
    Instruction c = first(std::string("ld.global.") + q + ".u32 %r1, [%rd1];");
    EXPECT_EQ(c.space, StateSpace::Global) << q;
  }
  EXPECT_EQ(first("st.global.wb.u32 [%rd1], %r1;").space, StateSpace::Global);
  EXPECT_EQ(first("st.global.wt.u32 [%rd1], %r1;").space, StateSpace::Global);
  EXPECT_EQ(first("st.release.sys.global.u32 [%rd1], 0;").src[0].imm, 0u);
  EXPECT_EQ(first("ld.acquire.cta.shared.u64 %rd1, [%r1];").type, DataType::U64);
  Instruction st = first("st.global.f32 [%rd1], 0f3F800000;");
  EXPECT_EQ(st.src[0].kind, OperandKind::Imm);
  EXPECT_EQ(st.src[0].imm, 0x3F800000u);
  Instruction ab = first("ld.global.u32 %r1, [64];");
  EXPECT_EQ(ab.src[0].reg, kNoReg);
  EXPECT_EQ(ab.src[0].imm, 64u);
  EXPECT_EQ(first("ld.local.b16 %rs1, [%rd1];").space, StateSpace::Local);
  EXPECT_EQ(first("ld.const.s8 %rs1, [%rd1];").space, StateSpace::Const);
}

TEST(PtxParser, AtomicsAndReductions) {
  Instruction c = first("atom.global.cas.b32 %r1, [%rd1], %r2, %r3;");
  EXPECT_EQ(c.op, Opcode::Atom);
  EXPECT_EQ(c.atom, AtomOp::Cas);
  EXPECT_EQ(c.space, StateSpace::Global);
  EXPECT_EQ(c.src[0].kind, OperandKind::Address);
  EXPECT_EQ(c.src[1].reg, kR + 2);
  EXPECT_EQ(c.src[2].reg, kR + 3);
  EXPECT_EQ(c.num_src, 3);
  EXPECT_EQ(c.unit, UnitClass::MEM);
  Instruction f = first("atom.add.f32 %f1, [%rd1], 0f3FC00000;");
  EXPECT_EQ(f.atom, AtomOp::Add);
  EXPECT_EQ(f.space, StateSpace::Generic);
  EXPECT_EQ(f.type, DataType::F32);
  EXPECT_EQ(f.src[1].imm, 0x3FC00000u);
  EXPECT_EQ(f.num_src, 2);
  EXPECT_EQ(first("atom.global.add.u64 %rd1, [%rd2], 3;").type, DataType::U64);
  Instruction inc = first("atom.shared.inc.u32 %r1, [%r2], 1000;");
  EXPECT_EQ(inc.atom, AtomOp::Inc);
  EXPECT_EQ(inc.space, StateSpace::Shared);
  EXPECT_EQ(inc.src[0].reg, kR + 2);
  EXPECT_EQ(first("atom.relaxed.gpu.global.exch.b32 %r1, [%rd1], 0;").atom, AtomOp::Exch);
  EXPECT_EQ(first("atom.acq_rel.sys.global.max.s32 %r1, [%rd1], %r2;").atom, AtomOp::Max);
  EXPECT_EQ(first("atom.global.min.u64 %rd1, [%rd1], %rd2;").atom, AtomOp::Min);
  EXPECT_EQ(first("atom.global.dec.u32 %r1, [%rd1], %r2;").atom, AtomOp::Dec);
  EXPECT_EQ(first("atom.global.and.b64 %rd1, [%rd1], %rd2;").atom, AtomOp::And);
  EXPECT_EQ(first("atom.global.or.b32 %r1, [%rd1], %r2;").atom, AtomOp::Or);
  EXPECT_EQ(first("atom.global.xor.b32 %r1, [%rd1], %r2;").atom, AtomOp::Xor);
  EXPECT_EQ(first("atom.global.add.f64 %fd1, [%rd1], %fd2;").type, DataType::F64);
  Instruction r = first("red.global.add.u32 [%rd1+4], %r1;");
  EXPECT_EQ(r.op, Opcode::Red);
  EXPECT_EQ(r.dst.kind, OperandKind::None);
  EXPECT_EQ(r.src[0].kind, OperandKind::Address);
  EXPECT_EQ(r.src[0].imm, 4u);
  EXPECT_EQ(r.src[1].reg, kR + 1);
  EXPECT_EQ(r.num_src, 2);
  EXPECT_EQ(r.unit, UnitClass::MEM);
  EXPECT_EQ(first("red.shared.add.f32 [%r1], 0f3F800000;").space, StateSpace::Shared);
}

TEST(PtxParser, BarriersAndFences) {
  Instruction b = first("bar.sync 0;");
  EXPECT_EQ(b.op, Opcode::Bar);
  EXPECT_EQ(b.bar, BarMode::Sync);
  EXPECT_EQ(b.num_src, 1);
  EXPECT_EQ(b.src[0].imm, 0u);
  EXPECT_EQ(b.unit, UnitClass::BAR);
  EXPECT_EQ(first("barrier.sync 0;").bar, BarMode::Sync);
  EXPECT_EQ(first("barrier.sync.aligned 0;").bar, BarMode::Sync);
  Instruction bc = first("bar.sync 1, 64;");
  EXPECT_EQ(bc.num_src, 2);
  EXPECT_EQ(bc.src[0].imm, 1u);
  EXPECT_EQ(bc.src[1].imm, 64u);
  Instruction ba = first("bar.arrive 1, %r3;");
  EXPECT_EQ(ba.bar, BarMode::Arrive);
  EXPECT_EQ(ba.src[1].kind, OperandKind::Reg);
  Instruction rp = first("bar.red.popc.u32 %r1, 0, %p1;");
  EXPECT_EQ(rp.bar, BarMode::RedPopc);
  EXPECT_EQ(rp.dst.kind, OperandKind::Reg);
  EXPECT_EQ(rp.src[0].imm, 0u);
  EXPECT_EQ(rp.src[1].kind, OperandKind::None);
  EXPECT_EQ(rp.src[2].kind, OperandKind::Pred);
  EXPECT_EQ(rp.num_src, 3);
  Instruction ra = first("bar.red.and.pred %p2, 1, 64, !%p1;");
  EXPECT_EQ(ra.bar, BarMode::RedAnd);
  EXPECT_EQ(ra.dst.kind, OperandKind::Pred);
  EXPECT_EQ(ra.src[1].imm, 64u);
  EXPECT_TRUE(ra.src[2].negate);
  EXPECT_EQ(first("bar.red.or.pred %p2, 0, %p1;").bar, BarMode::RedOr);
  Instruction w = first("bar.warp.sync %r1;");
  EXPECT_EQ(w.bar, BarMode::Warp);
  EXPECT_EQ(w.src[0].kind, OperandKind::Reg);
  EXPECT_EQ(w.num_src, 1);

  for (const char* f : {"membar.gl;", "membar.cta;", "membar.sys;", "fence.sc.gpu;", "fence.acq_rel.gpu;",
                        "fence.sc.cta;", "fence.acq_rel.sys;"}) {
    Instruction in = first(f);
    EXPECT_EQ(in.op, Opcode::Membar) << f;
    EXPECT_EQ(in.unit, UnitClass::MEM) << f;
  }
  Instruction pf = first("prefetch.global.L2 [%rd1+128];");
  EXPECT_EQ(pf.op, Opcode::Prefetch);
  EXPECT_EQ(pf.space, StateSpace::Global);
  EXPECT_EQ(pf.src[0].imm, 128u);
  EXPECT_EQ(pf.unit, UnitClass::MEM);
  EXPECT_EQ(first("prefetch.L1 [%rd1];").space, StateSpace::Generic);
}

TEST(PtxParser, WarpLevel) {
  Instruction s = first("shfl.sync.bfly.b32 %r1|%p1, %r2, %r3, %r4, %r5;");
  EXPECT_EQ(s.op, Opcode::Shfl);
  EXPECT_EQ(s.shfl, ShflMode::Bfly);
  EXPECT_EQ(s.dst.reg, kR + 1);
  EXPECT_EQ(s.dst2.kind, OperandKind::Pred);
  EXPECT_EQ(s.dst2.reg, 1u);
  EXPECT_EQ(s.src[0].reg, kR + 2);
  EXPECT_EQ(s.src[1].reg, kR + 3);
  EXPECT_EQ(s.src[2].reg, kR + 4);
  EXPECT_EQ(s.src[3].reg, kR + 5);
  EXPECT_EQ(s.num_src, 4);
  EXPECT_EQ(s.unit, UnitClass::SP);
  Instruction d = first("shfl.sync.down.b32 %r17, %r1, 16, 31, -1;");
  EXPECT_EQ(d.shfl, ShflMode::Down);
  EXPECT_EQ(d.dst2.kind, OperandKind::None);
  EXPECT_EQ(d.src[3].imm, 0xFFFFFFFFFFFFFFFFull);
  EXPECT_EQ(first("shfl.sync.up.b32 %r1|%p2, %r2, 1, 0, -1;").shfl, ShflMode::Up);
  EXPECT_EQ(first("shfl.sync.idx.b32 %r1|%p2, %r2, 1, 31, -1;").shfl, ShflMode::Idx);
  EXPECT_EQ(first("shfl.idx.b32 %r1, %r2, 1, 31;").num_src, 3);

  Instruction b = first("vote.sync.ballot.b32 %r1, %p1, %r2;");
  EXPECT_EQ(b.op, Opcode::Vote);
  EXPECT_EQ(b.vote, VoteMode::Ballot);
  EXPECT_EQ(b.dst.kind, OperandKind::Reg);
  EXPECT_EQ(b.src[0].kind, OperandKind::Pred);
  EXPECT_EQ(b.src[1].reg, kR + 2);
  EXPECT_EQ(b.num_src, 2);
  Instruction a = first("vote.sync.all.pred %p1, !%p2, -1;");
  EXPECT_EQ(a.vote, VoteMode::All);
  EXPECT_EQ(a.dst.kind, OperandKind::Pred);
  EXPECT_TRUE(a.src[0].negate);
  Instruction ns = first("vote.all.pred %p1, %p2;");
  EXPECT_EQ(ns.num_src, 1);
  EXPECT_EQ(first("vote.sync.any.pred %p1, %p2, -1;").vote, VoteMode::Any);
  EXPECT_EQ(first("vote.sync.uni.pred %p1, %p2, -1;").vote, VoteMode::Uni);

  Instruction am = first("activemask.b32 %r1;");
  EXPECT_EQ(am.op, Opcode::Activemask);
  EXPECT_EQ(am.num_src, 0);
  EXPECT_EQ(am.dst.reg, kR + 1);

  Instruction m = first("match.any.sync.b32 %r1, %r2, %r3;");
  EXPECT_EQ(m.op, Opcode::Match);
  EXPECT_EQ(m.vote, VoteMode::Any);
  EXPECT_EQ(m.num_src, 2);
  Instruction ma = first("match.all.sync.b64 %r1|%p1, %rd2, -1;");
  EXPECT_EQ(ma.vote, VoteMode::All);
  EXPECT_EQ(ma.dst2.kind, OperandKind::Pred);
}

TEST(PtxParser, ControlFlow) {
  Module m = parse(kernel("L0:\n@%p1 bra L2;\nbra.uni L0;\nL2:\nret;\nexit;\ntrap;\nnop;\nret.uni;\n"));
  EXPECT_EQ(m.code[0].target, 2u);
  EXPECT_EQ(m.code[0].guard, 1u);
  EXPECT_FALSE(m.code[0].uni);
  EXPECT_EQ(m.code[1].target, 0u);
  EXPECT_TRUE(m.code[1].uni);
  const Opcode ops[] = {Opcode::Bra, Opcode::Bra, Opcode::Ret, Opcode::Exit, Opcode::Trap, Opcode::Nop, Opcode::Ret};
  for (size_t i = 0; i < 7; ++i) {
    EXPECT_EQ(m.code[i].op, ops[i]);
    EXPECT_EQ(m.code[i].unit, UnitClass::CTRL);
  }
  EXPECT_TRUE(m.code[6].uni);
}

TEST(PtxParser, ALabelAtTheEndOfABodyMarksAGuardedEnd) {
  // nvcc ends .noreturn functions so; the guard there faults if reached.
  Module m = parse(kernel("@%p1 bra END;\nret;\nEND:"));
  ASSERT_EQ(m.code.size(), 3u);
  EXPECT_EQ(m.code[0].target, 2u);
  EXPECT_EQ(m.code[2].op, Opcode::Trap);
  EXPECT_TRUE(m.code[2].end_of_body);
  EXPECT_EQ(m.functions[0].end_pc, 3u);
  // A body that ends in an unconditional ret, exit, trap or branch needs none.
  for (const char* end : {"ret;", "exit;", "trap;", "L: bra.uni L;"}) {
    Module n = parse(kernel(std::string("add.s32 %r1, %r2, 1;\n") + end));
    EXPECT_EQ(n.code.size(), 2u) << end;
    EXPECT_FALSE(n.code.back().end_of_body) << end;
  }
  EXPECT_TRUE(parse(kernel("@%p1 ret;")).code.back().end_of_body);
}

TEST(PtxParser, LabelsAreModuleGlobalPcs) {
  Module m = parse(std::string(kHeader) + ".visible .entry a()\n{\nnop;\nnop;\nret;\n}\n"
                   ".visible .entry b()\n{\n.reg .pred %p;\nsetp.eq.u32 %p, 1, 1;\n@%p bra $L__BB1_2;\nnop;\n"
                   "$L__BB1_2:\nret;\n}\n");
  const Function& b = m.functions[1];
  EXPECT_EQ(b.entry_pc, 3u);
  EXPECT_EQ(b.end_pc, 7u);
  EXPECT_EQ(m.code[4].target, 6u);
  EXPECT_EQ(m.code[4].src[0].imm, 6u);
}

TEST(PtxParser, SourceTextAndLocations) {
  Module m = parse(kernel("  add.s32   %r1,  %r2,\t%r3 ;  // trailing\n@%p1  bra\n  L;\nL:\nret;"));
  ASSERT_EQ(m.text.size(), m.code.size());
  EXPECT_EQ(m.text[0], "add.s32 %r1, %r2, %r3;");
  EXPECT_EQ(m.text[1], "@%p1 bra L;");
  EXPECT_EQ(m.code[0].loc.line, kBodyLine);
  EXPECT_EQ(m.code[0].loc.column, 3u);
  EXPECT_EQ(m.code[1].loc.column, 7u);  // the opcode, not the guard
}

// ------------------------------------------------------------------ state spaces and layout

TEST(PtxParser, SharedLayoutStaticAndDynamic) {
  Module m = parse(std::string(kHeader) +
                   ".shared .align 4 .b8 m0[6];\n"
                   ".extern .shared .align 16 .b8 dyn[];\n"
                   ".extern .shared .align 4 .b8 dyn2[];\n"
                   ".visible .entry a()\n{\n.reg .b32 %r<4>;\n.reg .b64 %rd<2>;\n"
                   ".shared .align 8 .u64 s1;\n.shared .align 4 .b8 tile[100];\n"
                   "mov.u32 %r1, tile;\nst.shared.u32 [tile+8], %r1;\nmov.u32 %r2, dyn;\nld.shared.u32 %r3, [dyn2+4];\n"
                   "mov.u64 %rd1, s1;\nld.u32 %r1, [m0];\nret;\n}\n"
                   ".visible .entry b()\n{\n.reg .b32 %r<2>;\n.shared .align 4 .b8 other[8];\nmov.u32 %r1, other;\nret;\n}\n");
  // m0 at 0 (6 bytes); kernel a: s1 at 8, tile at 16..116; kernel b: other at 8 (overlaps a's).
  EXPECT_EQ(m.code[0].src[0].kind, OperandKind::Imm);
  EXPECT_EQ(m.code[0].src[0].imm, 16u);
  EXPECT_EQ(m.code[1].dst.kind, OperandKind::Address);
  EXPECT_EQ(m.code[1].dst.reg, kNoReg);
  EXPECT_EQ(m.code[1].dst.imm, 24u);
  EXPECT_EQ(m.static_shared_bytes, 128u);  // 116 rounded up to the extern alignment 16
  EXPECT_EQ(m.code[2].src[0].imm, 128u);
  EXPECT_EQ(m.code[3].src[0].imm, 132u);   // every extern shared aliases the dynamic region
  EXPECT_EQ(m.code[4].src[0].imm, 8u);
  EXPECT_EQ(m.code[5].space, StateSpace::Shared);  // generic access to a shared symbol
  EXPECT_EQ(m.code[5].src[0].imm, 0u);
  EXPECT_EQ(m.code[m.functions[1].entry_pc].src[0].imm, 8u);
  bool saw_dyn = false;
  for (const ModuleVariable& v : m.shareds) {
    if (v.name == "dyn") {
      saw_dyn = true;
      EXPECT_TRUE(v.is_extern);
      EXPECT_EQ(v.offset, 128u);
      EXPECT_EQ(v.size, 0u);
    }
    if (v.name == "tile") {
      EXPECT_EQ(v.size, 100u);
    }
  }
  EXPECT_TRUE(saw_dyn);
}

TEST(PtxParser, ConstBankAndInitializers) {
  Module m = parse(std::string(kHeader) +
                   ".const .align 4 .b8 coeffs[8] = {0, 0, 128, 63, 0, 0, 0, 63};\n"
                   ".const .align 4 .u32 five = 5;\n"
                   ".const .align 8 .f64 d2[2] = {1.5, 0d4000000000000000};\n"
                   ".const .align 4 .f32 fl[3] = {0f3F800000, -2.0};\n"
                   ".const .s16 neg = -2;\n"
                   ".const .align 4 .u32 arr[] = {1, 2, 3};\n"
                   ".visible .entry e()\n{\n.reg .f32 %f;\n.reg .b32 %r;\n.reg .b64 %rd;\n"
                   "ld.const.f32 %f, [coeffs+4];\nld.const.u32 %r, [five];\nmov.u64 %rd, d2;\nret;\n}\n");
  ASSERT_EQ(m.consts.size(), 6u);
  EXPECT_EQ(m.consts[0].offset, 0u);
  EXPECT_EQ(m.consts[1].offset, 8u);
  EXPECT_EQ(m.consts[2].offset, 16u);
  EXPECT_EQ(m.consts[3].offset, 32u);
  EXPECT_EQ(m.consts[4].offset, 44u);
  EXPECT_EQ(m.consts[5].offset, 48u);
  EXPECT_EQ(m.consts[5].size, 12u);
  EXPECT_EQ(m.const_bank_bytes, 60u);
  ASSERT_EQ(m.const_bank.size(), 60u);
  auto u32_at = [&](size_t o) {
    uint32_t v;
    std::memcpy(&v, &m.const_bank[o], 4);
    return v;
  };
  auto u64_at = [&](size_t o) {
    uint64_t v;
    std::memcpy(&v, &m.const_bank[o], 8);
    return v;
  };
  EXPECT_EQ(u32_at(0), 0x3F800000u);
  EXPECT_EQ(u32_at(4), 0x3F000000u);
  EXPECT_EQ(u32_at(8), 5u);
  EXPECT_EQ(u64_at(16), f64bits(1.5));
  EXPECT_EQ(u64_at(24), f64bits(2.0));
  EXPECT_EQ(u32_at(32), 0x3F800000u);
  EXPECT_EQ(u32_at(36), f32bits(-2.0f));
  EXPECT_EQ(u32_at(40), 0u);  // missing initializers are zero
  EXPECT_EQ(m.const_bank[44], 0xFE);
  EXPECT_EQ(m.const_bank[45], 0xFF);
  EXPECT_EQ(u32_at(52), 2u);
  EXPECT_EQ(m.code[0].space, StateSpace::Const);
  EXPECT_EQ(m.code[0].src[0].imm, 4u);
  EXPECT_EQ(m.code[1].src[0].imm, 8u);
  EXPECT_EQ(m.code[2].src[0].kind, OperandKind::Imm);
  EXPECT_EQ(m.code[2].src[0].imm, 16u);
}

TEST(PtxParser, GlobalVariables) {
  Module m = parse(std::string(kHeader) +
                   ".global .align 4 .u32 counter;\n"
                   ".global .align 8 .b8 gtable[16] = {0, 0, 0, 0, 0, 0, 240, 63};\n"
                   ".visible .global .align 4 .f32 gf[2] = {1.0, 2.0};\n"
                   ".global .u8 gb = 200, gc;\n"
                   ".visible .entry e()\n{\n.reg .b32 %r;\n.reg .b64 %rd;\n"
                   "mov.u64 %rd, gtable;\nld.global.u32 %r, [gtable+4];\natom.global.add.u32 %r, [counter], 1;\n"
                   "ld.u32 %r, [gf+4];\ncvta.global.u64 %rd, gf;\nret;\n}\n");
  ASSERT_EQ(m.globals.size(), 5u);
  EXPECT_EQ(m.globals[0].name, "counter");
  EXPECT_EQ(m.globals[0].offset, 0u);
  EXPECT_TRUE(m.globals[0].init.empty());
  EXPECT_EQ(m.globals[1].offset, 8u);
  ASSERT_EQ(m.globals[1].init.size(), 16u);
  EXPECT_EQ(m.globals[1].init[6], 240);
  EXPECT_EQ(m.globals[1].init[7], 63);
  EXPECT_EQ(m.globals[1].init[8], 0);
  EXPECT_EQ(m.globals[2].offset, 24u);
  ASSERT_EQ(m.globals[2].init.size(), 8u);
  uint32_t two;
  std::memcpy(&two, &m.globals[2].init[4], 4);
  EXPECT_EQ(two, f32bits(2.0f));
  EXPECT_EQ(m.globals[3].offset, 32u);
  EXPECT_EQ(m.globals[3].init[0], 200);
  EXPECT_EQ(m.globals[4].name, "gc");
  EXPECT_EQ(m.global_segment_bytes, 34u);

  EXPECT_EQ(m.code[0].src[0].kind, OperandKind::Symbol);
  EXPECT_EQ(m.code[0].src[0].symbol, 1);
  EXPECT_EQ(m.code[0].src[0].imm, 0u);
  EXPECT_EQ(m.code[1].src[0].kind, OperandKind::Address);
  EXPECT_EQ(m.code[1].src[0].symbol, 1);
  EXPECT_EQ(m.code[1].src[0].reg, kNoReg);
  EXPECT_EQ(m.code[1].src[0].imm, 4u);
  EXPECT_EQ(m.code[2].src[0].symbol, 0);
  EXPECT_EQ(m.code[3].space, StateSpace::Generic);  // a global address is a valid generic one
  EXPECT_EQ(m.code[3].src[0].symbol, 2);
  EXPECT_EQ(m.code[4].src[0].kind, OperandKind::Symbol);
  // Ordinary register operands carry no symbol.
  EXPECT_EQ(first("ld.global.u32 %r1, [%rd1];").src[0].symbol, -1);
}

TEST(PtxParser, LocalVariablesAndFunctionParams) {
  Module m = parse(std::string(kHeader) +
                   ".func (.param .b32 func_retval0) f(.param .b32 f_p0, .param .align 8 .b8 f_p1[16])\n{\n"
                   ".local .align 16 .b8 __local_depot0[64];\n.reg .b64 %SPL;\n.reg .b32 %r<3>;\n"
                   "mov.u64 %SPL, __local_depot0;\nld.param.u32 %r1, [f_p0];\nld.param.u32 %r2, [f_p1+12];\n"
                   "st.param.b32 [func_retval0+0], %r1;\nld.local.u32 %r1, [__local_depot0+8];\nret;\n}\n"
                   ".visible .entry e(.param .u32 e_p0)\n{\n.local .align 4 .b8 __local_depot1[12];\n"
                   ".reg .b32 %r<3>;\nld.param.u32 %r1, [e_p0];\n"
                   "{ // callseq 0, 0\n.reg .b32 temp_param_reg;\n.param .b32 param0;\nst.param.b32 [param0+0], %r1;\n"
                   ".param .align 8 .b8 param1[16];\nst.param.b32 [param1+12], %r1;\n.param .b32 retval0;\n"
                   "call.uni (retval0), \nf, \n(\nparam0, \nparam1\n);\nld.param.b32 %r2, [retval0+0];\n} // callseq 0\n"
                   "{\n.param .b32 param0;\nst.param.b32 [param0], 7;\n.param .align 8 .b8 param1[16];\n"
                   ".param .b32 retval0;\ncall (retval0), f, (param0, param1);\n}\n"
                   "ret;\n}\n");
  // Local area: f_ret 0..4, f_p0 4..8, f_p1 8..24, depot0 32..96, depot1 96..108,
  // callseq 0: param0 108, param1 112..128, retval0 128;
  // callseq 1: param0 132, param1 136..152, retval0 152.
  EXPECT_EQ(m.local_bytes_per_thread, 156u);
  const auto& c = m.code;
  EXPECT_EQ(c[0].src[0].kind, OperandKind::Imm);
  EXPECT_EQ(c[0].src[0].imm, 32u);
  EXPECT_EQ(c[1].space, StateSpace::Local);
  EXPECT_EQ(c[1].src[0].imm, 4u);
  EXPECT_EQ(c[2].src[0].imm, 20u);
  EXPECT_EQ(c[3].space, StateSpace::Local);
  EXPECT_EQ(c[3].dst.imm, 0u);
  EXPECT_EQ(c[4].space, StateSpace::Local);
  EXPECT_EQ(c[4].src[0].imm, 40u);
  const uint32_t e = m.functions[1].entry_pc;
  EXPECT_EQ(c[e].space, StateSpace::Param);  // the kernel's own parameter
  EXPECT_EQ(c[e].src[0].imm, 0u);
  EXPECT_EQ(c[e + 1].space, StateSpace::Local);
  EXPECT_EQ(c[e + 1].dst.imm, 108u);
  EXPECT_EQ(c[e + 2].dst.imm, 124u);
  const Instruction& call = c[e + 3];
  EXPECT_EQ(call.op, Opcode::Call);
  EXPECT_TRUE(call.uni);
  EXPECT_EQ(call.unit, UnitClass::CTRL);
  ASSERT_EQ(call.target, 0u);
  const CallSite& cs = m.calls[0];
  EXPECT_EQ(cs.callee, 0u);
  ASSERT_EQ(cs.args.size(), 2u);
  EXPECT_EQ(cs.args[0].from, 108u);
  EXPECT_EQ(cs.args[0].to, 4u);
  EXPECT_EQ(cs.args[0].bytes, 4u);
  EXPECT_EQ(cs.args[1].from, 112u);
  EXPECT_EQ(cs.args[1].to, 8u);
  EXPECT_EQ(cs.args[1].bytes, 16u);
  ASSERT_EQ(cs.rets.size(), 1u);
  EXPECT_EQ(cs.rets[0].from, 0u);
  EXPECT_EQ(cs.rets[0].to, 128u);
  EXPECT_EQ(cs.rets[0].bytes, 4u);
  EXPECT_EQ(c[e + 4].space, StateSpace::Local);
  EXPECT_EQ(c[e + 4].src[0].imm, 128u);
  EXPECT_EQ(m.text[e + 3], "call.uni (retval0), f, (param0, param1);");
}

TEST(PtxParser, ParamsThroughRegistersAndHalfRegisters) {
  Module m = parse(std::string(kHeader) +
                   ".func f(.param .align 4 .b8 s[8])\n{\n.reg .b64 %rd<2>;\n.reg .b32 %r<2>;\n"
                   "mov.b64 %rd1, s;\nld.param.u32 %r1, [%rd1+4];\nret;\n}\n"
                   ".visible .entry e(.param .align 4 .b8 ks[8])\n{\n.reg .b64 %rd<2>;\n.reg .b32 %r<2>;\n"
                   ".reg .f16 %h<2>;\n.extern .shared .align 8 .b8 dsm[];\n"
                   "mov.b64 %rd1, ks;\nld.param.u32 %r1, [%rd1+4];\nmov.b16 %h1, 0x3C00;\nmov.u32 %r1, dsm;\nret;\n}\n");
  EXPECT_EQ(m.code[0].src[0].kind, OperandKind::Imm);  // the parameter's local offset
  EXPECT_EQ(m.code[1].space, StateSpace::Local);
  const uint32_t e = m.functions[1].entry_pc;
  EXPECT_EQ(m.code[e].src[0].imm, 0u);                // offset in the launch buffer
  EXPECT_EQ(m.code[e + 1].space, StateSpace::Param);
  EXPECT_EQ(m.code[e + 2].dst.kind, OperandKind::Reg);
  EXPECT_EQ(m.code[e + 3].src[0].imm, 0u);  // no static shared: dynamic starts at 0
  EXPECT_EQ(m.static_shared_bytes, 0u);
  ASSERT_EQ(m.shareds.size(), 1u);
  EXPECT_TRUE(m.shareds[0].is_extern);
  // Everything folds into operands (parameters, immediates, symbols): no
  // register beyond the reserve.
  EXPECT_EQ(m.functions[1].regs_per_thread, tlmgpu::ptx::kReservedRegisters);
}

TEST(PtxParser, CallFormsDecoded) {
  Module m = parse(std::string(kHeader) +
                   ".func g()\n{\nret;\n}\n"
                   ".func h(.param .b64 h_p0)\n{\nret;\n}\n"
                   ".visible .entry e()\n{\n.reg .pred %p1;\ncall.uni g;\n{\n.param .b64 param0;\n"
                   "st.param.b64 [param0], 0;\ncall h, (param0);\n}\n@%p1 call g;\nret;\n}\n");
  ASSERT_EQ(m.calls.size(), 3u);
  EXPECT_EQ(m.calls[0].callee, 0u);
  EXPECT_TRUE(m.calls[0].args.empty());
  EXPECT_TRUE(m.calls[0].rets.empty());
  EXPECT_EQ(m.calls[1].callee, 1u);
  ASSERT_EQ(m.calls[1].args.size(), 1u);
  EXPECT_EQ(m.calls[1].args[0].bytes, 8u);
  const uint32_t e = m.functions[2].entry_pc;
  EXPECT_TRUE(m.code[e].uni);
  EXPECT_FALSE(m.code[e + 2].uni);
  EXPECT_EQ(m.code[e + 2].target, 1u);
  EXPECT_EQ(m.code[e + 3].guard, 0u);
  EXPECT_EQ(m.code[e + 3].target, 2u);
}

// ------------------------------------------------------------------ errors

TEST(PtxErrors, SyntaxErrorsNameWhatWasExpected) {
  EXPECT_NE(error_of("add.s32 %r1, %r2 %r3;").find("expected ',' between operands, found '%r3'"),
            std::string::npos);
  EXPECT_NE(error_of("ld.global.u32 %r1, [%rd1;").find("expected ']'"), std::string::npos);
  EXPECT_NE(error_of("mov.u32 %r1, ;").find("expected an operand"), std::string::npos);
  EXPECT_NE(error_of("st.global.v2.f32 [%rd1], {%f1 %f2};").find("expected ',' or '}'"), std::string::npos);
  EXPECT_NE(error_of(".reg .b32 %q<;").find("expected a register count"), std::string::npos);
  auto d = errors(std::string(kHeader) + "garbage here;\n");
  ASSERT_EQ(d.size(), 1u);
  EXPECT_NE(d[0].message.find("at module scope"), std::string::npos);
  auto d2 = errors(kernel("add.s32 %r1, %r2, %r3\nmov.u32 %r1, 0;"));
  ASSERT_EQ(d2.size(), 1u);
  EXPECT_NE(d2[0].message.find("expected ','"), std::string::npos);
  EXPECT_NE(error_of("mov.u32 %r1, 12ab;").find("malformed number '12ab'"), std::string::npos);
  EXPECT_NE(error_of("mov.u32 %r1, 1 # 2;").find("unexpected character '#'"), std::string::npos);
}

TEST(PtxErrors, UnknownNames) {
  EXPECT_EQ(error_of("add.s32 %r99, %r1, %r2;"), "unknown register '%r99'");
  EXPECT_EQ(error_of("add.s32 %r1, %q1, %r2;"), "unknown register '%q1'");
  EXPECT_EQ(error_of("@%p9 bra L;\nL: ret;"), "unknown register '%p9'");
  EXPECT_EQ(error_of("bra.uni NOWHERE;"), "unknown label 'NOWHERE'");
  EXPECT_EQ(error_of("ld.global.u32 %r1, [nosuch+4];"), "unknown symbol 'nosuch'");
  EXPECT_EQ(error_of("mov.u64 %rd1, nosuch;"), "unknown symbol 'nosuch'");
  EXPECT_EQ(error_of("mov.u32 %r1, %tid.w;"), "unknown register '%tid.w'");
  EXPECT_EQ(error_of("mov.u32 %tid.x, %r1;"), "special register '%tid.x' cannot be written");
}

TEST(PtxErrors, DuplicateDeclarations) {
  EXPECT_EQ(error_of(".reg .b32 %r3;"), "duplicate declaration of '%r3'");  // covered by %r<20>
  EXPECT_EQ(error_of(".reg .b32 %x;\n.reg .b32 %x;"), "duplicate declaration of '%x'");
  EXPECT_EQ(error_of(".reg .f32 %f<2>;"), "duplicate declaration of '%f'");
  EXPECT_EQ(error_of("L: nop;\nL: ret;"), "duplicate label 'L'");
  auto d = errors(std::string(kHeader) + ".global .u32 g;\n.global .u32 g;\n");
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].message, "duplicate declaration of 'g'");
  EXPECT_EQ(d[0].line, 5u);
  auto f = errors(std::string(kHeader) + ".func f()\n{\nret;\n}\n.func f()\n{\nret;\n}\n");
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].message, "duplicate definition of function 'f'");
  auto p = errors(std::string(kHeader) + ".visible .entry e(.param .u32 a, .param .u32 a)\n{\nret;\n}\n");
  ASSERT_EQ(p.size(), 1u);
  EXPECT_EQ(p[0].message, "duplicate declaration of 'a'");
}

TEST(PtxErrors, OperandCountAndKind) {
  EXPECT_EQ(error_of("add.s32 %r1, %r2;"), "'add.s32' expects 3 operands, got 2");
  EXPECT_EQ(error_of("mov.u32 %r1;"), "'mov.u32' expects 2 operands, got 1");
  EXPECT_EQ(error_of("ret 1;"), "'ret' expects 0 operands, got 1");
  EXPECT_EQ(error_of("setp.lt.s32 %p1, %r1, %r2, %p2;"), "'setp.lt.s32' expects 3 operands, got 4");
  EXPECT_NE(error_of("add.s32 %p1, %r1, %r2;").find("expects a non-predicate register as first operand"),
            std::string::npos);
  EXPECT_NE(error_of("selp.u32 %r1, 1, 0, %r2;").find("expects a predicate as fourth operand"), std::string::npos);
  EXPECT_NE(error_of("ld.global.u32 %r1, %rd1;").find("expects an address '[...]' as second operand"),
            std::string::npos);
  EXPECT_NE(error_of("add.s32 %r1, [%rd1], 1;").find("does not take an address"), std::string::npos);
  EXPECT_NE(error_of("ld.global.v4.f32 {%f1,%f2}, [%rd1];").find("expects a vector of 4 registers, got 2"),
            std::string::npos);
  EXPECT_NE(error_of("add.s32 %r1, !%r2, 1;").find("'!' is only allowed on predicate operands"),
            std::string::npos);
  EXPECT_NE(error_of("add.f32 %f1, %f2, 1;").find("needs a floating-point constant"), std::string::npos);
  EXPECT_NE(error_of("add.s32 %r1, %r2, 1.5;").find("needs an integer constant"), std::string::npos);
  EXPECT_NE(error_of("bra.uni %r1;").find("expects a label"), std::string::npos);
}

TEST(PtxErrors, BadTypes) {
  EXPECT_EQ(error_of("shl.f32 %f1, %f2, 1;"), "type .f32 is not valid for 'shl.f32'");
  EXPECT_EQ(error_of("add.pred %p1, %p2, %p3;"), "type .pred is not valid for 'add.pred'");
  EXPECT_EQ(error_of("sqrt.approx.s32 %r1, %r2;"), "type .s32 is not valid for 'sqrt.approx.s32'");
  EXPECT_EQ(error_of("atom.global.inc.u64 %rd1, [%rd2], 1;"), "type .u64 is not valid for 'atom.global.inc.u64'");
  EXPECT_NE(error_of("add %r1, %r2, %r3;").find("'add' needs a type"), std::string::npos);
  EXPECT_NE(error_of("mul.s32 %r1, %r2, %r3;").find("needs .lo, .hi or .wide"), std::string::npos);
  EXPECT_NE(error_of("cvt.f32 %f1, %r1;").find("needs two types"), std::string::npos);
  EXPECT_NE(error_of("setp.lo.f32 %p1, %f1, %f2;").find("comparison .lo is not valid for type .f32"),
            std::string::npos);
}

TEST(PtxErrors, UnsupportedInstructionMessage) {
  auto d = errors(kernel("  txq.width.b32 %r1, [%rd1];"), "k.ptx");
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].message, "unsupported PTX instruction 'txq.width.b32'");
  EXPECT_EQ(d[0].line, kBodyLine);
  EXPECT_EQ(d[0].column, 3u);
  EXPECT_EQ(d[0].format(),
            "k.ptx:12:3: error: unsupported PTX instruction 'txq.width.b32'\n"
            "    txq.width.b32 %r1, [%rd1];");
  for (const char* s : {"suq.width.b32 %r1, [%rd1];",
                        "istypep.texref %p1, %rd1;", "wmma.load.a.sync.aligned.row.m8n8k32.s4 {%r1}, [%rd1];",
                        "mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 {%f1}, {%r1}, {%r2}, {%f2};",
                        "cp.async.ca.shared.global [%r1], [%rd1], 16;", "ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%r1,%r2,%r3,%r4}, [%r5];",
                        "min.xorsign.abs.f16 %rs1, %rs2, %rs3;", "ld.global.L2::cache_hint.u32 %r1, [%rd1], %rd2;",
                        "atom.global.add.noftz.f32 %f1, [%rd1], %f2;", "min.NaN.f32 %f1, %f2, %f3;", "lop3.or.b32 %r1|%p1, %r2, %r3, %r4, 0x96, %p2;",
                        "fence.proxy.async;", "prefetchu.L1 [%rd1];", "brx.idx %r1, tbl;"}) {
    std::string msg = error_of(s);
    std::string op = std::string(s).substr(0, std::string(s).find_first_of(" ;"));
    EXPECT_EQ(msg, "unsupported PTX instruction '" + op + "'") << s;
  }
}

TEST(PtxErrors, UnterminatedBlock) {
  auto d = errors(std::string(kHeader) + ".visible .entry e()\n{\n.reg .b32 %r;\n{\nmov.u32 %r, 1;\n");
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].message, "unterminated block '{' (missing '}')");
  EXPECT_EQ(d[0].line, 7u);
  // A missing '}' before the next function is reported, and the next function still parses.
  auto d2 = errors(std::string(kHeader) + ".visible .entry a()\n{\nret;\n.visible .entry b()\n{\nbadop;\n}\n");
  ASSERT_EQ(d2.size(), 2u);
  EXPECT_EQ(d2[0].message, "unterminated block '{' (missing '}')");
  EXPECT_EQ(d2[0].line, 5u);
  EXPECT_NE(d2[1].message.find("unsupported PTX instruction 'badop'"), std::string::npos);
}

TEST(PtxErrors, MissingFile) {
  try {
    parse_ptx_file("/nonexistent/x.ptx");
    FAIL() << "expected PtxError";
  } catch (const PtxError& e) {
    ASSERT_EQ(e.diagnostics().size(), 1u);
    EXPECT_EQ(e.diagnostics()[0].message, "cannot open PTX file '/nonexistent/x.ptx'");
    EXPECT_EQ(std::string(e.what()), "/nonexistent/x.ptx: error: cannot open PTX file '/nonexistent/x.ptx'");
  }
}

TEST(PtxErrors, VersionOutOfRange) {
  for (const char* v : {"5.0", "10.0", "4.3"}) {
    auto d = errors(std::string(".version ") + v + "\n.target sm_75\n.address_size 64\n");
    ASSERT_EQ(d.size(), 1u) << v;
    EXPECT_EQ(d[0].message, std::string("unsupported PTX version ") + v + " (supported: 6.0 to 9.x)");
    EXPECT_EQ(d[0].line, 1u);
    EXPECT_EQ(d[0].column, 10u);
  }
  auto m = errors(".target sm_75\n");
  ASSERT_EQ(m.size(), 1u);
  EXPECT_EQ(m[0].message, "missing .version directive");
}

TEST(PtxErrors, CallsToUndefinedAndUnknown) {
  auto d = errors(std::string(kHeader) +
                  ".extern .func (.param .b32 func_retval0) ext_fn(.param .b64 a, .param .b64 b);\n"
                  ".visible .entry e()\n{\n{\n.param .b64 p0;\n.param .b64 p1;\n.param .b32 r0;\n"
                  "call.uni (r0), ext_fn, (p0, p1);\n}\ncall nosuch;\nret;\n}\n");
  ASSERT_EQ(d.size(), 2u);
  EXPECT_EQ(d[0].message, "call to undefined function 'ext_fn' (declared but not defined in this module)");
  EXPECT_EQ(d[1].message, "call to unknown function 'nosuch'");
  // Recursion (direct and mutual) parses; the functions on the cycle are marked.
  const auto r = parse_ptx(std::string(kHeader) + ".func f()\n{\ncall f;\nret;\n}\n", "t.ptx");
  EXPECT_TRUE(r.functions.at(r.function_index.at("f")).recursive);
  const auto c = parse_ptx(std::string(kHeader) +
                                    ".func g();\n.func h()\n{\nret;\n}\n.func f()\n{\ncall g;\ncall h;\nret;\n}\n"
                                    ".func g()\n{\ncall f;\nret;\n}\n",
                                "t.ptx");
  EXPECT_TRUE(c.functions.at(c.function_index.at("f")).recursive);
  EXPECT_TRUE(c.functions.at(c.function_index.at("g")).recursive);
  EXPECT_FALSE(c.functions.at(c.function_index.at("h")).recursive);
  auto a = errors(std::string(kHeader) + ".func f(.param .b32 x)\n{\nret;\n}\n.visible .entry e()\n{\ncall f;\nret;\n}\n");
  ASSERT_EQ(a.size(), 1u);
  EXPECT_EQ(a[0].message, "call of 'f' passes 0 arguments, it takes 1");
}

TEST(PtxErrors, AllErrorsCollectedInOrder) {
  auto d = errors(kernel("add.s32 %r1, %r2;\nmov.u32 %r1, %r2;\nfoo.bar %r1;\nbra.uni NOPE;\n"
                         "ld.global.u32 %r1, [x];\n"),
                  "m.ptx");
  ASSERT_EQ(d.size(), 4u);
  EXPECT_EQ(d[0].line, kBodyLine);
  EXPECT_EQ(d[1].line, kBodyLine + 2);
  EXPECT_EQ(d[2].line, kBodyLine + 3);
  EXPECT_EQ(d[3].line, kBodyLine + 4);
  EXPECT_EQ(d[3].message, "unknown symbol 'x'");
  EXPECT_EQ(d[1].file, "m.ptx");
  EXPECT_EQ(d[1].text, "foo.bar %r1;");
  try {
    parse_ptx(kernel("add.s32 %r1, %r2;\nfoo.bar %r1;\n"), "m.ptx");
    FAIL();
  } catch (const PtxError& e) {
    EXPECT_EQ(std::string(e.what()),
              "m.ptx:12:1: error: 'add.s32' expects 3 operands, got 2\n    add.s32 %r1, %r2;\n"
              "m.ptx:13:1: error: unsupported PTX instruction 'foo.bar'\n    foo.bar %r1;");
  }
}

TEST(PtxErrors, DeclarationErrors) {
  auto e = [](const std::string& decls) {
    auto d = errors(std::string(kHeader) + decls);
    return d.empty() ? std::string() : d[0].message;
  };
  EXPECT_EQ(e(".global .u32 arr[];\n"), "array 'arr' has no size");
  EXPECT_EQ(e(".global .u32 a[2] = {1, 2, 3};\n"), "too many initializers for 'a'");
  EXPECT_NE(e(".global .u64 p = other;\n").find("initial value 'other' is not a function or .global variable"),
            std::string::npos);
  EXPECT_NE(e(".global .f32 x = 1;\n").find("does not match its type"), std::string::npos);
  EXPECT_NE(e(".shared .u32 s = 1;\n").find("cannot have initializers"), std::string::npos);
  EXPECT_NE(e(".global .align 3 .u32 x;\n").find("power of two"), std::string::npos);
  EXPECT_NE(e(".address_size 32\n").find("not supported"), std::string::npos);
  EXPECT_NE(e(".visible .entry e()\n{\n.reg .v4 .f32 %v;\nret;\n}\n").find("vector registers"), std::string::npos);
  EXPECT_NE(e(".visible .entry e()\n{\n.foo;\nret;\n}\n").find("unknown or unsupported directive '.foo'"),
            std::string::npos);
}

// ------------------------------------------------------------------ robustness and speed

TEST(PtxFuzz, EveryPrefixParsesOrThrows) {
  const std::string src = read_file(fixture_path("calls.ptx"));
  ASSERT_GT(src.size(), 1000u);
  size_t ok = 0;
  for (size_t n = 0; n <= src.size(); ++n) {
    try {
      parse_ptx(src.substr(0, n), "prefix.ptx");
      ++ok;
    } catch (const PtxError& e) {
      EXPECT_FALSE(e.diagnostics().empty());
    }
  }
  EXPECT_GE(ok, 1u);  // at least the whole file
}

TEST(PtxFuzz, RandomMutationsParseOrThrow) {
  const std::string src = read_file(fixture_path("warp.ptx")) + read_file(fixture_path("memory.ptx")).substr(300);
  std::mt19937 rng(12345);
  const char alphabet[] = "{}[]()<>;:,.%@!|+-_$0123456789abcfdxU\"/*\n \tregpd";
  for (int iter = 0; iter < 400; ++iter) {
    std::string s = src;
    const int edits = 1 + int(rng() % 6);
    for (int k = 0; k < edits; ++k) {
      size_t at = rng() % s.size();
      switch (rng() % 3) {
        case 0: s.erase(at, 1 + rng() % 8); break;
        case 1: s.insert(at, 1, alphabet[rng() % (sizeof(alphabet) - 1)]); break;
        default: s[at] = alphabet[rng() % (sizeof(alphabet) - 1)]; break;
      }
    }
    try {
      parse_ptx(s, "mut.ptx");
    } catch (const PtxError& e) {
      EXPECT_FALSE(e.diagnostics().empty());
    }
  }
}

// Parsing is linear in the file: four times the blocks may take at most
// eight times as long (a quadratic parser takes sixteen). A ratio of two
// sizes on one machine, not a time bound a slower machine would fail; each
// size's best of three runs of processor time.
TEST(PtxFuzz, ParseTimeGrowsLinearlyWithTheFile) {
  auto source = [](int blocks) {
    std::string body;
    for (int i = 0; i < blocks; ++i) {
      const std::string n = std::to_string(i);
      body += "$L" + n + ":\nadd.s32 %r1, %r2, " + n + ";\nsetp.lt.s32 %p1, %r1, %r3;\n@%p1 bra $L" + n + ";\n";
    }
    return kernel(body + "ret;");
  };
  auto best_seconds = [](const std::string& src, size_t instructions) {
    double best = 1e9;
    for (int r = 0; r < 3; ++r) {
      const std::clock_t t0 = std::clock();
      Module m = parse(src);
      best = std::min(best, double(std::clock() - t0) / CLOCKS_PER_SEC);
      EXPECT_EQ(m.code.size(), instructions);
    }
    return best;
  };
  const double small = best_seconds(source(4000), 12001u), large = best_seconds(source(16000), 48001u);
  EXPECT_LT(large, 8 * std::max(small, 1e-3)) << "4000 blocks: " << small << " s, 16000: " << large << " s";
}

// ------------------------------------------------------------------ real nvcc output

TEST(PtxFixture, CallsWithNoinlineFunctionsAndLocalArrays) {
  Module m = parse_ptx_file(fixture_path("calls.ptx"));
  EXPECT_EQ(m.version_major, 9u);
  ASSERT_EQ(m.functions.size(), 3u);
  const Function& scale = m.functions[m.function_index.at("_Z5scalefi4Pair")];
  const Function& touch = m.functions[m.function_index.at("_Z5touchPii")];
  const Function& k = m.functions[m.function_index.at("calls_kernel")];
  EXPECT_FALSE(scale.is_entry);
  EXPECT_TRUE(k.is_entry);
  ASSERT_EQ(k.params.size(), 5u);
  EXPECT_EQ(k.params[3].offset, 24u);
  EXPECT_EQ(k.param_bytes, 32u);
  ASSERT_EQ(m.calls.size(), 2u);
  const CallSite& c0 = m.calls[0];
  EXPECT_EQ(c0.callee, m.function_index.at("_Z5scalefi4Pair"));
  ASSERT_EQ(c0.args.size(), 3u);
  EXPECT_EQ(c0.args[2].bytes, 8u);
  ASSERT_EQ(c0.rets.size(), 1u);
  EXPECT_EQ(m.calls[1].rets.size(), 0u);
  EXPECT_EQ(m.calls[1].args[0].bytes, 8u);
  // The callee's ld.param of its own parameters reads the offsets the call copies to.
  const Instruction& ld = m.code[scale.entry_pc + 1];
  EXPECT_EQ(ld.space, StateSpace::Local);
  EXPECT_EQ(ld.src[0].imm, c0.args[0].to);
  // Both local depots are in the per-thread local area, apart.
  EXPECT_GE(m.local_bytes_per_thread, 64u + 32u);
  const uint32_t depot0 = uint32_t(m.code[scale.entry_pc].src[0].imm);
  const uint32_t depot2 = uint32_t(m.code[k.entry_pc].src[0].imm);
  EXPECT_TRUE(depot0 + 64 <= depot2 || depot2 + 32 <= depot0);
  EXPECT_EQ(depot0 % 16, 0u);
  EXPECT_EQ(depot2 % 16, 0u);
  EXPECT_EQ(touch.end_pc - touch.entry_pc, 9u);
  // Each call's text is one line.
  uint32_t call = pc_of(m, "call.uni (retval0)");
  ASSERT_NE(call, kNoPc);
  EXPECT_EQ(m.text[call], "call.uni (retval0), _Z5scalefi4Pair, (param0, param1, param2);");
  for (const Function& f : m.functions) EXPECT_EQ(f.num_regs, m.functions[0].num_regs);
}

TEST(PtxFixture, MemorySpacesAtomicsAndVectorLoads) {
  Module m = parse_ptx_file(fixture_path("memory.ptx"));
  ASSERT_EQ(m.consts.size(), 2u);
  EXPECT_EQ(m.const_bank_bytes, 20u);
  float c[4];
  std::memcpy(c, m.const_bank.data(), 16);
  EXPECT_EQ(c[0], 1.0f);
  EXPECT_EQ(c[1], 0.5f);
  EXPECT_EQ(c[2], 0.25f);
  EXPECT_EQ(c[3], 0.125f);
  EXPECT_EQ(m.const_bank[16], 5);
  ASSERT_EQ(m.globals.size(), 3u);
  double g[3];
  ASSERT_EQ(m.globals[1].init.size(), 24u);
  std::memcpy(g, m.globals[1].init.data(), 24);
  EXPECT_EQ(g[1], 2.5);
  EXPECT_EQ(g[2], -3.0);
  // tile[512] at 0, flag at 512; the dynamic region starts at 528 (align 16).
  EXPECT_EQ(m.static_shared_bytes, 528u);
  uint32_t mv = pc_of(m, "mov.u32 %r9, dyn;");
  ASSERT_NE(mv, kNoPc);
  EXPECT_EQ(m.code[mv].src[0].imm, 528u);
  uint32_t ldg = pc_of(m, "ld.global.nc.v4.f32");
  EXPECT_EQ(m.code[ldg].vec, 4);
  EXPECT_EQ(m.code[ldg].dst.kind, OperandKind::Vector);
  uint32_t cas = pc_of(m, "atom.global.cas.b32");
  EXPECT_EQ(m.code[cas].atom, AtomOp::Cas);
  EXPECT_EQ(m.code[cas].num_src, 3);
  uint32_t gt = pc_of(m, "mov.u64 %rd17, gtable;");
  EXPECT_EQ(m.code[gt].src[0].kind, OperandKind::Symbol);
  EXPECT_EQ(m.code[gt].src[0].symbol, 1);
  uint32_t fa = pc_of(m, "atom.global.add.f32");
  EXPECT_EQ(m.code[fa].src[1].imm, 0x3FC00000u);
  // The spin loop: the forward branch over the critical section reconverges
  // at its target, the backward branch at the instruction after it.
  uint32_t fwd = pc_of(m, "@%p3 bra $L__BB2_4;");
  uint32_t back = pc_of(m, "@%p4 bra $L__BB2_2;");
  uint32_t l4 = pc_of(m, "not.pred %p4, %p1;");
  EXPECT_EQ(m.code[fwd].reconverge_pc, l4);
  EXPECT_EQ(m.code[fwd].target, l4);
  EXPECT_EQ(m.code[back].reconverge_pc, back + 1);
  EXPECT_EQ(m.code[back].target, pc_of(m, "mov.u32 %r18, 1;"));
}

TEST(PtxFixture, WarpPrimitivesAndMath) {
  Module m = parse_ptx_file(fixture_path("warp.ptx"));
  int shfl = 0, vote = 0, match = 0, red = 0, sfu = 0, dp = 0;
  for (const Instruction& in : m.code) {
    if (in.op == Opcode::Shfl) {
      ++shfl;
      EXPECT_EQ(in.dst2.kind, OperandKind::Pred);
      EXPECT_EQ(in.num_src, 4);
    }
    vote += in.op == Opcode::Vote;
    match += in.op == Opcode::Match;
    red += in.op == Opcode::Bar && (in.bar == BarMode::RedPopc || in.bar == BarMode::RedAnd || in.bar == BarMode::RedOr);
    sfu += in.unit == UnitClass::SFU;
    dp += in.unit == UnitClass::DP;
  }
  EXPECT_EQ(shfl, 8);
  EXPECT_EQ(vote, 3);
  EXPECT_EQ(match, 1);
  EXPECT_EQ(red, 3);
  EXPECT_GT(sfu, 3);
  EXPECT_GT(dp, 3);
  EXPECT_NE(pc_of(m, "activemask.b32 %r32;"), kNoPc);
  const Function& w = m.functions[m.function_index.at("warp_kernel")];
  ASSERT_EQ(w.pragmas.size(), 1u);
  EXPECT_EQ(w.pragmas[0], "nounroll");
  // bar.red inside nested { .reg .pred %p1; } blocks uses the inner predicate.
  uint32_t br = pc_of(m, "bar.red.popc.u32");
  EXPECT_NE(m.code[br].src[2].reg, m.code[pc_of(m, "vote.sync.all.pred %p1")].dst.reg);
  EXPECT_GE(m.global_segment_bytes, 24u);  // __cudart_i2opi_f
}

namespace {

// Issue 18: unsupported syntax is named as such, with its place; a failed
// declaration is still recorded, so its names raise no follow-on errors.
TEST(PtxErrors, UnsupportedSyntaxIsNamedAndLocated) {
  auto d = errors(std::string(kHeader) +
                  ".visible .entry e()\n{\n.reg .v4 .f32 %v<2>;\n.reg .b32 %r<3>;\n"
                  "mov.b32 %r1, %v1;\nmov.b32 %r2, 7;\nret;\n}\n");
  ASSERT_EQ(d.size(), 1u) << d[0].format();
  EXPECT_EQ(d[0].message, "unsupported syntax: vector registers (.reg .v4) are not supported");
  EXPECT_EQ(d[0].line, 6u);
  EXPECT_EQ(d[0].column, 6u);
  EXPECT_EQ(d[0].format().rfind("t.ptx:6:6: error: unsupported syntax: ", 0), 0u);

  auto t = errors(std::string(kHeader) + ".visible .entry e()\n{\n.reg .q32 %q, %w;\n.reg .pred %p;\n"
                                          "@%p mov.b32 %q, %w;\nret;\n}\n");
  ASSERT_EQ(t.size(), 1u) << t[0].format();
  EXPECT_EQ(t[0].message, "unsupported syntax: unsupported register type '.q32'");

  auto q = errors(std::string(kHeader) + ".visible .entry e()\n{\n.reg .b32 %r;\n"
                                          ".shared .align 4 .weird .b32 buf[4];\n"
                                          "ld.shared.u32 %r, [buf];\nret;\n}\n");
  ASSERT_EQ(q.size(), 1u) << q[0].format();
  EXPECT_EQ(q[0].message, "unsupported syntax: unsupported qualifier '.weird' in variable declaration");
  EXPECT_EQ(q[0].line, 7u);
}

TEST(PtxErrors, FollowOnErrorsDoNotCallDefinedNamesUnknown) {
  // The bad statement between the declaration and the use does not lose the
  // declaration; the only errors are the bad statement's and a real unknown name.
  auto d = errors(std::string(kHeader) +
                  ".visible .entry e()\n{\n.reg .b32 %r<3>;\n.reg .pred %p;\n"
                  "add.u32 %r1, %r2 %r2;\n@%p mov.b32 %r1, %r2;\nmov.b32 %r1, %nope;\nret;\n}\n");
  ASSERT_EQ(d.size(), 2u);
  EXPECT_EQ(d[0].line, 8u);
  EXPECT_EQ(d[0].message, "expected ',' between operands, found '%r2'");
  EXPECT_EQ(d[1].line, 10u);
  EXPECT_EQ(d[1].message, "unknown register '%nope'");
}

TEST(PtxErrors, VariablesWithBadDeclaratorsStayDeclared) {
  auto d = errors(std::string(kHeader) + ".global .align 4 .b32 tbl[2] = {1, 2, 3};\n"
                                          ".visible .entry e()\n{\n.reg .b32 %r;\n.shared .b32 buf[4] = {1};\n"
                                          "ld.global.u32 %r, [tbl];\nld.shared.u32 %r, [buf+4];\nmov.u32 %r, buf;\nret;\n}\n");
  ASSERT_EQ(d.size(), 2u) << d[0].format() << "\n" << d.back().format();
  EXPECT_EQ(d[0].message, "too many initializers for 'tbl'");
  EXPECT_EQ(d[0].line, 4u);
  EXPECT_EQ(d[1].message, "variables in .shared cannot have initializers");
  EXPECT_EQ(d[1].line, 8u);
}

TEST(PtxErrors, FunctionsWithUnsupportedHeaderPartsStayDefined) {
  auto d = errors(std::string(kHeader) +
                  ".func (.param .b32 .weird r) f(.param .b32 x)\n{\n.reg .b32 %a;\nld.param.b32 %a, [x];\n"
                  "st.param.b32 [r], %a;\nret;\n}\n"
                  ".visible .entry e() .badperf 3, 4\n{\n.param .b32 p;\n.param .b32 q;\nst.param.b32 [p], 1;\n"
                  "call (q), f, (p);\nret;\n}\n");
  ASSERT_EQ(d.size(), 2u) << d[0].format() << "\n" << d.back().format();
  EXPECT_EQ(d[0].message, "unsupported syntax: unsupported qualifier '.weird' in parameter declaration");
  EXPECT_EQ(d[0].line, 4u);
  EXPECT_EQ(d[1].message, "unsupported syntax: unknown or unsupported function directive '.badperf'");
  EXPECT_EQ(d[1].line, 11u);
}

TEST(PtxErrors, VideoInstructionMistakesAreLocated) {
  EXPECT_EQ(error_of("vadd.u32.u32.u32 %r1, %r2.b4, %r3;"),
            "'vadd.u32.u32.u32': bad selector '.b4' (expected .b0, .b1, .b2, .b3, .h0 or .h1)");
  EXPECT_EQ(error_of("vadd.u32.u32 %r1, %r2, %r3;"),
            "'vadd.u32.u32' needs 3 types (.dtype.atype.btype, each .u32 or .s32)");
  EXPECT_EQ(error_of("vadd.u32.u32.u32 %r1, %r2, %r3, %r4;"),
            "'vadd.u32.u32.u32' takes c with .add, .min, .max or a destination selector, and only then");
  EXPECT_EQ(error_of("vshl.u32.u32.u32 %r1, %r2, %r3;"), "'vshl.u32.u32.u32' needs .clamp or .wrap");
  EXPECT_EQ(error_of("vadd4.u32.u32.u32.sat.add %r1, %r2, %r3, %r4;"),
            "'vadd4.u32.u32.u32.sat.add': .sat cannot be combined with the .add accumulate");
  EXPECT_EQ(error_of("vmin4.u32.u32.u32 %r1.b02, %r2, %r3, %r4;"),
            "'vmin4.u32.u32.u32': bad mask '.b02' (expected .b and descending element digits, e.g. .b3210)");
  EXPECT_EQ(error_of("vadd2.u32.u32.u32 %r1, %r2.h41, %r3, %r4;"),
            "'vadd2.u32.u32.u32': bad selector '.h41' (expected .h and 2 digits 0-3)");
  EXPECT_EQ(error_of("vmad.u32.u32.u32.po %r1, -%r2, %r3, %r4;"),
            "'vmad.u32.u32.u32.po': operands cannot be negated in .po mode");
  EXPECT_EQ(error_of("add.u32 %r1, -%r2, %r3;"), "'-' before a register is only allowed on vmad source operands");
  EXPECT_EQ(error_of("bmsk.b32 %r1, %r2, %r3;"), "'bmsk.b32' needs .clamp or .wrap");
  EXPECT_EQ(error_of("szext.clamp.b32 %r1, %r2, %r3;"), "type .b32 is not valid for 'szext.clamp.b32'");
  EXPECT_EQ(error_of("vset.u32.u32.lo %r1, %r2, %r3;"), "unsupported PTX instruction 'vset.u32.u32.lo'");
}

TEST(PtxInlineAsm, ScopedRegistersWithoutPercentShadowAndPipeDestinations) {
  Module m = parse(kernel(
      "{\n.reg .pred p, q;\n.reg .u32 r0;\nsetp.lt.s32 p|q, %r1, %r2;\n@p add.u32 r0, r0, %r5;\n"
      "shfl.sync.up.b32 r0|p, %r1, 1, 0, -1;\n{\n.reg .u32 r0;\n@!q mov.u32 r0, 3;\n}\n}\n"));
  const Instruction& setp = m.code[0];
  EXPECT_EQ(setp.op, Opcode::Setp);
  EXPECT_EQ(setp.dst2.kind, OperandKind::Pred);
  EXPECT_NE(setp.dst.reg, setp.dst2.reg);
  const Instruction& add = m.code[1];
  EXPECT_EQ(add.guard, setp.dst.reg);
  const Instruction& shfl = m.code[2];
  EXPECT_EQ(shfl.dst.reg, add.dst.reg);
  EXPECT_EQ(shfl.dst2.kind, OperandKind::Pred);
  EXPECT_EQ(shfl.dst2.reg, setp.dst.reg);
  const Instruction& inner = m.code[3];
  EXPECT_NE(inner.dst.reg, add.dst.reg);  // the inner r0 shadows the outer one
  EXPECT_EQ(inner.guard, setp.dst2.reg);
  EXPECT_TRUE(inner.guard_negated);
  // Outside its block the scoped name is unknown.
  EXPECT_EQ(error_of("{\n.reg .pred p;\n}\n@p ret;"), "unknown register 'p'");
}

}  // namespace
