// Sits between the bus and the GPU peripheral's `mmio` socket, passes every
// access through, and shows the register interface as signals for the VCD:
// `doorbell` is high for one hart clock period from each DOORBELL write, and
// `status` follows the STATUS register (read by debug transport after each
// access and at each edge of the interrupt line, the points where it can
// change for the hart).
#ifndef TLMGPU_VP_GPU_REGISTER_PROBE_H
#define TLMGPU_VP_GPU_REGISTER_PROBE_H

#include <cstdint>

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>

namespace tlmgpu::vp {

class GpuRegisterProbe : public sc_core::sc_module {
public:
  tlm_utils::simple_target_socket<GpuRegisterProbe> upstream{"upstream"};
  tlm_utils::simple_initiator_socket<GpuRegisterProbe> downstream{"downstream"};
  sc_core::sc_in<bool> irq{"irq"};

  sc_core::sc_signal<bool> doorbell{"doorbell"};
  sc_core::sc_signal<uint32_t> status{"status"};

  GpuRegisterProbe(sc_core::sc_module_name name, sc_core::sc_time pulse);

private:
  void b_transport(tlm::tlm_generic_payload& trans, sc_core::sc_time& delay);
  unsigned int transport_dbg(tlm::tlm_generic_payload& trans);
  void update();

  sc_core::sc_time pulse_;
  sc_core::sc_event doorbell_rise_, doorbell_fall_, sample_;
};

} // namespace tlmgpu::vp

#endif
