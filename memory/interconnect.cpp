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

void Interconnect::ArrivalQueue::push(const Arrival& a) {
  if (count == ring.size()) {
    // Full (or never used): unroll into a ring twice the size.
    std::vector<Arrival> bigger(std::max<size_t>(8, 2 * ring.size()));
    for (uint32_t i = 0; i < count; ++i) bigger[i] = ring[(first + i) & (ring.size() - 1)];
    ring.swap(bigger);
    first = 0;
  }
  const uint32_t mask = uint32_t(ring.size() - 1);
  // Strictly later entries move back one place: equal ones keep push order.
  uint32_t i = count;
  for (; i > 0; --i) {
    const Arrival& prev = ring[(first + i - 1) & mask];
    if (prev.arrive < a.arrive || (prev.arrive == a.arrive && prev.key <= a.key)) break;
    ring[(first + i) & mask] = prev;
  }
  ring[(first + i) & mask] = a;
  ++count;
}

void Interconnect::Direction::init(uint32_t sources, uint32_t destinations) {
  srcs = sources;
  dsts = destinations;
  arrivals.assign(srcs, {});
  arriving.assign((srcs + 63) / 64, 0);
  next_arrival = kNever;
  next_grant = kNever;
  slots.clear();
  free_slot = kNoSlot;
  head.assign(size_t(srcs) * dsts, kNoSlot);
  tail.assign(size_t(srcs) * dsts, kNoSlot);
  head_in.assign(size_t(srcs) * dsts, 0);
  min_head_in.assign(dsts, kNever);
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

void Interconnect::Direction::push(uint32_t src, const Arrival& a) {
  arrivals[src].push(a);
  arriving[src / 64] |= uint64_t(1) << (src % 64);
  next_arrival = std::min(next_arrival, a.arrive);
}

void Interconnect::Direction::admit(uint64_t now) {
  if (next_arrival > now) return;
  // Each source's arrivals enter its input link in (cycle, order) order; the
  // sources are independent of each other.
  uint64_t next = kNever;
  for (uint32_t w = 0; w < arriving.size(); ++w) {
    for (uint64_t m = arriving[w]; m; m &= m - 1) {
      const uint32_t s = w * 64 + uint32_t(__builtin_ctzll(m));
      ArrivalQueue& q = arrivals[s];
      for (; q.count && q.front().arrive <= now; q.pop()) {
        const Arrival& a = q.front();
        Packet p;
        p.payload = a.payload;
        p.arrive = a.arrive;
        p.in_cycle = std::max(a.arrive, in_free[s]);
        p.flits = a.flits;
        in_free[s] = p.in_cycle + p.flits;
        enqueue(a.dst, s, p);
      }
      if (q.count)
        next = std::min(next, q.front().arrive);
      else
        arriving[w] &= ~(uint64_t(1) << (s % 64));
    }
  }
  next_arrival = next;
}

void Interconnect::Direction::enqueue(uint32_t dst, uint32_t src, const Packet& p) {
  const uint32_t queue = dst * srcs + src;
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
    min_head_in[dst] = std::min(min_head_in[dst], p.in_cycle);
    nonempty[size_t(dst) * words + src / 64] |= uint64_t(1) << (src % 64);
  } else {
    slots[tail[queue]].next = slot;
  }
  tail[queue] = slot;
  ++waiting[dst];
  busy_dsts[dst / 64] |= uint64_t(1) << (dst % 64);
}

Interconnect::Packet Interconnect::Direction::dequeue(uint32_t dst, uint32_t src) {
  const uint32_t queue = dst * srcs + src;
  const uint32_t slot = head[queue];
  const Packet p = slots[slot].packet;
  const uint32_t next = slots[slot].next;
  head[queue] = next;
  if (next != kNoSlot)
    head_in[queue] = slots[next].packet.in_cycle;
  else
    nonempty[size_t(dst) * words + src / 64] &= ~(uint64_t(1) << (src % 64));
  slots[slot].next = free_slot;
  free_slot = slot;
  if (--waiting[dst] == 0) {
    busy_dsts[dst / 64] &= ~(uint64_t(1) << (dst % 64));
    min_head_in[dst] = kNever;
  } else if (p.in_cycle == min_head_in[dst]) {
    // The least head may have gone (a FIFO's next head entered later than
    // the one before it): look again.
    uint64_t least = kNever;
    const uint64_t* in = &head_in[size_t(dst) * srcs];
    for (uint32_t w = 0; w < words; ++w)
      for (uint64_t m = nonempty[size_t(dst) * words + w]; m; m &= m - 1)
        least = std::min(least, in[w * 64 + uint32_t(__builtin_ctzll(m))]);
    min_head_in[dst] = least;
  }
  return p;
}

uint32_t Interconnect::Direction::next_source(uint32_t dst, uint32_t from, uint32_t to) const {
  return next_bit(&nonempty[size_t(dst) * words], from, to);
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
  Arrival a;
  a.payload = &payload;
  a.dst = map_.slice_of(payload.get_address());
  a.flits = flits(request_bytes(ext->kind, ext->sector_mask));
  const uint64_t now = waker_.now();
  a.arrive = now + std::max<uint64_t>(delay_cycles(delay, period_), 1);
  a.key = ext->id;
  request_dir_.push(uint32_t(port), a);
  waker_.wake_at(a.arrive, now);
  phase = tlm::END_REQ;
  return tlm::TLM_UPDATED;
}

tlm::tlm_sync_enum Interconnect::nb_transport_bw(int slice, tlm::tlm_generic_payload& payload, tlm::tlm_phase& phase,
                                                 sc_core::sc_time& delay) {
  if (phase != tlm::BEGIN_RESP) return tlm::TLM_ACCEPTED;
  auto* ext = payload.get_extension<MemRequestExtension>();
  Arrival a;
  a.payload = &payload;
  a.dst = ext->source;
  a.flits = flits(response_bytes(ext->kind, ext->sector_mask));
  const uint64_t now = waker_.now();
  a.arrive = now + std::max<uint64_t>(delay_cycles(delay, period_), 1);
  // A slice answers from its own process and from its DRAM channel's: order
  // same-cycle answers by requester and request, not by call order.
  a.key = (uint64_t(ext->source) << 40) | (ext->id & ((uint64_t(1) << 40) - 1));
  response_dir_.push(uint32_t(slice), a);
  waker_.wake_at(a.arrive, now);
  phase = tlm::END_RESP;
  return tlm::TLM_COMPLETED;
}

void Interconnect::arbitrate(Direction& dir, bool requests, uint64_t now) {
  dir.admit(now);
  uint64_t next = kNever;
  for (uint32_t d = next_bit(dir.busy_dsts.data(), 0, dir.dsts); d < dir.dsts;
       d = next_bit(dir.busy_dsts.data(), d + 1, dir.dsts)) {
    // A grant needs the output link free and some head through its input link.
    if (dir.out_free[d] <= now && dir.min_head_in[d] <= now) {
      // Round robin over the sources with a packet, starting after the last
      // one served: those above it, then from 0 up to it.
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
    // min_head_in is UINT64_MAX once d has nothing left.
    next = std::min(next, std::max(dir.min_head_in[d], dir.out_free[d]));
  }
  dir.next_grant = next;
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
  const Packet p = dir.dequeue(d, s);
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
  // Arrivals pushed by the grants' callees count too.
  const uint64_t next = std::min(std::min(request_dir_.next_arrival, request_dir_.next_grant),
                                 std::min(response_dir_.next_arrival, response_dir_.next_grant));
  if (next != kNever) waker_.wake_at(next, now);
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
