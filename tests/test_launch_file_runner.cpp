// The launch-file runner on plans built by hand (no parser): the module
// checks, buffer storage that swap steps exchange, repeat groups, expected
// faults, dumps and the result's records.
#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <memory>
#include <string>
#include <utility>

#include "platform/gpu_device.h"
#include "platform/launch_file.h"
#include "platform/launch_file_runner.h"
#include "scratch_dir.h"

namespace {

namespace lf = tlmgpu::platform::launch_file;
using lf::Elem;
using tlmgpu::platform::GpuDevice;
using tlmgpu::platform::LaunchFileError;
using tlmgpu::platform::LaunchFileOptions;
using tlmgpu::platform::LaunchFileResult;
using tlmgpu::platform::LaunchFileRunError;

const std::string kLaunchDir = std::string(TLMGPU_SOURCE_DIR) + "/tests/launch";
constexpr uint64_t kN = 64;

lf::Source constant(Elem e, double v) {
  lf::Source s;
  s.kind = lf::Source::Kind::Constant;
  s.constant = e == Elem::F32 ? lf::from_double(e, v) : uint64_t(v);
  return s;
}

void add_buffer(lf::LaunchPlan& p, const std::string& name, Elem e, uint64_t count, lf::Source init) {
  lf::BufferSpec b;
  b.name = name;
  b.type = e;
  b.elem_bytes = lf::info(e).bytes;
  b.count = count;
  b.init.source = std::move(init);
  b.path = "buffers[" + std::to_string(p.buffers.size()) + "]";
  p.buffer_index[name] = p.buffers.size();
  p.buffers.push_back(std::move(b));
}

lf::ArgSpec buffer_arg(size_t b) {
  lf::ArgSpec a;
  a.kind = lf::ArgSpec::Kind::Buffer;
  a.buffer = b;
  return a;
}

lf::ArgSpec scalar_arg(Elem e, uint64_t bits) {
  lf::ArgSpec a;
  a.kind = lf::ArgSpec::Kind::Scalar;
  a.type = e;
  a.bits = bits;
  return a;
}

// saxpy(y, x, a, n): y = a * x + y, one thread per element.
lf::Step saxpy(size_t y, size_t x, float a, const std::string& path) {
  lf::Step s;
  s.kind = lf::Step::Kind::Launch;
  s.path = path;
  s.launch.kernel = "saxpy";
  s.launch.block.x = uint32_t(kN);
  s.launch.args = {buffer_arg(y), buffer_arg(x), scalar_arg(Elem::F32, lf::from_double(Elem::F32, a)),
                   scalar_arg(Elem::S32, kN)};
  s.launch.path = path;
  return s;
}

lf::ExpectSpec expect_constant(size_t buffer, Elem e, double v, const std::string& path) {
  lf::ExpectSpec x;
  x.buffer = buffer;
  x.count = kN;
  x.type = e;
  x.want = constant(e, v);
  x.path = path;
  return x;
}

// x = 2, y = 1 and z = 10 (f32); no steps yet.
lf::LaunchPlan base_plan() {
  lf::LaunchPlan p;
  p.display_name = "hand.json";
  p.base_dir = kLaunchDir;
  p.ptx_path = kLaunchDir + "/kernels.ptx";
  add_buffer(p, "x", Elem::F32, kN, constant(Elem::F32, 2));
  add_buffer(p, "y", Elem::F32, kN, constant(Elem::F32, 1));
  add_buffer(p, "z", Elem::F32, kN, constant(Elem::F32, 10));
  p.root.path = "repeat";
  return p;
}

TEST(LaunchFileRunner, RunsAHandBuiltPlanAndRecordsItsKernels) {
  lf::LaunchPlan p = base_plan();
  p.root.steps.push_back(saxpy(1, 0, 3, "launches[0]"));
  p.root.steps.push_back(saxpy(1, 0, 1, "launches[1]"));
  p.expects.push_back(expect_constant(1, Elem::F32, 9, "expect[0]"));  // 1 + 3*2 + 1*2
  GpuDevice device;
  const LaunchFileResult r = lf::run_launch_plan(p, device, {});
  EXPECT_TRUE(r.verified) << r.detail;
  EXPECT_EQ(r.detail, "1 expectation holds (64 elements)");
  EXPECT_EQ(r.kernel_launches, 2u);
  ASSERT_EQ(r.kernels.size(), 1u);
  EXPECT_EQ(r.kernels[0].kernel, "saxpy");
  EXPECT_EQ(r.kernels[0].launches, 2u);
  EXPECT_GT(r.kernels[0].warp_insts, 0u);
  EXPECT_EQ(r.kernels[0].thread_insts, device.stats().thread_insts);
}

TEST(LaunchFileRunner, SwapExchangesStorageForLaterSteps) {
  lf::LaunchPlan p = base_plan();
  lf::Step swap;
  swap.kind = lf::Step::Kind::Swap;
  swap.swap[0] = 1;
  swap.swap[1] = 2;
  p.root.steps.push_back(std::move(swap));
  // "y" now names z's storage: 10 + 2 = 12 there, and "z" still reads 1.
  p.root.steps.push_back(saxpy(1, 0, 1, "launches[1]"));
  p.expects.push_back(expect_constant(1, Elem::F32, 12, "expect[0]"));
  p.expects.push_back(expect_constant(2, Elem::F32, 1, "expect[1]"));
  GpuDevice device;
  const LaunchFileResult r = lf::run_launch_plan(p, device, {});
  EXPECT_TRUE(r.verified) << r.detail;
}

TEST(LaunchFileRunner, FailedExpectationNamesTheFirstDifference) {
  lf::LaunchPlan p = base_plan();
  p.root.steps.push_back(saxpy(1, 0, 3, "launches[0]"));
  p.expects.push_back(expect_constant(1, Elem::F32, 7, "expect[0]"));
  p.expects.push_back(expect_constant(0, Elem::F32, 5, "expect[1]"));
  GpuDevice device;
  const LaunchFileResult r = lf::run_launch_plan(p, device, {});
  EXPECT_FALSE(r.verified);
  EXPECT_EQ(r.expectations, 2u);
  EXPECT_EQ(r.detail, "expect[1]: x[0] = 2, expected 5; 64 of 64 elements differ");
}

TEST(LaunchFileRunner, FixedRepeatGroupsCountIterationsAndDumpsAreWritten) {
  ScratchDir scratch("tlmgpu_runner");
  lf::LaunchPlan p = base_plan();
  auto g = std::make_unique<lf::Group>();
  g->path = "launches[0]";
  g->repeat.emplace();
  g->repeat->times = 3;
  g->repeat->path = "launches[0].repeat";
  g->steps.push_back(saxpy(1, 0, 1, "launches[0].launches[0]"));
  lf::Step group;
  group.kind = lf::Step::Kind::Group;
  group.group = std::move(g);
  p.root.steps.push_back(std::move(group));
  p.dumps.push_back(lf::DumpSpec{1, "out/y.txt", true, "dump[0]"});
  GpuDevice device;
  LaunchFileOptions options;
  options.output_dir = scratch.path().string();
  const LaunchFileResult r = lf::run_launch_plan(p, device, options);
  EXPECT_EQ(r.detail, "no expectations");
  ASSERT_EQ(r.repeats.size(), 1u);
  EXPECT_EQ(r.repeats[0].path, "launches[0]");
  EXPECT_EQ(r.repeats[0].iterations, 3u);
  EXPECT_EQ(r.kernels[0].launches, 3u);
  ASSERT_EQ(r.dumped.size(), 1u);
  EXPECT_EQ(r.dumped[0], (scratch.path() / "out/y.txt").string());
  std::ifstream in(r.dumped[0]);
  const std::string text((std::istreambuf_iterator<char>(in)), {});
  EXPECT_EQ(text.substr(0, 2), "7\n");  // 1 + 3 * 2
}

TEST(LaunchFileRunner, ModuleChecksNameTheStepThatFails) {
  lf::LaunchPlan p = base_plan();
  p.root.steps.push_back(saxpy(1, 0, 3, "launches[0]"));
  p.root.steps[0].launch.kernel = "nope";
  GpuDevice device;
  try {
    lf::run_launch_plan(p, device, {});
    FAIL() << "an unknown kernel ran";
  } catch (const LaunchFileError& e) {
    EXPECT_EQ(std::string(e.what()), "launch file hand.json: launches[0].kernel: no kernel 'nope' in " + p.ptx_path +
                                         " (kernels: saxpy, fill2d, countdown, use_symbols, store_oob, widen, sum_into_total, assert_positive)");
  }
  p.root.steps[0].launch.kernel = "saxpy";
  p.root.steps[0].launch.args.pop_back();
  try {
    lf::run_launch_plan(p, device, {});
    FAIL() << "a launch with too few arguments ran";
  } catch (const LaunchFileError& e) {
    EXPECT_EQ(std::string(e.what()), "launch file hand.json: launches[0].args: kernel 'saxpy' takes 4 arguments, got 3");
  }
}

TEST(LaunchFileRunner, AnExpectedFaultThatDoesNotHappenFailsTheRun) {
  lf::LaunchPlan p = base_plan();
  p.root.steps.push_back(saxpy(1, 0, 3, "launches[0]"));
  p.expect_fault = lf::FaultExpect{tlmgpu::exec::FaultKind::OutOfBounds, "", "expect_fault"};
  GpuDevice device;
  try {
    lf::run_launch_plan(p, device, {});
    FAIL() << "no LaunchFileRunError";
  } catch (const LaunchFileRunError& e) {
    EXPECT_EQ(std::string(e.what()), "launch file hand.json: expect_fault: expected a fault of kind out_of_bounds, "
                                     "but every launch completed without a fault");
  }
}

}  // namespace
