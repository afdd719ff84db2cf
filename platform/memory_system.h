// Everything below the SMs' L1 caches: the interconnect, the L2 slices and
// the DRAM channels, built from a GpuConfig and wired together. An assembly
// of the memory layer's modules, so it sits in the platform beside the GPU
// top: it validates the configuration it is given (platform/config_keys.h).
// Its namespace is the memory system's.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <systemc>

#include "memory/dram_channel.h"
#include "memory/interconnect.h"
#include "memory/l1_cache.h"
#include "memory/l2_slice.h"
#include "memory/protocol_checker.h"
#include "memory/soc_memory_port.h"
#include "platform/config_keys.h"

namespace tlmgpu::platform {

/// Not an sc_module itself: it creates its modules inside the module being
/// constructed (the GPU top), so they are named `gpu.icnt`, `gpu.l2_0`...,
/// `gpu.dram0`... . L2 slice s uses channel s * channels / slices (one slice
/// per channel when the counts are equal).
class MemorySystem {
 public:
  /// `texture_caches`: the crossbar also has a port per SM's texture cache (bind_tex).
  MemorySystem(const core::GpuConfig& config, const sc_core::sc_time& clock_period, bool texture_caches = false);
  ~MemorySystem();

  /// Binds every module's clock port to the GPU's clock (the top's `clk`):
  /// the clock domain of that clock runs them.
  void bind_clock(sc_core::sc_port_b<sc_core::sc_signal_in_if<bool>>& clock);
  /// The same with the clock itself (a memory system built without a GPU top).
  void bind_clock(sc_core::sc_signal_in_if<bool>& clock);
  /// Binds SM `sm`'s caches to interconnect ports 2 * sm (L1D) and 2 * sm + 1 (L1I).
  void bind_l1(uint32_t sm, memory::L1Cache& l1d, memory::L1Cache& l1i);
  /// SM `sm`'s texture cache: upstream port 2 * num_sms + sm (after every L1D and L1I).
  void bind_tex(uint32_t sm, memory::L1Cache& tex);

  memory::Interconnect& interconnect() { return *icnt_; }
  memory::L2Slice& l2_slice(uint32_t index) { return *l2_[index]; }
  memory::DramChannel& dram_channel(uint32_t index) { return *dram_[index]; }
  /// soc.memory = soc: the port L2 misses leave by (nullptr otherwise; then
  /// there are no DRAM channels).
  memory::SocMemoryPort* soc_memory_port() { return soc_.get(); }
  /// Nothing in flight below the L2 that no module's wake-up stands for (a
  /// transaction waiting inside the SoC).
  bool below_l2_idle() const;
  uint32_t l2_slices() const { return uint32_t(l2_.size()); }
  uint32_t dram_channels() const { return uint32_t(dram_.size()); }
  /// The channel behind L2 slice `slice`.
  uint32_t channel_of_slice(uint32_t slice) const;
  /// Lets the bound L1s (and those bound later) read the cycle from `domain`,
  /// which runs everything that calls them.
  void take_cycle_from(const engine::ClockDomain& domain);
  /// A host-to-device copy of [address, address + bytes) passed through the
  /// L2: every 32-byte unit it wrote is left valid and dirty in its slice, in
  /// copy order (L2Slice::fill_from_host_copy). No timing; call between launches.
  void fill_l2_from_host_copy(uint64_t address, uint64_t bytes);
  /// Where write requests take their data (the launch's global memory;
  /// nullptr: zeros): every bound L1's stores and atomics and, with the GPU's
  /// own DRAM channels, the L2 write-backs (a SoC memory port reads the SoC's
  /// memory itself). See docs/ARCHITECTURE.md.
  void take_write_data_from(memory::GlobalMemoryIf* memory);
  /// The slices of channel `channel` send to `ports` (one per slice sharing
  /// the channel, in slice order: slices_of_channel) instead of to the GPU's
  /// own DramChannel, which then stays idle: a standard TLM-2.0 target (a
  /// VP's memory, DRAMSys) stands in for the channel. Requests arrive with
  /// the channel-local address of their first byte (L2Slice::dram_address),
  /// the phases of the base protocol and the data of docs/ARCHITECTURE.md
  /// ("Payloads in the memory system"); a target with only b_transport
  /// behind a simple_target_socket works (the socket answers from its own
  /// thread). Call before elaboration ends; not with soc.memory = soc.
  void bind_foreign_channel(uint32_t channel, const std::vector<tlm::tlm_target_socket<>*>& ports);
  /// The L2 slices whose misses go to channel `channel`, in port order.
  std::vector<uint32_t> slices_of_channel(uint32_t channel) const;
  /// host.protocol_checkers: the checker on every link (L1 to crossbar,
  /// crossbar to L2 slice, slice to DRAM channel or SoC port), else none.
  const std::vector<std::unique_ptr<memory::BaseProtocolChecker>>& protocol_checkers() const { return checkers_; }

 private:
  /// Binds initiator socket `from` to target socket `to`, through a new
  /// BaseProtocolChecker named `name` under host.protocol_checkers.
  template <class From, class To>
  void link(From& from, To& to, const std::string& name) {
    if (!config_.host_protocol_checkers) {
      from.bind(to);
      return;
    }
    checkers_.push_back(std::make_unique<memory::BaseProtocolChecker>(name.c_str()));
    from.bind(checkers_.back()->target);
    checkers_.back()->initiator.bind(to);
  }

  core::GpuConfig config_;
  std::unique_ptr<memory::Interconnect> icnt_;
  std::vector<std::unique_ptr<memory::L2Slice>> l2_;
  std::vector<std::unique_ptr<memory::DramChannel>> dram_;
  std::unique_ptr<memory::SocMemoryPort> soc_;
  std::vector<std::unique_ptr<memory::BaseProtocolChecker>> checkers_;
  /// Binds the slices' DRAM sockets at the end of elaboration, when every
  /// bind_foreign_channel call has been made.
  class DramLinks;
  void bind_dram_links(DramLinks& links);
  std::unique_ptr<DramLinks> dram_links_;
  std::vector<std::vector<tlm::tlm_target_socket<>*>> foreign_;  ///< per channel (empty: its own)
  std::vector<memory::L1Cache*> l1s_;                  ///< bound so far
  const engine::ClockDomain* domain_ = nullptr;  ///< set by take_cycle_from
};

}  // namespace tlmgpu::platform
