// Interconnect latency, bandwidth and arbitration order; L2 slice merging and
// write-backs; the whole path L1 -> interconnect -> L2 -> DRAM and back.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <memory>

#include "memory/interconnect.h"
#include "memory/l1_cache.h"
#include "memory_test_support.h"
#include "platform/memory_system.h"

namespace {

// The modules run on a test clock and its clock domain, as inside the GPU
// (memory_test_support.h).
class InterconnectDriven : public tlmgpu_memtest::MemoryDriver {};
class MemorySystemDriven : public tlmgpu_memtest::MemoryDriver {};
class L2Driven : public tlmgpu_memtest::MemoryDriver {};

using namespace tlmgpu_memtest;
using tlmgpu::memory::Interconnect;
using tlmgpu::memory::L1Cache;
using tlmgpu::platform::MemorySystem;

// ---------------------------------------------------------------- crossbar

struct CrossbarBench {
  tlmgpu::core::InterconnectConfig config{8, 32, 0};
  Interconnect icnt;
  std::vector<std::unique_ptr<TestInitiator>> sources;
  TestMemory slice{"slice", 5};
  /// Builds the initiators in the given port order (to vary SystemC's process order).
  explicit CrossbarBench(const std::vector<uint32_t>& creation_order)
      : icnt("icnt", config, uint32_t(creation_order.size()), 1, 256, period()) {
    sources.resize(creation_order.size());
    for (uint32_t port : creation_order) {
      sources[port] = std::make_unique<TestInitiator>(("src" + std::to_string(port)).c_str());
      sources[port]->socket.bind(icnt.upstream(port));
    }
    icnt.downstream(0).bind(slice.socket);
    on_test_clock(icnt);
  }
};

TEST_F(InterconnectDriven, LatencyAndBandwidthOfSimultaneousWrites) {
  CrossbarBench b({0, 1, 2, 3});
  // 4 sectors of data + 8-byte header = 136 bytes = 5 cycles at 32 bytes per cycle.
  for (auto& s : b.sources) s->script = {{10, 0x40, 0xf, AccessKind::Store}};
  run_cycles(200);
  ASSERT_EQ(b.slice.seen.size(), 4u);
  for (uint32_t i = 0; i < 4; ++i) {
    EXPECT_EQ(b.slice.seen[i].source, i);
    // Granted at 10 + 5 i; the last flit arrives latency + 5 - 1 cycles later.
    EXPECT_EQ(b.slice.seen[i].cycle, 10 + 5 * i + 8 + 4);
    // The slice answers 5 cycles later; a one-flit acknowledgement takes 8.
    EXPECT_EQ(b.sources[i]->response_ready[0], b.slice.seen[i].cycle + 5 + 8);
  }
  // N requests to one slice take at least N * size / bytes_per_cycle cycles.
  EXPECT_GE(b.slice.seen[3].cycle - 10, 4u * 136 / 32);
  EXPECT_EQ(stat_of(b.icnt, "request_stalls"), 0 + 5 + 10 + 15);
  EXPECT_EQ(stat_of(b.icnt, "up0_request_bytes"), 160);  // 5 flits of 32 bytes
}

TEST_F(InterconnectDriven, SameCycleOrderIsByPortNotProcessOrder) {
  CrossbarBench b({3, 2, 1, 0});
  for (auto& s : b.sources) s->script = {{10, 0x0, 0x1, AccessKind::Load}, {10, 0x80, 0x1, AccessKind::Load}};
  run_cycles(200);
  ASSERT_EQ(b.slice.seen.size(), 8u);
  // Round robin: every port once, then every port's second request (each
  // port's input link sends its second header one cycle after the first).
  const uint32_t expected[8] = {0, 1, 2, 3, 0, 1, 2, 3};
  for (uint32_t i = 0; i < 8; ++i) {
    EXPECT_EQ(b.slice.seen[i].source, expected[i]) << i;
    EXPECT_EQ(b.slice.seen[i].cycle, 10 + i + 8);
  }
  EXPECT_EQ(b.slice.seen[4].addr, 0x80u);
}

TEST_F(InterconnectDriven, AddressMapIsABijectionSpreadOverSlices) {
  tlmgpu::memory::L2AddressMap map{6, 256};
  std::vector<int> per_slice(6, 0);
  std::map<std::pair<uint32_t, uint64_t>, uint64_t> seen;
  for (uint64_t addr = 0; addr < 6 * 6 * 256 * 4; addr += 128) {
    ++per_slice[map.slice_of(addr)];
    EXPECT_TRUE(seen.emplace(std::make_pair(map.slice_of(addr), map.local_address(addr)), addr).second);
  }
  for (int n : per_slice) EXPECT_EQ(n, 6 * 4 * 2);
  // A stride of slices * interleave does not stay on one slice.
  EXPECT_NE(map.slice_of(0), map.slice_of(6 * 256));
}

// ------------------------------------------------------------ whole system

/// The unit-test memory system with 4-cycle bursts, one SM.
struct SystemBench : OneSmMemoryBench {
  SystemBench() : OneSmMemoryBench(config_with_four_cycle_bursts()) {}
  static tlmgpu::core::GpuConfig config_with_four_cycle_bursts() {
    tlmgpu::core::GpuConfig c = unit_test_memory_config();
    c.dram = four_cycle_bursts(c.dram);
    return c;
  }
};

TEST_F(MemorySystemDriven, ModuleNamesAndChannelMapping) {
  SystemBench b;
  EXPECT_STREQ(b.mem->interconnect().name(), "icnt");
  EXPECT_STREQ(b.mem->l2_slice(5).name(), "l2_5");
  EXPECT_STREQ(b.mem->dram_channel(0).name(), "dram0");
  EXPECT_EQ(b.mem->l2_slices(), 6u);
  EXPECT_EQ(b.mem->dram_channels(), 6u);
  EXPECT_EQ(b.mem->channel_of_slice(4), 4u);
}

TEST_F(MemorySystemDriven, EndToEndLatencyIsTheSumOfTheParts) {
  SystemBench b;
  const auto& c = b.config;
  const uint64_t icnt = c.icnt.latency;
  b.sm_d.script = {{10, line_access(1, AccessKind::Load, 0x0, 0x1)},    // L1, L2 miss; DRAM bank closed
                   {100, line_access(2, AccessKind::Load, 0x0, 0xf)},   // 3 sectors miss; DRAM row hit
                   {200, line_access(3, AccessKind::Load, 0x0, 0xf)},   // L1 hit
                   {400, line_access(4, AccessKind::Store, 0x100, 0x1)}};  // write-through, L2 allocates
  b.sm_i.script = {{300, line_access(5, AccessKind::InstructionFetch, 0x0, 0x1)}};  // L1I miss, L2 hit
  run_cycles(1000);
  const uint64_t burst = c.dram.burst_length / c.dram.data_rate;  // 4 cycles per 32-byte burst
  const uint64_t closed = c.dram.tRCD + c.dram.tCL + burst;
  // L1 tag check 1, crossbar, L2 lookup, DRAM, L2 fill 1, crossbar (1 flit), L1 hit latency.
  EXPECT_EQ(b.sm_d.done.at(1), 10 + 1 + icnt + c.l2.hit_latency + closed + 1 + icnt + c.l1d.hit_latency);
  EXPECT_EQ(b.sm_d.done.at(1), 67u);  // by hand, the unit-test configuration
  // Row hit for 3 sectors; the 96-byte answer is 3 flits.
  EXPECT_EQ(b.sm_d.done.at(2), 100 + 1 + icnt + c.l2.hit_latency + (c.dram.tCL + 3 * burst) + 1 +
                                   icnt + 2 + c.l1d.hit_latency);
  EXPECT_EQ(b.sm_d.done.at(2), 155u);
  EXPECT_EQ(b.sm_d.done.at(3), 201u);
  // L2 hit of a whole line: 4 flits back, L1I hit latency 3.
  EXPECT_EQ(b.sm_i.done.at(5), 300 + 1 + icnt + c.l2.hit_latency + icnt + 3 + c.l1i.hit_latency);
  EXPECT_EQ(b.sm_i.done.at(5), 333u);
  // A one-sector store is 2 flits (40 bytes) up; the L2 acknowledges after its hit latency.
  EXPECT_EQ(b.sm_d.done.at(4), 400 + 1 + icnt + 1 + c.l2.hit_latency + icnt + c.l1d.hit_latency);
  const auto& l2 = b.mem->l2_slice(0);
  EXPECT_EQ(stat_of(l2, "misses"), 2);
  EXPECT_EQ(stat_of(l2, "hits"), 1);
  EXPECT_EQ(stat_of(b.mem->l2_slice(1), "writes"), 1);
  EXPECT_EQ(stat_of(b.mem->dram_channel(0), "row_hits"), 1);
  EXPECT_EQ(stat_of(b.mem->dram_channel(0), "row_misses"), 1);
  EXPECT_EQ(b.sm_d.not_in_future, 0);
  // Idle modules sleep: nothing is scheduled once the traffic is over.
  EXPECT_TRUE(no_module_scheduled());
}

TEST_F(MemorySystemDriven, EndToEndLatencyOnTheGtx480Preset) {
  // The DRAM in its own 924 MHz clock behind a 100-cycle fixed latency.
  OneSmMemoryBench b(tlmgpu::platform::preset_config("gtx480"));
  MemorySystem& mem = *b.mem;
  TestSm& sm = b.sm_d;
  sm.script = {{10, line_access(1, AccessKind::Load, 0x0, 0x1)}};
  run_cycles(1000);
  // The L1D fills whole lines: 4 sectors. Tag check 10, crossbar 11 + 5 =
  // 16 at the slice, ROP 120 + lookup 1 = 137 at the channel, in its queue
  // 237 = DRAM 312.84 -> 313: activate 313, columns 325 and 328 (tCCDL, the
  // same bank), data until 342 = core 259.1 -> 260; the slice answers at
  // 261, the L1 has the 4 flits at 261 + 5 + 3 = 269, the pipeline at 269 + 35.
  EXPECT_EQ(mem.dram_channel(0).clocks().dram_at_or_after(237), 313u);
  EXPECT_EQ(mem.dram_channel(0).clocks().core_at_or_after(342), 260u);
  EXPECT_EQ(sm.done.at(1), 304u);
  EXPECT_EQ(stat_of(mem.dram_channel(0), "bytes_moved"), 128);
  EXPECT_EQ(stat_of(mem.dram_channel(0), "bytes_requested"), 128);
  EXPECT_TRUE(no_module_scheduled());
}

TEST_F(L2Driven, BypassingLoadsMergeInTheL2Mshr) {
  SystemBench b;
  LineAccess a = line_access(1, AccessKind::Load, 0x0, 0x1);
  a.bypass_l1 = true;
  LineAccess a2 = a;
  a2.id = 2;
  b.sm_d.script = {{10, a}, {11, a2}};
  run_cycles(500);
  const auto& l2 = b.mem->l2_slice(0);
  EXPECT_EQ(stat_of(l2, "mshr_merges"), 1);
  EXPECT_EQ(stat_of(l2, "dram_reads"), 1);
  EXPECT_EQ(stat_of(b.mem->dram_channel(0), "reads"), 1);
  EXPECT_EQ(b.sm_d.done.at(1), 67u);
  EXPECT_EQ(b.sm_d.done.at(2), 68u);  // second answer one cycle behind on the crossbar
}

TEST_F(L2Driven, AtomicsAreDoneAtTheL2) {
  SystemBench b;
  b.sm_d.script = {{10, line_access(1, AccessKind::Load, 0x0, 0x1)},
                   {100, line_access(2, AccessKind::Atomic, 0x0, 0x1)}};
  run_cycles(500);
  EXPECT_EQ(b.sm_d.done.at(2), 100 + 1 + 8 + 1 + 10 + tlmgpu::memory::kL2AtomicCycles + 8 + 1);
  EXPECT_EQ(stat_of(b.mem->l2_slice(0), "atomics"), 1);
}

TEST_F(L2Driven, DirtyEvictionIsWrittenBack) {
  SystemBench b;
  // Nine lines of slice 0 in one L2 set (8 ways): the ninth evicts the first.
  const tlmgpu::memory::L2AddressMap map{b.config.l2_slices, b.config.l2_interleave_bytes};
  const uint64_t set_span = uint64_t(b.config.l2.size_bytes / b.config.l2.ways);
  std::vector<uint64_t> lines;
  for (uint64_t addr = 0; lines.size() < 9; addr += 128)
    if (map.slice_of(addr) == 0 && map.local_address(addr) % set_span == 0) lines.push_back(addr);
  for (uint32_t i = 0; i < 9; ++i)
    b.sm_d.script.push_back({10 + 40 * i, line_access(i, AccessKind::Store, lines[i], 0x3)});
  run_cycles(2000);
  const auto& l2 = b.mem->l2_slice(0);
  EXPECT_EQ(stat_of(l2, "writes"), 9);
  EXPECT_EQ(stat_of(l2, "evictions"), 1);
  EXPECT_EQ(stat_of(l2, "writebacks"), 1);
  EXPECT_EQ(stat_of(b.mem->dram_channel(0), "writes"), 1);
  EXPECT_EQ(stat_of(b.mem->dram_channel(0), "reads"), 0);
  EXPECT_EQ(b.sm_d.done.size(), 9u);
}

TEST_F(L2Driven, FillThatEvictsADirtyLineReleasesItsMshr) {
  // Regression: the victim's write-back reused the fill's request object
  // before the fill was applied, leaking the MSHR entry; with every entry
  // leaked the slice blocked for good (vector_add at default size hung).
  SystemBench b;
  const tlmgpu::memory::L2AddressMap map{b.config.l2_slices, b.config.l2_interleave_bytes};
  const uint64_t set_span = uint64_t(b.config.l2.size_bytes / b.config.l2.ways);
  std::vector<uint64_t> lines;
  for (uint64_t addr = 0; lines.size() < 9; addr += 128)
    if (map.slice_of(addr) == 0 && map.local_address(addr) % set_span == 0) lines.push_back(addr);
  for (uint32_t i = 0; i < 8; ++i)
    b.sm_d.script.push_back({10 + 40 * i, line_access(i, AccessKind::Store, lines[i], 0x3)});
  // A load of a ninth line of the set: its fill evicts a dirty line.
  b.sm_d.script.push_back({500, line_access(8, AccessKind::Load, lines[8], 0x3)});
  run_cycles(3000);
  const auto& l2 = b.mem->l2_slice(0);
  EXPECT_EQ(stat_of(l2, "writebacks"), 1);
  EXPECT_EQ(stat_of(b.mem->dram_channel(0), "reads"), 1);
  EXPECT_EQ(stat_of(l2, "mshr_entries"), 0);
  EXPECT_EQ(stat_of(l2, "dram_outstanding"), 0);
  EXPECT_EQ(b.sm_d.done.size(), 9u);
}

TEST_F(MemorySystemDriven, TwoSmsInTheSameCycleAreOrderedByPortNotProcessOrder) {
  tlmgpu::core::GpuConfig config = unit_test_memory_config();
  config.num_sms = 2;
  config.dram = four_cycle_bursts(config.dram);
  MemorySystem mem(config, period());
  // SM 1's modules are built first, so SystemC would naturally run them first.
  TestSm sm1("sm1"), sm0("sm0"), idle("idle");
  L1Cache l1d1("l1d1", config.l1d, period()), l1i1("l1i1", config.l1i, period());
  L1Cache l1d0("l1d0", config.l1d, period()), l1i0("l1i0", config.l1i, period());
  sm0.cache.bind(l1d0.access_export);
  sm1.cache.bind(l1d1.access_export);
  idle.cache.bind(l1i0.access_export);
  l1d0.response_port.bind(sm0);
  l1d1.response_port.bind(sm1);
  l1i0.response_port.bind(idle);
  l1i1.response_port.bind(idle);
  mem.bind_l1(1, l1d1, l1i1);
  on_test_clock(mem);
  mem.bind_l1(0, l1d0, l1i0);
  sm1.script = {{10, line_access(7, AccessKind::Load, 0x0, 0x1)}};
  sm0.script = {{10, line_access(7, AccessKind::Load, 0x0, 0x1)}};
  run_cycles(500);
  // Port 0 (SM 0) wins the slice's input at 11; port 2 follows at 12 and
  // merges into the L2 MSHR; the slice answers both at 58, port 0 first.
  EXPECT_EQ(sm0.done.at(7), 67u);
  EXPECT_EQ(sm1.done.at(7), 68u);
  EXPECT_EQ(stat_of(mem.l2_slice(0), "mshr_merges"), 1);
  EXPECT_EQ(stat_of(mem.interconnect(), "request_stalls"), 1);
}

/// Streams loads over consecutive lines, one try per cycle, from a method
/// that sleeps on the clock period only while it has work.
class StreamSm : public sc_core::sc_module, public tlmgpu::memory::CacheResponseIf {
 public:
  sc_core::sc_port<tlmgpu::memory::CacheAccessIf> cache{"cache"};
  uint64_t total = 0, issued = 0, completed = 0, last_done = 0;

