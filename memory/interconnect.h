// Crossbar between the SMs' L1 caches and the L2 slices: fixed latency each
// way, per-port bandwidth, round-robin arbitration per output port.
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <vector>

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>

#include "core/bit_ops.h"
#include "core/gpu_config.h"
#include "core/stats_provider.h"
#include "memory/memory_interfaces.h"
#include "memory/timed_queue.h"

namespace tlmgpu::memory {

/// Which L2 slice holds an address, and the address inside that slice.
/// Chunks of `interleave_bytes` go round the slices; each group of `slices`
/// consecutive chunks is rotated by its group number so that strides of
/// slices * interleave_bytes do not all land on one slice. (slice, local) is
/// a bijection of the address.
class L2AddressMap {
 public:
  explicit L2AddressMap(uint32_t slices = 1, uint32_t interleave_bytes = 256)
      : slices_(std::max<uint32_t>(slices, 1)), interleave_(std::max<uint32_t>(interleave_bytes, 1)) {}
  uint32_t slices() const { return uint32_t(slices_.divisor()); }
  uint32_t interleave_bytes() const { return uint32_t(interleave_.divisor()); }
  const core::FixedDivisor& interleave() const { return interleave_; }

  uint32_t slice_of(uint64_t addr) const {
    const uint64_t chunk = interleave_.div(addr);
    const uint64_t slice = slices_.mod(chunk) + slices_.mod(slices_.div(chunk));
    return uint32_t(slice >= slices_.divisor() ? slice - slices_.divisor() : slice);
  }
  uint64_t local_address(uint64_t addr) const {
    return slices_.div(interleave_.div(addr)) * interleave_.divisor() + interleave_.mod(addr);
  }
  /// The inverse of (slice_of, local_address).
  uint64_t global_address(uint32_t slice, uint64_t local) const {
    const uint64_t row = interleave_.div(local);  // chunk / slices
    const uint64_t shift = slices_.mod(row);
    const uint64_t within = slice >= shift ? slice - shift : slice + slices_.divisor() - shift;
    return (row * slices_.divisor() + within) * interleave_.divisor() + interleave_.mod(local);
  }

 private:
  core::FixedDivisor slices_, interleave_;
};

/// Upstream port p = 2 * sm + (0 for the L1D, 1 for the L1I), then one per
/// SM's texture cache (2 * num_sms + sm); downstream port
/// s = L2 slice s. Requests arrive as BEGIN_REQ, answered END_REQ /
/// TLM_UPDATED at once when they fit in their port's input buffer
/// (config.input_buffer_flits flits not yet sent over the input link), else
/// TLM_ACCEPTED with END_REQ on the backward path in the cycle before they
/// fit (the initiator sends nothing more meanwhile). Behind the input links
/// the per-destination FIFOs are not bounded;
/// responses come back from the slices as BEGIN_RESP and are routed by
/// MemRequestExtension::source, which the crossbar sets to the upstream port.
/// A slice that answers a request TLM_ACCEPTED (its input queue is full)
/// closes its output link until that request's END_REQ or BEGIN_RESP.
class Interconnect : public engine::ClockedModule, public core::StatsProvider {
 public:
  using TargetSocket = tlm_utils::simple_target_socket_tagged<Interconnect>;
  using InitiatorSocket = tlm_utils::simple_initiator_socket_tagged<Interconnect>;

  Interconnect(sc_core::sc_module_name name, const core::InterconnectConfig& config, uint32_t upstream_ports,
               uint32_t downstream_ports, uint32_t interleave_bytes, const sc_core::sc_time& clock_period);
  /// 2 * num_sms upstream ports, l2_slices downstream ports.
  Interconnect(sc_core::sc_module_name name, const core::GpuConfig& config, const sc_core::sc_time& clock_period);
  ~Interconnect() override;

  TargetSocket& upstream(uint32_t port) { return *upstream_[port]; }
  InitiatorSocket& downstream(uint32_t slice) { return *downstream_[slice]; }
  uint32_t upstream_ports() const { return uint32_t(upstream_.size()); }
  uint32_t downstream_ports() const { return uint32_t(downstream_.size()); }
  const L2AddressMap& address_map() const { return map_; }

  /// Bytes a packet occupies on a link: requests carry an 8-byte header plus
  /// the written data, read responses the data of their sectors, write
  /// acknowledgements 8 bytes.
  static uint32_t request_bytes(AccessKind kind, uint32_t units);
  static uint32_t response_bytes(AccessKind kind, uint32_t units);

