#include "platform/timing_gpu.h"

#include <algorithm>
#include <memory>
#include <stdexcept>
#include <string>

#include "model/sm/instruction_timing.h"
#include "model/sm/trace_instruction_source.h"
#include "platform/gpu_device.h"
#include "platform/gpu_top.h"
#include "platform/timeline_recorder.h"
#include "schedulers/warp_scheduler.h"

namespace tlmgpu::platform {

namespace {
struct TimingGpu {
  std::string config_text;
  std::unique_ptr<sc_core::sc_clock> clock;
  std::unique_ptr<GpuTop> top;
  // After the GPU: destroyed first, it detaches from a GPU still alive.
  std::unique_ptr<TimelineRecorder> timeline;
  uint64_t last_device = 0;
};
TimingGpu& instance() {
  static TimingGpu gpu;
  return gpu;
}

GpuTop& timing_gpu(const core::GpuConfig& config, const std::string& vcd_path) {
  TimingGpu& g = instance();
  const std::string text = dump_config(config);
  if (g.top) {
    if (text != g.config_text)
      throw LaunchError("this process already elaborated a GPU with another configuration (SystemC elaborates once)");
    return *g.top;
  }
  if (config.soc_memory == "soc")
    throw ConfigError("soc.memory = soc: L2 misses go to a SoC's memory, which only the GPU peripheral inside a "
                      "SoC has (docs/SOC.md); the stand-alone GPU uses soc.memory = internal");
  g.config_text = text;
  g.top = std::make_unique<GpuTop>("gpu", config);
  g.clock = std::make_unique<sc_core::sc_clock>("clk", g.top->period());
  g.top->clk(*g.clock);
  if (!vcd_path.empty()) g.top->enable_vcd(vcd_path);
  if (g.timeline) g.timeline->attach(*g.top);
  return *g.top;
}
}  // namespace

TimingLaunchStats run_timing_launch(const DeviceOptions& options, const exec::KernelContext& ctx,
                                    std::shared_ptr<void>& module_cache, uint64_t device_id,
                                    const std::vector<HostCopy>& host_copies, uint32_t launch_regs_per_thread) {
  GpuTop& top = timing_gpu(options.config, options.vcd_path);
  // A new device starts from the state of a freshly built GPU (nothing in
  // flight, empty L2, no scheduler history), so its results do not depend on
  // what ran before it in this process. So does a launch after a device
  // fault (the faulted launch's traffic must not reach it), as a GPU context
  // is recreated after one.
  TimingGpu& g = instance();
  if (g.last_device != device_id || top.last_launch_failed()) {
    top.begin_device();
    g.last_device = device_id;
  }
  for (const HostCopy& copy : host_copies) top.fill_l2_from_host_copy(copy.address, copy.bytes);
  const TimingLaunchSetup setup = prepare_timing_launch(options, ctx, module_cache, launch_regs_per_thread);
  return top.run(ctx, *setup.timing, setup.regs_per_thread, setup.regs_source,
                 {options.watchdog_instructions, options.starvation_cycles});
}

TimingLaunchSetup prepare_timing_launch(const DeviceOptions& options, const exec::KernelContext& ctx,
                                        std::shared_ptr<void>& module_cache, uint32_t launch_regs_per_thread) {
  if (!module_cache) {
    module_cache = std::make_shared<std::vector<sm::InstructionTiming>>(
        sm::analyse_module(*ctx.module, ctx.kernel->num_regs));
  }
  TimingLaunchSetup setup;
  setup.timing = static_cast<const std::vector<sm::InstructionTiming>*>(module_cache.get());
  // The PTX estimate of what ptxas allocates; past the architecture's
  // per-thread limit ptxas would spill instead.
  setup.regs_per_thread = std::clamp(ctx.kernel->regs_per_thread, 1u, options.config.sm.max_regs_per_thread);
  if (options.regs_per_thread) {
    setup.regs_per_thread = options.regs_per_thread;
    setup.regs_source = RegisterSource::Override;
  } else if (launch_regs_per_thread) {
    setup.regs_per_thread = launch_regs_per_thread;
    setup.regs_source = RegisterSource::Launch;
  }
  return setup;
}

TimingLaunchStats run_trace_launch(const DeviceOptions& options, const trace::WarpTrace& trace, uint32_t ctas) {
  GpuTop& top = timing_gpu(options.config, options.vcd_path);
  const sm::TraceKernelSource source(trace);
  // Trace instructions name few registers: the occupancy limit is threads and CTA slots.
  const uint32_t regs = options.regs_per_thread ? options.regs_per_thread : 1;
  return top.run("trace " + trace.source, exec::Dim3{ctas, 1, 1}, uint32_t(trace.warps.size()) * ptx::kWarpSize, 0,
                 source, regs, options.regs_per_thread ? RegisterSource::Override : RegisterSource::Trace,
                 {options.watchdog_instructions, options.starvation_cycles});
}

GpuTop& timing_gpu_top(const core::GpuConfig& config) { return timing_gpu(config, ""); }

const std::vector<TimingLaunchRecord>& timing_launches() {
  static const std::vector<TimingLaunchRecord> none;
  TimingGpu& g = instance();
  return g.top ? g.top->launches() : none;
}

std::vector<std::pair<std::string, const schedulers::WarpSchedulerPolicy*>> timing_policies() {
  std::vector<std::pair<std::string, const schedulers::WarpSchedulerPolicy*>> out;
  TimingGpu& g = instance();
  if (!g.top) return out;
  for (const auto& sm : g.top->sms())
    for (const auto& sched : sm->schedulers()) out.emplace_back(sched->name(), &sched->arbiter().policy());
  return out;
}

std::map<std::string, double> timing_stats(core::StatDescriptions* descriptions) {
  TimingGpu& g = instance();
  return g.top ? g.top->collect_stats(descriptions) : std::map<std::string, double>{};
}

void record_timeline(uint64_t interval_cycles) {
  TimingGpu& g = instance();
  g.timeline = std::make_unique<TimelineRecorder>(interval_cycles);
  if (g.top) g.timeline->attach(*g.top);
}

void write_timeline(const std::string& path) {
  TimingGpu& g = instance();
  if (!g.timeline) throw std::logic_error("write_timeline: no timeline is being recorded (record_timeline)");
  g.timeline->write_file(path);
}

}  // namespace tlmgpu::platform
