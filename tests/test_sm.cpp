// The SM pipeline on the cycle-level GPU: CTA occupancy limits,
// register-bank conflicts in the operand collectors, warp sharing, memory
// instructions' lines, and what sleeping SMs see.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "platform/config_keys.h"
#include "platform/gpu_device.h"
#include "platform/timing_gpu.h"
#include "workloads/workload.h"

namespace tlmgpu {
namespace {

using platform::GpuDevice;
using platform::KernelArgs;

const char* kHeader = ".version 8.0\n.target sm_75\n.address_size 64\n";

platform::DeviceOptions timing_options() {
  platform::DeviceOptions o;
  o.mode = platform::SimulationMode::Timing;
  o.config = platform::preset_config("gtx480");
  return o;
}

// The largest number of CTAs of the last launch that were on one SM at once.
uint32_t max_resident_ctas_per_sm() {
  const auto& launch = platform::timing_launches().back();
  std::map<uint32_t, std::vector<std::pair<uint64_t, int>>> events;  // sm -> (cycle, +1/-1)
  for (const auto& c : launch.ctas) {
    events[c.sm].push_back({c.start, +1});
    events[c.sm].push_back({c.end, -1});
  }
  uint32_t best = 0;
  for (auto& [sm, ev] : events) {
    // A CTA that ends in a cycle frees its slot before one starting later in it.
    std::sort(ev.begin(), ev.end());
    int live = 0;
    for (const auto& e : ev) {
      live += e.second;
      best = std::max<uint32_t>(best, uint32_t(std::max(live, 0)));
    }
  }
  return best;
}

// Each thread spins a while so that CTAs overlap.
const char* kBusy = R"(
.visible .entry busy(.param .u64 out) {
  .reg .pred %p<2>; .reg .b32 %r<4>; .reg .b64 %rd<4>;
  .extern .shared .align 4 .b8 dyn[];
  mov.u32 %r1, 0;
LOOP:
  add.u32 %r1, %r1, 1;
  setp.lt.u32 %p1, %r1, 200;
  @%p1 bra LOOP;
  ld.param.u64 %rd1, [out];
  mov.u32 %r2, %tid.x;
  mul.wide.u32 %rd2, %r2, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r1;
  ret;
}
)";

TEST(SmOccupancy, ThreadsRegistersAndSharedMemoryLimitResidentCtas) {
  platform::DeviceOptions options = timing_options();
  const uint32_t sms = options.config.num_sms;
  auto run = [&](uint32_t regs_per_thread, uint32_t shared_bytes) {
    options.regs_per_thread = regs_per_thread;
    GpuDevice dev(options);
    auto m = dev.load_module(std::string(kHeader) + kBusy, "busy.ptx");
    uint64_t out = dev.allocate(256 * 4, "out");
    dev.launch(m, "busy", {sms * 12, 1, 1}, {256, 1, 1}, shared_bytes, KernelArgs().ptr(out));
    return max_resident_ctas_per_sm();
  };
  // 1536 threads per SM / 256 = 6 CTAs (below the 8-CTA limit).
  EXPECT_EQ(run(8, 0), 6u);
  // 63 registers x 256 threads = 16128 of 32768: 2 CTAs.
  EXPECT_EQ(run(63, 0), 2u);
  // 20 KB of shared memory each, 48 KB per SM: 2 CTAs.
  EXPECT_EQ(run(8, 20 * 1024), 2u);
}

double stat_sum(const std::string& suffix) {
  double sum = 0;
  for (const auto& [k, v] : platform::timing_stats())
    if (k.size() >= suffix.size() && k.compare(k.size() - suffix.size(), suffix.size(), suffix) == 0) sum += v;
  return sum;
}

// 64 fma whose three sources are `a`, `b`, `c` (register names).
std::string fma_kernel(const std::string& name, const std::string& a, const std::string& b, const std::string& c) {
  std::string body = ".visible .entry " + name + "(.param .u64 out) {\n  .reg .f32 %f<40>; .reg .b64 %rd<2>;\n";
  for (int i = 1; i < 40; ++i) body += "  mov.f32 %f" + std::to_string(i) + ", 0f3F800000;\n";
  for (int i = 0; i < 64; ++i) body += "  fma.rn.f32 %f39, " + a + ", " + b + ", " + c + ";\n";
  body += "  ld.param.u64 %rd1, [out];\n  st.global.f32 [%rd1], %f39;\n  ret;\n}\n";
  return body;
}

// One warp, a chain of dependent adds, an eight-cycle decode: while an add
// waits for the one before it, the next is fetched behind it, and is still
// being decoded when the waiting add issues. The scheduler must look again
// once it is decoded: nothing else would wake it (no other warp, and the
// warp waits for no writeback), so a missed wake-up ends in a deadlock.
TEST(SmFetch, AHeadStillBeingDecodedIssuesOnceDecoded) {
  platform::DeviceOptions o = timing_options();
  // Short memory latencies: the test is about the SM's wake-ups, and the
  // kernel's cold instruction fetches and final store should not dominate.
  o.config = platform::resolve_config("gtx480", {}, {"sm.decode_latency=8", "sm.ibuffer_depth=2", "l2.rop_latency=0",
                                                     "dram.latency=0", "l1d.hit_latency=1"});
  GpuDevice dev(o);
  std::string k = std::string(kHeader) + ".visible .entry adds(.param .u64 out) {\n"
                  "  .reg .b32 %r<40>; .reg .b64 %rd<4>;\n  mov.u32 %r1, %tid.x;\n";
  for (int i = 2; i < 40; ++i) k += "  add.u32 %r" + std::to_string(i) + ", %r" + std::to_string(i - 1) + ", 1;\n";
  k += "  ld.param.u64 %rd1, [out];\n  mul.wide.u32 %rd2, %r1, 4;\n  add.s64 %rd3, %rd1, %rd2;\n"
       "  st.global.u32 [%rd3], %r39;\n  ret;\n}\n";
  auto m = dev.load_module(k, "adds.ptx");
  const uint64_t out = dev.allocate(4 * 32, "out");
  ASSERT_NO_THROW(dev.launch(m, "adds", {1, 1, 1}, {32, 1, 1}, 0, KernelArgs().ptr(out)));
  std::vector<uint32_t> got(32);
  dev.copy_from_device(got.data(), out, 4 * 32);
  for (uint32_t t = 0; t < 32; ++t) EXPECT_EQ(got[t], t + 38) << "thread " << t;
  // 44 instructions of about ten cycles each (decode, then a 4-cycle add to
  // wait for), plus the cold instruction fetches from DRAM: a wake-up that
  // came late, from some other event, would add many.
  EXPECT_LT(dev.stats().sim_cycles, 44u * 20u) << dev.stats().sim_cycles;
}

// A .func defined after the kernel that calls it: its code lies beyond the
// kernel's end, so fetch must follow the warp into it (the fetch bound
// depends on where the warp is).
TEST(SmFetch, FollowsACallIntoAFunctionDefinedAfterTheKernel) {
  GpuDevice dev(timing_options());
  auto m = dev.load_module(std::string(kHeader) + R"(
.func (.param .b32 ret0) triple(.param .b32 a);
.visible .entry k(.param .u64 out) {
  .reg .b32 %r<4>; .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  {
  .param .b32 param0;
  st.param.b32 [param0], %r1;
  .param .b32 retval0;
  call.uni (retval0), triple, (param0);
  ld.param.b32 %r2, [retval0];
  }
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r2;
  ret;
}
.func (.param .b32 ret0) triple(.param .b32 a)
{
  .reg .b32 %r<3>;
  ld.param.b32 %r1, [a];
  mul.lo.u32 %r2, %r1, 3;
  add.u32 %r2, %r2, 1;
  st.param.b32 [ret0], %r2;
  ret;
}
)",
                           "call_after.ptx");
  uint64_t out = dev.allocate(4 * 32, "out");
  dev.launch(m, "k", {1, 1, 1}, {32, 1, 1}, 0, KernelArgs().ptr(out));
  std::vector<uint32_t> got(32);
  dev.copy_from_device(got.data(), out, 4 * 32);
  for (uint32_t t = 0; t < 32; ++t) EXPECT_EQ(got[t], 3 * t + 1) << "thread " << t;
}

