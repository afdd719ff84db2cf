// One DRAM channel (GDDR5 / GDDR6 / HBM2): banks in bank groups with
// open-row buffers, an FR-FCFS request queue, one command bus (or HBM's
// separate row and column command buses) and one shared data bus, timed in
// the DRAM's own command clock.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_target_socket.h>

#include "core/bit_ops.h"
#include "core/gpu_config.h"
#include "core/stats_provider.h"
#include "core/timeline_sinks.h"
#include "memory/dram_address_map.h"
#include "memory/memory_interfaces.h"
#include "memory/timed_queue.h"

namespace tlmgpu::memory {

/// Converts cycle numbers between the core clock and the DRAM command clock
/// with integers only: the two frequencies, rounded to the kHz, as a ratio in
/// lowest terms (924 MHz : 700 MHz = 33 : 25). Exact for cycle numbers below
/// 2^64 / (the larger term).
class DramClockCrossing {
 public:
  DramClockCrossing(double core_mhz, double dram_mhz);
  /// The first DRAM cycle at or after core cycle `core` starts.
  uint64_t dram_at_or_after(uint64_t core) const { return core_div_.div(core * dram_ + core_ - 1); }
  /// The last DRAM cycle starting at or before core cycle `core`.
  uint64_t dram_at_or_before(uint64_t core) const { return core_div_.div(core * dram_); }
  /// The first core cycle at or after DRAM cycle `dram` starts.
  uint64_t core_at_or_after(uint64_t dram) const { return dram_div_.div(dram * core_ + dram_ - 1); }

 private:
  uint64_t core_ = 1, dram_ = 1;  ///< the ratio's terms
  core::FixedDivisor core_div_, dram_div_;
};

/// Requests arrive on `port(i)` (one per L2 slice sharing the channel) as
/// BEGIN_REQ with a channel-local address. One that arrives while the
/// scheduler queue (dram.queue_depth requests past the fixed latency, not yet
/// taken by a bank) is full is taken, but its END_REQ waits until the queue
/// has room (GPGPU-Sim's L2 moves a request to DRAM only while the scheduler
/// is not full); the others are accepted at once. The answer is a
/// BEGIN_RESP on the same port, annotated with the core cycle the
/// last data beat leaves the bus. Commands are timed in DRAM command-clock
/// cycles; the channel is woken in core cycles and then runs every DRAM cycle
/// up to the current core cycle's time (docs/MEMORY.md).
class DramChannel : public engine::ClockedModule, public core::StatsProvider {
 public:
  using TargetSocket = tlm_utils::simple_target_socket_tagged<DramChannel>;
  using Location = DramAddressMap::Location;

  /// `core_clock_mhz` is the clock of `clock_period`'s cycles (the GPU's).
  DramChannel(sc_core::sc_module_name name, const core::DramConfig& config, double core_clock_mhz,
              const sc_core::sc_time& clock_period, uint32_t ports = 1);
  ~DramChannel() override;

  TargetSocket& port(uint32_t index) { return *ports_[index]; }
  uint32_t ports() const { return uint32_t(ports_.size()); }

  /// Where a channel-local address lives (dram.address_mapping).
  Location locate(uint64_t addr) const { return map_.locate(addr); }
  const DramClockCrossing& clocks() const { return clocks_; }
  /// DRAM cycles one burst occupies on the data bus.
  uint32_t burst_cycles() const { return burst_cycles_; }

  /// Requests not yet taken by their bank (the FR-FCFS queue and those waiting for room in it).
  uint32_t pending() const { return window_size_ + overflow_size_; }
  /// VCD: the scheduler queue depth, updated when the channel runs.
  void trace(sc_core::sc_trace_file* tf) { sc_core::sc_trace(tf, traced_depth_, std::string(name()) + ".queue_depth"); }
  /// A timeline's listener for the queue depth, told before each change and each time the channel runs (nullptr: none).
  void set_depth_sink(core::QueueDepthSink* sink) { depth_sink_ = sink; }

  void report_stats(core::StatReport& out) const override;
  /// A new device context: every row closed (precharge all) and the DRAM
  /// clock restarted in phase with the core's next cycle, as on a freshly
  /// built GPU, so results do not depend on when the device starts. Call only
  /// when nothing is queued.
  void begin_device();
  /// Runs the DRAM cycles up to the core cycle `now`.
  void evaluate(uint64_t now) override;

 private:
  static constexpr uint32_t kNone = ~uint32_t(0);
  static constexpr uint64_t kNever = ~uint64_t(0);
  /// The next command a busy bank needs; columns are split by direction
  /// because the channel-wide bounds differ.
  enum class Command : uint8_t { kActivate, kPrecharge, kRead, kWrite };

  /// A request from its arrival until its last column command, in slots_.
  /// `next` links it into the overflow FIFO or its bank's window list.
  struct Request {
    tlm::tlm_generic_payload* payload = nullptr;
    uint32_t port = 0;
    uint32_t bank = 0;
    uint64_t row = 0;
    uint32_t bursts = 0;    ///< column commands still to issue
    uint32_t sectors = 0;
    bool write = false;
    uint64_t arrive = 0;    ///< core cycle it reaches the scheduler queue
    uint64_t order = 0;     ///< when it entered the window (FR-FCFS age)
    uint64_t taken = 0;     ///< DRAM cycle its bank took it
    uint32_t next = kNone;
  };
  uint32_t traced_depth_ = 0;
  core::QueueDepthSink* depth_sink_ = nullptr;
  /// Every "ready" field is the first DRAM cycle the constraint allows.
  struct Bank {
    bool open = false;
    uint64_t row = 0;
    uint64_t activated = 0;        ///< last activate (tRC)
    uint64_t column_ready = 0;     ///< activate + tRCD
    uint64_t precharge_ready = 0;  ///< tRAS, read to precharge, write recovery
    uint64_t activate_ready = 0;   ///< precharge + tRP, activate + tRC
    uint32_t active = kNone;       ///< the request it serves (slots_)
    uint32_t head = kNone, tail = kNone;  ///< its window requests, oldest first
  };
  struct BankGroup {
    uint64_t column_ready = 0;     ///< column + tCCDL
    uint64_t precharge_ready = 0;  ///< read + tRTPL
  };

