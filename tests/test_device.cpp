// The host API: memory, modules, symbols, launch checks, device faults.
#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include "model/exec/kernel_context.h"
#include "platform/gpu_device.h"
#include "platform/timing_gpu.h"

namespace tlmgpu {
namespace {

using platform::GpuDevice;
using platform::KernelArgs;
using platform::LaunchError;

const char* kHeader = ".version 8.0\n.target sm_75\n.address_size 64\n";

// out[i] = in[i + offset] * scale, with `scale` a module .global and a
// .const table added in.
const char* kScale = R"(
.global .align 4 .f32 scale = 0f40000000;
.const .align 4 .b8 table[8] = {0, 0, 128, 63, 0, 0, 0, 64};
.visible .entry k(.param .u64 in, .param .u64 out, .param .u32 offset)
.maxntid 256, 1, 1
{
  .reg .b32 %r<5>; .reg .f32 %f<6>; .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [in];
  ld.param.u64 %rd2, [out];
  ld.param.u32 %r1, [offset];
  mov.u32 %r2, %tid.x;
  mov.u32 %r3, %ctaid.x;
  mov.u32 %r4, %ntid.x;
  mad.lo.s32 %r2, %r3, %r4, %r2;
  add.s32 %r3, %r2, %r1;
  mul.wide.s32 %rd3, %r3, 4;
  add.s64 %rd4, %rd1, %rd3;
  ld.global.f32 %f1, [%rd4];
  ld.global.f32 %f2, [scale];
  ld.const.f32 %f3, [table+4];
  mul.f32 %f4, %f1, %f2;
  add.f32 %f4, %f4, %f3;
  mul.wide.s32 %rd5, %r2, 4;
  add.s64 %rd6, %rd2, %rd5;
  st.global.f32 [%rd6], %f4;
  ret;
}
)";

struct ScaleFixture {
  GpuDevice dev;
  platform::ModuleHandle m;
  uint64_t in = 0, out = 0;
  explicit ScaleFixture(uint32_t n) { load(n); }
  ScaleFixture(uint32_t n, const platform::DeviceOptions& options) : dev(options) { load(n); }
  void load(uint32_t n) {
    m = dev.load_module(std::string(kHeader) + kScale, "scale.ptx");
    std::vector<float> host(n);
    for (uint32_t i = 0; i < n; ++i) host[i] = float(i);
    in = dev.upload(host, "in");
    out = dev.allocate(n * 4, "out");
  }
};

TEST(Device, RunsKernelWithGlobalAndConstVariables) {
  ScaleFixture f(256);
  f.dev.launch(f.m, "k", {2, 1, 1}, {128, 1, 1}, 0, KernelArgs().ptr(f.in).ptr(f.out).add<uint32_t>(0));
  auto out = f.dev.download<float>(f.out, 256);
  for (uint32_t i = 0; i < 256; ++i) EXPECT_FLOAT_EQ(out[i], 2.0f * float(i) + 2.0f);
  EXPECT_EQ(f.dev.stats().kernels_launched, 1u);
  EXPECT_EQ(f.dev.stats().ctas, 2u);
  EXPECT_EQ(f.dev.stats().warp_insts, 8u * 19u);
  EXPECT_EQ(f.dev.stats().thread_insts, 256u * 19u);
}

TEST(Device, WriteSymbolChangesGlobalAndConstVariables) {
  ScaleFixture f(32);
  const float three = 3.0f, ten = 10.0f;
  f.dev.write_symbol(f.m, "scale", &three, 4);
  f.dev.write_symbol(f.m, "table", &ten, 4, 4);
  float back = 0;
  f.dev.read_symbol(f.m, "scale", &back, 4);
  EXPECT_EQ(back, 3.0f);
  f.dev.launch(f.m, "k", {1, 1, 1}, {32, 1, 1}, 0, KernelArgs().ptr(f.in).ptr(f.out).add<uint32_t>(0));
  auto out = f.dev.download<float>(f.out, 32);
  for (uint32_t i = 0; i < 32; ++i) EXPECT_FLOAT_EQ(out[i], 3.0f * float(i) + 10.0f);
  EXPECT_THROW(f.dev.write_symbol(f.m, "nope", &three, 4), LaunchError);
  EXPECT_THROW(f.dev.write_symbol(f.m, "scale", &three, 4, 4), LaunchError);
}

TEST(Device, OutOfBoundsLoadIsAFaultNamingKernelCtaThreadPcAndAddress) {
  ScaleFixture f(64);
  try {
    // Thread 60 of CTA 1 reads in[64 + 4*... ] past the end of a 64-float buffer.
    f.dev.launch(f.m, "k", {2, 1, 1}, {32, 1, 1}, 0, KernelArgs().ptr(f.in).ptr(f.out).add<uint32_t>(4));
    FAIL() << "expected a device fault";
  } catch (const exec::DeviceFault& e) {
    EXPECT_EQ(e.kind(), exec::FaultKind::OutOfBounds);
    const std::string what = e.what();
    EXPECT_NE(what.find("out-of-bounds global access of 4 bytes"), std::string::npos) << what;
    EXPECT_NE(what.find("kernel k"), std::string::npos) << what;
    EXPECT_NE(what.find("CTA (1,0,0)"), std::string::npos) << what;
    EXPECT_NE(what.find("thread (28,0,0)"), std::string::npos) << what;
    EXPECT_NE(what.find("PC 0x"), std::string::npos) << what;
    EXPECT_NE(what.find("ld.global.f32"), std::string::npos) << what;
    EXPECT_NE(what.find("that is 0 bytes past the end of 'in'"), std::string::npos) << what;
    std::ostringstream where;
    where << "(256 bytes at 0x" << std::hex << f.in << ")";
    EXPECT_NE(what.find(where.str()), std::string::npos) << what;
  }
}

// One GPU model serves every timing-mode device of a process. A device that
// ends in a fault with traffic still in flight must not leak into the next:
// two later devices running the same launch get the same cycles, and the
// right values.
TEST(Device, TimingDeviceAfterAFaultedOneStartsAsNew) {
  platform::DeviceOptions o;
  o.mode = platform::SimulationMode::Timing;
  o.config = platform::preset_config("gtx480");
  const uint32_t n = 64 * 256;
  // With offset > 0 the last threads read past the end of `in`; with 0 the
  // values are checked and the launch's cycles returned.
  auto launch = [&](ScaleFixture& f, uint32_t offset) {
    f.dev.launch(f.m, "k", {n / 256, 1, 1}, {256, 1, 1}, 0, KernelArgs().ptr(f.in).ptr(f.out).add<uint32_t>(offset));
    const std::vector<float> result = f.dev.download<float>(f.out, n);
    for (uint32_t i = 0; i < n; i += 1021) EXPECT_FLOAT_EQ(result[i], float(i) * 2.0f + 2.0f) << i;
    return f.dev.stats().sim_cycles;
  };
  {
    ScaleFixture faulted(n, o);
    EXPECT_THROW(launch(faulted, 1), exec::DeviceFault);
  }
  ScaleFixture a(n, o);
  const uint64_t first = launch(a, 0);
  ScaleFixture b(n, o);
  const uint64_t second = launch(b, 0);
  EXPECT_GT(first, 0u);
  EXPECT_EQ(first, second);

  // The same holds for the next launch on the faulted device itself.
  ScaleFixture f(n, o);
  EXPECT_THROW(launch(f, 1), exec::DeviceFault);
  const uint64_t cycles_before = f.dev.stats().sim_cycles;
  EXPECT_EQ(launch(f, 0) - cycles_before, first);
}

TEST(Device, MisalignedAccessIsAFault) {
  GpuDevice dev;
  auto m = dev.load_module(std::string(kHeader) + R"(
.visible .entry k(.param .u64 p) {
  .reg .b32 %r<2>; .reg .b64 %rd<3>;
  ld.param.u64 %rd1, [p];
  add.s64 %rd2, %rd1, 2;
  ld.global.u32 %r1, [%rd2];
  ret;
})", "mis.ptx");
  uint64_t p = dev.allocate(64, "p");
  try {
    dev.launch(m, "k", {1, 1, 1}, {1, 1, 1}, 0, KernelArgs().ptr(p));
    FAIL() << "expected a device fault";
  } catch (const exec::DeviceFault& e) {
    EXPECT_EQ(e.kind(), exec::FaultKind::Misaligned);
    EXPECT_NE(std::string(e.what()).find("misaligned global access"), std::string::npos) << e.what();
  }
}

TEST(Device, BarrierThatCanNeverCompleteIsADeadlock) {
  GpuDevice dev;
  auto m = dev.load_module(std::string(kHeader) + R"(
.visible .entry k() {
  .reg .pred %p<2>; .reg .b32 %r<2>;
  mov.u32 %r1, %tid.x;
  setp.lt.u32 %p1, %r1, 32;
  @%p1 bra FIRST;
  bar.sync 1;
  ret;
FIRST:
  bar.sync 0;
  ret;
})", "dead.ptx");
  try {
    dev.launch(m, "k", {1, 1, 1}, {64, 1, 1}, 0, KernelArgs());
    FAIL() << "expected a deadlock";
  } catch (const exec::DeviceFault& e) {
    EXPECT_EQ(e.kind(), exec::FaultKind::Deadlock);
    const std::string what = e.what();
    EXPECT_NE(what.find("waiting at barrier 0"), std::string::npos) << what;
    EXPECT_NE(what.find("waiting at barrier 1"), std::string::npos) << what;
  }
}

TEST(Device, BarrierWithThreadCountAndArrive) {
  // Warp 1 produces and arrives at barrier 1 (64 threads expected); warp 0
  // waits there and then reads what warp 1 wrote.
  GpuDevice dev;
  auto m = dev.load_module(std::string(kHeader) + R"(
.visible .entry k(.param .u64 out) {
  .reg .pred %p<2>; .reg .b32 %r<4>; .reg .b64 %rd<4>;
  .shared .align 4 .b8 slot[4];
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  setp.lt.u32 %p1, %r1, 32;
  @%p1 bra CONSUMER;
  mov.u32 %r2, 77;
  st.shared.u32 [slot], %r2;
  bar.arrive 1, 64;
  ret;
CONSUMER:
  bar.sync 1, 64;
  ld.shared.u32 %r3, [slot];
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r3;
  ret;
})", "arrive.ptx");
  uint64_t out = dev.allocate(32 * 4, "out");
  dev.launch(m, "k", {1, 1, 1}, {64, 1, 1}, 0, KernelArgs().ptr(out));
  for (uint32_t v : dev.download<uint32_t>(out, 32)) EXPECT_EQ(v, 77u);
}

TEST(Device, LaunchChecksArgumentsShapeAndDirectives) {
  ScaleFixture f(32);
  auto args = KernelArgs().ptr(f.in).ptr(f.out).add<uint32_t>(0);
  EXPECT_THROW(f.dev.launch(f.m, "nope", {1, 1, 1}, {32, 1, 1}, 0, args), LaunchError);
  EXPECT_THROW(f.dev.launch(f.m, "k", {1, 1, 1}, {32, 1, 1}, 0, KernelArgs().ptr(f.in)), LaunchError);
  EXPECT_THROW(f.dev.launch(f.m, "k", {1, 1, 1}, {32, 1, 1}, 0, KernelArgs().ptr(f.in).ptr(f.out).ptr(0)),
               LaunchError);
  EXPECT_THROW(f.dev.launch(f.m, "k", {1, 1, 1}, {0, 1, 1}, 0, args), LaunchError);
  EXPECT_THROW(f.dev.launch(f.m, "k", {1, 1, 1}, {2048, 1, 1}, 0, args), LaunchError);
  // .maxntid 256
  try {
    f.dev.launch(f.m, "k", {1, 1, 1}, {512, 1, 1}, 0, args);
    FAIL();
  } catch (const LaunchError& e) {
    EXPECT_NE(std::string(e.what()).find(".maxntid"), std::string::npos) << e.what();
  }
  EXPECT_THROW(f.dev.launch(f.m, "k", {1, 1, 1}, {32, 1, 1}, 1 << 20, args), LaunchError);
}

TEST(Device, ReqntidMustMatchTheBlock) {
  GpuDevice dev;
  auto m = dev.load_module(std::string(kHeader) + ".visible .entry k() .reqntid 64, 1, 1 { ret; }", "req.ptx");
  EXPECT_THROW(dev.launch(m, "k", {1, 1, 1}, {32, 1, 1}, 0, KernelArgs()), LaunchError);
  EXPECT_NO_THROW(dev.launch(m, "k", {1, 1, 1}, {64, 1, 1}, 0, KernelArgs()));
}

TEST(Device, MemoryApiChecksRanges) {
  GpuDevice dev;
  uint64_t a = dev.allocate(16, "a");
  std::vector<uint8_t> bytes(32, 1);
  EXPECT_THROW(dev.copy_to_device(a, bytes.data(), 32), std::out_of_range);
  EXPECT_THROW(dev.copy_from_device(bytes.data(), a + 8, 16), std::out_of_range);
  dev.memset(a, 0xab, 16);
  EXPECT_EQ(dev.download<uint8_t>(a, 16)[15], 0xab);
  dev.free(a);
  EXPECT_THROW(dev.free(a), std::invalid_argument);
  EXPECT_THROW(dev.memset(a, 0, 4), std::out_of_range);
}

TEST(Device, DynamicSharedMemoryAndThreeDimensionalLaunch) {
  // out[linear thread] = tid.x + 10*tid.y + 100*tid.z + 1000*ctaid.y, staged
  // through extern shared memory sized at launch.
  GpuDevice dev;
  auto m = dev.load_module(std::string(kHeader) + R"(
.extern .shared .align 4 .b8 dyn[];
.visible .entry k(.param .u64 out) {
  .reg .b32 %r<16>; .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x; mov.u32 %r2, %tid.y; mov.u32 %r3, %tid.z;
  mov.u32 %r4, %ntid.x; mov.u32 %r5, %ntid.y; mov.u32 %r6, %ctaid.y;
  mad.lo.u32 %r7, %r3, %r5, %r2;
  mad.lo.u32 %r7, %r7, %r4, %r1;
  mad.lo.u32 %r8, %r2, 10, %r1;
  mad.lo.u32 %r8, %r3, 100, %r8;
  mad.lo.u32 %r8, %r6, 1000, %r8;
  shl.b32 %r9, %r7, 2;
  mov.u32 %r10, dyn;
  add.u32 %r10, %r10, %r9;
  st.shared.u32 [%r10], %r8;
  bar.sync 0;
  ld.shared.u32 %r11, [%r10];
  mul.lo.u32 %r12, %r4, %r5;
  mov.u32 %r13, %ntid.z;
  mul.lo.u32 %r12, %r12, %r13;
  mad.lo.u32 %r14, %r6, %r12, %r7;
  mul.wide.u32 %rd2, %r14, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r11;
  ret;
})", "dyn.ptx");
  const uint32_t per_cta = 4 * 3 * 2;
  uint64_t out = dev.allocate(2 * per_cta * 4, "out");
  dev.launch(m, "k", {1, 2, 1}, {4, 3, 2}, per_cta * 4, KernelArgs().ptr(out));
  auto v = dev.download<uint32_t>(out, 2 * per_cta);
  for (uint32_t y = 0; y < 2; ++y)
    for (uint32_t z = 0; z < 2; ++z)
      for (uint32_t ty = 0; ty < 3; ++ty)
        for (uint32_t x = 0; x < 4; ++x)
          EXPECT_EQ(v[y * per_cta + (z * 3 + ty) * 4 + x], x + 10 * ty + 100 * z + 1000 * y);
  // Without the dynamic bytes the store falls outside shared memory.
  EXPECT_THROW(dev.launch(m, "k", {1, 2, 1}, {4, 3, 2}, 0, KernelArgs().ptr(out)), exec::DeviceFault);
}

}  // namespace

