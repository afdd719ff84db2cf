// DRAM channel: row-hit / row-miss timing by the formula, tRAS, FR-FCFS
// order, bank parallelism, queue statistics.
#include <gtest/gtest.h>

#include "memory/dram_channel.h"
#include "memory_test_support.h"

namespace {

using namespace tlmgpu_memtest;
using tlmgpu::memory::DramChannel;

struct Bench {
  tlmgpu::platform::DramConfig config = four_cycle_bursts();  // tRCD = tRP = tCL = 12, tRAS = 28
  DramChannel dram;
  TestInitiator l2{"l2"};
  Bench() : dram("dram", config, period()) { l2.socket.bind(dram.port(0)); }
  double stat(const char* name) const {
    tlmgpu::stats::StatMap m;
    dram.report_stats(m);
    return m.at(name);
  }
};

constexpr uint64_t kRow = 2048 * 16;  // next row of the same bank
constexpr uint64_t kBank = 2048;      // next bank

TEST(Dram, AddressMapping) {
  Bench b;
  const auto l = b.dram.locate(5 * kRow + 3 * kBank + 100);
  EXPECT_EQ(l.bank, 3u);
  EXPECT_EQ(l.row, 5u);
  EXPECT_EQ(l.column, 100u);
}

TEST(Dram, RowHitVsRowMissLatencyFollowTheFormula) {
  Bench b;
  const auto& c = b.config;
  b.l2.script = {{10, 0, 0x1, AccessKind::Load},          // closed bank
                 {100, 64, 0x1, AccessKind::Load},        // row hit
                 {200, kRow, 0x1, AccessKind::Load},      // row miss (row 0 open)
                 {241, 0, 0xf, AccessKind::Store},        // row miss, 4 sectors
                 {300, kBank, 0x1, AccessKind::Load},     // bank 1 closed
                 {301, kBank + kRow, 0x1, AccessKind::Load}};  // bank 1 row miss: waits for tRAS
  run_cycles(1000);
  const auto& r = b.l2.response_ready;
  EXPECT_EQ(r[0], 10 + c.tRCD + c.tCL + c.burst_cycles);
  EXPECT_EQ(r[1], 100 + c.tCL + c.burst_cycles);
  EXPECT_EQ(r[2], 200 + c.tRP + c.tRCD + c.tCL + c.burst_cycles);
  EXPECT_EQ(r[3], 241 + c.tRP + c.tRCD + c.tCL + 4 * c.burst_cycles);
  EXPECT_EQ(r[4], 300 + c.tRCD + c.tCL + c.burst_cycles);
  // Bank 1 takes the request at 316 (after its column burst) but may only
  // precharge tRAS after its activate at 300.
  EXPECT_EQ(r[5], 300 + c.tRAS + c.tRP + c.tRCD + c.tCL + c.burst_cycles);
  EXPECT_EQ(b.stat("row_hits"), 1);
  EXPECT_EQ(b.stat("row_misses"), 5);
  EXPECT_EQ(b.stat("reads"), 5);
  EXPECT_EQ(b.stat("writes"), 1);
}

TEST(Dram, FrFcfsServesYoungerRowHitBeforeOlderRowMiss) {
  Bench b;
  b.l2.script = {{10, 0, 0x1, AccessKind::Load},       // opens row 0 of bank 0; bank free again at 26
                 {20, kRow, 0x1, AccessKind::Load},    // older, row miss
                 {21, 128, 0x1, AccessKind::Load}};    // younger, row hit
  run_cycles(500);
  const auto& r = b.l2.response_ready;
  EXPECT_EQ(r[0], 38u);
  EXPECT_EQ(r[2], 42u);  // column at 26, data after the bus frees at 38
  EXPECT_EQ(r[1], 78u);  // taken at 30; precharge at 38 (tRAS), activate 50, column 62
  EXPECT_LT(r[2], r[1]);
  // Queue: 1 request during [20, 21), 2 during [21, 26), 1 during [26, 30).
  EXPECT_DOUBLE_EQ(b.stat("avg_queue_depth"), 15.0 / 10.0);
}

TEST(Dram, TwoBanksOverlapTheirActivations) {
  Bench b;
  b.l2.script = {{10, 0, 0x1, AccessKind::Load}, {10, kBank, 0x1, AccessKind::Load}};
  run_cycles(500);
  const auto& r = b.l2.response_ready;
  EXPECT_EQ(r[0], 38u);
  // Scheduled one cycle later; its data follows the first burst on the bus,
  // far earlier than a second full closed-bank access (66).
  EXPECT_EQ(r[1], 42u);
  // Bank 0 busy [10, 38), bank 1 [11, 42), some bank [10, 42).
  EXPECT_DOUBLE_EQ(b.stat("bank_parallelism"), 59.0 / 32.0);
}

TEST(Dram, QueueDepthBoundsTheSchedulerWindow) {
  tlmgpu::platform::DramConfig config = four_cycle_bursts();
  config.queue_depth = 1;
  DramChannel dram("dram", config, period());
  TestInitiator l2("l2");
  l2.socket.bind(dram.port(0));
  // The row hit (third) is not in the one-entry window when bank 0 frees, so
  // the older row miss goes first.
  l2.script = {{10, 0, 0x1, AccessKind::Load}, {20, kRow, 0x1, AccessKind::Load}, {21, 128, 0x1, AccessKind::Load}};
  run_cycles(500);
  EXPECT_EQ(l2.response_ready[1], 78u);
  EXPECT_GT(l2.response_ready[2], l2.response_ready[1]);
}

}  // namespace
