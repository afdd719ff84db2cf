// soc.memory = soc: L2 misses and write-backs leave the GPU as timed
// transactions to a SoC's memory (memory/soc_memory_port.h).
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "memory/soc_memory_port.h"
#include "memory_test_support.h"
#include "platform/gpu_device.h"

using namespace tlmgpu_memtest;
using tlmgpu::memory::SocMemoryPort;

namespace {

/// A SoC memory: bytes from address 0, a fixed latency annotated (or waited
/// for), error responses for one range; records every transaction.
class FakeSocMemory : public tlmgpu::memory::SocMemoryIf {
 public:
  struct Seen {
    uint64_t cycle;  ///< the caller's cycle when the transaction was sent
    bool write;
    uint64_t address;
    uint32_t bytes;
    std::vector<uint8_t> data;
  };
  std::vector<uint8_t> bytes = std::vector<uint8_t>(1 << 20);
  uint64_t latency_cycles = 50;
  bool wait_inside = false;  ///< wait for the latency instead of annotating it
  uint64_t error_begin = 0, error_end = 0;
  std::vector<Seen> seen;

  void soc_transport(tlm::tlm_generic_payload& p, sc_core::sc_time& delay) override {
    Seen s{now_cycle(), p.is_write(), p.get_address(), p.get_data_length(), {}};
    s.data.assign(p.get_data_ptr(), p.get_data_ptr() + p.get_data_length());
    seen.push_back(s);
    if (p.get_address() < error_end && p.get_address() + p.get_data_length() > error_begin) {
      p.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
      return;
    }
    if (p.is_read()) std::memcpy(p.get_data_ptr(), &bytes[p.get_address()], p.get_data_length());
    if (wait_inside)
      sc_core::wait(tlmgpu::memory::cycles_delay(latency_cycles, period()));
    else
      delay += tlmgpu::memory::cycles_delay(latency_cycles, period());
    p.set_response_status(tlm::TLM_OK_RESPONSE);
  }
  bool soc_contents(uint64_t address, uint8_t* out, uint32_t n) override {
    std::memcpy(out, &bytes[address], n);
    return true;
  }
};

/// Two initiators (two L2 slices' streams) on a port of two streams.
struct PortBench {
  FakeSocMemory soc;
  SocMemoryPort port{"soc_memory", period(), 2, 128};
  TestInitiator slice0{"slice0"}, slice1{"slice1"};
  PortBench() {
    slice0.socket.bind(port.port(0));
    slice1.socket.bind(port.port(1));
    port.connect(&soc);
    on_test_clock(port);
  }
};

}  // namespace

TEST(SocMemoryPort, ReadsAnsweredAfterTheSocsLatency) {
  PortBench b;
  b.slice0.script = {{10, 0x1000, 0x1, AccessKind::Load}, {20, 0x2080, 0xc, AccessKind::Load}};
  run_cycles(200);
  ASSERT_EQ(b.soc.seen.size(), 2u);
  // Sent at the arrival cycle, over the requested sectors' span.
  EXPECT_EQ(b.soc.seen[0].cycle, 10u);
  EXPECT_FALSE(b.soc.seen[0].write);
  EXPECT_EQ(b.soc.seen[0].address, 0x1000u);
  EXPECT_EQ(b.soc.seen[0].bytes, 32u);
  EXPECT_EQ(b.soc.seen[1].address, 0x2080u + 2 * 32);
  EXPECT_EQ(b.soc.seen[1].bytes, 64u);
  EXPECT_EQ(b.slice0.response_ready[0], 10u + 50);
  EXPECT_EQ(b.slice0.response_ready[1], 20u + 50);
  EXPECT_TRUE(b.port.idle());
  EXPECT_EQ(stat_of(b.port, "reads"), 2);
  EXPECT_EQ(stat_of(b.port, "avg_latency"), 50);
}

