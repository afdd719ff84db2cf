#include "vp/test_finisher.h"

#include <cstring>

namespace tlmgpu::vp {

TestFinisher::TestFinisher(sc_core::sc_module_name name) : sc_core::sc_module(name) {
  socket.register_b_transport(this, &TestFinisher::b_transport);
}

void TestFinisher::b_transport(tlm::tlm_generic_payload& trans, sc_core::sc_time&) {
  if (trans.get_address() != kExitCode || trans.get_data_length() != 4 || trans.get_byte_enable_ptr() != nullptr) {
    trans.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
    return;
  }
  if (trans.is_write()) {
    uint32_t value = 0;
    std::memcpy(&value, trans.get_data_ptr(), sizeof value);
    if (!exit_code_) { // the first exit wins
      exit_code_ = value;
      sc_core::sc_stop();
    }
  } else if (trans.is_read()) {
    std::memset(trans.get_data_ptr(), 0, 4);
  }
  trans.set_response_status(tlm::TLM_OK_RESPONSE);
}

} // namespace tlmgpu::vp
