#include "memory/interconnect.h"

#include "memory/bit_ops.h"

#include <algorithm>
#include <limits>
#include <string>

namespace tlmgpu::memory {

namespace {
constexpr uint64_t kNever = std::numeric_limits<uint64_t>::max();
constexpr uint32_t kHeaderBytes = 8;
}  // namespace

uint32_t Interconnect::request_bytes(AccessKind kind, uint32_t units) {
  if (kind == AccessKind::Store || kind == AccessKind::Atomic) return kHeaderBytes + popcount32(units) * 32;
  return kHeaderBytes;
}

uint32_t Interconnect::response_bytes(AccessKind kind, uint32_t units) {
  if (kind == AccessKind::Store) return kHeaderBytes;
  return std::max<uint32_t>(popcount32(units) * 32, kHeaderBytes);
}

void Interconnect::Direction::init(uint32_t sources, uint32_t destinations) {
  srcs = sources;
  dsts = destinations;
  slots.clear();
  free_slot = kNoSlot;
  head.assign(size_t(srcs) * dsts, kNoSlot);
  tail.assign(size_t(srcs) * dsts, kNoSlot);
  head_in.assign(size_t(srcs) * dsts, 0);
  words = (srcs + 63) / 64;
  nonempty.assign(size_t(words) * dsts, 0);
  busy_dsts.assign((dsts + 63) / 64, 0);
  in_free.assign(srcs, 0);
  out_free.assign(dsts, 0);
  last_src.assign(dsts, srcs - 1);  // the first grant goes to source 0
  waiting.assign(dsts, 0);
  src_bytes.assign(srcs, 0);
  dst_bytes.assign(dsts, 0);
}

void Interconnect::Direction::enqueue(uint32_t queue, const Packet& p) {
  uint32_t slot = free_slot;
  if (slot == kNoSlot) {
    slot = uint32_t(slots.size());
    slots.push_back({});
  } else {
    free_slot = slots[slot].next;
  }
  slots[slot].packet = p;
  slots[slot].next = kNoSlot;
  if (head[queue] == kNoSlot) {
    head[queue] = slot;
    head_in[queue] = p.in_cycle;
  } else {
    slots[tail[queue]].next = slot;
  }
  tail[queue] = slot;
}

Interconnect::Packet Interconnect::Direction::dequeue(uint32_t queue) {
  const uint32_t slot = head[queue];
  const Packet p = slots[slot].packet;
  const uint32_t next = slots[slot].next;
  head[queue] = next;
  if (next != kNoSlot) head_in[queue] = slots[next].packet.in_cycle;
  slots[slot].next = free_slot;
  free_slot = slot;
  return p;
}

namespace {
// First set bit in [from, to) of a bit array, else `to`.
uint32_t next_bit(const uint64_t* bits, uint32_t from, uint32_t to) {
  while (from < to) {
    const uint64_t word = bits[from / 64] >> (from % 64);
    if (word) return std::min(to, from + uint32_t(__builtin_ctzll(word)));
    from = (from / 64 + 1) * 64;
  }
  return to;
}
}  // namespace

uint32_t Interconnect::Direction::next_source(uint32_t dst, uint32_t from, uint32_t to) const {
  return next_bit(&nonempty[size_t(dst) * words], from, to);
}

uint64_t Interconnect::Direction::next_event() const {
  uint64_t next = arrivals.empty() ? kNever : arrivals.next_ready();
  for (uint32_t d = next_bit(busy_dsts.data(), 0, dsts); d < dsts; d = next_bit(busy_dsts.data(), d + 1, dsts)) {
    // The output link is free at out_free[d]; the earliest head that has
    // entered its input link by then cannot go earlier.
    uint64_t earliest = kNever;
    if (words == 1) {
      for (uint64_t m = nonempty[d]; m && earliest > out_free[d]; m &= m - 1)
        earliest = std::min(earliest, head_in[size_t(d) * srcs + uint32_t(__builtin_ctzll(m))]);
    } else {
      for (uint32_t s = next_source(d, 0, srcs); s < srcs && earliest > out_free[d]; s = next_source(d, s + 1, srcs))
        earliest = std::min(earliest, head_in[size_t(d) * srcs + s]);
    }
    next = std::min(next, std::max(earliest, out_free[d]));
  }
  return next;
}

Interconnect::Interconnect(sc_core::sc_module_name name, const platform::InterconnectConfig& config,
                           uint32_t upstream_ports, uint32_t downstream_ports, uint32_t interleave_bytes,
                           const sc_core::sc_time& clock_period)
    : sc_module(name), config_(config), period_(clock_period), waker_(clock_period) {
  map_.slices = std::max<uint32_t>(downstream_ports, 1);
  map_.interleave_bytes = std::max<uint32_t>(interleave_bytes, 1);
  init(upstream_ports, downstream_ports);
}

Interconnect::Interconnect(sc_core::sc_module_name name, const platform::GpuConfig& config,
                           const sc_core::sc_time& clock_period)
    : sc_module(name), config_(config.icnt), period_(clock_period), waker_(clock_period) {
  map_.slices = std::max<uint32_t>(config.l2_slices, 1);
  map_.interleave_bytes = std::max<uint32_t>(config.l2_interleave_bytes, 1);
  init(2 * config.num_sms, config.l2_slices);
}

Interconnect::~Interconnect() = default;

void Interconnect::init(uint32_t upstream_ports, uint32_t downstream_ports) {
  if (config_.latency == 0) config_.latency = 1;  // hand-offs are registered
  if (config_.bytes_per_cycle == 0) config_.bytes_per_cycle = 1;
  for (uint32_t p = 0; p < upstream_ports; ++p) {
    upstream_.push_back(std::make_unique<TargetSocket>(("up" + std::to_string(p)).c_str()));
    upstream_.back()->register_nb_transport_fw(this, &Interconnect::nb_transport_fw, int(p));
  }
  for (uint32_t s = 0; s < downstream_ports; ++s) {
    downstream_.push_back(std::make_unique<InitiatorSocket>(("down" + std::to_string(s)).c_str()));
    downstream_.back()->register_nb_transport_bw(this, &Interconnect::nb_transport_bw, int(s));
  }
  request_dir_.init(upstream_ports, downstream_ports);
  response_dir_.init(downstream_ports, upstream_ports);
  SC_METHOD(crossbar_process);
  sensitive << waker_.event();
  dont_initialize();
}

uint32_t Interconnect::flits(uint32_t bytes) const {
  return std::max<uint32_t>((bytes + config_.bytes_per_cycle - 1) / config_.bytes_per_cycle, 1);
}

tlm::tlm_sync_enum Interconnect::nb_transport_fw(int port, tlm::tlm_generic_payload& payload, tlm::tlm_phase& phase,
                                                 sc_core::sc_time& delay) {
  if (phase != tlm::BEGIN_REQ) return tlm::TLM_ACCEPTED;
  auto* ext = payload.get_extension<MemRequestExtension>();
  if (!ext) SC_REPORT_FATAL(name(), "request without MemRequestExtension");
  ext->source = uint32_t(port);
  Packet p;
  p.payload = &payload;
  p.src = uint32_t(port);
  p.dst = map_.slice_of(payload.get_address());
  p.flits = flits(request_bytes(ext->kind, ext->sector_mask));
  const uint64_t now = waker_.now();
  p.arrive = now + std::max<uint64_t>(delay_cycles(delay, period_), 1);
  request_dir_.arrivals.push(p.arrive, p.src, p, ext->id);
  waker_.wake_at(p.arrive, now);
  phase = tlm::END_REQ;
  return tlm::TLM_UPDATED;
}

tlm::tlm_sync_enum Interconnect::nb_transport_bw(int slice, tlm::tlm_generic_payload& payload, tlm::tlm_phase& phase,
                                                 sc_core::sc_time& delay) {
  if (phase != tlm::BEGIN_RESP) return tlm::TLM_ACCEPTED;
  auto* ext = payload.get_extension<MemRequestExtension>();
  Packet p;
  p.payload = &payload;
  p.src = uint32_t(slice);
  p.dst = ext->source;
  p.flits = flits(response_bytes(ext->kind, ext->sector_mask));
  const uint64_t now = waker_.now();
  p.arrive = now + std::max<uint64_t>(delay_cycles(delay, period_), 1);
  // A slice answers from its own process and from its DRAM channel's: order
  // same-cycle answers by requester and request, not by call order.
  response_dir_.arrivals.push(p.arrive, p.src, p, (uint64_t(ext->source) << 40) | (ext->id & ((uint64_t(1) << 40) - 1)));
  waker_.wake_at(p.arrive, now);
  phase = tlm::END_RESP;
  return tlm::TLM_COMPLETED;
}

void Interconnect::arbitrate(Direction& dir, bool requests, uint64_t now) {
  // Arrivals enter their input link in (cycle, source, order) order.
  while (dir.arrivals.ready(now)) {
    Packet p = dir.arrivals.pop();
    p.in_cycle = std::max(p.arrive, dir.in_free[p.src]);
    dir.in_free[p.src] = p.in_cycle + p.flits;
    dir.enqueue(p.dst * dir.srcs + p.src, p);
    dir.nonempty[size_t(p.dst) * dir.words + p.src / 64] |= uint64_t(1) << (p.src % 64);
    ++dir.waiting[p.dst];
    dir.busy_dsts[p.dst / 64] |= uint64_t(1) << (p.dst % 64);
  }
  for (uint32_t d = next_bit(dir.busy_dsts.data(), 0, dir.dsts); d < dir.dsts;
       d = next_bit(dir.busy_dsts.data(), d + 1, dir.dsts)) {
    if (dir.out_free[d] > now) continue;
    // Round robin over the sources with a packet, starting after the last one
    // served: those above it, then from 0 up to it.
    const uint32_t first = dir.last_src[d] + 1;
    if (dir.words == 1) {
      // Up to 64 sources: the two halves of the round are two masks of one word.
      const uint64_t waiting = dir.nonempty[d];
      const uint64_t after = first < 64 ? waiting & (~uint64_t(0) << first) : 0;
      if (!grant_first_of(dir, d, after, requests, now)) grant_first_of(dir, d, waiting & ~after, requests, now);
    } else if (!grant_first(dir, d, first, dir.srcs, requests, now)) {
      grant_first(dir, d, 0, first, requests, now);
    }
  }
}

bool Interconnect::grant_first_of(Direction& dir, uint32_t d, uint64_t sources, bool requests, uint64_t now) {
  for (; sources; sources &= sources - 1) {
    const uint32_t s = uint32_t(__builtin_ctzll(sources));
    if (dir.head_in[size_t(d) * dir.srcs + s] <= now) {
      grant(dir, d, s, requests, now);
      return true;
    }
  }
  return false;
}

bool Interconnect::grant_first(Direction& dir, uint32_t d, uint32_t from, uint32_t to, bool requests, uint64_t now) {
  for (uint32_t s = dir.next_source(d, from, to); s < to; s = dir.next_source(d, s + 1, to)) {
    if (dir.head_in[size_t(d) * dir.srcs + s] > now) continue;  // still entering its input link
    grant(dir, d, s, requests, now);
    return true;
  }
  return false;
}

void Interconnect::grant(Direction& dir, uint32_t d, uint32_t s, bool requests, uint64_t now) {
  const uint32_t queue = d * dir.srcs + s;
  const Packet p = dir.dequeue(queue);
  if (dir.head[queue] == Direction::kNoSlot) dir.nonempty[size_t(d) * dir.words + s / 64] &= ~(uint64_t(1) << (s % 64));
  if (--dir.waiting[d] == 0) dir.busy_dsts[d / 64] &= ~(uint64_t(1) << (d % 64));
  dir.last_src[d] = s;
  dir.out_free[d] = now + p.flits;
  dir.stall_cycles += now - p.arrive;
  ++dir.packets;
  const uint32_t bytes = p.flits * config_.bytes_per_cycle;
  dir.src_bytes[s] += bytes;
  dir.dst_bytes[d] += bytes;
  // The last flit reaches the far side latency + flits - 1 cycles later.
  sc_core::sc_time delay = waker_.delay(config_.latency + p.flits - 1);
  if (requests) {
    tlm::tlm_phase phase = tlm::BEGIN_REQ;
    (*downstream_[d])->nb_transport_fw(*p.payload, phase, delay);
  } else {
    tlm::tlm_phase phase = tlm::BEGIN_RESP;
    (*upstream_[d])->nb_transport_bw(*p.payload, phase, delay);
  }
}

void Interconnect::crossbar_process() {
  waker_.fired();
  const uint64_t now = waker_.now();
  arbitrate(request_dir_, true, now);
  arbitrate(response_dir_, false, now);
  const uint64_t next = std::min(request_dir_.next_event(), response_dir_.next_event());
  if (next != kNever) waker_.wake_at(next, now);
}

void Interconnect::reset_arbitration() {
  for (Direction* dir : {&request_dir_, &response_dir_}) dir->last_src.assign(dir->dsts, dir->srcs - 1);
}

void Interconnect::report_stats(stats::StatMap& out) const {
  out["stalls"] = double(request_dir_.stall_cycles + response_dir_.stall_cycles);
  out["request_stalls"] = double(request_dir_.stall_cycles);
  out["response_stalls"] = double(response_dir_.stall_cycles);
  out["request_packets"] = double(request_dir_.packets);
  out["response_packets"] = double(response_dir_.packets);
  for (uint32_t p = 0; p < request_dir_.srcs; ++p) {
    out["up" + std::to_string(p) + "_request_bytes"] = double(request_dir_.src_bytes[p]);
    out["up" + std::to_string(p) + "_response_bytes"] = double(response_dir_.dst_bytes[p]);
  }
  for (uint32_t s = 0; s < request_dir_.dsts; ++s) {
    out["down" + std::to_string(s) + "_request_bytes"] = double(request_dir_.dst_bytes[s]);
    out["down" + std::to_string(s) + "_response_bytes"] = double(response_dir_.src_bytes[s]);
  }
}

}  // namespace tlmgpu::memory