// %nsmid and the shared memory a CTA may declare come from the preset, in
// every mode (they were fixed at 15 SMs and 48 KB).
const char* kSmCount = R"(
.version 7.0
.target sm_75
.address_size 64
.visible .entry sm_count(.param .u64 out)
{
  .reg .b32 %r<3>;
  .reg .b64 %rd<3>;
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd2, %rd1;
  mov.u32 %r1, %nsmid;
  st.global.u32 [%rd2], %r1;
  ret;
}
.visible .entry big_shared(.param .u64 out)
{
  .shared .align 4 .b8 tile[40960];
  .reg .b32 %r<2>;
  .reg .b64 %rd<3>;
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd2, %rd1;
  st.shared.u32 [tile], 7;
  ld.shared.u32 %r1, [tile];
  st.global.u32 [%rd2], %r1;
  ret;
}
)";

class DeviceFromPreset : public ::testing::TestWithParam<platform::SimulationMode> {};

TEST_P(DeviceFromPreset, SmCountAndSharedLimitComeFromTheConfiguration) {
  for (const char* preset : {"gtx480", "titanx_pascal", "vortex_1sm"}) {
    platform::DeviceOptions o;
    o.mode = GetParam();
    o.config = platform::preset_config(preset);
    GpuDevice dev(o);
    const auto m = dev.load_module(kSmCount, "sm_count.ptx");
    const uint64_t out = dev.allocate(4);
    dev.launch(m, "sm_count", {1, 1, 1}, {32, 1, 1}, 0, KernelArgs().ptr(out));
    EXPECT_EQ(dev.download<uint32_t>(out, 1)[0], o.config.num_sms) << preset;
    if (GetParam() == platform::SimulationMode::Timing) break;  // one GPU model per process
  }
  // 40 KB of shared memory fits gtx480's 48 KB; an SM of 32 KB refuses it,
  // naming its limit.
  platform::DeviceOptions o;
  o.mode = GetParam();
  o.config = platform::preset_config("gtx480");
  o.config.sm.shared_bytes = 32 * 1024;
  GpuDevice small(o);
  const auto m = small.load_module(kSmCount, "sm_count.ptx");
  const uint64_t out = small.allocate(4);
  try {
    small.launch(m, "big_shared", {1, 1, 1}, {32, 1, 1}, 0, KernelArgs().ptr(out));
    ADD_FAILURE() << "a 40 KB CTA launched on an SM of 32 KB";
  } catch (const LaunchError& e) {
    EXPECT_NE(std::string(e.what()).find("exceed the 32768 per CTA"), std::string::npos) << e.what();
  }
  if (GetParam() != platform::SimulationMode::Timing) {
    platform::DeviceOptions big;
    big.mode = GetParam();
    GpuDevice dev(big);
    const auto mb = dev.load_module(kSmCount, "sm_count.ptx");
    const uint64_t o2 = dev.allocate(4);
    dev.launch(mb, "big_shared", {1, 1, 1}, {32, 1, 1}, 0, KernelArgs().ptr(o2));
    EXPECT_EQ(dev.download<uint32_t>(o2, 1)[0], 7u);
  }
}

