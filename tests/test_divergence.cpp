// SIMT divergence under both modes: reconvergence, loops, early exit, calls,
// barriers, and the spin lock that separates IPDOM from ITS.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "model/exec/kernel_context.h"
#include "platform/gpu_device.h"

namespace tlmgpu {
namespace {

using exec::DivergenceMode;
using platform::GpuDevice;
using platform::KernelArgs;

const char* kHeader = ".version 8.0\n.target sm_75\n.address_size 64\n";

std::string mode_name(const testing::TestParamInfo<DivergenceMode>& info) {
  return info.param == DivergenceMode::Ipdom ? "ipdom" : "its";
}

class Divergence : public testing::TestWithParam<DivergenceMode> {
 protected:
  platform::DeviceOptions options() const {
    platform::DeviceOptions o;
    o.divergence = GetParam();
    o.watchdog_instructions = 200000;
    return o;
  }
  // Runs `body` as kernel k(.param .u64 out) with n threads per CTA, one CTA;
  // returns out[0..n).
  std::vector<uint32_t> run(const std::string& body, uint32_t threads, uint32_t ctas = 1) {
    GpuDevice dev(options());
    auto m = dev.load_module(std::string(kHeader) + body, "div.ptx");
    uint64_t out = dev.allocate(uint64_t(threads) * ctas * 4, "out");
    dev.launch(m, "k", {ctas, 1, 1}, {threads, 1, 1}, 0, KernelArgs().ptr(out));
    warp_insts_ = dev.stats().warp_insts;
    thread_insts_ = dev.stats().thread_insts;
    return dev.download<uint32_t>(out, size_t(threads) * ctas);
  }
  uint64_t warp_insts_ = 0;
  uint64_t thread_insts_ = 0;
};

// out[tid] = tid < 16 ? (tid odd ? 1 : 2) : 3, then + 10 after reconvergence.
const char* kNestedIf = R"(
.visible .entry k(.param .u64 out) {
  .reg .pred %p<3>; .reg .b32 %r<6>; .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  setp.ge.u32 %p1, %r1, 16;
  @%p1 bra ELSE;
  and.b32 %r2, %r1, 1;
  setp.eq.u32 %p2, %r2, 1;
  @!%p2 bra EVEN;
  mov.u32 %r3, 1;
  bra.uni JOIN_INNER;
EVEN:
  mov.u32 %r3, 2;
JOIN_INNER:
  bra.uni JOIN;
ELSE:
  mov.u32 %r3, 3;
JOIN:
  add.u32 %r4, %r3, 10;
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r4;
  ret;
}
)";

TEST_P(Divergence, NestedIfElseReconverges) {
  auto out = run(kNestedIf, 32);
  for (uint32_t t = 0; t < 32; ++t) {
    uint32_t want = (t < 16 ? (t % 2 ? 1 : 2) : 3) + 10;
    EXPECT_EQ(out[t], want) << "thread " << t;
  }
  // The tail (add, mul, add, st, ret) runs once for the whole warp when the
  // paths reconverge at JOIN: 5 + 2 + 1 (setp/bra) ... count the minimum.
  // Without reconvergence the tail would run three times (3 groups).
  EXPECT_LE(warp_insts_, 22u);
}

// for (i = 0; i < 10; ++i) { if (i == tid % 7) continue; if (i > tid % 5 + 4) break; acc += i; }
const char* kLoopBreakContinue = R"(
.visible .entry k(.param .u64 out) {
  .reg .pred %p<4>; .reg .b32 %r<10>; .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  rem.u32 %r2, %r1, 7;
  rem.u32 %r3, %r1, 5;
  add.u32 %r3, %r3, 4;
  mov.u32 %r4, 0;
  mov.u32 %r5, 0;
LOOP:
  setp.eq.u32 %p1, %r4, %r2;
  @%p1 bra NEXT;
  setp.gt.u32 %p2, %r4, %r3;
  @%p2 bra DONE;
  add.u32 %r5, %r5, %r4;
NEXT:
  add.u32 %r4, %r4, 1;
  setp.lt.u32 %p3, %r4, 10;
  @%p3 bra LOOP;
DONE:
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r5;
  ret;
}
)";

