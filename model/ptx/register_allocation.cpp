#include "model/ptx/register_allocation.h"

#include <algorithm>
#include <unordered_map>
#include <cstdio>

#include "model/ptx/cfg.h"

namespace tlmgpu::ptx {
namespace {

/// A set of register slots.
class SlotSet {
 public:
  explicit SlotSet(uint32_t slots = 0) : words_((slots + 63) / 64, 0) {}
  /// Makes room for `slots` slots (never shrinks).
  void grow(uint32_t slots) { words_.resize(std::max(words_.size(), size_t(slots + 63) / 64), 0); }
  void insert(uint32_t s) { words_[s / 64] |= uint64_t(1) << (s % 64); }
  void erase(uint32_t s) { words_[s / 64] &= ~(uint64_t(1) << (s % 64)); }
  bool contains(uint32_t s) const { return (words_[s / 64] >> (s % 64)) & 1; }
  /// this |= o; true when something was added.
  bool merge(const SlotSet& o) {
    bool grew = false;
    for (size_t i = 0; i < words_.size(); ++i) {
      const uint64_t w = words_[i] | o.words_[i];
      grew |= w != words_[i];
      words_[i] = w;
    }
    return grew;
  }
  template <class F>
  void for_each(F f) const {
    for (size_t i = 0; i < words_.size(); ++i)
      for (uint64_t w = words_[i]; w != 0; w &= w - 1) f(uint32_t(i * 64 + unsigned(__builtin_ctzll(w))));
  }

