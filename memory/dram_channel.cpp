#include "memory/dram_channel.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>

namespace tlmgpu::memory {

namespace {
uint64_t at_least_zero(uint64_t a, uint64_t b) { return a > b ? a - b : 0; }
uint32_t popcount64(uint64_t m) { return core::popcount32(uint32_t(m)) + core::popcount32(uint32_t(m >> 32)); }
}  // namespace

DramClockCrossing::DramClockCrossing(double core_mhz, double dram_mhz) {
  const auto khz = [](double mhz) { return std::max<uint64_t>(uint64_t(std::llround(mhz * 1000.0)), 1); };
  core_ = khz(core_mhz);
  dram_ = khz(dram_mhz);
  const uint64_t g = std::gcd(core_, dram_);
  core_ /= g;
  dram_ /= g;
  core_div_ = core::FixedDivisor(core_);
  dram_div_ = core::FixedDivisor(dram_);
}

DramChannel::DramChannel(sc_core::sc_module_name name, const core::DramConfig& config, double core_clock_mhz,
                         const sc_core::sc_time& clock_period, uint32_t ports)
    : ClockedModule(name, kDramStage, clock_period), config_(config), clocks_(core_clock_mhz, config.clock_mhz),
      clock_period_(clock_period) {
  // validate_config has checked every value (1..64 banks, groups dividing them, ...).
  std::string error;
  if (!map_.parse(config_.address_mapping, error))
    SC_REPORT_ERROR(this->name(), ("dram.address_mapping: " + error).c_str());
  burst_cycles_ = std::max<uint32_t>(config_.burst_length / config_.data_rate, 1);
  burst_bytes_ = config_.bus_bytes * config_.burst_length;
  group_mask_ = config_.bank_groups - 1;  // a power of two (validate_config)
  banks_.assign(config_.banks, Bank{});
  groups_.assign(config_.bank_groups, BankGroup{});
  next_.assign(config_.banks, NextCommand{});
  group_banks_.assign(config_.bank_groups, 0);
  for (uint32_t b = 0; b < config_.banks; ++b) group_banks_[b & group_mask_] |= uint64_t(1) << b;
  for (uint32_t p = 0; p < ports; ++p) {
    ports_.push_back(std::make_unique<TargetSocket>(("port" + std::to_string(p)).c_str()));
    ports_.back()->register_nb_transport_fw(this, &DramChannel::nb_transport_fw, int(p));
  }
  withheld_.assign(ports, nullptr);
}

DramChannel::~DramChannel() = default;

void DramChannel::begin_device() {
  const uint64_t first =
      sc_core::sc_get_status() == sc_core::SC_ELABORATION ? 0 : current_cycle(clock_period_) + 1;
  if (first > epoch_) earlier_dram_cycles_ += dram_at_or_before(first);
  epoch_ = first;
  for (Bank& b : banks_) b = Bank{};
  for (BankGroup& g : groups_) g = BankGroup{};
  clock_ = last_sample_ = 0;
  row_command_free_ = column_command_free_ = column_ready_ = activate_ready_ = read_ready_ = write_data_ready_ =
      bus_free_ = 0;
  last_column_command_ = kNever;
}

tlm::tlm_sync_enum DramChannel::nb_transport_fw(int port, tlm::tlm_generic_payload& payload, tlm::tlm_phase& phase,
                                                sc_core::sc_time& delay) {
  if (phase != tlm::BEGIN_REQ) return tlm::TLM_ACCEPTED;
  // The request stays in one slot until its last column command; the queues move its number.
  uint32_t slot = free_slot_;
  if (slot == kNone) {
    slot = uint32_t(slots_.size());
    slots_.emplace_back();
  } else {
    free_slot_ = slots_[slot].next;
  }
  Request& r = slots_[slot];
  if (payload.has_mm()) payload.acquire();  // kept until answered (issue)
  r.payload = &payload;
  r.port = uint32_t(port);
  const auto* ext = payload.get_extension<MemRequestExtension>();
  // The bank and row of the line: a request starts at its first requested unit.
  const Location where = map_.locate(payload.get_address() - offset_in_line(ext));
  r.bank = where.bank & (config_.banks - 1);  // equal unless the mapping and dram.banks disagree
  r.row = where.row;
  r.sectors = std::max<uint32_t>(ext ? core::popcount32(ext->sector_mask) : (payload.get_data_length() + 31) / 32, 1);
  // A burst moves burst_bytes_ whatever part of it is wanted.
  r.bursts = (r.sectors * 32 + burst_bytes_ - 1) / burst_bytes_;
  r.write = payload.is_write();
  const uint64_t now = this->now();
  // The fixed DRAM-side latency (GPGPU-Sim's -dram_latency) is spent before the queue.
  r.arrive = now + std::max<uint64_t>(cycles_in(delay), 1) + config_.latency;
  r.next = kNone;
  arrivals_.push(r.arrive, r.port, slot);
  wake_at(core_at_or_after(dram_at_or_after(r.arrive)));
  if (window_size_ + overflow_size_ >= config_.queue_depth) {
    // The scheduler queue is full (as of the channel's last run): END_REQ
    // when it has room, so the slice keeps its next requests meanwhile.
    withheld_[size_t(port)] = &payload;
    ++withheld_count_;
    ++withheld_end_requests_;
    return tlm::TLM_ACCEPTED;
  }
  phase = tlm::END_REQ;
  return tlm::TLM_UPDATED;
}

void DramChannel::end_withheld_requests() {
  const uint32_t ports = uint32_t(withheld_.size());
  const uint32_t queued = window_size_ + overflow_size_;
  // One END_REQ per free place: each lets its slice send one request.
  uint32_t room = queued < config_.queue_depth ? config_.queue_depth - queued : 0;
  for (uint32_t i = 0; i < ports && room && withheld_count_; ++i) {
    const uint32_t port = (next_withheld_port_ + i) % ports;
    tlm::tlm_generic_payload* p = withheld_[port];
    if (!p) continue;
    withheld_[port] = nullptr;
    --withheld_count_;
    --room;
    next_withheld_port_ = (port + 1) % ports;
    tlm::tlm_phase phase = tlm::END_REQ;
    sc_core::sc_time zero = sc_core::SC_ZERO_TIME;
    (*ports_[port])->nb_transport_bw(*p, phase, zero);
  }
}

void DramChannel::sample(uint64_t t) {
  // Time-weighted over DRAM cycles; called before anything counted changes.
  if (t <= last_sample_) return;
  const uint64_t span = t - last_sample_;
  const uint64_t depth = pending();
  // Depths that last less than the channel's run (between two of its commands) show too.
  if (depth_sink_) depth_sink_->depth(core_at_or_after(last_sample_), uint32_t(depth));
  if (depth) {
    queue_area_ += depth * span;
    queue_cycles_ += span;
  }
  if (active_banks_) {
    bank_busy_cycles_ += popcount64(active_banks_) * span;
    any_busy_cycles_ += span;
  }
  last_sample_ = t;
}

void DramChannel::enter_window() {
  const uint32_t slot = overflow_head_;
  Request& r = slots_[slot];
  overflow_head_ = r.next;
  if (overflow_head_ == kNone) overflow_tail_ = kNone;
  --overflow_size_;
  ++window_size_;
  r.order = next_order_++;
  r.next = kNone;
  Bank& bank = banks_[r.bank];
  if (bank.head == kNone) {
    bank.head = slot;
    queued_banks_ |= uint64_t(1) << r.bank;
  } else {
    slots_[bank.tail].next = slot;
  }
  bank.tail = slot;
}

void DramChannel::take_request(uint32_t b, uint64_t t) {
  Bank& bank = banks_[b];
  uint32_t prev = kNone, slot = bank.head;
  if (bank.open) {
    for (uint32_t p = kNone, s = bank.head; s != kNone; p = s, s = slots_[s].next)
      if (slots_[s].row == bank.row) {
        prev = p;
        slot = s;
        break;
      }
  }
  Request& r = slots_[slot];
  if (prev == kNone)
    bank.head = r.next;
  else
    slots_[prev].next = r.next;
  if (bank.tail == slot) bank.tail = prev;
  if (bank.head == kNone) queued_banks_ &= ~(uint64_t(1) << b);
  r.next = kNone;
  r.taken = t;
  --window_size_;
  bank.active = slot;
  active_banks_ |= uint64_t(1) << b;
  if (bank.open && bank.row == r.row)
    ++row_hits_;
  else
    ++row_misses_;
  update_next_command(b);
}

void DramChannel::update_next_command(uint32_t b) {
  const Bank& bank = banks_[b];
  const BankGroup& group = groups_[b & group_mask_];
  const Request& r = slots_[bank.active];
  NextCommand& n = next_[b];
  n.order = r.order;
  if (!bank.open) {
    n.command = Command::kActivate;
    n.ready = bank.activate_ready;
  } else if (bank.row != r.row) {
    n.command = Command::kPrecharge;
    n.ready = std::max(bank.precharge_ready, group.precharge_ready);
  } else {
    n.command = r.write ? Command::kWrite : Command::kRead;
    n.ready = std::max(bank.column_ready, group.column_ready);
  }
}

void DramChannel::issue(uint32_t b, Command command, uint64_t t, uint64_t now) {
  Bank& bank = banks_[b];
  BankGroup& group = groups_[b & group_mask_];
  Request& r = slots_[bank.active];
  // One command per cycle on each command bus; HBM's row and column buses are apart.
  const bool column_command = command >= Command::kRead;
  if (column_command || !config_.dual_command_bus) column_command_free_ = t + 1;
  if (!column_command || !config_.dual_command_bus) row_command_free_ = t + 1;
  if (column_command)
    last_column_command_ = t;
  else if (last_column_command_ == t)
    ++paired_row_commands_;
  if (command == Command::kActivate) {
    if (activate_ready_ == t && std::max(bank.activate_ready, r.taken) < t) ++rrd_delays_;
    ++activates_;
    bank.open = true;
    bank.row = r.row;
    bank.activated = t;
    bank.column_ready = t + config_.tRCD;
    bank.precharge_ready = t + config_.tRAS;
    activate_ready_ = t + config_.tRRD;
    update_next_command(b);
    return;
  }
  if (command == Command::kPrecharge) {
    ++precharges_;
    bank.open = false;
    bank.activate_ready = std::max(t + config_.tRP, bank.activated + config_.tRC);
    update_next_command(b);
    return;
  }
  // A column command (kRead / kWrite): one burst.
  const uint64_t others = std::max({bank.column_ready, column_ready_, r.taken,
                                    at_least_zero(bus_free_, r.write ? config_.tWL : config_.tCL)});
  const uint64_t turn = r.write ? at_least_zero(write_data_ready_, config_.tWL) : read_ready_;
  if (group.column_ready == t && std::max(others, turn) < t) ++ccdl_delays_;
  if (turn == t && std::max(others, group.column_ready) < t) ++turnaround_delays_;
  const uint64_t data_end = t + (r.write ? config_.tWL : config_.tCL) + burst_cycles_;
  bus_free_ = data_end;
  bus_busy_cycles_ += burst_cycles_;
  bytes_moved_ += burst_bytes_;
  column_ready_ = t + config_.tCCD;
  group.column_ready = t + config_.tCCDL;
  if (r.write) {
    read_ready_ = data_end + config_.tCDLR;
    bank.precharge_ready = std::max(bank.precharge_ready, data_end + config_.tWR);
  } else {
    write_data_ready_ = data_end + config_.turnaround;
    bank.precharge_ready = std::max(bank.precharge_ready, t + burst_cycles_);
    group.precharge_ready = std::max(group.precharge_ready, t + config_.tRTPL);
  }
  const bool last = --r.bursts == 0;
  if (last) active_banks_ &= ~(uint64_t(1) << b);
  // The group's column (and read-to-precharge) bounds moved for its busy banks.
  for (uint64_t m = group_banks_[b & group_mask_] & active_banks_; m; m &= m - 1)
    update_next_command(uint32_t(__builtin_ctzll(m)));
  if (!last) return;
  // The last burst: the bank is free for its next request, and the answer
  // (with the core cycle its data is complete) leaves now.
  const Request done = r;
  bank.active = kNone;
  r.next = free_slot_;
  free_slot_ = uint32_t(&r - slots_.data());
  const uint64_t ready = core_at_or_after(data_end);
  latency_sum_ += ready - done.arrive;
  bytes_requested_ += uint64_t(done.sectors) * 32;
  if (done.write)
    ++writes_;
  else
    ++reads_;
  done.payload->set_response_status(tlm::TLM_OK_RESPONSE);
  sc_core::sc_time delay = cycle_delay(ready > now ? ready - now : 1);
  tlm::tlm_phase phase = tlm::BEGIN_RESP;
  (*ports_[done.port])->nb_transport_bw(*done.payload, phase, delay);
  if (done.payload->has_mm()) done.payload->release();
}

uint64_t DramChannel::advance(uint64_t limit, uint64_t now) {
  uint64_t t = clock_;
  for (;;) {
    // Arrivals become eligible at the first DRAM cycle at or after their core cycle.
    while (!arrivals_.empty() && dram_at_or_after(arrivals_.next_ready()) <= t) {
      const uint32_t slot = arrivals_.pop();
      if (overflow_tail_ == kNone)
        overflow_head_ = slot;
      else
        slots_[overflow_tail_].next = slot;
      overflow_tail_ = slot;
      ++overflow_size_;
    }
    while (overflow_head_ != kNone && window_size_ < config_.queue_depth) enter_window();
    for (uint64_t m = queued_banks_ & ~active_banks_; m; m &= m - 1) take_request(uint32_t(__builtin_ctzll(m)), t);

    // The earliest command any busy bank can issue: columns (row hits) before
    // row commands in one cycle, then the oldest request.
    uint64_t bound[4];  // channel-wide bounds by Command, and the command bus
    bound[size_t(Command::kActivate)] = std::max({activate_ready_, row_command_free_, t});
    bound[size_t(Command::kPrecharge)] = std::max(row_command_free_, t);
    const uint64_t column = std::max({column_ready_, column_command_free_, t});
    bound[size_t(Command::kRead)] = std::max({column, read_ready_, at_least_zero(bus_free_, config_.tCL)});
    bound[size_t(Command::kWrite)] =
        std::max(column, at_least_zero(std::max(write_data_ready_, bus_free_), config_.tWL));
    uint64_t best = kNever, best_order = kNever;
    uint32_t best_bank = kNone;
    bool best_column = false;
    for (uint64_t m = active_banks_; m; m &= m - 1) {
      const uint32_t b = uint32_t(__builtin_ctzll(m));
      const NextCommand& n = next_[b];
      const uint64_t ready = std::max(n.ready, bound[size_t(n.command)]);
      const bool is_column = n.command >= Command::kRead;
      if (ready < best || (ready == best && (is_column > best_column || (is_column == best_column && n.order < best_order)))) {
        best = ready;
        best_order = n.order;
        best_bank = b;
        best_column = is_column;
      }
    }
    const uint64_t arrival =
        arrivals_.empty() ? kNever : std::max(dram_at_or_after(arrivals_.next_ready()), t);
    const uint64_t next = std::min(best, arrival);
    if (next > limit) {
      sample(limit + 1);
      clock_ = limit + 1;
      return next;
    }
    sample(next);
    t = next;
    if (best < arrival) issue(best_bank, next_[best_bank].command, t, now);  // an arrival at t is queued first
  }
}

void DramChannel::evaluate(uint64_t now) {
  const uint64_t next = advance(dram_at_or_before(now), now);
  if (withheld_count_) end_withheld_requests();
  traced_depth_ = pending();
  // The depth holds from the last sample on (sample() runs before every change).
  if (depth_sink_) depth_sink_->depth(core_at_or_after(last_sample_), traced_depth_);
  if (next != kNever) wake_at(core_at_or_after(next));
}

void DramChannel::report_stats(core::StatReport& out) const {
  using core::Unit;
  out.add("row_hits", row_hits_, Unit::Count, "column commands to a row already open in their bank");
  out.add("row_misses", row_misses_, Unit::Count, "requests that had to open their row (activate, after a precharge if another was open)");
  out.add("row_hit_rate", core::StatReport::ratio(row_hits_, row_hits_ + row_misses_), Unit::Ratio,
          "row_hits / (row_hits + row_misses)");
  out.add("reads", reads_, Unit::Count, "read requests served (each one or more bursts)");
  out.add("writes", writes_, Unit::Count, "write requests served (L2 write-backs)");
  out.add("activates", activates_, Unit::Count, "ACT commands");
  out.add("precharges", precharges_, Unit::Count, "PRE commands");
  out.add("avg_queue_depth", core::StatReport::ratio(queue_area_, queue_cycles_), Unit::Average,
          "requests waiting in the scheduler queue, averaged over the DRAM cycles it was not empty");
  out.add("bank_parallelism", core::StatReport::ratio(bank_busy_cycles_, any_busy_cycles_), Unit::Average,
          "banks busy at once, averaged over the DRAM cycles at least one was");
  out.add("busy_cycles", any_busy_cycles_, Unit::DramCycles, "DRAM cycles with at least one bank busy");
  out.add("bus_busy_cycles", bus_busy_cycles_, Unit::DramCycles, "DRAM cycles the data bus carried a burst");
  const uint64_t served = reads_ + writes_;
  out.add("avg_latency", core::StatReport::ratio(latency_sum_, served), Unit::Average,
          "core cycles from a request's arrival at the channel to its data, averaged over reads and writes");
  out.add("bytes_moved", bytes_moved_, Unit::Bytes, "bytes the data bus carried (whole bursts)");
  out.add("bytes_requested", bytes_requested_, Unit::Bytes, "bytes the requests asked for (their sectors)");
  out.add("withheld_end_requests", withheld_end_requests_, Unit::Count,
          "requests that found the scheduler queue full: their END_REQ waited for room (L2 back-pressure)");
  // Over the whole run so far: the DRAM cycles up to now.
  const uint64_t cycles = earlier_dram_cycles_ + dram_at_or_before(std::max(now(), epoch_));
  out.add("dram_cycles", cycles, Unit::DramCycles, "DRAM command-clock cycles of the run so far");
  out.add("bus_utilization", core::StatReport::ratio(bus_busy_cycles_, cycles), Unit::Ratio,
          "bus_busy_cycles / dram_cycles");
  // bytes / (cycles / (MHz * 1e6)) / 1e9
  out.add("bandwidth_gbps", cycles ? double(bytes_moved_) * config_.clock_mhz / double(cycles) / 1000.0 : 0.0,
          Unit::GigabytesPerSecond, "bytes_moved over the run's DRAM time");
  out.add("ccdl_delays", ccdl_delays_, Unit::Count,
          "column commands delayed by tCCDL alone (same bank group as the last column command)");
  out.add("turnaround_delays", turnaround_delays_, Unit::Count,
          "column commands delayed by the bus turnaround alone (read after write, write after read)");
  out.add("paired_row_commands", paired_row_commands_, Unit::Count,
          "activates and precharges issued in the same DRAM cycle as a column command (dram.dual_command_bus)");
  out.add("rrd_delays", rrd_delays_, Unit::Count, "activates delayed by tRRD alone (the last activate of the channel)");
}

}  // namespace tlmgpu::memory
