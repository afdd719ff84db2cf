#include "platform/memory_system.h"

#include "core/bit_ops.h"

#include <algorithm>
#include <string>

namespace tlmgpu::memory {

MemorySystem::MemorySystem(const platform::GpuConfig& config, const sc_core::sc_time& clock_period,
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
    icnt_ = std::make_unique<Interconnect>("icnt", config_.icnt, 3 * config_.num_sms, config_.l2_slices,
                                           config_.l2_interleave_bytes, clock_period);
  } else {
    icnt_ = std::make_unique<Interconnect>("icnt", config_, clock_period);
  }
  if (config_.soc_memory == "soc") {
    // Inside a SoC: no DRAM channels; every slice has its own port's stream.
    soc_ = std::make_unique<SocMemoryPort>("soc_memory", clock_period, config_.l2_slices, config_.l2.line_bytes);
    for (uint32_t s = 0; s < config_.l2_slices; ++s) {
      l2_.push_back(std::make_unique<L2Slice>(("l2_" + std::to_string(s)).c_str(), config_, clock_period, s));
      link(icnt_->downstream(s), l2_.back()->target_socket, "check_l2_" + std::to_string(s));
      link(l2_.back()->dram_socket, soc_->port(s), "check_soc_" + std::to_string(s));
    }
    return;
  }
  std::vector<uint32_t> ports_used(config_.dram.channels, 0);
  std::vector<uint32_t> ports_needed(config_.dram.channels, 0);
  for (uint32_t s = 0; s < config_.l2_slices; ++s) ++ports_needed[channel_of_slice(s)];
  for (uint32_t c = 0; c < config_.dram.channels; ++c)
    dram_.push_back(std::make_unique<DramChannel>(("dram" + std::to_string(c)).c_str(), config_.dram,
                                                  config_.core_clock_mhz, clock_period,
                                                  ports_needed[c]));
  for (uint32_t s = 0; s < config_.l2_slices; ++s) {
    l2_.push_back(std::make_unique<L2Slice>(("l2_" + std::to_string(s)).c_str(), config_, clock_period, s));
    link(icnt_->downstream(s), l2_.back()->target_socket, "check_l2_" + std::to_string(s));
    const uint32_t c = channel_of_slice(s);
    link(l2_.back()->dram_socket, dram_[c]->port(ports_used[c]++), "check_dram_" + std::to_string(s));
  }
  // With fewer slices than channels some channels get no port and stay idle.
}

MemorySystem::~MemorySystem() = default;

uint32_t MemorySystem::channel_of_slice(uint32_t slice) const {
  return uint32_t(uint64_t(slice) * config_.dram.channels / config_.l2_slices);
}

void MemorySystem::drive_from(CycleCalendar& calendar) {
  icnt_->drive_from(calendar);
  for (auto& slice : l2_) slice->drive_from(calendar);
  for (auto& channel : dram_) channel->drive_from(calendar);
  if (soc_) soc_->drive_from(calendar);
  calendar_ = &calendar;
  for (L1Cache* l1 : l1s_) l1->take_cycle_from(calendar);
}

void MemorySystem::fill_l2_from_host_copy(uint64_t address, uint64_t bytes) {
  const L2AddressMap& map = icnt_->address_map();
  const uint64_t line_bytes = config_.l2.line_bytes;
  const uint64_t end = address + bytes;
  // One call per line of each slice: a line lies within one interleave chunk
  // (the interleave is a multiple of the line size).
  for (uint64_t line = address - address % line_bytes; line < end; line += line_bytes) {
    const uint64_t first = std::max(line, address), last = std::min(line + line_bytes, end);
    const uint32_t units = bit_range(uint32_t((first - line) / kSectorUnitBytes),
                                     uint32_t((last - 1 - line) / kSectorUnitBytes));
    l2_[map.slice_of(line)]->fill_from_host_copy(map.local_address(line), units);
  }
}

void MemorySystem::take_write_data_from(GlobalMemoryIf* memory) {
  for (L1Cache* l1 : l1s_) l1->take_write_data_from(memory);
  for (auto& slice : l2_) slice->take_write_data_from(soc_ ? nullptr : memory);
}

void MemorySystem::bind_clock(sc_core::sc_port_b<sc_core::sc_signal_in_if<bool>>& clock) {
  icnt_->clk.bind(clock);
  for (auto& slice : l2_) slice->clk.bind(clock);
  for (auto& channel : dram_) channel->clk.bind(clock);
  if (soc_) soc_->clk.bind(clock);
}

void MemorySystem::bind_l1(uint32_t sm, L1Cache& l1d, L1Cache& l1i) {
  link(l1d.socket, icnt_->upstream(2 * sm), "check_up" + std::to_string(2 * sm));
  link(l1i.socket, icnt_->upstream(2 * sm + 1), "check_up" + std::to_string(2 * sm + 1));
  // An L1 sends each request the cycle after its access, ids ascending.
  icnt_->expect_in_order(2 * sm);
  icnt_->expect_in_order(2 * sm + 1);
  for (L1Cache* l1 : {&l1d, &l1i}) {
    l1s_.push_back(l1);
    if (calendar_) l1->take_cycle_from(*calendar_);
  }
}

void MemorySystem::bind_tex(uint32_t sm, L1Cache& tex) {
  const uint32_t port = 2 * config_.num_sms + sm;
  link(tex.socket, icnt_->upstream(port), "check_up" + std::to_string(port));
  icnt_->expect_in_order(port);
  l1s_.push_back(&tex);
  if (calendar_) tex.take_cycle_from(*calendar_);
}

}  // namespace tlmgpu::memory
