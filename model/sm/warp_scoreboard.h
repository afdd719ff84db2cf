// A warp's scoreboard: a bit per register / predicate id (InstructionTiming's
// ids) with a write in flight. A bit suffices: an instruction issues only
// when none of its destinations has one (WAW), so no id has two writes in
// flight. Issue reserves an instruction's destinations, writeback releases them.
#pragma once

#include <array>
#include <cstdint>
#include <utility>
#include <vector>

#include "model/sm/instruction_timing.h"

namespace tlmgpu::sm {

class WarpScoreboard {
 public:
  /// Ids below this have their bits inline (most kernels need no more);
  /// a larger kernel's other ids live in a vector.
  static constexpr uint32_t kInlineIds = 256;

  /// No write in flight, for a kernel with `num_ids` scoreboard ids.
  void reset(uint32_t num_ids) {
    low_.fill(0);
    more_.assign(num_ids > kInlineIds ? (num_ids - kInlineIds + 63) / 64 : 0, 0);
  }
  bool pending(uint32_t id) const { return (word(id) >> (id % 64)) & 1; }
  void set_pending(uint32_t id) { word(id) |= uint64_t(1) << (id % 64); }
  void clear_pending(uint32_t id) { word(id) &= ~(uint64_t(1) << (id % 64)); }

  /// Whether `t` must wait: a source (RAW) or destination (WAW) has a write in flight.
  bool blocks(const InstructionTiming& t) const {
    for (uint8_t i = 0; i < t.num_src; ++i)
      if (pending(t.src[i])) return true;
    for (uint8_t i = 0; i < t.num_dst; ++i)
      if (pending(t.dst[i])) return true;
    return false;
  }
  /// `t` issued: its destinations have a write in flight.
  void reserve(const InstructionTiming& t) {
    for (uint8_t i = 0; i < t.num_dst; ++i) set_pending(t.dst[i]);
  }
  /// `t` wrote back.
  void release(const InstructionTiming& t) {
    for (uint8_t i = 0; i < t.num_dst; ++i) clear_pending(t.dst[i]);
  }

 private:
  const uint64_t& word(uint32_t id) const {
    return id < kInlineIds ? low_[id / 64] : more_[(id - kInlineIds) / 64];
  }
  uint64_t& word(uint32_t id) { return const_cast<uint64_t&>(std::as_const(*this).word(id)); }

  std::array<uint64_t, kInlineIds / 64> low_{};
  std::vector<uint64_t> more_;
};

}  // namespace tlmgpu::sm
