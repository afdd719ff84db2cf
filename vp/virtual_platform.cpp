#include "vp/virtual_platform.h"

#include <cstring>
#include <stdexcept>

#include "platform/soc/gpu_registers.h"
#include "vp/soc_memory_map.h"

namespace tlmgpu::vp {

VirtualPlatform::Config::Config() : ram_bytes(VP_RAM_SIZE) { cpu.reset_pc = VP_RAM_BASE; }

namespace {
// Checked before any member is built: a second GPU needs the first.
const VirtualPlatform::Config& checked(const VirtualPlatform::Config& config) {
  if (config.gpu1 && !config.gpu) {
    throw std::invalid_argument("the virtual platform's second GPU needs a first one");
  }
  return config;
}
} // namespace

VirtualPlatform::VirtualPlatform(sc_core::sc_module_name name, const Config& config)
    : sc_core::sc_module(name), bus("bus"), ram("ram", checked(config).ram_bytes, config.ram_latency),
      uart("uart", *config.uart_output), finisher("finisher"), cpu("cpu", config.cpu),
      probe_pulse_(config.cpu.clock_period) {
  cpu.socket.bind(bus.upstream);
  attach("ram", VP_RAM_BASE, config.ram_bytes, ram.socket);
  attach("uart", VP_UART_BASE, VP_UART_SIZE, uart.socket);
  attach("finisher", VP_FINISHER_BASE, VP_FINISHER_SIZE, finisher.socket);
  cpu.external_interrupt.bind(interrupt_line);
  if (!config.gpu) {
    return; // interrupt_line is free for a test's own interrupt source
  }
  reset_controller = std::make_unique<ResetController>("reset_controller", config.gpu1 ? 2 : 1);
  attach("reset_controller", VP_RESET_CTRL_BASE, VP_RESET_CTRL_SIZE, reset_controller->socket);
  add_gpu("gpu", *config.gpu, VP_GPU_BASE, gpu_probe, gpu, gpu_irq, gpu_reset);
  reset_controller->reset[0].bind(gpu_reset);
  if (config.gpu1) {
    add_gpu("gpu1", *config.gpu1, VP_GPU1_BASE, gpu1_probe, gpu1, gpu1_irq, gpu1_reset);
    reset_controller->reset[1].bind(gpu1_reset);
  }
  SC_HAS_PROCESS(VirtualPlatform);
  SC_METHOD(combine_interrupts);
  sensitive << gpu_irq << gpu1_irq;
}

void VirtualPlatform::add_gpu(const char* name, const GpuSetup& setup, uint64_t base,
                              std::unique_ptr<GpuRegisterProbe>& probe,
                              std::unique_ptr<platform::soc::GpuPeripheral>& peripheral,
                              sc_core::sc_signal<bool>& irq_line, sc_core::sc_signal<bool>& reset_line) {
  peripheral = std::make_unique<platform::soc::GpuPeripheral>(name, setup.config, setup.options);
  probe = std::make_unique<GpuRegisterProbe>((std::string(name) + "_probe").c_str(), probe_pulse_);
  attach(name, base, TLMGPU_MMIO_BYTES, probe->upstream);
  probe->downstream.bind(peripheral->mmio);
  peripheral->mem.bind(bus.upstream);
  peripheral->irq.bind(irq_line);
  peripheral->rst.bind(reset_line);
  probe->irq.bind(irq_line);
}

void VirtualPlatform::combine_interrupts() { interrupt_line.write(gpu_irq.read() || gpu1_irq.read()); }

bool VirtualPlatform::write_ram(uint64_t address, const uint8_t* data, uint64_t bytes) {
  if (address < VP_RAM_BASE || bytes > ram.size() || address - VP_RAM_BASE > ram.size() - bytes) {
    return false;
  }
  std::memcpy(ram.data() + (address - VP_RAM_BASE), data, bytes);
  return true;
}

} // namespace tlmgpu::vp
