// The SoC interconnect: routes TLM transactions from its initiators (CPU,
// GPU master port) to the target mapped at the address. Unmapped addresses
// answer TLM_ADDRESS_ERROR_RESPONSE; DMI and debug accesses are forwarded with
// the address translated between the bus's view and the target's own offsets.
#ifndef TLMGPU_VP_BUS_H
#define TLMGPU_VP_BUS_H

#include <cstdint>
#include <string>
#include <vector>

#include <systemc>
#include <tlm>
#include <tlm_utils/multi_passthrough_initiator_socket.h>
#include <tlm_utils/multi_passthrough_target_socket.h>

namespace tlmgpu::vp {

class Bus : public sc_core::sc_module {
public:
  // Initiators bind here (any number).
  tlm_utils::multi_passthrough_target_socket<Bus> upstream{"upstream"};
  // Targets bind here, in the order of their map_target() calls.
  tlm_utils::multi_passthrough_initiator_socket<Bus> downstream{"downstream"};

  struct Region {
    std::string name;
    uint64_t base;
    uint64_t size;
    unsigned port; // downstream binding index
  };

  explicit Bus(sc_core::sc_module_name name);

  // Maps [base, base + size) to the target bound as the port-th downstream
  // binding. Throws std::invalid_argument on overlap or an empty region.
  void map_target(const std::string& region_name, uint64_t base, uint64_t size, unsigned port);

  const std::vector<Region>& regions() const { return regions_; }
  // Debug access by the simulator itself (loading firmware, tests).
  unsigned int debug_transport(tlm::tlm_generic_payload& trans) { return transport_dbg(0, trans); }
  // The region holding address, or nullptr.
  const Region* decode(uint64_t address) const;

private:
  void b_transport(int id, tlm::tlm_generic_payload& trans, sc_core::sc_time& delay);
  bool get_direct_mem_ptr(int id, tlm::tlm_generic_payload& trans, tlm::tlm_dmi& dmi);
  unsigned int transport_dbg(int id, tlm::tlm_generic_payload& trans);
  void invalidate_direct_mem_ptr(int port, sc_dt::uint64 start, sc_dt::uint64 end);

  std::vector<Region> regions_; // sorted by base
};

} // namespace tlmgpu::vp

#endif
