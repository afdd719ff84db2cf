// The LD/ST unit of an SM: what a memory instruction does once its operands
// are collected. Shared memory costs its bank-conflict degree; global and
// local accesses are coalesced into lines (the coalescer), entered in the
// memory-operation table and queued to the L1D, texture fetches to the
// texture cache, one line per cycle into each; param and const are constant
// cache hits. A queued instruction completes when the last of its lines is
// answered (line_answered / retire).
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "core/gpu_config.h"
#include "memory/memory_interfaces.h"
#include "model/exec/warp.h"

namespace tlmgpu::sm {

class LoadStoreUnit {
 public:
  static constexpr uint64_t kNever = ~uint64_t(0);
  /// start's answer for an instruction whose lines went to a cache.
  static constexpr uint64_t kQueued = ~uint64_t(0);

  explicit LoadStoreUnit(const core::GpuConfig& config);

  /// A new device: no instruction waits, no line is queued. (A launch that
  /// ended in a fault may have left answers for its lines: line_answered
  /// ignores them.)
  void reset();

  /// Warp `slot`'s memory instruction at `pc` accesses `a` from cycle `now`
  /// (`texture`: through the texture cache). Returns the cycle it completes
  /// at, or kQueued when it waits for its lines. `latency` is the LD/ST
  /// pipe's; a shared access sets `pipe_free_at` (the pipe's next accepting
  /// cycle) past its bank-conflict cycles.
  uint64_t start(const exec::MemAccess& a, bool texture, uint32_t slot, uint32_t pc, uint64_t now, uint64_t latency,
                 uint64_t& pipe_free_at);

  /// Offers each queue's head line to its cache (the L1D, the texture
  /// cache) at `now`. Returns whether a cache took one.
  bool send_lines(uint64_t now, memory::CacheAccessIf& l1d, memory::CacheAccessIf& tex) {
    const bool l1d_took = send_line(line_queue_, l1d, now);
    const bool tex_took = send_line(tex_queue_, tex, now);
    return l1d_took || tex_took;
  }

  /// A line of the instruction with table entry `id` was answered with its
  /// data at `cycle`. True when it was the instruction's last line: `cycle`
  /// then becomes the latest of its lines' cycles, when it completes.
  bool line_answered(uint64_t id, uint64_t& cycle) {
    if (id >= ops_.size() || !ops_[size_t(id)].valid) return false;  // a previous device's
    MemoryOp& op = ops_[size_t(id)];
    op.last_answer = std::max(op.last_answer, cycle);
    if (--op.lines_unanswered != 0) return false;
    cycle = op.last_answer;
    return true;
  }
  /// The instruction whose last line line_answered reported leaves the
  /// table; its warp slot and PC.
  std::pair<uint32_t, uint32_t> retire(uint64_t id) {
    MemoryOp& op = ops_[size_t(id)];
    op.valid = false;
    free_ops_.push_back(uint32_t(id));
    return {op.slot, op.pc};
  }

  /// The earliest cycle a cache that refused a queued line may take it (kNever: none waits).
  uint64_t next_retry_cycle(const memory::CacheAccessIf& l1d, const memory::CacheAccessIf& tex) const {
    uint64_t next = kNever;
    if (line_queue_.pending()) next = l1d.next_release_cycle();
    if (tex_queue_.pending()) next = std::min(next, tex.next_release_cycle());
    return next;
  }
  /// Lines queued, or instructions waiting for answers.
  bool waiting() const;
  /// Instructions waiting for their lines and lines queued for the L1D, for
  /// watchdog reports ("" when neither).
  std::string describe(const std::string& sm_name) const;

  uint64_t shared_accesses() const { return shared_accesses_; }
  uint64_t shared_bank_cycles() const { return shared_bank_cycles_; }

 private:
  struct MemoryOp {  // a global / local / atomic instruction waiting for its lines
    uint32_t slot = 0;
    uint32_t pc = 0;
    uint32_t lines_unanswered = 0;
    uint64_t last_answer = 0;  ///< the latest cycle of its lines' data
    bool valid = false;
  };
  /// Lines waiting for a cache port, in order, and the cycle the head was
  /// last refused (kNever: not refused).
  struct LineQueue {
    std::vector<memory::LineAccess> lines;
    size_t head = 0;
    uint64_t refused_at = kNever;
    bool pending() const { return head != lines.size(); }
    size_t size() const { return lines.size() - head; }
    void clear() {
      lines.clear();
      head = 0;
      refused_at = kNever;
    }
  };
  bool send_line(LineQueue& q, memory::CacheAccessIf& cache, uint64_t now) {
    // One line per cycle into each cache, in order.
    if (!q.pending()) return false;
    // A refused line waits for an MSHR to free (next_retry_cycle knows
    // when), so the SM can sleep meanwhile. The LD/ST unit would retry in
    // every cycle: the retries skipped while sleeping, all refused, count too.
    if (q.refused_at != kNever) cache.count_skipped_retries(q.refused_at, now);
    q.refused_at = now;
    if (!cache.try_access(q.lines[q.head], now)) return false;
    q.refused_at = kNever;
    if (++q.head == q.lines.size()) {
      q.lines.clear();
      q.head = 0;
    }
    return true;
  }

  uint32_t line_bytes_;
  uint32_t shared_banks_, shared_latency_, constant_latency_;
  bool stores_allocate_;  // l1d.write_allocate: stores carry their fully written units
  LineQueue line_queue_;  // FIFO to the L1D
  LineQueue tex_queue_;   // FIFO to the texture cache
  std::vector<MemoryOp> ops_;  // by id: the lines' request id
  std::vector<uint32_t> free_ops_;
  std::vector<memory::LineAccess> coalesced_;  // reused by every global / local access
  uint64_t shared_bank_cycles_ = 0, shared_accesses_ = 0;
};

}  // namespace tlmgpu::sm