INSTANTIATE_TEST_SUITE_P(Modes, DeviceFromPreset,
                         ::testing::Values(platform::SimulationMode::Functional, platform::SimulationMode::Lt,
                                           platform::SimulationMode::Timing),
                         [](const auto& param_info) {
                           return std::string(param_info.param == platform::SimulationMode::Functional ? "Functional"
                                              : param_info.param == platform::SimulationMode::Lt     ? "Lt"
                                                                                               : "Timing");
                         });

// Static shared memory is charged to the kernels that use it: 32 KB of a
// module variable only `table_user` names, 16 KB declared in `own_tile`'s
// body, 4 bytes in a device function `counted` calls, none in `dynamic_only`.
const char* kSharedPerKernel = R"(
.version 7.0
.target sm_75
.address_size 64
.shared .align 4 .b8 table[32768];
.extern .shared .align 4 .b8 dyn[];
.func count_call()
{
  .shared .align 4 .u32 calls;
  .reg .b32 %r<2>;
  atom.shared.add.u32 %r1, [calls], 1;
  ret;
}
.visible .entry table_user(.param .u64 out)
{
  .reg .b32 %r<2>;
  .reg .b64 %rd<3>;
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd2, %rd1;
  st.shared.u32 [table+32764], 5;
  ld.shared.u32 %r1, [table+32764];
  st.global.u32 [%rd2], %r1;
  ret;
}
.visible .entry own_tile(.param .u64 out)
{
  .shared .align 4 .b8 tile[16384];
  .reg .b32 %r<2>;
  .reg .b64 %rd<3>;
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd2, %rd1;
  st.shared.u32 [tile], 6;
  ld.shared.u32 %r1, [tile];
  st.global.u32 [%rd2], %r1;
  ret;
}
.visible .entry counted()
{
  call.uni count_call, ();
  ret;
}
.visible .entry dynamic_only(.param .u64 out, .param .u32 last)
{
  .reg .b32 %r<3>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  ld.param.u32 %r2, [last];
  cvta.to.global.u64 %rd2, %rd1;
  mov.u32 %r1, dyn;
  add.u32 %r1, %r1, %r2;
  st.shared.u32 [%r1], 9;
  ld.shared.u32 %r2, [%r1];
  st.global.u32 [%rd2], %r2;
  ret;
}
)";

