// The crossbar's arrival bookkeeping: packets announced long in advance (past
// its window of per-cycle buckets) and packets of one cycle announced out of
// order still enter their input link in (cycle, source, request id) order.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "memory/interconnect.h"
#include "memory_test_support.h"

namespace {

using namespace tlmgpu_memtest;
using tlmgpu::memory::Interconnect;

/// Batches of loads, each sent in one cycle with its own delays and request
/// ids, in the order given; each address names its request.
struct Send {
  uint64_t id;
  uint64_t delay;  ///< cycles from the batch's cycle to the crossbar
};
struct Batch {
  uint64_t cycle;
  std::vector<Send> sends;
};

std::vector<TestInitiator::Send> script_of(const std::vector<Batch>& batches) {
  std::vector<TestInitiator::Send> script;
  for (const Batch& b : batches)
    for (const Send& s : b.sends) script.push_back({b.cycle + s.delay, 0x1000 * s.id, 0x1, AccessKind::Load, b.cycle, s.id});
  return script;
}

struct OneSourceBench {
  tlmgpu::core::InterconnectConfig config{8, 32, 0};  // latency 8, 32 bytes a cycle
  Interconnect icnt;
  TestInitiator sender;
  TestMemory slice;
  explicit OneSourceBench(const std::string& prefix = "")
      : icnt((prefix + "icnt").c_str(), config, 1, 1, 256, period()),
        sender((prefix + "sender").c_str()),
        slice((prefix + "slice").c_str(), 5) {
    sender.socket.bind(icnt.upstream(0));
    icnt.downstream(0).bind(slice.socket);
    on_test_clock(icnt);
  }
};

TEST(InterconnectArrivals, FarAndNearArrivalsOfOneCycleEnterInIdOrder) {
  OneSourceBench b;
  // Cycle 705 gets ids 5, 2 and 1 announced 700 cycles ahead and id 4
  // announced 405 ahead; id 0 arrives alone at 305, id 3 at 1500.
  b.sender.script = script_of({{5, {{5, 700}, {2, 700}, {0, 300}, {1, 700}, {3, 1495}}}, {300, {{4, 405}}}});
  run_cycles(2000);
  ASSERT_EQ(b.slice.seen.size(), 6u);
  // One-flit headers: one grant a cycle; the slice sees each latency cycles later.
  const uint64_t ids[6] = {0, 1, 2, 4, 5, 3};
  const uint64_t cycles[6] = {305 + 8, 705 + 8, 706 + 8, 707 + 8, 708 + 8, 1500 + 8};
  for (uint32_t i = 0; i < 6; ++i) {
    EXPECT_EQ(b.slice.seen[i].addr, 0x1000 * ids[i]) << i;
    EXPECT_EQ(b.slice.seen[i].cycle, cycles[i]) << i;
  }
}

TEST(InterconnectArrivals, SameCycleArrivalsAnnouncedOutOfOrderEnterInIdOrder) {
  OneSourceBench b;
  // Ids 9, 7 and 8 for cycle 30, then 6 for cycle 25 (announced later, arrives first).
  b.sender.script = script_of({{20, {{9, 10}, {7, 10}, {8, 10}, {6, 5}}}});
  run_cycles(200);
  ASSERT_EQ(b.slice.seen.size(), 4u);
  const uint64_t ids[4] = {6, 7, 8, 9};
  const uint64_t cycles[4] = {25 + 8, 30 + 8, 31 + 8, 32 + 8};
  for (uint32_t i = 0; i < 4; ++i) {
    EXPECT_EQ(b.slice.seen[i].addr, 0x1000 * ids[i]) << i;
    EXPECT_EQ(b.slice.seen[i].cycle, cycles[i]) << i;
  }
}

TEST(InterconnectArrivals, ArrivalsAfterALongIdleGapAreOnTime) {
  OneSourceBench b;
  b.sender.script = script_of({{3, {{0, 1}}}, {5000, {{1, 2}, {2, 600}}}, {5001, {{3, 1}}}});
  run_cycles(6000);
  ASSERT_EQ(b.slice.seen.size(), 4u);
  const uint64_t ids[4] = {0, 1, 3, 2};
  const uint64_t cycles[4] = {4 + 8, 5002 + 8, 5002 + 1 + 8, 5600 + 8};
  for (uint32_t i = 0; i < 4; ++i) {
    EXPECT_EQ(b.slice.seen[i].addr, 0x1000 * ids[i]) << i;
    EXPECT_EQ(b.slice.seen[i].cycle, cycles[i]) << i;
  }
}

// A port whose initiator sends in (arrival, id) order (an L1's) skips the
// arrival buckets: the same grants as through them, also when stores of
// several flits queue on the input link and arrivals are far ahead.
TEST(InterconnectArrivals, InOrderPortGrantsAsTheGeneralPath) {
  OneSourceBench general("general_"), in_order("in_order_");
  in_order.icnt.expect_in_order(0);
  std::vector<TestInitiator::Send> script;
  for (uint64_t i = 0; i < 60; ++i) {
    const uint64_t cycle = 3 + i / 3 * 2;  // three sends every other cycle
    const uint64_t ahead = i % 7 == 0 ? 600 : 1;
    script.push_back({cycle + ahead, 0x1000 * i, i % 2 ? 0xfu : 0x1u, i % 2 ? AccessKind::Store : AccessKind::Load,
                      cycle, i});
  }
  // Arrivals must not go backwards on the in-order port: keep the far ones last.
  std::stable_partition(script.begin(), script.end(), [](const TestInitiator::Send& s) { return s.arrive - s.send_at == 1; });
  for (uint64_t i = 0; i < script.size(); ++i) script[i].id = i;
  general.sender.script = script;
  in_order.sender.script = script;
  run_cycles(2000);
  ASSERT_EQ(general.slice.seen.size(), script.size());
  ASSERT_EQ(in_order.slice.seen.size(), script.size());
  for (size_t i = 0; i < script.size(); ++i) {
    EXPECT_EQ(in_order.slice.seen[i].addr, general.slice.seen[i].addr) << i;
    EXPECT_EQ(in_order.slice.seen[i].cycle, general.slice.seen[i].cycle) << i;
  }
  tlmgpu::core::StatMap a, b;
  a = tlmgpu::core::values_of(general.icnt);
  b = tlmgpu::core::values_of(in_order.icnt);
  EXPECT_EQ(a, b);
  EXPECT_GT(a.at("request_stalls"), 0.0);  // the input link was contended
}

TEST(InterconnectArrivals, InOrderPortRejectsARequestOutOfOrder) {
  OneSourceBench b;
  b.icnt.expect_in_order(0);
  b.sender.script = script_of({{20, {{7, 10}, {6, 10}}}});
  try {
    run_cycles(100);
    FAIL() << "expected an error";
  } catch (const sc_core::sc_report& e) {
    EXPECT_NE(std::string(e.what()).find("upstream port 0 sent a request out of (arrival cycle, request id) order"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
