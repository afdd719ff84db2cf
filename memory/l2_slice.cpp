#include "memory/l2_slice.h"

#include "core/bit_ops.h"

#include <algorithm>

namespace tlmgpu::memory {

L2Slice::L2Slice(sc_core::sc_module_name name, const core::GpuConfig& config,
                 const sc_core::sc_time& clock_period, uint32_t index)
    : ClockedModule(name, kL2Stage, clock_period), config_(config.l2), index_(index),
      rop_latency_(config.l2_rop_latency), tags_(config.l2),
      input_limit_(config.l2_input_queue ? config.l2_input_queue : ~uint32_t(0)),
      dram_queue_limit_(config.l2_dram_queue ? config.l2_dram_queue : ~uint32_t(0)),
      dram_pool_(config.l2.line_bytes), atomic_interval_(config.l2_atomic_same_address_interval) {
  map_ = L2AddressMap(config.l2_slices, config.l2_interleave_bytes);
  soc_addresses_ = config.soc_memory == "soc";
  const uint32_t channels = config.dram.channels;
  const uint32_t channel = uint32_t(uint64_t(index) * channels / map_.slices());
  // Slices sharing this channel: those with s * channels / slices == channel.
  uint32_t first = index, count = 0;
  for (uint32_t s = 0; s < map_.slices(); ++s)
    if (uint64_t(s) * channels / map_.slices() == channel) {
      first = std::min(first, s);
      ++count;
    }
  slices_per_channel_ = std::max<uint32_t>(count, 1);
  index_in_channel_ = index - first;
  target_socket.register_nb_transport_fw(this, &L2Slice::nb_transport_fw);
  dram_socket.register_nb_transport_bw(this, &L2Slice::nb_transport_bw);
}

L2Slice::~L2Slice() = default;

uint64_t L2Slice::dram_address(uint64_t local) const {
  const core::FixedDivisor& interleave = map_.interleave();
  return (interleave.div(local) * slices_per_channel_ + index_in_channel_) * interleave.divisor() +
         interleave.mod(local);
}

tlm::tlm_sync_enum L2Slice::nb_transport_fw(tlm::tlm_generic_payload& payload, tlm::tlm_phase& phase,
                                            sc_core::sc_time& delay) {
  if (phase != tlm::BEGIN_REQ) return tlm::TLM_ACCEPTED;
  const uint64_t now = this->now();
  const uint64_t ready = now + std::max<uint64_t>(cycles_in(delay), 1) + rop_latency_;
  if (payload.has_mm()) payload.acquire();  // kept until answered (respond)
  rop_pipeline_.push(ready, 0, &payload);
  if (!blocked_) wake_at(std::max(ready, port_free_));
  // Only the requests through the pipeline by now (not this one) can fill it.
  if (input_queue_.size() + rop_pipeline_.size() > input_limit_) admit(now);
  if (input_queue_full()) {
    // Taken, but the crossbar may send the next request only after END_REQ.
    withheld_request_ = &payload;
    withheld_since_ = now;
    ++withheld_end_requests_;
    return tlm::TLM_ACCEPTED;
  }
  phase = tlm::END_REQ;
  return tlm::TLM_UPDATED;
}

void L2Slice::admit_ready(uint64_t now) {
  do {
    input_queue_.push_back(rop_pipeline_.pop());
  } while (rop_pipeline_.ready(now) && !input_queue_full());
}

void L2Slice::end_withheld_request(uint64_t now) {
  crossbar_held_cycles_ += now - withheld_since_;
  tlm::tlm_generic_payload& p = *const_cast<tlm::tlm_generic_payload*>(withheld_request_);
  withheld_request_ = nullptr;
  tlm::tlm_phase phase = tlm::END_REQ;
  sc_core::sc_time zero = sc_core::SC_ZERO_TIME;
  requester_bw_->nb_transport_bw(p, phase, zero);
}

void L2Slice::answer(const Mshrs::Entry& entry, const Waiter& w) {
  const uint64_t ready = entry.ready_of(w.units);
  // The data leaves the slice the cycle after it arrives.
  respond(*w.payload, std::max(ready + 1, w.earliest - w.extra) + w.extra);
}

tlm::tlm_sync_enum L2Slice::nb_transport_bw(tlm::tlm_generic_payload& payload, tlm::tlm_phase& phase,
                                            sc_core::sc_time& delay) {
  const uint64_t now = this->now();
  if (sc_core::sc_time_stamp() != cycle_delay(now)) {
    // Between clock edges (a foreign target's thread; the GPU's own channels
    // answer from the clock's driver): taken at the slice's next run, whose
    // cycle is the GPU's, not one derived here.
    late_phases_.push_back({&payload, phase, delay});
    const uint64_t cycle = cycles_in(sc_core::sc_time_stamp());
    wake_at(cycle + 1);
    return tlm::TLM_ACCEPTED;
  }
  dram_phase(payload, phase, delay, now);
  if (phase != tlm::BEGIN_RESP) return tlm::TLM_ACCEPTED;
  phase = tlm::END_RESP;
  return tlm::TLM_COMPLETED;
}

void L2Slice::dram_phase(tlm::tlm_generic_payload& payload, const tlm::tlm_phase& phase, const sc_core::sc_time& delay,
                         uint64_t now) {
  if (phase != tlm::BEGIN_RESP && phase != tlm::END_REQ) return;
  if (&payload == dram_open_request_) {
    // END_REQ, or BEGIN_RESP, which ends the request phase too: the next
    // held request may go (from the slice's process).
    dram_open_request_ = nullptr;
    // The next held request may go, and a lookup that waited for room may run.
    wake_at(now + 1);
  }
  if (phase == tlm::END_REQ) return;
  DramRequest* found = dram_pool_.find(payload);
  if (!found) SC_REPORT_FATAL(name(), "DRAM response for a request this slice did not send");
  dram_answer(*found, now + std::max<uint64_t>(cycles_in(delay), 1));
}

void L2Slice::dram_answer(DramRequest& r, uint64_t ready) {
  fills_.push(ready, 0, &r);
  if (!r.writeback) {
    // Everyone waiting only for sectors whose arrival is now known is
    // answered at once; the tags change at `ready`.
    Mshrs::Entry& entry = *mshrs_.find(r.line);
    entry.set_ready(r.units, ready);
    size_t kept = 0;
    for (size_t i = 0; i < entry.waiters.size(); ++i) {
      const Waiter w = entry.waiters[i];
      if ((w.units & ~entry.known) == 0)
        answer(entry, w);
      else
        entry.waiters[kept++] = w;
    }
    entry.waiters.resize(kept);
  }
  // The tags change exactly at the arrival cycle (a victim's write-back leaves
  // then), whatever else runs in between.
  wake_at(ready);
}

void L2Slice::take_late_dram_phases(uint64_t now) {
  std::vector<LatePhase> late;
  late.swap(late_phases_);
  for (const LatePhase& l : late) {
    dram_phase(*l.payload, l.phase, l.delay, now);
    if (l.phase == tlm::BEGIN_RESP) {
      // It was answered TLM_ACCEPTED: the response phase ends now.
      tlm::tlm_phase end = tlm::END_RESP;
      sc_core::sc_time zero = sc_core::SC_ZERO_TIME;
      dram_socket->nb_transport_fw(*l.payload, end, zero);
    }
  }
  // The queue to DRAM sends one held request a cycle (GPGPU-Sim's L2-to-DRAM
  // queue moves one a cycle into the channel).
  if (!dram_open_request_ && !dram_held_.empty()) {
    const HeldRequest h = dram_held_.front();
    dram_held_.pop_front();
    begin_dram_request(*h.request, h.arrive, now);
  }
}

void L2Slice::respond(tlm::tlm_generic_payload& payload, uint64_t ready) {
  const uint64_t now = this->now();
  if (&payload == withheld_request_) {
    // Answered before the input queue had room: BEGIN_RESP ends its request phase.
    crossbar_held_cycles_ += now - withheld_since_;
    withheld_request_ = nullptr;
  }
  payload.set_response_status(tlm::TLM_OK_RESPONSE);
  sc_core::sc_time delay = cycle_delay(ready > now ? ready - now : 1);
  tlm::tlm_phase phase = tlm::BEGIN_RESP;
  requester_bw_->nb_transport_bw(payload, phase, delay);
  if (payload.has_mm()) payload.release();
}

void L2Slice::end_of_elaboration() {
  // Answers go straight to the requester's backward interface: the simple
  // socket's own backward path only looks for a blocking call it turned into
  // phases, and nothing calls b_transport on a slice.
  requester_bw_ = target_socket.get_base_port().operator->();
}

void L2Slice::send_to_dram(uint64_t line, uint32_t units, bool writeback, uint64_t arrive) {
  DramRequest* r = &dram_pool_.take();  // the slice's reference, released when the answer is applied
  ++dram_outstanding_;
  r->writeback = writeback;
  r->line = line;
  r->units = units;
  tlm::tlm_generic_payload& p = r->payload;
  p.set_command(writeback ? tlm::TLM_WRITE_COMMAND : tlm::TLM_READ_COMMAND);
  const uint64_t global = map_.global_address(index_, line);
  set_sector_span(p, soc_addresses_ ? global : dram_address(line), units, r->data.data(), r->byte_enables.data());
  p.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
  r->ext->kind = writeback ? AccessKind::Store : AccessKind::Load;
  r->ext->source = index_;
  r->ext->id = next_dram_id_++;
  r->ext->sector_mask = units;
  // The slice runs serially (the GPU's clock domain): functional memory is read here.
  if (writeback) copy_write_data(write_data_, global + offset_in_line(r->ext), p);
  const uint64_t now = this->now();
  r->ext->issue_cycle = now;
  if (dram_open_request_ || !dram_held_.empty()) {
    dram_held_.push_back({r, arrive});  // the request exclusion rule
    return;
  }
  begin_dram_request(*r, arrive, now);
}

void L2Slice::begin_dram_request(DramRequest& r, uint64_t arrive, uint64_t now) {
  tlm::tlm_generic_payload& p = r.payload;
  sc_core::sc_time delay = cycle_delay(arrive > now ? arrive - now : 1);
  tlm::tlm_phase phase = tlm::BEGIN_REQ;
  switch (dram_socket->nb_transport_fw(p, phase, delay)) {
    case tlm::TLM_ACCEPTED:
      dram_open_request_ = &p;  // END_REQ or BEGIN_RESP comes later
      break;
    case tlm::TLM_UPDATED:
      // END_REQ: the GPU's own channels. BEGIN_RESP: answered at once.
      if (phase == tlm::BEGIN_RESP) {
        dram_answer(r, now + std::max<uint64_t>(cycles_in(delay), 1));
        phase = tlm::END_RESP;
        sc_core::sc_time zero = sc_core::SC_ZERO_TIME;
        dram_socket->nb_transport_fw(p, phase, zero);
      }
      break;
    case tlm::TLM_COMPLETED:
      dram_answer(r, now + std::max<uint64_t>(cycles_in(delay), 1));
      break;
  }
}

CacheLine& L2Slice::allocate_line(uint64_t line, uint64_t now) {
  CacheLine& way = tags_.victim(line);
  if (way.present) {
    ++evictions_;
    if (way.dirty) {
      ++writebacks_;
      writeback_sectors_ += core::popcount32(way.dirty);
      send_to_dram(way.line, way.dirty, true, now + 1);
    }
  }
  tags_.install(way, line);
  return way;
}

bool L2Slice::handle_request(tlm::tlm_generic_payload& payload, uint64_t now) {
  auto* ext = payload.get_extension<MemRequestExtension>();
  const uint64_t local = map_.local_address(payload.get_address());
  const uint64_t line = tags_.line_of(local);
  const uint32_t units = tags_.expand(ext->sector_mask);

  if (ext->kind == AccessKind::Store) {
    // Write-back, write-allocate: whole sectors are written, nothing is read.
    CacheLine* way = tags_.find(line);
    if (!way) way = &allocate_line(line, now);
    tags_.touch(*way);
    way->valid |= units;
    way->dirty |= units;
    ++accesses_;
    ++writes_;
    written_sectors_ += core::popcount32(units);
    respond(payload, now + config_.hit_latency);
    return true;
  }

  const bool atomic = ext->kind == AccessKind::Atomic;
  // A miss's data comes later; the unit's queue is estimated from the hit time.
  const uint32_t extra_cycles = atomic ? atomic_unit_cycles(*ext, now + config_.hit_latency) : 0;
  CacheLine* way = tags_.find(line);
  const uint32_t missing = units & ~(way ? way->valid : 0u);
  if (missing == 0) {
    tags_.touch(*way);
    if (atomic) way->dirty |= units;
    ++accesses_;
    ++hits_;
    if (atomic) ++atomics_;
    respond(payload, now + config_.hit_latency + extra_cycles);
    return true;
  }
  Mshrs::Entry* entry = mshrs_.find(line);
  const uint32_t extra = entry ? missing & ~entry->requested : missing;
  if (entry && entry->requests >= config_.mshr_merges) return false;
  if (extra && (entry ? dram_outstanding_ >= config_.mshrs : mshrs_.size() >= config_.mshrs)) {
    if (!entry) waits_for_entry_ = &payload;
    return false;
  }
  if (!entry) entry = &mshrs_.allocate(line);
  ++entry->requests;
  if (extra) {
    entry->requested |= extra;
    ++entry->unapplied;
    ++misses_;
    ++dram_reads_;
    // The miss is known after the tag lookup.
    send_to_dram(line, extra, false, now + config_.hit_latency);
  } else {
    ++mshr_merges_;
  }
  if (atomic) entry->dirty |= missing;
  const Waiter w{&payload, missing, now + config_.hit_latency + extra_cycles, extra_cycles};
  if ((missing & ~entry->known) == 0)
    answer(*entry, w);
  else
    entry->waiters.push_back(w);
  ++accesses_;
  if (atomic) ++atomics_;
  return true;
}

uint32_t L2Slice::atomic_unit_cycles(const MemRequestExtension& ext, uint64_t data_cycle) {
  if (atomic_address_free_.size() >= kAtomicAddressesTracked)
    for (auto it = atomic_address_free_.begin(); it != atomic_address_free_.end();)
      it = it->second <= data_cycle ? atomic_address_free_.erase(it) : std::next(it);
  const uint64_t ops = std::max<uint32_t>(ext.atomic_same_address_ops, 1u);
  uint64_t& free_at = atomic_address_free_[ext.atomic_address];
  const uint64_t start = std::max(data_cycle, free_at);
  free_at = start + ops * atomic_interval_;
  const uint64_t waited = (start - data_cycle) + (ops - 1) * atomic_interval_;
  atomic_serialisation_cycles_ += waited;
  return uint32_t(waited + kL2AtomicCycles);
}

void L2Slice::fill_from_host_copy(uint64_t local, uint32_t units) {
  const uint64_t line = tags_.line_of(local);
  units = tags_.expand(units);
  CacheLine* way = tags_.find(line);
  if (!way) {
    // The victim's write-back belongs to the copy, not to a kernel: it is
    // not sent (nor counted as a kernel's eviction).
    way = &tags_.victim(line);
    tags_.install(*way, line);
  }
  tags_.touch(*way);
  way->valid |= units;
  way->dirty |= units;
  host_copy_fills_ += core::popcount32(units);
}

void L2Slice::apply_fill(DramRequest& request, uint64_t now) {
  // Copy what is needed first: allocating a line below may send a victim's
  // write-back, which reuses this (now free) request object.
  const bool writeback = request.writeback;
  const uint64_t line = request.line;
  const uint32_t units = request.units;
  --dram_outstanding_;
  request.payload.release();  // back to dram_pool_ once nobody else holds it
  blocked_ = false;  // a blocked head request may fit now
  if (writeback) return;
  CacheLine* way = tags_.find(line);
  if (!way) way = &allocate_line(line, now);
  tags_.touch(*way);
  way->valid |= units;
  Mshrs::Entry* entry = mshrs_.find(line);
  if (!entry) return;
  way->dirty |= entry->dirty & way->valid;
  if (--entry->unapplied == 0) mshrs_.release(*entry);
}

void L2Slice::reschedule() {
  // Every queued item counts: a wake asked for by another process in this
  // cycle may have been merged into the one that is running now.
  // next_ready() is UINT64_MAX for an empty queue.
  uint64_t next = fills_.next_ready();
  if (!late_phases_.empty() || (!dram_open_request_ && !dram_held_.empty())) next = std::min(next, now() + 1);
  // A full DRAM queue: the END_REQ that makes room wakes the slice.
  if (!blocked_ && !dram_queue_full())
    next = std::min(next, std::max(input_queue_.empty() ? rop_pipeline_.next_ready() : 0, port_free_));
  if (next != ~uint64_t(0)) wake_at(next);
}

void L2Slice::evaluate(uint64_t now) {
  if (!late_phases_.empty() || (!dram_open_request_ && !dram_held_.empty())) take_late_dram_phases(now);
  // Fills first: one arriving now frees its MSHR for a request in this cycle.
  while (fills_.ready(now)) {
    uint64_t ready = 0;
    DramRequest* r = fills_.pop(&ready);
    apply_fill(*r, now);
  }
  admit(now);
  const bool dram_full = dram_queue_full();
  if (dram_full && dram_queue_full_since_ == ~uint64_t(0)) dram_queue_full_since_ = now;
  if (!dram_full && dram_queue_full_since_ != ~uint64_t(0)) {
    dram_queue_full_cycles_ += now - dram_queue_full_since_;
    dram_queue_full_since_ = ~uint64_t(0);
  }
  if (!blocked_ && !dram_full && port_free_ <= now && !input_queue_.empty()) {
    tlm::tlm_generic_payload* head = input_queue_.front();
    const bool table_still_full = head == waits_for_entry_ && mshrs_.size() >= config_.mshrs;
    waits_for_entry_ = nullptr;
    if (table_still_full) {
      // What handle_request would find again: a miss with no entry and no free one.
      waits_for_entry_ = head;
      ++reservation_fails_;
      blocked_ = true;
    } else if (handle_request(*head, now)) {
      input_queue_.pop_front();
      port_free_ = now + 1;
      if (withheld_request_) {
        admit(now);  // requests already through the pipeline take the room first
        if (!input_queue_full()) end_withheld_request(now);
      }
    } else {
      // MSHRs or merge slots are full: the head waits for a fill (in order).
      ++reservation_fails_;
      blocked_ = true;
    }
  }
  reschedule();
}

void L2Slice::report_stats(core::StatReport& out) const {
  using core::Unit;
  out.add("accesses", accesses_, Unit::Count, "requests the slice looked up (loads, stores, atomics)");
  out.add("hits", hits_, Unit::Count, "accesses whose sectors were all valid in the slice");
  out.add("misses", misses_, Unit::Count, "accesses that sent a read to DRAM");
  out.add("mshr_merges", mshr_merges_, Unit::Count, "misses merged into an MSHR already waiting for their line");
  out.add("reservation_fails", reservation_fails_, Unit::Count,
          "lookups refused for a cycle (no MSHR, no line to allocate): retried");
  out.add("writes", writes_, Unit::Count, "store requests");
  out.add("atomics", atomics_, Unit::Count, "atomic requests (done in the slice's atomic unit)");
  out.add("atomic_serialisation_cycles", atomic_serialisation_cycles_, Unit::Cycles,
          "cycles atomics to one address waited for each other in the atomic unit");
  out.add("writebacks", writebacks_, Unit::Count, "dirty lines written back to DRAM");
  out.add("writeback_sectors", writeback_sectors_, Unit::Sectors, "dirty sectors those write-backs carried");
  out.add("written_sectors", written_sectors_, Unit::Sectors, "sectors stores wrote into the slice");
  out.add("evictions", evictions_, Unit::Count, "lines replaced to make room");
  out.add("dram_reads", dram_reads_, Unit::Count, "reads sent to DRAM");
  out.add("host_copy_fills", host_copy_fills_, Unit::Sectors,
          "sectors a host-to-device copy left valid and dirty in the slice");
  out.add("queued_requests", double(rop_pipeline_.size() + input_queue_.size()), Unit::Entries,
          "requests in the slice's ROP pipeline and input queue");
  out.add("withheld_end_requests", withheld_end_requests_, Unit::Count,
          "requests that found the input queue full: their END_REQ waited for room (crossbar back-pressure)");
  out.add("crossbar_held_cycles", crossbar_held_cycles_, Unit::Cycles,
          "cycles the slice withheld the crossbar's END_REQ");
  out.add("dram_queue_full_cycles", dram_queue_full_cycles_, Unit::Cycles,
          "cycles the slice looked nothing up because its requests to DRAM filled l2.dram_queue");
  out.add("blocked", blocked_ ? 1.0 : 0.0, Unit::Flag, "the slice waits for room to take its next request");
  out.add("mshr_entries", double(mshrs_.size()), Unit::Entries, "MSHRs in use");
  out.add("dram_outstanding", dram_outstanding_, Unit::Entries, "requests sent to DRAM and not yet answered");
}

}  // namespace tlmgpu::memory
