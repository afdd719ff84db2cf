// Time-ordered, process-order-independent queue shared by the memory-side
// modules, and the cycle arithmetic they all use.
#pragma once

#include <algorithm>
#include <cstdint>
#include <queue>
#include <type_traits>
#include <utility>
#include <vector>

#include <systemc>

#include "core/bit_ops.h"
#include "engine/clock_domain.h"

namespace tlmgpu::memory {

/// The core clock as the modules that are not clocked modules of their own
/// see it (the L1 caches, which their SM runs): bound to the GPU top's `clk`.
/// A cache built on its own (unit tests) may leave it unbound.
using ClockPort = sc_core::sc_port<sc_core::sc_signal_in_if<bool>, 1, sc_core::SC_ZERO_OR_MORE_BOUND>;

/// The order in which a clock domain runs the memory modules of a cycle
/// (engine::ClockedModule::stage): the crossbar, the L2 slices, the DRAM
/// channels, the SoC port. Every hand-off between them is registered (at
/// least one cycle of delay), so the order changes no result; fixing it makes
/// the host's work the same at every run.
constexpr uint32_t kCrossbarStage = 0, kL2Stage = 1, kDramStage = 2, kSocPortStage = 3;
/// The first stage after the memory modules'.
constexpr uint32_t kAfterMemoryStages = 4;

/// Current cycle of a module clocked with `period` (time 0 is cycle 0).
inline uint64_t current_cycle(const sc_core::sc_time& period) {
  return sc_core::sc_time_stamp().value() / period.value();
}

/// `n` cycles as a TLM delay annotation (exact, no floating point).
inline sc_core::sc_time cycles_delay(uint64_t n, const sc_core::sc_time& period) {
  return sc_core::sc_time::from_value(period.value() * n);
}

/// The pop order shared by TimedQueue and ArrivalQueue: (ready cycle,
/// source, key, insertion order) as two 128-bit numbers, so sifting compares
/// two wide integers instead of branching field by field.
namespace arrival_order {
using Order = unsigned __int128;
inline Order order(uint64_t high, uint64_t low) { return (Order(high) << 64) | low; }
template <class Item>
struct Entry {
  Order when;  ///< ready cycle above source
  Order tie;   ///< key above insertion order
  Item item;
  uint64_t ready() const { return uint64_t(when >> 64); }
};
struct Later {
  template <class E>
  bool operator()(const E& a, const E& b) const {
    return a.when > b.when || (a.when == b.when && a.tie > b.tie);
  }
};
}  // namespace arrival_order

/// Items that become visible at a cycle, popped in (ready cycle, source, key,
/// insertion order) order. Senders always annotate at least
/// one cycle, so everything ready at cycle c was pushed before c and the pop
/// order never depends on which SystemC process ran first.
template <class T>
class TimedQueue {
 public:
  /// `key` orders items of one source and cycle that may be pushed from
  /// different processes (insertion order only breaks remaining ties).
  void push(uint64_t ready, uint32_t source, T item, uint64_t key = 0) {
    if constexpr (kInline) {
      heap_.push(Entry{arrival_order::order(ready, source), arrival_order::order(key, seq_++), std::move(item)});
    } else {
      uint32_t slot;
      if (free_.empty()) {
        slot = uint32_t(slab_.size());
        slab_.push_back(std::move(item));
      } else {
        slot = free_.back();
        free_.pop_back();
        slab_[slot] = std::move(item);
      }
      heap_.push(Entry{arrival_order::order(ready, source), arrival_order::order(key, seq_++), slot});
    }
  }
  bool empty() const { return heap_.empty(); }
  size_t size() const { return heap_.size(); }
  bool ready(uint64_t cycle) const { return !heap_.empty() && next_ready() <= cycle; }
  uint64_t next_ready() const { return heap_.top().ready(); }
  uint32_t next_source() const { return uint32_t(heap_.top().when); }
  const T& top() const {
    if constexpr (kInline)
      return heap_.top().item;
    else
      return slab_[heap_.top().item];
  }
  /// Removes the first item; `ready` receives its cycle.
  T pop(uint64_t* ready = nullptr) {
    if (ready) *ready = next_ready();
    if constexpr (kInline) {
      T item = std::move(const_cast<Entry&>(heap_.top()).item);
      heap_.pop();
      return item;
    } else {
      const uint32_t slot = heap_.top().item;
      heap_.pop();
      free_.push_back(slot);
      return std::move(slab_[slot]);
    }
  }