  /// The initiator on upstream `port` sends its requests in (arrival cycle,
  /// request id) order, as an L1 does: they enter their input link when they
  /// are announced, skipping the arrival buckets. Otherwise the order of
  /// arrival is restored before they enter. Such a port sending out of order
  /// is a model error (SC_REPORT_ERROR, which throws).
  void expect_in_order(uint32_t port) { in_order_.at(port).expected = true; }

  void report_stats(core::StatReport& out) const override;
  /// A new device context (nothing in flight): round-robin arbitration
  /// starts again as in a freshly built crossbar.
  void reset_arbitration();
  /// One cycle of arbitration: grants in both directions.
  void evaluate(uint64_t now) override;

 private:
  /// A packet in the crossbar: from its arrival on, in a slot of its
  /// direction's pool; from when it enters its input link, in a FIFO.
  struct Packet {
    tlm::tlm_generic_payload* payload = nullptr;
    uint64_t arrive = 0;    ///< cycle it reaches the crossbar
    uint64_t in_cycle = 0;  ///< cycle it has fully entered its input link
    uint32_t flits = 1, dst = 0;
  };
  /// One direction of the crossbar: input links (one per source), output
  /// links (one per destination) and per-(destination, source) FIFOs.
  struct Direction {
    static constexpr uint32_t kNoSlot = ~uint32_t(0);
    uint32_t srcs = 0, dsts = 0;
    /// A packet not yet arrived. Arrivals enter their input links in
    /// (cycle, source, key, push) order; seq is the push order.
    struct Arrival {
      uint64_t key = 0, seq = 0;
      uint32_t src = 0, slot = 0;
    };
    /// Arrivals by cycle (a heap over all of them cost more than the rest of
    /// the crossbar): bucket c % kBuckets holds those arriving at cycle c, for
    /// c in [base, base + kBuckets); any later one waits in `far`.
    static constexpr uint32_t kBuckets = 512;  // a multiple of 64, at most 64 * 64
    std::vector<std::vector<Arrival>> buckets;
    std::vector<uint64_t> bucket_bits;  ///< bit per non-empty bucket
    uint64_t bucket_words = 0;          ///< bit per non-zero word of bucket_bits
    void clear_bucket_bit(uint32_t b) {
      bucket_bits[b / 64] &= ~(uint64_t(1) << (b % 64));
      if (!bucket_bits[b / 64]) bucket_words &= ~(uint64_t(1) << (b / 64));
    }
    uint64_t base = 0;  ///< no pending arrival is earlier
    struct FarArrival {
      uint64_t arrive;
      Arrival a;
    };
    std::vector<FarArrival> far, due;  ///< due: admit's scratch when far ones are due
    uint64_t far_next = ~uint64_t(0);      ///< earliest cycle in `far`
    uint64_t next_arrival = ~uint64_t(0);  ///< earliest cycle of any arrival
    uint64_t pushed = 0;  ///< arrivals pushed through the buckets so far (the next seq)
    /// Earliest cycle a FIFO packet can be granted, as of the last arbitration
    /// (FIFOs and output links change only there).
    uint64_t next_grant = ~uint64_t(0);
    /// The FIFOs are linked lists through one pool of packet slots (a deque
    /// per FIFO allocated and freed blocks as packets came and went).
    struct Slot {
      Packet packet;
      uint32_t next = kNoSlot;
    };
    std::vector<Slot> slots;
    uint32_t free_slot = kNoSlot;
    std::vector<uint32_t> head, tail;  ///< [dst * srcs + src]: first and last slot of the FIFO
    /// When each FIFO's head packet has fully entered its input link (valid
    /// while the FIFO is not empty): arbitration reads this flat array only.
    std::vector<uint64_t> head_in;
    /// Per destination, the least head_in of its non-empty FIFOs (UINT64_MAX:
    /// none), kept up to date so that neither arbitration nor the wake-up
    /// search scans the FIFOs of a destination with no head ready.
    std::vector<uint64_t> min_head_in;
    /// Bit per source whose queue to a destination is not empty
    /// ([dst * words + src / 64]): arbitration visits only those.
    std::vector<uint64_t> nonempty;
    uint32_t words = 1;
    std::vector<uint64_t> busy_dsts;  ///< bit per destination with a waiting packet
    std::vector<uint64_t> in_free, out_free;
    std::vector<uint32_t> last_src, waiting;
    std::vector<uint64_t> src_bytes, dst_bytes;
    uint64_t packets = 0, stall_cycles = 0;

