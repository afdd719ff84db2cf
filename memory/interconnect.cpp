#include "memory/interconnect.h"

#include "core/bit_ops.h"

#include <algorithm>
#include <limits>
#include <string>

namespace tlmgpu::memory {

namespace {
constexpr uint64_t kNever = std::numeric_limits<uint64_t>::max();
constexpr uint32_t kHeaderBytes = 8;
}  // namespace

uint32_t Interconnect::request_bytes(AccessKind kind, uint32_t units) {
  if (kind == AccessKind::Store || kind == AccessKind::Atomic) return kHeaderBytes + core::popcount32(units) * 32;
  return kHeaderBytes;
}

uint32_t Interconnect::response_bytes(AccessKind kind, uint32_t units) {
  if (kind == AccessKind::Store) return kHeaderBytes;
  return std::max<uint32_t>(core::popcount32(units) * 32, kHeaderBytes);
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

void Interconnect::Direction::init(uint32_t sources, uint32_t destinations) {
  srcs = sources;
  dsts = destinations;
  buckets.assign(kBuckets, {});
  bucket_bits.assign(kBuckets / 64, 0);
  bucket_words = 0;
  base = 0;
  far.clear();
  far_next = kNever;
  next_arrival = kNever;
  pushed = 0;
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

uint32_t Interconnect::Direction::new_slot(const Packet& p) {
  uint32_t slot = free_slot;
  if (slot == kNoSlot) {
    slot = uint32_t(slots.size());
    slots.push_back({});
  } else {
    free_slot = slots[slot].next;
  }
  slots[slot].packet = p;
  return slot;
}

void Interconnect::Direction::push(uint32_t src, const Packet& p, uint64_t key, uint64_t now) {
  const uint32_t slot = new_slot(p);
  // Slide the window up to what may still arrive: nothing before the earliest
  // pending arrival, nor before now + 1 (a packet takes at least a cycle).
  base = std::max(base, std::min(next_arrival, now + 1));
  const Arrival a{key, pushed++, src, slot};
  if (p.arrive - base < kBuckets) {
    const uint32_t b = uint32_t(p.arrive % kBuckets);
    buckets[b].push_back(a);
    bucket_bits[b / 64] |= uint64_t(1) << (b % 64);
    bucket_words |= uint64_t(1) << (b / 64);
  } else {
    far.push_back({p.arrive, a});
    far_next = std::min(far_next, p.arrive);
  }
  next_arrival = std::min(next_arrival, p.arrive);
}

void Interconnect::Direction::push_in_order(uint32_t src, const Packet& p) {
  const uint32_t slot = new_slot(p);
  // Entering now, not at p.arrive, changes nothing: the input link and the
  // FIFO see this source's packets in the same order, in_cycle is at least
  // p.arrive, and a FIFO head is granted only once in_cycle has passed.
  enter(src, slot);
  next_grant = std::min(next_grant, std::max(slots[slot].packet.in_cycle, out_free[p.dst]));
}

uint64_t Interconnect::Direction::next_bucket(uint64_t from, uint64_t to) const {
  if (from > to) return kNever;
  const uint32_t b = uint32_t(from % kBuckets), w = b / 64;
  const uint64_t lap = from - b;  // the cycle of bucket 0 in from's round of the ring
  uint64_t c;
  if (const uint64_t word = bucket_bits[w] & (~uint64_t(0) << (b % 64))) {
    c = lap + w * 64 + uint32_t(__builtin_ctzll(word));
  } else if (const uint64_t above = bucket_words & (~uint64_t(1) << w)) {
    const uint32_t w2 = uint32_t(__builtin_ctzll(above));
    c = lap + w2 * 64 + uint32_t(__builtin_ctzll(bucket_bits[w2]));
  } else if (bucket_words) {
    // Round the ring (word w's bits below b included).
    const uint32_t w2 = uint32_t(__builtin_ctzll(bucket_words));
    c = lap + kBuckets + w2 * 64 + uint32_t(__builtin_ctzll(bucket_bits[w2]));
  } else {
    return kNever;
  }
  return c <= to ? c : kNever;
}

void Interconnect::Direction::enter(uint32_t src, uint32_t slot) {
  Packet& p = slots[slot].packet;
  p.in_cycle = std::max(p.arrive, in_free[src]);
  in_free[src] = p.in_cycle + p.flits;
  const uint32_t dst = p.dst;
  const uint32_t queue = dst * srcs + src;
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

void Interconnect::Direction::admit(uint64_t now) {
  if (next_arrival > now) return;
  // Only one source's order matters (its input link and its FIFOs): sorting
  // a cycle's arrivals by (source, key) and taking cycles in order keeps it.
  auto before = [](const Arrival& x, const Arrival& y) {
    return x.src != y.src ? x.src < y.src : x.key != y.key ? x.key < y.key : x.seq < y.seq;
  };
  const uint64_t last = std::min(now, base + kBuckets - 1);  // the buckets hold no later cycle
  if (far_next > now) {
    // Usually just the bucket of `now` (the crossbar runs at every arrival).
    for (uint64_t c = next_bucket(base, last); c != kNever; c = next_bucket(c + 1, last)) {
      std::vector<Arrival>& bucket = buckets[c % kBuckets];
      // Insertion sort: a few arrivals a cycle, mostly in order already.
      for (size_t i = 1; i < bucket.size(); ++i) {
        const Arrival a = bucket[i];
        size_t j = i;
        for (; j > 0 && before(a, bucket[j - 1]); --j) bucket[j] = bucket[j - 1];
        bucket[j] = a;
      }
      for (const Arrival& a : bucket) enter(a.src, a.slot);
      bucket.clear();
      clear_bucket_bit(uint32_t(c % kBuckets));
    }
  } else {
    // Some far arrival is due too: merge everything due in one sort.
    due.clear();
    for (uint64_t c = next_bucket(base, last); c != kNever; c = next_bucket(c + 1, last)) {
      std::vector<Arrival>& bucket = buckets[c % kBuckets];
      for (const Arrival& a : bucket) due.push_back({c, a});
      bucket.clear();
      clear_bucket_bit(uint32_t(c % kBuckets));
    }
    far_next = kNever;
    size_t kept = 0;
    for (const FarArrival& f : far) {
      if (f.arrive <= now) {
        due.push_back(f);
      } else {
        far[kept++] = f;
        far_next = std::min(far_next, f.arrive);
      }
    }
    far.resize(kept);
    std::sort(due.begin(), due.end(), [&](const FarArrival& x, const FarArrival& y) {
      return x.arrive != y.arrive ? x.arrive < y.arrive : before(x.a, y.a);
    });
    for (const FarArrival& f : due) enter(f.a.src, f.a.slot);
  }
  // Everything up to now has arrived; what is left lies in [now + 1, base + kBuckets).
  const uint64_t end = base + kBuckets - 1;
  base = now + 1;
  next_arrival = std::min(next_bucket(base, end), far_next);
}

inline Interconnect::Packet Interconnect::Direction::dequeue(uint32_t dst, uint32_t src) {
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

Interconnect::Interconnect(sc_core::sc_module_name name, const core::InterconnectConfig& config,
                           uint32_t upstream_ports, uint32_t downstream_ports, uint32_t interleave_bytes,
                           const sc_core::sc_time& clock_period)
    : ClockedModule(name, kCrossbarStage, clock_period), config_(config) {
  map_ = L2AddressMap(downstream_ports, interleave_bytes);
  init(upstream_ports, downstream_ports);
}

Interconnect::Interconnect(sc_core::sc_module_name name, const core::GpuConfig& config,
                           const sc_core::sc_time& clock_period)
    : ClockedModule(name, kCrossbarStage, clock_period), config_(config.icnt) {
  map_ = L2AddressMap(config.l2_slices, config.l2_interleave_bytes);
  init(2 * config.num_sms, config.l2_slices);
}

Interconnect::~Interconnect() = default;

void Interconnect::init(uint32_t upstream_ports, uint32_t downstream_ports) {
  bytes_per_cycle_ = core::FixedDivisor(config_.bytes_per_cycle);
  for (uint32_t p = 0; p < upstream_ports; ++p) {
    upstream_.push_back(std::make_unique<TargetSocket>(("up" + std::to_string(p)).c_str()));
    upstream_.back()->register_nb_transport_fw(this, &Interconnect::nb_transport_fw, int(p));
  }
  for (uint32_t s = 0; s < downstream_ports; ++s) {
    downstream_.push_back(std::make_unique<InitiatorSocket>(("down" + std::to_string(s)).c_str()));
    downstream_.back()->register_nb_transport_bw(this, &Interconnect::nb_transport_bw, int(s));
  }
  request_dir_.init(upstream_ports, downstream_ports);
  open_request_.assign(downstream_ports, nullptr);
  open_link_free_.assign(downstream_ports, 0);
  in_order_.assign(upstream_ports, {});
  held_.assign(upstream_ports, {});
  link_until_.assign(upstream_ports, 0);
  response_dir_.init(downstream_ports, upstream_ports);
}

void Interconnect::end_of_elaboration() {
  // Responses go straight to the L1s' backward interfaces. A simple target
  // socket's own backward path first looks for a blocking call it turned
  // into phases; nothing calls b_transport on the crossbar.
  upstream_bw_.clear();
  for (auto& socket : upstream_) upstream_bw_.push_back(socket->get_base_port().operator->());
}

uint32_t Interconnect::flits(uint32_t bytes) const {
  return std::max<uint32_t>(uint32_t(bytes_per_cycle_.div(bytes + config_.bytes_per_cycle - 1)), 1);
}

tlm::tlm_sync_enum Interconnect::nb_transport_fw(int port, tlm::tlm_generic_payload& payload, tlm::tlm_phase& phase,
                                                 sc_core::sc_time& delay) {
  if (phase != tlm::BEGIN_REQ) return tlm::TLM_ACCEPTED;
  auto* ext = payload.get_extension<MemRequestExtension>();
  if (!ext) SC_REPORT_FATAL(name(), "request without MemRequestExtension");
  if (held_[size_t(port)].payload)
    SC_REPORT_ERROR(name(), ("upstream port " + std::to_string(port) +
                             " sent BEGIN_REQ before the END_REQ of its previous request").c_str());
  ext->source = uint32_t(port);
  hold(payload);
  const uint64_t now = this->now();
  const uint64_t arrive = now + std::max<uint64_t>(cycles_in(delay), 1);
  const uint32_t packet_flits = flits(request_bytes(ext->kind, ext->sector_mask));
  const uint32_t capacity = config_.input_buffer_flits;
  const uint64_t until = link_until_[size_t(port)];
  const uint64_t backlog = until > arrive ? until - arrive : 0;
  if (capacity != 0 && backlog != 0 && backlog + packet_flits > capacity) {
    // No room in the port's input buffer when it arrives: the request phase
    // stays open (the L1 keeps it, and what follows, in its miss queue) until
    // the cycle before the link has sent enough for it to fit.
    const uint64_t fits = until + packet_flits - capacity;  // > arrive
    held_[size_t(port)] = {&payload, fits, packet_flits};
    held_ports_.push_back(uint32_t(port));
    ++withheld_end_requests_;
    input_buffer_full_cycles_ += fits - arrive;
    next_held_ = std::min(next_held_, fits - 1);
    wake_at(fits - 1);
    return tlm::TLM_ACCEPTED;
  }
  accept_request(uint32_t(port), payload, arrive, packet_flits, now);
  phase = tlm::END_REQ;
  return tlm::TLM_UPDATED;
}

void Interconnect::accept_request(uint32_t port, tlm::tlm_generic_payload& payload, uint64_t arrive,
                                  uint32_t packet_flits, uint64_t now) {
  auto* ext = payload.get_extension<MemRequestExtension>();
  uint64_t& until = link_until_[port];
  until = std::max(until, arrive) + packet_flits;
  Packet p;
  p.payload = &payload;
  p.dst = map_.slice_of(payload.get_address());
  p.flits = packet_flits;
  p.arrive = arrive;
  InOrderPort& in_order = in_order_[port];
  if (in_order.expected) {
    if (p.arrive < in_order.arrive || (p.arrive == in_order.arrive && ext->id <= in_order.key))
      SC_REPORT_ERROR(name(), ("upstream port " + std::to_string(port) +
                               " sent a request out of (arrival cycle, request id) order").c_str());
    in_order.arrive = p.arrive;
    in_order.key = ext->id;
    request_dir_.push_in_order(port, p);
    wake_at(request_dir_.next_grant);
  } else {
    request_dir_.push(port, p, ext->id, now);
    wake_at(p.arrive);
  }
}

void Interconnect::accept_held(uint64_t now) {
  next_held_ = kNever;
  // In port order (the list is in hold order), so that the same requests
  // go in the same order however the ports were held.
  std::sort(held_ports_.begin(), held_ports_.end());
  size_t kept = 0;
  for (size_t k = 0; k < held_ports_.size(); ++k) {
    const uint32_t port = held_ports_[k];
    HeldRequest& h = held_[port];
    if (h.fits - 1 > now) {
      next_held_ = std::min(next_held_, h.fits - 1);
      held_ports_[kept++] = port;
      continue;
    }
    tlm::tlm_generic_payload& payload = *h.payload;
    const HeldRequest held = h;
    h = {};
    accept_request(port, payload, held.fits, held.flits, now);
    tlm::tlm_phase phase = tlm::END_REQ;
    sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
    // (An initiator that sends its next request from here, in the same
    // cycle, is held or taken by nb_transport_fw and listed after these.)
    upstream_bw_[port]->nb_transport_bw(payload, phase, delay);
  }
  held_ports_.resize(kept);
}

void Interconnect::end_open_request(uint32_t slice, uint64_t now) {
  open_request_[slice] = nullptr;
  // The link reopens in the next cycle (the slice runs after the crossbar).
  uint64_t& free = request_dir_.out_free[slice];
  free = std::max(open_link_free_[slice], now + 1);
  slice_held_cycles_ += free - open_link_free_[slice];
  const uint64_t next = std::max(request_dir_.min_head_in[slice], free);
  request_dir_.next_grant = std::min(request_dir_.next_grant, next);
  if (next != kNever) wake_at(next);
}

tlm::tlm_sync_enum Interconnect::nb_transport_bw(int slice, tlm::tlm_generic_payload& payload, tlm::tlm_phase& phase,
                                                 sc_core::sc_time& delay) {
  const uint64_t now = this->now();
  if (&payload == open_request_[size_t(slice)] && (phase == tlm::END_REQ || phase == tlm::BEGIN_RESP))
    end_open_request(uint32_t(slice), now);
  if (phase != tlm::BEGIN_RESP) return tlm::TLM_ACCEPTED;
  auto* ext = payload.get_extension<MemRequestExtension>();
  hold(payload);
  Packet p;
  p.payload = &payload;
  p.dst = ext->source;
  p.flits = flits(response_bytes(ext->kind, ext->sector_mask));
  p.arrive = now + std::max<uint64_t>(cycles_in(delay), 1);
  // A slice answers from its own process and from its DRAM channel's: order
  // same-cycle answers by requester and request, not by call order.
  response_dir_.push(uint32_t(slice), p, (uint64_t(ext->source) << 40) | (ext->id & ((uint64_t(1) << 40) - 1)), now);
  wake_at(p.arrive);
  phase = tlm::END_RESP;
  return tlm::TLM_COMPLETED;
}

void Interconnect::arbitrate(Direction& dir, bool requests, uint64_t now) {
  dir.admit(now);
  uint64_t next = kNever;
  // A grant only clears its own destination's bit: iterate over copies of the words.
  for (uint32_t w = 0; w < dir.busy_dsts.size(); ++w)
    for (uint64_t busy = dir.busy_dsts[w]; busy; busy &= busy - 1) {
      const uint32_t d = w * 64 + uint32_t(__builtin_ctzll(busy));
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
  sc_core::sc_time delay = cycle_delay(config_.latency + p.flits - 1);
  if (requests) {
    tlm::tlm_phase phase = tlm::BEGIN_REQ;
    if ((*downstream_[d])->nb_transport_fw(*p.payload, phase, delay) == tlm::TLM_ACCEPTED) {
      // The slice's input queue is full: nothing more to it until END_REQ.
      open_request_[d] = p.payload;
      open_link_free_[d] = dir.out_free[d];
      dir.out_free[d] = kNever;
    }
  } else {
    tlm::tlm_phase phase = tlm::BEGIN_RESP;
    upstream_bw_[d]->nb_transport_bw(*p.payload, phase, delay);
  }
  let_go(*p.payload);
}

void Interconnect::evaluate(uint64_t now) {
  if (next_held_ <= now) accept_held(now);
  arbitrate(request_dir_, true, now);
  arbitrate(response_dir_, false, now);
  // Arrivals pushed by the grants' callees count too.
  const uint64_t next = std::min(std::min(std::min(request_dir_.next_arrival, request_dir_.next_grant),
                                          std::min(response_dir_.next_arrival, response_dir_.next_grant)),
                                 next_held_);
  if (next != kNever) wake_at(next);
}

void Interconnect::reset_arbitration() {
  for (Direction* dir : {&request_dir_, &response_dir_}) dir->last_src.assign(dir->dsts, dir->srcs - 1);
}

void Interconnect::report_stats(core::StatReport& out) const {
  using core::Unit;
  out.add("stalls", request_dir_.stall_cycles + response_dir_.stall_cycles, Unit::Cycles,
          "request_stalls + response_stalls");
  out.add("request_stalls", request_dir_.stall_cycles, Unit::Cycles,
          "cycles request packets waited for an output link another packet held");
  out.add("response_stalls", response_dir_.stall_cycles, Unit::Cycles,
          "cycles response packets waited for an output link another packet held");
  out.add("slice_held_cycles", slice_held_cycles_, Unit::Cycles,
          "cycles output links to L2 slices stayed closed beyond their packets while a slice withheld END_REQ");
  out.add("withheld_end_requests", withheld_end_requests_, Unit::Count,
          "requests that found their port's input buffer full: END_REQ came when it had room");
  out.add("input_buffer_full_cycles", input_buffer_full_cycles_, Unit::Cycles,
          "cycles requests waited in their L1 for room in their port's input buffer, summed");
  out.add("request_packets", request_dir_.packets, Unit::Count, "packets from the L1s to the L2 slices");
  out.add("response_packets", response_dir_.packets, Unit::Count, "packets from the L2 slices to the L1s");
  for (uint32_t p = 0; p < request_dir_.srcs; ++p) {
    out.add("up" + std::to_string(p) + "_request_bytes", request_dir_.src_bytes[p], Unit::Bytes,
            "bytes of requests from upstream port N (2 SM: L1D, 2 SM + 1: L1I, then texture caches)");
    out.add("up" + std::to_string(p) + "_response_bytes", response_dir_.dst_bytes[p], Unit::Bytes,
            "bytes of responses to upstream port N");
  }
  for (uint32_t s = 0; s < request_dir_.dsts; ++s) {
    out.add("down" + std::to_string(s) + "_request_bytes", request_dir_.dst_bytes[s], Unit::Bytes,
            "bytes of requests to L2 slice N");
    out.add("down" + std::to_string(s) + "_response_bytes", response_dir_.src_bytes[s], Unit::Bytes,
            "bytes of responses from L2 slice N");
  }
}

}  // namespace tlmgpu::memory
