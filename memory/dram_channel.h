// One DRAM channel: banks with open-row buffers, an FR-FCFS request queue,
// and one shared data bus.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_target_socket.h>

#include "memory/memory_interfaces.h"
#include "memory/timed_queue.h"
#include "model/stats/stats_provider.h"
#include "platform/gpu_config.h"

namespace tlmgpu::memory {

/// Requests arrive on `port(i)` (one per L2 slice sharing the channel) as
/// BEGIN_REQ with a channel-local address; they are accepted at once and the
/// answer is a BEGIN_RESP on the same port, annotated with the cycle the last
/// data beat leaves the bus. Timing is in core cycles (docs/MEMORY.md).
class DramChannel : public sc_core::sc_module, public stats::StatsProvider {
 public:
  using TargetSocket = tlm_utils::simple_target_socket_tagged<DramChannel>;

  DramChannel(sc_core::sc_module_name name, const platform::DramConfig& config, const sc_core::sc_time& clock_period,
              uint32_t ports = 1);
  ~DramChannel() override;

  TargetSocket& port(uint32_t index) { return *ports_[index]; }
  uint32_t ports() const { return uint32_t(ports_.size()); }

  /// Where a channel-local address lives: column = addr mod row_bytes,
  /// bank = (addr / row_bytes) mod banks, row = addr / (row_bytes * banks).
  struct Location {
    uint32_t bank = 0;
    uint64_t row = 0;
    uint32_t column = 0;
  };
  Location locate(uint64_t addr) const;

  /// Requests not yet scheduled (the FR-FCFS queue and those waiting for room in it).
  uint32_t pending() const { return window_size_ + overflow_size_; }
  /// VCD: the scheduler queue depth, updated when the channel runs.
  void trace(sc_core::sc_trace_file* tf) { sc_core::sc_trace(tf, traced_depth_, std::string(name()) + ".queue_depth"); }

  void report_stats(stats::StatMap& out) const override;
  /// Closes every row (precharge all), for a new device context. Call only
  /// when nothing is queued.
  void close_all_rows() {
    for (Bank& b : banks_) b.open = false;
  }
  /// Lets `calendar`'s driver run the channel instead of its own event.
  void drive_from(CycleCalendar& calendar) {
    calendar.add(waker_, this, [](void* m) { static_cast<DramChannel*>(m)->channel_process(); });
  }

 private:
  SC_HAS_PROCESS(DramChannel);

  static constexpr uint32_t kNone = ~uint32_t(0);
  /// A request from its arrival until it is scheduled, in slots_. `next`
  /// links it into the overflow FIFO or its bank's window list.
  struct Request {
    tlm::tlm_generic_payload* payload = nullptr;
    uint32_t port = 0;
    Location where;
    uint32_t bus_cycles = 0;
    bool write = false;
    uint64_t arrive = 0;
    uint64_t order = 0;     ///< when it entered the window (FR-FCFS age)
    uint32_t next = kNone;
  };
  uint32_t traced_depth_ = 0;
  /// The scheduler's window is kept as one list per bank, oldest first: FR-FCFS
  /// only looks at banks that can take a command, and removing a request
  /// moves nothing.
  struct Bank {
    bool open = false;
    uint64_t row = 0;
    uint64_t activated = 0;   ///< cycle of the last activate (tRAS)
    uint64_t next_cmd = 0;    ///< first cycle the bank takes another request
    uint64_t busy_until = 0;  ///< end of its last data transfer
    uint32_t head = kNone, tail = kNone;  ///< its window requests (slots_)
  };

  tlm::tlm_sync_enum nb_transport_fw(int port, tlm::tlm_generic_payload& payload, tlm::tlm_phase& phase,
                                     sc_core::sc_time& delay);
  void channel_process();
  void sample_queue(uint64_t now);
  void schedule(const Request& request, uint64_t now);
  /// Moves the oldest overflowing request into the scheduler's window.
  void enter_window();
  /// FR-FCFS at `now` (command bus free): schedules the oldest row hit whose
  /// bank is free, else the oldest request whose bank is free. Returns the
  /// earliest bank afterwards (earliest_).
  uint64_t schedule_one(uint64_t now);

  platform::DramConfig config_;
  FixedDivisor row_bytes_, banks_div_;  ///< address -> column, bank, row
  std::vector<std::unique_ptr<TargetSocket>> ports_;
  ArrivalQueue<uint32_t> arrivals_;  ///< slots of requests not yet arrived
  std::vector<Request> slots_;
  uint32_t free_slot_ = kNone;  ///< unused slots, linked by `next`
  uint32_t overflow_head_ = kNone, overflow_tail_ = kNone;  ///< arrived, waiting for the window
  uint32_t overflow_size_ = 0, window_size_ = 0;
  uint64_t next_order_ = 0;
  std::vector<uint64_t> queued_banks_;  ///< bit per bank with a window request
  /// The first cycle a window request's bank takes a command (UINT64_MAX:
  /// empty window); only scheduling moves a bank's next command.
  uint64_t earliest_ = ~uint64_t(0);
  std::vector<Bank> banks_;
  uint64_t command_free_ = 0, bus_free_ = 0;
  CycleWaker waker_;

  uint64_t row_hits_ = 0, row_misses_ = 0, reads_ = 0, writes_ = 0;
  uint64_t last_sample_ = 0, queue_area_ = 0, queue_cycles_ = 0;
  uint64_t bank_busy_cycles_ = 0, any_busy_cycles_ = 0, any_busy_until_ = 0;
  uint64_t latency_sum_ = 0, bus_busy_cycles_ = 0;
};

}  // namespace tlmgpu::memory
