#include "vp/ram.h"

#include <cstring>

namespace tlmgpu::vp {

Ram::Ram(sc_core::sc_module_name name, uint64_t size_bytes, sc_core::sc_time access_latency)
    : sc_core::sc_module(name), storage_(size_bytes, 0), access_latency_(access_latency) {
  socket.register_b_transport(this, &Ram::b_transport);
  socket.register_get_direct_mem_ptr(this, &Ram::get_direct_mem_ptr);
  socket.register_transport_dbg(this, &Ram::transport_dbg);
}

bool Ram::access(tlm::tlm_generic_payload& trans) {
  const uint64_t address = trans.get_address();
  const unsigned length = trans.get_data_length();
  if (length == 0 || address >= storage_.size() || length > storage_.size() - address) {
    trans.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
    return false;
  }
  if (trans.get_byte_enable_ptr() != nullptr) {
    trans.set_response_status(tlm::TLM_BYTE_ENABLE_ERROR_RESPONSE);
    return false;
  }
  if (trans.get_streaming_width() < length) {
    trans.set_response_status(tlm::TLM_BURST_ERROR_RESPONSE);
    return false;
  }
  if (trans.is_read()) {
    std::memcpy(trans.get_data_ptr(), &storage_[address], length);
  } else if (trans.is_write()) {
    std::memcpy(&storage_[address], trans.get_data_ptr(), length);
  }
  trans.set_response_status(tlm::TLM_OK_RESPONSE);
  return true;
}

void Ram::b_transport(tlm::tlm_generic_payload& trans, sc_core::sc_time& delay) {
  if (access(trans)) {
    trans.set_dmi_allowed(true);
    delay += access_latency_;
  }
}

bool Ram::get_direct_mem_ptr(tlm::tlm_generic_payload&, tlm::tlm_dmi& dmi) {
  dmi.set_dmi_ptr(storage_.data());
  dmi.set_start_address(0);
  dmi.set_end_address(storage_.size() - 1);
  dmi.set_granted_access(tlm::tlm_dmi::DMI_ACCESS_READ_WRITE);
  dmi.set_read_latency(sc_core::SC_ZERO_TIME);
  dmi.set_write_latency(sc_core::SC_ZERO_TIME);
  return true;
}

unsigned int Ram::transport_dbg(tlm::tlm_generic_payload& trans) {
  return access(trans) ? trans.get_data_length() : 0;
}

} // namespace tlmgpu::vp