 private:
  std::vector<uint64_t> words_;
};

/// The general registers an instruction reads and writes. A guarded write
/// may leave the old value, so it also counts as a read.
struct RegAccess {
  /// The instruction (index from the function's entry PC); a copy made by
  /// unrolling keeps its original's.
  uint32_t origin = 0;
  std::vector<uint32_t> uses, defs;
  /// Folded values (see folds_into_operand) this instruction needs in a
  /// register all the same: memory instructions take no constant operands.
  uint32_t materialized_units = 0;
  std::vector<uint32_t> pred_uses, pred_defs;  ///< predicates: only for scheduling dependencies
};

void add_operand_regs(const Operand& o, std::vector<uint32_t>& out) {
  switch (o.kind) {
    case OperandKind::Reg:
    case OperandKind::Address:
      if (o.reg != kNoReg) out.push_back(o.reg);
      break;
    case OperandKind::Vector:
      for (uint32_t i = 0; i < o.count && i < o.vregs.size(); ++i)
        if (o.vregs[i] != kNoReg) out.push_back(o.vregs[i]);
      break;
    default:
      break;
  }
}

RegAccess access_of(const Instruction& in) {
  RegAccess a;
  for (const Operand& s : in.src) {
    add_operand_regs(s, a.uses);
    if (s.kind == OperandKind::Pred) a.pred_uses.push_back(s.reg);
  }
  if (in.dst.kind == OperandKind::Address) {
    add_operand_regs(in.dst, a.uses);  // st: the address is read
  } else {
    add_operand_regs(in.dst, a.defs);
  }
  add_operand_regs(in.dst2, a.defs);
  for (const Operand* d : {&in.dst, &in.dst2})
    if (d->kind == OperandKind::Pred) a.pred_defs.push_back(d->reg);
  if (in.guard != kNoReg) {
    a.uses.insert(a.uses.end(), a.defs.begin(), a.defs.end());
    a.pred_uses.push_back(in.guard);
  }
  return a;
}

/// Machine instructions ptxas turns a PTX instruction into, roughly: 64-bit
/// integer arithmetic takes two (carry chains, or a wide multiply-add),
/// expansions of division and the like a sequence; the size limit of
/// unrolling counts these.
uint32_t machine_instructions(const Instruction& in) {
  switch (in.op) {
    case Opcode::Div: case Opcode::Rem: case Opcode::Sqrt: case Opcode::Rcp:
      return in.approx ? 2 : 20;
    case Opcode::Ld: case Opcode::St: case Opcode::Atom: case Opcode::Red: case Opcode::Mov: case Opcode::Bra:
    case Opcode::Setp: case Opcode::Cvta:
      return 1;
    default:
      return type_bytes(in.type) == 8 && !type_is_float(in.type) ? 2 : 1;
  }
}

/// Registers ptxas needs beside the operands while an instruction runs that
/// it expands into a sequence (Newton iterations, an integer division by
/// reciprocal, a slow-path subroutine for the rounding corner cases).
uint32_t expansion_scratch(const Instruction& in) {
  const bool f64 = in.type == DataType::F64;
  const bool wide = type_bytes(in.type) == 8;
  switch (in.op) {
    case Opcode::Div:
      if (type_is_float(in.type)) return in.approx ? 1 : (f64 ? 12 : 11);
      return wide ? 12 : 3;
    case Opcode::Rem:
      return wide ? 12 : 3;
    case Opcode::Sqrt:
    case Opcode::Rcp:
      if (in.approx) return f64 ? 2 : 0;
      return f64 ? 10 : 4;
    default:
      return 0;
  }
}

/// A definition ptxas turns into an operand rather than a register: kernel
/// parameters and launch-shape registers live in the constant bank,
/// immediates and symbol addresses in the instruction.
bool folds_into_operand(const Instruction& in, const std::vector<uint8_t>& folded) {
  if (in.guard != kNoReg) return false;
  const Operand& s = in.src[0];
  auto folded_reg = [&](const Operand& o) { return o.kind == OperandKind::Reg && o.reg < folded.size() && folded[o.reg]; };
  switch (in.op) {
    case Opcode::Ld:
      return in.space == StateSpace::Param && in.dst.kind == OperandKind::Reg;
    case Opcode::Mov:
      if (in.dst.kind != OperandKind::Reg) return false;
      if (s.kind == OperandKind::Imm || s.kind == OperandKind::Symbol) return true;
      if (s.kind == OperandKind::Special)
        return s.sreg == SpecialReg::NtidX || s.sreg == SpecialReg::NtidY || s.sreg == SpecialReg::NtidZ ||
               s.sreg == SpecialReg::NctaidX || s.sreg == SpecialReg::NctaidY || s.sreg == SpecialReg::NctaidZ;
      return folded_reg(s);
    case Opcode::Cvta:  // a global address is the generic one: no instruction at all
      return in.space == StateSpace::Global && folded_reg(s);
    default:
      return false;
  }
}

/// How an instruction may move in ptxas's list schedule.
enum class Motion : uint8_t {
  Free,        ///< moves up past anything it does not depend on
  Load,        ///< also stays below what writes or orders memory
  ReadOnly,    ///< ld.global.nc: stays below barriers and fences only
  Fixed,       ///< stays: writes memory, orders it, or changes control flow
};

Motion motion_of(const Instruction& in) {
  switch (in.op) {
    case Opcode::St: case Opcode::Atom: case Opcode::Red: case Opcode::Membar: case Opcode::Bar:
    case Opcode::Call: case Opcode::Ret: case Opcode::Exit: case Opcode::Trap: case Opcode::Bra:
    case Opcode::Prefetch: case Opcode::Nop: case Opcode::Sust:
      return Motion::Fixed;
    case Opcode::Suld:  // surfaces are writable device memory
      return Motion::Load;
    case Opcode::Tex: case Opcode::Tld4:  // textures are read-only while a kernel runs
      return Motion::ReadOnly;
    // The carry flag is an implicit dependence between these: keep the chain in order.
    case Opcode::AddCarry: case Opcode::SubCarry: case Opcode::MadCarry:
      return Motion::Fixed;
    case Opcode::Ld:
      if (in.volatile_ || in.space == StateSpace::Local) return Motion::Fixed;
      if (in.space == StateSpace::Param) return Motion::Free;
      return in.noncoherent ? Motion::ReadOnly : Motion::Load;
    case Opcode::Mov:  // clock reads keep their place
      if (in.src[0].kind == OperandKind::Special &&
          (in.src[0].sreg == SpecialReg::Clock || in.src[0].sreg == SpecialReg::Clock64 ||
           in.src[0].sreg == SpecialReg::GlobalTimer))
        return Motion::Fixed;
      return Motion::Free;
    default:
      return Motion::Free;
  }
}

/// Whether an instruction of motion `m` may move above `prev`, memory-wise.
bool may_pass(Motion m, StateSpace load_space, const Instruction& prev) {
  switch (m) {
    case Motion::Free:
      return prev.op != Opcode::Bar && prev.op != Opcode::Call && prev.op != Opcode::Membar;
    case Motion::ReadOnly:
      return prev.op != Opcode::Bar && prev.op != Opcode::Call && prev.op != Opcode::Membar &&
             !(prev.op == Opcode::Ld && prev.volatile_);
    case Motion::Load:
      if (motion_of(prev) != Motion::Fixed || prev.op == Opcode::Nop) return true;
      // Shared and global memory never alias: a load passes a write to the other space.
      return (prev.op == Opcode::St || prev.op == Opcode::Atom || prev.op == Opcode::Red) &&
             ((load_space == StateSpace::Global && prev.space == StateSpace::Shared) ||
              (load_space == StateSpace::Shared && prev.space == StateSpace::Global));
    case Motion::Fixed:
      return false;
  }
  return false;
}

bool intersects(const std::vector<uint32_t>& a, const std::vector<uint32_t>& b) {
  for (uint32_t x : a)
    if (std::find(b.begin(), b.end(), x) != b.end()) return true;
  return false;
}

class Estimator {
 public:
  explicit Estimator(const Module& m) : m_(m), state_(m.functions.size(), kTodo), out_(m.functions.size()) {}

