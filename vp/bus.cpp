#include "vp/bus.h"

#include <algorithm>
#include <limits>
#include <sstream>
#include <stdexcept>

namespace tlmgpu::vp {

Bus::Bus(sc_core::sc_module_name name) : sc_core::sc_module(name) {
  upstream.register_b_transport(this, &Bus::b_transport);
  upstream.register_get_direct_mem_ptr(this, &Bus::get_direct_mem_ptr);
  upstream.register_transport_dbg(this, &Bus::transport_dbg);
  downstream.register_invalidate_direct_mem_ptr(this, &Bus::invalidate_direct_mem_ptr);
}

void Bus::map_target(const std::string& region_name, uint64_t base, uint64_t size, unsigned port) {
  if (size == 0 || base + size - 1 < base) {
    throw std::invalid_argument("bus: region '" + region_name + "' is empty or wraps around the address space");
  }
  for (const Region& r : regions_) {
    if (base <= r.base + (r.size - 1) && r.base <= base + (size - 1)) {
      std::ostringstream msg;
      msg << "bus: region '" << region_name << "' at 0x" << std::hex << base << " (0x" << size
          << " bytes) overlaps '" << r.name << "' at 0x" << r.base << " (0x" << r.size << " bytes)";
      throw std::invalid_argument(msg.str());
    }
  }
  regions_.push_back({region_name, base, size, port});
  std::sort(regions_.begin(), regions_.end(), [](const Region& a, const Region& b) { return a.base < b.base; });
}

const Bus::Region* Bus::decode(uint64_t address) const {
  auto it = std::upper_bound(regions_.begin(), regions_.end(), address,
                             [](uint64_t a, const Region& r) { return a < r.base; });
  if (it == regions_.begin()) {
    return nullptr;
  }
  --it;
  return address - it->base < it->size ? &*it : nullptr;
}

void Bus::b_transport(int, tlm::tlm_generic_payload& trans, sc_core::sc_time& delay) {
  const uint64_t address = trans.get_address();
  const Region* region = decode(address);
  // The whole access must fall in one region: a transaction never spans two targets.
  if (region == nullptr || trans.get_data_length() == 0 ||
      trans.get_data_length() - 1 > region->size - 1 - (address - region->base)) {
    trans.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
    return;
  }
  trans.set_address(address - region->base);
  downstream[region->port]->b_transport(trans, delay);
  trans.set_address(address);
}

bool Bus::get_direct_mem_ptr(int, tlm::tlm_generic_payload& trans, tlm::tlm_dmi& dmi) {
  const uint64_t address = trans.get_address();
  const Region* region = decode(address);
  if (region == nullptr) {
    // Tell the initiator how large the hole is, so it need not ask again inside it.
    auto next = std::upper_bound(regions_.begin(), regions_.end(), address,
                                 [](uint64_t a, const Region& r) { return a < r.base; });
    uint64_t start = 0;
    if (next != regions_.begin()) {
      start = std::prev(next)->base + std::prev(next)->size;
    }
    dmi.set_start_address(start);
    dmi.set_end_address(next == regions_.end() ? std::numeric_limits<uint64_t>::max() : next->base - 1);
    dmi.set_granted_access(tlm::tlm_dmi::DMI_ACCESS_NONE);
    return false;
  }
  trans.set_address(address - region->base);
  const bool granted = downstream[region->port]->get_direct_mem_ptr(trans, dmi);
  trans.set_address(address);
  // Back to bus addresses, clipped to the region (a target may answer with its whole range).
  const uint64_t region_last = region->size - 1;
  dmi.set_end_address(region->base + std::min<uint64_t>(dmi.get_end_address(), region_last));
  dmi.set_start_address(region->base + std::min<uint64_t>(dmi.get_start_address(), region_last));
  return granted;
}

unsigned int Bus::transport_dbg(int, tlm::tlm_generic_payload& trans) {
  const uint64_t address = trans.get_address();
  const Region* region = decode(address);
  if (region == nullptr || trans.get_data_length() - 1 > region->size - 1 - (address - region->base)) {
    trans.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
    return 0;
  }
  trans.set_address(address - region->base);
  const unsigned int done = downstream[region->port]->transport_dbg(trans);
  trans.set_address(address);
  return done;
}

void Bus::invalidate_direct_mem_ptr(int port, sc_dt::uint64 start, sc_dt::uint64 end) {
  for (const Region& r : regions_) {
    if (static_cast<int>(r.port) != port || start > r.size - 1) {
      continue;
    }
    const uint64_t last = std::min<uint64_t>(end, r.size - 1);
    for (unsigned i = 0; i < upstream.size(); ++i) {
      upstream[i]->invalidate_direct_mem_ptr(r.base + start, r.base + last);
    }
  }
}

} // namespace tlmgpu::vp
