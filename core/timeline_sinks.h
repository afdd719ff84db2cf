// Where the timeline recorder (platform/timeline_recorder.h) listens to the
// cycle-level model. The modules hold a null pointer unless a timeline is
// recorded, so without one the only cost is a pointer test where they
// already count.
#pragma once

#include <cstdint>

namespace tlmgpu::core {

/// One warp scheduler's issue slots, in the order the scheduler accounts
/// them: each call covers the `cycles` cycles after the previous call's
/// (the SM accounts the cycles it slept through when it wakes).
class IssueSlotSink {
 public:
  virtual ~IssueSlotSink() = default;
  /// `stall_class` is schedulers::StallClass as an integer (0..3).
  virtual void slots(uint8_t stall_class, uint64_t cycles) = 0;
};

/// One DRAM channel's request queue depth, reported each time the channel
/// runs and before each change: `requests` were queued from `core_cycle` on
/// (never decreasing).
class QueueDepthSink {
 public:
  virtual ~QueueDepthSink() = default;
  virtual void depth(uint64_t core_cycle, uint32_t requests) = 0;
};

}  // namespace tlmgpu::core
