// The memory modules keep the clocked-module contract: they run only when
// their clock domain runs them. On a clock held low a crossbar, an L2 slice
// or a DRAM channel given a request does nothing; a module that ran on its
// own (a process of its own, a timed event) would pass the request on. The
// memory tests (test_memory_system.cpp, test_dram.cpp, ...) are the other
// half: the same modules on a running clock answer at the cycles computed.
#include <gtest/gtest.h>

#include "engine/clock_domain.h"
#include "memory/dram_channel.h"
#include "memory/interconnect.h"
#include "memory/l2_slice.h"
#include "memory_test_support.h"

using namespace tlmgpu_memtest;

namespace {

/// A clock that never rises, and the domain on it.
struct HeldLowClock {
  sc_core::sc_signal<bool> clock{"held_low", false};
  tlmgpu::engine::ClockDomain domain{"held_low_domain", period()};
  HeldLowClock() { domain.clk.bind(clock); }
};

TEST(ClockedMemory, ACrossbarOnAClockHeldLowPassesNothingOn) {
  HeldLowClock low;
  tlmgpu::core::InterconnectConfig config{8, 32, 0};
  tlmgpu::memory::Interconnect icnt("icnt", config, 1, 1, 256, period());
  TestInitiator sender("sender");
  TestMemory slice("slice", 5);
  sender.socket.bind(icnt.upstream(0));
  icnt.downstream(0).bind(slice.socket);
  icnt.clk.bind(low.clock);
  sender.script = {{10, 0x40, 0xf, AccessKind::Load}};
  run_cycles(1000);
  EXPECT_EQ(icnt.domain(), &low.domain);
  EXPECT_TRUE(slice.seen.empty());
  EXPECT_EQ(sender.response_ready, std::vector<uint64_t>{0});
}

TEST(ClockedMemory, AnL2SliceOnAClockHeldLowAnswersNothing) {
  HeldLowClock low;
  const tlmgpu::core::GpuConfig config = unit_test_memory_config();
  tlmgpu::memory::L2Slice slice("l2", config, period(), 0);
  TestInitiator crossbar("crossbar");
  TestMemory dram("dram", 20);
  crossbar.socket.bind(slice.target_socket);
  slice.dram_socket.bind(dram.socket);
  slice.clk.bind(low.clock);
  crossbar.script = {{10, 0x40, 0xf, AccessKind::Load}};
  run_cycles(1000);
  EXPECT_EQ(slice.domain(), &low.domain);
  EXPECT_TRUE(dram.seen.empty());  // the miss never went down
  EXPECT_EQ(crossbar.response_ready, std::vector<uint64_t>{0});
}

TEST(ClockedMemory, ADramChannelOnAClockHeldLowAnswersNothing) {
  HeldLowClock low;
  const tlmgpu::core::DramConfig config = four_cycle_bursts();
  tlmgpu::memory::DramChannel dram("dram", config, 700, period());
  TestInitiator l2("l2");
  l2.socket.bind(dram.port(0));
  dram.clk.bind(low.clock);
  l2.script = {{10, 0x40, 0xf, AccessKind::Load}};
  run_cycles(1000);
  EXPECT_EQ(dram.domain(), &low.domain);
  EXPECT_EQ(l2.response_ready, std::vector<uint64_t>{0});
}

}  // namespace
