// SoC main memory: a byte array that grants DMI for reads and writes, so the
// CPU and the GPU access it through host pointers; b_transport and debug
// transport serve everything else.
#ifndef TLMGPU_VP_RAM_H
#define TLMGPU_VP_RAM_H

#include <cstdint>
#include <vector>

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_target_socket.h>

namespace tlmgpu::vp {

class Ram : public sc_core::sc_module {
public:
  tlm_utils::simple_target_socket<Ram> socket{"socket"};

  // access_latency: what one b_transport access adds to the initiator's delay
  // (DMI users account their own time).
  Ram(sc_core::sc_module_name name, uint64_t size_bytes, sc_core::sc_time access_latency);

  uint64_t size() const { return storage_.size(); }
  uint8_t* data() { return storage_.data(); }

private:
  void b_transport(tlm::tlm_generic_payload& trans, sc_core::sc_time& delay);
  bool get_direct_mem_ptr(tlm::tlm_generic_payload& trans, tlm::tlm_dmi& dmi);
  unsigned int transport_dbg(tlm::tlm_generic_payload& trans);
  // Copies between the payload and storage; false when out of range.
  bool access(tlm::tlm_generic_payload& trans);

  std::vector<uint8_t> storage_;
  sc_core::sc_time access_latency_;
};

} // namespace tlmgpu::vp

#endif
