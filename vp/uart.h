// A transmit-only UART with the register layout of a 16550 (byte registers):
// a byte written to THR (offset 0) goes to the output stream, by default the
// simulator's stdout; LSR (offset 5) always reports the transmitter empty.
// Other registers read 0 and ignore writes.
#ifndef TLMGPU_VP_UART_H
#define TLMGPU_VP_UART_H

#include <cstdint>
#include <iostream>

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_target_socket.h>

namespace tlmgpu::vp {

class Uart : public sc_core::sc_module {
public:
  static constexpr uint64_t kTransmitHolding = 0; // THR
  static constexpr uint64_t kLineStatus = 5;      // LSR
  static constexpr uint8_t kLineStatusTransmitterEmpty = 0x60; // THRE | TEMT
  static constexpr uint64_t kRegisterBytes = 8;

  tlm_utils::simple_target_socket<Uart> socket{"socket"};

  Uart(sc_core::sc_module_name name, std::ostream& output = std::cout);

  uint64_t bytes_written() const { return bytes_written_; }

private:
  void b_transport(tlm::tlm_generic_payload& trans, sc_core::sc_time& delay);

  std::ostream& output_;
  uint64_t bytes_written_ = 0;
};

} // namespace tlmgpu::vp

#endif
