// Time-ordered, process-order-independent queue shared by the memory-side
// modules, and the cycle arithmetic they all use.
#pragma once

#include <cstdint>
#include <queue>
#include <utility>
#include <vector>

#include <systemc>

namespace tlmgpu::memory {

/// Current cycle of a module clocked with `period` (time 0 is cycle 0).
inline uint64_t current_cycle(const sc_core::sc_time& period) {
  return sc_core::sc_time_stamp().value() / period.value();
}

/// `n` cycles as a TLM delay annotation (exact, no floating point).
inline sc_core::sc_time cycles_delay(uint64_t n, const sc_core::sc_time& period) {
  return sc_core::sc_time::from_value(period.value() * n);
}

/// Whole cycles in a TLM delay annotation.
inline uint64_t delay_cycles(const sc_core::sc_time& delay, const sc_core::sc_time& period) {
  return delay.value() / period.value();
}

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
    heap_.push(Entry{ready, source, key, seq_++, std::move(item)});
  }
  bool empty() const { return heap_.empty(); }
  size_t size() const { return heap_.size(); }
  bool ready(uint64_t cycle) const { return !heap_.empty() && heap_.top().ready <= cycle; }
  uint64_t next_ready() const { return heap_.top().ready; }
  uint32_t next_source() const { return heap_.top().source; }
  const T& top() const { return heap_.top().item; }
  /// Removes the first item; `ready` receives its cycle.
  T pop(uint64_t* ready = nullptr) {
    if (ready) *ready = heap_.top().ready;
    T item = std::move(const_cast<Entry&>(heap_.top()).item);
    heap_.pop();
    return item;
  }

 private:
  struct Entry {
    uint64_t ready;
    uint32_t source;
    uint64_t key;
    uint64_t seq;
    T item;
  };
  struct Later {
    bool operator()(const Entry& a, const Entry& b) const {
      if (a.ready != b.ready) return a.ready > b.ready;
      if (a.source != b.source) return a.source > b.source;
      if (a.key != b.key) return a.key > b.key;
      return a.seq > b.seq;
    }
  };
  std::priority_queue<Entry, std::vector<Entry>, Later> heap_;
  uint64_t seq_ = 0;
};

/// One module's wake-up: an event notified for the earliest cycle asked for,
/// skipping requests for a cycle at or after the one already scheduled, and
/// cached delay values (building an sc_time costs a library call).
class CycleWaker {
 public:
  explicit CycleWaker(const sc_core::sc_time& period) : period_(period) {
    for (uint64_t n = 0; n < kCached; ++n) delays_[n] = sc_core::sc_time::from_value(period.value() * n);
  }
  sc_core::sc_event& event() { return event_; }
  /// Call first thing in the process the event triggers.
  void fired() { scheduled_ = kNever; }
  void wake_at(uint64_t cycle, uint64_t now) {
    if (cycle <= now) cycle = now + 1;
    if (cycle >= scheduled_) return;
    scheduled_ = cycle;
    event_.notify(delay(cycle - now));
  }
  sc_core::sc_time delay(uint64_t cycles) const {
    return cycles < kCached ? delays_[cycles] : sc_core::sc_time::from_value(period_.value() * cycles);
  }
  uint64_t now() const { return current_cycle(period_); }

 private:
  static constexpr uint64_t kCached = 256;
  static constexpr uint64_t kNever = ~uint64_t(0);
  sc_core::sc_time period_;
  sc_core::sc_time delays_[kCached];
  sc_core::sc_event event_;
  uint64_t scheduled_ = kNever;
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