    void init(uint32_t sources, uint32_t destinations);
    /// A packet that reaches the crossbar from `src` at `p.arrive` (> now).
    void push(uint32_t src, const Packet& p, uint64_t key, uint64_t now);
    /// The same for a packet known to be `src`'s last in (arrival, key)
    /// order: it enters its input link and FIFO at once.
    void push_in_order(uint32_t src, const Packet& p);
    /// Moves the arrivals due by `now` into their input links and FIFOs.
    void admit(uint64_t now);
    /// The arrived packet in `slot` enters its input link and its FIFO.
    void enter(uint32_t src, uint32_t slot);
    uint32_t new_slot(const Packet& p);
    /// First cycle in [from, to] (to < from + kBuckets) with a non-empty bucket, else UINT64_MAX.
    uint64_t next_bucket(uint64_t from, uint64_t to) const;
    /// Removes and returns the head packet of a non-empty FIFO.
    inline Packet dequeue(uint32_t dst, uint32_t src);
    /// First source >= from and < to with a non-empty queue to `dst`, else `to`.
    uint32_t next_source(uint32_t dst, uint32_t from, uint32_t to) const;
  };

  void init(uint32_t upstream_ports, uint32_t downstream_ports);
  void end_of_elaboration() override;
  tlm::tlm_sync_enum nb_transport_fw(int port, tlm::tlm_generic_payload& payload, tlm::tlm_phase& phase,
                                     sc_core::sc_time& delay);
  tlm::tlm_sync_enum nb_transport_bw(int slice, tlm::tlm_generic_payload& payload, tlm::tlm_phase& phase,
                                     sc_core::sc_time& delay);
  void arbitrate(Direction& dir, bool requests, uint64_t now);
  /// Grants destination d's output link to the first source in [from, to)
  /// whose head packet has entered its input link; false when none has.
  bool grant_first(Direction& dir, uint32_t d, uint32_t from, uint32_t to, bool requests, uint64_t now);
  /// The same over the sources whose bits are set in `sources` (one word of sources).
  bool grant_first_of(Direction& dir, uint32_t d, uint64_t sources, bool requests, uint64_t now);
  /// Sends source s's head packet through destination d's output link.
  void grant(Direction& dir, uint32_t d, uint32_t s, bool requests, uint64_t now);
  uint32_t flits(uint32_t bytes) const;
  /// A payload the crossbar keeps past an nb_transport call is acquired
  /// (base protocol) and released once passed on; payloads of test
  /// initiators without a memory manager are only borrowed.
  static void hold(tlm::tlm_generic_payload& p) {
    if (p.has_mm()) p.acquire();
  }
  static void let_go(tlm::tlm_generic_payload& p) {
    if (p.has_mm()) p.release();
  }

  core::InterconnectConfig config_;
  L2AddressMap map_;
  core::FixedDivisor bytes_per_cycle_;
  std::vector<std::unique_ptr<TargetSocket>> upstream_;
  /// Each upstream socket's bound backward interface (the L1's), once bound.
  std::vector<tlm::tlm_bw_transport_if<>*> upstream_bw_;
  std::vector<std::unique_ptr<InitiatorSocket>> downstream_;
  Direction request_dir_, response_dir_;
  /// Per upstream port: whether it sends in order, and its last request.
  struct InOrderPort {
    bool expected = false;
    uint64_t arrive = 0, key = 0;
  };
  std::vector<InOrderPort> in_order_;
  /// Per slice: the request whose END_REQ it withholds (nullptr: none), and
  /// when the output link would have been free without it.
  std::vector<const tlm::tlm_generic_payload*> open_request_;
  std::vector<uint64_t> open_link_free_;
  uint64_t slice_held_cycles_ = 0;  ///< output-link cycles closed by withheld END_REQs
  /// Slice `slice` ended the request phase of its open request at `now`.
  void end_open_request(uint32_t slice, uint64_t now);

  /// A request from upstream `port` arriving at `arrive` enters its input link.
  void accept_request(uint32_t port, tlm::tlm_generic_payload& payload, uint64_t arrive, uint32_t packet_flits,
                      uint64_t now);
  /// Takes the held requests that fit from the next cycle on, with their END_REQ.
  void accept_held(uint64_t now);
  /// Per upstream port: the cycle its input link will have sent every flit
  /// it took, and the request whose END_REQ waits for room (config
  /// input_buffer_flits), arriving in `fits`.
  std::vector<uint64_t> link_until_;
  struct HeldRequest {
    tlm::tlm_generic_payload* payload = nullptr;
    uint64_t fits = 0;
    uint32_t flits = 0;
  };
  std::vector<HeldRequest> held_;
  std::vector<uint32_t> held_ports_;  ///< the ports with a held request
  uint64_t next_held_ = kNever;  ///< the earliest cycle a held request is taken
  uint64_t withheld_end_requests_ = 0, input_buffer_full_cycles_ = 0;
};

}  // namespace tlmgpu::memory
