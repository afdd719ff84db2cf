// The GPU as a SoC peripheral: every register, every TLM error response,
// launches through the command queue in LT and timing mode, each error code
// followed by a soft reset and a good launch, the interrupt line, the PTX
// cache and memory that refuses DMI. Each test elaborates its own SoC (one
// process per test).
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "platform/config_keys.h"
#include "platform/soc/tlm_global_memory.h"
#include "tests/soc_test_support.h"
#include "workloads/workload.h"

using namespace tlmgpu_soctest;
using tlmgpu::core::GpuConfig;
using tlmgpu::platform::soc::ClockSource;
using tlmgpu::platform::soc::PeripheralMode;

namespace {

tlmgpu::core::GpuConfig small_gpu() {
  tlmgpu::core::GpuConfig c = tlmgpu::preset("gtx480");
  c.num_sms = 2;
  return c;
}

tlmgpu::GpuPeripheralOptions lt() { return {}; }
tlmgpu::GpuPeripheralOptions timing() {
  tlmgpu::GpuPeripheralOptions o;
  o.mode = PeripheralMode::Timing;
  return o;
}

/// vector_add's buffers and parameters in SoC memory, and its CPU reference.
struct VectorAdd {
  int n;
  uint64_t a, b, c, params;
  std::vector<float> want;

  VectorAdd(Soc& soc, int count, unsigned slot) : n(count) {
    a = kDataBase + uint64_t(slot) * 0x30000;
    b = a + 0x10000;
    c = a + 0x20000;
    params = kParamBase + uint64_t(slot) * 256;
    std::vector<float> va(n), vb(n);
    for (int i = 0; i < n; ++i) {
      va[i] = float(i) * 0.5f + float(slot);
      vb[i] = 1000.0f - float(i) * 0.25f;
      want.push_back(va[i] + vb[i]);
    }
    soc.memory.put(a, va.data(), n);
    soc.memory.put(b, vb.data(), n);
    const std::vector<float> poison(n, -1.0f);
    soc.memory.put(c, poison.data(), n);
    uint8_t p[28];
    std::memcpy(p, &a, 8);
    std::memcpy(p + 8, &b, 8);
    std::memcpy(p + 16, &c, 8);
    std::memcpy(p + 24, &n, 4);
    soc.memory.put(params, p, sizeof p);
  }
  tlmgpu_launch_descriptor descriptor(Soc& soc, uint32_t flags = 0, unsigned name_slot = 0) {
    const auto ptx = soc.put_ptx(tlmgpu::workloads::workload_ptx("vector_add"));
    return tlmgpu_soctest::descriptor(ptx, soc.put_name("vector_add", name_slot), 3, 128, params, 28, flags);
  }
  void expect_done(Soc& soc) const {
    const std::vector<float> got = soc.memory.get<float>(c, size_t(n));
    for (int i = 0; i < n; ++i) ASSERT_EQ(got[size_t(i)], want[size_t(i)]) << "c[" << i << "]";
  }
};

/// Lets the interrupt line follow register writes (a delta notification
/// and the signal's update).
void settle() { sc_core::sc_start(sc_core::sc_time(1, sc_core::SC_NS)); }

/// A queue of one vector_add launch, run to the end; expects success.
void launch_vector_add(Soc& soc, unsigned slot = 0, int n = 1000) {
  VectorAdd v(soc, n, slot);
  soc.queue(v.descriptor(soc, TLMGPU_DESC_IRQ_ON_DONE));
  soc.doorbell();
  soc.run_until_idle();
  ASSERT_EQ(soc.cpu.read(TLMGPU_REG_STATUS), TLMGPU_STATUS_IDLE) << soc.cpu.error_message();
  v.expect_done(soc);
}

/// After an error: the registers name it; a soft reset clears them and a
/// good launch runs.
void expect_error_then_recover(Soc& soc, uint32_t code) {
  EXPECT_EQ(soc.cpu.read(TLMGPU_REG_STATUS), TLMGPU_STATUS_ERROR);
  EXPECT_EQ(soc.cpu.read(TLMGPU_REG_ERROR_CODE), code) << soc.cpu.error_message();
  EXPECT_NE(soc.cpu.read(TLMGPU_REG_IRQ_STATUS) & TLMGPU_IRQ_ERROR, 0u);
  EXPECT_FALSE(soc.cpu.error_message().empty());
  // The queue stays stopped until the reset: another doorbell does nothing.
  const uint32_t head = soc.cpu.read(TLMGPU_REG_QUEUE_HEAD);
  soc.doorbell();
  soc.run_until_idle();
  EXPECT_EQ(soc.cpu.read(TLMGPU_REG_STATUS), TLMGPU_STATUS_ERROR);
  EXPECT_EQ(soc.cpu.read(TLMGPU_REG_QUEUE_HEAD), head);

  EXPECT_EQ(soc.cpu.write(TLMGPU_REG_RESET, TLMGPU_RESET_MAGIC), tlm::TLM_OK_RESPONSE);
  EXPECT_EQ(soc.cpu.read(TLMGPU_REG_STATUS), TLMGPU_STATUS_IDLE);
  EXPECT_EQ(soc.cpu.read(TLMGPU_REG_ERROR_CODE), TLMGPU_ERROR_NONE);
  EXPECT_EQ(soc.cpu.read64(TLMGPU_REG_ERROR_ADDRESS_LO), 0u);
  EXPECT_EQ(soc.cpu.read(TLMGPU_REG_ERROR_INFO), 0u);
  EXPECT_EQ(soc.cpu.read(TLMGPU_REG_IRQ_STATUS), 0u);
  EXPECT_EQ(soc.cpu.read(TLMGPU_REG_QUEUE_HEAD), 0u);
  EXPECT_EQ(soc.cpu.read(TLMGPU_REG_QUEUE_TAIL), 0u);
  EXPECT_EQ(soc.cpu.error_message(), "");
  const uint32_t done = soc.cpu.read(TLMGPU_REG_LAUNCHES_DONE);
  launch_vector_add(soc, 2);
  EXPECT_EQ(soc.cpu.read(TLMGPU_REG_LAUNCHES_DONE), done + 1);
}

// A kernel whose thread 5 of CTA 1 stores to a misaligned address.
const char* kMisalignedPtx = R"(.version 7.0
.target sm_70
.address_size 64
.visible .entry misaligned(.param .u64 out)
{
  .reg .b32 %r<4>;
  .reg .b64 %rd<3>;
  .reg .pred %p<2>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, %ctaid.x;
  shl.b32 %r3, %r2, 8;
  add.u32 %r3, %r3, %r1;
  setp.ne.u32 %p1, %r3, 261;
  @%p1 bra DONE;
  add.u64 %rd2, %rd1, 2;
  st.global.u32 [%rd2], %r1;
DONE:
  ret;
}
)";

// Every thread stores its index to out[global id].
const char* kStorePtx = R"(.version 7.0
.target sm_70
.address_size 64
.visible .entry store_ids(.param .u64 out)
{
  .reg .b32 %r<5>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, %ctaid.x;
  mov.u32 %r3, %ntid.x;
  mad.lo.u32 %r4, %r2, %r3, %r1;
  mul.wide.u32 %rd2, %r4, 4;
  add.u64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r4;
  ret;
}
)";