TEST_P(Divergence, LoopWithBreakAndContinue) {
  auto out = run(kLoopBreakContinue, 64);
  for (uint32_t t = 0; t < 64; ++t) {
    uint32_t acc = 0;
    for (uint32_t i = 0; i < 10; ++i) {
      if (i == t % 7) continue;
      if (i > t % 5 + 4) break;
      acc += i;
    }
    EXPECT_EQ(out[t], acc) << "thread " << t;
  }
}

// Odd threads return early; the rest write after a loop whose trip count is tid.
const char* kEarlyReturn = R"(
.visible .entry k(.param .u64 out) {
  .reg .pred %p<3>; .reg .b32 %r<6>; .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  and.b32 %r2, %r1, 1;
  setp.eq.u32 %p1, %r2, 1;
  @%p1 bra ODD;
  mov.u32 %r3, 0;
  mov.u32 %r4, 0;
  setp.eq.u32 %p2, %r1, 0;
  @%p2 bra WRITE;
L:
  add.u32 %r4, %r4, 3;
  add.u32 %r3, %r3, 1;
  setp.lt.u32 %p2, %r3, %r1;
  @%p2 bra L;
WRITE:
  st.global.u32 [%rd3], %r4;
  ret;
ODD:
  mov.u32 %r5, 7;
  st.global.u32 [%rd3], %r5;
  ret;
}
)";

TEST_P(Divergence, EarlyReturnAndDataDependentLoop) {
  auto out = run(kEarlyReturn, 40);
  for (uint32_t t = 0; t < 40; ++t) EXPECT_EQ(out[t], t % 2 ? 7u : 3 * t) << "thread " << t;
}

// A non-inlined .func called from divergent code: params in, result out.
const char* kCall = R"(
.func (.param .b32 ret0) twice_plus(.param .b32 a, .param .b32 b)
{
  .reg .b32 %r<4>;
  ld.param.b32 %r1, [a];
  ld.param.b32 %r2, [b];
  shl.b32 %r3, %r1, 1;
  add.s32 %r3, %r3, %r2;
  st.param.b32 [ret0], %r3;
  ret;
}
.visible .entry k(.param .u64 out) {
  .reg .pred %p<2>; .reg .b32 %r<5>; .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  mov.u32 %r4, 1000;
  setp.lt.u32 %p1, %r1, 8;
  @%p1 bra SKIP;
  {
  .param .b32 param0;
  st.param.b32 [param0], %r1;
  .param .b32 param1;
  st.param.b32 [param1], 5;
  .param .b32 retval0;
  call.uni (retval0), twice_plus, (param0, param1);
  ld.param.b32 %r4, [retval0];
  }
SKIP:
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r4;
  ret;
}
)";

TEST_P(Divergence, CallFromDivergentCode) {
  auto out = run(kCall, 32);
  for (uint32_t t = 0; t < 32; ++t) EXPECT_EQ(out[t], t < 8 ? 1000u : 2 * t + 5) << "thread " << t;
}

// Shared-memory tree reduction over 128 threads with a barrier per level,
// some threads idle at each level (barriers inside divergent loops are not
// allowed, so the barrier sits after the if).
const char* kReduction = R"(
.visible .entry k(.param .u64 out) {
  .reg .pred %p<3>; .reg .b32 %r<12>; .reg .b64 %rd<4>;
  .shared .align 4 .b8 buf[512];
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  shl.b32 %r2, %r1, 2;
  mov.u32 %r3, buf;
  add.u32 %r4, %r3, %r2;
  add.u32 %r5, %r1, 1;
  st.shared.u32 [%r4], %r5;
  bar.sync 0;
  mov.u32 %r6, 64;
LEVEL:
  setp.ge.u32 %p1, %r1, %r6;
  @%p1 bra SKIP;
  shl.b32 %r7, %r6, 2;
  add.u32 %r8, %r4, %r7;
  ld.shared.u32 %r9, [%r8];
  ld.shared.u32 %r10, [%r4];
  add.u32 %r10, %r10, %r9;
  st.shared.u32 [%r4], %r10;
SKIP:
  bar.sync 0;
  shr.u32 %r6, %r6, 1;
  setp.ne.u32 %p2, %r6, 0;
  @%p2 bra LEVEL;
  ld.shared.u32 %r11, [buf];
  mov.u32 %r2, %ctaid.x;
  mad.lo.u32 %r1, %r2, 128, %r1;
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r11;
  ret;
}
)";

