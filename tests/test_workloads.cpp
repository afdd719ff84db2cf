// Every registered workload, at its small size, verified against its CPU
// reference under each divergence mode it supports.
#include <gtest/gtest.h>

#include <ostream>
#include <string>
#include <vector>

#include "platform/config_keys.h"
#include "workloads/workload.h"

namespace tlmgpu {
namespace {

struct Case {
  std::string workload;
  exec::DivergenceMode mode;
};

std::vector<Case> cases() {
  std::vector<Case> out;
  for (const workloads::WorkloadInfo* w : workloads::all_workloads()) {
    out.push_back({w->name, exec::DivergenceMode::Its});
    if (w->ipdom_safe) out.push_back({w->name, exec::DivergenceMode::Ipdom});
  }
  return out;
}

void PrintTo(const Case& c, std::ostream* os) {
  *os << c.workload << (c.mode == exec::DivergenceMode::Its ? " (its)" : " (ipdom)");
}

class WorkloadSmall : public testing::TestWithParam<Case> {};

TEST_P(WorkloadSmall, VerifiesAgainstCpuReference) {
  const Case& c = GetParam();
  const workloads::WorkloadInfo* info = workloads::find_workload(c.workload);
  ASSERT_NE(info, nullptr);
  platform::DeviceOptions options;
  options.divergence = c.mode;
  platform::GpuDevice device(options);
  auto workload = info->make();
  const workloads::WorkloadResult r = workload->run(device, workloads::Size::Small, 1);
  EXPECT_TRUE(r.verified) << r.detail;
  EXPECT_GT(device.stats().warp_insts, 0u);
}

INSTANTIATE_TEST_SUITE_P(All, WorkloadSmall, testing::ValuesIn(cases()),
                         [](const testing::TestParamInfo<Case>& i) {
                           return i.param.workload + (i.param.mode == exec::DivergenceMode::Its ? "_its" : "_ipdom");
                         });

// The cycle-level GPU (gtx480 preset) under the two classic policies, and
// once on titanx_pascal: the functional results must not change with timing.
// (vortex_1sm runs every workload in tests/test_swas.cpp.)
// A workload that can run under IPDOM does so by default; it also runs once
// under independent thread scheduling, where a warp released from a barrier
// resumes at the PC its lanes parked at.
struct TimingCase {
  std::string workload;
  std::string scheduler;
  bool force_its = false;
  std::string preset = "gtx480";
};

void PrintTo(const TimingCase& c, std::ostream* os) {
  *os << c.workload << " (" << c.preset << ", " << c.scheduler << (c.force_its ? ", its" : "") << ")";
}

std::vector<TimingCase> timing_cases() {
  std::vector<TimingCase> out;
  for (const workloads::WorkloadInfo* w : workloads::all_workloads()) {
    for (const char* s : {"lrr", "gto"}) out.push_back({w->name, s});
    if (w->ipdom_safe) out.push_back({w->name, "gto", true});
    out.push_back({w->name, "lrr", false, "titanx_pascal"});
  }
  return out;
}

class WorkloadTiming : public testing::TestWithParam<TimingCase> {};

TEST_P(WorkloadTiming, VerifiesOnTheCycleLevelGpu) {
  const TimingCase& c = GetParam();
  const workloads::WorkloadInfo* info = workloads::find_workload(c.workload);
  ASSERT_NE(info, nullptr);
  platform::DeviceOptions options;
  options.mode = platform::SimulationMode::Timing;
  options.config = platform::preset_config(c.preset);
  options.config.scheduler = c.scheduler;
  options.divergence =
      info->ipdom_safe && !c.force_its ? exec::DivergenceMode::Ipdom : exec::DivergenceMode::Its;
  platform::GpuDevice device(options);
  const workloads::WorkloadResult r = info->make()->run(device, workloads::Size::Small, 1);
  EXPECT_TRUE(r.verified) << r.detail;
  EXPECT_GT(device.stats().sim_cycles, 0u);
  // A warp issues at most one instruction per cycle per scheduler.
  EXPECT_LE(device.stats().warp_insts,
            device.stats().sim_cycles * options.config.num_sms * options.config.sm.num_schedulers);
}

INSTANTIATE_TEST_SUITE_P(All, WorkloadTiming, testing::ValuesIn(timing_cases()),
                         [](const testing::TestParamInfo<TimingCase>& i) {
                           return i.param.workload + "_" + i.param.scheduler + (i.param.force_its ? "_its" : "") +
                                  (i.param.preset == "gtx480" ? "" : "_" + i.param.preset);
                         });

// The issues' workloads, then our own kernels with the character of the
// papers' benchmarks (Polybench 3DCONV / 3MM, Rodinia streamcluster /
// backprop / b+tree / kmeans, a 3-D stencil; tools/paper_comparison's
// workload lists) and the latency microbenchmark.
TEST(Workloads, RegistryHasTheIssuesWorkloads) {
  for (const char* name : {"vector_add", "global_increment", "hashtable", "transactions", "scalar_prod",
                           "histogram", "hotspot", "pathfinder", "bfs", "sgemm", "blackscholes",
                           "imbalanced_blocks", "long_short_mix", "conv3d", "matmul_chain", "streamcluster",
                           "backprop", "btree_search", "kmeans", "stencil3d", "latency_chase"}) {
    EXPECT_NE(workloads::find_workload(name), nullptr) << name;
  }
}

TEST(Workloads, SameSeedGivesSameInstructionCounts) {
  auto run = [](uint64_t seed) {
    platform::DeviceOptions options;
    options.divergence = exec::DivergenceMode::Its;
    platform::GpuDevice device(options);
    auto w = workloads::find_workload("hashtable")->make();
    EXPECT_TRUE(w->run(device, workloads::Size::Small, seed).verified);
    return device.stats().thread_insts;
  };
  EXPECT_EQ(run(7), run(7));
}

}  // namespace
}  // namespace tlmgpu
