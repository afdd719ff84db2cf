#include "vp/reset_controller.h"

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <string>

namespace tlmgpu::vp {

ResetController::ResetController(sc_core::sc_module_name name, unsigned outputs)
    : sc_core::sc_module(name), reset("reset", outputs),
      mask_(outputs >= 32 ? ~0u : (1u << outputs) - 1) {
  if (outputs == 0 || outputs > 32) {
    throw std::invalid_argument("a reset controller drives 1 to 32 reset lines, not " + std::to_string(outputs));
  }
  socket.register_b_transport(this, &ResetController::b_transport);
  socket.register_transport_dbg(this, &ResetController::transport_dbg);
  SC_HAS_PROCESS(ResetController);
  SC_METHOD(drive);
  sensitive << changed_;
  // At time zero every peripheral starts out of reset (the outputs' initial value).
  dont_initialize();
}

void ResetController::b_transport(tlm::tlm_generic_payload& trans, sc_core::sc_time& delay) {
  if (trans.get_address() != 0 || trans.get_data_length() != kRegisterBytes ||
      trans.get_streaming_width() < kRegisterBytes || trans.get_byte_enable_ptr() != nullptr) {
    trans.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
    return;
  }
  if (trans.is_write()) {
    uint32_t value = 0;
    std::memcpy(&value, trans.get_data_ptr(), sizeof value);
    value_ = value & mask_;
    // The lines change when the write happens for the hart: at its local time.
    changed_.notify(delay);
  } else if (trans.is_read()) {
    std::memcpy(trans.get_data_ptr(), &value_, sizeof value_);
  }
  trans.set_response_status(tlm::TLM_OK_RESPONSE);
}

unsigned int ResetController::transport_dbg(tlm::tlm_generic_payload& trans) {
  if (!trans.is_read() || trans.get_address() >= kRegisterBytes) {
    return 0;
  }
  const unsigned bytes =
      static_cast<unsigned>(std::min<uint64_t>(trans.get_data_length(), kRegisterBytes - trans.get_address()));
  std::memcpy(trans.get_data_ptr(), reinterpret_cast<const uint8_t*>(&value_) + trans.get_address(), bytes);
  return bytes;
}

void ResetController::drive() {
  for (unsigned n = 0; n < reset.size(); ++n) {
    const bool held = ((value_ >> n) & 1u) != 0;
    if (reset[n].read() != held) {
      reset[n].write(held);
    }
  }
}

} // namespace tlmgpu::vp