const char* kSpinPtx = R"(.version 7.0
.target sm_70
.address_size 64
.visible .entry spin()
{
LOOP:
  bra LOOP;
}
)";

const char* kGlobalsPtx = R"(.version 7.0
.target sm_70
.address_size 64
.global .align 4 .u32 counter = 7;
.visible .entry bump()
{
  .reg .b32 %r<3>;
  ld.global.u32 %r1, [counter];
  add.u32 %r2, %r1, 1;
  st.global.u32 [counter], %r2;
  ret;
}
)";

}  // namespace

// ------------------------------------------------------------------ registers

TEST(GpuPeripheral, ResetValuesOfEveryRegister) {
  Soc soc(small_gpu(), lt());
  sc_core::sc_start(sc_core::SC_ZERO_TIME);
  MmioDriver& cpu = soc.cpu;
  EXPECT_EQ(cpu.read(TLMGPU_REG_ID), TLMGPU_ID_VALUE);
  EXPECT_EQ(cpu.read(TLMGPU_REG_VERSION), TLMGPU_VERSION_VALUE);
  EXPECT_EQ(cpu.read(TLMGPU_REG_CAP_SMS), 2u);
  EXPECT_EQ(cpu.read(TLMGPU_REG_CAP_WARP_SIZE), 32u);
  EXPECT_EQ(cpu.read(TLMGPU_REG_CAP_MAX_THREADS), 1024u);
  EXPECT_EQ(cpu.read(TLMGPU_REG_CAP_SHARED_BYTES), 48u * 1024);
  EXPECT_EQ(cpu.read(TLMGPU_REG_CAP_MODE), TLMGPU_MODE_LT);
  EXPECT_EQ(cpu.read(TLMGPU_REG_CAP_CLOCK_KHZ), 700000u);
  char name[17] = {};
  for (uint32_t i = 0; i < 16; i += 4) {
    const uint32_t w = cpu.read(TLMGPU_REG_PRESET_NAME + i);
    std::memcpy(name + i, &w, 4);
  }
  EXPECT_STREQ(name, "gtx480");
  const uint32_t zero_at_reset[] = {
      TLMGPU_REG_HEAP_BASE_LO,  TLMGPU_REG_HEAP_BASE_HI,     TLMGPU_REG_HEAP_SIZE,      TLMGPU_REG_QUEUE_BASE_LO,
      TLMGPU_REG_QUEUE_BASE_HI, TLMGPU_REG_QUEUE_SIZE,       TLMGPU_REG_QUEUE_HEAD,     TLMGPU_REG_QUEUE_TAIL,
      TLMGPU_REG_DOORBELL,      TLMGPU_REG_STATUS,           TLMGPU_REG_ERROR_CODE,     TLMGPU_REG_ERROR_ADDRESS_LO,
      TLMGPU_REG_ERROR_ADDRESS_HI, TLMGPU_REG_ERROR_INFO,    TLMGPU_REG_ERROR_DESCRIPTOR, TLMGPU_REG_ERROR_PC,
      TLMGPU_REG_ERROR_CTA,     TLMGPU_REG_ERROR_THREAD,     TLMGPU_REG_IRQ_ENABLE,     TLMGPU_REG_IRQ_STATUS,
      TLMGPU_REG_RESET,         TLMGPU_REG_CYCLES_LO,        TLMGPU_REG_CYCLES_HI,      TLMGPU_REG_WARP_INSTS_LO,
      TLMGPU_REG_WARP_INSTS_HI, TLMGPU_REG_LAUNCHES_DONE};
  for (uint32_t r : zero_at_reset) {
    tlm::tlm_response_status s;
    EXPECT_EQ(cpu.read(r, &s), 0u) << "register 0x" << std::hex << r;
    EXPECT_EQ(s, tlm::TLM_OK_RESPONSE) << "register 0x" << std::hex << r;
  }
  for (uint32_t i = 0; i < TLMGPU_ERROR_MESSAGE_BYTES; i += 4) EXPECT_EQ(cpu.read(TLMGPU_REG_ERROR_MESSAGE + i), 0u);
  EXPECT_FALSE(soc.irq.read());
}

TEST(GpuPeripheral, TimingModeReportsItsMode) {
  Soc soc(small_gpu(), timing());
  sc_core::sc_start(sc_core::SC_ZERO_TIME);
  EXPECT_EQ(soc.cpu.read(TLMGPU_REG_CAP_MODE), TLMGPU_MODE_TIMING);
}

TEST(GpuPeripheral, ReadWriteRegistersKeepWhatIsWritten) {
  Soc soc(small_gpu(), lt());
  sc_core::sc_start(sc_core::SC_ZERO_TIME);
  MmioDriver& cpu = soc.cpu;
  const std::pair<uint32_t, uint32_t> rw[] = {
      {TLMGPU_REG_HEAP_BASE_LO, 0x12345678}, {TLMGPU_REG_HEAP_BASE_HI, 0x9abcdef0}, {TLMGPU_REG_HEAP_SIZE, 0x1000},
      {TLMGPU_REG_QUEUE_BASE_LO, 0x1008},    {TLMGPU_REG_QUEUE_BASE_HI, 0x1},       {TLMGPU_REG_QUEUE_SIZE, 17},
      {TLMGPU_REG_QUEUE_TAIL, 5}};
  for (const auto& [reg, value] : rw) {
    EXPECT_EQ(cpu.write(reg, value), tlm::TLM_OK_RESPONSE);
    EXPECT_EQ(cpu.read(reg), value) << "register 0x" << std::hex << reg;
  }
  EXPECT_EQ(cpu.read64(TLMGPU_REG_HEAP_BASE_LO), 0x9abcdef012345678ull);
  // IRQ_ENABLE keeps only the defined bits.
  EXPECT_EQ(cpu.write(TLMGPU_REG_IRQ_ENABLE, 0xffffffff), tlm::TLM_OK_RESPONSE);
  EXPECT_EQ(cpu.read(TLMGPU_REG_IRQ_ENABLE), TLMGPU_IRQ_LAUNCH_DONE | TLMGPU_IRQ_QUEUE_EMPTY | TLMGPU_IRQ_ERROR);
  // Write-only registers read as zero.
  EXPECT_EQ(cpu.write(TLMGPU_REG_DOORBELL, 0), tlm::TLM_OK_RESPONSE);
  EXPECT_EQ(cpu.read(TLMGPU_REG_DOORBELL), 0u);
  EXPECT_EQ(cpu.write(TLMGPU_REG_RESET, 0x7), tlm::TLM_OK_RESPONSE);  // not the magic value: ignored
  EXPECT_EQ(cpu.read(TLMGPU_REG_RESET), 0u);
  EXPECT_EQ(cpu.read(TLMGPU_REG_QUEUE_TAIL), 5u);
}