std::string shared_launch_error(GpuDevice& dev, platform::ModuleHandle m, const std::string& kernel,
                                uint32_t dynamic_bytes, const KernelArgs& args) {
  try {
    dev.launch(m, kernel, {1, 1, 1}, {32, 1, 1}, dynamic_bytes, args);
  } catch (const LaunchError& e) {
    return e.what();
  }
  return "launched";
}

TEST(DeviceSharedMemory, EachKernelIsChargedOnlyTheStaticSharedMemoryItUses) {
  GpuDevice dev;
  const auto m = dev.load_module(kSharedPerKernel, "shared_per_kernel.ptx");
  const uint64_t out = dev.allocate(4);
  // The module's layout spans 48 KB + 4, but dynamic_only uses none of it:
  // it may have the whole 48 KB as dynamic shared memory, to its last word.
  dev.launch(m, "dynamic_only", {1, 1, 1}, {32, 1, 1}, 48 * 1024,
             KernelArgs().ptr(out).add<uint32_t>(48 * 1024 - 4));
  EXPECT_EQ(dev.download<uint32_t>(out, 1)[0], 9u);
  EXPECT_EQ(shared_launch_error(dev, m, "dynamic_only", 48 * 1024 + 4, KernelArgs().ptr(out).add<uint32_t>(0)),
            "launch of 'dynamic_only': 49156 bytes of shared memory (0 static + 49156 dynamic) exceed the 49152 per CTA");
  dev.launch(m, "table_user", {1, 1, 1}, {32, 1, 1}, 16 * 1024, KernelArgs().ptr(out));
  EXPECT_EQ(dev.download<uint32_t>(out, 1)[0], 5u);
  EXPECT_NE(shared_launch_error(dev, m, "table_user", 16 * 1024 + 4, KernelArgs().ptr(out)).find("(32768 static + 16388 dynamic)"),
            std::string::npos);
  dev.launch(m, "own_tile", {1, 1, 1}, {32, 1, 1}, 32 * 1024, KernelArgs().ptr(out));
  EXPECT_EQ(dev.download<uint32_t>(out, 1)[0], 6u);
  EXPECT_NE(shared_launch_error(dev, m, "own_tile", 32 * 1024 + 4, KernelArgs().ptr(out)).find("(16384 static + 32772 dynamic)"),
            std::string::npos);
  // A device function's shared variable is charged to the kernels calling it.
  EXPECT_NE(shared_launch_error(dev, m, "counted", 48 * 1024, KernelArgs()).find("(4 static + 49152 dynamic)"),
            std::string::npos);
}

