// DRAM channel: the core <-> DRAM clock crossing, row-hit / row-miss timing,
// each GDDR5 constraint (tCCD / tCCDL, tRRD, tRC, tWR, tCDLR, read to write
// turnaround), whole bursts, the address mapping, FR-FCFS order, bandwidth of
// streams and random accesses, determinism. Expected cycles by hand.
#include <gtest/gtest.h>

#include <memory>

#include "memory/dram_channel.h"
#include "memory_test_support.h"

namespace {

// The modules run on a test clock and its clock domain, as inside the GPU
// (memory_test_support.h).
class DramDriven : public tlmgpu_memtest::MemoryDriver {};
class DramClockDriven : public tlmgpu_memtest::MemoryDriver {};
class DramTimingDriven : public tlmgpu_memtest::MemoryDriver {};
class DramMappingDriven : public tlmgpu_memtest::MemoryDriver {};
class DramBandwidthDriven : public tlmgpu_memtest::MemoryDriver {};

using namespace tlmgpu_memtest;
using tlmgpu::memory::DramAddressMap;
using tlmgpu::memory::DramChannel;
using tlmgpu::memory::DramClockCrossing;
using tlmgpu::core::DramConfig;

constexpr double kCoreMhz = 700;

struct Bench {
  tlmgpu::core::DramConfig config;
  DramChannel dram;
  TestInitiator l2;
  explicit Bench(const tlmgpu::core::DramConfig& c, const char* name = "dram")
      : config(c), dram(name, config, kCoreMhz, period()), l2((std::string(name) + "_l2").c_str()) {
    l2.socket.bind(dram.port(0));
    on_test_clock(dram);
  }
  double stat(const char* name) const {
    tlmgpu::core::StatMap m;
    m = tlmgpu::core::values_of(dram);
    return m.at(name);
  }
};

// ------------------------------------------- the single-clock model (defaults)

constexpr uint64_t kRow = 2048 * 16;  // next row of the same bank (default linear mapping)
constexpr uint64_t kBank = 2048;      // next bank

TEST_F(DramDriven, DefaultLinearMapping) {
  DramAddressMap map;
  std::string error;
  ASSERT_TRUE(map.parse(tlmgpu::core::DramConfig{}.address_mapping, error)) << error;
  const auto l = map.locate(5 * kRow + 3 * kBank + 100);
  EXPECT_EQ(l.bank, 3u);
  EXPECT_EQ(l.row, 5u);
  EXPECT_EQ(l.column, 100u);
}

TEST_F(DramDriven, RowHitVsRowMissLatencyFollowTheFormula) {
  Bench b(four_cycle_bursts());  // tRCD = tRP = tCL = 12, tRAS = 28, tRC = 40
  const auto& c = b.config;
  const uint64_t burst = 4;
  b.l2.script = {{10, 0, 0x1, AccessKind::Load},          // closed bank
                 {100, 64, 0x1, AccessKind::Load},        // row hit
                 {200, kRow, 0x1, AccessKind::Load},      // row miss (row 0 open)
                 {241, 0, 0xf, AccessKind::Store},        // row miss, 4 sectors = 4 bursts
                 {300, kBank, 0x1, AccessKind::Load},     // bank 1 closed
                 {301, kBank + kRow, 0x1, AccessKind::Load}};  // bank 1 row miss: waits for tRAS
  run_cycles(1000);
  const auto& r = b.l2.response_ready;
  EXPECT_EQ(r[0], 10 + c.tRCD + c.tCL + burst);
  EXPECT_EQ(r[1], 100 + c.tCL + burst);
  EXPECT_EQ(r[2], 200 + c.tRP + c.tRCD + c.tCL + burst);
  // Write latency = tCL by default; the bursts follow each other on the bus.
  EXPECT_EQ(r[3], 241 + c.tRP + c.tRCD + c.tWL + 4 * burst);
  EXPECT_EQ(r[4], 300 + c.tRCD + c.tCL + burst);
  // Bank 1 takes the request at 312 (after its column) but may only
  // precharge tRAS after its activate at 300.
  EXPECT_EQ(r[5], 300 + c.tRAS + c.tRP + c.tRCD + c.tCL + burst);
  EXPECT_EQ(b.stat("row_hits"), 1);
  EXPECT_EQ(b.stat("row_misses"), 5);
  EXPECT_EQ(b.stat("reads"), 5);
  EXPECT_EQ(b.stat("writes"), 1);
  EXPECT_EQ(b.stat("activates"), 5);
  EXPECT_EQ(b.stat("precharges"), 3);
  EXPECT_TRUE(no_module_scheduled());
}

TEST_F(DramDriven, FrFcfsServesYoungerRowHitBeforeOlderRowMiss) {
  Bench b(four_cycle_bursts());
  b.l2.script = {{10, 0, 0x1, AccessKind::Load},       // opens row 0 of bank 0; column at 22
                 {20, kRow, 0x1, AccessKind::Load},    // older, row miss
                 {21, 128, 0x1, AccessKind::Load}};    // younger, row hit
  run_cycles(500);
  const auto& r = b.l2.response_ready;
  EXPECT_EQ(r[0], 38u);
  EXPECT_EQ(r[2], 42u);  // taken at 22; column at 26, when its data finds the bus free at 38
  EXPECT_EQ(r[1], 78u);  // taken at 26; precharge at 38 (tRAS), activate 50, column 62
  EXPECT_LT(r[2], r[1]);
  // Waiting for a bank: 1 request during [20, 21), 2 during [21, 22), 1 during [22, 26).
  EXPECT_DOUBLE_EQ(b.stat("avg_queue_depth"), 7.0 / 6.0);
}

TEST_F(DramDriven, TwoBanksOverlapTheirActivations) {
  Bench b(four_cycle_bursts());
  b.l2.script = {{10, 0, 0x1, AccessKind::Load}, {10, kBank, 0x1, AccessKind::Load}};
  run_cycles(500);
  const auto& r = b.l2.response_ready;
  EXPECT_EQ(r[0], 38u);
  // Activated one cycle later (one command per cycle); its column waits for
  // the first burst to leave the bus: far earlier than a second full
  // closed-bank access (66).
  EXPECT_EQ(r[1], 42u);
  // Both banks take their request at 10; bank 0 serves it until its column
  // at 22, bank 1 until 26: 12 + 16 bank cycles over 16 cycles.
  EXPECT_DOUBLE_EQ(b.stat("bank_parallelism"), 28.0 / 16.0);
}

TEST_F(DramDriven, QueueDepthBoundsTheSchedulerWindow) {
  tlmgpu::core::DramConfig config = four_cycle_bursts();
  config.queue_depth = 1;
  Bench b(config);
  // The row hit (third) is not in the one-entry window when bank 0 frees, so
  // the older row miss goes first.
  b.l2.script = {{10, 0, 0x1, AccessKind::Load}, {20, kRow, 0x1, AccessKind::Load}, {21, 128, 0x1, AccessKind::Load}};
  run_cycles(500);
  EXPECT_EQ(b.l2.response_ready[1], 78u);
  EXPECT_GT(b.l2.response_ready[2], b.l2.response_ready[1]);
}

// ------------------------------------------------------- the clock crossing

TEST_F(DramClockDriven, ConvertsWithIntegersBothWays) {
  const DramClockCrossing same(700, 700);
  EXPECT_EQ(same.dram_at_or_after(123), 123u);
  EXPECT_EQ(same.core_at_or_after(123), 123u);
  // 924 : 700 MHz = 33 : 25. Core cycle 10 starts at 10 / 700 us = DRAM 13.2.
  const DramClockCrossing gtx(700, 924);
  EXPECT_EQ(gtx.dram_at_or_after(0), 0u);
  EXPECT_EQ(gtx.dram_at_or_after(10), 14u);
  EXPECT_EQ(gtx.dram_at_or_before(10), 13u);
  EXPECT_EQ(gtx.dram_at_or_after(25), 33u);  // the clocks' edges meet
  EXPECT_EQ(gtx.dram_at_or_before(25), 33u);
  // DRAM cycle 14 starts at core 10.6, 13 at core 9.85, 33 at 25.
  EXPECT_EQ(gtx.core_at_or_after(14), 11u);
  EXPECT_EQ(gtx.core_at_or_after(13), 10u);
  EXPECT_EQ(gtx.core_at_or_after(33), 25u);
  // 2500 : 1417 MHz (Titan X) share no factor but 1000 kHz.
  const DramClockCrossing titan(1417, 2500);
  EXPECT_EQ(titan.dram_at_or_after(1417), 2500u);
  EXPECT_EQ(titan.dram_at_or_after(1), 2u);
  EXPECT_EQ(titan.core_at_or_after(2500), 1417u);
  EXPECT_EQ(titan.core_at_or_after(1), 1u);
  // A billion core cycles later still exact.
  EXPECT_EQ(gtx.dram_at_or_after(25000000000ull), 33000000000ull);
}

/// GPGPU-Sim's GTX480 GDDR5 (SM2_GTX480): 64-byte bursts of 2 DRAM cycles,
/// 4 bank groups; a linear mapping with 4 KB rows (bank = bits 12..15) so
/// tests pick banks and rows directly.
tlmgpu::core::DramConfig gddr5() {
  tlmgpu::core::DramConfig d;
  d.clock_mhz = kCoreMhz;  // one clock unless a test says otherwise
  d.banks = 16;
  d.bank_groups = 4;
  d.row_bytes = 4096;
  d.address_mapping = "RRRR.BBBBCCCC.CCCCCCCC";
  d.bus_bytes = 8;
  d.burst_length = 8;
  d.data_rate = 4;
  d.tRCD = 12;
  d.tRP = 12;
  d.tCL = 12;
  d.tRAS = 28;
  d.tRC = 40;
  d.tRRD = 6;
  d.tCCD = 2;
  d.tCCDL = 3;
  d.tWL = 4;
  d.tWR = 12;
  d.tCDLR = 5;
  d.tRTPL = 2;
  d.turnaround = 2;
  d.queue_depth = 64;
  return d;
}
constexpr uint64_t kBank4K = 4096;       // next bank; bank b is in group b mod 4
constexpr uint64_t kRow4K = 4096 * 16;   // next row of a bank

TEST_F(DramClockDriven, RequestWaitsForTheDramEdgeAndAnswersOnACoreEdge) {
  tlmgpu::core::DramConfig config = gddr5();
  config.clock_mhz = 924;
  Bench b(config);
  b.l2.script = {{10, 0, 0x1, AccessKind::Load}};
  run_cycles(200);
  // Eligible at DRAM 14 (core 10 = DRAM 13.2): activate 14, column 26, data
  // until 26 + 12 + 2 = 40 = core 30.3, so the answer is at core 31.
  EXPECT_EQ(b.l2.response_ready[0], 31u);
  EXPECT_EQ(b.stat("avg_latency"), 21);
  EXPECT_TRUE(no_module_scheduled());
}

TEST_F(DramClockDriven, FixedLatencyIsSpentBeforeTheQueue) {
  tlmgpu::core::DramConfig config = gddr5();
  config.clock_mhz = 924;
  config.latency = 100;
  Bench b(config);
  b.l2.script = {{10, 0, 0x1, AccessKind::Load}};
  run_cycles(400);
  // At the queue at core 110 = DRAM 145.2: activate 146, column 158, data
  // until 172 = core 130.3: 131.
  EXPECT_EQ(b.l2.response_ready[0], 131u);
}

// ------------------------------------------------------ GDDR5 constraints

TEST_F(DramTimingDriven, ActivatesAreTRrdApartAndColumnsTCcdOrTCcdl) {
  Bench b(gddr5());
  b.l2.script = {// Rows opened in banks 0 (group 0), 1 (group 1), 4 (group 0).
                 {10, 0, 0x1, AccessKind::Load},
                 {10, kBank4K, 0x1, AccessKind::Load},
                 {10, 4 * kBank4K, 0x1, AccessKind::Load},
                 // Row hits in two groups: columns tCCD apart.
                 {200, 64, 0x1, AccessKind::Load},
                 {200, kBank4K + 64, 0x1, AccessKind::Load},
                 // Row hits in one group: columns tCCDL apart.
                 {300, 128, 0x1, AccessKind::Load},
                 {300, 4 * kBank4K + 128, 0x1, AccessKind::Load}};
  run_cycles(600);
  const auto& r = b.l2.response_ready;
  // Activates at 10 and 16 (tRRD 6); bank 4's, allowed at 22, yields the
  // command bus to bank 0's column (columns first) and goes at 23. Columns
  // tRCD after the activate; data tCL + 2 after the column.
  EXPECT_EQ(r[0], 10 + 12 + 14u);
  EXPECT_EQ(r[1], 16 + 12 + 14u);
  EXPECT_EQ(r[2], 23 + 12 + 14u);
  EXPECT_EQ(b.stat("rrd_delays"), 1);  // bank 1's; bank 4's was the command bus
  EXPECT_EQ(r[3], 200 + 14u);
  EXPECT_EQ(r[4], 202 + 14u);  // tCCD 2
  EXPECT_EQ(r[5], 300 + 14u);
  EXPECT_EQ(r[6], 303 + 14u);  // tCCDL 3
  EXPECT_EQ(b.stat("ccdl_delays"), 1);
  EXPECT_EQ(b.stat("row_hits"), 4);
}

TEST_F(DramTimingDriven, ADualCommandBusIssuesARowAndAColumnCommandInOneCycle) {
  // The three activates of the test above: on one command bus bank 4's
  // activate (allowed at 22) waits a cycle for bank 0's column; with HBM's
  // separate row and column buses both go at 22.
  tlmgpu::core::DramConfig dual = gddr5();
  dual.dual_command_bus = true;
  Bench one(gddr5(), "one"), two(dual, "two");
  for (Bench* b : {&one, &two})
    b->l2.script = {{10, 0, 0x1, AccessKind::Load},
                    {10, kBank4K, 0x1, AccessKind::Load},
                    {10, 4 * kBank4K, 0x1, AccessKind::Load}};
  run_cycles(300);
  EXPECT_EQ(one.l2.response_ready[2], 23 + 12 + 14u);
  EXPECT_EQ(two.l2.response_ready[2], 22 + 12 + 14u);
  EXPECT_EQ(one.stat("paired_row_commands"), 0);
  EXPECT_EQ(two.stat("paired_row_commands"), 1);
  for (int i = 0; i < 2; ++i) EXPECT_EQ(one.l2.response_ready[i], two.l2.response_ready[i]) << i;
}

TEST_F(DramBandwidthDriven, ADualCommandBusServesRandomRowsFasterWhenCommandsAreTheLimit) {
  // Short row timings, tRRD 1 and 1-cycle bursts, so that neither the banks
  // nor the data bus is the limit: a random sector needs a precharge, an
  // activate and a column, so one command bus gives at most one sector per
  // 3 cycles; with separate row and column buses the row commands alone
  // bound it (2 per sector), and row commands pair with columns.
  tlmgpu::core::DramConfig config = gddr5();
  config.tRRD = 1;
  config.tRCD = 2;
  config.tRP = 2;
  config.tRAS = 4;
  config.tRC = 6;
  config.bus_bytes = 16;
  config.burst_length = 2;
  config.data_rate = 2;
  config.tCCD = 1;
  config.tCCDL = 1;
  tlmgpu::core::DramConfig dual = config;
  dual.dual_command_bus = true;
  Bench one(config, "one"), two(dual, "two");
  uint64_t x = 777;
  std::vector<uint64_t> addrs;
  for (int i = 0; i < 400; ++i) {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    addrs.push_back(((x >> 20) & ((uint64_t(1) << 30) - 1)) & ~uint64_t(31));
  }
  for (uint64_t a : addrs) {
    one.l2.script.push_back({10, a, 0x1, AccessKind::Load});
    two.l2.script.push_back({10, a, 0x1, AccessKind::Load});
  }
  run_cycles(20000);
  const auto last = [](const Bench& b) {
    uint64_t end = 0;
    for (uint64_t r : b.l2.response_ready) end = std::max(end, r);
    return end;
  };
  for (const Bench* b : {&one, &two})
    ASSERT_EQ(std::count(b->l2.response_ready.begin(), b->l2.response_ready.end(), 0u), 0);  // every answer came
  // Three and two command cycles per sector, within 5 %.
  EXPECT_NEAR(double(last(one) - 10), 3.0 * double(addrs.size()), 0.15 * double(addrs.size()));
  EXPECT_NEAR(double(last(two) - 10), 2.0 * double(addrs.size()), 0.10 * double(addrs.size()));
  EXPECT_EQ(one.stat("paired_row_commands"), 0);
  EXPECT_GT(two.stat("paired_row_commands"), double(addrs.size()) / 4);
  EXPECT_EQ(one.stat("reads"), two.stat("reads"));
}

TEST_F(DramTimingDriven, ActivateWaitsForTRcAfterTheLastActivate) {
  // A row miss right behind a closed-bank access: activate 10, column 22,
  // precharge at 38 (tRAS 28), activate at max(38 + tRP, 10 + tRC).
  tlmgpu::core::DramConfig slow = gddr5();
  slow.tRC = 60;
  Bench rc40(gddr5(), "rc40"), rc60(slow, "rc60");
  for (Bench* b : {&rc40, &rc60}) b->l2.script = {{10, 0, 0x1, AccessKind::Load}, {11, kRow4K, 0x1, AccessKind::Load}};
  run_cycles(300);
  EXPECT_EQ(rc40.l2.response_ready[1], 50 + 12 + 14u);  // tRAS + tRP bind
  EXPECT_EQ(rc60.l2.response_ready[1], 70 + 12 + 14u);  // tRC binds
}

TEST_F(DramTimingDriven, PrechargeWaitsForWriteRecovery) {
  Bench b(gddr5());
  // A write to a closed bank: activate 10, column 22, data 26..28. The row
  // miss behind it may precharge at max(10 + tRAS, 28 + tWR) = 40, activate
  // at 52 and read at 64: data until 78 (76 without tWR).
  b.l2.script = {{10, 0, 0x1, AccessKind::Store}, {11, kRow4K, 0x1, AccessKind::Load}};
  run_cycles(300);
  EXPECT_EQ(b.l2.response_ready[0], 28u);
  EXPECT_EQ(b.l2.response_ready[1], 78u);
}

TEST_F(DramTimingDriven, ReadWaitsTCdlrAfterWriteDataAndWriteWaitsForTheBusTurnaround) {
  Bench b(gddr5());
  b.l2.script = {{10, 0, 0x1, AccessKind::Load},             // open bank 0 (act 10)
                 {10, kBank4K, 0x1, AccessKind::Load},       // open bank 1 (act 16)
                 // Write then read, row hits in two groups: write column 100,
                 // data 104..106; the read may not issue before 106 + tCDLR.
                 {100, 64, 0x1, AccessKind::Store},
                 {100, kBank4K + 64, 0x1, AccessKind::Load},
                 // Read then write: read column 200, data 212..214; the write's
                 // data may start 2 cycles after (turnaround), its column at 212.
                 {200, 128, 0x1, AccessKind::Load},
                 {200, kBank4K + 128, 0x1, AccessKind::Store}};
  run_cycles(500);
  const auto& r = b.l2.response_ready;
  EXPECT_EQ(r[2], 106u);
  EXPECT_EQ(r[3], 111 + 14u);
  EXPECT_EQ(r[4], 214u);
  EXPECT_EQ(r[5], 212 + 4 + 2u);
  EXPECT_EQ(b.stat("turnaround_delays"), 2);
}

TEST_F(DramTimingDriven, AnyRequestTakesWholeBursts) {
  Bench b(gddr5());
  b.l2.script = {{10, 0, 0x1, AccessKind::Load},        // opens the row
                 {100, 0, 0x1, AccessKind::Load},       // 32 B: one 64 B burst
                 {200, 64, 0x3, AccessKind::Load},      // 64 B: one burst
                 {300, 128, 0xf, AccessKind::Load}};    // 128 B: two bursts, one group: tCCDL apart
  run_cycles(500);
  const auto& r = b.l2.response_ready;
  EXPECT_EQ(r[1], 100 + 14u);
  EXPECT_EQ(r[2], 200 + 14u);
  EXPECT_EQ(r[3], 303 + 14u);
  EXPECT_EQ(b.stat("bytes_moved"), 5 * 64);
  EXPECT_EQ(b.stat("bytes_requested"), 32 + 32 + 64 + 128);
  EXPECT_EQ(b.stat("bus_busy_cycles"), 5 * 2);
}

// --------------------------------------------------------- address mapping

TEST_F(DramMappingDriven, Gtx480PatternSpreadsChunksOverBanksAndGroups) {
  DramAddressMap map;
  std::string error;
  ASSERT_TRUE(map.parse("0000RRRR.RRRRRRRR.BBBCCCCB.CCSSSSSS", error)) << error;
  EXPECT_EQ(map.bank_bits(), 4u);
  EXPECT_EQ(map.column_bits(), 12u);  // 4 KB rows
  // A 128-byte line lies in one bank and row.
  EXPECT_EQ(map.locate(0).bank, map.locate(127).bank);
  // Consecutive 256-byte chunks alternate banks 0 and 1 (bank bit 0 is
  // address bit 8), i.e. bank groups 0 and 1; the next 14 chunks are further
  // columns of the same two rows; bit 13 starts banks 2 and 3.
  for (uint64_t chunk = 0; chunk < 32; ++chunk) {
    const auto l = map.locate(chunk * 256);
    EXPECT_EQ(l.bank, chunk % 2) << chunk;
    EXPECT_EQ(l.row, 0u);
    EXPECT_EQ(l.column, (chunk / 2) * 256) << chunk;
  }
  EXPECT_EQ(map.locate(32 * 256).bank, 2u);
  EXPECT_EQ(map.locate(33 * 256).bank, 3u);
  EXPECT_EQ(map.locate(0xe100).bank, 15u);  // bits 15..13 and 8
  const auto row = map.locate(uint64_t(1) << 16);
  EXPECT_EQ(row.row, 1u);
  EXPECT_EQ(row.bank, 0u);
  // Beyond the pattern's 28 bits the row continues.
  EXPECT_EQ(map.locate(uint64_t(1) << 28).row, 4096u);
  EXPECT_EQ(map.locate((uint64_t(1) << 40) + (uint64_t(1) << 16)).row, (uint64_t(1) << 24) + 1);
}

TEST_F(DramMappingDriven, TitanXPatternAlternatesBanksPerLine) {
  DramAddressMap map;
  std::string error;
  ASSERT_TRUE(map.parse("0000RRRR.RRRRRRRR.RBBBCCCC.BCCSSSSS", error)) << error;
  EXPECT_EQ(map.column_bits(), 11u);  // 2 KB rows
  for (uint64_t line = 0; line < 8; ++line) EXPECT_EQ(map.locate(line * 128).bank, line % 2) << line;
  EXPECT_FALSE(map.parse("RRRR.BXBB", error));
  EXPECT_EQ(error, "unexpected character 'X' (allowed: R B C S 0 . |)");
}

// ------------------------------------------------------------ bandwidth

/// Sends `n` requests that all reach the channel at cycle 10.
void all_at_once(Bench& b, const std::vector<uint64_t>& addrs, uint32_t mask) {
  for (uint64_t a : addrs) b.l2.script.push_back({10, a, mask, AccessKind::Load});
}

TEST_F(DramBandwidthDriven, SequentialLinesFillTheBusRandomSectorsAreBoundByTRrd) {
  tlmgpu::core::DramConfig config = gddr5();
  config.address_mapping = "0000RRRR.RRRRRRRR.BBBCCCCB.CCSSSSSS";  // GTX480
  Bench seq(config, "seq"), rnd(config, "rnd");
  const uint64_t lines = 1024, sectors = 600;
  std::vector<uint64_t> addrs;
  for (uint64_t i = 0; i < lines; ++i) addrs.push_back(i * 128);
  all_at_once(seq, addrs, 0xf);
  addrs.clear();
  uint64_t x = 12345;
  for (uint64_t i = 0; i < sectors; ++i) {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    addrs.push_back(((x >> 20) & ((uint64_t(1) << 30) - 1)) & ~uint64_t(31));  // 1 GB, sector-aligned
  }
  all_at_once(rnd, addrs, 0x1);
  run_cycles(20000);

  // Sequential: two bursts per line, and the banks of two groups alternate,
  // so columns go every tCCD = 2 cycles: 4 cycles per line once the first
  // data (tRCD + tCL) flows.
  uint64_t seq_end = 0;
  for (uint64_t r : seq.l2.response_ready) seq_end = std::max(seq_end, r);
  const uint64_t seq_predicted = 10 + 12 + 12 + lines * 2 * 2;
  EXPECT_GE(seq_end, seq_predicted);
  EXPECT_LE(seq_end, seq_predicted + 20);
  EXPECT_EQ(seq.stat("row_misses"), lines * 128 / 8192 * 2);  // one activate per bank row
  // Random sectors: almost every one opens a row, and activates are at
  // least tRRD = 6 apart; the data bus (2 cycles each) is not the limit.
  // Each needs three commands (precharge, activate, column) on the one
  // command bus, so some activates lose their first allowed cycle to another
  // command: up to 15 % over tRRD alone.
  uint64_t rnd_end = 0;
  for (uint64_t r : rnd.l2.response_ready) rnd_end = std::max(rnd_end, r);
  const double rnd_predicted = double(sectors) * 6;
  EXPECT_GE(double(rnd_end - 10), rnd_predicted * 0.95);
  EXPECT_LE(double(rnd_end - 10), rnd_predicted * 1.15);
  EXPECT_GT(rnd.stat("rrd_delays"), sectors / 3);
  // Useful bytes per cycle: 32 for the stream, 32 / 6 for random sectors.
  const double seq_rate = double(lines * 128) / double(seq_end - 10);
  const double rnd_rate = double(sectors * 32) / double(rnd_end - 10);
  EXPECT_GT(seq_rate, 31.0);
  EXPECT_LT(rnd_rate, 32.0 / 6);
  EXPECT_TRUE(no_module_scheduled());
}

TEST_F(DramDriven, SameTrafficGivesTheSameCyclesWhateverTheBuildOrder) {
  tlmgpu::core::DramConfig config = gddr5();
  config.clock_mhz = 924;
  Bench second(config, "second"), first(config, "first");
  uint64_t x = 7;
  for (Bench* b : {&first, &second}) {
    x = 7;
    for (uint64_t i = 0; i < 300; ++i) {
      x = x * 6364136223846793005ull + 1442695040888963407ull;
      const uint64_t addr = (x >> 24) & ((uint64_t(1) << 22) - 128);
      const AccessKind kind = (x >> 60) % 4 == 0 ? AccessKind::Store : AccessKind::Load;
      b->l2.script.push_back({10 + i / 3, addr, uint32_t(1 + (x >> 40) % 15), kind});
    }
  }
  run_cycles(20000);
  EXPECT_EQ(first.l2.response_ready, second.l2.response_ready);
  for (uint64_t r : first.l2.response_ready) EXPECT_GT(r, 0u);
  EXPECT_EQ(first.stat("row_hits"), second.stat("row_hits"));
}

}  // namespace
