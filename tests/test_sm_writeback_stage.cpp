// The SM's writeback stage on its own: completions written back in (cycle,
// completion order), the scoreboard and in-flight counts they release, and
// the warps written back that retirement looks at.
#include <gtest/gtest.h>

#include <vector>

#include "model/sm/writeback_stage.h"

namespace tlmgpu::sm {
namespace {

TEST(SmWritebackStage, InstructionsWriteBackInCycleThenCompletionOrder) {
  std::vector<InstructionTiming> timing(3);
  for (uint32_t pc = 0; pc < 3; ++pc) timing[pc].dst[timing[pc].num_dst++] = pc;  // PC p writes register p
  std::vector<WarpSlot> warps(4);
  for (WarpSlot& w : warps) {
    w.scoreboard.reset(8);
    for (uint32_t pc = 0; pc < 3; ++pc) w.scoreboard.reserve(timing[pc]);
    w.in_flight = 3;
    w.mem_in_flight = 1;
  }
  WritebackStage wb;
  EXPECT_EQ(wb.next_ready(), ~uint64_t(0));
  wb.complete_at(20, 1, 2, true);
  wb.complete_at(10, 3, 0, false);
  wb.complete_at(20, 0, 1, false);
  EXPECT_EQ(wb.next_ready(), 10u);
  std::vector<std::pair<uint32_t, uint32_t>> order;
  auto record = [&](const WritebackStage::Completion& c, const InstructionTiming&) {
    order.push_back({c.slot, c.pc});
    EXPECT_FALSE(warps[c.slot].scoreboard.pending(c.pc)) << "the callback sees the warp written back";
  };
  EXPECT_FALSE(wb.writeback(9, warps, timing, record));
  EXPECT_TRUE(wb.writeback(19, warps, timing, record));
  EXPECT_EQ(wb.take_written_back(), 0b1000u);
  EXPECT_EQ(wb.take_written_back(), 0u);  // taken
  EXPECT_TRUE(wb.writeback(20, warps, timing, record));
  ASSERT_EQ(order.size(), 3u);
  EXPECT_EQ(order[0], std::make_pair(3u, 0u));
  EXPECT_EQ(order[1], std::make_pair(1u, 2u));  // completed first within cycle 20
  EXPECT_EQ(order[2], std::make_pair(0u, 1u));
  EXPECT_EQ(wb.take_written_back(), 0b0011u);
  EXPECT_EQ(warps[1].in_flight, 2u);
  EXPECT_EQ(warps[1].mem_in_flight, 0u);  // a memory instruction
  EXPECT_EQ(warps[0].mem_in_flight, 1u);
  EXPECT_TRUE(warps[1].scoreboard.pending(0));  // only PC 2's register was released
  EXPECT_FALSE(warps[1].scoreboard.pending(2));
  wb.complete_at(30, 2, 0, false);
  wb.reset();
  EXPECT_EQ(wb.next_ready(), ~uint64_t(0));
}

}  // namespace
}  // namespace tlmgpu::sm
