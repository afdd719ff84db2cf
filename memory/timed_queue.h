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

/// Items that become visible at a cycle, popped in (ready cycle, source,
/// insertion order within the source) order. Senders always annotate at least
/// one cycle, so everything ready at cycle c was pushed before c and the pop
/// order never depends on which SystemC process ran first.
template <class T>
class TimedQueue {
 public:
  void push(uint64_t ready, uint32_t source, T item) {
    heap_.push(Entry{ready, source, seq_++, std::move(item)});
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
    uint64_t seq;
    T item;
  };
  struct Later {
    bool operator()(const Entry& a, const Entry& b) const {
      if (a.ready != b.ready) return a.ready > b.ready;
      if (a.source != b.source) return a.source > b.source;
      return a.seq > b.seq;
    }
  };
  std::priority_queue<Entry, std::vector<Entry>, Later> heap_;
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