TEST(GpuPeripheral, ReadOnlyRegistersAnswerWritesWithACommandError) {
  Soc soc(small_gpu(), lt());
  sc_core::sc_start(sc_core::SC_ZERO_TIME);
  std::vector<uint32_t> ro = {TLMGPU_REG_ID,           TLMGPU_REG_VERSION,         TLMGPU_REG_CAP_SMS,
                              TLMGPU_REG_CAP_WARP_SIZE, TLMGPU_REG_CAP_MAX_THREADS, TLMGPU_REG_CAP_SHARED_BYTES,
                              TLMGPU_REG_CAP_MODE,     TLMGPU_REG_CAP_CLOCK_KHZ,   TLMGPU_REG_QUEUE_HEAD,
                              TLMGPU_REG_STATUS,       TLMGPU_REG_ERROR_CODE,      TLMGPU_REG_ERROR_ADDRESS_LO,
                              TLMGPU_REG_ERROR_ADDRESS_HI, TLMGPU_REG_ERROR_INFO,  TLMGPU_REG_ERROR_DESCRIPTOR,
                              TLMGPU_REG_ERROR_PC,     TLMGPU_REG_ERROR_CTA,       TLMGPU_REG_ERROR_THREAD,
                              TLMGPU_REG_CYCLES_LO,    TLMGPU_REG_CYCLES_HI,       TLMGPU_REG_WARP_INSTS_LO,
                              TLMGPU_REG_WARP_INSTS_HI, TLMGPU_REG_LAUNCHES_DONE};
  for (uint32_t i = 0; i < 16; i += 4) ro.push_back(TLMGPU_REG_PRESET_NAME + i);
  for (uint32_t i = 0; i < TLMGPU_ERROR_MESSAGE_BYTES; i += 4) ro.push_back(TLMGPU_REG_ERROR_MESSAGE + i);
  for (uint32_t r : ro) {
    const uint32_t before = soc.cpu.read(r);
    EXPECT_EQ(soc.cpu.write(r, 0xdeadbeef), tlm::TLM_COMMAND_ERROR_RESPONSE) << "register 0x" << std::hex << r;
    EXPECT_EQ(soc.cpu.read(r), before) << "register 0x" << std::hex << r;
  }
}

TEST(GpuPeripheral, UnmappedOffsetsAnswerAnAddressError) {
  Soc soc(small_gpu(), lt());
  sc_core::sc_start(sc_core::SC_ZERO_TIME);
  // Every word of the window that is no register, and past the window.
  std::vector<uint32_t> mapped;
  for (uint32_t off = 0; off < TLMGPU_MMIO_BYTES; off += 4) {
    tlm::tlm_response_status s;
    soc.cpu.read(off, &s);
    if (s == tlm::TLM_OK_RESPONSE) {
      mapped.push_back(off);
      continue;
    }
    EXPECT_EQ(s, tlm::TLM_ADDRESS_ERROR_RESPONSE) << "offset 0x" << std::hex << off;
    EXPECT_EQ(soc.cpu.write(off, 1), tlm::TLM_ADDRESS_ERROR_RESPONSE) << "offset 0x" << std::hex << off;
  }
  // 38 registers (4 of them the preset name) and the 64 words of the message window.
  EXPECT_EQ(mapped.size(), 38u + 64u);
  tlm::tlm_response_status s;
  soc.cpu.read(TLMGPU_MMIO_BYTES, &s);
  EXPECT_EQ(s, tlm::TLM_ADDRESS_ERROR_RESPONSE);
  soc.cpu.read(0x1'0000'0000ull & 0xffffffff, &s);  // offset 0 again: fine
  EXPECT_EQ(s, tlm::TLM_OK_RESPONSE);
  uint8_t d[4] = {};
  EXPECT_EQ(soc.cpu.access(tlm::TLM_READ_COMMAND, 0x1'0000'0000ull, d, 4), tlm::TLM_ADDRESS_ERROR_RESPONSE);
}

TEST(GpuPeripheral, WrongWidthAnswersABurstError) {
  Soc soc(small_gpu(), lt());
  sc_core::sc_start(sc_core::SC_ZERO_TIME);
  uint8_t d[8] = {};
  for (unsigned len : {1u, 2u, 3u, 8u}) {
    EXPECT_EQ(soc.cpu.access(tlm::TLM_READ_COMMAND, TLMGPU_REG_ID, d, len), tlm::TLM_BURST_ERROR_RESPONSE) << len;
    EXPECT_EQ(soc.cpu.access(tlm::TLM_WRITE_COMMAND, TLMGPU_REG_IRQ_ENABLE, d, len), tlm::TLM_BURST_ERROR_RESPONSE)
        << len;
  }
  // A streaming (FIFO-style) burst of one word is not a register access either.
  EXPECT_EQ(soc.cpu.access(tlm::TLM_READ_COMMAND, TLMGPU_REG_ID, d, 4, 2), tlm::TLM_BURST_ERROR_RESPONSE);
}

TEST(GpuPeripheral, ByteEnablesAnswerAByteEnableError) {
  Soc soc(small_gpu(), lt());
  sc_core::sc_start(sc_core::SC_ZERO_TIME);
  uint8_t d[4] = {1, 0, 0, 0};
  uint8_t partial[4] = {TLM_BYTE_ENABLED, TLM_BYTE_DISABLED, TLM_BYTE_ENABLED, TLM_BYTE_ENABLED};
  EXPECT_EQ(soc.cpu.access(tlm::TLM_WRITE_COMMAND, TLMGPU_REG_IRQ_ENABLE, d, 4, 0, partial, 4),
            tlm::TLM_BYTE_ENABLE_ERROR_RESPONSE);
  EXPECT_EQ(soc.cpu.read(TLMGPU_REG_IRQ_ENABLE), 0u);
  EXPECT_EQ(soc.cpu.access(tlm::TLM_READ_COMMAND, TLMGPU_REG_ID, d, 4, 0, partial, 4),
            tlm::TLM_BYTE_ENABLE_ERROR_RESPONSE);
  // All four enabled is a plain access.
  uint8_t all[4] = {TLM_BYTE_ENABLED, TLM_BYTE_ENABLED, TLM_BYTE_ENABLED, TLM_BYTE_ENABLED};
  EXPECT_EQ(soc.cpu.access(tlm::TLM_WRITE_COMMAND, TLMGPU_REG_IRQ_ENABLE, d, 4, 0, all, 4), tlm::TLM_OK_RESPONSE);
  EXPECT_EQ(soc.cpu.read(TLMGPU_REG_IRQ_ENABLE), 1u);
}

TEST(GpuPeripheral, MisalignedAccessAnswersAnAddressError) {
  Soc soc(small_gpu(), lt());
  sc_core::sc_start(sc_core::SC_ZERO_TIME);
  uint8_t d[4] = {};
  for (uint64_t off : {uint64_t(1), uint64_t(2), uint64_t(3), uint64_t(TLMGPU_REG_IRQ_ENABLE) + 2}) {
    EXPECT_EQ(soc.cpu.access(tlm::TLM_READ_COMMAND, off, d, 4), tlm::TLM_ADDRESS_ERROR_RESPONSE) << off;
    EXPECT_EQ(soc.cpu.access(tlm::TLM_WRITE_COMMAND, off, d, 4), tlm::TLM_ADDRESS_ERROR_RESPONSE) << off;
  }
}

