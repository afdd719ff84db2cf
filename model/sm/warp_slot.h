// What the SM keeps of a resident warp in its slot: the executor it issues
// from, the instruction buffer fetch fills, the scoreboard, and the summary
// of its state the scheduler views read. The pipeline stages share the
// slots; the SM owns them.
#pragma once

#include <array>
#include <cstdint>

#include "model/sm/warp_instruction_source.h"
#include "model/sm/warp_scoreboard.h"

namespace tlmgpu::sm {

/// A buffered NOP (SWaS fills and refills instruction buffers with them).
constexpr uint32_t kNopPc = 0xffffffffu;
/// Entries of a warp's instruction buffer the model provides (sm.ibuffer_depth uses up to this many).
constexpr uint32_t kMaxInstructionBuffer = 16;

/// An instruction buffer entry: its PC, and the cycle it is decoded at.
struct BufferedInstruction {
  uint32_t pc;
  uint64_t ready_cycle;
};

struct WarpSlot {
  WarpInstructionSource* warp = nullptr;
  // Whether the warp finished, kept here because the pipeline asks every
  // cycle: a warp finishes only by executing at issue.
  bool finished = false;
  uint32_t cta_slot = 0;
  bool active = false;
  uint64_t age = 0;
  uint8_t ib_head = 0, ib_count = 0;
  uint32_t fetch_pc = 0;
  // The warp's end_pc(), asked again after each execute (the only thing
  // that moves the warp's PC): fetch reads it without reaching the warp.
  uint32_t code_end = 0;
  bool fetch_pending = false;      // line fetch outstanding, or (per-instruction fetch, swas) an i-cache miss
  bool fetch_missed = false;       // the outstanding line fetch missed in the L1I
  uint32_t swas_miss = 0;          // swas: the fetch whose miss suspends the warp
  uint64_t oracle_blocked_until = 0;  // osched2: a miss or taken branch explains an empty buffer until then
  uint32_t fetch_generation = 0;   // new on a flush or a new warp: stale fetches are dropped
  uint32_t in_flight = 0;          // issued, not written back
  uint32_t mem_in_flight = 0;
  // Inline in the slot, beside what issue and writeback touch anyway.
  WarpScoreboard scoreboard;
  bool membar_wait = false;
  uint64_t insts_issued = 0;
  uint64_t progress = 0;
  uint64_t cta_id = 0;  // its CTA slot's, beside the other fields a view refresh reads
  // The warp's next active mask and barrier wait, as its executor last
  // reported them (sync_executor_state): a view refresh reads them here
  // without reaching the executor. Only an execute changes them: the
  // warp's own, or, through a barrier release or an exit, another warp's.
  uint32_t next_mask = 0;
  bool at_barrier = false;
  uint32_t barrier_pc = 0;  // the executor's PC when the warp began to wait at a barrier
  int8_t needs_collector = -1;  // Ready once a collector of this class is free
  int8_t needs_pipe = -1;       // trace instructions: Ready once this pipe accepts one
  // Last: the fields above are what the scheduler's view reads, kept on
  // few cache lines; of the buffer only the head is read then.
  std::array<BufferedInstruction, kMaxInstructionBuffer> ibuffer{};

  // The instruction buffer is a ring of ib_count entries from ib_head.
  BufferedInstruction& buffered(uint32_t k) { return ibuffer[(ib_head + k) % ibuffer.size()]; }
  void push_instruction(uint32_t pc, uint64_t ready_cycle) { buffered(ib_count++) = {pc, ready_cycle}; }
  void pop_instruction() {
    ib_head = uint8_t((ib_head + 1) % ibuffer.size());
    --ib_count;
  }
};

}  // namespace tlmgpu::sm
