// The virtual platform without a GPU, plus an interrupt source at
// kInterruptSourceBase: writing N to offset 0 raises the interrupt line N ns
// later, writing offset 4 lowers it. Programs are hand-assembled words
// placed at the reset PC (VP_RAM_BASE).
#pragma once

#include <cstdint>
#include <cstring>
#include <sstream>
#include <vector>

#include <systemc>
#include <tlm_utils/simple_target_socket.h>

#include "vp/soc_memory_map.h"
#include "vp/virtual_platform.h"

namespace tlmgpu::vp::test {

constexpr uint64_t kInterruptSourceBase = 0x40000000;

class InterruptSource : public sc_core::sc_module {
public:
  tlm_utils::simple_target_socket<InterruptSource> socket{"socket"};
  sc_core::sc_out<bool> irq{"irq"};

  explicit InterruptSource(sc_core::sc_module_name name) : sc_core::sc_module(name) {
    socket.register_b_transport(this, &InterruptSource::b_transport);
    SC_HAS_PROCESS(InterruptSource);
    SC_METHOD(drive);
    sensitive << raise_ << lower_;
    dont_initialize();
  }

private:
  void b_transport(tlm::tlm_generic_payload& trans, sc_core::sc_time& delay) {
    uint32_t value = 0;
    std::memcpy(&value, trans.get_data_ptr(), 4);
    if (trans.is_write() && trans.get_address() == 0) {
      // The CPU's local time is ahead of sc_time_stamp by `delay`.
      raise_.notify(delay + sc_core::sc_time(value, sc_core::SC_NS));
    } else if (trans.is_write() && trans.get_address() == 4) {
      lower_.notify(delay);
    }
    trans.set_response_status(tlm::TLM_OK_RESPONSE);
  }
  void drive() {
    if (lower_.triggered()) irq.write(false);
    if (raise_.triggered()) irq.write(true);
  }
  sc_core::sc_event raise_, lower_;
};

struct Bench {
  std::ostringstream uart_output;
  VirtualPlatform soc;
  InterruptSource source{"source"};

  static VirtualPlatform::Config config(std::ostream& uart, uint64_t max_instructions) {
    VirtualPlatform::Config c;
    c.uart_output = &uart;
    c.cpu.max_instructions = max_instructions;
    return c;
  }

  explicit Bench(const std::vector<uint32_t>& program, uint64_t max_instructions = 100000)
      : soc("soc", config(uart_output, max_instructions)) {
    soc.bus.downstream.bind(source.socket);
    soc.bus.map_target("interrupt_source", kInterruptSourceBase, 0x1000, soc.first_free_port());
    source.irq.bind(soc.interrupt_line);
    load(VP_RAM_BASE, program);
  }

  void load(uint64_t address, const std::vector<uint32_t>& words) {
    std::memcpy(soc.ram.data() + (address - VP_RAM_BASE), words.data(), words.size() * 4);
  }
  uint32_t ram_word(uint64_t address) {
    uint32_t v;
    std::memcpy(&v, soc.ram.data() + (address - VP_RAM_BASE), 4);
    return v;
  }
};

} // namespace tlmgpu::vp::test
