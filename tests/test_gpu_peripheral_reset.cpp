// The GPU peripheral's reset input (`rst`) and two peripherals of different
// presets in one simulation. Asserting rst aborts what runs (a timing-mode
// launch on the GPU's clock, an LT launch between its slices), brings every
// register to its power-on value without an interrupt, and makes writes do
// nothing while it stays high; once released, the GPU runs the next launch.
// Each test elaborates its own SoC (one process per test).
#include <gtest/gtest.h>

#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "memory/soc_memory_port.h"
#include "platform/config_keys.h"
#include "tests/soc_test_support.h"
#include "workloads/workload.h"

using namespace tlmgpu_soctest;
using tlmgpu::core::GpuConfig;
using tlmgpu::platform::soc::PeripheralMode;

namespace {

tlmgpu::core::GpuConfig two_sms(const std::string& preset) {
  tlmgpu::core::GpuConfig c = tlmgpu::preset(preset);
  c.num_sms = 2;
  return c;
}

tlmgpu::GpuPeripheralOptions options(PeripheralMode mode) {
  tlmgpu::GpuPeripheralOptions o;
  o.mode = mode;
  // The spinning kernel must hang, not end with the watchdog error.
  o.watchdog_instructions = std::numeric_limits<uint64_t>::max();
  return o;
}

const char* kSpinPtx = R"(.version 7.0
.target sm_70
.address_size 64
.visible .entry spin()
{
LOOP:
  bra LOOP;
}
)";

/// vector_add's buffers and parameters in SoC memory (at `slot`), and its CPU reference.
struct VectorAdd {
  int n;
  uint64_t a, b, c, params;
  std::vector<float> want;

  VectorAdd(Soc& soc, int count, unsigned slot) : n(count) {
    a = kDataBase + uint64_t(slot) * 0x30000;
    b = a + 0x10000;
    c = a + 0x20000;
    params = kParamBase + uint64_t(slot) * 256;
    std::vector<float> va(static_cast<size_t>(n)), vb(static_cast<size_t>(n));
    for (int i = 0; i < n; ++i) {
      va[size_t(i)] = float(i) * 0.75f + float(slot);
      vb[size_t(i)] = 500.0f - float(i) * 0.5f;
      want.push_back(va[size_t(i)] + vb[size_t(i)]);
    }
    soc.memory.put(a, va.data(), size_t(n));
    soc.memory.put(b, vb.data(), size_t(n));
    const std::vector<float> poison(size_t(n), -1.0f);
    soc.memory.put(c, poison.data(), size_t(n));
    uint8_t p[28];
    std::memcpy(p, &a, 8);
    std::memcpy(p + 8, &b, 8);
    std::memcpy(p + 16, &c, 8);
    std::memcpy(p + 24, &n, 4);
    soc.memory.put(params, p, sizeof p);
  }
  void queue(Soc& soc, uint32_t grid = 3) {
    const auto ptx = soc.put_ptx(tlmgpu::workloads::workload_ptx("vector_add"));
    soc.queue(descriptor(ptx, soc.put_name("vector_add", 0), grid, 128, params, 28, TLMGPU_DESC_IRQ_ON_DONE));
  }
  bool done(Soc& soc) const { return soc.memory.get<float>(c, size_t(n)) == want; }
};

void settle() { sc_core::sc_start(sc_core::sc_time(1, sc_core::SC_NS)); }

void program(Soc& soc) {
  soc.setup_queue();
  soc.cpu.write64(TLMGPU_REG_HEAP_BASE_LO, kHeapBase);
  soc.cpu.write(TLMGPU_REG_HEAP_SIZE, kHeapBytes);
  soc.cpu.write(TLMGPU_REG_IRQ_ENABLE, TLMGPU_IRQ_LAUNCH_DONE | TLMGPU_IRQ_QUEUE_EMPTY | TLMGPU_IRQ_ERROR);
}

