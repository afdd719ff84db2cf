#include "vp/virtual_platform.h"

#include <cstring>

#include "platform/soc/gpu_registers.h"
#include "vp/soc_memory_map.h"

namespace tlmgpu::vp {

VirtualPlatform::Config::Config() : ram_bytes(VP_RAM_SIZE) { cpu.reset_pc = VP_RAM_BASE; }

VirtualPlatform::VirtualPlatform(sc_core::sc_module_name name, const Config& config)
    : sc_core::sc_module(name), bus("bus"), ram("ram", config.ram_bytes, config.ram_latency),
      uart("uart", *config.uart_output), finisher("finisher"), cpu("cpu", config.cpu) {
  cpu.socket.bind(bus.upstream);
  bus.downstream.bind(ram.socket);
  bus.downstream.bind(uart.socket);
  bus.downstream.bind(finisher.socket);
  bus.map_target("ram", VP_RAM_BASE, config.ram_bytes, kRamPort);
  bus.map_target("uart", VP_UART_BASE, VP_UART_SIZE, kUartPort);
  bus.map_target("finisher", VP_FINISHER_BASE, VP_FINISHER_SIZE, kFinisherPort);
  cpu.external_interrupt.bind(interrupt_line);
  if (config.gpu) {
    gpu = std::make_unique<platform::soc::GpuPeripheral>("gpu", config.gpu->config, config.gpu->options);
    gpu_probe = std::make_unique<GpuRegisterProbe>("gpu_probe", config.cpu.clock_period);
    bus.downstream.bind(gpu_probe->upstream);
    gpu_probe->downstream.bind(gpu->mmio);
    bus.map_target("gpu", VP_GPU_BASE, TLMGPU_MMIO_BYTES, kGpuPort);
    gpu->mem.bind(bus.upstream);
    gpu->irq.bind(interrupt_line);
    gpu_probe->irq.bind(interrupt_line);
  }
}

bool VirtualPlatform::write_ram(uint64_t address, const uint8_t* data, uint64_t bytes) {
  if (address < VP_RAM_BASE || bytes > ram.size() || address - VP_RAM_BASE > ram.size() - bytes) {
    return false;
  }
  std::memcpy(ram.data() + (address - VP_RAM_BASE), data, bytes);
  return true;
}

} // namespace tlmgpu::vp
