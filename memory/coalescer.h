// Coalescing of a warp's global / local memory instruction into line
// accesses, and the bank-conflict cost of a shared-memory access.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "memory/memory_access.h"
#include "memory/memory_interfaces.h"

namespace tlmgpu::memory {

/// Fills `out` (cleared first) with one LineAccess per distinct `line_bytes`
/// line touched by the active lanes, in ascending line address, each with the
/// `sector_bytes` sectors its lanes' bytes [addr, addr + bytes) touch (pass 32:
/// LineAccess masks count 32-byte sectors). `kind` is Load / Store / Atomic
/// from the access and atomics set bypass_l1; `id` and `warp` are left 0 for
/// the caller. Returns the number of lines and sectors.
CoalescerResult coalesce(const MemAccess& access, uint32_t line_bytes, uint32_t sector_bytes,
                         std::vector<LineAccess>& out);

/// For an atomic access already coalesced into `lines` (line_bytes each):
/// sets each line's atomic_same_address_ops to the largest number of active
/// lanes updating one address in it, and atomic_address to that address
/// (the lowest, on a tie): those updates serialise in the L2's atomic unit.
void count_same_address_atomics(const MemAccess& access, uint32_t line_bytes, std::vector<LineAccess>& lines);

/// For a store already coalesced into `lines` (line_bytes each, at most 1024):
/// sets each line's full_mask to the 32-byte units of it that the active
/// lanes write completely.
void mark_fully_written_units(const MemAccess& access, uint32_t line_bytes, std::vector<LineAccess>& lines);

/// Cycles a shared-memory access occupies the banks: the largest number of
/// distinct `bank_width_bytes` words any one bank must deliver (lanes reading
/// the same word share one broadcast); at least 1.
uint32_t shared_bank_cycles(const MemAccess& access, uint32_t banks, uint32_t bank_width_bytes = 4);

/// The lines and 32-byte sectors coalesce() forms, in no particular order
/// (LT mode counts them; only the timing model needs them sorted): lanes
/// spread over many lines, as random atomics are, are merged through a small
/// hash table instead of coalesce()'s search and sort. Other accesses go to
/// coalesce(). Keeps its table between calls.
class UnorderedCoalescer {
 public:
  CoalescerResult coalesce(const MemAccess& access, uint32_t line_bytes, std::vector<LineAccess>& out);

 private:
  std::array<uint32_t, 64> slot_epoch_{};  // a slot is in use when it holds epoch_
  std::array<uint8_t, 64> slot_index_{};
  uint32_t epoch_ = 0;
};

}  // namespace tlmgpu::memory
