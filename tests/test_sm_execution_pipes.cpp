// The SM's execution pipes on their own: initiation intervals per scheduler
// and pipe, and the wake-up when a trace instruction's pipe accepts again.
#include <gtest/gtest.h>

#include "model/sm/execution_pipes.h"

namespace tlmgpu::sm {
namespace {

TEST(SmExecutionPipes, APipeAcceptsAgainAfterItsIntervalPerScheduler) {
  ExecutionPipes pipes;
  EXPECT_TRUE(pipes.accepts(0, Pipe::Sfu, 0));
  pipes.free_at(0, Pipe::Sfu) = 10 + 4;  // entered at 10, interval 4
  EXPECT_FALSE(pipes.accepts(0, Pipe::Sfu, 13));
  EXPECT_TRUE(pipes.accepts(0, Pipe::Sfu, 14));
  EXPECT_TRUE(pipes.accepts(1, Pipe::Sfu, 10));  // another scheduler's pipe
  EXPECT_TRUE(pipes.accepts(0, Pipe::Sp, 10));   // another pipe
  EXPECT_EQ(pipes.next_freed(), ExecutionPipes::kNever);  // only trace instructions wake the issue stage
  pipes.reset();
  EXPECT_TRUE(pipes.accepts(0, Pipe::Sfu, 0));
}

TEST(SmExecutionPipes, ATraceInstructionsPipeWakesTheIssueStageOnce) {
  ExecutionPipes pipes;
  pipes.occupy_fixed(2, Pipe::Dp, 100, 8);
  pipes.occupy_fixed(3, Pipe::Dp, 101, 8);
  EXPECT_FALSE(pipes.accepts(2, Pipe::Dp, 107));
  EXPECT_EQ(pipes.next_freed(), 108u);
  EXPECT_FALSE(pipes.take_freed(107));
  EXPECT_TRUE(pipes.take_freed(108));
  EXPECT_TRUE(pipes.accepts(2, Pipe::Dp, 108));
  EXPECT_FALSE(pipes.take_freed(108));  // reported once
  EXPECT_EQ(pipes.next_freed(), 109u);
  EXPECT_TRUE(pipes.take_freed(200));   // a late look takes every cycle passed
  EXPECT_EQ(pipes.next_freed(), ExecutionPipes::kNever);
  pipes.occupy_fixed(0, Pipe::Sp, 5, 1);
  pipes.reset();
  EXPECT_EQ(pipes.next_freed(), ExecutionPipes::kNever);
}

}  // namespace
}  // namespace tlmgpu::sm
