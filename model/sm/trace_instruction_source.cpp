#include "model/sm/trace_instruction_source.h"

#include <algorithm>
#include <stdexcept>

namespace tlmgpu::sm {

using trace::TraceOp;

TraceWarpSource::TraceWarpSource(const TraceKernelSource& kernel, TraceCtaSource& cta, uint32_t index)
    : kernel_(kernel), cta_(cta), index_(index), begin_(kernel.begin_pc(index)), end_(kernel.end_pc(index)),
      pc_(begin_) {}

void TraceWarpSource::restart() {
  pc_ = begin_;
  at_barrier_ = false;
}

exec::StepStatus TraceWarpSource::execute() {
  if (finished()) return exec::StepStatus::Finished;
  if (at_barrier_) return exec::StepStatus::AtBarrier;
  const trace::TraceInstruction& in = kernel_.instruction(pc_);
  issued_.active_mask = ~0u;
  issued_.op = trace::opcode_of(in.op);
  issued_.branch_taken = false;
  issued_.backward = false;
  issued_.access = nullptr;
  ++cta_.executed_;
  ++pc_;
  if (in.op == TraceOp::Exit) pc_ = end_;
  // As in the trace issue harness: a warp whose last instruction was a
  // barrier is done rather than waiting at it.
  if (in.op == TraceOp::Bar && !finished()) at_barrier_ = true;
  cta_.release_barrier_if_complete();
  if (finished()) return exec::StepStatus::Finished;
  return at_barrier_ ? exec::StepStatus::AtBarrier : exec::StepStatus::Executed;
}

std::string TraceWarpSource::describe() const {
  const trace::TraceWarp& tw = kernel_.trace().warps[index_];
  std::string out = "trace warp " + std::to_string(tw.id);
  if (finished()) return out + " finished";
  const trace::TraceInstruction& in = kernel_.instruction(pc_);
  out += " at instruction " + std::to_string(pc_ - begin_) + " (" + trace::to_string(in.op) + ", " +
         kernel_.trace().source + ":" + std::to_string(in.line) + ":" + std::to_string(in.column) + ")";
  if (at_barrier_) out += " waiting at a barrier";
  return out;
}

TraceCtaSource::TraceCtaSource(const TraceKernelSource& kernel, exec::Dim3 ctaid) : ctaid_(ctaid) {
  for (uint32_t k = 0; k < kernel.warps(); ++k) warps_.push_back(std::make_unique<TraceWarpSource>(kernel, *this, k));
}

void TraceCtaSource::restart(exec::Dim3 ctaid, uint32_t) {
  ctaid_ = ctaid;
  executed_ = 0;
  for (auto& w : warps_) w->restart();
}

void TraceCtaSource::release_barrier_if_complete() {
  bool any_waiting = false;
  for (const auto& w : warps_) {
    if (w->finished()) continue;
    if (!w->at_barrier_) return;
    any_waiting = true;
  }
  if (!any_waiting) return;
  for (auto& w : warps_) w->at_barrier_ = false;
}

std::string TraceCtaSource::name() const {
  return "CTA (" + std::to_string(ctaid_.x) + "," + std::to_string(ctaid_.y) + "," + std::to_string(ctaid_.z) + ")";
}

namespace {

Pipe pipe_of(ptx::UnitClass unit) {
  switch (unit) {
    case ptx::UnitClass::SP: return Pipe::Sp;
    case ptx::UnitClass::SFU: return Pipe::Sfu;
    case ptx::UnitClass::DP: return Pipe::Dp;
    case ptx::UnitClass::MEM: return Pipe::Mem;
    case ptx::UnitClass::CTRL: return Pipe::Ctrl;
    case ptx::UnitClass::BAR: return Pipe::Bar;
  }
  return Pipe::Sp;
}

}  // namespace

TraceKernelSource::TraceKernelSource(const trace::WarpTrace& t) : trace_(t) {
  if (t.warps.empty()) throw std::invalid_argument(t.source + ": the trace has no warps");
  // Registers r<N> keep their number; predicates p<N> follow the highest register.
  uint32_t max_reg = 0, max_pred = 0;
  bool any_pred = false;
  for (const trace::TraceWarp& w : t.warps)
    for (const trace::TraceInstruction& in : w.instructions)
      for (const auto* regs : {&in.dst, &in.src})
        for (uint32_t r : *regs) {
          if (r >= trace::kPredicateRegister) {
            max_pred = std::max(max_pred, r - trace::kPredicateRegister);
            any_pred = true;
          } else {
            max_reg = std::max(max_reg, r);
          }
        }
  registers_ = max_reg + 1;
  scoreboard_ids_ = registers_ + (any_pred ? max_pred + 1 : 0);
  auto id_of = [&](uint32_t r) { return r >= trace::kPredicateRegister ? registers_ + r - trace::kPredicateRegister : r; };

  for (const trace::TraceWarp& w : t.warps) {
    begins_.push_back(uint32_t(code_.size()));
    for (const trace::TraceInstruction& in : w.instructions) {
      code_.push_back(&in);
      InstructionTiming tm;
      tm.unit = in.unit;
      tm.pipe = pipe_of(in.unit);
      tm.head_class = trace::head_class_of(in.op);
      if (in.dst.size() > size_t(InstructionTiming::kMaxDst) || in.src.size() > size_t(InstructionTiming::kMaxSrc))
        throw trace::TraceError(t.source, in.line, in.column, "too many registers for the SM's scoreboard");
      for (uint32_t r : in.dst) tm.dst[tm.num_dst++] = id_of(r);
      for (uint32_t r : in.src) tm.src[tm.num_src++] = id_of(r);
      tm.is_memory = in.unit == ptx::UnitClass::MEM;
      tm.is_shared = in.op == TraceOp::LdShared || in.op == TraceOp::StShared;
      tm.fixed_latency = uint16_t(std::clamp<uint32_t>(in.latency, 1, 0xffff));
      tm.fixed_interval = uint16_t(std::clamp<uint32_t>(t.unit_interval[size_t(in.unit)], 1, 0xffff));
      timing_.push_back(tm);
    }
  }
  begins_.push_back(uint32_t(code_.size()));
}

std::unique_ptr<CtaInstructionSource> TraceKernelSource::make_cta(exec::Dim3 ctaid, uint32_t) const {
  return std::make_unique<TraceCtaSource>(*this, ctaid);
}

}  // namespace tlmgpu::sm