TEST(DeviceSharedMemory, OccupancyCountsOnlyTheKernelsOwnSharedMemory) {
  platform::DeviceOptions o;
  o.mode = platform::SimulationMode::Timing;
  GpuDevice dev(o);
  const auto m = dev.load_module(kSharedPerKernel, "shared_per_kernel.ptx");
  const uint64_t out = dev.allocate(4);
  dev.launch(m, "dynamic_only", {1, 1, 1}, {32, 1, 1}, 0, KernelArgs().ptr(out).add<uint32_t>(0));
  dev.launch(m, "own_tile", {1, 1, 1}, {32, 1, 1}, 0, KernelArgs().ptr(out));
  const auto& launches = platform::timing_launches();
  ASSERT_GE(launches.size(), 2u);
  const platform::Occupancy& dynamic_only = launches[launches.size() - 2].occupancy;
  EXPECT_EQ(dynamic_only.shared_per_cta, 0u);
  EXPECT_NE(dynamic_only.limited_by, "shared_memory");
  const platform::Occupancy& own_tile = launches.back().occupancy;
  EXPECT_EQ(own_tile.shared_per_cta, 16384u);
}

// A launch that ends in a device fault counts as launched in every
// statistic: kernels_launched, its grid's CTAs, the instructions it executed,
// and (timing, LT) its cycles up to the fault in sim_cycles and in the
// per-launch records, marked faulted.
const char* kTrapsInCtaTwo = R"(
.version 7.0
.target sm_75
.address_size 64
.visible .entry trap_in_cta_two()
{
  .reg .pred %p<2>;
  .reg .b32 %r<2>;
  mov.u32 %r1, %ctaid.x;
  setp.eq.u32 %p1, %r1, 2;
  @%p1 trap;
  ret;
}
)";

