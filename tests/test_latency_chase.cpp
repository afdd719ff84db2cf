// The latency_chase workload on each preset: the load-to-use latency of an
// L1 hit, an L2 hit, a DRAM access and a shared-memory access within 10 % of
// the preset's documented values (docs/CALIBRATION.md, "Load-to-use
// latencies": the sums of the preset's pipeline latencies).
#include <gtest/gtest.h>

#include <string>

#include "platform/config_keys.h"
#include "platform/gpu_device.h"
#include "workloads/latency_chase/latency_chase.h"

namespace {

struct Documented {
  const char* preset;
  double l1_hit, l2_hit, dram, shared;
};

void expect_within_10_percent(double measured, double documented, const std::string& what) {
  EXPECT_GE(measured, 0.9 * documented) << what << ": " << measured << " cycles, documented " << documented;
  EXPECT_LE(measured, 1.1 * documented) << what << ": " << measured << " cycles, documented " << documented;
}

void check_preset(const Documented& d) {
  tlmgpu::platform::DeviceOptions o;
  o.mode = tlmgpu::platform::SimulationMode::Timing;
  o.config = tlmgpu::platform::preset_config(d.preset);
  tlmgpu::platform::GpuDevice device(o);
  // 513 loads a chain: the clock reads around it add a few cycles that a
  // longer chain spreads thinner.
  const tlmgpu::workloads::MemoryLatencies m = tlmgpu::workloads::measure_memory_latencies(device, 513);
  ASSERT_TRUE(m.chains_verified) << m.detail;
  expect_within_10_percent(m.l1_hit, d.l1_hit, std::string(d.preset) + " L1 hit");
  expect_within_10_percent(m.l2_hit, d.l2_hit, std::string(d.preset) + " L2 hit");
  expect_within_10_percent(m.dram, d.dram, std::string(d.preset) + " DRAM");
  expect_within_10_percent(m.shared, d.shared, std::string(d.preset) + " shared");
  // The levels are in the order the hierarchy puts them.
  EXPECT_LT(m.shared, m.l2_hit);
  EXPECT_LT(m.l1_hit, m.l2_hit);
  EXPECT_LT(m.l2_hit, m.dram);
}

TEST(LatencyChase, Gtx480MatchesItsDocumentedLatencies) { check_preset({"gtx480", 37, 172, 300, 27}); }
TEST(LatencyChase, TitanxPascalMatchesItsDocumentedLatencies) { check_preset({"titanx_pascal", 84, 216, 325, 25}); }
TEST(LatencyChase, Vortex1smHasGtx480sMemory) { check_preset({"vortex_1sm", 37, 172, 300, 27}); }
TEST(LatencyChase, Qv100MatchesItsDocumentedLatencies) { check_preset({"qv100", 34, 209, 345, 27}); }
TEST(LatencyChase, Rtx2060MatchesItsDocumentedLatencies) { check_preset({"rtx2060", 34, 243, 361, 31}); }
TEST(LatencyChase, Rtx3070MatchesItsDocumentedLatencies) { check_preset({"rtx3070", 33, 235, 508, 23}); }

TEST(LatencyChase, FunctionalModeStillChecksTheChains) {
  tlmgpu::platform::GpuDevice device;
  const tlmgpu::workloads::MemoryLatencies m = tlmgpu::workloads::measure_memory_latencies(device, 9);
  EXPECT_TRUE(m.chains_verified) << m.detail;
}

}  // namespace