 private:
  // Items larger than a pointer wait in a slab and the heap moves only their
  // slot number: sifting moves whole entries.
  static constexpr bool kInline = sizeof(T) <= sizeof(uint64_t);
  using Entry = arrival_order::Entry<std::conditional_t<kInline, T, uint32_t>>;  ///< the item, or its slot in slab_
  std::priority_queue<Entry, std::vector<Entry>, arrival_order::Later> heap_;
  std::vector<T> slab_;
  std::vector<uint32_t> free_;
  uint64_t seq_ = 0;
};

/// TimedQueue's order (ready cycle, source, key, insertion order) for small
/// items that mostly arrive in that order already (most senders annotate the
/// same delay): those wait in a FIFO and only the others in a heap; a pop
/// takes the earlier of the two fronts. Pops exactly what TimedQueue would,
/// without sifting a heap for the in-order majority.
template <class T>
class ArrivalQueue {
 public:
  void push(uint64_t ready, uint32_t source, T item, uint64_t key = 0) {
    Entry e{arrival_order::order(ready, source), arrival_order::order(key, seq_++), std::move(item)};
    if (fifo_size_ == 0 || arrival_order::Later{}(e, back_)) {
      if (fifo_size_ == fifo_.size()) grow();
      back_ = e;
      fifo_[(fifo_head_ + fifo_size_) & fifo_mask_] = std::move(e);
      ++fifo_size_;
    } else {
      heap_.push(std::move(e));
    }
    // The cycle is the first key of the order: the first item's is the least.
    head_ready_ = std::min(head_ready_, ready);
  }
  bool empty() const { return fifo_size_ == 0 && heap_.empty(); }
  size_t size() const { return fifo_size_ + heap_.size(); }
  bool ready(uint64_t cycle) const { return head_ready_ <= cycle && head_ready_ != kEmpty; }
  /// The first item's cycle; UINT64_MAX when empty.
  uint64_t next_ready() const { return head_ready_; }
  const T& top() const { return front().item; }
  /// Removes the first item; `ready` receives its cycle.
  T pop(uint64_t* ready = nullptr) {
    if (ready) *ready = head_ready_;
    T item = from_fifo() ? take_fifo_front() : take_heap_top();
    head_ready_ = empty() ? kEmpty : front().ready();
    return item;
  }

 private:
  using Entry = arrival_order::Entry<T>;
  static constexpr uint64_t kEmpty = ~uint64_t(0);
  T take_fifo_front() {
    T item = std::move(fifo_[fifo_head_].item);
    fifo_head_ = (fifo_head_ + 1) & fifo_mask_;
    --fifo_size_;
    return item;
  }
  T take_heap_top() {
    T item = std::move(const_cast<Entry&>(heap_.top()).item);
    heap_.pop();
    return item;
  }
  /// The first item is the FIFO's front (call only when not empty).
  bool from_fifo() const {
    if (heap_.empty()) return true;
    return fifo_size_ != 0 && arrival_order::Later{}(heap_.top(), fifo_[fifo_head_]);
  }
  const Entry& front() const { return from_fifo() ? fifo_[fifo_head_] : heap_.top(); }
  void grow() {
    std::vector<Entry> bigger(std::max<size_t>(16, fifo_.size() * 2));
    for (size_t i = 0; i < fifo_size_; ++i) bigger[i] = std::move(fifo_[(fifo_head_ + i) & fifo_mask_]);
    fifo_ = std::move(bigger);
    fifo_head_ = 0;
    fifo_mask_ = fifo_.size() - 1;
  }

  std::vector<Entry> fifo_;  ///< ring buffer (power-of-two size) in pop order
  Entry back_{};             ///< the FIFO's last entry (valid while not empty)
  size_t fifo_head_ = 0, fifo_size_ = 0, fifo_mask_ = 0;
  std::priority_queue<Entry, std::vector<Entry>, arrival_order::Later> heap_;  ///< the items that came out of order
  /// The first item's cycle (kEmpty: none), kept so that the checks made at
  /// every wake-up (ready, next_ready) read one field.
  uint64_t head_ready_ = kEmpty;
  uint64_t seq_ = 0;
};

/// Wakes `event` at `cycle` (no earlier than the next delta when it is now or past).
inline void notify_at_cycle(sc_core::sc_event& event, uint64_t cycle, const sc_core::sc_time& period) {
  const uint64_t now = current_cycle(period);
  if (cycle <= now)
    event.notify(sc_core::SC_ZERO_TIME);
  else
    event.notify(sc_core::sc_time::from_value(period.value() * (cycle - now)));
}

}  // namespace tlmgpu::memory
