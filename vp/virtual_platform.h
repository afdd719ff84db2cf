// The RISC-V SoC around the GPU: a hart (RiscvCpu), the bus, RAM, a UART,
// the test finisher and, when configured, one or two GPU peripherals and the
// reset controller at the addresses of vp/soc_memory_map.h. Each GPU's
// registers sit behind a probe (signals for the VCD), its memory port is a
// bus initiator (so it reaches RAM by DMI), its interrupt drives a line of
// its own (`gpu_irq`, `gpu1_irq`), and its reset input follows the reset
// controller's bit (`gpu_reset`, `gpu1_reset`). The interrupt lines are
// ORed into `interrupt_line`, the hart's machine external interrupt (the
// handler asks each GPU's IRQ_STATUS which one it was).
#ifndef TLMGPU_VP_VIRTUAL_PLATFORM_H
#define TLMGPU_VP_VIRTUAL_PLATFORM_H

#include <cstdint>
#include <iostream>
#include <memory>
#include <optional>
#include <string>

#include <systemc>

#include "platform/config_keys.h"
#include "platform/soc/gpu_peripheral.h"
#include "vp/bus.h"
#include "vp/gpu_register_probe.h"
#include "vp/ram.h"
#include "vp/reset_controller.h"
#include "vp/riscv_cpu.h"
#include "vp/test_finisher.h"
#include "vp/uart.h"

namespace tlmgpu::vp {

class VirtualPlatform : public sc_core::sc_module {
public:
  struct GpuSetup {
    core::GpuConfig config;
    platform::soc::GpuPeripheralOptions options;
  };
  struct Config {
    RiscvCpu::Config cpu;
    uint64_t ram_bytes;
    sc_core::sc_time ram_latency{10, sc_core::SC_NS};
    std::ostream* uart_output = &std::cout;
    std::optional<GpuSetup> gpu;  // none: a platform without a GPU
    std::optional<GpuSetup> gpu1; // a second GPU at VP_GPU1_BASE (needs `gpu`)
    Config();
  };

  // std::invalid_argument for a second GPU without a first.
  VirtualPlatform(sc_core::sc_module_name name, const Config& config);

  // Copies bytes into RAM at a bus address (firmware loading, before the
  // simulation starts); false when the range is not all RAM.
  bool write_ram(uint64_t address, const uint8_t* data, uint64_t bytes);

  // The first bus port a test may bind its own target to.
  unsigned first_free_port() const { return next_port_; }

  Bus bus;
  Ram ram;
  Uart uart;
  TestFinisher finisher;
  RiscvCpu cpu;
  sc_core::sc_signal<bool> interrupt_line{"interrupt_line"};
  // Each GPU's interrupt and reset lines (unused without that GPU).
  sc_core::sc_signal<bool> gpu_irq{"gpu_irq"}, gpu1_irq{"gpu1_irq"};
  sc_core::sc_signal<bool> gpu_reset{"gpu_reset"}, gpu1_reset{"gpu1_reset"};
  std::unique_ptr<ResetController> reset_controller; // with a GPU
  std::unique_ptr<GpuRegisterProbe> gpu_probe, gpu1_probe;
  std::unique_ptr<platform::soc::GpuPeripheral> gpu, gpu1;

private:
  // Binds `target` as the next downstream port and maps it at [base, base + size).
  template <typename Socket>
  void attach(const std::string& region, uint64_t base, uint64_t size, Socket& target) {
    bus.downstream.bind(target);
    bus.map_target(region, base, size, next_port_++);
  }
  // A GPU behind its probe, with its memory port, interrupt and reset lines.
  void add_gpu(const char* name, const GpuSetup& setup, uint64_t base, std::unique_ptr<GpuRegisterProbe>& probe,
               std::unique_ptr<platform::soc::GpuPeripheral>& gpu, sc_core::sc_signal<bool>& irq_line,
               sc_core::sc_signal<bool>& reset_line);
  // The interrupt logic: interrupt_line is high while any GPU's line is.
  void combine_interrupts();

  unsigned next_port_ = 0;
  sc_core::sc_time probe_pulse_;
};

} // namespace tlmgpu::vp

#endif