/// Every register reads its power-on value (docs/SOC.md) and the line is low.
void expect_power_on(Soc& soc) {
  MmioDriver& cpu = soc.cpu;
  EXPECT_EQ(cpu.read(TLMGPU_REG_ID), TLMGPU_ID_VALUE);
  EXPECT_EQ(cpu.read(TLMGPU_REG_CAP_SMS), 2u);
  const uint32_t zero[] = {
      TLMGPU_REG_HEAP_BASE_LO,  TLMGPU_REG_HEAP_BASE_HI,    TLMGPU_REG_HEAP_SIZE,        TLMGPU_REG_QUEUE_BASE_LO,
      TLMGPU_REG_QUEUE_BASE_HI, TLMGPU_REG_QUEUE_SIZE,      TLMGPU_REG_QUEUE_HEAD,       TLMGPU_REG_QUEUE_TAIL,
      TLMGPU_REG_STATUS,        TLMGPU_REG_ERROR_CODE,      TLMGPU_REG_ERROR_ADDRESS_LO, TLMGPU_REG_ERROR_DESCRIPTOR,
      TLMGPU_REG_IRQ_ENABLE,    TLMGPU_REG_IRQ_STATUS,      TLMGPU_REG_CYCLES_LO,        TLMGPU_REG_CYCLES_HI,
      TLMGPU_REG_WARP_INSTS_LO, TLMGPU_REG_WARP_INSTS_HI,   TLMGPU_REG_LAUNCHES_DONE};
  for (uint32_t r : zero) EXPECT_EQ(cpu.read(r), 0u) << "register 0x" << std::hex << r;
  EXPECT_EQ(cpu.error_message(), "");
  EXPECT_FALSE(soc.irq.read());
}

/// A queue of one spinning launch that hangs, then rst mid-launch: the
/// launch is aborted, the registers are at power-on, no interrupt; writes
/// change nothing while rst is high; after it falls vector_add runs.
void reset_a_hung_launch(PeripheralMode mode) {
  Soc soc(two_sms("gtx480"), options(mode));
  sc_core::sc_signal<bool> rst("rst");
  soc.gpu.rst(rst);
  program(soc);
  soc.queue(descriptor(soc.put_ptx(kSpinPtx, 1), soc.put_name("spin", 1), 2, 64, 0, 0, TLMGPU_DESC_IRQ_ON_DONE));
  soc.doorbell();
  sc_core::sc_start(sc_core::sc_time(20, sc_core::SC_US));
  ASSERT_EQ(soc.cpu.read(TLMGPU_REG_STATUS), TLMGPU_STATUS_BUSY) << soc.cpu.error_message();
  EXPECT_FALSE(soc.irq.read());

  rst.write(true);
  settle();
  EXPECT_TRUE(soc.gpu.in_reset());
  expect_power_on(soc);
  // Held in reset: accesses are answered as ever, writes change nothing.
  EXPECT_EQ(soc.cpu.write(TLMGPU_REG_QUEUE_SIZE, 4), tlm::TLM_OK_RESPONSE);
  EXPECT_EQ(soc.cpu.write(TLMGPU_REG_IRQ_ENABLE, 7), tlm::TLM_OK_RESPONSE);
  EXPECT_EQ(soc.cpu.write(TLMGPU_REG_DOORBELL, 1), tlm::TLM_OK_RESPONSE);
  EXPECT_EQ(soc.cpu.write(TLMGPU_REG_ID, 1), tlm::TLM_COMMAND_ERROR_RESPONSE);
  EXPECT_EQ(soc.cpu.write(0x3FC, 1), tlm::TLM_ADDRESS_ERROR_RESPONSE);
  sc_core::sc_start(sc_core::sc_time(50, sc_core::SC_US));
  expect_power_on(soc);
  EXPECT_EQ(soc.gpu.aborted_launches(), 1u);

  rst.write(false);
  settle();
  EXPECT_FALSE(soc.gpu.in_reset());
  sc_core::sc_start(sc_core::sc_time(50, sc_core::SC_US));
  expect_power_on(soc);  // the aborted launch never completes, nor interrupts

  // Programmed again, the GPU runs the next launch.
  program(soc);
  VectorAdd v(soc, 2000, 0);
  v.queue(soc);
  soc.doorbell();
  soc.run_until_idle();
  ASSERT_EQ(soc.cpu.read(TLMGPU_REG_STATUS), TLMGPU_STATUS_IDLE) << soc.cpu.error_message();
  EXPECT_TRUE(v.done(soc));
  EXPECT_EQ(soc.cpu.read(TLMGPU_REG_LAUNCHES_DONE), 1u);
  EXPECT_EQ(soc.cpu.read(TLMGPU_REG_IRQ_STATUS), TLMGPU_IRQ_LAUNCH_DONE | TLMGPU_IRQ_QUEUE_EMPTY);
  EXPECT_TRUE(soc.irq.read());
}

}  // namespace