TEST(GpuPeripheral, OtherCommandsAndDebugTransport) {
  Soc soc(small_gpu(), lt());
  sc_core::sc_start(sc_core::SC_ZERO_TIME);
  uint8_t d[8] = {};
  EXPECT_EQ(soc.cpu.access(tlm::TLM_IGNORE_COMMAND, TLMGPU_REG_ID, d, 4), tlm::TLM_OK_RESPONSE);
  // Debug reads see the registers byte by byte; debug writes change nothing.
  tlm::tlm_generic_payload t;
  t.set_command(tlm::TLM_READ_COMMAND);
  t.set_address(TLMGPU_REG_ID);
  t.set_data_ptr(d);
  t.set_data_length(8);
  EXPECT_EQ(soc.cpu.socket->transport_dbg(t), 8u);
  uint32_t id = 0, version = 0;
  std::memcpy(&id, d, 4);
  std::memcpy(&version, d + 4, 4);
  EXPECT_EQ(id, TLMGPU_ID_VALUE);
  EXPECT_EQ(version, TLMGPU_VERSION_VALUE);
  t.set_command(tlm::TLM_WRITE_COMMAND);
  t.set_address(TLMGPU_REG_IRQ_ENABLE);
  EXPECT_EQ(soc.cpu.socket->transport_dbg(t), 0u);
  EXPECT_EQ(soc.cpu.read(TLMGPU_REG_IRQ_ENABLE), 0u);
}

TEST(GpuPeripheral, NonBlockingAccessesGoThroughTheSocketsConversion) {
  Soc soc(small_gpu(), lt());
  sc_core::sc_start(sc_core::SC_ZERO_TIME);
  auto nb = [&](tlm::tlm_command cmd, uint32_t offset, uint8_t* data) {
    tlm::tlm_generic_payload t;
    t.set_command(cmd);
    t.set_address(offset);
    t.set_data_ptr(data);
    t.set_data_length(4);
    t.set_streaming_width(4);
    t.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
    tlm::tlm_phase phase = tlm::BEGIN_REQ;
    sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
    soc.cpu.backward_phases.clear();
    EXPECT_EQ(soc.cpu.socket->nb_transport_fw(t, phase, delay), tlm::TLM_ACCEPTED);
    sc_core::sc_start(sc_core::sc_time(1, sc_core::SC_NS));
    EXPECT_EQ(soc.cpu.backward_phases, std::vector<tlm::tlm_phase>{tlm::BEGIN_RESP});
    phase = tlm::END_RESP;
    EXPECT_EQ(soc.cpu.socket->nb_transport_fw(t, phase, delay), tlm::TLM_COMPLETED);
    sc_core::sc_start(sc_core::sc_time(1, sc_core::SC_NS));
    return t.get_response_status();
  };
  uint8_t d[4] = {};
  EXPECT_EQ(nb(tlm::TLM_READ_COMMAND, TLMGPU_REG_ID, d), tlm::TLM_OK_RESPONSE);
  uint32_t id = 0;
  std::memcpy(&id, d, 4);
  EXPECT_EQ(id, TLMGPU_ID_VALUE);
  d[0] = TLMGPU_IRQ_ERROR;
  EXPECT_EQ(nb(tlm::TLM_WRITE_COMMAND, TLMGPU_REG_IRQ_ENABLE, d), tlm::TLM_OK_RESPONSE);
  EXPECT_EQ(soc.cpu.read(TLMGPU_REG_IRQ_ENABLE), TLMGPU_IRQ_ERROR);
  EXPECT_EQ(nb(tlm::TLM_READ_COMMAND, 0x200, d), tlm::TLM_ADDRESS_ERROR_RESPONSE);
}

// ------------------------------------------------------------------- launches

TEST(GpuPeripheral, LtLaunchOfVectorAdd) {
  Soc soc(small_gpu(), lt());
  soc.setup_queue();
  launch_vector_add(soc);
  EXPECT_EQ(soc.cpu.read(TLMGPU_REG_LAUNCHES_DONE), 1u);
  EXPECT_EQ(soc.cpu.read(TLMGPU_REG_QUEUE_HEAD), 1u);
  EXPECT_GT(soc.cpu.read64(TLMGPU_REG_WARP_INSTS_LO), 0u);
  EXPECT_EQ(soc.cpu.read(TLMGPU_REG_IRQ_STATUS), TLMGPU_IRQ_LAUNCH_DONE | TLMGPU_IRQ_QUEUE_EMPTY);
  EXPECT_GT(soc.gpu.global_memory().dmi_regions(), 0u);
}

TEST(GpuPeripheral, TimingLaunchOfVectorAdd) {
  Soc soc(small_gpu(), timing());
  soc.setup_queue();
  const sc_core::sc_time start = sc_core::sc_time_stamp();
  launch_vector_add(soc);
  const uint64_t cycles = soc.cpu.read64(TLMGPU_REG_CYCLES_LO);
  EXPECT_GT(cycles, 100u);
  // The launch took simulated time on the GPU's clock.
  EXPECT_GE(sc_core::sc_time_stamp() - start, sc_core::sc_time(1e6 / 700, sc_core::SC_PS) * double(cycles));
  EXPECT_GT(soc.cpu.read64(TLMGPU_REG_WARP_INSTS_LO), 0u);
  EXPECT_EQ(soc.cpu.read(TLMGPU_REG_LAUNCHES_DONE), 1u);
  // A second launch on the same GPU.
  launch_vector_add(soc, 1, 3000);
  EXPECT_GT(soc.cpu.read64(TLMGPU_REG_CYCLES_LO), cycles);
  EXPECT_EQ(soc.cpu.read(TLMGPU_REG_LAUNCHES_DONE), 2u);
}

// soc.memory = soc: the GPU's L2 misses are timed by the SoC's memory.
TEST(GpuPeripheral, SocMemoryTimesTheL2Misses) {
  tlmgpu::core::GpuConfig config = small_gpu();
  config.soc_memory = "soc";
  Soc soc(config, timing());
  const sc_core::sc_time period(1e6 / config.core_clock_mhz, sc_core::SC_PS);
  soc.memory.latency = period * 400.0;
  soc.setup_queue();
  VectorAdd v(soc, 1000, 0);
  const uint64_t transport_before = soc.memory.timed_reads;
  soc.queue(v.descriptor(soc));
  soc.doorbell();
  soc.run_until_idle();
  ASSERT_EQ(soc.cpu.read(TLMGPU_REG_STATUS), TLMGPU_STATUS_IDLE) << soc.cpu.error_message();
  v.expect_done(soc);
  // Every line of a and b (2 x 4000 bytes) missed the L2 and was read from the SoC.
  EXPECT_GE(soc.memory.timed_reads - transport_before, 2u * 4000 / 128);
  // A dependent miss costs the SoC's 400 cycles at least once.
  EXPECT_GT(soc.cpu.read64(TLMGPU_REG_CYCLES_LO), 400u);
}

TEST(GpuPeripheral, SocMemoryRefusingTimedTrafficIsAMemoryError) {
  tlmgpu::core::GpuConfig config = small_gpu();
  config.soc_memory = "soc";
  Soc soc(config, timing());
  soc.setup_queue();
  VectorAdd v(soc, 1000, 0);
  soc.memory.timed_error_ranges.push_back({v.b, v.b + 0x100});
  soc.queue(v.descriptor(soc));
  soc.doorbell();
  soc.run_until_idle();
  EXPECT_EQ(soc.cpu.read(TLMGPU_REG_STATUS), TLMGPU_STATUS_ERROR);
  EXPECT_EQ(soc.cpu.read(TLMGPU_REG_ERROR_CODE), TLMGPU_ERROR_MEMORY);
  const uint64_t at = soc.cpu.read64(TLMGPU_REG_ERROR_ADDRESS_LO);
  EXPECT_GE(at, v.b);
  EXPECT_LT(at, v.b + 0x100);
  EXPECT_NE(soc.cpu.error_message().find("L2 traffic"), std::string::npos) << soc.cpu.error_message();
  // Reset, the range answers again, and the next launch works.
  soc.memory.timed_error_ranges.clear();
  soc.cpu.write(TLMGPU_REG_RESET, TLMGPU_RESET_MAGIC);
  soc.setup_queue();
  launch_vector_add(soc, 1);
}

