#include "model/sm/fetch_stage.h"

#include <algorithm>

#include "schedulers/fetch_scheduler.h"

namespace tlmgpu::sm {

FetchStage::FetchStage(const core::GpuConfig& config, std::vector<WarpSlot>& warps)
    : warps_(warps),
      scheduler_(std::make_unique<schedulers::FetchScheduler>("fetch", config.sm.fetch_policy)),
      slot_age_(config.sm.max_warps, 0),
      depth_(std::min(config.sm.ibuffer_depth, kMaxInstructionBuffer)),
      per_line_(config.l1i.line_bytes / 8),
      line_insts_div_(config.l1i.line_bytes / 8),
      line_bytes_(config.l1i.line_bytes),
      hit_latency_(config.l1i.hit_latency),
      fetch_width_(config.sm.fetch_width),
      fetch_instructions_(config.sm.fetch_instructions),
      decode_latency_(config.sm.decode_latency) {}

FetchStage::~FetchStage() = default;

void FetchStage::reset() {
  scheduler_->reset();
  refused_at_ = kNever;
  generations_ = 0;
}

void FetchStage::warp_started(uint32_t slot, uint64_t cycle, bool prefilled) {
  WarpSlot& w = warps_[slot];
  // Unique across launches: a fetch answered after its warp (or kernel)
  // ended must never match the slot's next occupant.
  w.fetch_generation = ++generations_;
  slot_age_[slot] = w.age;
  if (with_issue_) {
    // Seed 003: queues of t_F + 1 entries start full of NOPs.
    while (w.ib_count < depth_) w.push_instruction(kNopPc, cycle);
  } else if (prefilled) {
    const uint32_t end = w.code_end;
    while (w.ib_count < depth_ && w.fetch_pc < end) w.push_instruction(w.fetch_pc++, cycle);
  }
  wake(slot);
}

void FetchStage::flush(uint32_t slot, uint64_t last_cycle) {
  WarpSlot& w = warps_[slot];
  wake(slot);
  // osched2 (seed 003): an empty buffer is predictable for 1 + hit latency cycles after a taken branch.
  w.oracle_blocked_until = std::max(w.oracle_blocked_until, last_cycle + 1 + hit_latency_);
  if (with_issue_) {
    // SWaS keeps the queue full: the wrong-path instructions become NOPs.
    bool real = false;
    for (uint32_t k = 0; k < w.ib_count; ++k) {
      BufferedInstruction& e = w.buffered(k);
      real |= e.pc != kNopPc;
      e.pc = kNopPc;
    }
    if (real) ++flushes_;
    w.fetch_pc = w.warp->pc();
    return;
  }
  if (w.ib_count) ++flushes_;
  w.ib_count = 0;
  w.fetch_pending = false;
  w.fetch_generation = ++generations_;
  w.fetch_pc = w.warp->pc();
}

bool FetchStage::fetch(uint64_t now) {
  // The stage would have retried a refused fetch in every cycle it slept
  // through (nothing that changes its choice happens meanwhile).
  if (refused_at_ != kNever) l1i_->count_skipped_retries(refused_at_, now);
  refused_at_ = kNever;
  // Fetch-ready warps: no fetch (line mode) or miss (instruction mode)
  // outstanding, room in the buffer, code left.
  uint64_t ready = 0;
  for (uint64_t part = candidates_; part; part &= part - 1) {
    const uint32_t slot = uint32_t(__builtin_ctzll(part));
    const WarpSlot& w = warps_[slot];
    if (!w.active || w.fetch_pending || w.ib_count >= depth_ || w.finished || w.fetch_pc >= w.code_end) {
      candidates_ &= ~(1ull << slot);  // set again when its buffer drains or it is flushed
      continue;
    }
    ready |= 1ull << slot;
  }
  bool sent = false;
  for (uint32_t k = 0; k < fetch_width_ && ready; ++k) {
    const uint32_t slot = uint32_t(scheduler_->select(ready, slot_age_));
    ready &= ~(1ull << slot);
    WarpSlot& w = warps_[slot];
    // Per-instruction fetch: up to fetch_instructions from this line, as the buffer allows.
    uint32_t count = 0;
    if (fetch_instructions_ != 0) {
      const uint32_t line_left = per_line_ - line_insts_div_.mod(w.fetch_pc);
      count = std::min({fetch_instructions_, depth_ - w.ib_count, w.code_end - w.fetch_pc, line_left});
    }
    bool missed = false;
    if (!request_instructions(
            slot, kFetchTag | (uint64_t(count) << kFetchCountShift) | (uint64_t(slot) << 32) | w.fetch_generation,
            now, missed)) {
      refused_at_ = now;  // no L1I MSHR: try again when one frees
      return sent;
    }
    sent = true;
    scheduler_->fetched(slot);
    if (count == 0) {
      w.fetch_pending = true;
      w.fetch_missed = missed;
      candidates_ &= ~(1ull << slot);
    } else {
      for (uint32_t i = 0; i < count; ++i) w.push_instruction(w.fetch_pc++, kPendingFetch);
      if (missed) {  // not fetch-ready until the miss is served
        w.fetch_pending = true;
        candidates_ &= ~(1ull << slot);
      }
    }
    if (missed) w.oracle_blocked_until = kNever;
  }
  return sent;
}

bool FetchStage::fetch_for_issue(uint32_t slot, uint64_t now) {
  WarpSlot& w = warps_[slot];
  if (w.ib_count >= depth_) return false;
  // Whatever happens, one entry goes in, so the queue stays full: the
  // instruction on a hit, a NOP on a miss (the warp is suspended until the
  // line arrives and fetches it again then), a NOP past the code's end or
  // when the L1I has no MSHR (fetched again at the next selection).
  uint32_t pc = kNopPc;
  const uint64_t ready = now + hit_latency_ + decode_latency_;
  bool sent = false;
  if (!w.finished && w.fetch_pc < w.code_end) {
    const uint32_t id = ++generations_;
    bool missed = false;
    if (request_instructions(slot, kFetchTag | kSwasFetchTag | (uint64_t(slot) << 32) | id, now, missed)) {
      sent = true;
      scheduler_->fetched(slot);
      if (!missed) {
        pc = w.fetch_pc++;
      } else {  // a miss, or a line still being filled: its answer ends the suspension
        w.fetch_pending = true;
        w.swas_miss = id;
        w.oracle_blocked_until = kNever;
      }
    }
  }
  w.push_instruction(pc, ready);
  return sent;
}

bool FetchStage::request_instructions(uint32_t slot, uint64_t id, uint64_t now, bool& missed) {
  memory::LineAccess a;
  a.kind = memory::AccessKind::InstructionFetch;
  const uint64_t addr = kCodeBase + uint64_t(warps_[slot].fetch_pc) * 8;
  a.line_addr = addr & ~uint64_t(line_bytes_ - 1);
  a.sector_mask = 0xffffffffu;
  a.warp = slot;
  a.id = id;
  const uint64_t answered_before = answers_;
  if (!l1i_->try_access(a, now)) return false;
  // The L1I answers a hit at once; a line still being filled counts as a miss.
  missed = answers_ == answered_before || last_answer_cycle_ > now + hit_latency_;
  return true;
}

bool FetchStage::answer(uint64_t id, uint64_t cycle, uint64_t& decoded_at) {
  decoded_at = kNever;
  const uint32_t slot = slot_of(id);
  const uint32_t generation = uint32_t(id & 0xffffffffu);
  WarpSlot& w = warps_[slot];
  if (id & kSwasFetchTag) {
    // A SWaS warp's buffer entry was written when it fetched; only the
    // answer to a miss matters: the warp may be selected again.
    if (!w.active || !w.fetch_pending || generation != w.swas_miss) return false;
    w.fetch_pending = false;
    w.oracle_blocked_until = cycle + 1 + hit_latency_;
    return true;
  }
  if (!w.active || generation != w.fetch_generation) return false;
  if (fetch_instructions_ != 0) {
    // Per-instruction fetch: this request's entries, the oldest unanswered first.
    uint32_t n = uint32_t((id >> kFetchCountShift) & 0xff);
    bool still_pending = false;
    for (uint32_t k = 0; k < w.ib_count; ++k) {
      BufferedInstruction& e = w.buffered(k);
      if (e.ready_cycle != kPendingFetch) continue;
      if (n == 0) {
        still_pending = true;
        continue;
      }
      e.ready_cycle = cycle + decode_latency_;
      decoded_at = e.ready_cycle;
      --n;
    }
    if (w.fetch_pending && !still_pending) {  // the miss was answered
      w.fetch_pending = false;
      wake(slot);
      w.oracle_blocked_until = cycle + 1 + hit_latency_;
    }
    return true;
  }
  if (!w.fetch_pending) return false;
  w.fetch_pending = false;
  if (w.fetch_missed) {
    w.fetch_missed = false;
    w.oracle_blocked_until = cycle + 1 + hit_latency_;
  }
  wake(slot);
  // One fetch brings the rest of the line's instructions the buffer has room for.
  const uint32_t end = w.code_end;
  const uint8_t buffered_before = w.ib_count;
  while (w.ib_count < depth_ && w.fetch_pc < end) {
    w.push_instruction(w.fetch_pc, cycle + decode_latency_);
    ++w.fetch_pc;
    if (line_insts_div_.mod(w.fetch_pc) == 0) break;
  }
  // One wake-up for the scheduler when they are decoded (they all are at once).
  if (w.ib_count != buffered_before) decoded_at = cycle + decode_latency_;
  return true;
}

}  // namespace tlmgpu::sm