TEST(GpuPeripheralReset, AbortsAHungTimingLaunch) { reset_a_hung_launch(PeripheralMode::Timing); }

TEST(GpuPeripheralReset, AbortsAHungLtLaunch) { reset_a_hung_launch(PeripheralMode::Lt); }

// Timing mode, soc.memory = soc, a slow SoC memory that serves one access
// at a time: the reset comes while L2 misses are out in the SoC or queued
// for it. They are answered after it (those still queued with error
// responses) and dropped; the next launch is not charged with them.
TEST(GpuPeripheralReset, LateSocMemoryAnswersOfAnAbortedLaunchAreDropped) {
  tlmgpu::core::GpuConfig config = two_sms("gtx480");
  config.soc_memory = "soc";
  Soc soc(config, options(PeripheralMode::Timing));
  const sc_core::sc_time period(1e6 / config.core_clock_mhz, sc_core::SC_PS);
  soc.memory.latency = period * 200.0;
  soc.memory.wait_in_transport = true;
  sc_core::sc_signal<bool> rst("rst");
  soc.gpu.rst(rst);
  program(soc);
  VectorAdd first(soc, 4000, 0);
  first.queue(soc, 8);
  soc.doorbell();
  sc_core::sc_start(period * 2500.0);
  ASSERT_EQ(soc.cpu.read(TLMGPU_REG_STATUS), TLMGPU_STATUS_BUSY);
  auto* port = dynamic_cast<tlmgpu::memory::SocMemoryPort*>(sc_core::sc_find_object("gpu.core.soc_memory"));
  ASSERT_NE(port, nullptr);
  auto port_errors = [port] {
    tlmgpu::core::StatMap stats;
    stats = tlmgpu::core::values_of(*port);
    return stats["error_responses"];
  };
  EXPECT_FALSE(port->idle()) << "the reset should come while transactions are out";
  rst.write(true);
  settle();
  // What the aborted launch still sends is refused.
  soc.memory.timed_error_ranges.push_back({first.a, first.c + 0x10000});
  const uint64_t accesses_at_reset = soc.memory.transport_accesses;
  rst.write(false);
  settle();
  expect_power_on(soc);

  program(soc);
  VectorAdd second(soc, 2000, 1);
  second.queue(soc);
  soc.doorbell();
  soc.run_until_idle();
  ASSERT_EQ(soc.cpu.read(TLMGPU_REG_STATUS), TLMGPU_STATUS_IDLE) << soc.cpu.error_message();
  EXPECT_TRUE(second.done(soc));
  EXPECT_EQ(soc.cpu.read(TLMGPU_REG_LAUNCHES_DONE), 1u);
  EXPECT_EQ(soc.gpu.aborted_launches(), 1u);
  // The aborted launch's queued accesses did reach the SoC after the reset, refused.
  EXPECT_GT(soc.memory.transport_accesses, accesses_at_reset);
  EXPECT_GT(port_errors(), 0.0);
  sc_core::sc_start(sc_core::sc_time(100, sc_core::SC_US));
  EXPECT_TRUE(port->idle());
}

