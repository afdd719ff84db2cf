// One L2 cache slice: sectored, write-back with write-allocate, MSHRs with
// merging, atomics performed here; misses and write-backs go to its DRAM
// channel.
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <vector>

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>

#include <unordered_map>

#include "core/gpu_config.h"
#include "core/stats_provider.h"
#include "memory/interconnect.h"
#include "memory/memory_interfaces.h"
#include "memory/payload_pool.h"
#include "memory/sector_tags.h"
#include "memory/timed_queue.h"

namespace tlmgpu::memory {

/// Extra cycles of an atomic at the L2 beyond the hit latency (the ALU next
/// to the slice).
constexpr uint32_t kL2AtomicCycles = 4;
/// Addresses the atomic unit remembers before it forgets those it finished with.
constexpr std::size_t kAtomicAddressesTracked = 1024;

/// Requests come from the interconnect on `target_socket` as BEGIN_REQ and
/// are answered by BEGIN_RESP on the backward path. A request spends the ROP
/// latency in a pipeline, then waits in the input queue (l2.input_queue
/// entries) for the lookup, one a cycle. A request that arrives while the
/// input queue is full is taken (TLM_ACCEPTED) but its END_REQ waits until
/// the queue has room, so the crossbar sends nothing more meanwhile; when it
/// is answered first, its BEGIN_RESP ends the request phase too. While the
/// slice's requests to DRAM not yet accepted by the channel fill
/// l2.dram_queue, the slice looks nothing up. Line
/// fills and write-backs go to the DRAM channel on `dram_socket` with the
/// channel-local address (see dram_address), or with soc.memory = soc to the
/// SoC memory port with the global address. A DRAM answer is passed on to
/// the waiting requesters as soon as it arrives (its cycle is known) and
/// applied to the tags by the slice's process at its arrival cycle.
///
/// Toward DRAM the slice is a base-protocol initiator: a request answered
/// TLM_ACCEPTED holds the next ones in the slice until its END_REQ (or its
/// BEGIN_RESP) comes; TLM_UPDATED with END_REQ (the GPU's own channels) or
/// BEGIN_RESP, and TLM_COMPLETED, are taken too; BEGIN_RESP is answered
/// TLM_COMPLETED. A phase that arrives between clock edges (a foreign
/// target answering from its own thread) is answered TLM_ACCEPTED, wakes
/// the slice and is taken at its next run, at a clock edge (a BEGIN_RESP then
/// gets its END_RESP).
class L2Slice : public engine::ClockedModule, public core::StatsProvider {
 public:
  tlm_utils::simple_target_socket<L2Slice> target_socket{"target_socket"};
  tlm_utils::simple_initiator_socket<L2Slice> dram_socket{"dram_socket"};

  /// Slice `index` of config.l2_slices; its channel is index * channels / slices.
  L2Slice(sc_core::sc_module_name name, const core::GpuConfig& config, const sc_core::sc_time& clock_period,
          uint32_t index);
  ~L2Slice() override;

  /// Address inside this slice's DRAM channel of a slice-local address: the
  /// interleave chunks of the slices sharing the channel alternate.
  uint64_t dram_address(uint64_t local) const;

  /// Nothing of the slice's is below it (requests to DRAM sent or held,
  /// answers not yet applied).
  bool dram_idle() const { return dram_outstanding_ == 0; }
  /// Drops every line, dirty ones included (a new device context: timing
  /// only, the data lives in device memory). Call only when nothing is in flight.
  void invalidate_all() { tags_.invalidate_all(); }
  /// Write-backs to DRAM carry the bytes of `memory` (nullptr: zeros) as of
  /// the cycle they leave (docs/ARCHITECTURE.md).
  void take_write_data_from(GlobalMemoryIf* memory) { write_data_ = memory; }
  /// A host-to-device copy wrote the 32-byte units `units` of the line at
  /// slice-local address `local`: they become valid and dirty, most recently
  /// used, as a write would leave them, without any timing (the copy ran
  /// before the kernel). Call only when nothing is in flight.
  void fill_from_host_copy(uint64_t local, uint32_t units);
  void report_stats(core::StatReport& out) const override;
  /// One cycle: the fills due, then at most one request.
  void evaluate(uint64_t now) override;

 private:
  struct Waiter {
    tlm::tlm_generic_payload* payload;
    uint32_t units;
    uint64_t earliest;  ///< arrival + hit latency (+ atomic)
    uint32_t extra;     ///< cycles after the data (atomic ALU)
  };
  using Mshrs = MshrTable<Waiter>;
  /// Cycles an atomic request spends in the atomic unit after its data is
  /// there (data_cycle): it waits for earlier updates of its most-updated
  /// address, then applies that address's updates one every
  /// l2.atomic_same_address_interval cycles, then the ALU's latency.
  uint32_t atomic_unit_cycles(const MemRequestExtension& ext, uint64_t data_cycle);
  /// A request to DRAM, from the slice's memory manager (dram_pool_).
  struct DramRequest {
    PooledPayload payload;
    MemRequestExtension* ext = nullptr;
    std::vector<uint8_t> data, byte_enables;
    bool writeback = false;
    uint64_t line = 0;   ///< slice-local line address
    uint32_t units = 0;
  };

