// The SM's fetch stage: fills the warps' instruction buffers from the L1
// instruction cache. Each cycle the fetch scheduler (lrr, gtlrr, gtlo)
// picks up to sm.fetch_width warps with room, code left and no fetch (line
// mode) or miss (per-instruction mode) outstanding; a line fetch brings the
// rest of the line's instructions the buffer has room for when it is
// answered, a per-instruction fetch sm.fetch_instructions of them at once,
// each decoded sm.decode_latency after its answer. Under SWaS the issue
// stage fetches instead, one instruction for the warp it selected
// (fetch_for_issue). A flush (the buffered path is not where the warp goes)
// empties the buffer and drops the answers still to come.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "core/bit_ops.h"
#include "core/gpu_config.h"
#include "memory/memory_interfaces.h"
#include "model/sm/warp_slot.h"

namespace tlmgpu::schedulers {
class FetchScheduler;
}

namespace tlmgpu::sm {

class FetchStage {
 public:
  static constexpr uint64_t kNever = ~uint64_t(0);
  /// Instruction addresses for the L1I: PC * 8 above this base.
  static constexpr uint64_t kCodeBase = memory::kCodeWindowBase;

  /// Creates the fetch scheduler module ("fetch", sm.fetch_policy) under
  /// the module being constructed. `warps` are the SM's warp slots.
  FetchStage(const core::GpuConfig& config, std::vector<WarpSlot>& warps);
  ~FetchStage();

  /// The L1I port's interface, once elaboration resolved it.
  void connect(memory::CacheAccessIf* l1i) { l1i_ = l1i; }
  /// SWaS (seed 003): buffers start full of NOPs, a flush turns the
  /// wrong path into NOPs, and the issue stage fetches (fetch_for_issue).
  void set_fetch_with_issue(bool on) { with_issue_ = on; }
  /// A new device: no fetch history, generations numbered afresh.
  void reset();

  /// Warp `slot` (its slot filled in) starts at `cycle`: its buffer is
  /// prefilled when `prefilled` (trace sources) or under SWaS (NOPs).
  void warp_started(uint32_t slot, uint64_t cycle, bool prefilled);
  /// Warp `slot`'s buffer may take a fetch again (it drained, or moved on).
  void wake(uint32_t slot) { candidates_ |= uint64_t(1) << slot; }
  /// The buffered path is not where warp `slot` goes: empties its buffer
  /// (under SWaS, turns it into NOPs) and fetches from its PC. `last_cycle`:
  /// the cycle being evaluated, for osched2's predictable empty buffer.
  void flush(uint32_t slot, uint64_t last_cycle);

  /// One cycle of fetching (not under SWaS). Returns whether a fetch was sent.
  bool fetch(uint64_t now);
  /// SWaS: the warp the issue stage selected fetches one instruction (or a
  /// NOP) into its buffer. Returns whether a fetch was sent.
  bool fetch_for_issue(uint32_t slot, uint64_t now);

  /// Whether a memory answer's id is an instruction fetch's.
  static bool is_fetch(uint64_t id) { return id & kFetchTag; }
  /// The warp slot a fetch answer is for.
  static uint32_t slot_of(uint64_t id) { return uint32_t((id >> 32) & 0xffff); }
  /// Every answer the caches give the SM, as they give it: a hit is
  /// answered inside the L1I's try_access, which is how a fetch tells a
  /// hit from a miss.
  void note_answer(uint64_t cycle) {
    last_answer_cycle_ = cycle;
    ++answers_;
  }
  /// Fetch `id` answered with its data at `cycle`. Returns whether its
  /// warp's buffer or fetch state changed; `decoded_at` is the cycle its new
  /// entries are decoded at (kNever: none).
  bool answer(uint64_t id, uint64_t cycle, uint64_t& decoded_at);

  /// The cycle a refused fetch may be taken (kNever: none waits).
  uint64_t next_retry_cycle() const { return refused_at_ != kNever ? l1i_->next_release_cycle() : kNever; }
  /// A fetch the L1I refused waits for an answer the L1I is still owed.
  bool waiting_for_release() const { return refused_at_ != kNever; }
  /// Buffers flushed with real instructions in them.
  uint64_t flushes() const { return flushes_; }

 private:
  static constexpr uint64_t kFetchTag = 1ull << 63;
  static constexpr uint64_t kSwasFetchTag = 1ull << 62;  // a SWaS fetch: only its miss matters
  // Per-instruction fetch: the request's instruction count sits above the slot.
  static constexpr int kFetchCountShift = 48;
  // An instruction buffer entry whose fetch has not been answered yet.
  static constexpr uint64_t kPendingFetch = kNever - 1;

  /// Sends an instruction fetch for warp `slot` at its fetch PC to the L1I;
  /// false when the L1I refused it, else `missed` tells a miss from a hit.
  bool request_instructions(uint32_t slot, uint64_t id, uint64_t now, bool& missed);
  uint32_t depth() const { return depth_; }

  std::vector<WarpSlot>& warps_;
  memory::CacheAccessIf* l1i_ = nullptr;
  std::unique_ptr<schedulers::FetchScheduler> scheduler_;
  std::vector<uint64_t> slot_age_;  // the fetch scheduler's view of warp ages
  uint64_t candidates_ = 0;         // slots that may be fetch-ready (bit per slot)
  // Cycle of the refused attempt the stage waits to retry (kNever: none).
  uint64_t refused_at_ = kNever;
  uint32_t generations_ = 0;
  uint64_t last_answer_cycle_ = 0, answers_ = 0;
  uint64_t flushes_ = 0;
  bool with_issue_ = false;
  uint32_t depth_;  // buffer entries used
  uint32_t per_line_;
  core::FixedDivisor line_insts_div_;  // instructions per L1I line
  uint32_t line_bytes_, hit_latency_;
  uint32_t fetch_width_, fetch_instructions_, decode_latency_;
};

}  // namespace tlmgpu::sm
