#include "vp/uart.h"

#include <cstring>

namespace tlmgpu::vp {

Uart::Uart(sc_core::sc_module_name name, std::ostream& output) : sc_core::sc_module(name), output_(output) {
  socket.register_b_transport(this, &Uart::b_transport);
}

void Uart::b_transport(tlm::tlm_generic_payload& trans, sc_core::sc_time&) {
  const uint64_t address = trans.get_address();
  const unsigned length = trans.get_data_length();
  // Byte registers; a wider access (a driver using 32-bit stores) addresses
  // the register at its first byte.
  if (length == 0 || length > 4 || address >= kRegisterBytes || trans.get_byte_enable_ptr() != nullptr) {
    trans.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
    return;
  }
  uint8_t* data = trans.get_data_ptr();
  if (trans.is_write()) {
    if (address == kTransmitHolding) {
      output_.put(static_cast<char>(data[0]));
      ++bytes_written_;
      if (data[0] == '\n') {
        output_.flush();
      }
    }
  } else if (trans.is_read()) {
    std::memset(data, 0, length);
    if (address == kLineStatus) {
      data[0] = kLineStatusTransmitterEmpty;
    }
  }
  trans.set_response_status(tlm::TLM_OK_RESPONSE);
}

} // namespace tlmgpu::vp
