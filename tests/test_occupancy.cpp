// CTAs per SM and their limiting resource (platform/occupancy.h).
#include <gtest/gtest.h>

#include <string>

#include "platform/gpu_device.h"
#include "platform/occupancy.h"
#include "platform/timing_gpu.h"

namespace {

using tlmgpu::platform::compute_occupancy;
using tlmgpu::platform::LaunchError;
using tlmgpu::platform::Occupancy;
using tlmgpu::platform::preset_config;
using tlmgpu::platform::RegisterSource;

Occupancy gtx480(uint32_t threads, uint32_t regs, uint32_t shared = 0) {
  return compute_occupancy(preset_config("gtx480").sm, "k", threads, shared, regs, RegisterSource::Estimate);
}

TEST(Occupancy, RegistersLimitSgemmOnGtx480) {
  // 39 registers (ptxas): 39 x 32 = 1248, rounded to 1280 per warp; 8 warps
  // take 10240 of 32768: 3 CTAs of 256 threads (63 registers gave 2).
  const Occupancy o = gtx480(256, 39);
  EXPECT_EQ(o.regs_per_warp, 1280u);
  EXPECT_EQ(o.regs_per_cta, 10240u);
  EXPECT_EQ(o.ctas_per_sm, 3u);
  EXPECT_EQ(o.limited_by, "registers");
  EXPECT_EQ(o.warps_per_sm, 24u);
  EXPECT_EQ(o.warps_per_scheduler, 12u);
  EXPECT_EQ(gtx480(256, 63).ctas_per_sm, 2u);
}

TEST(Occupancy, EachResourceCanBeTheLimit) {
  EXPECT_EQ(gtx480(512, 16).limited_by, "threads");         // 1536 / 512 = 3
  EXPECT_EQ(gtx480(512, 16).ctas_per_sm, 3u);
  EXPECT_EQ(gtx480(64, 8).limited_by, "cta_slots");         // 8 CTAs
  EXPECT_EQ(gtx480(64, 8).ctas_per_sm, 8u);
  EXPECT_EQ(gtx480(128, 8, 20 * 1024).limited_by, "shared_memory");  // 48 KB / 20 KB = 2
  EXPECT_EQ(gtx480(128, 8, 20 * 1024).ctas_per_sm, 2u);
  tlmgpu::core::SmConfig few_warps = preset_config("gtx480").sm;
  few_warps.max_warps = 40;  // 40 / 8 = 5 warps-limited, 1536 / 256 = 6
  const Occupancy o = compute_occupancy(few_warps, "k", 256, 0, 8, RegisterSource::Estimate);
  EXPECT_EQ(o.limited_by, "warps");
  EXPECT_EQ(o.ctas_per_sm, 5u);
}

TEST(Occupancy, AllocationUnitRoundsEachWarp) {
  // titanx_pascal: 256 per warp. 17 registers x 32 = 544 -> 768.
  const Occupancy o = compute_occupancy(preset_config("titanx_pascal").sm, "k", 256, 0, 17, RegisterSource::Estimate);
  EXPECT_EQ(o.regs_per_warp, 768u);
  EXPECT_EQ(o.regs_per_cta, 8u * 768);
  // vortex_1sm: every warp takes its whole 64 x 32 register file.
  const Occupancy v = compute_occupancy(preset_config("vortex_1sm").sm, "k", 128, 0, 5, RegisterSource::Estimate);
  EXPECT_EQ(v.regs_per_warp, 2048u);
  // 1024 threads / 128, 32 warps / 4 and 65536 / (4 x 2048) tie at 8: the
  // first of them in the order threads, warps, ... is named.
  EXPECT_EQ(v.ctas_per_sm, 8u);
  EXPECT_EQ(v.limited_by, "threads");
}

TEST(Occupancy, A1024ThreadCtaFitsGtx480WithAtMost32Registers) {
  const Occupancy o = gtx480(1024, 32);
  EXPECT_EQ(o.ctas_per_sm, 1u);
  EXPECT_EQ(o.regs_per_cta, 32768u);
  EXPECT_THROW(gtx480(1024, 33), LaunchError);
}

TEST(Occupancy, ACtaThatDoesNotFitNamesTheResource) {
  try {
    gtx480(1024, 40);
    FAIL() << "no error";
  } catch (const LaunchError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("40960 registers"), std::string::npos) << msg;
    EXPECT_NE(msg.find("32768 (sm.registers)"), std::string::npos) << msg;
    EXPECT_NE(msg.find("--regs-per-thread"), std::string::npos) << msg;
  }
  try {
    gtx480(64, 8, 49 * 1024);
    FAIL() << "no error";
  } catch (const LaunchError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("50176 bytes of shared memory"), std::string::npos) << msg;
    EXPECT_NE(msg.find("49152 (sm.shared_bytes)"), std::string::npos) << msg;
  }
  try {
    gtx480(2048, 8);
    FAIL() << "no error";
  } catch (const LaunchError& e) {
    EXPECT_NE(std::string(e.what()).find("2048 threads"), std::string::npos) << e.what();
  }
}

