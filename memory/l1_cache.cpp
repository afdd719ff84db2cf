#include "memory/l1_cache.h"

#include <bitset>

namespace tlmgpu::memory {

namespace {
uint32_t popcount(uint32_t v) { return uint32_t(std::bitset<32>(v).count()); }
}  // namespace

L1Cache::L1Cache(sc_core::sc_module_name name, const platform::CacheConfig& config,
                 const sc_core::sc_time& clock_period)
    : sc_module(name), config_(config), period_(clock_period), tags_(config) {
  if (config_.hit_latency == 0) config_.hit_latency = 1;  // completions must lie in the future
  if (config_.mshrs == 0) config_.mshrs = 1;
  if (config_.mshr_merges == 0) config_.mshr_merges = 1;
  access_export.bind(*this);
  socket.register_nb_transport_bw(this, &L1Cache::nb_transport_bw);
  SC_METHOD(response_process);
  sensitive << response_event_;
  dont_initialize();
}

L1Cache::~L1Cache() = default;

L1Cache::Transaction& L1Cache::new_transaction() {
  if (free_.empty()) {
    transactions_.push_back(std::make_unique<Transaction>());
    Transaction* tx = transactions_.back().get();
    tx->ext = new MemRequestExtension;
    tx->payload.set_extension(tx->ext);  // owned (and freed) by the payload
    by_payload_[&tx->payload] = tx;
    free_.push_back(tx);
  }
  Transaction* tx = free_.back();
  free_.pop_back();
  ++outstanding_;
  return *tx;
}

void L1Cache::send(Transaction& tx, AccessKind kind, uint64_t cycle) {
  tlm::tlm_generic_payload& p = tx.payload;
  p.set_command(kind == AccessKind::Store || kind == AccessKind::Atomic ? tlm::TLM_WRITE_COMMAND
                                                                         : tlm::TLM_READ_COMMAND);
  p.set_address(tx.line);
  p.set_data_ptr(nullptr);  // timing only: values were computed when the instruction executed
  p.set_data_length(popcount(tx.units) * kSectorUnitBytes);
  p.set_streaming_width(p.get_data_length());
  p.set_byte_enable_ptr(nullptr);
  p.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
  tx.ext->kind = kind;
  tx.ext->source = 0;  // the interconnect writes its upstream port here
  tx.ext->id = next_request_id_++;
  tx.ext->sector_mask = tx.units;
  tx.ext->issue_cycle = cycle;
  // The request reaches the interconnect in the next cycle (tag check).
  const uint64_t now = current_cycle(period_);
  sc_core::sc_time delay = cycles_delay(cycle + 1 > now ? cycle + 1 - now : 1, period_);
  tlm::tlm_phase phase = tlm::BEGIN_REQ;
  socket->nb_transport_fw(p, phase, delay);
}

bool L1Cache::try_access(const LineAccess& access, uint64_t cycle) {
  // Fills due by now are applied first: the access sees the same cache state
  // whichever of the SM and this cache ran first in this cycle.
  deliver_responses(cycle);
  const uint32_t units = tags_.expand(access.sector_mask);
  const uint64_t line = access.line_addr - access.line_addr % tags_.line_bytes();

  if (access.kind == AccessKind::Store || access.kind == AccessKind::Atomic || access.bypass_l1) {
    if (outstanding_ >= config_.mshrs) return reservation_fail();
    ++accesses_;
    if (access.kind == AccessKind::Store) {
      ++writes_;
      // Fermi: write-through without allocation; a write hit evicts the line.
      if (!access.bypass_l1)
        if (CacheLine* way = tags_.find(line)) {
          tags_.invalidate(*way);
          ++write_evicts_;
        }
    } else {
      ++bypasses_;
    }
    Transaction& tx = new_transaction();
    tx.fill = false;
    tx.line = line;
    tx.units = access.kind == AccessKind::Store ? (access.sector_mask & tags_.line_mask()) : units;
    tx.access_id = access.id;
    send(tx, access.kind, cycle);
    return true;
  }

  CacheLine* way = tags_.find(line);
  const uint32_t missing = units & ~(way ? way->valid : 0u);
  if (missing == 0) {
    tags_.touch(*way);
    ++accesses_;
    ++hits_;
    response_port->access_done(access.id, cycle + config_.hit_latency);
    return true;
  }
  if (auto* entry = mshrs_.find(line)) {
    if (entry->waiters.size() >= config_.mshr_merges) return reservation_fail();
    const uint32_t extra = missing & ~entry->requested;
    if (extra) {
      // Sectors nobody asked for yet: one more request for the same entry.
      if (outstanding_ >= config_.mshrs) return reservation_fail();
      Transaction& tx = new_transaction();
      tx.fill = true;
      tx.line = line;
      tx.units = extra;
      entry->requested |= extra;
      ++entry->outstanding;
      ++misses_;
      send(tx, AccessKind::Load, cycle);
    } else {
      ++mshr_merges_;
    }
    entry->waiters.push_back({access.id});
    ++accesses_;
    return true;
  }
  if (outstanding_ >= config_.mshrs) return reservation_fail();
  auto& entry = mshrs_.allocate(line);
  entry.requested = missing;
  entry.outstanding = 1;
  entry.waiters.push_back({access.id});
  Transaction& tx = new_transaction();
  tx.fill = true;
  tx.line = line;
  tx.units = missing;
  ++accesses_;
  ++misses_;
  send(tx, access.kind == AccessKind::InstructionFetch ? AccessKind::InstructionFetch : AccessKind::Load, cycle);
  return true;
}

tlm::tlm_sync_enum L1Cache::nb_transport_bw(tlm::tlm_generic_payload& payload, tlm::tlm_phase& phase,
                                            sc_core::sc_time& delay) {
  if (phase != tlm::BEGIN_RESP) return tlm::TLM_ACCEPTED;
  auto it = by_payload_.find(&payload);
  if (it == by_payload_.end()) SC_REPORT_FATAL(name(), "response for a transaction this cache did not send");
  const uint64_t now = current_cycle(period_);
  const uint64_t ready = now + std::max<uint64_t>(delay_cycles(delay, period_), 1);
  responses_.push(ready, 0, it->second);
  notify_at_cycle(response_event_, ready, period_);
  phase = tlm::END_RESP;
  return tlm::TLM_COMPLETED;
}

void L1Cache::deliver_responses(uint64_t cycle) {
  while (responses_.ready(cycle)) {
    uint64_t ready = 0;
    Transaction* tx = responses_.pop(&ready);
    complete(*tx, ready);
  }
}

void L1Cache::complete(Transaction& tx, uint64_t ready) {
  // Data reaches the pipeline hit_latency cycles after it reaches the cache.
  const uint64_t done = ready + config_.hit_latency;
  if (tx.fill) {
    ++fills_;
    CacheLine* way = tags_.find(tx.line);
    if (!way) {
      way = &tags_.victim(tx.line);
      if (way->present) ++evictions_;
      tags_.install(*way, tx.line);
    } else {
      tags_.touch(*way);
    }
    way->valid |= tx.units;
    if (auto* entry = mshrs_.find(tx.line)) {
      if (--entry->outstanding == 0) {
        const std::vector<Waiter> waiters = std::move(entry->waiters);
        mshrs_.release(tx.line);
        for (const Waiter& w : waiters) response_port->access_done(w.access_id, done);
      }
    }
  } else {
    response_port->access_done(tx.access_id, done);
  }
  --outstanding_;
  free_.push_back(&tx);
}

void L1Cache::response_process() {
  deliver_responses(current_cycle(period_));
  if (!responses_.empty()) notify_at_cycle(response_event_, responses_.next_ready(), period_);
}

void L1Cache::report_stats(stats::StatMap& out) const {
  out["accesses"] = double(accesses_);
  out["hits"] = double(hits_);
  out["misses"] = double(misses_);
  out["mshr_merges"] = double(mshr_merges_);
  out["reservation_fails"] = double(reservation_fails_);
  out["writes"] = double(writes_);
  out["write_evicts"] = double(write_evicts_);
  out["bypasses"] = double(bypasses_);
  out["evictions"] = double(evictions_);
  out["fills"] = double(fills_);
}

}  // namespace tlmgpu::memory