TEST(GpuPeripheral, TimingModeOnTheSocClock) {
  tlmgpu::GpuPeripheralOptions o = timing();
  o.clock = ClockSource::Soc;
  tlmgpu::core::GpuConfig config = small_gpu();
  config.core_clock_mhz = 500;
  sc_core::sc_clock soc_clock("soc_clock", sc_core::sc_time(2, sc_core::SC_NS));
  Soc soc(config, o);
  soc.gpu.clk(soc_clock);
  soc.setup_queue();
  launch_vector_add(soc);
  EXPECT_GT(soc.cpu.read64(TLMGPU_REG_CYCLES_LO), 100u);
}

TEST(GpuPeripheral, SeveralQueuedLaunchesWithOneDoorbell) {
  Soc soc(small_gpu(), lt());
  soc.setup_queue(4);
  std::vector<VectorAdd> runs;
  for (unsigned i = 0; i < 6; ++i) runs.emplace_back(soc, 500 + int(i) * 100, i);
  // Three now, one doorbell; then three more wrap around the 4-entry ring.
  for (unsigned i = 0; i < 3; ++i) soc.queue(runs[i].descriptor(soc));
  soc.doorbell();
  soc.run_until_idle();
  EXPECT_EQ(soc.cpu.read(TLMGPU_REG_STATUS), TLMGPU_STATUS_IDLE) << soc.cpu.error_message();
  EXPECT_EQ(soc.cpu.read(TLMGPU_REG_QUEUE_HEAD), 3u);
  for (unsigned i = 0; i < 3; ++i) runs[i].expect_done(soc);
  for (unsigned i = 3; i < 6; ++i) soc.queue(runs[i].descriptor(soc));
  soc.doorbell();
  soc.run_until_idle();
  EXPECT_EQ(soc.cpu.read(TLMGPU_REG_STATUS), TLMGPU_STATUS_IDLE) << soc.cpu.error_message();
  EXPECT_EQ(soc.cpu.read(TLMGPU_REG_QUEUE_HEAD), 2u);
  for (unsigned i = 3; i < 6; ++i) runs[i].expect_done(soc);
  EXPECT_EQ(soc.cpu.read(TLMGPU_REG_LAUNCHES_DONE), 6u);
  // No launch asked for its own interrupt: only the queue-empty one.
  EXPECT_EQ(soc.cpu.read(TLMGPU_REG_IRQ_STATUS), TLMGPU_IRQ_QUEUE_EMPTY);
  // The same image ran six times: parsed once.
  EXPECT_EQ(soc.gpu.ptx_parses(), 1u);
}

TEST(GpuPeripheral, TimingModeRunsQueuedLaunchesInOrder) {
  Soc soc(small_gpu(), timing());
  soc.setup_queue(4);
  std::vector<VectorAdd> runs;
  for (unsigned i = 0; i < 3; ++i) runs.emplace_back(soc, 700 + int(i) * 100, i);
  for (unsigned i = 0; i < 3; ++i) soc.queue(runs[i].descriptor(soc));
  soc.doorbell();
  soc.run_until_idle();
  EXPECT_EQ(soc.cpu.read(TLMGPU_REG_STATUS), TLMGPU_STATUS_IDLE) << soc.cpu.error_message();
  for (unsigned i = 0; i < 3; ++i) runs[i].expect_done(soc);
  EXPECT_EQ(soc.cpu.read(TLMGPU_REG_LAUNCHES_DONE), 3u);
}

TEST(GpuPeripheral, QueuePlaceCannotMoveWhileBusyAndResetForgetsARunningLaunch) {
  Soc soc(small_gpu(), timing());
  soc.setup_queue(8);
  VectorAdd v(soc, 4000, 0);
  soc.queue(v.descriptor(soc));
  soc.doorbell();
  sc_core::sc_start(sc_core::sc_time(100, sc_core::SC_NS));
  ASSERT_EQ(soc.cpu.read(TLMGPU_REG_STATUS), TLMGPU_STATUS_BUSY);
  soc.cpu.write(TLMGPU_REG_QUEUE_SIZE, 2);
  soc.cpu.write64(TLMGPU_REG_QUEUE_BASE_LO, 0x7000);
  EXPECT_EQ(soc.cpu.read(TLMGPU_REG_QUEUE_SIZE), 8u);
  EXPECT_EQ(soc.cpu.read64(TLMGPU_REG_QUEUE_BASE_LO), kQueueBase);
  // A reset while the launch runs: idle at once; the launch is not counted.
  soc.cpu.write(TLMGPU_REG_RESET, TLMGPU_RESET_MAGIC);
  EXPECT_EQ(soc.cpu.read(TLMGPU_REG_STATUS), TLMGPU_STATUS_IDLE);
  soc.cpu.write(TLMGPU_REG_QUEUE_SIZE, 4);
  EXPECT_EQ(soc.cpu.read(TLMGPU_REG_QUEUE_SIZE), 4u);
  sc_core::sc_start(sc_core::sc_time(1, sc_core::SC_MS));
  EXPECT_EQ(soc.cpu.read(TLMGPU_REG_LAUNCHES_DONE), 0u);
  EXPECT_EQ(soc.cpu.read(TLMGPU_REG_QUEUE_HEAD), 0u);
  EXPECT_EQ(soc.cpu.read(TLMGPU_REG_IRQ_STATUS), 0u);
  // The GPU takes the next queue.
  launch_vector_add(soc, 1);
  EXPECT_EQ(soc.cpu.read(TLMGPU_REG_LAUNCHES_DONE), 1u);
}

TEST(GpuPeripheral, PtxImageIsParsedOncePerDistinctImage) {
  Soc soc(small_gpu(), lt());
  soc.setup_queue();
  launch_vector_add(soc, 0);
  EXPECT_EQ(soc.gpu.ptx_parses(), 1u);
  launch_vector_add(soc, 1);
  EXPECT_EQ(soc.gpu.ptx_parses(), 1u);
  // The same text at another address is the same image.
  VectorAdd v(soc, 100, 2);
  tlmgpu_launch_descriptor d = v.descriptor(soc);
  const auto moved = soc.put_ptx(tlmgpu::workloads::workload_ptx("vector_add"), 3);
  d.ptx_address = moved.first;
  soc.queue(d);
  soc.doorbell();
  soc.run_until_idle();
  v.expect_done(soc);
  EXPECT_EQ(soc.gpu.ptx_parses(), 1u);
  // Another image is parsed.
  const auto ids = soc.put_ptx(kStorePtx, 1);
  const uint64_t out = kDataBase + 0x200000;
  soc.memory.put(kParamBase + 0x800, &out, 1);
  soc.queue(descriptor(ids, soc.put_name("store_ids", 1), 2, 64, kParamBase + 0x800, 8));
  soc.doorbell();
  soc.run_until_idle();
  EXPECT_EQ(soc.cpu.read(TLMGPU_REG_STATUS), TLMGPU_STATUS_IDLE) << soc.cpu.error_message();
  const std::vector<uint32_t> got = soc.memory.get<uint32_t>(out, 128);
  for (uint32_t i = 0; i < 128; ++i) EXPECT_EQ(got[i], i);
  EXPECT_EQ(soc.gpu.ptx_parses(), 2u);
}