TEST(SocMemoryPort, AnswerComesAtLeastTwoCyclesAfterTheRequestLeaves) {
  PortBench b;
  b.soc.latency_cycles = 0;
  b.slice0.script = {{10, 0x0, 0x1, AccessKind::Load}};
  run_cycles(50);
  EXPECT_EQ(b.slice0.response_ready[0], 12u);
}

TEST(SocMemoryPort, WriteBacksCarryTheCurrentContents) {
  PortBench b;
  for (uint32_t i = 0; i < 128; ++i) b.soc.bytes[0x4000 + i] = uint8_t(i + 1);
  b.slice1.script = {{5, 0x4000, 0x6, AccessKind::Store}};
  run_cycles(100);
  ASSERT_EQ(b.soc.seen.size(), 1u);
  EXPECT_TRUE(b.soc.seen[0].write);
  EXPECT_EQ(b.soc.seen[0].address, 0x4020u);
  ASSERT_EQ(b.soc.seen[0].bytes, 64u);
  for (uint32_t i = 0; i < 64; ++i) EXPECT_EQ(b.soc.seen[0].data[i], uint8_t(0x20 + i + 1));
  EXPECT_EQ(b.slice1.response_ready[0], 5u + 50);
  EXPECT_EQ(stat_of(b.port, "writes"), 1);
}

TEST(SocMemoryPort, AWaitingSocSerialisesOneStreamNotTheOthers) {
  PortBench b;
  b.soc.wait_inside = true;
  b.soc.latency_cycles = 20;
  b.slice0.script = {{10, 0x0, 0x1, AccessKind::Load}, {10, 0x100, 0x1, AccessKind::Load, 9}};
  b.slice1.script = {{10, 0x80, 0x1, AccessKind::Load}};
  run_cycles(200);
  // A call that returns at cycle c is answered at c + 2 (the registered hand-off).
  EXPECT_EQ(b.slice0.response_ready[0], 32u);
  EXPECT_EQ(b.slice0.response_ready[1], 52u);  // sent after the first one's wait
  EXPECT_EQ(b.slice1.response_ready[0], 32u);  // its own stream
  EXPECT_EQ(stat_of(b.port, "max_latency"), 42);
}

TEST(SocMemoryPort, ErrorResponsesAreRecordedWithTheAddress) {
  PortBench b;
  b.soc.error_begin = 0x8000;
  b.soc.error_end = 0x9000;
  b.slice0.script = {{10, 0x0, 0x1, AccessKind::Load}, {12, 0x8040, 0x3, AccessKind::Load}};
  run_cycles(200);
  EXPECT_TRUE(b.port.failed());
  EXPECT_EQ(b.port.failed_address(), 0x8040u);
  EXPECT_NE(b.port.failed_response().find("ADDRESS_ERROR"), std::string::npos);
  EXPECT_EQ(stat_of(b.port, "error_responses"), 1);
  // The slice is still answered: the GPU's owner ends the launch with a fault.
  EXPECT_NE(b.slice0.response_ready[1], 0u);
}

TEST(SocMemoryPort, InstructionLinesAreReadFromTheCodeImage) {
  PortBench b;
  b.port.set_code_image(0x20000, 0x1000);
  b.slice0.script = {{10, tlmgpu::memory::kCodeWindowBase + 0x180, 0xf, AccessKind::Load},
                     {11, tlmgpu::memory::kCodeWindowBase + 0x1000 + 0x80, 0xf, AccessKind::Load}};
  run_cycles(200);
  ASSERT_EQ(b.soc.seen.size(), 2u);
  EXPECT_EQ(b.soc.seen[0].address, 0x20000u + 0x180);
  // Past the image: wraps within it (an offset the whole line fits after).
  EXPECT_EQ(b.soc.seen[1].address, 0x20000u + (0x1080 % (0x1000 - 128 + 1)));
  EXPECT_EQ(stat_of(b.port, "code_reads"), 2);
}