  std::vector<RegisterEstimate> run() {
    for (uint32_t i = 0; i < m_.functions.size(); ++i) estimate(i);
    return out_;
  }

 private:
  enum State : uint8_t { kTodo, kActive, kDone };

  const RegisterEstimate& estimate(uint32_t fi) {
    if (state_[fi] == kTodo) {
      state_[fi] = kActive;  // a recursive call sees 0 for its callee
      out_[fi].peak_live = peak_live(m_.functions[fi]);
      out_[fi].registers = out_[fi].peak_live + kReservedRegisters;
      state_[fi] = kDone;
    }
    return out_[fi];
  }

  uint32_t peak_live(const Function& f) {
    if (f.end_pc <= f.entry_pc) return 0;
    const uint32_t n = f.end_pc - f.entry_pc;
    const auto slots = uint32_t(f.reg_units.size());
    // Slots past `slots` are an unrolled copy's renamed registers (see unroll()).
    auto units = [&](uint32_t s) -> uint32_t { return slots ? f.reg_units[s % slots] : 1; };

    std::vector<RegAccess> acc(n);
    for (uint32_t i = 0; i < n; ++i) {
      acc[i] = access_of(m_.code[f.entry_pc + i]);
      acc[i].origin = i;
      for (auto* v : {&acc[i].uses, &acc[i].defs})
        v->erase(std::remove_if(v->begin(), v->end(), [&](uint32_t s) { return s >= slots || units(s) == 0; }),
                 v->end());
    }

    // Registers whose every definition folds into an operand take no
    // register (greatest fixed point: a mov chain of such values folds too).
    std::vector<uint8_t> folded(slots, 0);
    for (uint32_t i = 0; i < n; ++i)
      for (uint32_t d : acc[i].defs) folded[d] = 1;
    for (bool changed = true; changed;) {
      changed = false;
      for (uint32_t i = 0; i < n; ++i) {
        if (acc[i].defs.empty() || folds_into_operand(m_.code[f.entry_pc + i], folded)) continue;
        for (uint32_t d : acc[i].defs) {
          if (folded[d]) {
            folded[d] = 0;
            changed = true;
          }
        }
      }
    }
    // Folded registers that only ever hold zero.
    std::vector<uint8_t> zero(folded);
    for (uint32_t i = 0; i < n; ++i) {
      const Instruction& in = m_.code[f.entry_pc + i];
      const bool is_zero = in.op == Opcode::Mov && in.src[0].kind == OperandKind::Imm && in.src[0].imm == 0;
      if (!is_zero)
        for (uint32_t d : acc[i].defs) zero[d] = 0;
    }
    for (uint32_t i = 0; i < n; ++i) {
      RegAccess& a = acc[i];
      const Opcode op = m_.code[f.entry_pc + i].op;
      if (op == Opcode::Ld || op == Opcode::St || op == Opcode::Atom || op == Opcode::Red)
        for (uint32_t s : a.uses)
          if (folded[s] && !zero[s]) a.materialized_units += units(s);  // zero is the zero register
      for (auto* v : {&a.uses, &a.defs})
        v->erase(std::remove_if(v->begin(), v->end(), [&](uint32_t s) { return folded[s] != 0; }), v->end());
    }

    hoist_loop_invariants(f, acc);
    const ControlFlowGraph g = build_cfg(m_, f);
    const auto nb = uint32_t(g.blocks.size());

    // Block-level liveness (upward-exposed uses, definitions, live-in / out).
    std::vector<SlotSet> use(nb, SlotSet(slots)), def(nb, SlotSet(slots)), live_in(nb, SlotSet(slots)),
        live_out(nb, SlotSet(slots));
    for (uint32_t b = 0; b < nb; ++b) {
      for (uint32_t pc = g.blocks[b].begin; pc < g.blocks[b].end; ++pc) {
        const RegAccess& a = acc[pc - f.entry_pc];
        for (uint32_t s : a.uses)
          if (!def[b].contains(s)) use[b].insert(s);
        for (uint32_t s : a.defs) def[b].insert(s);
      }
    }
    for (bool changed = true; changed;) {
      changed = false;
      for (uint32_t b = nb; b-- > 0;) {
        for (uint32_t s : g.blocks[b].succs)
          if (s != ControlFlowGraph::kExit) live_out[b].merge(live_in[s]);
        SlotSet in = use[b];
        live_out[b].for_each([&](uint32_t s) {
          if (!def[b].contains(s)) in.insert(s);
        });
        changed |= live_in[b].merge(in);
      }
    }

    // Scheduling regions: a block, extended over the short forward branches
    // ptxas if-converts (`@p bra L; <short then-block>; L:`), whose
    // then-blocks become predicated code the scheduler moves freely.
    uint32_t in_order_peak = 0, scheduled_peak = 0;
    for (uint32_t b = 0; b < nb;) {
      std::vector<uint32_t> region;  // instruction indices, program order
      uint32_t last = b;
      for (uint32_t pc = g.blocks[b].begin; pc < g.blocks[b].end; ++pc) region.push_back(pc - f.entry_pc);
      while (last + 2 < nb && if_convertible(g, last)) {
        const Instruction& bra = m_.code[g.blocks[last].end - 1];
        region.pop_back();  // the branch becomes the then-block's guard
        for (uint32_t pc = g.blocks[last + 1].begin; pc < g.blocks[last + 1].end; ++pc) {
          // Predicated now; its results are read under the same predicate,
          // so a definition still ends the older value's range.
          // (Each block is in one region only, so acc may change in place.)
          acc[pc - f.entry_pc].pred_uses.push_back(bra.guard);
          region.push_back(pc - f.entry_pc);
        }
        last += 2;
        for (uint32_t pc = g.blocks[last].begin; pc < g.blocks[last].end; ++pc) region.push_back(pc - f.entry_pc);
      }
      if (unrollable(f, region, acc)) region = unroll(f, region, acc);
      in_order_peak = std::max(in_order_peak, region_peak(f, region, acc, live_out[last], units));
      scheduled_peak =
          std::max(scheduled_peak, region_peak(f, schedule(f, region, acc), acc, live_out[last], units));
      acc.resize(n);  // drop the unrolled copies
      b = last + 1;
    }
    // ptxas schedules for latency only while that costs no occupancy.
    return std::max(in_order_peak, std::min(scheduled_peak, kSchedulingBudget - kReservedRegisters));
  }

