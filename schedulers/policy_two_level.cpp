// two_level: two-level warp scheduling after Narasiman et al. (MICRO 2011),
// in the active / pending form that seed 004 section 2.1 describes.
//
// - At most `group` warps are active; only they compete for issue, in loose
//   round robin (start after the last one that issued).
// - An active warp that will wait long leaves for the tail of the pending
//   FIFO: it is at a barrier, a membar or an atomic, or it is stalled on the
//   scoreboard while one of its long-latency loads (head class LongMem when
//   it issued; not a store) is still outstanding.
// - Free active places are refilled from the head of the pending FIFO,
//   skipping warps that would leave again at once; new warps join the
//   pending tail. Leaving at the tail and entering from the head makes the
//   rotation round robin across the groups as well.
// See docs/SCHEDULERS.md for how this reads the paper.
#include <algorithm>

#include "schedulers/policy_factories.h"
#include "schedulers/policy_support.h"

namespace tlmgpu::schedulers {

namespace {

constexpr int kAbsent = -1;

class TwoLevel final : public WarpSchedulerPolicy {
 public:
  TwoLevel(uint32_t group, const PolicyContext& context) : group_(group) {
    active_.reserve(context.max_warps_per_scheduler);
    pending_.reserve(context.max_warps_per_scheduler);
  }

  std::string name() const override { return "two_level"; }

  void order(const SchedulerView& view, std::vector<uint32_t>& order) override {
    uint32_t max_slot = 0;
    for (const auto& w : view.warps) max_slot = std::max(max_slot, w.slot);
    grow(max_slot + 1);
    std::fill(view_index_.begin(), view_index_.end(), kAbsent);
    for (size_t i = 0; i < view.warps.size(); ++i) {
      const auto& w = view.warps[i];
      if (w.wait == WarpWait::Unused || w.wait == WarpWait::Finished) continue;
      view_index_[w.slot] = static_cast<int>(i);
      head_class_[w.slot] = w.head_class;
    }

    // Warps gone from the view leave both sets; new ones queue as pending.
    drop_absent(active_, /*is_active=*/true);
    drop_absent(pending_, /*is_active=*/false);
    for (const auto& w : view.warps)
      if (view_index_[w.slot] != kAbsent && !member_[w.slot]) {
        member_[w.slot] = true;
        pending_.push_back(w.slot);
      }

    for (size_t p = 0; p < active_.size();) {
      const uint32_t slot = active_[p];
      if (!waits_long(view.warps[view_index_[slot]])) {
        ++p;
        continue;
      }
      active_.erase(active_.begin() + static_cast<std::ptrdiff_t>(p));
      if (p < rr_next_) --rr_next_;
      pending_.push_back(slot);
      ++demotions_;
    }
    for (size_t p = 0; p < pending_.size() && active_.size() < group_;) {
      const uint32_t slot = pending_[p];
      if (waits_long(view.warps[view_index_[slot]])) {
        ++p;
        continue;
      }
      pending_.erase(pending_.begin() + static_cast<std::ptrdiff_t>(p));
      active_.push_back(slot);
      ++promotions_;
    }

    const auto n = static_cast<uint32_t>(active_.size());
    for (uint32_t k = 0; k < n; ++k)
      order.push_back(static_cast<uint32_t>(view_index_[active_[(rr_next_ + k) % n]]));
  }

  void on_issue(const IssueEvent& e) override {
    grow(e.slot + 1);
    const auto it = std::find(active_.begin(), active_.end(), e.slot);
    if (it != active_.end()) rr_next_ = static_cast<uint32_t>(it - active_.begin()) + 1;
    const bool store_like = e.op == ptx::Opcode::St || e.op == ptx::Opcode::Red || e.op == ptx::Opcode::Prefetch;
    if (head_class_[e.slot] == core::HeadClass::LongMem && !store_like) long_loads_[e.slot].push_back(e.pc);
  }

  void on_complete(const CompleteEvent& e) override {
    if (e.slot >= long_loads_.size()) return;
    auto& loads = long_loads_[e.slot];
    const auto it = std::find(loads.begin(), loads.end(), e.pc);
    if (it != loads.end()) loads.erase(it);
  }

  void on_warp_start(uint32_t slot, uint64_t) override {
    grow(slot + 1);
    long_loads_[slot].clear();
  }
  void on_warp_finish(uint32_t slot, uint64_t) override {
    grow(slot + 1);
    long_loads_[slot].clear();
  }

  void report_stats(core::StatReport& out) const override {
    out.add("two_level_demotions", double(demotions_), core::Unit::Count,
            "warps moved from the active set to the pending set (waiting on a long-latency operation)");
    out.add("two_level_promotions", double(promotions_), core::Unit::Count,
            "warps moved from the pending set back into the active set");
  }

 private:
  bool waits_long(const WarpView& w) const {
    switch (w.wait) {
      case WarpWait::Barrier:
      case WarpWait::Membar:
      case WarpWait::Atomic:
        return true;
      case WarpWait::Scoreboard:
        return !long_loads_[w.slot].empty();
      default:
        return false;
    }
  }

  void drop_absent(std::vector<uint32_t>& set, bool is_active) {
    for (size_t p = 0; p < set.size();) {
      const uint32_t slot = set[p];
      if (view_index_[slot] != kAbsent) {
        ++p;
        continue;
      }
      set.erase(set.begin() + static_cast<std::ptrdiff_t>(p));
      member_[slot] = false;
      if (is_active && p < rr_next_) --rr_next_;
    }
  }

  // Per-slot storage grows only when a higher slot appears.
  void grow(size_t slots) {
    if (slots <= view_index_.size()) return;
    view_index_.resize(slots, kAbsent);
    head_class_.resize(slots, core::HeadClass::None);
    member_.resize(slots, false);
    long_loads_.resize(slots);
  }

  uint32_t group_;
  std::vector<uint32_t> active_;   ///< slots, round-robin order
  std::vector<uint32_t> pending_;  ///< slots, FIFO
  uint32_t rr_next_ = 0;           ///< position in active_ where the next round starts
  std::vector<int> view_index_;    ///< slot -> index in the current view
  std::vector<core::HeadClass> head_class_;
  std::vector<bool> member_;       ///< slot is in active_ or pending_
  std::vector<std::vector<uint32_t>> long_loads_;  ///< slot -> PCs of outstanding long loads
  uint64_t demotions_ = 0;
  uint64_t promotions_ = 0;
};

}  // namespace

std::unique_ptr<WarpSchedulerPolicy> make_two_level_policy(const PolicyParams& params, const PolicyContext& context) {
  const auto group = policy_param_uint("two_level", params, "group", 8, 1, 1024);
  return std::make_unique<TwoLevel>(static_cast<uint32_t>(group), context);
}

}  // namespace tlmgpu::schedulers
