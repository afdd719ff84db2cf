#include "memory/dram_channel.h"

#include "memory/bit_ops.h"

#include <algorithm>
#include <string>

namespace tlmgpu::memory {

DramChannel::DramChannel(sc_core::sc_module_name name, const platform::DramConfig& config,
                         const sc_core::sc_time& clock_period, uint32_t ports)
    : sc_module(name), config_(config), waker_(clock_period) {
  if (config_.banks == 0) config_.banks = 1;
  if (config_.row_bytes == 0) config_.row_bytes = 2048;
  if (config_.queue_depth == 0) config_.queue_depth = 1;
  if (config_.burst_cycles == 0) config_.burst_cycles = 1;
  row_bytes_ = FixedDivisor(config_.row_bytes);
  banks_div_ = FixedDivisor(config_.banks);
  banks_.assign(config_.banks, Bank{});
  queued_banks_.assign((config_.banks + 63) / 64, 0);
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
  l.column = uint32_t(row_bytes_.mod(addr));
  const uint64_t row_index = row_bytes_.div(addr);
  l.bank = uint32_t(banks_div_.mod(row_index));
  l.row = banks_div_.div(row_index);
  return l;
}

tlm::tlm_sync_enum DramChannel::nb_transport_fw(int port, tlm::tlm_generic_payload& payload, tlm::tlm_phase& phase,
                                                sc_core::sc_time& delay) {
  if (phase != tlm::BEGIN_REQ) return tlm::TLM_ACCEPTED;
  // The request stays in one slot until it is scheduled; the queues move its number.
  uint32_t slot = free_slot_;
  if (slot == kNone) {
    slot = uint32_t(slots_.size());
    slots_.emplace_back();
  } else {
    free_slot_ = slots_[slot].next;
  }
  Request& r = slots_[slot];
  r.payload = &payload;
  r.port = uint32_t(port);
  r.where = locate(payload.get_address());
  const auto* ext = payload.get_extension<MemRequestExtension>();
  const uint32_t sectors = ext ? popcount32(ext->sector_mask)
                               : (payload.get_data_length() + 31) / 32;
  r.bus_cycles = std::max<uint32_t>(sectors, 1) * config_.burst_cycles;
  r.write = payload.is_write();
  const uint64_t now = waker_.now();
  r.arrive = now + std::max<uint64_t>(waker_.cycles_in(delay), 1);
  r.next = kNone;
  arrivals_.push(r.arrive, r.port, slot);
  waker_.wake_at(r.arrive, now);
  phase = tlm::END_REQ;
  return tlm::TLM_UPDATED;
}

void DramChannel::sample_queue(uint64_t now) {
  // Time-weighted: the pending count only changes inside channel_process.
  if (now > last_sample_) {
    const uint64_t depth = pending();
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
  const uint32_t slot = overflow_head_;
  Request& r = slots_[slot];
  overflow_head_ = r.next;
  if (overflow_head_ == kNone) overflow_tail_ = kNone;
  --overflow_size_;
  ++window_size_;
  r.order = next_order_++;
  r.next = kNone;
  Bank& bank = banks_[r.where.bank];
  if (bank.head == kNone) {
    bank.head = slot;
    queued_banks_[r.where.bank / 64] |= uint64_t(1) << (r.where.bank % 64);
  } else {
    slots_[bank.tail].next = slot;
  }
  bank.tail = slot;
  earliest_ = std::min(earliest_, bank.next_cmd);
}

uint64_t DramChannel::schedule_one(uint64_t now) {
  // One pass over the banks with window requests: the earliest bank (two
  // smallest, so the earliest other than the one scheduled is known), and
  // among the free banks the oldest row hit and the oldest request. A bank's
  // list is oldest first, so its first row hit and its head are its candidates.
  uint64_t ready = ~uint64_t(0), second = ~uint64_t(0);
  uint32_t ready_bank = kNone;
  uint64_t hit_order = ~uint64_t(0), old_order = ~uint64_t(0);
  uint32_t hit_bank = kNone, hit_prev = kNone, old_bank = kNone;
  for (size_t w = 0; w < queued_banks_.size(); ++w) {
    for (uint64_t m = queued_banks_[w]; m; m &= m - 1) {
      const uint32_t b = uint32_t(w * 64) + uint32_t(__builtin_ctzll(m));
      const Bank& bank = banks_[b];
      const uint64_t t = bank.next_cmd;
      second = std::min(second, std::max(ready, t));
      if (t < ready) ready_bank = b;
      ready = std::min(ready, t);
      if (t > now) continue;
      const Request& head = slots_[bank.head];
      if (head.order < old_order) {
        old_order = head.order;
        old_bank = b;
      }
      if (!bank.open) continue;
      uint32_t prev = kNone;
      for (uint32_t s = bank.head; s != kNone; prev = s, s = slots_[s].next) {
        const Request& r = slots_[s];
        if (r.order >= hit_order) break;
        if (r.where.row == bank.row) {
          hit_order = r.order;
          hit_bank = b;
          hit_prev = prev;
          break;
        }
      }
    }
  }
  if (old_bank == kNone) return earliest_ = ready;  // no bank free
  uint32_t bank_index = hit_bank, prev = hit_prev;
  if (hit_bank == kNone) {
    bank_index = old_bank;
    prev = kNone;
  }
  Bank& bank = banks_[bank_index];
  const uint32_t slot = prev == kNone ? bank.head : slots_[prev].next;
  const Request r = slots_[slot];
  // Unlink from the bank's list and free the slot before answering (the
  // answer may send a new request).
  if (prev == kNone)
    bank.head = r.next;
  else
    slots_[prev].next = r.next;
  if (bank.tail == slot) bank.tail = prev;
  if (bank.head == kNone) queued_banks_[bank_index / 64] &= ~(uint64_t(1) << (bank_index % 64));
  --window_size_;
  slots_[slot].next = free_slot_;
  free_slot_ = slot;
  schedule(r, now);
  command_free_ = now + 1;  // one request scheduled per cycle
  // Only the scheduled bank's next command moved.
  uint64_t after = ready_bank == bank_index ? second : ready;
  if (overflow_head_ != kNone) {
    const uint32_t entering = overflow_head_;
    enter_window();
    after = std::min(after, banks_[slots_[entering].where.bank].next_cmd);
  }
  if (bank.head != kNone) after = std::min(after, bank.next_cmd);
  earliest_ = after;
  return after;
}

void DramChannel::channel_process() {
  waker_.fired();
  const uint64_t now = waker_.now();
  sample_queue(now);
  while (arrivals_.ready(now)) {
    const uint32_t slot = arrivals_.pop();
    if (overflow_tail_ == kNone)
      overflow_head_ = slot;
    else
      slots_[overflow_tail_].next = slot;
    overflow_tail_ = slot;
    ++overflow_size_;
  }
  while (overflow_head_ != kNone && window_size_ < config_.queue_depth) enter_window();
  // None can go before the command bus frees, nor before a bank does (most
  // wake-ups that schedule nothing are arrivals while every bank is busy).
  const uint64_t bank_ready = command_free_ <= now && earliest_ <= now ? schedule_one(now) : earliest_;
  traced_depth_ = pending();
  uint64_t next = arrivals_.next_ready();
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