  /// ptxas computes loop-invariant arithmetic once before the loop: its
  /// result then stays live through the loop, its operands need not. A loop
  /// is a backward branch's PC range (nvcc lays loops out contiguously); an
  /// instruction in it is invariant when nothing in the loop writes its
  /// operands (or only other invariant instructions do) and it alone writes
  /// its results. Its reads and writes move to the instruction before the loop.
  void hoist_loop_invariants(const Function& f, std::vector<RegAccess>& acc) const {
    const uint32_t n = f.end_pc - f.entry_pc;
    const auto slots = uint32_t(f.reg_units.size());
    const uint32_t preds = f.num_preds;
    for (uint32_t e = 0; e < n; ++e) {
      const Instruction& br = m_.code[f.entry_pc + e];
      if (br.op != Opcode::Bra || br.target < f.entry_pc || br.target - f.entry_pc > e) continue;
      const uint32_t h = br.target - f.entry_pc;
      if (h == 0) continue;  // no instruction before the loop to move to
      // Writes inside the loop per register and predicate, and each
      // register's first read in it.
      std::vector<uint32_t> writes(slots, 0), pred_writes(preds, 0), first_read(slots, kNoPc);
      for (uint32_t k = h; k <= e; ++k) {
        for (uint32_t d : acc[k].defs) ++writes[d];
        for (uint32_t d : acc[k].pred_defs)
          if (d < preds) ++pred_writes[d];
        for (uint32_t u : acc[k].uses) first_read[u] = std::min(first_read[u], k);
      }
      auto pred_written = [&](uint32_t p) { return p < preds && pred_writes[p] != 0; };
      std::vector<uint8_t> moved(e - h + 1, 0);
      for (bool changed = true; changed;) {
        changed = false;
        for (uint32_t k = h; k <= e; ++k) {
          const Instruction& in = m_.code[f.entry_pc + k];
          const RegAccess& a = acc[k];
          if (moved[k - h] || in.guard != kNoReg || motion_of(in) != Motion::Free || in.op == Opcode::Shfl ||
              in.op == Opcode::Vote || in.op == Opcode::Match || in.op == Opcode::Activemask ||
              (a.defs.empty() && a.pred_defs.empty()))
            continue;
          bool invariant = true;
          for (uint32_t u : a.uses) invariant = invariant && writes[u] == 0;
          for (uint32_t u : a.pred_uses) invariant = invariant && !pred_written(u);
          for (uint32_t d : a.defs) invariant = invariant && writes[d] == 1 && first_read[d] >= k;
          for (uint32_t d : a.pred_defs) invariant = invariant && d < preds && pred_writes[d] == 1;
          if (!invariant) continue;
          moved[k - h] = 1;
          changed = true;
          for (uint32_t d : a.defs) --writes[d];
          for (uint32_t d : a.pred_defs) --pred_writes[d];
        }
      }
      RegAccess& pre = acc[h - 1];
      for (uint32_t k = h; k <= e; ++k) {
        if (!moved[k - h]) continue;
        RegAccess& a = acc[k];
        pre.uses.insert(pre.uses.end(), a.uses.begin(), a.uses.end());
        pre.defs.insert(pre.defs.end(), a.defs.begin(), a.defs.end());
        pre.pred_uses.insert(pre.pred_uses.end(), a.pred_uses.begin(), a.pred_uses.end());
        pre.pred_defs.insert(pre.pred_defs.end(), a.pred_defs.begin(), a.pred_defs.end());
        a = RegAccess{};
      }
    }
  }