// The unified L1D / shared array's split (GPGPU-Sim's adaptive carve-out):
// the first carve-out that holds the resident CTAs' shared memory; the L1D
// keeps its 4 sets and the rest of the ways.
TEST(Carveout, TheFirstCarveoutThatHoldsTheResidentCtasSharedMemory) {
  const tlmgpu::core::GpuConfig qv = preset_config("qv100");
  struct Case {
    uint32_t shared_per_cta, resident, carveout_kb, ways, l1_kb;
  };
  for (const Case& c : {Case{0, 32, 0, 256, 128}, Case{2048, 1, 8, 240, 120}, Case{8192, 1, 8, 240, 120},
                        Case{8193, 1, 16, 224, 112}, Case{10240, 2, 32, 192, 96}, Case{48 << 10, 1, 64, 128, 64},
                        Case{40 << 10, 2, 96, 64, 32}}) {
    const tlmgpu::platform::L1Carveout got = tlmgpu::platform::choose_carveout(qv, c.shared_per_cta, c.resident);
    EXPECT_EQ(got.shared_kb, c.carveout_kb) << c.shared_per_cta << " x " << c.resident;
    EXPECT_EQ(got.l1_ways, c.ways) << c.shared_per_cta << " x " << c.resident;
    EXPECT_EQ(got.l1_bytes, c.l1_kb * 1024) << c.shared_per_cta << " x " << c.resident;
  }
}

TEST(Carveout, APreferenceRoundsUpToTheNextCarveoutAndHoldsAtLeastOneCta) {
  // The CUDA guide's rule on qv100 (carve-outs 0..96 KB): 50 % of 96 KB is
  // 48 KB, "rounded up to 64 KB"; 100 % is 96 KB; 0 % is 0 KB unless a CTA
  // needs more; the resident CTAs do not matter.
  const tlmgpu::core::GpuConfig qv = preset_config("qv100");
  struct Case {
    int percent;
    uint32_t shared_per_cta, resident, carveout_kb;
  };
  for (const Case& c : {Case{50, 0, 32, 64}, Case{100, 0, 1, 96}, Case{0, 0, 32, 0}, Case{0, 8193, 4, 16},
                        Case{25, 1024, 32, 32}, Case{9, 0, 1, 16}, Case{8, 0, 1, 8}, Case{34, 40 << 10, 1, 64}}) {
    const auto got = tlmgpu::platform::choose_carveout(qv, c.shared_per_cta, c.resident, c.percent);
    EXPECT_EQ(got.shared_kb, c.carveout_kb) << c.percent << "% " << c.shared_per_cta;
    EXPECT_EQ(got.l1_bytes, (128 - c.carveout_kb) * 1024) << c.percent << "% " << c.shared_per_cta;
  }
  // The SM the occupancy sees: its shared memory is the carve-out; without a
  // preference, or without a unified array, it is sm.shared_bytes.
  EXPECT_EQ(tlmgpu::platform::launch_sm(qv, 8192, 25).shared_bytes, 32u * 1024);
  EXPECT_EQ(tlmgpu::platform::launch_sm(qv, 8192, -1).shared_bytes, qv.sm.shared_bytes);
  const tlmgpu::core::GpuConfig fermi = preset_config("gtx480");
  EXPECT_EQ(tlmgpu::platform::launch_sm(fermi, 8192, 0).shared_bytes, fermi.sm.shared_bytes);
}

TEST(Carveout, BadCarveoutListsAreConfigurationErrors) {
  std::vector<uint32_t> kb;
  std::string error;
  EXPECT_TRUE(tlmgpu::platform::parse_carveouts("0, 8,16", kb, error));
  EXPECT_EQ(kb, (std::vector<uint32_t>{0, 8, 16}));
  EXPECT_FALSE(tlmgpu::platform::parse_carveouts("8,8", kb, error));
  EXPECT_NE(error.find("ascend"), std::string::npos) << error;
  EXPECT_FALSE(tlmgpu::platform::parse_carveouts("8,,16", kb, error));
  tlmgpu::core::GpuConfig c = preset_config("qv100");
  c.sm.shared_carveouts_kb = "0,8,16,32,64";  // does not hold sm.shared_bytes (96 KB)
  EXPECT_THROW(tlmgpu::platform::validate_config(c), tlmgpu::platform::ConfigError);
  c = preset_config("qv100");
  c.l1d.size_bytes = 65536;
  EXPECT_THROW(tlmgpu::platform::validate_config(c), tlmgpu::platform::ConfigError);
}

TEST(Carveout, EachLaunchSplitsTheArrayForItsOwnCtas) {
  tlmgpu::platform::DeviceOptions o;
  o.mode = tlmgpu::platform::SimulationMode::Timing;
  o.config = preset_config("qv100");
  tlmgpu::platform::GpuDevice dev(o);
  const auto m = dev.load_module(R"(
.version 9.0
.target sm_75
.address_size 64
.visible .entry idle()
{
  ret;
}
)", "idle.ptx");
  const auto l1_bytes = [] { return tlmgpu::platform::timing_stats().at("gpu.sm0.l1d.capacity_bytes"); };
  // 40 KB of shared memory a CTA: 2 resident (96 KB), 2 per SM in a grid of
  // 160 on 80 SMs: 80 KB, so the 96 KB carve-out and a 32 KB L1D.
  dev.launch(m, "idle", {160, 1, 1}, {32, 1, 1}, 40 << 10, tlmgpu::platform::KernelArgs());
  EXPECT_EQ(l1_bytes(), 32 * 1024);
  // A grid of 80 puts one CTA on each SM: 40 KB, the 64 KB carve-out.
  dev.launch(m, "idle", {80, 1, 1}, {32, 1, 1}, 40 << 10, tlmgpu::platform::KernelArgs());
  EXPECT_EQ(l1_bytes(), 64 * 1024);
  // No shared memory: the whole array.
  dev.launch(m, "idle", {80, 1, 1}, {32, 1, 1}, 0, tlmgpu::platform::KernelArgs());
  EXPECT_EQ(l1_bytes(), 128 * 1024);
}

}  // namespace