TEST_P(Divergence, BarrierTreeReduction) {
  auto out = run(kReduction, 128, 3);
  for (uint32_t t = 0; t < 3 * 128; ++t) EXPECT_EQ(out[t], 128u * 129u / 2) << "thread " << t;
}

// Threads of one warp take a lock in a tight `atom.cas; setp; @p bra` self-loop
// and increment a counter non-atomically inside it.
const char* kSpinSelfLoop = R"(
.visible .entry spin(.param .u64 lock, .param .u64 counter) {
  .reg .pred %p<2>; .reg .b32 %r<6>; .reg .b64 %rd<3>;
  ld.param.u64 %rd1, [lock];
  ld.param.u64 %rd2, [counter];
  mov.u32 %r4, 0;
  mov.u32 %r5, 1;
SPIN:
  atom.global.cas.b32 %r1, [%rd1], %r4, %r5;
  setp.ne.s32 %p1, %r1, 0;
  @%p1 bra SPIN;
  ld.global.u32 %r2, [%rd2];
  add.s32 %r2, %r2, 1;
  st.global.u32 [%rd2], %r2;
  membar.gl;
  atom.global.exch.b32 %r3, [%rd1], 0;
  ret;
}
)";

TEST_P(Divergence, SpinLockWithContentionInsideAWarp) {
  GpuDevice dev(options());
  auto m = dev.load_module(std::string(kHeader) + kSpinSelfLoop, "spin.ptx");
  uint64_t lock = dev.allocate(4, "lock");
  uint64_t counter = dev.allocate(4, "counter");
  auto launch = [&] { dev.launch(m, "spin", {2, 1, 1}, {64, 1, 1}, 0, KernelArgs().ptr(lock).ptr(counter)); };
  if (GetParam() == DivergenceMode::Its) {
    launch();
    EXPECT_EQ(dev.download<uint32_t>(counter, 1)[0], 128u);
  } else {
    try {
      launch();
      FAIL() << "expected the watchdog to end a livelocked spin lock under ipdom";
    } catch (const exec::DeviceFault& f) {
      EXPECT_EQ(f.kind(), exec::FaultKind::NoForwardProgress);
      const std::string what = f.what();
      EXPECT_NE(what.find("no forward progress"), std::string::npos) << what;
      EXPECT_NE(what.find("kernel spin"), std::string::npos) << what;
      // Every stuck warp's PC: the spinners sit in the atom.cas loop.
      EXPECT_NE(what.find("warp 0: PC 0x"), std::string::npos) << what;
      const bool in_loop = what.find("atom.global.cas.b32") != std::string::npos ||
                           what.find("setp.ne.s32") != std::string::npos ||
                           what.find("bra SPIN") != std::string::npos;
      EXPECT_TRUE(in_loop) << what;
    }
  }
}

// __syncwarp as nvcc emits it (bar.warp.sync with a member mask), with the
// whole warp and inside a branch: a warp-level sync in both modes, never a
// CTA barrier whose id would be the mask. out[tid] = the value the lane
// `tid ^ 1` wrote to shared memory before the sync, + 100 in the branch.
const char* kSyncWarp = R"(
.visible .entry k(.param .u64 out) {
  .shared .align 4 .b8 buf[256];
  .reg .pred %p<2>; .reg .b32 %r<10>; .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, buf;
  shl.b32 %r3, %r1, 2;
  add.u32 %r4, %r2, %r3;
  mul.lo.u32 %r5, %r1, 7;
  st.shared.u32 [%r4], %r5;
  bar.warp.sync -1;
  xor.b32 %r6, %r1, 1;
  shl.b32 %r6, %r6, 2;
  add.u32 %r6, %r2, %r6;
  ld.shared.u32 %r7, [%r6];
  and.b32 %r8, %r1, 31;
  setp.lt.u32 %p1, %r8, 16;
  @!%p1 bra STORE;
  add.u32 %r7, %r7, 100;
  bar.warp.sync 65535;
STORE:
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r7;
  ret;
}
)";