  /// ptxas unrolls an innermost loop kUnrollFactor times when it can count
  /// its trips before entering it and its body is small: here, a scheduling
  /// region that is the whole loop (one block, or one after if-conversion,
  /// ending in the conditional branch back to its first instruction), not
  /// marked `.pragma "nounroll"` (nvcc marks the remainder loops of its own
  /// unrolling so), of at most kUnrollMaxCost machine instructions, whose
  /// branch tests an induction variable (a register the loop changes only by
  /// adding a constant to it) against a constant or a loop-invariant value.
  /// Loops with an exit in the middle, a variable step (grid-stride loops)
  /// or a bound derived from the counter in the loop are left alone.
  bool unrollable(const Function& f, const std::vector<uint32_t>& region, const std::vector<RegAccess>& acc) const {
    const Instruction& br = m_.code[f.entry_pc + acc[region.back()].origin];
    if (br.op != Opcode::Bra || br.guard == kNoReg || br.target != f.entry_pc + acc[region.front()].origin) return false;
    if (std::find(f.nounroll_pcs.begin(), f.nounroll_pcs.end(), br.target) != f.nounroll_pcs.end()) return false;
    uint32_t cost = 0;
    std::vector<uint32_t> writes;  // registers written, with repeats
    const Instruction* test = nullptr;
    for (uint32_t i : region) {
      const Instruction& in = m_.code[f.entry_pc + acc[i].origin];
      if (in.op == Opcode::Call || in.op == Opcode::Ret || in.op == Opcode::Exit) return false;
      cost += machine_instructions(in);
      writes.insert(writes.end(), acc[i].defs.begin(), acc[i].defs.end());
      if (std::find(acc[i].pred_defs.begin(), acc[i].pred_defs.end(), br.guard) != acc[i].pred_defs.end()) test = &in;
    }
    if (cost > kUnrollMaxCost || !test || test->op != Opcode::Setp || test->guard != kNoReg) return false;
    auto written = [&](uint32_t r) { return uint32_t(std::count(writes.begin(), writes.end(), r)); };
    auto invariant = [&](const Operand& o) {
      return o.kind == OperandKind::Imm || (o.kind == OperandKind::Reg && written(o.reg) == 0);
    };
    auto induction = [&](const Operand& o) {
      if (o.kind != OperandKind::Reg || written(o.reg) != 1) return false;
      for (uint32_t i : region) {
        const Instruction& in = m_.code[f.entry_pc + acc[i].origin];
        if (in.dst.kind != OperandKind::Reg || in.dst.reg != o.reg) continue;
        if (in.guard != kNoReg || (in.op != Opcode::Add && in.op != Opcode::Sub)) return false;
        const Operand &a = in.src[0], &b = in.src[1];
        const bool self_a = a.kind == OperandKind::Reg && a.reg == o.reg;
        const bool self_b = b.kind == OperandKind::Reg && b.reg == o.reg;
        return (self_a && b.kind == OperandKind::Imm) || (in.op == Opcode::Add && self_b && a.kind == OperandKind::Imm);
      }
      return false;
    };
    return (induction(test->src[0]) && invariant(test->src[1])) || (induction(test->src[1]) && invariant(test->src[0]));
  }

