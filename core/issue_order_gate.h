// The order in which SMs evaluated on several host threads touch the
// functional state they share (global memory, the device heap, printf).
//
// Instructions execute functionally when they issue, so an SM's stores and
// atomics are seen by the SMs evaluated after it in the same cycle (a spin
// lock taken by SM 2 is seen taken by SM 5 at once). One thread evaluates
// the SMs in index order; several threads must give the same values. The
// gate does that: an SM's first access to shared functional state in a cycle
// waits until every SM before it in this cycle's order has finished its
// issue stage. The SMs' other work (responses, writeback, operand
// collectors, the L1s, fetch) runs side by side, and an SM that touches no
// shared state in a cycle never waits.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>

#include "core/host_wait.h"

namespace tlmgpu::core {

class IssueOrderGate {
 public:
  /// A new cycle's round of `tasks` SMs (in the order they run serially).
  void begin_round(uint32_t tasks) {
    if (tasks > capacity_) {
      flags_ = std::make_unique<Flag[]>(tasks);
      capacity_ = tasks;
    }
    ++stamp_;
  }
  /// Task `task` has finished its issue stage in this round.
  void publish(uint32_t task) { flags_[task].done.store(stamp_, std::memory_order_release); }
  /// Waits until every task below `task` has published in this round.
  void wait_for_lower(uint32_t task) const {
    // A short spin: the SM before is usually well into its issue stage.
    uint32_t spins = 0;
    for (uint32_t t = task; t-- > 0;)
      while (flags_[t].done.load(std::memory_order_acquire) != stamp_) wait_step(spins, 256);
  }

 private:
  // One cache line per flag: each is written by its own thread.
  struct alignas(64) Flag {
    std::atomic<uint64_t> done{0};
  };
  std::unique_ptr<Flag[]> flags_;
  uint32_t capacity_ = 0;
  uint64_t stamp_ = 0;
};

/// The gate ticket of the SM the calling host thread evaluates (nullptr when
/// SMs are evaluated one after another: the order is then the program's).
struct IssueOrderTicket {
  IssueOrderGate* gate = nullptr;
  uint32_t task = 0;
  bool passed = false;
  bool published = false;
  bool profile = false;  ///< count the host time-stamp ticks spent waiting
  uint64_t waited = 0;
};

inline thread_local IssueOrderTicket* current_issue_order_ticket = nullptr;

/// Called before any access to functional state SMs share: returns at once
/// on one thread or once this SM's turn has come.
inline void await_issue_order() {
  IssueOrderTicket* ticket = current_issue_order_ticket;
  if (ticket == nullptr || ticket->passed) return;
  const uint64_t t0 = ticket->profile ? host_time_stamp() : 0;
  ticket->gate->wait_for_lower(ticket->task);
  if (ticket->profile) ticket->waited += host_time_stamp() - t0;
  ticket->passed = true;
}

/// The calling SM is done with shared functional state for this cycle.
inline void publish_issue_order() {
  IssueOrderTicket* ticket = current_issue_order_ticket;
  if (ticket == nullptr || ticket->published) return;
  ticket->gate->publish(ticket->task);
  ticket->published = true;
}

}  // namespace tlmgpu::core
