// CTAs per SM and their limiting resource (platform/occupancy.h).
#include <gtest/gtest.h>

#include <string>

#include "platform/gpu_device.h"
#include "platform/occupancy.h"

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

}  // namespace
