// The SM's per-warp scoreboard on its own: RAW and WAW hazards over register
// and predicate ids, and ids beyond the inline bits.
#include <gtest/gtest.h>

#include "model/sm/warp_scoreboard.h"

namespace tlmgpu::sm {
namespace {

InstructionTiming instruction(std::initializer_list<uint32_t> dst, std::initializer_list<uint32_t> src) {
  InstructionTiming t;
  for (uint32_t d : dst) t.dst[t.num_dst++] = d;
  for (uint32_t s : src) t.src[t.num_src++] = s;
  return t;
}

TEST(SmScoreboard, ReadAfterWriteWaitsUntilWriteback) {
  WarpScoreboard sb;
  sb.reset(64);
  const InstructionTiming producer = instruction({5}, {1, 2});
  const InstructionTiming consumer = instruction({6}, {5});
  const InstructionTiming unrelated = instruction({7}, {1});
  EXPECT_FALSE(sb.blocks(producer));
  sb.reserve(producer);
  EXPECT_TRUE(sb.pending(5));
  EXPECT_TRUE(sb.blocks(consumer));
  EXPECT_FALSE(sb.blocks(unrelated));
  sb.release(producer);
  EXPECT_FALSE(sb.pending(5));
  EXPECT_FALSE(sb.blocks(consumer));
}

TEST(SmScoreboard, WriteAfterWriteWaitsToo) {
  WarpScoreboard sb;
  sb.reset(64);
  sb.reserve(instruction({9, 40}, {}));
  EXPECT_TRUE(sb.blocks(instruction({40}, {3})));  // same destination in flight
  EXPECT_FALSE(sb.blocks(instruction({41}, {3})));
}

TEST(SmScoreboard, IdsBeyondTheInlineBitsAndAResetClearsAll) {
  WarpScoreboard sb;
  const uint32_t high = WarpScoreboard::kInlineIds + 70;
  sb.reset(high + 1);
  const InstructionTiming t = instruction({high, 3}, {});
  sb.reserve(t);
  EXPECT_TRUE(sb.pending(high));
  EXPECT_TRUE(sb.pending(3));
  EXPECT_FALSE(sb.pending(high - 1));
  EXPECT_FALSE(sb.pending(high - 64));  // another word's bit
  EXPECT_TRUE(sb.blocks(instruction({}, {high})));
  sb.clear_pending(high);
  EXPECT_FALSE(sb.pending(high));
  EXPECT_TRUE(sb.pending(3));
  sb.set_pending(high);
  sb.reset(high + 1);
  EXPECT_FALSE(sb.pending(high));
  EXPECT_FALSE(sb.pending(3));
}

}  // namespace
}  // namespace tlmgpu::sm
