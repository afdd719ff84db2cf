#include "platform/occupancy.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "model/ptx/ptx_ir.h"
#include "platform/gpu_device.h"

namespace tlmgpu::platform {

const char* register_source_name(RegisterSource s) {
  switch (s) {
    case RegisterSource::Estimate: return "estimate";
    case RegisterSource::Launch: return "launch";
    case RegisterSource::Override: return "override";
    case RegisterSource::Trace: return "trace";
  }
  return "?";
}

uint64_t registers_per_warp(const core::SmConfig& sm, uint32_t regs_per_thread) {
  const uint64_t unit = std::max(1u, sm.register_allocation_unit);
  return (uint64_t(regs_per_thread) * ptx::kWarpSize + unit - 1) / unit * unit;
}

Occupancy compute_occupancy(const core::SmConfig& sm, const std::string& kernel_name, uint32_t threads_per_cta,
                            uint32_t shared_bytes, uint32_t regs_per_thread, RegisterSource regs_source) {
  Occupancy o;
  o.regs_per_thread = regs_per_thread;
  o.regs_source = regs_source;
  o.warps_per_cta = (threads_per_cta + ptx::kWarpSize - 1) / ptx::kWarpSize;
  const uint64_t unit = std::max(1u, sm.register_allocation_unit);
  const uint64_t warp_regs = registers_per_warp(sm, regs_per_thread);
  o.regs_per_warp = uint32_t(std::min<uint64_t>(warp_regs, std::numeric_limits<uint32_t>::max()));
  o.regs_per_cta = uint32_t(std::min<uint64_t>(warp_regs * o.warps_per_cta, std::numeric_limits<uint32_t>::max()));
  o.shared_per_cta = shared_bytes;

  // Threads are held in whole warps, as the SM allocates them.
  const uint32_t cta_threads = o.warps_per_cta * ptx::kWarpSize;
  struct Limit {
    const char* resource;
    uint64_t ctas;
    std::string need, have;
  };
  const Limit limits[] = {
      {"threads", cta_threads ? sm.max_threads / cta_threads : 0, std::to_string(cta_threads) + " threads",
       std::to_string(sm.max_threads) + " (sm.max_threads)"},
      {"warps", o.warps_per_cta ? sm.max_warps / o.warps_per_cta : 0, std::to_string(o.warps_per_cta) + " warps",
       std::to_string(sm.max_warps) + " (sm.max_warps)"},
      {"cta_slots", sm.max_ctas, "1 CTA slot", std::to_string(sm.max_ctas) + " (sm.max_ctas)"},
      {"registers", o.regs_per_cta ? sm.registers / o.regs_per_cta : sm.max_ctas,
       std::to_string(o.regs_per_cta) + " registers (" + std::to_string(o.warps_per_cta) + " warps x " +
           std::to_string(o.regs_per_warp) + ": " + std::to_string(regs_per_thread) + " per thread from the " +
           register_source_name(regs_source) + ", x 32 threads, rounded up to sm.register_allocation_unit " +
           std::to_string(unit) + ")",
       std::to_string(sm.registers) + " (sm.registers)"},
      {"shared_memory", shared_bytes ? sm.shared_bytes / shared_bytes : sm.max_ctas,
       std::to_string(shared_bytes) + " bytes of shared memory", std::to_string(sm.shared_bytes) + " (sm.shared_bytes)"},
  };
  const Limit* lowest = &limits[0];
  for (const Limit& l : limits)
    if (l.ctas < lowest->ctas) lowest = &l;
  if (lowest->ctas == 0) {
    std::string msg = "a CTA of '" + kernel_name + "' does not fit in an SM: it needs " + lowest->need +
                      ", the SM has " + lowest->have;
    if (std::string(lowest->resource) == "registers")
      msg += "; give the registers per thread ptxas reports with --regs-per-thread (or regs_per_thread in a "
             "launch file), or launch smaller CTAs";
    throw LaunchError(msg);
  }
  o.ctas_per_sm = uint32_t(lowest->ctas);
  o.limited_by = lowest->resource;
  o.warps_per_sm = o.ctas_per_sm * o.warps_per_cta;
  const uint32_t schedulers = std::max(1u, sm.num_schedulers);
  o.warps_per_scheduler = (o.warps_per_sm + schedulers - 1) / schedulers;
  return o;
}

bool parse_carveouts(const std::string& text, std::vector<uint32_t>& kb, std::string& error) {
  kb.clear();
  size_t at = 0;
  while (at <= text.size()) {
    const size_t comma = std::min(text.find(',', at), text.size());
    std::string item = text.substr(at, comma - at);
    item.erase(0, item.find_first_not_of(' '));
    item.erase(item.find_last_not_of(' ') + 1);
    if (item.empty() || item.find_first_not_of("0123456789") != std::string::npos || item.size() > 6) {
      error = "expected ascending whole numbers of KB separated by commas (e.g. 0,8,16,32,64,96), got '" + text + "'";
      return false;
    }
    const uint32_t v = uint32_t(std::stoul(item));
    if (!kb.empty() && v <= kb.back()) {
      error = "the carve-outs must ascend ('" + text + "')";
      return false;
    }
    kb.push_back(v);
    at = comma + 1;
  }
  return true;
}

uint32_t carveout_l1_ways(const core::GpuConfig& config, uint32_t shared_kb) {
  const double left = 1.0 - double(shared_kb) * 1024.0 / double(config.sm.unified_l1_bytes);
  return uint32_t(std::max(0L, std::lround(double(config.l1d.ways) * left)));
}

L1Carveout choose_carveout(const core::GpuConfig& config, uint32_t shared_per_cta, uint32_t resident_ctas,
                           int preferred_percent) {
  std::vector<uint32_t> options;
  std::string error;
  if (!parse_carveouts(config.sm.shared_carveouts_kb, options, error) || options.empty())
    throw std::invalid_argument("sm.shared_carveouts_kb: " + error);
  const auto first_holding = [&](uint64_t bytes) {
    for (uint32_t kb : options)
      if (uint64_t(kb) * 1024 >= bytes) return kb;
    return options.back();  // validate_config: the last holds sm.shared_bytes
  };
  L1Carveout c;
  if (preferred_percent >= 0) {
    // A percentage of the largest carve-out, in bytes, rounded up.
    const uint64_t wanted = (uint64_t(options.back()) * 1024 * uint64_t(std::min(preferred_percent, 100)) + 99) / 100;
    c.shared_kb = std::max(first_holding(wanted), first_holding(shared_per_cta));
  } else {
    c.shared_kb = first_holding(uint64_t(shared_per_cta) * resident_ctas);
  }
  c.l1_ways = carveout_l1_ways(config, c.shared_kb);
  c.l1_bytes = uint32_t(uint64_t(config.l1d.size_bytes) / config.l1d.ways * c.l1_ways);
  return c;
}

core::SmConfig launch_sm(const core::GpuConfig& config, uint32_t shared_per_cta, int preferred_percent) {
  core::SmConfig sm = config.sm;
  if (preferred_percent >= 0 && config.sm.unified_l1_bytes != 0)
    sm.shared_bytes =
        std::min(sm.shared_bytes, choose_carveout(config, shared_per_cta, 1, preferred_percent).shared_kb * 1024);
  return sm;
}

}  // namespace tlmgpu::platform
