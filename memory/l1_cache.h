// A sectored L1 cache (used for the L1 data and the L1 instruction cache):
// set-associative with LRU, MSHRs with merging, Fermi write policy.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>

#include "core/gpu_config.h"
#include "core/stats_provider.h"
#include "memory/memory_interfaces.h"
#include "memory/payload_pool.h"
#include "memory/sector_tags.h"
#include "memory/timed_queue.h"

namespace tlmgpu::memory {

class L1Cache;

/// Requests the L1s of one SM sent in a cycle, delivered to the interconnect
/// when the cycle commits, in the order they were sent (the order in which
/// the SM's evaluation made them; the GPU commits the SMs in index order).
/// The SMs of a cycle may then be evaluated on several host threads: none
/// touches the crossbar, which all share. A request the crossbar cannot take
/// yet stays in its cache's miss queue, and so do those behind it; the
/// crossbar's END_REQ puts the cache back in the outbox.
class L1RequestOutbox {
 public:
  void deliver();
  bool empty() const { return sends_.empty(); }

 private:
  friend class L1Cache;
  std::vector<L1Cache*> sends_;  ///< one entry per request: its cache sends its next
};

/// The SM offers accesses through `access_export` from its clocked process;
/// completions go to `response_port`, always for a cycle later than the
/// current one, called from try_access (hits) or when the answer from below
/// arrives (misses: the data's cycle is known then). Misses, stores, atomics
/// and bypassing loads go down through `socket` (BEGIN_REQ annotated with
/// >= 1 cycle; the answer comes back as BEGIN_RESP on the backward path,
/// annotated with its arrival cycle, and is answered TLM_COMPLETED). The cache
/// has no process: fills are applied when the next access (or the statistics)
/// looks at a cycle at or after their arrival. See docs/MEMORY.md.
class L1Cache : public sc_core::sc_module, public CacheAccessIf, public core::StatsProvider {
 public:
  ClockPort clk{"clk"};  ///< the GPU's core clock (ClockPort)
  sc_core::sc_export<CacheAccessIf> access_export{"access"};
  sc_core::sc_port<CacheResponseIf> response_port{"response"};
  tlm_utils::simple_initiator_socket<L1Cache> socket{"socket"};

  L1Cache(sc_core::sc_module_name name, const core::CacheConfig& config, const sc_core::sc_time& clock_period);
  ~L1Cache() override;

  bool try_access(const LineAccess& access, uint64_t cycle) override;
  void report_stats(core::StatReport& out) const override;
  /// Drops every line (between kernels, as GPUs do with the non-coherent L1).
  /// Call only when nothing is in flight.
  void invalidate_all() {
    // Fills are applied lazily: apply the last ones first, or they would
    // install stale lines after the flush.
    apply_responses(~uint64_t(0));
    tags_.invalidate_all();
    ++version_;
  }
  /// Keeps the sets and uses `ways` of each (a unified L1D / shared array's
  /// split for a launch). Drops every line: call only when nothing is in flight.
  void set_ways(uint32_t ways);
  /// From now on requests wait in `outbox` until its deliver() (the GPU's
  /// commit of the cycle) instead of going down at once.
  void send_through(L1RequestOutbox* outbox) { outbox_ = outbox; }
  /// Write requests (stores, atomics) carry the bytes of `memory` (nullptr:
  /// zeros) as of their delivery (docs/ARCHITECTURE.md, "Data in the
  /// memory system's payloads").
  void take_write_data_from(GlobalMemoryIf* memory) { write_data_ = memory; }
  /// From now on the cache reads the current cycle from `domain`, which runs
  /// every module that calls the cache (the SMs and the modules below),
  /// instead of dividing SystemC's time on each request and answer.
  void take_cycle_from(const engine::ClockDomain& domain) { domain_ = &domain; }
  /// The earliest cycle at which an answered transaction frees its MSHR (a
  /// refused access may then succeed); UINT64_MAX when none is pending.
  uint64_t next_release_cycle() const override { return std::min(next_apply_, queue_room_at_); }
  /// A requester retries a refused access in every cycle, as the hardware
  /// does; one that sleeps until next_release_cycle() instead reports, when
  /// it tries again at `cycle`, the retries it skipped since the refusal at
  /// `refused_at` (UINT64_MAX: none), all of which would have been refused,
  /// so that `reservation_fails` does not depend on when its process runs.
  void count_skipped_retries(uint64_t refused_at, uint64_t cycle) override {
    if (refused_at != ~uint64_t(0) && cycle > refused_at + 1) reservation_fails_ += cycle - refused_at - 1;
  }

  /// Requests in the miss queue: not yet taken by the crossbar.
  uint32_t miss_queue_size() const { return uint32_t(miss_queue_.size()); }
  /// Transactions below the cache whose answer has not arrived by now
  /// (fills bounded by config.mshrs; stores, atomics and bypasses unbounded).
  uint32_t outstanding() const {
    const_cast<L1Cache*>(this)->apply_responses(current_cycle(period_));
    return outstanding_;
  }

 private:

  /// A request below the cache, from the cache's memory manager (pool_).
  struct Transaction {
    PooledPayload payload;
    MemRequestExtension* ext = nullptr;
    std::vector<uint8_t> data, byte_enables;
    bool fill = false;       ///< a line fill (else a store ack / atomic / bypass answer)
    uint64_t line = 0;
    uint32_t units = 0;
    uint64_t access_id = 0;  ///< the SM's id for non-fill transactions
    uint32_t atomic_same_address_ops = 0;
    uint64_t atomic_address = 0;
    /// The answer passes the cache's pipeline (hit_latency) on its way to
    /// the SM: fills and store acknowledgements. Atomics and loads that
    /// bypass the L1 never enter it: their answers reach the SM the cycle
    /// after they arrive (as in GPGPU-Sim, whose L1 latency queue only
    /// cached accesses pass).
    bool through_pipeline = true;
  };
  struct Waiter {
    uint64_t access_id;
    uint32_t units;  ///< sectors it needs from this entry
  };
  using Mshrs = MshrTable<Waiter>;

  friend class L1RequestOutbox;
  Transaction& new_transaction();
  /// Builds the request and puts it in the miss queue (sent at the cycle's
  /// commit through the outbox, else at once).
  void send(Transaction& tx, AccessKind kind, uint64_t cycle);
  /// Sends the miss queue's next request unless one awaits its END_REQ.
  void send_next();
  bool miss_queue_full() const { return config_.miss_queue != 0 && miss_queue_.size() >= config_.miss_queue; }
  tlm::tlm_sync_enum nb_transport_bw(tlm::tlm_generic_payload& payload, tlm::tlm_phase& phase,
                                     sc_core::sc_time& delay);
  /// Applies the answers that arrived by `cycle` (inline: usually none has).
  void apply_responses(uint64_t cycle) {
    if (cycle >= next_apply_) apply_due(cycle);
  }
  void apply_due(uint64_t cycle);
  /// A store on an allocating L1D (config.write_allocate): its whole
  /// sectors of `full_units` become valid, the line allocated if absent.
  void write_allocate(uint64_t line, uint32_t full_units);
  /// try_access past the repeated-refusal check.
  bool look_up(const LineAccess& access, uint64_t cycle);
  void apply(Transaction& tx);
  /// Completion cycle of `units` of an entry whose sectors are all known.
  uint64_t data_cycle(const Mshrs::Entry& entry, uint32_t units, uint64_t now) const;
  bool miss_queue_fail(const LineAccess& access) {
    ++miss_queue_fails_;
    return reservation_fail(access);
  }
  bool reservation_fail(const LineAccess& access) {
    ++reservation_fails_;
    refused_ = access;
    refused_version_ = version_;
    return false;
  }

  uint64_t now() const { return domain_ ? domain_->now() : current_cycle(period_); }

  core::CacheConfig config_;
  sc_core::sc_time period_;
  core::FixedDivisor period_div_;  ///< cycles of a delay annotation
  const engine::ClockDomain* domain_ = nullptr;
  L1RequestOutbox* outbox_ = nullptr;
  GlobalMemoryIf* write_data_ = nullptr;
  SectorTags tags_;
  Mshrs mshrs_;
  PayloadPool<Transaction> pool_;
  ArrivalQueue<Transaction*> responses_;  ///< answered, applied at their arrival cycle
  uint64_t next_apply_ = ~uint64_t(0);    ///< arrival cycle of the first of responses_ (UINT64_MAX: none)
  uint32_t outstanding_ = 0;
  uint32_t fills_outstanding_ = 0;  ///< fill transactions: what config.mshrs bounds
  uint64_t next_request_id_ = 0;
  // A refused access is retried every cycle its SM runs; while no access
  // succeeded and no answer was applied (version_), it is refused again
  // without looking at the tags and MSHRs.
  uint64_t version_ = 0, refused_version_ = ~uint64_t(0);
  LineAccess refused_;

  // Requests not yet taken by the crossbar, in the order they are sent
  // (config.miss_queue bounds them); the front awaits its END_REQ when
  // request_open_. queue_room_at_: the cycle the full queue made room, for
  // the refused access's retry (UINT64_MAX: none since).
  struct MissQueue {  // a FIFO cheaper than std::deque for its few entries
    std::vector<Transaction*> items;
    size_t head = 0;
    bool empty() const { return head == items.size(); }
    size_t size() const { return items.size() - head; }
    Transaction* front() const { return items[head]; }
    void push_back(Transaction* tx) {
      if (head >= 64 && 2 * head >= items.size()) {  // a queue never empty for long
        items.erase(items.begin(), items.begin() + std::ptrdiff_t(head));
        head = 0;
      }
      items.push_back(tx);
    }
    void pop_front() {
      if (++head == items.size()) {
        items.clear();
        head = 0;
      }
    }
  } miss_queue_;
  bool request_open_ = false;
  uint64_t queue_room_at_ = ~uint64_t(0);

  uint64_t accesses_ = 0, hits_ = 0, misses_ = 0, mshr_merges_ = 0, reservation_fails_ = 0, miss_queue_fails_ = 0;
  uint64_t writes_ = 0, write_evicts_ = 0, write_allocations_ = 0, bypasses_ = 0, evictions_ = 0, fills_ = 0;
};

}  // namespace tlmgpu::memory