TEST(GpuPeripheral, MemoryThatRefusesDmiGivesTheSameResults) {
  Soc soc(small_gpu(), lt());
  soc.memory.grant_dmi = false;
  soc.setup_queue();
  launch_vector_add(soc);
  EXPECT_EQ(soc.gpu.global_memory().dmi_regions(), 0u);
  EXPECT_GT(soc.gpu.global_memory().debug_transactions(), 0u);
  EXPECT_EQ(soc.memory.dmi_grants, 0u);
  // Asked once, not at every access.
  EXPECT_EQ(soc.memory.dmi_refusals, 1u);
  // Atomics and several lanes on one word through staged copies.
  const auto ids = soc.put_ptx(kStorePtx, 1);
  const uint64_t out = kDataBase + 0x200000;
  soc.memory.put(kParamBase + 0x800, &out, 1);
  soc.queue(descriptor(ids, soc.put_name("store_ids", 1), 3, 96, kParamBase + 0x800, 8));
  soc.doorbell();
  soc.run_until_idle();
  const std::vector<uint32_t> got = soc.memory.get<uint32_t>(out, 288);
  for (uint32_t i = 0; i < 288; ++i) EXPECT_EQ(got[i], i);
}

TEST(GpuPeripheral, TimingModeWithoutDmi) {
  Soc soc(small_gpu(), timing());
  soc.memory.grant_dmi = false;
  soc.setup_queue();
  launch_vector_add(soc);
  EXPECT_EQ(soc.gpu.global_memory().dmi_regions(), 0u);
}

TEST(GpuPeripheral, DmiInvalidationIsHonoured) {
  Soc soc(small_gpu(), lt());
  soc.setup_queue();
  launch_vector_add(soc);
  const uint64_t grants = soc.memory.dmi_grants;
  EXPECT_GT(soc.gpu.global_memory().dmi_regions(), 0u);
  soc.memory.invalidate_all_dmi();
  EXPECT_EQ(soc.gpu.global_memory().dmi_regions(), 0u);
  // From now on the memory refuses: the GPU must not use the old pointer.
  soc.memory.grant_dmi = false;
  const uint64_t debug_before = soc.memory.debug_accesses;
  launch_vector_add(soc, 1);
  EXPECT_EQ(soc.memory.dmi_grants, grants);
  EXPECT_GT(soc.memory.debug_accesses, debug_before);
}

TEST(GpuPeripheral, ModuleGlobalsLiveInTheHeap) {
  Soc soc(small_gpu(), lt());
  soc.setup_queue();
  soc.cpu.write64(TLMGPU_REG_HEAP_BASE_LO, kHeapBase);
  soc.cpu.write(TLMGPU_REG_HEAP_SIZE, kHeapBytes);
  const auto img = soc.put_ptx(kGlobalsPtx, 1);
  for (int i = 0; i < 2; ++i) soc.queue(descriptor(img, soc.put_name("bump", 1), 1, 1, 0, 0));
  soc.doorbell();
  soc.run_until_idle();
  EXPECT_EQ(soc.cpu.read(TLMGPU_REG_STATUS), TLMGPU_STATUS_IDLE) << soc.cpu.error_message();
  // Initialised to 7 when the image was loaded, bumped by both launches.
  EXPECT_EQ(soc.memory.get<uint32_t>(kHeapBase, 1)[0], 9u);
}

// --------------------------------------------------------------------- errors

TEST(GpuPeripheral, ErrorBadQueue) {
  Soc soc(small_gpu(), lt());
  sc_core::sc_start(sc_core::SC_ZERO_TIME);
  soc.doorbell();  // no queue yet
  soc.run_until_idle();
  EXPECT_EQ(soc.cpu.read(TLMGPU_REG_ERROR_CODE), TLMGPU_ERROR_BAD_QUEUE);
  soc.cpu.write(TLMGPU_REG_RESET, TLMGPU_RESET_MAGIC);
  soc.setup_queue(4);
  soc.cpu.write(TLMGPU_REG_QUEUE_TAIL, 4);  // TAIL >= SIZE
  soc.doorbell();
  soc.run_until_idle();
  EXPECT_NE(soc.cpu.error_message().find("QUEUE_TAIL"), std::string::npos) << soc.cpu.error_message();
  // A misaligned ring, a ring that shrank below HEAD.
  for (int kind = 0; kind < 2; ++kind) {
    soc.cpu.write(TLMGPU_REG_RESET, TLMGPU_RESET_MAGIC);
    soc.setup_queue(4);
    if (kind == 0) {
      soc.cpu.write64(TLMGPU_REG_QUEUE_BASE_LO, kQueueBase + 4);
      soc.doorbell();
    } else {
      launch_vector_add(soc, 0, 100);  // HEAD = 1
      soc.cpu.write(TLMGPU_REG_QUEUE_SIZE, 1);
      soc.cpu.write(TLMGPU_REG_QUEUE_TAIL, 0);
      soc.doorbell();
    }
    soc.run_until_idle();
    EXPECT_EQ(soc.cpu.read(TLMGPU_REG_ERROR_CODE), TLMGPU_ERROR_BAD_QUEUE) << kind;
    EXPECT_NE(soc.cpu.error_message().find(kind == 0 ? "aligned" : "QUEUE_HEAD"), std::string::npos)
        << soc.cpu.error_message();
  }
  soc.cpu.write(TLMGPU_REG_RESET, TLMGPU_RESET_MAGIC);
  soc.setup_queue(4);
  soc.cpu.write(TLMGPU_REG_QUEUE_TAIL, 4);
  soc.doorbell();
  soc.run_until_idle();
  expect_error_then_recover(soc, TLMGPU_ERROR_BAD_QUEUE);
}

TEST(GpuPeripheral, ErrorBadDescriptor) {
  Soc soc(small_gpu(), lt());
  soc.setup_queue();
  VectorAdd v(soc, 100, 0);
  tlmgpu_launch_descriptor d = v.descriptor(soc);
  d.flags = 0x80;  // reserved
  soc.queue(d);
  soc.doorbell();
  soc.run_until_idle();
  EXPECT_EQ(soc.cpu.read(TLMGPU_REG_ERROR_DESCRIPTOR), 0u);
  expect_error_then_recover(soc, TLMGPU_ERROR_BAD_DESCRIPTOR);
  // Sizes out of range, a name without its NUL.
  for (int kind = 0; kind < 3; ++kind) {
    soc.cpu.write(TLMGPU_REG_RESET, TLMGPU_RESET_MAGIC);
    tlmgpu_launch_descriptor bad = v.descriptor(soc);
    if (kind == 0) bad.ptx_bytes = 0;
    if (kind == 1) bad.params_bytes = 1u << 20;
    if (kind == 2) {
      const std::string long_name(300, 'k');
      soc.memory.put(kNameBase + 0x800, long_name.data(), long_name.size());
      bad.kernel_name_address = kNameBase + 0x800;
    }
    soc.queue(bad);
    soc.doorbell();
    soc.run_until_idle();
    EXPECT_EQ(soc.cpu.read(TLMGPU_REG_ERROR_CODE), TLMGPU_ERROR_BAD_DESCRIPTOR) << kind;
  }
}