// A reset that arrives while nothing runs, and one held from time 0: the
// GPU is at power-on, and runs once released.
TEST(GpuPeripheralReset, HeldFromTheStartAndWhileIdle) {
  Soc soc(two_sms("gtx480"), options(PeripheralMode::Lt));
  sc_core::sc_signal<bool> rst("rst", true);
  soc.gpu.rst(rst);
  settle();
  EXPECT_TRUE(soc.gpu.in_reset());
  program(soc);
  expect_power_on(soc);
  rst.write(false);
  settle();
  program(soc);
  VectorAdd v(soc, 1000, 0);
  v.queue(soc);
  soc.doorbell();
  soc.run_until_idle();
  EXPECT_TRUE(v.done(soc));
  EXPECT_NE(soc.cpu.read(TLMGPU_REG_IRQ_STATUS), 0u);
  rst.write(true);
  settle();
  expect_power_on(soc);
  EXPECT_EQ(soc.gpu.aborted_launches(), 0u);
}

// Two peripherals with different presets and modes in one simulation, each
// with its own memory, registers and interrupt, running at the same time.
TEST(GpuPeripheralPair, DifferentPresetsRunTogether) {
  Soc first(two_sms("gtx480"), options(PeripheralMode::Timing), "first_");
  Soc second(two_sms("titanx_pascal"), options(PeripheralMode::Timing), "second_");
  Soc third(tlmgpu::preset("vortex_1sm"), options(PeripheralMode::Lt), "third_");
  Soc* socs[] = {&first, &second, &third};
  std::vector<VectorAdd> runs;
  for (unsigned i = 0; i < 3; ++i) {
    program(*socs[i]);
    runs.emplace_back(*socs[i], 2000 + int(i) * 500, i);
    runs.back().queue(*socs[i]);
  }
  for (Soc* soc : socs) soc->doorbell();
  settle();
  for (Soc* soc : socs) EXPECT_EQ(soc->cpu.read(TLMGPU_REG_STATUS), TLMGPU_STATUS_BUSY);
  sc_core::sc_start(sc_core::sc_time(200, sc_core::SC_US));
  for (unsigned i = 0; i < 3; ++i) {
    Soc& soc = *socs[i];
    EXPECT_EQ(soc.cpu.read(TLMGPU_REG_STATUS), TLMGPU_STATUS_IDLE) << i << ": " << soc.cpu.error_message();
    EXPECT_TRUE(runs[i].done(soc)) << i;
    EXPECT_EQ(soc.cpu.read(TLMGPU_REG_LAUNCHES_DONE), 1u) << i;
    EXPECT_GT(soc.cpu.read64(TLMGPU_REG_WARP_INSTS_LO), 0u) << i;
    EXPECT_TRUE(soc.irq.read()) << i;
  }
  // Each answers with its own configuration.
  EXPECT_EQ(first.cpu.read(TLMGPU_REG_CAP_CLOCK_KHZ), uint32_t(first.gpu.config().core_clock_mhz * 1000));
  EXPECT_EQ(second.cpu.read(TLMGPU_REG_CAP_CLOCK_KHZ), uint32_t(second.gpu.config().core_clock_mhz * 1000));
  EXPECT_NE(first.cpu.read(TLMGPU_REG_CAP_CLOCK_KHZ), second.cpu.read(TLMGPU_REG_CAP_CLOCK_KHZ));
  EXPECT_EQ(first.cpu.read(TLMGPU_REG_CAP_MODE), TLMGPU_MODE_TIMING);
  EXPECT_EQ(third.cpu.read(TLMGPU_REG_CAP_MODE), TLMGPU_MODE_LT);
  EXPECT_NE(first.cpu.read64(TLMGPU_REG_CYCLES_LO), second.cpu.read64(TLMGPU_REG_CYCLES_LO));
  // Their GPUs are separate module trees.
  EXPECT_NE(sc_core::sc_find_object("first_gpu.core"), nullptr);
  EXPECT_NE(sc_core::sc_find_object("second_gpu.core"), nullptr);
  // Acknowledging one GPU's interrupt leaves the others'.
  first.cpu.write(TLMGPU_REG_IRQ_STATUS, 0x7);
  settle();
  EXPECT_FALSE(first.irq.read());
  EXPECT_TRUE(second.irq.read());
  EXPECT_TRUE(third.irq.read());
}
