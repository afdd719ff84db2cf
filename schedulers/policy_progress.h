// Small pieces shared by the seed 004 / seed 000 policies (lfws, lpi, llos,
// two_level_opt, pro): which waits count as "pending", and which warps have a
// long-latency load in flight. Header-only; nothing here allocates per cycle.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "schedulers/warp_scheduler_policy.h"

namespace tlmgpu::schedulers {

/// No warp to schedule in this slot (or it is done).
inline bool is_absent(WarpWait w) { return w == WarpWait::Finished || w == WarpWait::Unused; }

/// Seed 004 Algorithm 1 (isPending) plus its "instruction buffer is empty":
/// waiting for initialization, for the other warps of its block (barrier),
/// for a memory barrier, for an atomic, or nothing decoded.
inline bool is_lfws_pending(WarpWait w) {
  switch (w) {
    case WarpWait::Initializing:
    case WarpWait::Barrier:
    case WarpWait::Membar:
    case WarpWait::Atomic:
    case WarpWait::EmptyBuffer:
      return true;
    default:
      return false;
  }
}

/// Per slot, the PCs of issued long-latency loads (head class LongMem at
/// issue, not a store-like op) whose CompleteEvent has not arrived yet. The
/// head class comes from the last view seen, since IssueEvent carries none.
class LongLoadTracker {
 public:
  void reserve(size_t slots) { grow(slots); }

  /// Remember each warp's head class; call from order().
  void note_heads(const SchedulerView& view) {
    for (const auto& w : view.warps) {
      grow(w.slot + 1);
      head_class_[w.slot] = w.head_class;
    }
  }
  void issued(const IssueEvent& e) {
    grow(e.slot + 1);
    const bool store_like = e.op == ptx::Opcode::St || e.op == ptx::Opcode::Red || e.op == ptx::Opcode::Prefetch;
    if (head_class_[e.slot] == core::HeadClass::LongMem && !store_like) loads_[e.slot].push_back(e.pc);
  }
  void completed(const CompleteEvent& e) {
    if (e.slot >= loads_.size()) return;
    auto& pcs = loads_[e.slot];
    const auto it = std::find(pcs.begin(), pcs.end(), e.pc);
    if (it != pcs.end()) pcs.erase(it);
  }
  void reset(uint32_t slot) {
    grow(slot + 1);
    loads_[slot].clear();
  }
  bool outstanding(uint32_t slot) const { return slot < loads_.size() && !loads_[slot].empty(); }

 private:
  // Per-slot storage grows only when a higher slot appears.
  void grow(size_t slots) {
    if (slots <= loads_.size()) return;
    loads_.resize(slots);
    head_class_.resize(slots, core::HeadClass::None);
  }

  std::vector<std::vector<uint32_t>> loads_;
  std::vector<core::HeadClass> head_class_;
};

}  // namespace tlmgpu::schedulers
