#include "model/ptx/ptx_ir.h"

namespace tlmgpu::ptx {

const char* opcode_name(Opcode op) {
  static const char* const names[] = {
      "mov", "cvt", "cvta",
      "add", "sub", "mul", "mad", "mul24", "mad24", "div", "rem", "abs", "neg", "min", "max", "fma",
      "addc", "subc", "madc",
      "rcp", "sqrt", "rsqrt", "ex2", "lg2", "sin", "cos", "tanh", "copysign", "testp",
      "and", "or", "xor", "not", "cnot", "shl", "shr", "popc", "clz", "brev", "bfe", "bfi", "bfind",
      "prmt", "shf",
      "dp4a", "dp2a", "sad", "fns",
      "bmsk", "szext", "video",
      "setp", "set", "selp", "slct",
      "ld", "st", "atom", "red", "membar", "prefetch",
      "bar", "shfl", "vote", "activemask", "match",
      "wmma.load", "wmma.store", "wmma.mma",
      "bra", "call", "ret", "exit", "trap", "nop",
      "tex", "tld4", "suld", "sust",
      "lop3",
  };
  static_assert(sizeof(names) / sizeof(names[0]) == size_t(Opcode::Count_), "opcode name table");
  auto i = size_t(op);
  return i < size_t(Opcode::Count_) ? names[i] : "?";
}

const char* type_name(DataType t) {
  switch (t) {
    case DataType::None: return "";
    case DataType::Pred: return ".pred";
    case DataType::B8: return ".b8";
    case DataType::B16: return ".b16";
    case DataType::B32: return ".b32";
    case DataType::B64: return ".b64";
    case DataType::U8: return ".u8";
    case DataType::U16: return ".u16";
    case DataType::U32: return ".u32";
    case DataType::U64: return ".u64";
    case DataType::S8: return ".s8";
    case DataType::S16: return ".s16";
    case DataType::S32: return ".s32";
    case DataType::S64: return ".s64";
    case DataType::F16: return ".f16";
    case DataType::BF16: return ".bf16";
    case DataType::F16x2: return ".f16x2";
    case DataType::BF16x2: return ".bf16x2";
    case DataType::F32: return ".f32";
    case DataType::F64: return ".f64";
  }
  return "?";
}

const char* space_name(StateSpace s) {
  switch (s) {
    case StateSpace::Generic: return "generic";
    case StateSpace::Global: return ".global";
    case StateSpace::Shared: return ".shared";
    case StateSpace::Local: return ".local";
    case StateSpace::Param: return ".param";
    case StateSpace::Const: return ".const";
    case StateSpace::Reg: return ".reg";
  }
  return "?";
}

}  // namespace tlmgpu::ptx