  /// The loop `region` unrolled kUnrollFactor times as ptxas's main loop:
  /// the copies in sequence without the intermediate branches (the trip
  /// count is known, the remainder runs elsewhere), each copy's registers
  /// and predicates renamed so that copies depend on one another only
  /// through the values one iteration passes to the next. The last copy
  /// keeps the original names, which are what is live around the loop.
  /// Appends the copies' accesses to `acc`; returns their indices.
  std::vector<uint32_t> unroll(const Function& f, const std::vector<uint32_t>& region,
                               std::vector<RegAccess>& acc) const {
    const auto slots = uint32_t(f.reg_units.size());
    const uint32_t preds = std::max(f.num_preds, 1u);
    std::vector<uint8_t> in_loop(slots, 0), pred_in_loop(preds, 0);
    for (uint32_t i : region) {
      for (uint32_t d : acc[i].defs) in_loop[d] = 1;
      for (uint32_t d : acc[i].pred_defs)
        if (d < preds) pred_in_loop[d] = 1;
    }
    std::vector<uint32_t> out;
    for (uint32_t c = 0; c < kUnrollFactor; ++c) {
      const bool last = c + 1 == kUnrollFactor;
      // Version of a value: c for this copy's, c - 1 for the previous copy's
      // (the original name before the first copy and in the last).
      auto name = [&](uint32_t s, uint32_t n, uint32_t v) { return v + 1 >= kUnrollFactor ? s : s + n * (v + 1); };
      std::vector<uint8_t> here(slots, 0), pred_here(preds, 0);
      auto use = [&](uint32_t s, uint32_t n, const std::vector<uint8_t>& loop, const std::vector<uint8_t>& h) {
        if (s >= loop.size() || !loop[s]) return s;               // loop-invariant
        if (h[s]) return name(s, n, c);                            // defined earlier in this copy
        return c == 0 ? s : name(s, n, c - 1);                     // from the previous iteration
      };
      for (size_t k = 0; k < region.size(); ++k) {
        if (!last && k + 1 == region.size()) break;  // the intermediate back branches go
        RegAccess a = acc[region[k]];
        for (uint32_t& u : a.uses) u = use(u, slots, in_loop, here);
        for (uint32_t& u : a.pred_uses) u = use(u, preds, pred_in_loop, pred_here);
        for (uint32_t& d : a.defs) {
          here[d] = 1;
          d = name(d, slots, c);
        }
        for (uint32_t& d : a.pred_defs) {
          if (d < preds) pred_here[d] = 1;
          d = name(d, preds, c);
        }
        out.push_back(uint32_t(acc.size()));
        acc.push_back(std::move(a));
      }
    }
    return out;
  }

  /// `@p bra L` ending block b jumps over block b + 1 alone, which is short,
  /// falls through to L and holds nothing that cannot be predicated.
  bool if_convertible(const ControlFlowGraph& g, uint32_t b) const {
    const Instruction& bra = m_.code[g.blocks[b].end - 1];
    const BasicBlock& then = g.blocks[b + 1];
    if (bra.op != Opcode::Bra || bra.guard == kNoReg || bra.target != g.blocks[b + 2].begin) return false;
    if (then.end - then.begin > kIfConversionInstructions || then.succs.size() != 1 || then.succs[0] != b + 2)
      return false;
    for (uint32_t pc = then.begin; pc < then.end; ++pc) {
      const Opcode op = m_.code[pc].op;
      if (op == Opcode::Bar || op == Opcode::Call || op == Opcode::Bra || m_.code[pc].guard != kNoReg) return false;
    }
    return true;
  }

  /// Peak live register units over `order` (instruction indices), scanning
  /// back from what is live after it.
  template <class Units>
  uint32_t region_peak(const Function& f, const std::vector<uint32_t>& order, const std::vector<RegAccess>& acc,
                       const SlotSet& live_after, Units units) {
    SlotSet live = live_after;
    live.grow(uint32_t(f.reg_units.size()) * kUnrollFactor);
    uint32_t live_units = 0;
    live.for_each([&](uint32_t s) { live_units += units(s); });
    uint32_t peak = live_units;
    for (size_t k = order.size(); k-- > 0;) {
      const uint32_t i = order[k];
      const RegAccess& a = acc[i];
      const Instruction& in = m_.code[f.entry_pc + a.origin];
      // A result needs a register even when nothing reads it.
      uint32_t after = live_units;
      for (uint32_t s : a.defs)
        if (!live.contains(s)) after += units(s);
      // Built-in (device runtime) and indirect calls have no callee body here.
      if (in.op == Opcode::Call && in.target < m_.calls.size() &&
          m_.calls[in.target].builtin == ptx::BuiltinFunction::None && !m_.calls[in.target].indirect())
        after += estimate(m_.calls[in.target].callee).peak_live;
      for (uint32_t s : a.defs) {
        if (live.contains(s)) {
          live.erase(s);
          live_units -= units(s);
        }
      }
      for (uint32_t s : a.uses) {
        if (!live.contains(s)) {
          live.insert(s);
          live_units += units(s);
        }
      }
      // Operands materialized for this instruction and its expansion's
      // scratch registers exist only while it runs.
      const uint32_t at = std::max(after, live_units) + a.materialized_units + expansion_scratch(in);
      peak = std::max({peak, at, live_units});
    }
    return peak;
  }

