// Bounded queues in the memory partition and the base protocol's END_REQ
// back-pressure between them: a full L2 input queue closes the crossbar's
// link to that slice, a full DRAM scheduler queue holds the slice's requests
// to DRAM, and a full L2-to-DRAM queue stops the slice's lookups; everything
// still completes, under a base-protocol checker on every link.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "memory/dram_channel.h"
#include "memory/interconnect.h"
#include "memory/l2_slice.h"
#include "memory_test_support.h"

namespace {

using namespace tlmgpu_memtest;

class BackPressureDriven : public MemoryDriver {};

/// One slice on one channel, so that every request meets the same queues.
tlmgpu::core::GpuConfig one_slice_config(uint32_t input_queue, uint32_t dram_queue, uint32_t scheduler_queue) {
  tlmgpu::core::GpuConfig c = unit_test_memory_config();
  c.l2_slices = 1;
  c.dram = four_cycle_bursts();
  c.dram.channels = 1;
  c.dram.queue_depth = scheduler_queue;
  c.l2_input_queue = input_queue;
  c.l2_dram_queue = dram_queue;
  c.l2_rop_latency = 0;  // every request that reaches the slice is in its input queue
  c.l1d.mshrs = 128;  // the SM's loads all reach the L2
  c.host_protocol_checkers = true;
  return c;
}

constexpr uint64_t kLoads = 96;

/// Loads of distinct lines (all L2 misses), one a cycle from cycle 10: many
/// more than the channel serves meanwhile.
std::vector<TestSm::Step> miss_burst() {
  std::vector<TestSm::Step> s;
  for (uint64_t i = 0; i < kLoads; ++i) s.push_back({10 + i, line_access(i + 1, AccessKind::Load, 0x1000 * i, 0xf)});
  return s;
}

uint64_t late_end_requests_on(const tlmgpu::platform::MemorySystem& mem, const std::string& prefix) {
  uint64_t late = 0;
  for (const auto& c : mem.protocol_checkers())
    if (std::string(c->basename()).rfind(prefix, 0) == 0) late += c->late_end_requests();
  return late;
}

TEST_F(BackPressureDriven, FullQueuesHoldRequestsBackAndEverythingCompletes) {
  OneSmMemoryBench b(one_slice_config(2, 1, 1));
  b.sm_d.script = miss_burst();
  run_cycles(20000);
  ASSERT_EQ(b.sm_d.done.size(), kLoads);
  EXPECT_TRUE(no_module_scheduled());
  const auto& slice = b.mem->l2_slice(0);
  const auto& channel = b.mem->dram_channel(0);
  // The DRAM scheduler queue of one request withheld END_REQ from the slice,
  // whose queue to DRAM then filled and stopped its lookups, so its input
  // queue filled and it withheld the crossbar's END_REQ.
  EXPECT_GT(stat_of(channel, "withheld_end_requests"), 0);
  EXPECT_GT(stat_of(slice, "dram_queue_full_cycles"), 0);
  EXPECT_GT(stat_of(slice, "withheld_end_requests"), 0);
  EXPECT_GT(stat_of(slice, "crossbar_held_cycles"), 0);
  EXPECT_GT(stat_of(b.mem->interconnect(), "slice_held_cycles"), 0);
  // The checkers saw those END_REQs come after TLM_ACCEPTED, on both links.
  EXPECT_EQ(late_end_requests_on(*b.mem, "check_l2_"), uint64_t(stat_of(slice, "withheld_end_requests")));
  EXPECT_EQ(late_end_requests_on(*b.mem, "check_dram_"), uint64_t(stat_of(channel, "withheld_end_requests")));
  EXPECT_EQ(stat_of(slice, "queued_requests"), 0);
  EXPECT_EQ(stat_of(slice, "dram_outstanding"), 0);
}

TEST_F(BackPressureDriven, UnboundedQueuesNeverWithholdEndReq) {
  OneSmMemoryBench b(one_slice_config(0, 0, 4096));
  b.sm_d.script = miss_burst();
  run_cycles(20000);
  ASSERT_EQ(b.sm_d.done.size(), kLoads);
  EXPECT_EQ(stat_of(b.mem->dram_channel(0), "withheld_end_requests"), 0);
  EXPECT_EQ(stat_of(b.mem->l2_slice(0), "withheld_end_requests"), 0);
  EXPECT_EQ(stat_of(b.mem->l2_slice(0), "dram_queue_full_cycles"), 0);
  EXPECT_EQ(stat_of(b.mem->interconnect(), "slice_held_cycles"), 0);
  EXPECT_EQ(late_end_requests_on(*b.mem, "check_l2_") + late_end_requests_on(*b.mem, "check_dram_"), 0u);
}

}  // namespace