  SC_HAS_PROCESS(StreamSm);
  explicit StreamSm(sc_core::sc_module_name name) : sc_module(name) { SC_METHOD(step); }
  void access_done(uint64_t, uint64_t cycle) override {
    ++completed;
    last_done = std::max(last_done, cycle);
  }

 private:
  void step() {
    if (issued == total) return;
    if (cache->try_access(line_access(issued, AccessKind::Load, issued * 128, 0xf), now_cycle())) ++issued;
    next_trigger(period());
  }
};

// Its host cost is measured with callgrind (docs/MEMORY.md, "Speed"), not
// asserted in time: a shared or slower machine would fail a time bound.
TEST_F(MemorySystemDriven, StreamOfMissesCompletesAndLeavesNothingPending) {
  tlmgpu::core::GpuConfig config = unit_test_memory_config();
  config.num_sms = 1;
  MemorySystem mem(config, period());
  L1Cache l1d("l1d", config.l1d, period()), l1i("l1i", config.l1i, period());
  StreamSm sm("sm");
  TestSm idle("idle");
  sm.cache.bind(l1d.access_export);
  idle.cache.bind(l1i.access_export);
  l1d.response_port.bind(sm);
  l1i.response_port.bind(idle);
  mem.bind_l1(0, l1d, l1i);
  on_test_clock(mem);
  sm.total = getenv("STREAM_N") ? std::strtoull(getenv("STREAM_N"), nullptr, 10) : 100000;
  run_cycles(2000000);
  ASSERT_EQ(sm.completed, sm.total);
  EXPECT_TRUE(no_module_scheduled());
  // Bounded by the L1's answer link: 4 cycles per line, plus the first miss.
  EXPECT_GE(sm.last_done, 4 * sm.total);
  EXPECT_LT(sm.last_done, 4 * sm.total + 2000);
  // The stream is DRAM-bound: 4 sectors x 4 cycles per line over 6 channels.
  EXPECT_GT(stat_of(mem.dram_channel(0), "row_hits"), stat_of(mem.dram_channel(0), "row_misses"));
}

}  // namespace