  tlm::tlm_sync_enum nb_transport_fw(tlm::tlm_generic_payload& payload, tlm::tlm_phase& phase,
                                     sc_core::sc_time& delay);
  tlm::tlm_sync_enum nb_transport_bw(tlm::tlm_generic_payload& payload, tlm::tlm_phase& phase,
                                     sc_core::sc_time& delay);
  bool handle_request(tlm::tlm_generic_payload& payload, uint64_t now);
  /// Requests through the ROP pipeline by `now` enter the input queue while it has room.
  void admit(uint64_t now) {
    if (rop_pipeline_.ready(now) && !input_queue_full()) admit_ready(now);
  }
  void admit_ready(uint64_t now);
  bool input_queue_full() const { return input_queue_.size() >= input_limit_; }
  /// Requests to DRAM the channel has not accepted (the open one and those held behind it).
  bool dram_queue_full() const {
    return dram_held_.size() + (dram_open_request_ ? 1 : 0) >= dram_queue_limit_;
  }
  /// The crossbar's withheld END_REQ, once the input queue has room.
  void end_withheld_request(uint64_t now);
  void apply_fill(DramRequest& request, uint64_t now);
  void answer(const Mshrs::Entry& entry, const Waiter& w);
  CacheLine& allocate_line(uint64_t line, uint64_t now);
  void send_to_dram(uint64_t line, uint32_t units, bool writeback, uint64_t arrive);
  /// BEGIN_REQ of `r` to arrive at `arrive`, and what the return says.
  void begin_dram_request(DramRequest& r, uint64_t arrive, uint64_t now);
  /// END_REQ or BEGIN_RESP from below, at a clock edge.
  void dram_phase(tlm::tlm_generic_payload& payload, const tlm::tlm_phase& phase, const sc_core::sc_time& delay,
                  uint64_t now);
  /// The answer of `r` reaches the slice at `ready`.
  void dram_answer(DramRequest& r, uint64_t ready);
  /// Phases from below that came between clock edges, then held requests.
  void take_late_dram_phases(uint64_t now);
  void respond(tlm::tlm_generic_payload& payload, uint64_t ready);
  void end_of_elaboration() override;
  void reschedule();

  core::CacheConfig config_;
  uint32_t index_;
  uint64_t rop_latency_;
  L2AddressMap map_;
  uint32_t slices_per_channel_ = 1, index_in_channel_ = 0;
  /// soc.memory = soc: requests below the slice carry the line's global
  /// (SoC) address instead of the channel-local one.
  bool soc_addresses_ = false;
  GlobalMemoryIf* write_data_ = nullptr;
  SectorTags tags_;
  Mshrs mshrs_;
  ArrivalQueue<tlm::tlm_generic_payload*> rop_pipeline_;  ///< by the cycle each request leaves it
  std::deque<tlm::tlm_generic_payload*> input_queue_;
  uint32_t input_limit_, dram_queue_limit_;  ///< entries (UINT32_MAX: unbounded)
  /// The request whose END_REQ the slice withholds (nullptr: none), since when.
  const tlm::tlm_generic_payload* withheld_request_ = nullptr;
  uint64_t withheld_since_ = 0;
  uint64_t dram_queue_full_since_ = ~uint64_t(0);  ///< UINT64_MAX: not full
  ArrivalQueue<DramRequest*> fills_;
  PayloadPool<DramRequest> dram_pool_;
  uint32_t dram_outstanding_ = 0;
  /// A request to DRAM still waiting for its END_REQ (nullptr: none): the
  /// exclusion rule holds the next ones in dram_held_ (with their arrival cycle).
  const tlm::tlm_generic_payload* dram_open_request_ = nullptr;
  struct HeldRequest {
    DramRequest* request;
    uint64_t arrive;
  };
  std::deque<HeldRequest> dram_held_;
  struct LatePhase {
    tlm::tlm_generic_payload* payload;
    tlm::tlm_phase phase;
    sc_core::sc_time delay;
  };
  std::vector<LatePhase> late_phases_;  ///< arrived between clock edges
  uint64_t port_free_ = 0;   ///< one request accepted per cycle
  bool blocked_ = false;     ///< head request waits for an MSHR
  /// The blocked head when it was refused only because every MSHR entry is
  /// taken (its line has none): no entry can appear for that line while it
  /// waits, so until an entry is released a retry is refused again without a
  /// lookup. Null otherwise.
  const tlm::tlm_generic_payload* waits_for_entry_ = nullptr;
  uint64_t next_dram_id_ = 0;
  uint32_t atomic_interval_ = 1;
  /// Per address: the cycle the atomic unit may start its next update of it.
  std::unordered_map<uint64_t, uint64_t> atomic_address_free_;
  uint64_t atomic_serialisation_cycles_ = 0;
  tlm::tlm_bw_transport_if<>* requester_bw_ = nullptr;  ///< target_socket's bound backward interface

  uint64_t accesses_ = 0, hits_ = 0, misses_ = 0, mshr_merges_ = 0, reservation_fails_ = 0;
  uint64_t writes_ = 0, atomics_ = 0, writebacks_ = 0, evictions_ = 0, dram_reads_ = 0;
  uint64_t writeback_sectors_ = 0, written_sectors_ = 0;  ///< 32-byte units
  uint64_t host_copy_fills_ = 0;  ///< 32-byte units written by host copies
  uint64_t withheld_end_requests_ = 0, crossbar_held_cycles_ = 0, dram_queue_full_cycles_ = 0;
};

}  // namespace tlmgpu::memory
