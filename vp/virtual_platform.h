// The RISC-V SoC around the GPU: a hart (RiscvCpu), the bus, RAM, a UART,
// the test finisher and, when configured, the GPU peripheral at the
// addresses of vp/soc_memory_map.h. The GPU's registers sit behind a probe
// (signals for the VCD), its memory port is a bus initiator (so it reaches
// RAM by DMI), and its interrupt drives `interrupt_line`, the hart's machine
// external interrupt.
#ifndef TLMGPU_VP_VIRTUAL_PLATFORM_H
#define TLMGPU_VP_VIRTUAL_PLATFORM_H

#include <cstdint>
#include <iostream>
#include <memory>
#include <optional>

#include <systemc>

#include "platform/config_keys.h"
#include "platform/soc/gpu_peripheral.h"
#include "vp/bus.h"
#include "vp/gpu_register_probe.h"
#include "vp/ram.h"
#include "vp/riscv_cpu.h"
#include "vp/test_finisher.h"
#include "vp/uart.h"

namespace tlmgpu::vp {

class VirtualPlatform : public sc_core::sc_module {
public:
  struct GpuSetup {
    platform::GpuConfig config;
    platform::soc::GpuPeripheralOptions options;
  };
  struct Config {
    RiscvCpu::Config cpu;
    uint64_t ram_bytes;
    sc_core::sc_time ram_latency{10, sc_core::SC_NS};
    std::ostream* uart_output = &std::cout;
    std::optional<GpuSetup> gpu; // none: a platform without a GPU
    Config();
  };

  // Downstream ports of the bus, in the order map_target gets them.
  enum BusPort : unsigned { kRamPort = 0, kUartPort, kFinisherPort, kGpuPort };

  VirtualPlatform(sc_core::sc_module_name name, const Config& config);

  // Copies bytes into RAM at a bus address (firmware loading, before the
  // simulation starts); false when the range is not all RAM.
  bool write_ram(uint64_t address, const uint8_t* data, uint64_t bytes);

  // The first bus port a test may bind its own target to.
  unsigned first_free_port() const { return gpu ? kGpuPort + 1 : kGpuPort; }

  Bus bus;
  Ram ram;
  Uart uart;
  TestFinisher finisher;
  RiscvCpu cpu;
  sc_core::sc_signal<bool> interrupt_line{"interrupt_line"};
  std::unique_ptr<GpuRegisterProbe> gpu_probe;
  std::unique_ptr<platform::soc::GpuPeripheral> gpu;
};

} // namespace tlmgpu::vp

#endif
