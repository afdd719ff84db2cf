#include "vp/virtual_platform.h"

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
}

} // namespace tlmgpu::vp
