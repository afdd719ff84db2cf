// The memory partition's latency pieces as the presets use them: the L2's
// ROP pipeline, the L1 pipeline that atomics bypass, and host copies that
// leave their data in the L2 (docs/MEMORY.md).
#include <gtest/gtest.h>

#include "memory_test_support.h"

namespace {

// The modules run on a test clock and its clock domain, as inside the GPU
// (memory_test_support.h).
class MemoryPartitionDriven : public tlmgpu_memtest::MemoryDriver {};

using namespace tlmgpu_memtest;

/// The unit-test memory system with a ROP pipeline and a long L1 pipeline,
/// as gtx480 has them.
struct PartitionBench : OneSmMemoryBench {
  PartitionBench() : OneSmMemoryBench(partition_config()) {}
  static tlmgpu::core::GpuConfig partition_config() {
    tlmgpu::core::GpuConfig c = unit_test_memory_config();
    c.l2_rop_latency = 120;
    c.l1d.hit_latency = 35;
    return c;
  }
};

TEST_F(MemoryPartitionDriven, RopLatencyIsPaidByHitsMissesStoresAndAtomics) {
  PartitionBench b;
  const auto& c = b.config;
  const uint64_t icnt = c.icnt.latency, rop = c.l2_rop_latency;
  b.sm_i.script = {{10, line_access(1, AccessKind::InstructionFetch, 0x0, 0x1)},     // L2 miss, DRAM
                   {1000, line_access(2, AccessKind::InstructionFetch, 0x80, 0x1)}};  // L2 miss again (other line)
  b.sm_d.script = {{2000, line_access(3, AccessKind::Load, 0x0, 0xf)},    // L2 hit (the fetch filled it)
                   {3000, line_access(4, AccessKind::Store, 0x100, 0x1)},
                   {4000, line_access(5, AccessKind::Atomic, 0x0, 0x1)}};
  run_cycles(6000);
  // L2 hit of a whole line: tag check 1, crossbar, ROP, lookup, 4 flits back, L1 pipeline.
  EXPECT_EQ(b.sm_d.done.at(3), 2000 + 1 + icnt + rop + c.l2.hit_latency + icnt + 3 + c.l1d.hit_latency);
  // A one-sector store is 2 flits up; its acknowledgement passes the L1 pipeline too.
  EXPECT_EQ(b.sm_d.done.at(4), 3000 + 1 + icnt + 1 + rop + c.l2.hit_latency + icnt + c.l1d.hit_latency);
  // An atomic (2 flits up, 1 back) never enters the L1 pipeline: its answer
  // is the SM's the cycle after it arrives.
  EXPECT_EQ(b.sm_d.done.at(5),
            4000 + 1 + icnt + 1 + rop + c.l2.hit_latency + tlmgpu::memory::kL2AtomicCycles + icnt + 1);
  // The miss pays the ROP latency once, before its lookup.
  const uint64_t without_rop = b.sm_i.done.at(1) - rop;
  EXPECT_GT(without_rop, 10 + 1 + 2 * icnt + c.l2.hit_latency);
  EXPECT_EQ(stat_of(b.mem->l2_slice(0), "hits"), 1 + 1);  // the load and the atomic
}

LineAccess atomic_access(uint64_t id, uint64_t address, uint32_t same_address_lanes) {
  LineAccess a = line_access(id, AccessKind::Atomic, address & ~uint64_t(127), 1u << ((address & 127) / 32));
  a.atomic_same_address_ops = same_address_lanes;
  a.atomic_address = address;
  return a;
}

TEST_F(MemoryPartitionDriven, AtomicsToOneAddressSerialiseInTheAtomicUnit) {
  PartitionBench b;
  const auto& c = b.config;
  ASSERT_EQ(c.l2_atomic_same_address_interval, 9u);  // gtx480's
  const uint64_t icnt = c.icnt.latency, rop = c.l2_rop_latency, interval = c.l2_atomic_same_address_interval;
  b.sm_d.script = {{10, line_access(1, AccessKind::Load, 0x0, 0xf)},  // brings the line into the L2
                   {3000, atomic_access(2, 0x0, 32)},                 // a warp's 32 lanes on one counter
                   {3001, atomic_access(3, 0x0, 1)},                  // then one more update of it
                   {3002, atomic_access(4, 0x40, 1)},                 // another address of the line
                   {5000, atomic_access(5, 0x0, 1)}};                 // long after: no wait
  run_cycles(7000);
  const uint64_t alone = 1 + icnt + 1 + rop + c.l2.hit_latency + tlmgpu::memory::kL2AtomicCycles + icnt + 1;
  // 32 updates one every `interval` cycles: 31 intervals after the first.
  EXPECT_EQ(b.sm_d.done.at(2), 3000 + alone + 31 * interval);
  // The next update of that address follows the last by one interval.
  EXPECT_EQ(b.sm_d.done.at(3), b.sm_d.done.at(2) + interval);
  // Another address does not wait for them.
  EXPECT_LT(b.sm_d.done.at(4), 3002 + alone + 2 * interval);
  EXPECT_EQ(b.sm_d.done.at(5), 5000 + alone);
  // Waits: the warp's own 31 intervals, and the next update's 32 intervals
  // less the 2 cycles it reached the slice later (an atomic is 2 flits up).
  EXPECT_EQ(stat_of(b.mem->l2_slice(0), "atomic_serialisation_cycles"), double(31 * interval + 32 * interval - 2));
}

TEST_F(MemoryPartitionDriven, HostCopyLeavesDirtySectorsInTheL2) {
  PartitionBench b;
  const tlmgpu::memory::L2AddressMap map{b.config.l2_slices, b.config.l2_interleave_bytes};
  // 256 bytes from 0x40: sectors 2-3 of line 0x0, all of line 0x80, sectors
  // 0-1 of line 0x100 (bytes up to 0x13f).
  b.mem->fill_l2_from_host_copy(0x40, 256);
  b.sm_d.script = {{10, line_access(1, AccessKind::Load, 0x0, 0xc)},    // copied: hit
                   {20, line_access(2, AccessKind::Load, 0x80, 0xf)},   // copied: hit
                   {30, line_access(3, AccessKind::Load, 0x100, 0x3)},  // copied: hit
                   {40, line_access(4, AccessKind::Load, 0x100, 0xc)}}; // not copied: miss
  run_cycles(2000);
  double hits = 0, misses = 0, fills = 0;
  for (uint32_t s = 0; s < b.config.l2_slices; ++s) {
    hits += stat_of(b.mem->l2_slice(s), "hits");
    misses += stat_of(b.mem->l2_slice(s), "misses");
    fills += stat_of(b.mem->l2_slice(s), "host_copy_fills");
  }
  EXPECT_EQ(hits, 3);
  EXPECT_EQ(misses, 1);
  EXPECT_EQ(fills, 2 + 4 + 2);
  EXPECT_EQ(b.sm_d.done.size(), 4u);
  EXPECT_EQ(map.slice_of(0x0), map.slice_of(0x80));  // one 256-byte chunk
}

TEST_F(MemoryPartitionDriven, HostCopyDisplacesWithoutWriteBacksAndKeepsItsLastPart) {
  PartitionBench b;
  const uint64_t l2_total = uint64_t(b.config.l2.size_bytes) * b.config.l2_slices;
  // Twice the L2: the second half displaces the first, silently.
  b.mem->fill_l2_from_host_copy(0, 2 * l2_total);
  b.sm_d.script = {{10, line_access(1, AccessKind::Load, 2 * l2_total - 128, 0xf)},  // last line: hit
                   {20, line_access(2, AccessKind::Load, 0, 0xf)}};                  // first line: gone
  run_cycles(3000);
  double hits = 0, misses = 0, writebacks = 0, dram_writes = 0;
  for (uint32_t s = 0; s < b.config.l2_slices; ++s) {
    hits += stat_of(b.mem->l2_slice(s), "hits");
    misses += stat_of(b.mem->l2_slice(s), "misses");
    writebacks += stat_of(b.mem->l2_slice(s), "writebacks");
  }
  for (uint32_t c = 0; c < b.mem->dram_channels(); ++c) dram_writes += stat_of(b.mem->dram_channel(c), "writes");
  EXPECT_EQ(hits, 1);
  EXPECT_EQ(misses, 1);
  // The miss's fill evicts a copied, dirty line: that write-back is the
  // kernel's; the copy's own displacements sent none.
  EXPECT_EQ(writebacks, 1);
  EXPECT_EQ(dram_writes, 1);
}

}  // namespace

namespace {

// Validation decides; the modules take what they are given. A program that
// builds the memory system from its own configuration gets the key named.
TEST_F(MemoryPartitionDriven, UnvalidatedConfigurationIsRefusedNamingTheKey) {
  tlmgpu::core::GpuConfig c = tlmgpu_memtest::unit_test_memory_config();
  c.l1d.hit_latency = 0;
  c.dram.banks = 0;
  try {
    tlmgpu::platform::MemorySystem m(c, sc_core::sc_time(1, sc_core::SC_NS));
    ADD_FAILURE() << "a memory system was built with l1d.hit_latency = 0";
  } catch (const tlmgpu::platform::ConfigError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("l1d.hit_latency"), std::string::npos) << what;
    EXPECT_NE(what.find("dram.banks"), std::string::npos) << what;
  }
}

}  // namespace
