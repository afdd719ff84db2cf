#include "memory/dram_channel.h"

#include "memory/bit_ops.h"

#include <algorithm>
#include <string>

namespace tlmgpu::memory {

DramChannel::DramChannel(sc_core::sc_module_name name, const platform::DramConfig& config,
                         const sc_core::sc_time& clock_period, uint32_t ports)
    : sc_module(name), config_(config), period_(clock_period), waker_(clock_period) {
  if (config_.banks == 0) config_.banks = 1;
  if (config_.row_bytes == 0) config_.row_bytes = 2048;
  if (config_.queue_depth == 0) config_.queue_depth = 1;
  if (config_.burst_cycles == 0) config_.burst_cycles = 1;
  banks_.assign(config_.banks, Bank{});
  bank_queued_.assign(config_.banks, 0);
  for (uint32_t p = 0; p < ports; ++p) {
    ports_.push_back(std::make_unique<TargetSocket>(("port" + std::to_string(p)).c_str()));
    ports_.back()->register_nb_transport_fw(this, &DramChannel::nb_transport_fw, int(p));
  }
  SC_METHOD(channel_process);
  sensitive << waker_.event();
  dont_initialize();
}

DramChannel::~DramChannel() = default;

DramChannel::Location DramChannel::locate(uint64_t addr) const {
  Location l;
  l.column = uint32_t(addr % config_.row_bytes);
  const uint64_t row_index = addr / config_.row_bytes;
  l.bank = uint32_t(row_index % config_.banks);
  l.row = row_index / config_.banks;
  return l;
}

tlm::tlm_sync_enum DramChannel::nb_transport_fw(int port, tlm::tlm_generic_payload& payload, tlm::tlm_phase& phase,
                                                sc_core::sc_time& delay) {
  if (phase != tlm::BEGIN_REQ) return tlm::TLM_ACCEPTED;
  Request r;
  r.payload = &payload;
  r.port = uint32_t(port);
  r.where = locate(payload.get_address());
  const auto* ext = payload.get_extension<MemRequestExtension>();
  const uint32_t sectors = ext ? popcount32(ext->sector_mask)
                               : (payload.get_data_length() + 31) / 32;
  r.bus_cycles = std::max<uint32_t>(sectors, 1) * config_.burst_cycles;
  r.write = payload.is_write();
  const uint64_t now = waker_.now();
  r.arrive = now + std::max<uint64_t>(delay_cycles(delay, period_), 1);
  arrivals_.push(r.arrive, r.port, r);
  waker_.wake_at(r.arrive, now);
  phase = tlm::END_REQ;
  return tlm::TLM_UPDATED;
}

void DramChannel::sample_queue(uint64_t now) {
  // Time-weighted: the pending count only changes inside channel_process.
  if (now > last_sample_) {
    const uint64_t depth = queue_.size() + overflow_.size();
    if (depth) {
      queue_area_ += depth * (now - last_sample_);
      queue_cycles_ += now - last_sample_;
    }
    last_sample_ = now;
  }
}

void DramChannel::schedule(const Request& r, uint64_t now) {
  Bank& bank = banks_[r.where.bank];
  uint64_t column;
  if (bank.open && bank.row == r.where.row) {
    ++row_hits_;
    column = now;
  } else {
    ++row_misses_;
    uint64_t activate = now;
    if (bank.open) activate = std::max(now, bank.activated + config_.tRAS) + config_.tRP;
    bank.open = true;
    bank.row = r.where.row;
    bank.activated = activate;
    column = activate + config_.tRCD;
  }
  // One burst on the data bus at a time: a column command waits for the bus.
  const uint64_t data_start = std::max(column + config_.tCL, bus_free_);
  const uint64_t data_end = data_start + r.bus_cycles;
  bus_free_ = data_end;
  bus_busy_cycles_ += r.bus_cycles;
  bank.next_cmd = data_start - config_.tCL + r.bus_cycles;
  // Busy time per bank and for the channel (starts are non-decreasing).
  bank_busy_cycles_ += data_end - std::max(now, std::min(bank.busy_until, data_end));
  bank.busy_until = std::max(bank.busy_until, data_end);
  any_busy_cycles_ += data_end - std::max(now, std::min(any_busy_until_, data_end));
  any_busy_until_ = std::max(any_busy_until_, data_end);
  latency_sum_ += data_end - r.arrive;
  if (r.write)
    ++writes_;
  else
    ++reads_;
  r.payload->set_response_status(tlm::TLM_OK_RESPONSE);
  sc_core::sc_time delay = waker_.delay(std::max<uint64_t>(data_end - now, 1));
  tlm::tlm_phase phase = tlm::BEGIN_RESP;
  (*ports_[r.port])->nb_transport_bw(*r.payload, phase, delay);
}

void DramChannel::enter_window() {
  uint32_t slot;
  if (free_slots_.empty()) {
    slot = uint32_t(slots_.size());
    slots_.push_back(overflow_.front());
  } else {
    slot = free_slots_.back();
    free_slots_.pop_back();
    slots_[slot] = overflow_.front();
  }
  overflow_.pop_front();
  const Request& r = slots_[slot];
  queue_.push_back(Queued{r.where.row, r.where.bank, slot});
  if (r.where.bank < 64) queued_banks_ |= uint64_t(1) << r.where.bank;
  ++bank_queued_[r.where.bank];
}

uint64_t DramChannel::earliest_bank() const {
  uint64_t ready = ~uint64_t(0);
  if (banks_.size() <= 64) {
    for (uint64_t m = queued_banks_; m; m &= m - 1) ready = std::min(ready, banks_[__builtin_ctzll(m)].next_cmd);
  } else {
    for (const Queued& q : queue_) ready = std::min(ready, banks_[q.bank].next_cmd);
  }
  return ready;
}

void DramChannel::channel_process() {
  waker_.fired();
  const uint64_t now = waker_.now();
  sample_queue(now);
  while (arrivals_.ready(now)) overflow_.push_back(arrivals_.pop());
  while (!overflow_.empty() && queue_.size() < config_.queue_depth) enter_window();
  // The queued request whose bank frees first; none can go before the
  // command bus frees. No bank free now: nothing to scan.
  uint64_t bank_ready = earliest_bank();
  if (command_free_ <= now && bank_ready <= now) {
    // FR-FCFS: the oldest row hit whose bank is free, else the oldest request
    // whose bank is free (one pass).
    size_t pick = queue_.size(), oldest = queue_.size();
    for (size_t i = 0; i < queue_.size(); ++i) {
      const Bank& b = banks_[queue_[i].bank];
      if (b.next_cmd > now) continue;
      if (b.open && b.row == queue_[i].row) {
        pick = i;
        break;
      }
      if (oldest == queue_.size()) oldest = i;
    }
    if (pick == queue_.size()) pick = oldest;
    if (pick != queue_.size()) {
      const uint32_t slot = queue_[pick].slot;
      const uint32_t bank = queue_[pick].bank;
      if (--bank_queued_[bank] == 0 && bank < 64) queued_banks_ &= ~(uint64_t(1) << bank);
      queue_.erase(queue_.begin() + std::ptrdiff_t(pick));
      free_slots_.push_back(slot);
      const Request r = slots_[slot];
      schedule(r, now);
      command_free_ = now + 1;  // one request scheduled per cycle
      if (!overflow_.empty()) enter_window();
      bank_ready = earliest_bank();
    }
  }
  traced_depth_ = pending();
  uint64_t next = arrivals_.empty() ? ~uint64_t(0) : arrivals_.next_ready();
  if (bank_ready != ~uint64_t(0)) next = std::min(next, std::max(bank_ready, command_free_));
  if (next != ~uint64_t(0)) waker_.wake_at(next, now);
}

void DramChannel::report_stats(stats::StatMap& out) const {
  out["row_hits"] = double(row_hits_);
  out["row_misses"] = double(row_misses_);
  out["reads"] = double(reads_);
  out["writes"] = double(writes_);
  out["avg_queue_depth"] = queue_cycles_ ? double(queue_area_) / double(queue_cycles_) : 0.0;
  out["bank_parallelism"] = any_busy_cycles_ ? double(bank_busy_cycles_) / double(any_busy_cycles_) : 0.0;
  out["busy_cycles"] = double(any_busy_cycles_);
  out["bus_busy_cycles"] = double(bus_busy_cycles_);
  const uint64_t served = reads_ + writes_;
  out["avg_latency"] = served ? double(latency_sum_) / double(served) : 0.0;
}

}  // namespace tlmgpu::memory
