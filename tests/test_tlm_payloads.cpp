// The payloads below the L1s: byte ranges of the requested sectors, byte
// enables where the span has holes, write data from functional memory
// (memory/payload_pool.h, docs/ARCHITECTURE.md "Payloads in the memory system").
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "memory/device_memory.h"
#include "memory/l1_cache.h"
#include "memory/payload_pool.h"
#include "memory_test_support.h"

namespace {

using namespace tlmgpu_memtest;
using tlmgpu::memory::DeviceMemory;
using tlmgpu::memory::L1Cache;

TEST(TlmPayloads, SectorSpanSetsAddressLengthAndByteEnablesOfHoles) {
  tlm::tlm_generic_payload p;
  std::vector<uint8_t> data(128), enables(128, 0x55);
  tlmgpu::memory::set_sector_span(p, 0x1000, 0x6, data.data(), enables.data());
  EXPECT_EQ(p.get_address(), 0x1020u);
  EXPECT_EQ(p.get_data_length(), 64u);
  EXPECT_EQ(p.get_streaming_width(), 64u);
  EXPECT_EQ(p.get_data_ptr(), data.data());
  EXPECT_EQ(p.get_byte_enable_ptr(), nullptr);  // contiguous: no byte enables

  tlmgpu::memory::set_sector_span(p, 0x1000, 0x9, data.data(), enables.data());
  EXPECT_EQ(p.get_address(), 0x1000u);
  EXPECT_EQ(p.get_data_length(), 128u);
  ASSERT_EQ(p.get_byte_enable_ptr(), enables.data());
  EXPECT_EQ(p.get_byte_enable_length(), 128u);
  for (uint32_t b = 0; b < 128; ++b)
    EXPECT_EQ(enables[b], b < 32 || b >= 96 ? TLM_BYTE_ENABLED : TLM_BYTE_DISABLED) << b;
}

TEST(TlmPayloads, WriteDataIsFunctionalMemoryAndZeroOutsideIt) {
  DeviceMemory mem;
  const uint64_t base = mem.allocate(100);  // the line's last 28 bytes lie outside it
  std::vector<uint8_t> bytes(100);
  for (size_t i = 0; i < bytes.size(); ++i) bytes[i] = uint8_t(i + 1);
  mem.copy_to_device(base, bytes.data(), bytes.size());
  tlm::tlm_generic_payload p;
  std::vector<uint8_t> data(128, 0xee), enables(128);
  tlmgpu::memory::set_sector_span(p, base, 0xe, data.data(), enables.data());
  tlmgpu::memory::copy_write_data(&mem, p.get_address(), p);
  for (uint32_t i = 0; i < 64; ++i) EXPECT_EQ(data[i], bytes[32 + i]) << i;
  for (uint32_t i = 64; i < 96; ++i) EXPECT_EQ(data[i], 0u) << i;  // unit 3 is not all in the allocation
}

/// An L1 between a scripted SM and a fixed-latency memory, its write data
/// taken from `mem`.
struct L1WithMemoryBelow {
  L1Cache cache{"l1d", {1024, 2, 128, 32, 1, 4, 2, false}, period()};
  TestSm sm{"sm"};
  TestMemory below{"mem", 20};
  explicit L1WithMemoryBelow(DeviceMemory& mem) {
    sm.cache.bind(cache.access_export);
    cache.response_port.bind(sm);
    cache.socket.bind(below.socket);
    cache.take_write_data_from(&mem);
  }
};

// An L1 store of sectors 1 and 3: one request over bytes [32, 128) of the
// line with sector 2 disabled, carrying the memory's bytes; a load of
// sectors 0 and 1: [0, 64) without byte enables and without write data.
TEST(TlmPayloads, L1RequestsCarrySpanByteEnablesAndStoreData) {
  DeviceMemory mem;
  const uint64_t base = mem.allocate(4096);
  std::vector<uint8_t> bytes(4096);
  for (size_t i = 0; i < bytes.size(); ++i) bytes[i] = uint8_t(i * 7 + 3);
  mem.copy_to_device(base, bytes.data(), bytes.size());
  L1WithMemoryBelow bench(mem);
  auto& [cache, sm, below] = bench;
  const uint64_t line = base + 256;
  sm.script = {{10, line_access(1, AccessKind::Store, line, 0xa)}, {12, line_access(2, AccessKind::Load, line + 128, 0x3)}};
  run_cycles(100);
  ASSERT_EQ(below.seen.size(), 2u);
  const auto& store = below.seen[0];
  EXPECT_EQ(store.first_byte, line + 32);
  EXPECT_EQ(store.length, 96u);
  ASSERT_EQ(store.enables.size(), 96u);
  ASSERT_EQ(store.data.size(), 96u);
  for (uint32_t b = 0; b < 96; ++b) {
    EXPECT_EQ(store.enables[b], b < 32 || b >= 64 ? TLM_BYTE_ENABLED : TLM_BYTE_DISABLED) << b;
    EXPECT_EQ(store.data[b], bytes[256 + 32 + b]) << b;
  }
  const auto& load = below.seen[1];
  EXPECT_EQ(load.first_byte, line + 128);
  EXPECT_EQ(load.length, 64u);
  EXPECT_TRUE(load.enables.empty());
  EXPECT_TRUE(load.data.empty());
}

// Inside the GPU the L1s' requests wait in their SM's outbox until the
// cycle's serial commit: a store carries memory as it is then.
TEST(TlmPayloads, OutboxRequestsCarryMemoryAsOfTheirDelivery) {
  DeviceMemory mem;
  const uint64_t base = mem.allocate(256);
  mem.memset(base, 0x11, 256);
  L1WithMemoryBelow bench(mem);
  auto& [cache, sm, below] = bench;
  tlmgpu::memory::L1RequestOutbox outbox;
  cache.send_through(&outbox);
  sm.script = {{10, line_access(1, AccessKind::Store, base, 0x1)}};
  run_cycles(11);
  EXPECT_TRUE(below.seen.empty());  // still in the outbox
  mem.memset(base, 0x77, 32);       // a later instruction of the cycle
  outbox.deliver();
  run_cycles(50);
  ASSERT_EQ(below.seen.size(), 1u);
  ASSERT_EQ(below.seen[0].data.size(), 32u);
  for (uint8_t byte : below.seen[0].data) EXPECT_EQ(byte, 0x77);
}

}  // namespace
