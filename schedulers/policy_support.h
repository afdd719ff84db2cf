// Building blocks shared by the baseline policies. view.warps is in ascending
// slot order (the SM builds it that way); every helper is O(warps) per call
// and reuses its storage, so policies allocate nothing per cycle.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "schedulers/warp_scheduler_policy.h"

namespace tlmgpu::schedulers {

/// Index in view.warps of the warp in `slot`, or -1.
int index_of_slot(const SchedulerView& view, uint32_t slot);

/// Index of the first warp whose slot is greater than `slot`, wrapping to 0.
uint32_t first_index_after_slot(const SchedulerView& view, uint32_t slot);

/// Calls visit(index) for each entry of a described order (OrderSpec) over
/// `warps` warps, in order, until visit returns true.
template <typename Visit>
void walk_order(const OrderSpec& spec, uint32_t warps, Visit&& visit) {
  if (spec.greedy >= 0 && visit(static_cast<uint32_t>(spec.greedy))) return;
  const uint32_t* ranking = spec.ranking ? spec.ranking->data() : nullptr;
  const auto m = spec.ranking ? static_cast<uint32_t>(spec.ranking->size()) : warps;
  if (m == 0) return;
  uint32_t pos = spec.start % m;
  for (uint32_t k = 0; k < m; ++k) {
    const uint32_t at = spec.reversed ? m - 1 - pos : pos;
    const uint32_t i = ranking ? ranking[at] : at;
    if (static_cast<int>(i) != spec.greedy && visit(i)) return;
    if (++pos == m) pos = 0;
  }
}
/// Lists a described order: what order() returns for policies that describe theirs.
void append_order(const OrderSpec& spec, uint32_t warps, std::vector<uint32_t>& order);
/// Appends 0..n-1 to `order`, starting at `start` and wrapping around.
void append_circular(uint32_t n, uint32_t start, std::vector<uint32_t>& order);

/// The warp a greedy policy sticks to: the one that issued last. Forgotten
/// when that warp finishes, so a new warp reusing the slot starts fresh.
class LastIssuedWarp {
 public:
  void issued(uint32_t slot) {
    slot_ = slot;
    valid_ = true;
  }
  void finished(uint32_t slot) {
    if (valid_ && slot == slot_) valid_ = false;
  }
  bool valid() const { return valid_; }
  uint32_t slot() const { return slot_; }

 private:
  uint32_t slot_ = 0;
  bool valid_ = false;
};

/// View indices sorted by (age, slot), oldest first. Ages change only when
/// warps start or finish, so the sort is redone only when the (slot, age)
/// sequence of the view differs from the last one: O(warps) per cycle.
class AgeRanking {
 public:
  const std::vector<uint32_t>& oldest_first(const SchedulerView& view);

 private:
  std::vector<uint64_t> key_slots_;
  std::vector<uint64_t> key_ages_;
  std::vector<uint32_t> sorted_;
};

/// gto and gty: the last issued warp while it can issue, then by age —
/// oldest first, or youngest first when `youngest_first` (gto's mirror).
class GreedyThenByAge final : public WarpSchedulerPolicy {
 public:
  GreedyThenByAge(std::string name, bool youngest_first) : name_(std::move(name)), youngest_first_(youngest_first) {}
  std::string name() const override { return name_; }
  void order(const SchedulerView& view, std::vector<uint32_t>& order) override {
    OrderSpec spec;
    describe_order(view, spec);
    append_order(spec, static_cast<uint32_t>(view.warps.size()), order);
  }
  bool describe_order(const SchedulerView& view, OrderSpec& spec) override {
    spec.greedy = last_.valid() ? index_of_slot(view, last_.slot()) : -1;
    spec.ranking = &ages_.oldest_first(view);
    spec.reversed = youngest_first_;
    return true;
  }
  void on_issue(const IssueEvent& e) override { last_.issued(e.slot); }
  // Completions do not move this policy's order; asking for it changes nothing.
  bool order_follows_completions() const override { return false; }
  bool order_is_pure() const override { return true; }
  void on_warp_finish(uint32_t slot, uint64_t) override { last_.finished(slot); }

 private:
  std::string name_;
  bool youngest_first_;
  LastIssuedWarp last_;
  AgeRanking ages_;
};

}  // namespace tlmgpu::schedulers
