// The execution pipelines of an SM's schedulers (SP, SFU, DP, integer
// divide, FP divide / square root, LD/ST, ...): per scheduler and pipe, the
// cycle from which it accepts its next instruction (its initiation interval
// after the last). Trace instructions, which bypass the operand collectors,
// occupy a pipe for the interval their trace gives; the issue stage is woken
// when such a pipe accepts again.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <queue>
#include <vector>

#include "model/sm/instruction_timing.h"

namespace tlmgpu::sm {

/// Warp schedulers per SM the model provides (the per-scheduler state of the
/// stages sits in fixed arrays of this size inside the SM).
constexpr uint32_t kMaxSchedulersPerSm = 8;

class ExecutionPipes {
 public:
  static constexpr uint64_t kNever = ~uint64_t(0);
  static constexpr size_t kPipes = 9;  // Pipe's values

  /// Every pipe accepts at once, and no trace instruction occupies one.
  void reset() {
    for (auto& p : free_at_) p.fill(0);
    fixed_free_at_ = {};
  }
  bool accepts(uint32_t scheduler, Pipe pipe, uint64_t now) const { return free_at_[scheduler][size_t(pipe)] <= now; }
  /// The first cycle scheduler's `pipe` accepts an instruction; the
  /// dispatching stage moves it on (the LD/ST unit by a shared access's
  /// bank-conflict cycles).
  uint64_t& free_at(uint32_t scheduler, Pipe pipe) { return free_at_[scheduler][size_t(pipe)]; }
  /// A trace instruction enters `pipe` at `now`: the pipe takes the next
  /// one `interval` cycles later, and the issue stage is woken then.
  void occupy_fixed(uint32_t scheduler, Pipe pipe, uint64_t now, uint64_t interval) {
    free_at_[scheduler][size_t(pipe)] = now + interval;
    fixed_free_at_.push(now + interval);
  }
  /// Whether a pipe a trace instruction occupied accepts again by `now`
  /// (each such cycle is reported once).
  bool take_freed(uint64_t now) {
    if (fixed_free_at_.empty() || fixed_free_at_.top() > now) return false;
    while (!fixed_free_at_.empty() && fixed_free_at_.top() <= now) fixed_free_at_.pop();
    return true;
  }
  /// The next cycle take_freed reports (kNever: none).
  uint64_t next_freed() const { return fixed_free_at_.empty() ? kNever : fixed_free_at_.top(); }

 private:
  std::array<std::array<uint64_t, kPipes>, kMaxSchedulersPerSm> free_at_{};
  std::priority_queue<uint64_t, std::vector<uint64_t>, std::greater<uint64_t>> fixed_free_at_;
};

}  // namespace tlmgpu::sm
