#include "model/sm/instruction_timing.h"

namespace tlmgpu::sm {

using ptx::Opcode;
using ptx::OperandKind;

namespace {

void add_reg(InstructionTiming& t, uint32_t id, bool dst) {
  if (id == ptx::kNoReg) return;
  if (dst) {
    if (t.num_dst < InstructionTiming::kMaxDst) t.dst[t.num_dst++] = id;
  } else {
    for (uint8_t i = 0; i < t.num_src; ++i)
      if (t.src[i] == id) return;
    if (t.num_src < InstructionTiming::kMaxSrc) t.src[t.num_src++] = id;
  }
}

void add_operand(InstructionTiming& t, const ptx::Operand& o, uint32_t num_regs, bool dst) {
  switch (o.kind) {
    case OperandKind::Reg: add_reg(t, o.reg, dst); break;
    case OperandKind::Pred: add_reg(t, num_regs + o.reg, dst); break;
    case OperandKind::Vector:
      for (uint8_t i = 0; i < o.count; ++i) add_reg(t, o.vregs[i], dst);
      break;
    case OperandKind::Address: add_reg(t, o.reg, false); break;  // the base is read even for a store
    default: break;
  }
}

}  // namespace

Pipe pipe_of(const ptx::Instruction& in) {
  Pipe pipe = Pipe::Sp;
  switch (in.unit) {
    case ptx::UnitClass::SP: pipe = Pipe::Sp; break;
    case ptx::UnitClass::SFU: pipe = Pipe::Sfu; break;
    case ptx::UnitClass::DP: pipe = Pipe::Dp; break;
    case ptx::UnitClass::MEM: pipe = Pipe::Mem; break;
    case ptx::UnitClass::CTRL: pipe = Pipe::Ctrl; break;
    case ptx::UnitClass::BAR: pipe = Pipe::Bar; break;
  }
  const bool f64 = in.type == ptx::DataType::F64 || in.type2 == ptx::DataType::F64;
  if ((in.op == Opcode::Div || in.op == Opcode::Rem) && !ptx::type_is_float(in.type)) pipe = Pipe::IntDiv;
  if ((in.op == Opcode::Div || in.op == Opcode::Sqrt) && in.type == ptx::DataType::F32 && !in.approx)
    pipe = Pipe::FpDivSqrt;
  if ((in.op == Opcode::Div || in.op == Opcode::Sqrt) && f64) pipe = Pipe::Dp;
  if (in.op == Opcode::WmmaMma) pipe = Pipe::Tensor;
  return pipe;
}

std::vector<InstructionTiming> analyse_module(const ptx::Module& module, uint32_t num_regs) {
  std::vector<InstructionTiming> out(module.code.size());
  for (size_t pc = 0; pc < module.code.size(); ++pc) {
    const ptx::Instruction& in = module.code[pc];
    InstructionTiming& t = out[pc];
    t.unit = in.unit;
    if (in.guard != ptx::kNoReg) add_reg(t, num_regs + in.guard, false);
    const bool dst_is_address = in.dst.kind == OperandKind::Address;  // st, red
    add_operand(t, in.dst, num_regs, !dst_is_address);
    add_operand(t, in.dst2, num_regs, true);
    for (uint8_t i = 0; i < in.num_src; ++i) add_operand(t, in.src[i], num_regs, false);

    t.pipe = pipe_of(in);

    t.is_setp = in.op == Opcode::Setp;
    t.is_branch = in.op == Opcode::Bra;
    t.is_membar = in.op == Opcode::Membar;
    t.is_atomic = in.op == Opcode::Atom || in.op == Opcode::Red;
    // Texture, surface and wmma fragment instructions read and write memory like ld/st.
    t.is_memory = in.op == Opcode::Ld || in.op == Opcode::St || t.is_atomic || in.op == Opcode::Tex ||
                  in.op == Opcode::Tld4 || in.op == Opcode::Suld || in.op == Opcode::Sust ||
                  in.op == Opcode::WmmaLoad || in.op == Opcode::WmmaStore;
    t.is_shared = in.space == ptx::StateSpace::Shared;
    t.is_texture = in.op == Opcode::Tex || in.op == Opcode::Tld4;

    using core::HeadClass;
    switch (t.pipe) {
      case Pipe::Sp: case Pipe::IntDiv: case Pipe::Tensor: t.head_class = core::HeadClass::ShortAlu; break;
      case Pipe::Sfu: case Pipe::FpDivSqrt: t.head_class = core::HeadClass::Sfu; break;
      case Pipe::Dp: t.head_class = core::HeadClass::Dp; break;
      case Pipe::Ctrl: t.head_class = core::HeadClass::Control; break;
      case Pipe::Bar: t.head_class = core::HeadClass::Barrier; break;
      case Pipe::Mem: {
        // Seed 004's long operations: global, local (and texture) loads and stores.
        const ptx::StateSpace s = in.space;
        const bool long_space = s == ptx::StateSpace::Global || s == ptx::StateSpace::Local ||
                                s == ptx::StateSpace::Generic;
        t.head_class = t.is_memory && long_space ? core::HeadClass::LongMem
                       : t.is_memory && s == ptx::StateSpace::Shared ? core::HeadClass::SharedMem
                                                                      : core::HeadClass::ShortAlu;
        break;
      }
    }
  }
  return out;
}

core::UnitTiming pipe_timing(Pipe pipe, const core::SmConfig& c) {
  switch (pipe) {
    case Pipe::Sp: return c.sp;
    case Pipe::Sfu: return c.sfu;
    case Pipe::Dp: return c.dp;
    case Pipe::IntDiv: return c.int_div;
    case Pipe::FpDivSqrt: return c.fp_div_sqrt;
    case Pipe::Mem: return c.ldst;
    case Pipe::Ctrl: return c.sp;
    case Pipe::Bar: return core::UnitTiming{1, 1};
    case Pipe::Tensor: return c.has_tensor_cores ? c.tensor : c.sp;
  }
  return c.sp;
}

}  // namespace tlmgpu::sm