TEST(SmOperandCollector, SourcesInOneRegisterBankConflict) {
  platform::DeviceOptions options = timing_options();
  GpuDevice dev(options);
  const uint32_t banks = options.config.sm.register_banks * options.config.sm.num_schedulers;
  // Register slots follow declaration order, so %f1 and %f(1 + banks) share a bank.
  const std::string same = "%f" + std::to_string(1 + banks);
  const std::string same2 = "%f" + std::to_string(1 + 2 * banks > 38 ? 1 + banks : 1 + 2 * banks);
  auto m = dev.load_module(std::string(kHeader) + fma_kernel("spread", "%f1", "%f2", "%f3") +
                               fma_kernel("clash", "%f1", same, same2),
                           "banks.ptx");
  uint64_t out = dev.allocate(4, "out");
  const double before = stat_sum(".conflicts");
  dev.launch(m, "spread", {1, 1, 1}, {32, 1, 1}, 0, KernelArgs().ptr(out));
  const double spread = stat_sum(".conflicts") - before;
  const uint64_t spread_cycles = dev.stats().sim_cycles;
  dev.launch(m, "clash", {1, 1, 1}, {32, 1, 1}, 0, KernelArgs().ptr(out));
  const double clash = stat_sum(".conflicts") - before - spread;
  const uint64_t clash_cycles = dev.stats().sim_cycles - spread_cycles;
  // Every clashing fma waits at least one extra cycle for its bank.
  EXPECT_GE(clash, spread + 64) << "spread " << spread << " clash " << clash;
  EXPECT_GT(clash_cycles, spread_cycles) << spread_cycles << " vs " << clash_cycles;
}

}  // namespace
}  // namespace tlmgpu