  /// The region's instructions (indices from f.entry_pc) in the order a
  /// latency-driven list scheduler issues them, as ptxas's does: each
  /// instruction as early as its register, predicate and memory
  /// dependencies allow (loads early to hide their latency, independent
  /// arithmetic early for parallelism). Their results stay live meanwhile.
  std::vector<uint32_t> schedule(const Function& f, const std::vector<uint32_t>& in_region,
                                 const std::vector<RegAccess>& acc) const {
    const std::vector<uint32_t> region = sink_below_barriers(f, in_region, acc);
    auto is_load = [&](uint32_t i) {
      const Motion mo = motion_of(m_.code[f.entry_pc + acc[i].origin]);
      return mo == Motion::Load || mo == Motion::ReadOnly;
    };
    // What moves: the loads, and the arithmetic that computes their
    // addresses (found backwards from the loads' operands), except
    // arithmetic that reads a value loaded in the region: it waits for that
    // load anyway, and ptxas issues the other loads first (btree_find: all
    // 16 keys of its unrolled search loop before the first comparison).
    std::vector<uint8_t> moves(region.size(), 0);
    std::vector<uint32_t> wanted, wanted_preds;  // registers and predicates the moved instructions read
    std::vector<uint32_t> store_wanted;          // registers store addresses are computed from
    std::vector<uint32_t> loaded_regs;  // registers the region's loads write
    for (uint32_t i : region)
      if (is_load(i)) loaded_regs.insert(loaded_regs.end(), acc[i].defs.begin(), acc[i].defs.end());
    for (size_t k = region.size(); k-- > 0;) {
      const uint32_t i = region[k];
      const Instruction& in = m_.code[f.entry_pc + acc[i].origin];
      // Store and atomic addresses are computed early as well, but not far
      // (marked 2): their arithmetic has a short latency to hide.
      const Operand* addr = in.op == Opcode::St ? &in.dst
                            : (in.op == Opcode::Atom || in.op == Opcode::Red) ? &in.src[0]
                                                                              : nullptr;
      if (addr && addr->kind == OperandKind::Address && addr->reg != kNoReg) store_wanted.push_back(addr->reg);
      const bool load = is_load(i);
      const bool free = !load && motion_of(in) == Motion::Free;
      const bool feeds = free && (intersects(acc[i].defs, wanted) || intersects(acc[i].pred_defs, wanted_preds)) &&
                         !intersects(acc[i].uses, loaded_regs);
      const bool feeds_store = free && !feeds && intersects(acc[i].defs, store_wanted);
      if (feeds_store) {
        moves[k] = 2;
        store_wanted.insert(store_wanted.end(), acc[i].uses.begin(), acc[i].uses.end());
        continue;
      }
      if (!load && !feeds) continue;
      moves[k] = 1;
      wanted.insert(wanted.end(), acc[i].uses.begin(), acc[i].uses.end());
      wanted_preds.insert(wanted_preds.end(), acc[i].pred_uses.begin(), acc[i].pred_uses.end());
    }
    // Shared loads are short-latency: ptxas issues them at most
    // kSharedLoadsAhead ahead of the instruction that consumes an earlier
    // one, interleaving them with their consumers (global loads, whose
    // latency is long, all go first).
    std::vector<uint32_t> order;
    std::vector<int32_t> order_dep;               // per order entry: the latest shared load it reads (-1: none)
    std::unordered_map<uint32_t, int32_t> loaded;  // register -> shared load that wrote it last
    int32_t shared_loads = 0;
    for (size_t k = 0; k < region.size(); ++k) {
      const uint32_t i = region[k];
      const uint32_t pc = f.entry_pc + acc[i].origin;
      const Motion motion = motion_of(m_.code[pc]);
      const bool load = is_load(i);
      const bool shared = load && m_.code[pc].space == StateSpace::Shared;
      int32_t dep = -1;
      for (uint32_t u : acc[i].uses) {
        auto it = loaded.find(u);
        if (it != loaded.end()) dep = std::max(dep, it->second);
      }
      const int32_t seq = shared ? shared_loads++ : -1;
      for (uint32_t d : acc[i].defs) {
        if (shared) loaded[d] = seq; else loaded.erase(d);
      }
      size_t pos = order.size();
      const size_t window = moves[k] == 2 ? kStoreAddressWindow : kSchedulingWindow;
      const size_t earliest = pos > window ? pos - window : 0;
      while (moves[k] && pos > earliest) {
        const uint32_t j = order[pos - 1];
        const RegAccess& a = acc[i];
        const RegAccess& p = acc[j];
        // Loads keep their order, but read-only ones (ld.global.nc) pass
        // one another: nothing can order them.
        const bool both_read_only = m_.code[pc].noncoherent && m_.code[f.entry_pc + acc[j].origin].noncoherent;
        if ((load && is_load(j) && !both_read_only) ||
            !may_pass(motion, m_.code[pc].space, m_.code[f.entry_pc + acc[j].origin]) ||
            intersects(p.defs, a.uses) || intersects(p.defs, a.defs) || intersects(p.uses, a.defs) ||
            intersects(p.pred_defs, a.pred_uses) || intersects(p.pred_defs, a.pred_defs) ||
            intersects(p.pred_uses, a.pred_defs) || (shared && order_dep[pos - 1] >= 0 && seq - order_dep[pos - 1] >= int32_t(kSharedLoadsAhead)))
          break;
        --pos;
      }
      order.insert(order.begin() + std::ptrdiff_t(pos), i);
      order_dep.insert(order_dep.begin() + std::ptrdiff_t(pos), dep);
    }
    return order;
  }

