#include "model/exec/warp.h"

#include <algorithm>
#include <cstring>
#include <sstream>

#include "core/int_ops.h"
#include "core/issue_order_gate.h"
#include "model/exec/cta.h"
#include "model/exec/device_runtime.h"

namespace tlmgpu::exec {

using ptx::Instruction;
using ptx::Opcode;
using ptx::StateSpace;

namespace {

/// Lanes in a mask; most warp instructions run on all 32.
inline uint32_t lane_count(uint32_t m) { return m == 0xffffffffu ? 32 : core::intops::popcount32(m); }

std::string hex(uint64_t v) {
  std::ostringstream os;
  os << "0x" << std::hex << v;
  return os.str();
}

const char* space_word(StateSpace s) {
  switch (s) {
    case StateSpace::Global: return "global";
    case StateSpace::Shared: return "shared";
    case StateSpace::Local: return "local";
    case StateSpace::Param: return "param";
    case StateSpace::Const: return "const";
    default: return "generic";
  }
}

}  // namespace

namespace {
const bool kNeverStaged = false;
}  // namespace

Warp::Warp(const KernelContext& ctx, Cta& cta, uint32_t warp_in_cta)
    : ctx_(ctx),
      cta_(cta),
      ipdom_(ctx.divergence == DivergenceMode::Ipdom),
      global_staged_(ctx.global ? &ctx.global->has_staged() : &kNeverStaged),
      code_(ctx.module->code.data()),
      kernel_begin_(ctx.kernel->entry_pc),
      kernel_end_(ctx.kernel->end_pc),
      warp_in_cta_(warp_in_cta) {
  const uint64_t threads = ctx.block.count();
  for (unsigned lane = 0; lane < ptx::kWarpSize; ++lane) {
    uint64_t linear = uint64_t(warp_in_cta) * ptx::kWarpSize + lane;
    if (linear >= threads) break;
    initial_mask_ |= 1u << lane;
    tid_[lane] = {uint32_t(linear % ctx.block.x), uint32_t(linear / ctx.block.x % ctx.block.y),
                  uint32_t(linear / (uint64_t(ctx.block.x) * ctx.block.y))};
  }
  regs_.assign(size_t(ctx.kernel->num_regs) * ptx::kWarpSize, 0);
  preds_.assign(ctx.kernel->num_preds, 0);
  local_.assign(size_t(ctx.local_bytes_per_thread) * ptx::kWarpSize, 0);
  restart();
}

void Warp::restart() {
  // Registers and local memory keep what the warp slot's previous CTA left,
  // as on hardware (PTX leaves them undefined); clearing them cost a fifth
  // of the run time of short CTAs. Deterministic all the same.
  live_mask_ = initial_mask_;
  barrier_id_ = -1;
  stack_.clear();
  parked_.clear();
  running_ = {0, 0, GroupState::Ready};
  if (ipdom_)
    stack_.push_back({kernel_begin_, ptx::kNoPc, live_mask_, 0});
  else
    running_ = {kernel_begin_, live_mask_, GroupState::Ready};
  refresh_next();
  bar_lanes_ = 0;
  bar_votes_ = 0;
  bar_red_ = nullptr;
  bar_red_mask_ = 0;
  for (auto& frames : calls_) frames.clear();
  for (auto& saved : saved_activations_) saved.clear();
  last_ = StepInfo{};
  instructions_ = 0;
  thread_instructions_ = 0;
  progress_events_ = 0;
}

void Warp::refresh_next() {
  if (ipdom_) {
    next_pc_ = stack_.empty() ? ptx::kNoPc : stack_.back().pc;
    next_mask_ = stack_.empty() ? 0 : stack_.back().mask;
  } else {
    next_pc_ = running_.mask ? running_.pc : (parked_.empty() ? ptx::kNoPc : parked_.front().pc);
    next_mask_ = running_.mask;
  }
}

uint32_t Warp::guard_mask(const Instruction& in, uint32_t mask) const {
  if (in.guard == ptx::kNoReg) return mask;
  uint32_t p = preds_[in.guard];
  return mask & (in.guard_negated ? ~p : p);
}

void Warp::note_progress() { ++progress_events_; }

StepStatus Warp::step() {
  if (live_mask_ == 0) return StepStatus::Finished;
  if (barrier_id_ >= 0) return StepStatus::AtBarrier;
  try {
    if (ipdom_) return step_ipdom();  // keeps next_pc_ / next_mask_ up to date itself
    const StepStatus status = step_its();
    refresh_next();
    return status;
  } catch (...) {
    core::await_issue_order();
    if (*global_staged_) ctx_.global->discard_staged();  // the faulting instruction's writes do not land
    refresh_next();  // a fault may leave the stack or groups half-updated; pc() must still tell
    throw;
  }
}

void Warp::commit_staged_memory() {
  uint64_t failed = 0;
  if (ctx_.global->commit_staged(&failed)) return;
  // The write-back follows the whole instruction, so the lane is not known:
  // name the first active one.
  const unsigned lane = last_.active_mask ? unsigned(__builtin_ctz(last_.active_mask)) : 0;
  fault(FaultKind::OutOfBounds, "global write refused by memory", lane, failed);
}

// ---------------------------------------------------------------- IPDOM stack

StepStatus Warp::step_ipdom() {
  StackEntry& top = stack_.back();
  // top.pc and top.mask, from the copies in this object (refresh_next): the
  // stack's own storage is often out of the host's cache by now.
  const uint32_t pc = next_pc_;
  const uint32_t mask = next_mask_;
  const Instruction& in = code_[pc];
  const uint32_t active = guard_mask(in, mask);
  last_.pc = pc;
  last_.active_mask = active;
  last_.inst = &in;
  last_.branch_taken = false;
  last_.backward = false;
  last_.has_mem = false;
  ++instructions_;
  thread_instructions_ += lane_count(active);

  bool wait_at_barrier = false;
  switch (in.op) {
    case Opcode::Bra: {
      const uint32_t not_taken = mask & ~active;
      if (active == 0) {
        top.pc = pc + 1;
      } else {
        last_.branch_taken = true;
        last_.backward = in.target <= pc;
        if (not_taken == 0) {
          top.pc = in.target;
        } else {
          // Divergence: this entry waits at the reconvergence point; both
          // paths run on entries above it. A branch whose post-dominator is
          // the function exit reconverges where the enclosing entry does.
          const bool inherit = in.reconverge_pc == ptx::kNoPc;
          const uint32_t rpc = inherit ? top.rpc : in.reconverge_pc;
          const uint32_t rpc_depth = inherit ? top.rpc_depth : call_depth(mask);
          if (rpc == top.rpc && rpc_depth == top.rpc_depth) stack_.pop_back();
          else top.pc = rpc;
          if (pc + 1 != rpc) stack_.push_back({pc + 1, rpc, not_taken, rpc_depth});
          if (in.target != rpc) stack_.push_back({in.target, rpc, active, rpc_depth});
        }
      }
      break;
    }
    case Opcode::Exit:
    case Opcode::Ret:
      if (in.op == Opcode::Ret && !in_kernel_body(pc)) {
        if (active != mask) {
          fault(FaultKind::Unsupported, "predicated ret from a .func", __builtin_ctz(active), 0);
        }
        if (active) top.pc = leave_call(active);
        else top.pc = pc + 1;
        break;
      }
      top.pc = pc + 1;
      if (active) exit_lanes(active);
      break;
    case Opcode::Call:
      top.pc = pc + 1;
      if (active) {
        const uint32_t caller_depth = call_depth(active);
        const ptx::CallSite& site = ctx_.module->calls[in.target];
        if (site.builtin != ptx::BuiltinFunction::None) {
          execute_builtin_call(site, active, *this);
        } else if (site.indirect()) {
          // Lanes calling different functions run them one after another,
          // each path reconverging at the return address.
          for (const IndirectTarget& t : indirect_targets(site, active)) {
            enter_call_to(in, t.function, pc, t.mask);
            stack_.push_back({ctx_.module->functions[t.function].entry_pc, pc + 1, t.mask, caller_depth});
          }
        } else {
          const uint32_t entry = enter_call(in, pc, active);
          stack_.push_back({entry, pc + 1, active, caller_depth});
        }
      }
      break;
    case Opcode::Bar:
      top.pc = pc + 1;
      // bar.warp.sync (__syncwarp): under IPDOM the active lanes run in
      // lockstep and diverged members cannot be waited for (they run after
      // this path reconverges), so the lanes here go on, as before Volta.
      if (active && in.bar != ptx::BarMode::Warp) wait_at_barrier = barrier(in, active, live_mask_);
      break;
    case Opcode::Trap:
      if (active) trap(in, active);
      top.pc = pc + 1;
      break;
    default:
      execute_instruction(in, active, *this);
      top.pc = pc + 1;
      if (top.pc != top.rpc) {
        // The common case: a data instruction changes neither the stack nor
        // the live lanes, and the entry does not reconverge here.
        next_pc_ = top.pc;
        return StepStatus::Executed;
      }
      break;
  }
  while (!stack_.empty() && reconverged(stack_.back())) stack_.pop_back();
  refresh_next();
  if (live_mask_ == 0) return StepStatus::Finished;
  return wait_at_barrier ? StepStatus::AtBarrier : StepStatus::Executed;
}

// -------------------------------------------------- independent thread scheduling

void Warp::its_park(uint32_t pc, uint32_t mask, GroupState state) {
  if (mask == 0) return;
  for (ThreadGroup& g : parked_) {
    if (g.pc == pc && call_depth(g.mask) == call_depth(mask)) {
      g.mask |= mask;
      // Lanes that just arrived where others wait are ready to run with them.
      if (state == GroupState::Ready) g.state = GroupState::Ready;
      return;
    }
  }
  parked_.push_back({pc, mask, state});
}

bool Warp::its_select() {
  if (parked_.empty()) return false;
  // Ready groups first (lowest PC, so forward paths meet at their join
  // points), then groups that yielded on a backward branch, then groups
  // waiting for the rest of their member mask.
  size_t best = 0;
  for (size_t i = 1; i < parked_.size(); ++i) {
    const ThreadGroup& a = parked_[i];
    const ThreadGroup& b = parked_[best];
    if (a.state < b.state || (a.state == b.state && a.pc < b.pc)) best = i;
  }
  running_ = parked_[best];
  parked_.erase(parked_.begin() + long(best));
  if (running_.state == GroupState::Yielded) {
    // Everyone yielded: start a new round.
    for (ThreadGroup& g : parked_)
      if (g.state == GroupState::Yielded) g.state = GroupState::Ready;
  }
  running_.state = GroupState::Ready;
  return true;
}

bool Warp::its_members_present(const Instruction& in) const {
  // The member mask is the last source operand of shfl/vote/match/bar.warp.
  uint32_t members = 0xffffffffu;
  const ptx::Operand* op = nullptr;
  for (int i = int(in.num_src) - 1; i >= 0; --i) {
    const ptx::Operand& o = in.src[size_t(i)];
    if (o.kind == ptx::OperandKind::Reg || o.kind == ptx::OperandKind::Imm) {
      op = &o;
      break;
    }
  }
  const bool has_member_mask = (in.op == Opcode::Shfl && in.num_src >= 4) ||
                               (in.op == Opcode::Vote && in.num_src >= 2) ||
                               (in.op == Opcode::Match && in.num_src >= 2) ||
                               (in.op == Opcode::Bar && in.bar == ptx::BarMode::Warp);
  // wmma's .sync.aligned: every live thread of the warp takes part.
  if (in.op == Opcode::WmmaLoad || in.op == Opcode::WmmaStore || in.op == Opcode::WmmaMma)
    return (live_mask_ & ~running_.mask) == 0;
  if (!has_member_mask) return true;
  if (op != nullptr) {
    members = op->kind == ptx::OperandKind::Imm
                  ? uint32_t(op->imm)
                  : uint32_t(reg(op->reg)[__builtin_ctz(running_.mask)]);
  }
  return ((members & live_mask_) & ~running_.mask) == 0;
}

StepStatus Warp::step_its() {
  if (running_.mask == 0 && !its_select()) {
    // Every live lane waits at a CTA barrier.
    return barrier_id_ >= 0 ? StepStatus::AtBarrier : StepStatus::Blocked;
  }
  // Lanes parked at this PC join the running group (reconvergence).
  if (!parked_.empty()) {
    for (size_t i = 0; i < parked_.size(); ++i) {
      if (parked_[i].pc == running_.pc && call_depth(parked_[i].mask) == call_depth(running_.mask)) {
        running_.mask |= parked_[i].mask;
        parked_.erase(parked_.begin() + long(i));
        break;
      }
    }
  }
  const uint32_t pc = running_.pc;
  const uint32_t mask = running_.mask;
  const Instruction& in = code_[pc];

  const bool warp_sync = in.op == Opcode::Shfl || in.op == Opcode::Vote || in.op == Opcode::Match ||
                         in.op == Opcode::WmmaLoad || in.op == Opcode::WmmaStore || in.op == Opcode::WmmaMma ||
                         (in.op == Opcode::Bar && in.bar == ptx::BarMode::Warp);
  if (warp_sync && !parked_.empty() && !its_members_present(in)) {
    // Wait for the other members to arrive; if nobody else can run, go ahead
    // with those present rather than hang.
    bool others_can_run = false;
    for (const ThreadGroup& g : parked_) others_can_run |= g.state != GroupState::SyncWait;
    if (others_can_run) {
      its_park(pc, mask, GroupState::SyncWait);
      running_.mask = 0;
      its_select();
      return StepStatus::Blocked;
    }
  }

  const uint32_t active = guard_mask(in, mask);
  last_.pc = pc;
  last_.active_mask = active;
  last_.inst = &in;
  last_.branch_taken = false;
  last_.backward = false;
  last_.has_mem = false;
  ++instructions_;
  thread_instructions_ += lane_count(active);

  switch (in.op) {
    case Opcode::Bra: {
      if (active == 0) {
        running_.pc = pc + 1;
        break;
      }
      const uint32_t not_taken = mask & ~active;
      const bool backward = in.target <= pc;
      last_.branch_taken = true;
      last_.backward = backward;
      if (not_taken == 0 && parked_.empty()) {
        running_.pc = in.target;
        break;
      }
      // A control transfer with other groups around: re-pick, so forward
      // paths meet at join points and a group looping backwards lets the
      // others (a lock holder, say) progress.
      its_park(in.target, active, backward ? GroupState::Yielded : GroupState::Ready);
      its_park(pc + 1, not_taken, GroupState::Ready);
      running_.mask = 0;
      its_select();
      break;
    }
    case Opcode::Exit:
    case Opcode::Ret:
      if (in.op == Opcode::Ret && !in_kernel_body(pc)) {
        if (active != mask) {
          fault(FaultKind::Unsupported, "predicated ret from a .func", __builtin_ctz(active), 0);
        }
        if (active == 0) {
          running_.pc = pc + 1;
          break;
        }
        running_.pc = leave_call(active);
        if (!parked_.empty()) {
          its_park(running_.pc, running_.mask, GroupState::Ready);
          running_.mask = 0;
          its_select();
        }
        break;
      }
      running_.pc = pc + 1;
      if (active) {
        running_.mask &= ~active;
        exit_lanes(active);
        if (running_.mask == 0) its_select();
      }
      break;
    case Opcode::Call:
      running_.pc = pc + 1;
      if (active) {
        const ptx::CallSite& site = ctx_.module->calls[in.target];
        if (site.builtin != ptx::BuiltinFunction::None) {
          execute_builtin_call(site, active, *this);
          break;
        }
        if (active != mask) its_park(pc + 1, mask & ~active, GroupState::Ready);
        if (site.indirect()) {
          // One group per callee; the lowest function index runs first.
          const std::vector<IndirectTarget> targets = indirect_targets(site, active);
          for (size_t k = 0; k < targets.size(); ++k) {
            enter_call_to(in, targets[k].function, pc, targets[k].mask);
            const uint32_t entry = ctx_.module->functions[targets[k].function].entry_pc;
            if (k == 0) {
              running_.pc = entry;
              running_.mask = targets[k].mask;
            } else {
              its_park(entry, targets[k].mask, GroupState::Ready);
            }
          }
          break;
        }
        const uint32_t entry = enter_call(in, pc, active);
        running_.pc = entry;
        running_.mask = active;
      }
      break;
    case Opcode::Bar: {
      running_.pc = pc + 1;
      if (active == 0 || in.bar == ptx::BarMode::Warp) break;  // bar.warp: members already gathered
      if (in.bar == ptx::BarMode::Arrive) {
        barrier(in, active, 0);
        break;
      }
      // These lanes wait at the CTA barrier; the warp arrives when all its
      // live lanes have.
      for (uint32_t m = active; m; m &= m - 1) bar_resume_pc_[size_t(__builtin_ctz(m))] = pc + 1;
      if (active != mask) its_park(pc + 1, mask & ~active, GroupState::Ready);
      running_.mask = 0;
      barrier(in, active, bar_lanes_ | active);
      if (running_.mask == 0 && barrier_id_ < 0) its_select();
      if (live_mask_ == 0) return StepStatus::Finished;
      return barrier_id_ >= 0 ? StepStatus::AtBarrier : StepStatus::Executed;
    }
    case Opcode::Trap:
      if (active) trap(in, active);
      running_.pc = pc + 1;
      break;
    default:
      execute_instruction(in, active, *this);
      running_.pc = pc + 1;
      break;
  }
  return live_mask_ == 0 ? StepStatus::Finished : StepStatus::Executed;
}

// ------------------------------------------------------------ barriers, calls

bool Warp::barrier(const Instruction& in, uint32_t mask, uint32_t lanes_arriving) {
  const unsigned lane = unsigned(__builtin_ctz(mask));
  auto operand_value = [&](const ptx::Operand& o) -> uint64_t {
    if (o.kind == ptx::OperandKind::Imm) return o.imm;
    if (o.kind == ptx::OperandKind::Reg) return reg(o.reg)[lane];
    return 0;
  };
  const unsigned id = in.num_src >= 1 ? unsigned(operand_value(in.src[0])) : 0;
  if (id >= unsigned(Cta::kNumBarriers)) fault(FaultKind::Unsupported, "barrier id out of range", lane, id);
  uint32_t expected = 0;
  const bool is_red = in.bar == ptx::BarMode::RedPopc || in.bar == ptx::BarMode::RedAnd ||
                      in.bar == ptx::BarMode::RedOr;
  // bar.red d, a{, b}, {!}c: the predicate is the last source.
  if (!is_red && in.num_src >= 2) expected = uint32_t(operand_value(in.src[1]));
  if (is_red && in.num_src >= 3) expected = uint32_t(operand_value(in.src[1]));
  if (is_red) {
    const ptx::Operand& p = in.src[size_t(in.num_src - 1)];
    uint32_t votes = p.kind == ptx::OperandKind::Pred ? (p.negate ? ~preds_[p.reg] : preds_[p.reg]) : 0;
    bar_votes_ |= votes & mask;
    bar_red_ = &in;
    bar_red_mask_ |= mask;
  }
  const bool wait = in.bar != ptx::BarMode::Arrive;
  if (!ipdom_ && wait) {
    bar_lanes_ = lanes_arriving;
    bar_pending_ = {id, expected};
    if (bar_lanes_ != live_mask_) return true;  // the rest of the warp has not arrived yet
  }
  barrier_id_ = wait ? int(id) : -1;
  return cta_.arrive(*this, id, expected, wait, bar_votes_);
}

void Warp::barrier_released(uint32_t votes_true, uint32_t votes_cast) {
  barrier_id_ = -1;
  if (bar_red_ != nullptr) {
    const Instruction& in = *bar_red_;
    uint64_t value = 0;
    switch (in.bar) {
      case ptx::BarMode::RedPopc: value = votes_true; break;
      case ptx::BarMode::RedAnd: value = votes_true == votes_cast; break;
      default: value = votes_true != 0; break;
    }
    if (in.dst.kind == ptx::OperandKind::Pred) {
      preds_[in.dst.reg] = value ? (preds_[in.dst.reg] | bar_red_mask_) : (preds_[in.dst.reg] & ~bar_red_mask_);
    } else if (in.dst.kind == ptx::OperandKind::Reg) {
      for (uint32_t m = bar_red_mask_; m; m &= m - 1) reg(in.dst.reg)[__builtin_ctz(m)] = value;
    }
    bar_red_ = nullptr;
    bar_red_mask_ = 0;
  }
  bar_votes_ = 0;
  if (!ipdom_ && bar_lanes_ != 0) {
    for (uint32_t m = bar_lanes_ & live_mask_; m; m &= m - 1) {
      const unsigned lane = unsigned(__builtin_ctz(m));
      its_park(bar_resume_pc_[lane], 1u << lane, GroupState::Ready);
    }
    bar_lanes_ = 0;
    if (running_.mask == 0) its_select();
    refresh_next();  // released from another warp's step: the groups changed
  }
}

void Warp::copy_params(const std::vector<ptx::ParamCopy>& copies, uint32_t mask) {
  const size_t stride = ctx_.local_bytes_per_thread;
  for (uint32_t m = mask; m; m &= m - 1) {
    uint8_t* base = local_.data() + size_t(__builtin_ctz(m)) * stride;
    for (const ptx::ParamCopy& c : copies) std::memmove(base + c.to, base + c.from, c.bytes);
  }
}

void Warp::save_activation(const ptx::Function& f, unsigned lane) {
  std::vector<uint64_t>& saved = saved_activations_[lane];
  for (uint32_t r = f.reg_first; r < f.reg_end; ++r) saved.push_back(reg(r)[lane]);
  for (uint32_t p = f.pred_first; p < f.pred_end; ++p) saved.push_back((preds_[p] >> lane) & 1u);
  const uint8_t* local = local_.data() + size_t(lane) * ctx_.local_bytes_per_thread;
  for (uint32_t b = f.local_first; b < f.local_end; b += 8) {
    uint64_t v = 0;
    std::memcpy(&v, local + b, std::min<uint32_t>(8, f.local_end - b));
    saved.push_back(v);
  }
}

void Warp::restore_activation(const ptx::Function& f, unsigned lane) {
  std::vector<uint64_t>& saved = saved_activations_[lane];
  uint8_t* local = local_.data() + size_t(lane) * ctx_.local_bytes_per_thread;
  for (uint32_t b = f.local_first + (f.local_end - f.local_first + 7) / 8 * 8; b > f.local_first;) {
    b -= 8;
    const uint64_t v = saved.back();
    saved.pop_back();
    std::memcpy(local + b, &v, std::min<uint32_t>(8, f.local_end - b));
  }
  for (uint32_t p = f.pred_end; p-- > f.pred_first;) {
    preds_[p] = (preds_[p] & ~(1u << lane)) | (uint32_t(saved.back()) << lane);
    saved.pop_back();
  }
  for (uint32_t r = f.reg_end; r-- > f.reg_first;) {
    reg(r)[lane] = saved.back();
    saved.pop_back();
  }
}

uint32_t Warp::enter_call(const Instruction& in, uint32_t pc, uint32_t mask) {
  const ptx::CallSite& site = ctx_.module->calls[in.target];
  const ptx::Function& callee = ctx_.module->functions[site.callee];
  // A recursive callee's registers and locals may hold an outer activation:
  // saved before the arguments arrive, restored on return.
  if (callee.recursive)
    for (uint32_t m = mask; m; m &= m - 1) save_activation(callee, unsigned(__builtin_ctz(m)));
  copy_params(site.args, mask);
  for (uint32_t m = mask; m; m &= m - 1) {
    auto& frames = calls_[size_t(__builtin_ctz(m))];
    if (frames.size() >= kMaxCallDepth)
      fault(FaultKind::Unsupported, "call depth exceeds " + std::to_string(kMaxCallDepth) + " (runaway recursion?)",
            __builtin_ctz(m), 0);
    frames.push_back({pc + 1, in.target, site.callee, callee.recursive});
  }
  return callee.entry_pc;
}

std::vector<Warp::IndirectTarget> Warp::indirect_targets(const ptx::CallSite& site, uint32_t mask) const {
  std::vector<IndirectTarget> out;
  const auto& functions = ctx_.module->functions;
  for (uint32_t m = mask; m; m &= m - 1) {
    const unsigned lane = unsigned(__builtin_ctz(m));
    const uint64_t address = reg(site.target_reg)[lane];
    const uint64_t index = (address - ptx::kFunctionAddressBase) / ptx::kFunctionAddressStride;
    if (address < ptx::kFunctionAddressBase || (address - ptx::kFunctionAddressBase) % ptx::kFunctionAddressStride ||
        index >= functions.size())
      fault(FaultKind::OutOfBounds, "indirect call through a pointer that is no function's address", lane, address);
    const ptx::Function& f = functions[size_t(index)];
    if (f.is_entry) fault(FaultKind::OutOfBounds, "indirect call of kernel '" + f.name + "'", lane, address);
    if (f.param_slots.size() != site.args.size() || f.ret_slots.size() < site.rets.size())
      fault(FaultKind::Unsupported, "indirect call of '" + f.name + "' with " + std::to_string(site.args.size()) +
                                        " arguments; it takes " + std::to_string(f.param_slots.size()),
            lane, address);
    auto it = std::find_if(out.begin(), out.end(), [&](const IndirectTarget& t) { return t.function == index; });
    if (it == out.end()) out.push_back({uint32_t(index), 1u << lane});
    else it->mask |= 1u << lane;
  }
  std::sort(out.begin(), out.end(),
            [](const IndirectTarget& a, const IndirectTarget& b) { return a.function < b.function; });
  return out;
}

void Warp::enter_call_to(const Instruction& in, uint32_t function, uint32_t pc, uint32_t mask) {
  const ptx::CallSite& site = ctx_.module->calls[in.target];
  const ptx::Function& f = ctx_.module->functions[function];
  // The call graph does not see through function pointers, so an indirect
  // callee may be active already: its activation is always saved.
  for (uint32_t m = mask; m; m &= m - 1) save_activation(f, unsigned(__builtin_ctz(m)));
  std::vector<ptx::ParamCopy> copies;
  for (size_t k = 0; k < site.args.size(); ++k)
    copies.push_back({site.args[k].from, f.param_slots[k].to, std::min(site.args[k].bytes, f.param_slots[k].bytes)});
  copy_params(copies, mask);
  for (uint32_t m = mask; m; m &= m - 1) {
    auto& frames = calls_[size_t(__builtin_ctz(m))];
    if (frames.size() >= kMaxCallDepth)
      fault(FaultKind::Unsupported, "call depth exceeds " + std::to_string(kMaxCallDepth) + " (runaway recursion?)",
            __builtin_ctz(m), 0);
    frames.push_back({pc + 1, in.target, function, true});
  }
}

uint32_t Warp::leave_call(uint32_t mask) {
  const unsigned first = unsigned(__builtin_ctz(mask));
  const CallFrame frame = calls_[first].back();
  const ptx::CallSite& site = ctx_.module->calls[frame.call_site];
  const ptx::Function& callee = ctx_.module->functions[frame.callee];
  std::vector<ptx::ParamCopy> indirect_rets;
  if (site.indirect())
    for (size_t k = 0; k < site.rets.size(); ++k)
      indirect_rets.push_back(
          {callee.ret_slots[k].from, site.rets[k].to, std::min(site.rets[k].bytes, callee.ret_slots[k].bytes)});
  const std::vector<ptx::ParamCopy>& rets = site.indirect() ? indirect_rets : site.rets;
  if (!frame.saved_activation) {
    copy_params(rets, mask);
  } else {
    // The return values leave the callee's locals before the restore
    // overwrites them; the caller's receiving blocks may lie in the same
    // function's locals (a self-call), so they are written after it.
    const size_t stride = ctx_.local_bytes_per_thread;
    std::vector<uint8_t> values;
    for (uint32_t m = mask; m; m &= m - 1) {
      const unsigned lane = unsigned(__builtin_ctz(m));
      uint8_t* base = local_.data() + size_t(lane) * stride;
      values.clear();
      for (const ptx::ParamCopy& c : rets) values.insert(values.end(), base + c.from, base + c.from + c.bytes);
      restore_activation(callee, lane);
      size_t at = 0;
      for (const ptx::ParamCopy& c : rets) {
        std::memcpy(base + c.to, values.data() + at, c.bytes);
        at += c.bytes;
      }
    }
  }
  for (uint32_t m = mask; m; m &= m - 1) calls_[size_t(__builtin_ctz(m))].pop_back();
  return frame.return_pc;
}

void Warp::exit_lanes(uint32_t mask) {
  live_mask_ &= ~mask;
  ++progress_events_;
  if (ipdom_) {
    for (StackEntry& e : stack_) e.mask &= ~mask;
    stack_.erase(std::remove_if(stack_.begin(), stack_.end(), [](const StackEntry& e) { return e.mask == 0; }),
                 stack_.end());
  }
  if (live_mask_ == 0) {
    cta_.warp_finished();
  } else if (!ipdom_ && bar_lanes_ != 0 && (bar_lanes_ & ~live_mask_) == 0 &&
             bar_lanes_ == live_mask_ && barrier_id_ < 0) {
    // The lanes the barrier still waited for have exited: the warp arrives.
    barrier_id_ = int(bar_pending_.id);
    cta_.arrive(*this, bar_pending_.id, bar_pending_.expected, true, bar_votes_);
  }
}

// --------------------------------------------------------------- memory access

uint8_t* Warp::resolve(StateSpace space, uint64_t addr, unsigned bytes, unsigned align, unsigned lane,
                       StateSpace* resolved_space) {
  if (space == StateSpace::Generic) {
    if (addr - memory::kSharedWindowBase < memory::kWindowBytes) {
      space = StateSpace::Shared;
      addr -= memory::kSharedWindowBase;
    } else if (addr - memory::kLocalWindowBase < memory::kWindowBytes) {
      space = StateSpace::Local;
      addr -= memory::kLocalWindowBase;
    } else if (addr - memory::kConstWindowBase < memory::kWindowBytes) {
      space = StateSpace::Const;
      addr -= memory::kConstWindowBase;
    } else {
      space = StateSpace::Global;
    }
  }
  if (resolved_space) *resolved_space = space;
  if (align > 1 && (addr & (align - 1)) != 0) {
    fault(FaultKind::Misaligned,
          std::string("misaligned ") + space_word(space) + " access of " + std::to_string(bytes) + " bytes", lane,
          addr);
  }
  uint8_t* p = nullptr;
  switch (space) {
    case StateSpace::Global:
      core::await_issue_order();  // other SMs' stores of this cycle first
      p = ctx_.global->translate(addr, bytes);
      break;
    case StateSpace::Shared: {
      auto& shared = cta_.shared_memory();
      if (addr + bytes <= shared.size()) p = shared.data() + addr;
      break;
    }
    case StateSpace::Local:
      if (addr + bytes <= ctx_.local_bytes_per_thread) p = local_.data() + size_t(lane) * ctx_.local_bytes_per_thread + addr;
      break;
    case StateSpace::Param:
      if (addr + bytes <= ctx_.kernel->param_bytes) p = const_cast<uint8_t*>(ctx_.params) + addr;
      break;
    case StateSpace::Const:
      if (addr + bytes <= ctx_.const_bytes) p = const_cast<uint8_t*>(ctx_.const_bank) + addr;
      break;
    default:
      break;
  }
  if (p == nullptr) {
    fault(FaultKind::OutOfBounds,
          std::string("out-of-bounds ") + space_word(space) + " access of " + std::to_string(bytes) + " bytes",
          lane, addr);
  }
  return p;
}

uint64_t Warp::special(ptx::SpecialReg s, unsigned lane) const {
  using ptx::SpecialReg;
  const Dim3 c = cta_.ctaid();
  switch (s) {
    case SpecialReg::TidX: return tid_[lane][0];
    case SpecialReg::TidY: return tid_[lane][1];
    case SpecialReg::TidZ: return tid_[lane][2];
    case SpecialReg::NtidX: return ctx_.block.x;
    case SpecialReg::NtidY: return ctx_.block.y;
    case SpecialReg::NtidZ: return ctx_.block.z;
    case SpecialReg::CtaidX: return c.x;
    case SpecialReg::CtaidY: return c.y;
    case SpecialReg::CtaidZ: return c.z;
    case SpecialReg::NctaidX: return ctx_.grid.x;
    case SpecialReg::NctaidY: return ctx_.grid.y;
    case SpecialReg::NctaidZ: return ctx_.grid.z;
    case SpecialReg::LaneId: return lane;
    case SpecialReg::WarpId: return warp_in_cta_;
    case SpecialReg::NWarpId: return 64;
    case SpecialReg::SmId: return cta_.sm_id();
    case SpecialReg::NSmId: return ctx_.num_sms;
    case SpecialReg::GridId: return ctx_.grid_id;
    case SpecialReg::EnvReg0:
    case SpecialReg::EnvReg31:
      break;  // all 32 below the switch
    case SpecialReg::LanemaskEq: return 1u << lane;
    case SpecialReg::LanemaskLt: return (1u << lane) - 1;
    case SpecialReg::LanemaskLe: return lane == 31 ? 0xffffffffu : (2u << lane) - 1;
    case SpecialReg::LanemaskGt: return lane == 31 ? 0 : ~((2u << lane) - 1);
    case SpecialReg::LanemaskGe: return ~((1u << lane) - 1);
    case SpecialReg::Clock:
    case SpecialReg::Clock64:
    case SpecialReg::GlobalTimer: {
      const uint64_t t = ctx_.clock ? *ctx_.clock : instructions_;
      return s == SpecialReg::Clock ? (t & 0xffffffffu) : t;
    }
  }
  if (s >= SpecialReg::EnvReg0 && s <= SpecialReg::EnvReg31)
    return ctx_.envreg[size_t(unsigned(s) - unsigned(SpecialReg::EnvReg0))];
  return 0;
}

void Warp::special_lanes(ptx::SpecialReg s, uint32_t mask, uint64_t* out) const {
  using ptx::SpecialReg;
  auto each = [&](auto value_of) {
    for (uint32_t m = mask; m; m &= m - 1) {
      const unsigned lane = unsigned(__builtin_ctz(m));
      out[lane] = value_of(lane);
    }
  };
  // The per-lane ones get their own loops; the rest is one value for the warp.
  switch (s) {
    case SpecialReg::TidX: each([&](unsigned l) { return uint64_t(tid_[l][0]); }); return;
    case SpecialReg::TidY: each([&](unsigned l) { return uint64_t(tid_[l][1]); }); return;
    case SpecialReg::TidZ: each([&](unsigned l) { return uint64_t(tid_[l][2]); }); return;
    case SpecialReg::LaneId:
    case SpecialReg::LanemaskEq:
    case SpecialReg::LanemaskLt:
    case SpecialReg::LanemaskLe:
    case SpecialReg::LanemaskGt:
    case SpecialReg::LanemaskGe:
      each([&](unsigned l) { return special(s, l); });
      return;
    default: {
      const uint64_t v = special(s, 0);
      each([v](unsigned) { return v; });
      return;
    }
  }
}

// ------------------------------------------------------------------- reports

void Warp::trap(const Instruction& in, uint32_t active) const {
  const unsigned lane = unsigned(__builtin_ctz(active));
  if (!in.end_of_body) fault(FaultKind::Trap, "trap instruction executed", lane, 0);
  const uint32_t pc = last_.pc;
  std::string function = "?";
  for (const ptx::Function& f : ctx_.module->functions)
    if (pc >= f.entry_pc && pc < f.end_pc) function = f.name;
  fault(FaultKind::Trap, "execution ran off the end of '" + function + "' (no ret or exit ends its body)", lane, 0);
}

void Warp::fault(FaultKind kind, const std::string& what, unsigned lane, uint64_t address) const {
  const uint32_t pc = last_.inst ? last_.pc : this->pc();
  std::ostringstream os;
  os << "device fault: " << what;
  if (kind == FaultKind::OutOfBounds || kind == FaultKind::Misaligned) {
    os << " at address " << hex(address);
  }
  const Dim3 c = cta_.ctaid();
  os << "\n  kernel " << ctx_.kernel->name << ", CTA (" << c.x << "," << c.y << "," << c.z << "), thread ("
     << tid_[lane][0] << "," << tid_[lane][1] << "," << tid_[lane][2] << ") [warp " << warp_in_cta_ << " lane "
     << lane << "]";
  if (pc < ctx_.module->code.size()) {
    const Instruction& in = code_[pc];
    os << ", PC " << hex(pc * 8) << " (" << ctx_.module->file << ":" << in.loc.line;
    if (pc < ctx_.module->text.size()) os << ": " << ctx_.module->text[pc];
    os << ")";
  }
  if ((kind == FaultKind::OutOfBounds || kind == FaultKind::Misaligned) && ctx_.global &&
      address < memory::kConstWindowBase) {
    const std::string where = ctx_.global->describe(address);
    if (!where.empty()) os << "\n  that is " << where;
  }
  FaultSite site;
  site.known = true;
  site.address = address;
  site.pc = pc * 8;
  site.cta = c.x + uint64_t(c.y) * ctx_.grid.x + uint64_t(c.z) * ctx_.grid.x * ctx_.grid.y;
  site.thread = tid_[lane][0] + tid_[lane][1] * ctx_.block.x + tid_[lane][2] * ctx_.block.x * ctx_.block.y;
  throw DeviceFault(kind, os.str(), site);
}

std::string Warp::describe() const {
  std::ostringstream os;
  const uint32_t p = pc();
  os << "warp " << warp_in_cta_ << ": ";
  if (live_mask_ == 0) {
    os << "finished";
    return os.str();
  }
  auto where = [&](uint32_t at) {
    std::ostringstream w;
    w << "PC " << hex(uint64_t(at) * 8);
    if (at < ctx_.module->code.size()) {
      w << " (" << ctx_.module->file << ":" << code_[at].loc.line;
      if (at < ctx_.module->text.size()) w << ": " << ctx_.module->text[at];
      w << ")";
    }
    return w.str();
  };
  os << where(p) << " active " << hex(next_mask()) << " live " << hex(live_mask_);
  if (barrier_id_ >= 0) os << ", waiting at barrier " << barrier_id_;
  if (ipdom_) {
    os << ", SIMT stack depth " << stack_.size();
  } else {
    for (const ThreadGroup& g : parked_) {
      os << "; lanes " << hex(g.mask) << " at " << where(g.pc)
         << (g.state == GroupState::Yielded ? " (yielded)" : g.state == GroupState::SyncWait ? " (warp sync)" : "");
    }
    if (bar_lanes_) os << "; lanes " << hex(bar_lanes_) << " at a barrier";
  }
  return os.str();
}

}  // namespace tlmgpu::exec