namespace tlmgpu {
namespace {

// One warp per CTA issues independent shared-memory loads whose 32 lanes all
// hit one bank: each holds its scheduler's LD/ST unit for 32 cycles, and the
// next load waits in that scheduler's MEM collector.
std::string bank_conflict_kernel() {
  std::string k = std::string(kHeader) + R"(
.visible .entry conflicts(.param .u64 out) {
  .reg .b32 %r<24>; .reg .b64 %rd<4>;
  .shared .align 4 .b8 sbuf[4096];
  mov.u32 %r1, %tid.x;
  shl.b32 %r2, %r1, 7;
  mov.u32 %r3, sbuf;
  add.u32 %r4, %r3, %r2;
)";
  for (int i = 0; i < 8; ++i)
    k += "  ld.shared.u32 %r" + std::to_string(5 + i) + ", [%r4+" + std::to_string(4 * i) + "];\n";
  k += "  add.u32 %r13, %r5, %r6;\n  add.u32 %r14, %r7, %r8;\n  add.u32 %r15, %r9, %r10;\n"
       "  add.u32 %r16, %r11, %r12;\n  add.u32 %r17, %r13, %r14;\n  add.u32 %r18, %r15, %r16;\n"
       "  add.u32 %r19, %r17, %r18;\n"
       "  ld.param.u64 %rd1, [out];\n  cvta.to.global.u64 %rd2, %rd1;\n  mul.wide.u32 %rd3, %r1, 4;\n"
       "  add.u64 %rd2, %rd2, %rd3;\n  st.global.u32 [%rd2], %r19;\n  ret;\n}\n";
  return k;
}

struct SharingRun {
  uint64_t cycles = 0;
  std::map<std::string, double> shared;  // scheduler.unit -> shared issues
};

SharingRun run_bank_conflicts(const std::string& policy) {
  platform::DeviceOptions o;
  o.mode = platform::SimulationMode::Timing;
  o.config = platform::resolve_config("titanx_pascal", {}, {"gpu.scheduler=" + policy});
  GpuDevice dev(o);
  auto m = dev.load_module(bank_conflict_kernel(), "conflicts.ptx");
  uint64_t out = dev.allocate(4 * 32, "out");
  dev.launch(m, "conflicts", {1, 1, 1}, {32, 1, 1}, 0, KernelArgs().ptr(out));
  SharingRun r;
  r.cycles = dev.stats().sim_cycles;
  for (const auto& [k, v] : platform::timing_stats())
    if (k.find(".shared_issues_") != std::string::npos && v > 0) r.shared[k] = v;
  return r;
}

// Seed 002's warp sharing: the other three schedulers lend their free MEM
// collectors (and LD/ST units) to scheduler 0's only warp.
TEST(SmWarpSharing, IdleSchedulersIssueAnotherSchedulersStalledWarp) {
  const SharingRun on = run_bank_conflicts("kaws:base=gto,sharing=on");
  uint64_t mem = 0;
  for (const auto& [k, v] : on.shared) {
    EXPECT_NE(k.find(".shared_issues_mem"), std::string::npos) << k;
    EXPECT_EQ(k.find("sched0."), std::string::npos) << "scheduler 0 owns the warp: " << k;
    mem += uint64_t(v);
  }
  // Loads 2..8 can each go to a free collector of another scheduler, three at a time.
  EXPECT_GE(mem, 3u);
  EXPECT_LE(mem, 7u);
  // The cycle counts with and without sharing: Cli.KawsWarpSharingShortensABankConflictedWarp.
}

TEST(SmWarpSharing, SharingOffKeepsEachWarpOnItsScheduler) {
  const SharingRun off = run_bank_conflicts("kaws:base=gto,sharing=off");
  EXPECT_TRUE(off.shared.empty());
  EXPECT_GT(off.cycles, 8u * 32u) << off.cycles;
}

// Every warp of a CTA at the start of a code line the L1I is still filling
// from DRAM, its merge slots full: the refused fetches wait for that fill,
// which is in flight. That is waiting on memory, not a deadlock (found with
// the SDK's histogram256 over 16 CTAs on titanx_pascal under lrr: 4
// schedulers issue fetches fast enough to fill the 32 merge slots).
TEST(SmFetch, RefusedFetchesWaitingForAFillAreNotADeadlock) {
  platform::DeviceOptions o;
  o.mode = platform::SimulationMode::Timing;
  o.config = platform::resolve_config("titanx_pascal", {}, {"gpu.scheduler=lrr"});
  GpuDevice dev(o);
  auto m = dev.load_module(workloads::workload_ptx("histogram256"), "histogram256.ptx");
  const std::vector<uint32_t> words(16387, 0x01020304u);
  const uint64_t data = dev.upload(words, "data");
  const uint64_t partials = dev.allocate(16 * 256 * sizeof(uint32_t), "partials");
  EXPECT_NO_THROW(dev.launch(m, "histogram256Kernel", {16, 1, 1}, {192, 1, 1}, 0,
                             KernelArgs().ptr(partials).ptr(data).add<uint32_t>(uint32_t(words.size()))));
}

// One warp stores (or loads) one word per lane, 128 bytes apart: 32 lines,
// sent to the L1D one per cycle. With a single L1D MSHR they go one at a
// time: each waits, refused, until the one before it is answered.
std::string scattered_kernel(bool load) {
  std::string k = std::string(kHeader) + ".visible .entry scattered(.param .u64 buf) {\n"
                  "  .reg .b32 %r<4>; .reg .b64 %rd<5>;\n"
                  "  ld.param.u64 %rd1, [buf];\n  cvta.to.global.u64 %rd2, %rd1;\n"
                  "  mov.u32 %r1, %tid.x;\n  mul.wide.u32 %rd3, %r1, 128;\n  add.s64 %rd4, %rd2, %rd3;\n";
  k += load ? "  ld.global.u32 %r2, [%rd4];\n  add.u32 %r3, %r2, 1;\n" : "  st.global.u32 [%rd4], %r1;\n";
  return k + "  ret;\n}\n";
}

struct ScatteredRun {
  uint64_t cycles = 0;
  double reservation_fails = 0;
  core::GpuConfig config;
};

ScatteredRun run_scattered(bool load) {
  platform::DeviceOptions o;
  o.mode = platform::SimulationMode::Timing;
  o.config = platform::resolve_config("gtx480", {}, {"l1d.mshrs=1"});
  GpuDevice dev(o);
  auto m = dev.load_module(scattered_kernel(load), "scattered.ptx");
  // Copied in, so the lines are in the L2 (l2.fill_on_host_copy): every L1 miss is an L2 hit.
  const uint64_t buf = dev.upload(std::vector<uint32_t>(32 * 32, 0), "buf");
  dev.launch(m, "scattered", {1, 1, 1}, {32, 1, 1}, 0, KernelArgs().ptr(buf));
  return {dev.stats().sim_cycles, stat_sum(".l1d.reservation_fails"), o.config};
}

// The LD/ST unit retries a refused line in every cycle. The SM sleeps while
// its line waits for the MSHR, and counts the retries it skipped, so
// reservation_fails is the cycles the lines waited, whenever the SM ran.
TEST(SmMemory, ARefusedLineCountsEveryCycleItWaits) {
  const ScatteredRun r = run_scattered(true);
  const auto& c = r.config;
  // A line miss answered by the L2 (MemorySystem.EndToEndLatencyIsTheSumOfTheParts)
  // frees the MSHR 1 + crossbar + ROP + L2 hit + crossbar cycles after it is
  // accepted, plus the answer's flits after the first (a whole 128-byte
  // line: gtx480's L1 sector); the next line is refused from the cycle
  // after and accepted in the cycle the MSHR frees.
  const uint64_t extra_flits = (c.l1d.sector_bytes + c.icnt.bytes_per_cycle - 1) / c.icnt.bytes_per_cycle - 1;
  const uint64_t round_trip =
      1 + c.icnt.latency + c.l2_rop_latency + c.l2.hit_latency + c.icnt.latency + extra_flits;
  EXPECT_EQ(r.reservation_fails, 31.0 * double(round_trip - 1));
}

// Stores allocate nothing in the L1: a scattered store is never refused,
// even with one MSHR.
TEST(SmMemory, StoresNeedNoMshr) {
  const ScatteredRun r = run_scattered(false);
  EXPECT_EQ(r.reservation_fails, 0.0);
}

// A memory instruction completes with the last of its lines, not the first
// answer: with one MSHR, the 32 lines of a scattered load are served one
// after another, and the warp cannot finish before the last one.
TEST(SmMemory, AScatteredLoadCompletesWithItsLastLine) {
  const ScatteredRun r = run_scattered(true);
  const auto& c = r.config;
  const uint64_t l2_round_trip = 1 + 2 * c.icnt.latency + c.l2.hit_latency + c.l1d.hit_latency;
  EXPECT_GT(r.cycles, 32 * l2_round_trip) << r.cycles;
}

// Every thread follows a chain of uncached loads (the word points to
// itself), so the SMs spend most cycles asleep waiting for the L2. CTA 0
// follows one link and the others forty: when CTA 0 ends, the last CTA of
// the grid (one more than fit) is dispatched while the other SMs sleep.
const char* kPointerChase = R"(
.visible .entry chase(.param .u64 buf) {
  .reg .pred %p<2>; .reg .b32 %r<4>; .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [buf];
  mov.u32 %r1, %ctaid.x;
  setp.eq.u32 %p1, %r1, 0;
  mov.u32 %r2, 40;
  @%p1 mov.u32 %r2, 1;
LOOP:
  ld.volatile.global.u64 %rd1, [%rd1];
  sub.u32 %r2, %r2, 1;
  setp.ne.u32 %p1, %r2, 0;
  @%p1 bra LOOP;
  ret;
}
)";

// KAWS switches when the dispatcher's last_cta_dispatched rises (seed 002).
// The signal is registered: written in the cycle the last CTA starts, read
// through the schedulers' ports in the next. A sleeping SM must see it then,
// not at its next memory response: every scheduler switches in that cycle.
TEST(SmDispatcherSignals, SleepingSmsSeeTheLastCtaDispatchedTheCycleAfter) {
  platform::DeviceOptions o = timing_options();
  o.config = platform::resolve_config("gtx480", {}, {"gpu.scheduler=kaws"});
  GpuDevice dev(o);
  auto m = dev.load_module(std::string(kHeader) + kPointerChase, "chase.ptx");
  const uint64_t buf = dev.allocate(8, "buf");
  dev.copy_to_device(buf, &buf, 8);
  const uint32_t resident = o.config.num_sms * o.config.sm.max_ctas;
  dev.launch(m, "chase", {resident + 1, 1, 1}, {32, 1, 1}, 0, KernelArgs().ptr(buf));
  const auto stats = platform::timing_stats();
  const double last_start = stats.at("gpu.dispatcher.last_cta_start_cycle");
  EXPECT_GT(last_start, 0.0);
  int switched = 0;
  for (const auto& [k, v] : stats) {
    if (k.find(".kaws_switch_cycle") == std::string::npos) continue;
    EXPECT_EQ(v, last_start + 1) << k;
    switched += v >= 0;
  }
  EXPECT_EQ(switched, int(2 * o.config.num_sms));
}

}  // namespace
}  // namespace tlmgpu
