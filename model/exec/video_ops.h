// Per-lane semantics of bmsk, szext and the PTX video instructions (scalar
// vadd/vsub/vabsdiff/vmin/vmax/vshl/vshr/vmad/vset and SIMD vop2/vop4/vset2/vset4),
// as the PTX ISA defines them. Pure functions of the operand values.
#pragma once

#include <cstdint>

#include "model/ptx/ptx_ir.h"

namespace tlmgpu::exec::video {

/// bmsk.{clamp,wrap}.b32: mask of b bits starting at bit a.
uint32_t bmsk(uint32_t a, uint32_t b, bool clamp);

/// szext.{clamp,wrap}.{u32,s32}: the low b bits of a, sign- or zero-extended.
uint32_t szext(uint32_t a, uint32_t b, bool clamp, bool is_signed);

/// One lane of a video instruction; cmp is used by vset/vset2/vset4, sat is .sat.
uint32_t execute(const ptx::VideoForm& v, ptx::CmpOp cmp, bool sat, uint32_t a, uint32_t b, uint32_t c);

}  // namespace tlmgpu::exec::video
