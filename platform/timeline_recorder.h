// A timeline of a timing-mode run in the Chrome trace event format (the JSON
// that ui.perfetto.dev and chrome://tracing open): launch spans, CTA spans
// per SM, each warp scheduler's issue slots by class and each DRAM channel's
// queue depth, sampled every `interval` cycles. One core cycle is one
// microsecond of trace time (docs/EXPERIMENTS.md, "Timelines").
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "core/timeline_sinks.h"
#include "model/exec/kernel_context.h"
#include "platform/gpu_top.h"

namespace tlmgpu::platform {

class TimelineRecorder : public LaunchObserver {
 public:
  /// Samples every `interval_cycles` (> 0) cycles of each launch, from its first cycle.
  explicit TimelineRecorder(uint64_t interval_cycles);
  ~TimelineRecorder() override;
  TimelineRecorder(const TimelineRecorder&) = delete;
  TimelineRecorder& operator=(const TimelineRecorder&) = delete;

  /// Listens to `top`'s launches, warp schedulers and DRAM channels from
  /// now on; `top` must outlive the recorder or be detached first.
  void attach(GpuTop& top);
  void detach();

  void launch_started(const std::string& kernel, const exec::Dim3& grid, uint32_t threads_per_cta,
                      uint64_t start_cycle) override;
  void launch_finished(const TimingLaunchRecord& record) override;

  /// The completed launches as a trace (a launch that faulted is left out).
  void write(std::ostream& out) const;
  /// write() to `path`; throws std::runtime_error when it cannot be written.
  void write_file(const std::string& path) const;

  uint64_t interval() const { return interval_; }

 private:
  /// Issue slots per class (schedulers::StallClass order) in one interval.
  using SlotCounts = std::array<uint64_t, 4>;
  struct DepthSample {
    uint32_t at_start = 0;  ///< queued at the interval's first cycle
    uint32_t max = 0;       ///< the most queued during it
  };

  /// One scheduler's slots of the running launch, binned by interval.
  class SchedulerTrack : public core::IssueSlotSink {
   public:
    SchedulerTrack(const TimelineRecorder& owner, uint32_t sm_index, uint32_t scheduler_index)
        : owner_(owner), sm(sm_index), scheduler(scheduler_index) {}
    void slots(uint8_t stall_class, uint64_t cycles) override;
    void begin(uint64_t start_cycle);

    const TimelineRecorder& owner_;
    const uint32_t sm, scheduler;
    uint64_t cursor = 0;  ///< the next cycle the scheduler accounts
    std::vector<SlotCounts> bins;
  };

  /// One DRAM channel's depth reports of the running launch, binned by interval.
  class ChannelTrack : public core::QueueDepthSink {
   public:
    explicit ChannelTrack(const TimelineRecorder& owner) : owner_(owner) {}
    void depth(uint64_t core_cycle, uint32_t requests) override;
    /// Bins up to `bin` exist (a new one starts at the current depth).
    void fill_to(size_t bin);

    const TimelineRecorder& owner_;
    uint32_t current = 0;
    std::vector<DepthSample> bins;
  };

  /// A completed launch with its samples.
  struct Launch {
    std::string kernel;
    exec::Dim3 grid;
    uint32_t threads_per_cta = 0;
    TimingLaunchRecord record;
    std::vector<std::vector<SlotCounts>> scheduler_bins;  ///< per SchedulerTrack, by interval
    std::vector<std::vector<DepthSample>> channel_bins;   ///< per DRAM channel, by interval
  };

  uint64_t interval_;
  GpuTop* top_ = nullptr;
  double core_clock_mhz_ = 0;
  std::string preset_, scheduler_policy_;
  uint32_t num_sms_ = 0, schedulers_per_sm_ = 0;
  std::vector<std::unique_ptr<SchedulerTrack>> schedulers_;  ///< SM-major
  std::vector<std::unique_ptr<ChannelTrack>> channels_;
  // The running launch (between launch_started and launch_finished).
  bool running_ = false;
  uint64_t start_cycle_ = 0;
  std::string kernel_;
  exec::Dim3 grid_;
  uint32_t threads_per_cta_ = 0;
  std::vector<Launch> launches_;
};

}  // namespace tlmgpu::platform