TEST(SocMemoryPort, InstructionLinesWithoutAnImageStayInside) {
  PortBench b;
  b.slice0.script = {{10, tlmgpu::memory::kCodeWindowBase, 0xf, AccessKind::Load}};
  run_cycles(100);
  EXPECT_TRUE(b.soc.seen.empty());
  EXPECT_EQ(b.slice0.response_ready[0], 12u);
}

TEST(SocMemoryPort, L2MissesLeaveWithTheirGlobalAddresses) {
  tlmgpu::core::GpuConfig c = unit_test_memory_config();
  c.soc_memory = "soc";
  OneSmMemoryBench b(c);
  FakeSocMemory soc;
  ASSERT_NE(b.mem->soc_memory_port(), nullptr);
  EXPECT_EQ(b.mem->dram_channels(), 0u);
  b.mem->soc_memory_port()->connect(&soc);
  // Lines in different slices (256-byte interleave over 6 slices, rotated).
  const std::vector<uint64_t> lines = {0x0, 0x180, 0x700, 0x1a80, 0x12300};
  for (size_t i = 0; i < lines.size(); ++i)
    b.sm_d.script.push_back({10 + 20 * i, line_access(i + 1, AccessKind::Load, lines[i], 0xf)});
  run_cycles(1000);
  ASSERT_EQ(soc.seen.size(), lines.size());
  for (size_t i = 0; i < lines.size(); ++i) {
    EXPECT_EQ(soc.seen[i].address, lines[i]) << i;
    EXPECT_EQ(soc.seen[i].bytes, 128u);
  }
  // The SoC's latency is on the path: 50 cycles more makes every load 50 later.
  const uint64_t first = b.sm_d.done.at(1);
  EXPECT_GT(first, 10u + 50);
  EXPECT_TRUE(b.mem->below_l2_idle());
}

TEST(SocMemoryPort, SocLatencyAddsToTheLoadLatencyExactly) {
  auto load_done = [](uint64_t latency) {
    tlmgpu::core::GpuConfig c = unit_test_memory_config();
    c.soc_memory = "soc";
    OneSmMemoryBench b(c);
    FakeSocMemory soc;
    soc.latency_cycles = latency;
    b.mem->soc_memory_port()->connect(&soc);
    b.sm_d.script = {{10, line_access(1, AccessKind::Load, 0x300, 0x1)}};
    run_cycles(1000);
    return b.sm_d.done.at(1);
  };
  // One SystemC simulation per process: compare against the formula instead
  // of a second run. L1 tag check, crossbar, L2 lookup, SoC, L2 fill, crossbar, L1 hit.
  const auto c = unit_test_memory_config();
  EXPECT_EQ(load_done(70), 10 + 1 + c.icnt.latency + c.l2.hit_latency + 70 + 1 + c.icnt.latency + c.l1d.hit_latency);
}

TEST(SocMemoryPort, AddressMapInverse) {
  for (uint32_t slices : {1u, 6u, 12u, 24u}) {
    const tlmgpu::memory::L2AddressMap map(slices, 256);
    for (uint64_t a = 0; a < 1 << 20; a += 96) {
      const uint32_t s = map.slice_of(a);
      EXPECT_EQ(map.global_address(s, map.local_address(a)), a) << slices << " " << a;
    }
  }
}

TEST(SocMemoryPort, StandAloneGpuRejectsSocMemory) {
  tlmgpu::platform::DeviceOptions o;
  o.mode = tlmgpu::platform::SimulationMode::Timing;
  o.config.soc_memory = "soc";
  tlmgpu::platform::GpuDevice gpu(o);
  const auto m = gpu.load_module(".version 7.5\n.target sm_75\n.address_size 64\n.visible .entry k() { ret; }\n", "k");
  try {
    gpu.launch(m, "k", {1, 1, 1}, {32, 1, 1}, 0, {});
    FAIL() << "expected a configuration error";
  } catch (const tlmgpu::platform::ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("soc.memory"), std::string::npos);
  }
}