  tlm::tlm_sync_enum nb_transport_fw(int port, tlm::tlm_generic_payload& payload, tlm::tlm_phase& phase,
                                     sc_core::sc_time& delay);
  /// Runs DRAM cycles up to `limit` (the current core cycle `now`); returns
  /// the next DRAM cycle at which something can happen (kNever: none).
  uint64_t advance(uint64_t limit, uint64_t now);
  /// Bank `b`'s next command for its request and the first cycle its own and
  /// its bank group's constraints allow it (`next_`); the channel-wide
  /// bounds are added per command kind when the banks are compared.
  void update_next_command(uint32_t b);
  void issue(uint32_t b, Command command, uint64_t t, uint64_t now);
  /// FR-FCFS inside a free bank: its oldest request to the open row, else its oldest.
  void take_request(uint32_t b, uint64_t t);
  void enter_window();
  /// END_REQ to the ports whose requests found the queue full, round robin, while it has room.
  void end_withheld_requests();
  void sample(uint64_t t);
  // The clock crossing from the current device's first core cycle (epoch_),
  // where both clocks have an edge; DRAM cycles count from it.
  uint64_t dram_at_or_after(uint64_t core) const { return clocks_.dram_at_or_after(core - epoch_); }
  uint64_t dram_at_or_before(uint64_t core) const { return clocks_.dram_at_or_before(core - epoch_); }
  uint64_t core_at_or_after(uint64_t dram) const { return clocks_.core_at_or_after(dram) + epoch_; }

  core::DramConfig config_;
  DramAddressMap map_;
  DramClockCrossing clocks_;
  uint32_t burst_cycles_ = 1, burst_bytes_ = 32, group_mask_ = 0;
  std::vector<std::unique_ptr<TargetSocket>> ports_;
  ArrivalQueue<uint32_t> arrivals_;  ///< slots of requests not yet eligible, by core arrival cycle
  std::vector<Request> slots_;
  uint32_t free_slot_ = kNone;  ///< unused slots, linked by `next`
  uint32_t overflow_head_ = kNone, overflow_tail_ = kNone;  ///< eligible, waiting for the window
  uint32_t overflow_size_ = 0, window_size_ = 0;
  uint64_t next_order_ = 0;
  /// Per port: the request whose END_REQ the channel withholds (nullptr: none).
  std::vector<tlm::tlm_generic_payload*> withheld_;
  uint32_t withheld_count_ = 0, next_withheld_port_ = 0;
  uint64_t queued_banks_ = 0;  ///< bit per bank with a window request
  uint64_t active_banks_ = 0;  ///< bit per bank serving a request
  std::vector<Bank> banks_;
  std::vector<BankGroup> groups_;
  /// Per busy bank, what update_next_command() found: compared on every command, so kept
  /// apart from Bank in a small array.
  struct NextCommand {
    uint64_t ready = 0;
    uint64_t order = 0;
    Command command = Command::kActivate;
  };
  std::vector<NextCommand> next_;
  std::vector<uint64_t> group_banks_;  ///< per bank group, a bit per bank in it
  sc_core::sc_time clock_period_;
  uint64_t epoch_ = 0;  ///< core cycle of DRAM cycle 0 (the device's first cycle)
  uint64_t earlier_dram_cycles_ = 0;  ///< DRAM cycles of earlier devices
  uint64_t clock_ = 0;  ///< the first DRAM cycle not yet run
  /// The first cycles a row (activate, precharge) and a column (read, write) command may use their command bus:
  /// one bus for both, or one each with dram.dual_command_bus.
  uint64_t row_command_free_ = 0, column_command_free_ = 0;
  uint64_t column_ready_ = 0, activate_ready_ = 0;  ///< tCCD, tRRD
  uint64_t last_column_command_ = kNever;           ///< DRAM cycle of the last column command
  uint64_t read_ready_ = 0;        ///< end of write data + tCDLR
  uint64_t write_data_ready_ = 0;  ///< end of read data + turnaround
  uint64_t bus_free_ = 0;

  uint64_t row_hits_ = 0, row_misses_ = 0, reads_ = 0, writes_ = 0, activates_ = 0, precharges_ = 0;
  uint64_t bytes_moved_ = 0, bytes_requested_ = 0;
  uint64_t ccdl_delays_ = 0, turnaround_delays_ = 0, rrd_delays_ = 0;
  uint64_t paired_row_commands_ = 0;
  uint64_t last_sample_ = 0, queue_area_ = 0, queue_cycles_ = 0;
  uint64_t bank_busy_cycles_ = 0, any_busy_cycles_ = 0;
  uint64_t latency_sum_ = 0, bus_busy_cycles_ = 0;
  uint64_t withheld_end_requests_ = 0;
};

}  // namespace tlmgpu::memory
