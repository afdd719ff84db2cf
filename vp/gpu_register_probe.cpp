#include "vp/gpu_register_probe.h"

#include "platform/soc/gpu_registers.h"

namespace tlmgpu::vp {

GpuRegisterProbe::GpuRegisterProbe(sc_core::sc_module_name name, sc_core::sc_time pulse)
    : sc_core::sc_module(name), pulse_(pulse) {
  upstream.register_b_transport(this, &GpuRegisterProbe::b_transport);
  upstream.register_transport_dbg(this, &GpuRegisterProbe::transport_dbg);
  SC_HAS_PROCESS(GpuRegisterProbe);
  SC_METHOD(update);
  sensitive << doorbell_rise_ << doorbell_fall_ << sample_ << irq;
}

void GpuRegisterProbe::b_transport(tlm::tlm_generic_payload& trans, sc_core::sc_time& delay) {
  const bool doorbell_write = trans.is_write() && trans.get_address() == TLMGPU_REG_DOORBELL;
  downstream->b_transport(trans, delay);
  // Shown at the initiator's local time, when the access takes effect.
  if (doorbell_write && trans.is_response_ok()) {
    doorbell_rise_.notify(delay);
  }
  sample_.notify(delay);
}

unsigned int GpuRegisterProbe::transport_dbg(tlm::tlm_generic_payload& trans) {
  return downstream->transport_dbg(trans);
}

void GpuRegisterProbe::update() {
  if (doorbell_rise_.triggered()) {
    doorbell.write(true);
    doorbell_fall_.notify(pulse_);
  } else if (doorbell_fall_.triggered()) {
    doorbell.write(false);
  }
  uint32_t value = 0;
  tlm::tlm_generic_payload read;
  read.set_command(tlm::TLM_READ_COMMAND);
  read.set_address(TLMGPU_REG_STATUS);
  read.set_data_ptr(reinterpret_cast<unsigned char*>(&value));
  read.set_data_length(4);
  read.set_streaming_width(4);
  if (downstream->transport_dbg(read) == 4) {
    status.write(value);
  }
}

} // namespace tlmgpu::vp