TEST_P(Divergence, SyncWarpIsAWarpLevelSync) {
  const auto out = run(kSyncWarp, 64);
  for (uint32_t t = 0; t < 64; ++t) EXPECT_EQ(out[t], (t ^ 1) * 7 + ((t & 31) < 16 ? 100 : 0)) << t;
}

// A launch that ends in a fault still counts what it executed: ten loop
// iterations, then a store far outside any allocation.
const char* kFaultAfterLoop = R"(
.visible .entry k(.param .u64 out) {
  .reg .pred %p<2>; .reg .b32 %r<4>; .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, 0;
LOOP:
  add.u32 %r1, %r1, 1;
  setp.lt.u32 %p1, %r1, 10;
  @%p1 bra LOOP;
  add.s64 %rd2, %rd1, 1099511627776;
  st.global.u32 [%rd2], %r1;
  ret;
}
)";

TEST_P(Divergence, AFaultedLaunchCountsWhatRan) {
  GpuDevice dev(options());
  auto m = dev.load_module(std::string(kHeader) + kFaultAfterLoop, "fault.ptx");
  const uint64_t out = dev.allocate(4, "out");
  EXPECT_THROW(dev.launch(m, "k", {2, 1, 1}, {64, 1, 1}, 0, KernelArgs().ptr(out)), exec::DeviceFault);
  // At least the faulting warp's loop ran: 1 + 3 x 10 instructions, and more.
  EXPECT_GE(dev.stats().warp_insts, 31u);
  EXPECT_GE(dev.stats().thread_insts, 31u * 32);
}

TEST(FaultStatistics, TimingAndLtLaunchesCountWhatRan) {
  for (const auto mode : {platform::SimulationMode::Timing, platform::SimulationMode::Lt}) {
    platform::DeviceOptions o;
    o.mode = mode;
    GpuDevice dev(o);
    auto m = dev.load_module(std::string(kHeader) + kFaultAfterLoop, "fault.ptx");
    const uint64_t out = dev.allocate(4, "out");
    EXPECT_THROW(dev.launch(m, "k", {2, 1, 1}, {64, 1, 1}, 0, KernelArgs().ptr(out)), exec::DeviceFault);
    EXPECT_GE(dev.stats().warp_insts, 31u) << int(mode);
  }
}

INSTANTIATE_TEST_SUITE_P(Modes, Divergence, testing::Values(DivergenceMode::Ipdom, DivergenceMode::Its), mode_name);

TEST(DivergenceIts, DivergentLoopsReconverge) {
  // Under ITS the groups of a data-dependent loop meet again after it: the
  // number of warp instructions stays close to the IPDOM count.
  auto count = [](DivergenceMode mode) {
    platform::DeviceOptions o;
    o.divergence = mode;
    GpuDevice dev(o);
    auto m = dev.load_module(std::string(kHeader) + kLoopBreakContinue, "div.ptx");
    uint64_t out = dev.allocate(64 * 4, "out");
    dev.launch(m, "k", {1, 1, 1}, {64, 1, 1}, 0, KernelArgs().ptr(out));
    return dev.stats().warp_insts;
  };
  const uint64_t ipdom = count(DivergenceMode::Ipdom);
  const uint64_t its = count(DivergenceMode::Its);
  EXPECT_LE(its, ipdom * 3 / 2) << "ipdom " << ipdom << " its " << its;
}

}  // namespace
}  // namespace tlmgpu
