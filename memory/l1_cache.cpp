#include "memory/l1_cache.h"

#include "core/bit_ops.h"

#include <algorithm>

namespace tlmgpu::memory {

L1Cache::L1Cache(sc_core::sc_module_name name, const core::CacheConfig& config,
                 const sc_core::sc_time& clock_period)
    : sc_module(name), config_(config), period_(clock_period), period_div_(clock_period.value()), tags_(config),
      pool_(config.line_bytes) {
  access_export.bind(*this);
  socket.register_nb_transport_bw(this, &L1Cache::nb_transport_bw);
}

L1Cache::~L1Cache() = default;

void L1Cache::set_ways(uint32_t ways) {
  if (ways == config_.ways) return;
  apply_responses(~uint64_t(0));
  config_.size_bytes = config_.size_bytes / config_.ways * ways;
  config_.ways = ways;
  tags_ = SectorTags(config_);
  ++version_;
}

L1Cache::Transaction& L1Cache::new_transaction() {
  ++outstanding_;
  return pool_.take();  // the cache's reference, released when the answer is applied
}

void L1Cache::send(Transaction& tx, AccessKind kind, uint64_t cycle) {
  tlm::tlm_generic_payload& p = tx.payload;
  p.set_command(kind == AccessKind::Store || kind == AccessKind::Atomic ? tlm::TLM_WRITE_COMMAND
                                                                         : tlm::TLM_READ_COMMAND);
  set_sector_span(p, tx.line, tx.units, tx.data.data(), tx.byte_enables.data());
  p.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
  tx.ext->kind = kind;
  tx.ext->source = 0;  // the interconnect writes its upstream port here
  tx.ext->id = next_request_id_++;
  tx.ext->sector_mask = tx.units;
  tx.ext->issue_cycle = cycle;
  tx.ext->atomic_same_address_ops = kind == AccessKind::Atomic ? tx.atomic_same_address_ops : 0;
  tx.ext->atomic_address = tx.atomic_address;
  miss_queue_.push_back(&tx);
  if (outbox_)
    outbox_->sends_.push_back(this);
  else
    send_next();
}

void L1Cache::send_next() {
  if (request_open_ || miss_queue_.empty()) return;
  Transaction& tx = *miss_queue_.front();
  tlm::tlm_generic_payload& p = tx.payload;
  // Reaches the interconnect in the cycle after it was made (tag check), or
  // after it is sent if it waited in the queue.
  const uint64_t now = this->now(), cycle = tx.ext->issue_cycle;
  sc_core::sc_time delay = cycle + 1 > now + 1 ? cycles_delay(cycle + 1 - now, period_) : period_;
  // The SMs evaluate in parallel; functional memory is read here, serially.
  if (p.is_write()) copy_write_data(write_data_, p.get_address(), p);
  tlm::tlm_phase phase = tlm::BEGIN_REQ;
  request_open_ = true;
  const tlm::tlm_sync_enum status = socket->nb_transport_fw(p, phase, delay);
  // END_REQ now, or later on the backward path (which sends the next).
  if (status != tlm::TLM_ACCEPTED || phase != tlm::BEGIN_REQ) {
    request_open_ = false;
    miss_queue_.pop_front();
  }
}

void L1RequestOutbox::deliver() {
  for (L1Cache* cache : sends_) cache->send_next();
  sends_.clear();
}

void L1Cache::write_allocate(uint64_t line, uint32_t full_units) {
  // Sectors the store writes whole become valid (a present line keeps its
  // others); a line that is absent is allocated only for such sectors, with
  // no fetch: reading the rest misses then (GPGPU-Sim's lazy fetch on read).
  const uint32_t whole = tags_.whole_sectors(full_units);
  CacheLine* way = tags_.find(line);
  if (!way) {
    if (whole == 0) return;
    way = &tags_.victim(line);
    if (way->present) ++evictions_;
    tags_.install(*way, line);
    ++write_allocations_;
  } else {
    tags_.touch(*way);
  }
  way->valid |= whole;
}

uint64_t L1Cache::data_cycle(const Mshrs::Entry& entry, uint32_t units, uint64_t now) const {
  // Data reaches the pipeline hit_latency cycles after it reaches the cache.
  return std::max(now, entry.ready_of(units)) + config_.hit_latency;
}

bool L1Cache::try_access(const LineAccess& access, uint64_t cycle) {
  // Answers that arrived by now are applied first, so the access sees the same
  // cache state whichever process ran first in this cycle.
  apply_responses(cycle);
  if (cycle >= queue_room_at_) queue_room_at_ = ~uint64_t(0);
  if (version_ == refused_version_ && access.id == refused_.id && access.line_addr == refused_.line_addr &&
      access.sector_mask == refused_.sector_mask && access.kind == refused_.kind &&
      access.bypass_l1 == refused_.bypass_l1) {
    ++reservation_fails_;
    return false;
  }
  // Most calls of a busy SM end above: the rest lives in its own function so
  // that the refusal saves no registers.
  return look_up(access, cycle);
}

[[gnu::noinline]] bool L1Cache::look_up(const LineAccess& access, uint64_t cycle) {
  ++version_;  // every path below either changes the state or records a refusal
  const uint32_t units = tags_.expand(access.sector_mask);
  const uint64_t line = tags_.line_of(access.line_addr);

  if (access.kind == AccessKind::Store || access.kind == AccessKind::Atomic || access.bypass_l1) {
    // Nothing is allocated: stores, atomics and bypassing loads go to the
    // interconnect without an MSHR, through the miss queue (GPGPU-Sim's
    // write-through stores take its miss queue; its bypassing accesses wait
    // for room in the interconnect's input buffer, which the queue's
    // hand-over reflects).
    if (miss_queue_full()) return miss_queue_fail(access);
    ++accesses_;
    if (access.kind == AccessKind::Store) {
      ++writes_;
      if (!access.bypass_l1) {
        if (config_.write_allocate) {
          write_allocate(line, access.full_mask);
        } else if (CacheLine* way = tags_.find(line)) {
          // Fermi: write-through without allocation; a write hit evicts the line.
          tags_.invalidate(*way);
          ++write_evicts_;
        }
      }
    } else {
      ++bypasses_;
    }
    Transaction& tx = new_transaction();
    tx.fill = false;
    tx.line = line;
    // Exactly the 32-byte units the lanes touch: the L1's sector size does
    // not apply to what bypasses it.
    tx.units = access.sector_mask & tags_.line_mask();
    tx.access_id = access.id;
    tx.atomic_same_address_ops = access.atomic_same_address_ops;
    tx.atomic_address = access.atomic_address;
    tx.through_pipeline = access.kind == AccessKind::Store;
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
  Mshrs::Entry* entry = mshrs_.find(line);
  const uint32_t extra = entry ? missing & ~entry->requested : missing;
  if (entry && entry->requests >= config_.mshr_merges) return reservation_fail(access);
  if (extra && fills_outstanding_ >= config_.mshrs) return reservation_fail(access);
  if (extra && miss_queue_full()) return miss_queue_fail(access);
  if (!entry) entry = &mshrs_.allocate(line);
  ++accesses_;
  ++entry->requests;
  if (extra) {
    // A new line, or sectors nobody asked for yet: one request for them.
    Transaction& tx = new_transaction();
    tx.fill = true;
    tx.through_pipeline = true;
    tx.line = line;
    tx.units = extra;
    ++fills_outstanding_;
    entry->requested |= extra;
    ++entry->unapplied;
    ++misses_;
    send(tx, access.kind == AccessKind::InstructionFetch ? AccessKind::InstructionFetch : AccessKind::Load, cycle);
  } else {
    ++mshr_merges_;
  }
  if ((missing & ~entry->known) == 0)
    response_port->access_done(access.id, data_cycle(*entry, missing, cycle));
  else
    entry->waiters.push_back({access.id, missing});
  return true;
}

tlm::tlm_sync_enum L1Cache::nb_transport_bw(tlm::tlm_generic_payload& payload, tlm::tlm_phase& phase,
                                            sc_core::sc_time& delay) {
  if (phase == tlm::END_REQ) {
    // The crossbar took the open request late: the queue has room again (a
    // refused access may retry this cycle) and the next request may go.
    if (!request_open_ || &miss_queue_.front()->payload != &payload)
      SC_REPORT_FATAL(name(), "END_REQ for a request this cache has not sent");
    request_open_ = false;
    miss_queue_.pop_front();
    ++version_;
    const uint64_t now = this->now();
    queue_room_at_ = now;
    if (outbox_)
      outbox_->sends_.insert(outbox_->sends_.end(), miss_queue_.size(), this);
    else
      send_next();
    response_port->release_at(now);
    return tlm::TLM_ACCEPTED;
  }
  if (phase != tlm::BEGIN_RESP) return tlm::TLM_ACCEPTED;
  Transaction* found = pool_.find(payload);
  if (!found) SC_REPORT_FATAL(name(), "response for a transaction this cache did not send");
  Transaction& tx = *found;
  const uint64_t now = this->now();
  const uint64_t ready = now + std::max<uint64_t>(period_div_.div(delay.value()), 1);
  // The arrival cycle is known now, so whoever waits is told at once; the
  // cache state changes at `ready` (applied lazily), when the MSHR frees.
  responses_.push(ready, 0, &tx);
  next_apply_ = std::min(next_apply_, ready);
  response_port->release_at(ready);
  if (tx.fill) {
    Mshrs::Entry& entry = *mshrs_.find(tx.line);
    entry.set_ready(tx.units, ready);
    size_t kept = 0;
    for (size_t i = 0; i < entry.waiters.size(); ++i) {
      const Waiter w = entry.waiters[i];
      if ((w.units & ~entry.known) == 0)
        response_port->access_done(w.access_id, data_cycle(entry, w.units, now));
      else
        entry.waiters[kept++] = w;
    }
    entry.waiters.resize(kept);
  } else {
    response_port->access_done(tx.access_id, ready + (tx.through_pipeline ? config_.hit_latency : 1));
  }
  phase = tlm::END_RESP;
  return tlm::TLM_COMPLETED;
}

void L1Cache::apply_due(uint64_t cycle) {
  while (responses_.ready(cycle)) apply(*responses_.pop());
  next_apply_ = responses_.next_ready();
}

void L1Cache::apply(Transaction& tx) {
  ++version_;
  if (tx.fill) {
    ++fills_;
    --fills_outstanding_;
    CacheLine* way = tags_.find(tx.line);
    if (!way) {
      way = &tags_.victim(tx.line);
      if (way->present) ++evictions_;
      tags_.install(*way, tx.line);
    } else {
      tags_.touch(*way);
    }
    way->valid |= tx.units;
    Mshrs::Entry* entry = mshrs_.find(tx.line);
    if (entry && --entry->unapplied == 0) mshrs_.release(*entry);
  }
  --outstanding_;
  tx.payload.release();  // back to pool_ once nobody else holds it
}

void L1Cache::report_stats(core::StatReport& out) const {
  using core::Unit;
  // Fills that arrived by now count even if no access has looked since.
  const_cast<L1Cache*>(this)->apply_responses(current_cycle(period_));
  out.add("capacity_bytes", config_.size_bytes, Unit::Bytes,
          "the cache's size in the last launch (with a unified L1D / shared-memory array: what the carve-out left)");
  out.add("accesses", accesses_, Unit::Count, "line accesses the cache took (coalesced transactions)");
  out.add("hits", hits_, Unit::Count, "accesses whose sectors were all valid");
  out.add("misses", misses_, Unit::Count, "accesses that sent a request below");
  out.add("mshr_merges", mshr_merges_, Unit::Count, "misses merged into an MSHR already waiting for their line");
  out.add("reservation_fails", reservation_fails_, Unit::Count,
          "accesses refused for a cycle (MSHRs or miss queue full, line reserved): retried");
  out.add("miss_queue_fails", miss_queue_fails_, Unit::Count,
          "reservation fails that found the miss queue full, the crossbar's input buffer having no room (repeats "
          "while nothing changed count in reservation_fails only)");
  out.add("writes", writes_, Unit::Count, "store accesses (written through to the L2)");
  out.add("write_evicts", write_evicts_, Unit::Count, "stores that invalidated the line they hit (write-evict)");
  out.add("write_allocations", write_allocations_, Unit::Count,
          "stores that allocated their absent line without a fetch (l1d.write_allocate)");
  out.add("bypasses", bypasses_, Unit::Count, "accesses sent to the L2 uncached (ld.cg, volatile, atomics)");
  out.add("evictions", evictions_, Unit::Count, "lines replaced by a fill");
  out.add("fills", fills_, Unit::Count, "lines filled from below");
}

}  // namespace tlmgpu::memory
