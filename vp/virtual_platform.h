// The RISC-V SoC around the GPU: a hart (RiscvCpu), the bus, RAM, a UART and
// the test finisher at the addresses of vp/soc_memory_map.h. The hart's
// external interrupt input is `interrupt_line`, which the GPU peripheral
// drives when one is attached.
#ifndef TLMGPU_VP_VIRTUAL_PLATFORM_H
#define TLMGPU_VP_VIRTUAL_PLATFORM_H

#include <cstdint>
#include <iostream>

#include <systemc>

#include "vp/bus.h"
#include "vp/ram.h"
#include "vp/riscv_cpu.h"
#include "vp/test_finisher.h"
#include "vp/uart.h"

namespace tlmgpu::vp {

class VirtualPlatform : public sc_core::sc_module {
public:
  struct Config {
    RiscvCpu::Config cpu;
    uint64_t ram_bytes;
    sc_core::sc_time ram_latency{10, sc_core::SC_NS};
    std::ostream* uart_output = &std::cout;
    Config();
  };

  // Downstream ports of the bus, in the order map_target gets them.
  enum BusPort : unsigned { kRamPort = 0, kUartPort, kFinisherPort, kFirstFreePort };

  VirtualPlatform(sc_core::sc_module_name name, const Config& config);

  Bus bus;
  Ram ram;
  Uart uart;
  TestFinisher finisher;
  RiscvCpu cpu;
  sc_core::sc_signal<bool> interrupt_line{"interrupt_line"};
};

} // namespace tlmgpu::vp

#endif
