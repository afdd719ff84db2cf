// What crosses the SM / memory-system boundary, and the TLM extension that
// carries a request below the L1 caches.
#pragma once

#include <cstdint>

#include <systemc>
#include <tlm>

namespace tlmgpu::memory {

enum class AccessKind : uint8_t { Load, Store, Atomic, InstructionFetch };

/// Instruction fetches address the decoded program here: instruction i of a
/// module is at kCodeWindowBase + 8 i (the model has no binary image).
constexpr uint64_t kCodeWindowBase = 0x0000600000000000ull;

/// One coalesced transaction of a warp memory instruction: a 128-byte line
/// with the 32-byte sectors it touches.
struct LineAccess {
  uint64_t id = 0;             ///< unique per SM; returned in the completion
  AccessKind kind = AccessKind::Load;
  uint64_t line_addr = 0;      ///< aligned to the line size
  uint32_t sector_mask = 0;    ///< bit i: bytes [32 i, 32 i + 32) of the line
  /// Stores: the units of sector_mask whose every byte the access writes
  /// (filled in for caches that allocate on a store).
  uint32_t full_mask = 0;
  uint32_t warp = 0;           ///< warp slot in the SM (for statistics)
  bool bypass_l1 = false;      ///< ld.cg / volatile / atomics: served by L2
  /// Atomics: the most lanes of the warp updating one address in this line
  /// (they serialise in the L2's atomic unit), and that address.
  uint32_t atomic_same_address_ops = 0;
  uint64_t atomic_address = 0;
};

/// Coalescing of one warp memory instruction into line accesses.
struct CoalescerResult {
  uint32_t lines = 0;
  uint32_t sectors = 0;
};

/// Implemented by an L1 cache; called by the SM's pipeline during its clocked
/// process (the SM calls in a fixed order, so the order of same-cycle
/// requests never depends on SystemC's process order).
class CacheAccessIf : public virtual sc_core::sc_interface {
 public:
  /// Offers an access in `cycle`. Returns false when the cache cannot take it
  /// this cycle (MSHRs full, port busy): the SM retries later.
  virtual bool try_access(const LineAccess& access, uint64_t cycle) = 0;
  /// The earliest cycle at which an answer frees what the cache holds (a
  /// refused access may then succeed); UINT64_MAX when none is pending.
  virtual uint64_t next_release_cycle() const = 0;
  /// A requester that slept through its retries of a refused access reports
  /// them when it tries again (refused_at UINT64_MAX: none).
  virtual void count_skipped_retries(uint64_t refused_at, uint64_t cycle) = 0;
};

/// Implemented by the SM: completions from its L1 caches. `cycle` is the
/// cycle at which the data is available to the pipeline.
class CacheResponseIf : public virtual sc_core::sc_interface {
 public:
  virtual void access_done(uint64_t id, uint64_t cycle) = 0;
  /// An answer from below reaches the cache at `cycle` and frees what it
  /// held (an MSHR): an access the cache refused may be taken from then on.
  virtual void release_at(uint64_t /*cycle*/) {}
};

/// Rides on every tlm_generic_payload below the L1s (L1 -> interconnect ->
/// L2 slice -> DRAM channel): who asked, and a key that orders same-cycle
/// arrivals deterministically.
struct MemRequestExtension : tlm::tlm_extension<MemRequestExtension> {
  AccessKind kind = AccessKind::Load;
  uint32_t source = 0;         ///< requesting port (SM index for L1 misses)
  uint64_t id = 0;             ///< unique per source
  uint32_t sector_mask = 0;
  uint64_t issue_cycle = 0;
  uint32_t tag = 0;            ///< the initiator's own bookkeeping (its transaction slot)
  uint32_t atomic_same_address_ops = 0;  ///< atomics: see LineAccess
  uint64_t atomic_address = 0;

  tlm::tlm_extension_base* clone() const override { return new MemRequestExtension(*this); }
  void copy_from(const tlm::tlm_extension_base& other) override {
    *this = static_cast<const MemRequestExtension&>(other);
  }
};

/// Offset in its line of a request's first byte: a request below the L1s
/// starts at its first requested 32-byte unit (memory/payload_pool.h).
inline uint32_t offset_in_line(const MemRequestExtension* ext) {
  return ext && ext->sector_mask ? uint32_t(__builtin_ctz(ext->sector_mask)) * 32 : 0;
}

}  // namespace tlmgpu::memory
