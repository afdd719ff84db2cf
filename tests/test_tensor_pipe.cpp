// The tensor-core pipe (sm.has_tensor_cores): a chain of dependent
// wmma.mma takes sm.tensor_latency cycles per link; the warps of one
// sub-core share its pipe at sm.tensor_ii cycles per wmma.mma, while the
// sub-cores' pipes work side by side; without tensor cores wmma.mma runs on
// the SP pipe. Each run also checks the products (all-ones tiles: every
// wmma.mma adds 16 to every element).
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "platform/config_keys.h"
#include "platform/gpu_device.h"

namespace {

using tlmgpu::platform::DeviceOptions;
using tlmgpu::platform::GpuDevice;
using tlmgpu::platform::KernelArgs;

// Every warp loads the same A (row-major) and B (column-major) 16x16 f16
// tiles, multiplies them into its accumulator `n` times, each product
// depending on the last, and stores its 16x16 f32 tile at d + warp * 1 KB.
constexpr const char* kChainPtx = R"(
.version 9.0
.target sm_75
.address_size 64

.visible .entry tensor_chain(.param .u64 pa, .param .u64 pb, .param .u64 pd, .param .u32 pn)
{
  .reg .pred %p<2>;
  .reg .f32 %f<9>;
  .reg .b32 %r<24>;
  .reg .b64 %rd<10>;

  ld.param.u64 %rd1, [pa];
  ld.param.u64 %rd2, [pb];
  ld.param.u64 %rd3, [pd];
  ld.param.u32 %r18, [pn];
  cvta.to.global.u64 %rd4, %rd1;
  cvta.to.global.u64 %rd5, %rd2;
  cvta.to.global.u64 %rd6, %rd3;
  mov.u32 %r1, 16;
  wmma.load.a.sync.aligned.row.m16n16k16.global.f16 {%r2, %r3, %r4, %r5, %r6, %r7, %r8, %r9}, [%rd4], %r1;
  wmma.load.b.sync.aligned.col.m16n16k16.global.f16 {%r10, %r11, %r12, %r13, %r14, %r15, %r16, %r17}, [%rd5], %r1;
  mov.f32 %f1, 0f00000000;
  mov.f32 %f2, 0f00000000;
  mov.f32 %f3, 0f00000000;
  mov.f32 %f4, 0f00000000;
  mov.f32 %f5, 0f00000000;
  mov.f32 %f6, 0f00000000;
  mov.f32 %f7, 0f00000000;
  mov.f32 %f8, 0f00000000;
  mov.u32 %r19, 0;
LOOP:
  wmma.mma.sync.aligned.row.col.m16n16k16.f32.f32 {%f1, %f2, %f3, %f4, %f5, %f6, %f7, %f8}, {%r2, %r3, %r4, %r5, %r6, %r7, %r8, %r9}, {%r10, %r11, %r12, %r13, %r14, %r15, %r16, %r17}, {%f1, %f2, %f3, %f4, %f5, %f6, %f7, %f8};
  add.u32 %r19, %r19, 1;
  setp.lt.u32 %p1, %r19, %r18;
  @%p1 bra LOOP;
  mov.u32 %r20, %tid.x;
  shr.u32 %r21, %r20, 5;
  mul.wide.u32 %rd7, %r21, 1024;
  add.s64 %rd8, %rd6, %rd7;
  wmma.store.d.sync.aligned.row.m16n16k16.global.f32 [%rd8], {%f1, %f2, %f3, %f4, %f5, %f6, %f7, %f8}, %r1;
  ret;
}
)";

/// Cycles of one CTA of `warps` warps running chains of `links` wmma.mma
/// on a fresh device of `config`; the products are checked.
uint64_t chain_cycles(const tlmgpu::core::GpuConfig& config, uint32_t warps, uint32_t links) {
  DeviceOptions o;
  o.mode = tlmgpu::platform::SimulationMode::Timing;
  o.config = config;
  GpuDevice dev(o);
  const auto m = dev.load_module(kChainPtx, "tensor_chain.ptx");
  const std::vector<uint16_t> ones(16 * 16, 0x3C00);  // f16 1.0
  const uint64_t a = dev.upload(ones), b = dev.upload(ones);
  const uint64_t d = dev.allocate(uint64_t(warps) * 1024);
  const uint64_t before = dev.stats().sim_cycles;
  dev.launch(m, "tensor_chain", {1, 1, 1}, {32 * warps, 1, 1}, 0,
             KernelArgs().ptr(a).ptr(b).ptr(d).add<uint32_t>(links));
  const uint64_t cycles = dev.stats().sim_cycles - before;
  const std::vector<float> out = dev.download<float>(d, size_t(warps) * 256);
  for (size_t i = 0; i < out.size(); ++i)
    if (out[i] != 16.0f * float(links)) {
      ADD_FAILURE() << "element " << i << " = " << out[i] << ", expected " << 16.0f * float(links);
      break;
    }
  return cycles;
}

/// Cycles each further link of the chain costs: the difference of two
/// chain lengths, so that the launch and the loads drop out.
double cycles_per_link(const tlmgpu::core::GpuConfig& config, uint32_t warps) {
  const uint32_t shorter = 32, longer = 96;
  const uint64_t a = chain_cycles(config, warps, shorter), b = chain_cycles(config, warps, longer);
  return double(b - a) / double(longer - shorter);
}

tlmgpu::core::GpuConfig qv100() { return tlmgpu::platform::preset_config("qv100"); }

TEST(TensorPipe, ADependentChainTakesTheTensorLatencyPerLink) {
  // One warp: each wmma.mma waits for the last (the loop's own instructions
  // hide behind it).
  const double per_link = cycles_per_link(qv100(), 1);
  EXPECT_GE(per_link, 35.0);
  EXPECT_LE(per_link, 35.0 * 1.1);
}

TEST(TensorPipe, TheWarpsOfOneSubCoreShareItsPipe) {
  // Warps 0, 4, 8 and 12 are the first sub-core's (warp slot mod 4): four
  // chains on one pipe that takes a wmma.mma every 32 cycles.
  const double per_link = cycles_per_link(qv100(), 13);
  EXPECT_GE(per_link, 4 * 32.0);
  EXPECT_LE(per_link, 4 * 32.0 * 1.1);
}

TEST(TensorPipe, TheSubCoresPipesWorkSideBySide) {
  // One warp per sub-core: no pipe is shared, so a link costs as for one.
  const double per_link = cycles_per_link(qv100(), 4);
  EXPECT_GE(per_link, 35.0);
  EXPECT_LE(per_link, 35.0 * 1.1);
}

TEST(TensorPipe, WithoutTensorCoresWmmaRunsOnTheSpPipe) {
  tlmgpu::core::GpuConfig c = qv100();
  c.sm.has_tensor_cores = false;
  // The SP pipe's 4 cycles: the loop's counter (add, setp, bra) sets the pace.
  const double per_link = cycles_per_link(c, 1);
  EXPECT_LT(per_link, 20.0);
  EXPECT_GE(per_link, double(c.sm.sp.latency));
}

}  // namespace
