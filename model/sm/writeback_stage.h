// The SM's writeback stage: instructions complete at the cycle their
// pipeline, the LD/ST unit or the memory system gives (complete_at), and are
// written back in (cycle, completion order): the warp's scoreboard releases
// their destinations and its in-flight counts drop. The warps written back
// in a cycle are the only ones retirement looks at (written_back).
#pragma once

#include <cstdint>
#include <vector>

#include "memory/timed_queue.h"
#include "model/sm/instruction_timing.h"
#include "model/sm/warp_slot.h"

namespace tlmgpu::sm {

class WritebackStage {
 public:
  struct Completion {
    uint32_t slot = 0;
    uint32_t pc = 0;
    bool memory = false;  // counted in the warp's mem_in_flight
  };

  /// A new device: nothing in flight.
  void reset() { completions_ = {}; }
  /// Warp `slot`'s instruction at `pc` completes at `cycle`.
  void complete_at(uint64_t cycle, uint32_t slot, uint32_t pc, bool memory) {
    completions_.push(cycle, 0, {slot, pc, memory});
  }
  /// The first completion's cycle (UINT64_MAX: none).
  uint64_t next_ready() const { return completions_.next_ready(); }

  /// Writes back every instruction due by `now` into `warps`, calling
  /// `written_back(completion, timing)` after each. Returns whether any was.
  template <class WrittenBack>
  bool writeback(uint64_t now, std::vector<WarpSlot>& warps, const std::vector<InstructionTiming>& timing,
                 WrittenBack&& written_back) {
    bool any = false;
    while (completions_.ready(now)) {
      const Completion c = completions_.pop();
      any = true;
      const InstructionTiming& t = timing[c.pc];
      written_back_ |= uint64_t(1) << c.slot;
      WarpSlot& w = warps[c.slot];
      w.scoreboard.release(t);
      --w.in_flight;
      if (c.memory) --w.mem_in_flight;
      written_back(c, t);
    }
    return any;
  }
  /// The slots written back since the last call (bit per slot).
  uint64_t take_written_back() {
    const uint64_t m = written_back_;
    written_back_ = 0;
    return m;
  }

 private:
  // By (cycle, push order): mostly pushed in that order already, which the queue exploits.
  memory::ArrivalQueue<Completion> completions_;
  uint64_t written_back_ = 0;
};

}  // namespace tlmgpu::sm
