// The SoC's reset controller: one 32-bit register whose bit n drives the
// reset input of peripheral n (1: held in reset), so that firmware can reset
// a GPU that hangs. The outputs follow a write at the writer's annotated
// time; reads return the register as written. Offsets other than 0, and
// accesses other than 4 bytes wide without byte enables, answer
// TLM_ADDRESS_ERROR_RESPONSE; bits without an output read as 0.
#ifndef TLMGPU_VP_RESET_CONTROLLER_H
#define TLMGPU_VP_RESET_CONTROLLER_H

#include <cstdint>

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_target_socket.h>

namespace tlmgpu::vp {

class ResetController : public sc_core::sc_module {
public:
  static constexpr uint64_t kRegisterBytes = 4;

  tlm_utils::simple_target_socket<ResetController> socket{"socket"};
  // reset[n]: peripheral n's reset input, active high.
  sc_core::sc_vector<sc_core::sc_out<bool>> reset;

  // outputs: how many peripherals it resets (1 .. 32).
  ResetController(sc_core::sc_module_name name, unsigned outputs);

  uint32_t value() const { return value_; }

private:
  void b_transport(tlm::tlm_generic_payload& trans, sc_core::sc_time& delay);
  unsigned int transport_dbg(tlm::tlm_generic_payload& trans);
  void drive();

  uint32_t mask_;
  uint32_t value_ = 0;
  sc_core::sc_event changed_;
};

} // namespace tlmgpu::vp

#endif
