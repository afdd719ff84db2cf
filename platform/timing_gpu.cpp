#include "platform/timing_gpu.h"

#include <memory>

#include "platform/gpu_device.h"

namespace tlmgpu::platform {

namespace {
struct TimingGpu {
  std::string config_text;
  std::unique_ptr<sc_core::sc_clock> clock;
  std::unique_ptr<GpuTop> top;
};
TimingGpu& instance() {
  static TimingGpu gpu;
  return gpu;
}
}  // namespace

GpuTop& timing_gpu(const GpuConfig& config) {
  TimingGpu& g = instance();
  const std::string text = dump_config(config);
  if (g.top) {
    if (text != g.config_text)
      throw LaunchError("this process already elaborated a GPU with another configuration (SystemC elaborates once)");
    return *g.top;
  }
  g.config_text = text;
  g.top = std::make_unique<GpuTop>("gpu", config);
  g.clock = std::make_unique<sc_core::sc_clock>("clk", g.top->period());
  g.top->clk(*g.clock);
  return *g.top;
}

GpuTop* existing_timing_gpu() { return instance().top.get(); }

}  // namespace tlmgpu::platform