TEST(GpuPeripheral, ErrorPtxNamesTheLine) {
  Soc soc(small_gpu(), lt());
  soc.setup_queue();
  const std::string bad = ".version 7.0\n.target sm_70\n.address_size 64\n.visible .entry k()\n{\n  frobnicate.u32 %r1;\n  ret;\n}\n";
  soc.queue(descriptor(soc.put_ptx(bad, 1), soc.put_name("k", 1), 1, 32, 0, 0));
  soc.doorbell();
  soc.run_until_idle();
  EXPECT_EQ(soc.cpu.read(TLMGPU_REG_ERROR_INFO), 6u) << soc.cpu.error_message();
  EXPECT_NE(soc.cpu.error_message().find("frobnicate"), std::string::npos) << soc.cpu.error_message();
  expect_error_then_recover(soc, TLMGPU_ERROR_PTX);
}

TEST(GpuPeripheral, ErrorUnknownKernel) {
  Soc soc(small_gpu(), lt());
  soc.setup_queue();
  VectorAdd v(soc, 100, 0);
  tlmgpu_launch_descriptor d = v.descriptor(soc);
  d.kernel_name_address = soc.put_name("vector_sub", 1);
  soc.queue(d);
  soc.doorbell();
  soc.run_until_idle();
  EXPECT_NE(soc.cpu.error_message().find("vector_sub"), std::string::npos) << soc.cpu.error_message();
  expect_error_then_recover(soc, TLMGPU_ERROR_UNKNOWN_KERNEL);
}

TEST(GpuPeripheral, ErrorBadLaunch) {
  Soc soc(small_gpu(), lt());
  soc.setup_queue();
  VectorAdd v(soc, 100, 0);
  // Wrong parameter size, a zero block, too much shared memory, globals without a heap.
  for (int kind = 0; kind < 4; ++kind) {
    if (kind) soc.cpu.write(TLMGPU_REG_RESET, TLMGPU_RESET_MAGIC);
    tlmgpu_launch_descriptor d = v.descriptor(soc);
    if (kind == 0) d.params_bytes = 24;
    if (kind == 1) d.block[1] = 0;
    if (kind == 2) d.dynamic_shared_bytes = 1u << 20;
    if (kind == 3) d = descriptor(soc.put_ptx(kGlobalsPtx, 1), soc.put_name("bump", 1), 1, 1, 0, 0);
    soc.queue(d);
    soc.doorbell();
    soc.run_until_idle();
    EXPECT_EQ(soc.cpu.read(TLMGPU_REG_ERROR_CODE), TLMGPU_ERROR_BAD_LAUNCH) << kind << ": " << soc.cpu.error_message();
  }
  expect_error_then_recover(soc, TLMGPU_ERROR_BAD_LAUNCH);
}

TEST(GpuPeripheral, ErrorDeviceFaultNamesAddressPcCtaAndThread) {
  Soc soc(small_gpu(), lt());
  soc.setup_queue();
  const uint64_t out = kDataBase;
  soc.memory.put(kParamBase, &out, 1);
  soc.queue(descriptor(soc.put_ptx(kMisalignedPtx, 1), soc.put_name("misaligned", 1), 2, 64, kParamBase, 8));
  soc.doorbell();
  soc.run_until_idle();
  EXPECT_EQ(soc.cpu.read64(TLMGPU_REG_ERROR_ADDRESS_LO), out + 2);
  EXPECT_EQ(soc.cpu.read(TLMGPU_REG_ERROR_CTA), 1u);
  EXPECT_EQ(soc.cpu.read(TLMGPU_REG_ERROR_THREAD), 5u);
  EXPECT_EQ(soc.cpu.read(TLMGPU_REG_ERROR_PC), 8u * 8);  // the ninth instruction: the store
  EXPECT_NE(soc.cpu.error_message().find("misaligned"), std::string::npos) << soc.cpu.error_message();
  expect_error_then_recover(soc, TLMGPU_ERROR_DEVICE_FAULT);
}

TEST(GpuPeripheral, TimingModeDeviceFaultThenRecovery) {
  Soc soc(small_gpu(), timing());
  soc.setup_queue();
  const uint64_t out = kDataBase;
  soc.memory.put(kParamBase, &out, 1);
  soc.queue(descriptor(soc.put_ptx(kMisalignedPtx, 1), soc.put_name("misaligned", 1), 2, 64, kParamBase, 8));
  soc.doorbell();
  soc.run_until_idle();
  EXPECT_EQ(soc.cpu.read64(TLMGPU_REG_ERROR_ADDRESS_LO), out + 2);
  EXPECT_EQ(soc.cpu.read(TLMGPU_REG_ERROR_CTA), 1u);
  EXPECT_EQ(soc.cpu.read(TLMGPU_REG_ERROR_THREAD), 5u);
  expect_error_then_recover(soc, TLMGPU_ERROR_DEVICE_FAULT);
}

TEST(GpuPeripheral, ErrorWatchdog) {
  tlmgpu::GpuPeripheralOptions o = lt();
  o.watchdog_instructions = 20000;
  Soc soc(small_gpu(), o);
  soc.setup_queue();
  soc.queue(descriptor(soc.put_ptx(kSpinPtx, 1), soc.put_name("spin", 1), 1, 32, 0, 0));
  soc.doorbell();
  soc.run_until_idle();
  expect_error_then_recover(soc, TLMGPU_ERROR_WATCHDOG);
}

TEST(GpuPeripheral, ErrorMemoryResponseInAKernel) {
  Soc soc(small_gpu(), lt());
  soc.setup_queue();
  VectorAdd v(soc, 1000, 0);
  // The SoC answers errors for part of c.
  soc.memory.error_ranges.push_back({v.c + 0x400, v.c + 0x800});
  soc.queue(v.descriptor(soc));
  soc.doorbell();
  soc.run_until_idle();
  const uint64_t addr = soc.cpu.read64(TLMGPU_REG_ERROR_ADDRESS_LO);
  EXPECT_GE(addr, v.c + 0x400);
  EXPECT_LT(addr, v.c + 0x800);
  EXPECT_NE(soc.cpu.error_message().find("refused"), std::string::npos) << soc.cpu.error_message();
  soc.memory.error_ranges.clear();
  expect_error_then_recover(soc, TLMGPU_ERROR_MEMORY);
}

