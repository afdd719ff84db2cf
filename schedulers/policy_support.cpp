#include "schedulers/policy_support.h"

#include <algorithm>

namespace tlmgpu::schedulers {

int index_of_slot(const SchedulerView& view, uint32_t slot) {
  if (view.slot_order_members != 0 && slot < 64)
    return view.slot_order_members >> slot & 1 ? int(view.slot_index[slot]) : -1;
  for (size_t i = 0; i < view.warps.size(); ++i)
    if (view.warps[i].slot == slot) return static_cast<int>(i);
  return -1;
}

uint32_t first_index_after_slot(const SchedulerView& view, uint32_t slot) {
  if (view.slot_order_members != 0) {
    // Warps in slot order: the first member above `slot`, else the first warp.
    const uint64_t above = slot >= 63 ? 0 : view.slot_order_members & (~uint64_t(0) << (slot + 1));
    return above ? view.slot_index[__builtin_ctzll(above)] : 0;
  }
  for (size_t i = 0; i < view.warps.size(); ++i)
    if (view.warps[i].slot > slot) return static_cast<uint32_t>(i);
  return 0;
}

void append_order(const OrderSpec& spec, uint32_t warps, std::vector<uint32_t>& order) {
  walk_order(spec, warps, [&](uint32_t i) {
    order.push_back(i);
    return false;
  });
}

void append_circular(uint32_t n, uint32_t start, std::vector<uint32_t>& order) {
  if (n == 0) return;
  start %= n;
  for (uint32_t i = start; i < n; ++i) order.push_back(i);
  for (uint32_t i = 0; i < start; ++i) order.push_back(i);
}

const std::vector<uint32_t>& AgeRanking::oldest_first(const SchedulerView& view) {
  const size_t n = view.warps.size();
  bool same = key_slots_.size() == n;
  for (size_t i = 0; same && i < n; ++i)
    same = key_slots_[i] == view.warps[i].slot && key_ages_[i] == view.warps[i].age;
  if (same) return sorted_;
  key_slots_.resize(n);
  key_ages_.resize(n);
  sorted_.resize(n);
  for (size_t i = 0; i < n; ++i) {
    key_slots_[i] = view.warps[i].slot;
    key_ages_[i] = view.warps[i].age;
    sorted_[i] = static_cast<uint32_t>(i);
  }
  // Ties on age (warps dispatched together) go to the lower slot.
  std::sort(sorted_.begin(), sorted_.end(), [&](uint32_t a, uint32_t b) {
    const auto& wa = view.warps[a];
    const auto& wb = view.warps[b];
    return wa.age != wb.age ? wa.age < wb.age : wa.slot < wb.slot;
  });
  return sorted_;
}


}  // namespace tlmgpu::schedulers