  /// Register-only arithmetic before a barrier that a global load follows
  /// in the region moves below the barrier (what it computes is needed only
  /// later), so that the load issues right after the barrier: ptxas does
  /// this in unrolled loops that stage tiles through shared memory, and it
  /// keeps every shared-memory value of one copy live across the barrier.
  std::vector<uint32_t> sink_below_barriers(const Function& f, const std::vector<uint32_t>& region,
                                            const std::vector<RegAccess>& acc) const {
    auto code = [&](uint32_t i) -> const Instruction& { return m_.code[f.entry_pc + acc[i].origin]; };
    std::vector<uint32_t> out(region);
    size_t from = 0;  // after the previous barrier
    for (size_t b = 0; b < out.size(); ++b) {
      if (code(out[b]).op != Opcode::Bar) continue;
      bool load_follows = false;
      for (size_t k = b + 1; k < out.size() && code(out[k]).op != Opcode::Bar && !load_follows; ++k)
        load_follows = code(out[k]).op == Opcode::Ld && code(out[k]).space == StateSpace::Global;
      if (load_follows) {
        // Backwards: an instruction sinks unless something staying above reads what it writes.
        std::vector<uint32_t> needed, needed_preds, stay, sink;
        for (size_t k = b; k-- > from;) {
          const uint32_t i = out[k];
          const Instruction& in = code(i);
          const bool register_only = motion_of(in) == Motion::Free && in.op != Opcode::Ld && in.op != Opcode::Shfl &&
                                     in.op != Opcode::Vote && in.op != Opcode::Match && in.op != Opcode::Activemask;
          if (register_only && !intersects(acc[i].defs, needed) && !intersects(acc[i].pred_defs, needed_preds)) {
            sink.push_back(i);
            continue;
          }
          stay.push_back(i);
          needed.insert(needed.end(), acc[i].uses.begin(), acc[i].uses.end());
          needed_preds.insert(needed_preds.end(), acc[i].pred_uses.begin(), acc[i].pred_uses.end());
        }
        std::vector<uint32_t> seq(out.begin(), out.begin() + std::ptrdiff_t(from));
        seq.insert(seq.end(), stay.rbegin(), stay.rend());
        seq.push_back(out[b]);
        seq.insert(seq.end(), sink.rbegin(), sink.rend());
        const size_t bar_at = seq.size() - sink.size() - 1;
        seq.insert(seq.end(), out.begin() + std::ptrdiff_t(b) + 1, out.end());
        out.swap(seq);
        b = bar_at;
      }
      from = b + 1;
    }
    return out;
  }

  const Module& m_;
  std::vector<State> state_;
  std::vector<RegisterEstimate> out_;
};

}  // namespace

std::vector<RegisterEstimate> estimate_function_registers(const Module& m) { return Estimator(m).run(); }

std::vector<uint32_t> estimate_registers(const Module& m) {
  std::vector<uint32_t> out;
  for (const RegisterEstimate& e : estimate_function_registers(m)) out.push_back(e.registers);
  return out;
}

}  // namespace tlmgpu::ptx
