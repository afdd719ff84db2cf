#include "model/sm/ptx_instruction_source.h"

#include <cstring>

namespace tlmgpu::sm {

PtxWarpSource::PtxWarpSource(exec::Warp& warp)
    : warp_(&warp),
      kernel_end_(warp.context().kernel->end_pc),
      module_end_(uint32_t(warp.context().module->code.size())) {
  warp_->set_record_accesses(true);  // the coalescer needs every lane's address
}

exec::StepStatus PtxWarpSource::execute() {
  const exec::StepStatus st = warp_->step();
  if (st == exec::StepStatus::Blocked) return st;
  const exec::StepInfo& info = warp_->last();
  issued_.active_mask = info.active_mask;
  issued_.op = info.inst->op;
  issued_.branch_taken = info.branch_taken;
  issued_.backward = info.backward;
  // Valid for memory instructions with an active lane (the SM checks both).
  issued_.access = &warp_->last_access();
  issued_.atom = info.inst->op == ptx::Opcode::Atom ? info.inst->atom : ptx::AtomOp::None;
  issued_.cas_written = issued_.atom == ptx::AtomOp::Cas && info.active_mask ? cas_written(info) : 0;
  return st;
}

uint32_t PtxWarpSource::cas_written(const exec::StepInfo& info) const {
  // atom.cas d, [a], cmp, new: d holds the old value; it wrote when old == cmp.
  const ptx::Instruction& in = *info.inst;
  const unsigned bytes = ptx::type_bytes(in.type);
  const uint64_t keep = bytes >= 8 ? ~0ull : (1ull << (8 * bytes)) - 1;
  std::array<uint64_t, ptx::kWarpSize> cmp{}, value{};
  source_values(1, cmp);
  source_values(2, value);
  const uint64_t* old = warp_->reg(in.dst.reg);
  uint32_t written = 0;
  for (uint32_t m = info.active_mask; m; m &= m - 1) {
    const unsigned lane = unsigned(__builtin_ctz(m));
    if ((old[lane] & keep) == (cmp[lane] & keep) && (value[lane] & keep) != (cmp[lane] & keep))
      written |= 1u << lane;
  }
  return written;
}

void PtxWarpSource::source_values(uint32_t index, std::array<uint64_t, ptx::kWarpSize>& out) const {
  // Every lane, active or not: the SM passes all 32 on to the schedulers.
  const ptx::Operand& o = warp_->last().inst->src[index];
  switch (o.kind) {
    case ptx::OperandKind::Reg:
      std::memcpy(out.data(), warp_->reg(o.reg), sizeof(out));
      break;
    case ptx::OperandKind::Imm:
      out.fill(o.imm);
      break;
    case ptx::OperandKind::Special:
      warp_->special_lanes(o.sreg, ~0u, out.data());
      break;
    default:
      out.fill(0);
      break;
  }
}

PtxCtaSource::PtxCtaSource(const exec::KernelContext& ctx, exec::Dim3 ctaid, uint32_t sm) : cta_(ctx, ctaid, sm) {
  warps_.reserve(cta_.num_warps());
  for (uint32_t k = 0; k < cta_.num_warps(); ++k) warps_.emplace_back(cta_.warp(k));
}

uint64_t PtxCtaSource::progress_events() const {
  uint64_t p = cta_.barrier_releases();
  for (uint32_t k = 0; k < cta_.num_warps(); ++k) p += cta_.warp(k).progress_events();
  return p;
}

}  // namespace tlmgpu::sm
