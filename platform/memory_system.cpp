#include "platform/memory_system.h"

#include "core/bit_ops.h"

#include <algorithm>
#include <string>

namespace tlmgpu::platform {

/// A module only for its before_end_of_elaboration: the slices' DRAM sockets
/// are bound then, so that bind_foreign_channel may come after the GPU was
/// built. A channel left without slices gets sockets of its own (never
/// used) in their place.
class MemorySystem::DramLinks : public sc_core::sc_module, public tlm::tlm_bw_transport_if<> {
 public:
  DramLinks(sc_core::sc_module_name name, MemorySystem& owner) : sc_module(name), owner_(owner) {}
  using IdleSocket = tlm::tlm_initiator_socket<32, tlm::tlm_base_protocol_types, 1, sc_core::SC_ZERO_OR_MORE_BOUND>;
  std::vector<std::unique_ptr<IdleSocket>> idle;

  tlm::tlm_sync_enum nb_transport_bw(tlm::tlm_generic_payload&, tlm::tlm_phase&, sc_core::sc_time&) override {
    return tlm::TLM_COMPLETED;
  }
  void invalidate_direct_mem_ptr(sc_dt::uint64, sc_dt::uint64) override {}

 private:
  void before_end_of_elaboration() override { owner_.bind_dram_links(*this); }
  MemorySystem& owner_;
};

MemorySystem::MemorySystem(const core::GpuConfig& config, const sc_core::sc_time& clock_period,
                           bool texture_caches)
    : config_(config) {
  // Modules take the configuration as given: validation decides (a program
  // building the memory system itself gets the configuration errors here).
  platform::validate_config(config_);
  if (config_.l1d.line_bytes != config_.l2.line_bytes || config_.l1i.line_bytes != config_.l2.line_bytes ||
      config_.tex.line_bytes != config_.l2.line_bytes)
    SC_REPORT_ERROR("tlmgpu/memory", "the L1 and L2 line sizes must be equal");
  if (config_.l2_interleave_bytes < config_.l2.line_bytes)
    SC_REPORT_ERROR("tlmgpu/memory", "l2_interleave_bytes must be at least the L2 line size");

  if (texture_caches) {
    // Upstream ports: every SM's L1D and L1I (2 sm, 2 sm + 1), then the texture caches.
    icnt_ = std::make_unique<memory::Interconnect>("icnt", config_.icnt, 3 * config_.num_sms, config_.l2_slices,
                                           config_.l2_interleave_bytes, clock_period);
  } else {
    icnt_ = std::make_unique<memory::Interconnect>("icnt", config_, clock_period);
  }
  if (config_.soc_memory == "soc") {
    // Inside a SoC: no DRAM channels; every slice has its own port's stream.
    soc_ = std::make_unique<memory::SocMemoryPort>("soc_memory", clock_period, config_.l2_slices, config_.l2.line_bytes);
    for (uint32_t s = 0; s < config_.l2_slices; ++s) {
      l2_.push_back(std::make_unique<memory::L2Slice>(("l2_" + std::to_string(s)).c_str(), config_, clock_period, s));
      link(icnt_->downstream(s), l2_.back()->target_socket, "check_l2_" + std::to_string(s));
      link(l2_.back()->dram_socket, soc_->port(s), "check_soc_" + std::to_string(s));
    }
    return;
  }
  std::vector<uint32_t> ports_needed(config_.dram.channels, 0);
  for (uint32_t s = 0; s < config_.l2_slices; ++s) ++ports_needed[channel_of_slice(s)];
  for (uint32_t c = 0; c < config_.dram.channels; ++c)
    dram_.push_back(std::make_unique<memory::DramChannel>(("dram" + std::to_string(c)).c_str(), config_.dram,
                                                  config_.core_clock_mhz, clock_period,
                                                  ports_needed[c]));
  for (uint32_t s = 0; s < config_.l2_slices; ++s) {
    l2_.push_back(std::make_unique<memory::L2Slice>(("l2_" + std::to_string(s)).c_str(), config_, clock_period, s));
    link(icnt_->downstream(s), l2_.back()->target_socket, "check_l2_" + std::to_string(s));
  }
  // With fewer slices than channels some channels get no port and stay idle.
  foreign_.assign(config_.dram.channels, {});
  dram_links_ = std::make_unique<DramLinks>("dram_links", *this);
}

std::vector<uint32_t> MemorySystem::slices_of_channel(uint32_t channel) const {
  std::vector<uint32_t> out;
  for (uint32_t s = 0; s < config_.l2_slices; ++s)
    if (channel_of_slice(s) == channel) out.push_back(s);
  return out;
}

void MemorySystem::bind_foreign_channel(uint32_t channel, const std::vector<tlm::tlm_target_socket<>*>& ports) {
  if (soc_ || channel >= dram_.size())
    SC_REPORT_ERROR("tlmgpu/memory", "bind_foreign_channel: no such DRAM channel (or soc.memory = soc)");
  if (ports.size() != slices_of_channel(channel).size())
    SC_REPORT_ERROR("tlmgpu/memory", ("bind_foreign_channel: channel " + std::to_string(channel) + " needs " +
                                      std::to_string(slices_of_channel(channel).size()) + " ports, one per slice")
                                         .c_str());
  foreign_[channel] = ports;
}

void MemorySystem::bind_dram_links(DramLinks& links) {
  for (uint32_t c = 0; c < dram_.size(); ++c) {
    const std::vector<uint32_t> slices = slices_of_channel(c);
    for (uint32_t k = 0; k < slices.size(); ++k) {
      memory::L2Slice& slice = *l2_[slices[k]];
      const std::string name = "check_dram_" + std::to_string(slices[k]);
      if (foreign_[c].empty()) {
        link(slice.dram_socket, dram_[c]->port(k), name);
        continue;
      }
      link(slice.dram_socket, *foreign_[c][k], name);
      links.idle.push_back(std::make_unique<DramLinks::IdleSocket>(("idle" + std::to_string(c) + "_" +
                                                                    std::to_string(k)).c_str()));
      links.idle.back()->bind(static_cast<tlm::tlm_bw_transport_if<>&>(links));
      links.idle.back()->bind(dram_[c]->port(k));
    }
  }
}

bool MemorySystem::below_l2_idle() const {
  if (soc_) return soc_->idle();
  // A foreign channel's answers come from outside the GPU's clock domain.
  for (uint32_t c = 0; c < foreign_.size(); ++c)
    if (!foreign_[c].empty())
      for (uint32_t s : slices_of_channel(c))
        if (!l2_[s]->dram_idle()) return false;
  return true;
}

MemorySystem::~MemorySystem() = default;

uint32_t MemorySystem::channel_of_slice(uint32_t slice) const {
  return uint32_t(uint64_t(slice) * config_.dram.channels / config_.l2_slices);
}

void MemorySystem::take_cycle_from(const engine::ClockDomain& domain) {
  domain_ = &domain;
  for (memory::L1Cache* l1 : l1s_) l1->take_cycle_from(domain);
}

void MemorySystem::fill_l2_from_host_copy(uint64_t address, uint64_t bytes) {
  const memory::L2AddressMap& map = icnt_->address_map();
  const uint64_t line_bytes = config_.l2.line_bytes;
  const uint64_t end = address + bytes;
  // One call per line of each slice: a line lies within one interleave chunk
  // (the interleave is a multiple of the line size).
  for (uint64_t line = address - address % line_bytes; line < end; line += line_bytes) {
    const uint64_t first = std::max(line, address), last = std::min(line + line_bytes, end);
    const uint32_t units = core::bit_range(uint32_t((first - line) / memory::kSectorUnitBytes),
                                     uint32_t((last - 1 - line) / memory::kSectorUnitBytes));
    l2_[map.slice_of(line)]->fill_from_host_copy(map.local_address(line), units);
  }
}

namespace {
template <class Clock>
void bind_each(memory::Interconnect& icnt, std::vector<std::unique_ptr<memory::L2Slice>>& l2,
               std::vector<std::unique_ptr<memory::DramChannel>>& dram, memory::SocMemoryPort* soc, Clock& clock) {
  icnt.clk.bind(clock);
  for (auto& slice : l2) slice->clk.bind(clock);
  for (auto& channel : dram) channel->clk.bind(clock);
  if (soc) soc->clk.bind(clock);
}
}  // namespace
void MemorySystem::take_write_data_from(memory::GlobalMemoryIf* memory) {
  for (memory::L1Cache* l1 : l1s_) l1->take_write_data_from(memory);
  for (auto& slice : l2_) slice->take_write_data_from(soc_ ? nullptr : memory);
}

void MemorySystem::bind_clock(sc_core::sc_port_b<sc_core::sc_signal_in_if<bool>>& clock) {
  bind_each(*icnt_, l2_, dram_, soc_.get(), clock);
}

void MemorySystem::bind_clock(sc_core::sc_signal_in_if<bool>& clock) {
  bind_each(*icnt_, l2_, dram_, soc_.get(), clock);
}

void MemorySystem::bind_l1(uint32_t sm, memory::L1Cache& l1d, memory::L1Cache& l1i) {
  link(l1d.socket, icnt_->upstream(2 * sm), "check_up" + std::to_string(2 * sm));
  link(l1i.socket, icnt_->upstream(2 * sm + 1), "check_up" + std::to_string(2 * sm + 1));
  // An L1 sends each request the cycle after its access, ids ascending.
  icnt_->expect_in_order(2 * sm);
  icnt_->expect_in_order(2 * sm + 1);
  for (memory::L1Cache* l1 : {&l1d, &l1i}) {
    l1s_.push_back(l1);
    if (domain_) l1->take_cycle_from(*domain_);
  }
}

void MemorySystem::bind_tex(uint32_t sm, memory::L1Cache& tex) {
  const uint32_t port = 2 * config_.num_sms + sm;
  link(tex.socket, icnt_->upstream(port), "check_up" + std::to_string(port));
  icnt_->expect_in_order(port);
  l1s_.push_back(&tex);
  if (domain_) tex.take_cycle_from(*domain_);
}

}  // namespace tlmgpu::platform