class DeviceFaultedLaunch : public ::testing::TestWithParam<platform::SimulationMode> {};

TEST_P(DeviceFaultedLaunch, CountsAsLaunchedInEveryStatistic) {
  platform::DeviceOptions o;
  o.mode = GetParam();
  GpuDevice dev(o);
  const auto m = dev.load_module(kTrapsInCtaTwo, "trap.ptx");
  dev.launch(m, "trap_in_cta_two", {2, 1, 1}, {32, 1, 1}, 0, KernelArgs());
  const platform::DeviceStats completed = dev.stats();
  EXPECT_THROW(dev.launch(m, "trap_in_cta_two", {4, 1, 1}, {32, 1, 1}, 0, KernelArgs()), exec::DeviceFault);
  const platform::DeviceStats& s = dev.stats();
  EXPECT_EQ(s.kernels_launched, 2u);
  EXPECT_EQ(s.ctas, 6u);
  EXPECT_GT(s.warp_insts, completed.warp_insts);
  EXPECT_GT(s.thread_insts, completed.thread_insts);
  if (GetParam() == platform::SimulationMode::Timing) {
    const auto& launches = platform::timing_launches();
    ASSERT_GE(launches.size(), 2u);
    EXPECT_FALSE(launches[launches.size() - 2].faulted);
    EXPECT_TRUE(launches.back().faulted);
    EXPECT_GT(launches.back().cycles, 0u);
    EXPECT_EQ(s.sim_cycles, completed.sim_cycles + launches.back().cycles);
  } else if (GetParam() == platform::SimulationMode::Lt) {
    ASSERT_EQ(dev.lt_launches().size(), 2u);
    EXPECT_FALSE(dev.lt_launches()[0].faulted);
    EXPECT_TRUE(dev.lt_launches()[1].faulted);
    EXPECT_EQ(s.sim_cycles, completed.sim_cycles + dev.lt_launches()[1].estimate.cycles);
  }
}

INSTANTIATE_TEST_SUITE_P(Modes, DeviceFaultedLaunch,
                         ::testing::Values(platform::SimulationMode::Functional, platform::SimulationMode::Lt,
                                           platform::SimulationMode::Timing),
                         [](const auto& param_info) {
                           return std::string(param_info.param == platform::SimulationMode::Functional ? "Functional"
                                              : param_info.param == platform::SimulationMode::Lt     ? "Lt"
                                                                                               : "Timing");
                         });

}  // namespace tlmgpu
