// Bounded queues and the base protocol's END_REQ back-pressure between them:
// a full crossbar input buffer holds an L1's requests in its miss queue and a
// full miss queue refuses the SM's accesses; a full L2 input queue closes the
// crossbar's link to that slice, a full DRAM scheduler queue holds the
// slice's requests to DRAM, and a full L2-to-DRAM queue stops the slice's
// lookups; everything still completes, under a base-protocol checker on
// every link.
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

/// Stores of distinct lines, one offered a cycle from cycle 10: each is a
/// 136-byte packet, five flits of the crossbar's 32 bytes (160 bytes on the
/// link), so the L1's input link takes one every five cycles.
std::vector<TestSm::Step> store_stream(uint64_t count) {
  std::vector<TestSm::Step> s;
  for (uint64_t i = 0; i < count; ++i)
    s.push_back({10 + i, line_access(i + 1, AccessKind::Store, 0x1000 * i, 0xf)});
  return s;
}

TEST_F(BackPressureDriven, AFullInputBufferHoldsTheL1sRequestsAndAFullMissQueueRefusesAccesses) {
  tlmgpu::core::GpuConfig c = one_slice_config(0, 0, 4096);
  c.icnt.input_buffer_flits = 10;  // two stores
  c.l1d.miss_queue = 3;
  OneSmMemoryBench b(c);
  constexpr uint64_t kStores = 24;
  b.sm_d.script = store_stream(kStores);
  run_cycles(20000);
  EXPECT_TRUE(no_module_scheduled());
  const auto& icnt = b.mem->interconnect();
  // Two stores fit in the input buffer; the third waits in the miss queue
  // for its END_REQ, the next two behind it; then the cache refuses stores.
  EXPECT_GT(stat_of(icnt, "withheld_end_requests"), 0);
  EXPECT_GT(stat_of(icnt, "input_buffer_full_cycles"), 0);
  EXPECT_EQ(late_end_requests_on(*b.mem, "check_up"), uint64_t(stat_of(icnt, "withheld_end_requests")));
  ASSERT_EQ(b.sm_d.accepted.size(), kStores);
  const auto taken = uint64_t(std::count(b.sm_d.accepted.begin(), b.sm_d.accepted.end(), true));
  EXPECT_LT(taken, kStores);
  EXPECT_GE(taken, 5u);  // the buffer's two and the queue's three
  EXPECT_EQ(stat_of(*b.l1d, "miss_queue_fails"), double(kStores - taken));
  // Each late END_REQ told the SM that the queue had room.
  EXPECT_FALSE(b.sm_d.releases.empty());
  // Every store taken went through and was acknowledged; nothing is left.
  EXPECT_EQ(b.sm_d.done.size(), taken);
  EXPECT_EQ(b.l1d->miss_queue_size(), 0u);
  EXPECT_EQ(stat_of(icnt, "up0_request_bytes"), double(taken * 160));
}

TEST_F(BackPressureDriven, RetriedAccessesGetThroughOnceTheQueueHasRoom) {
  // The refused stores are offered again every cycle until taken, as the
  // LD/ST unit does: all of them go through, spaced by the input link.
  tlmgpu::core::GpuConfig c = one_slice_config(0, 0, 4096);
  c.icnt.input_buffer_flits = 10;
  c.l1d.miss_queue = 1;
  OneSmMemoryBench b(c);
  constexpr uint64_t kStores = 12;
  b.sm_d.retry_until_taken = true;
  b.sm_d.script = store_stream(kStores);
  run_cycles(20000);
  EXPECT_TRUE(no_module_scheduled());
  EXPECT_EQ(b.sm_d.done.size(), kStores);
  EXPECT_GT(stat_of(*b.l1d, "miss_queue_fails"), 0);
  EXPECT_EQ(stat_of(b.mem->interconnect(), "up0_request_bytes"), double(kStores * 160));
}

TEST_F(BackPressureDriven, AnUnboundedInputBufferNeverHoldsTheL1) {
  OneSmMemoryBench b(one_slice_config(0, 0, 4096));
  b.sm_d.script = store_stream(24);
  run_cycles(20000);
  EXPECT_EQ(stat_of(b.mem->interconnect(), "withheld_end_requests"), 0);
  EXPECT_EQ(stat_of(*b.l1d, "miss_queue_fails"), 0);
  EXPECT_EQ(late_end_requests_on(*b.mem, "check_up"), 0u);
  EXPECT_EQ(b.sm_d.done.size(), 24u);
}

}  // namespace