TEST(GpuPeripheral, ErrorMemoryResponseToAWriteBack) {
  // Memory without DMI: the store's staged copy reads fine, its write-back is refused.
  Soc soc(small_gpu(), lt());
  soc.memory.grant_dmi = false;
  soc.setup_queue();
  const uint64_t out = kDataBase + 0x200000;
  soc.memory.read_only_ranges.push_back({out + 0x100, out + 0x200});
  soc.memory.put(kParamBase + 0x800, &out, 1);
  soc.queue(descriptor(soc.put_ptx(kStorePtx, 1), soc.put_name("store_ids", 1), 4, 64, kParamBase + 0x800, 8));
  soc.doorbell();
  soc.run_until_idle();
  // Thread 64 (CTA 1, thread 0) writes the first refused word.
  EXPECT_EQ(soc.cpu.read64(TLMGPU_REG_ERROR_ADDRESS_LO), out + 0x100);
  EXPECT_EQ(soc.cpu.read(TLMGPU_REG_ERROR_CTA), 1u);
  EXPECT_EQ(soc.cpu.read(TLMGPU_REG_ERROR_THREAD), 0u);
  EXPECT_NE(soc.cpu.error_message().find("refused a write"), std::string::npos) << soc.cpu.error_message();
  soc.memory.read_only_ranges.clear();
  expect_error_then_recover(soc, TLMGPU_ERROR_MEMORY);
}

TEST(GpuPeripheral, ErrorMemoryResponseForADescriptor) {
  Soc soc(small_gpu(), lt());
  soc.setup_queue();
  soc.memory.error_ranges.push_back({kQueueBase, kQueueBase + 64});
  VectorAdd v(soc, 100, 0);
  soc.queue(v.descriptor(soc));
  soc.doorbell();
  soc.run_until_idle();
  EXPECT_EQ(soc.cpu.read64(TLMGPU_REG_ERROR_ADDRESS_LO), kQueueBase);
  soc.memory.error_ranges.clear();
  expect_error_then_recover(soc, TLMGPU_ERROR_MEMORY);
}

// ------------------------------------------------------------------ interrupt

TEST(GpuPeripheral, IrqLineFollowsStatusAndEnable) {
  Soc soc(small_gpu(), lt());
  soc.setup_queue();
  launch_vector_add(soc);  // LAUNCH_DONE | QUEUE_EMPTY pending, nothing enabled
  EXPECT_EQ(soc.cpu.read(TLMGPU_REG_IRQ_STATUS), TLMGPU_IRQ_LAUNCH_DONE | TLMGPU_IRQ_QUEUE_EMPTY);
  EXPECT_FALSE(soc.irq.read());
  soc.cpu.write(TLMGPU_REG_IRQ_ENABLE, TLMGPU_IRQ_ERROR);
  settle();
  EXPECT_FALSE(soc.irq.read());
  soc.cpu.write(TLMGPU_REG_IRQ_ENABLE, TLMGPU_IRQ_QUEUE_EMPTY);
  settle();
  EXPECT_TRUE(soc.irq.read());
  // Write 1 to clear: clearing another bit keeps the line up.
  soc.cpu.write(TLMGPU_REG_IRQ_STATUS, TLMGPU_IRQ_LAUNCH_DONE);
  settle();
  EXPECT_EQ(soc.cpu.read(TLMGPU_REG_IRQ_STATUS), TLMGPU_IRQ_QUEUE_EMPTY);
  EXPECT_TRUE(soc.irq.read());
  soc.cpu.write(TLMGPU_REG_IRQ_STATUS, TLMGPU_IRQ_QUEUE_EMPTY);
  settle();
  EXPECT_EQ(soc.cpu.read(TLMGPU_REG_IRQ_STATUS), 0u);
  EXPECT_FALSE(soc.irq.read());
  // Writing 0 clears nothing.
  launch_vector_add(soc, 1);
  soc.cpu.write(TLMGPU_REG_IRQ_STATUS, 0);
  settle();
  EXPECT_TRUE(soc.irq.read());
  // Masking lowers the line without clearing the status.
  soc.cpu.write(TLMGPU_REG_IRQ_ENABLE, 0);
  settle();
  EXPECT_FALSE(soc.irq.read());
  EXPECT_NE(soc.cpu.read(TLMGPU_REG_IRQ_STATUS), 0u);
  // An error raises the line when enabled.
  soc.cpu.write(TLMGPU_REG_IRQ_STATUS, 0x7);
  soc.cpu.write(TLMGPU_REG_IRQ_ENABLE, TLMGPU_IRQ_ERROR);
  soc.cpu.write(TLMGPU_REG_QUEUE_TAIL, 99);
  soc.doorbell();
  soc.run_until_idle();
  EXPECT_TRUE(soc.irq.read());
  soc.cpu.write(TLMGPU_REG_RESET, TLMGPU_RESET_MAGIC);
  settle();
  EXPECT_EQ(soc.cpu.read(TLMGPU_REG_IRQ_STATUS), 0u);
  EXPECT_EQ(soc.cpu.read(TLMGPU_REG_STATUS), 0u);
  EXPECT_FALSE(soc.irq.read());
}

TEST(GpuPeripheral, SoftResetKeepsImagesAndCounters) {
  Soc soc(small_gpu(), lt());
  soc.setup_queue();
  launch_vector_add(soc);
  const uint64_t insts = soc.cpu.read64(TLMGPU_REG_WARP_INSTS_LO);
  soc.cpu.write(TLMGPU_REG_IRQ_ENABLE, TLMGPU_IRQ_ERROR);
  soc.cpu.write(TLMGPU_REG_RESET, TLMGPU_RESET_MAGIC);
  EXPECT_EQ(soc.cpu.read(TLMGPU_REG_LAUNCHES_DONE), 1u);
  EXPECT_EQ(soc.cpu.read64(TLMGPU_REG_WARP_INSTS_LO), insts);
  EXPECT_EQ(soc.cpu.read(TLMGPU_REG_QUEUE_SIZE), 16u);
  EXPECT_EQ(soc.cpu.read64(TLMGPU_REG_QUEUE_BASE_LO), kQueueBase);
  EXPECT_EQ(soc.cpu.read(TLMGPU_REG_IRQ_ENABLE), TLMGPU_IRQ_ERROR);
  launch_vector_add(soc, 1);
  EXPECT_EQ(soc.gpu.ptx_parses(), 1u);
}

// --------------------------------------------------- the memory path on its own

TEST(TlmGlobalMemory, ErrorResponseIsNamed) {
  Soc soc(small_gpu(), lt());
  sc_core::sc_start(sc_core::SC_ZERO_TIME);
  soc.memory.error_ranges.push_back({0x5000, 0x5100});
  tlmgpu::platform::soc::TlmGlobalMemory mem(soc.gpu.mem);
  EXPECT_NE(mem.translate(0x100, 16), nullptr);  // DMI
  EXPECT_EQ(mem.translate(0x5010, 4), nullptr);
  EXPECT_TRUE(mem.error_covers(0x5010));
  EXPECT_NE(mem.describe(0x5010).find("refused a read of 4 bytes at 0x5010"), std::string::npos) << mem.describe(0x5010);
  uint32_t v = 0;
  EXPECT_FALSE(mem.read(0x50f0, &v, 4));
  EXPECT_TRUE(mem.read(0x4ff0, &v, 4));
  // A staged copy (no DMI here: the range crosses no grant) commits only changed bytes.
  soc.memory.grant_dmi = false;
  mem.invalidate_all();
  uint8_t* p = mem.translate(0x6000, 8);
  ASSERT_NE(p, nullptr);
  EXPECT_TRUE(mem.has_staged());
  p[3] = 0x5a;
  uint64_t failed = 0;
  EXPECT_TRUE(mem.commit_staged(&failed));
  EXPECT_FALSE(mem.has_staged());
  EXPECT_EQ(soc.memory.bytes[0x6003], 0x5a);
}
