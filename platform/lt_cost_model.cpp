#include "platform/lt_cost_model.h"

#include <algorithm>
#include <cmath>

#include "model/sm/instruction_timing.h"

namespace tlmgpu::platform {

uint64_t LtLaunchCounts::total_warp_insts() const {
  uint64_t n = 0;
  for (uint64_t v : warp_insts) n += v;
  return n;
}

double lt_global_load_latency(const GpuConfig& c) {
  // The path a missing load takes in timing mode: L1D, crossbar there and
  // back, the ROP pipeline, the L2 lookup, then DRAM activate and CAS in
  // DRAM clocks.
  const double dram_to_core = c.core_clock_mhz / c.dram.clock_mhz;
  return double(c.l1d.hit_latency) + 2.0 * c.icnt.latency + c.l2_rop_latency + c.l2.hit_latency +
         c.dram.latency + double(c.dram.tRCD + c.dram.tCL) * dram_to_core;
}

double lt_dram_bytes_per_cycle(const GpuConfig& c) {
  const double dram_to_core = c.dram.clock_mhz / c.core_clock_mhz;
  return double(c.dram.channels) * c.dram.bus_bytes * c.dram.data_rate * dram_to_core;
}

LtEstimate estimate_lt_cycles(const LtLaunchCounts& counts, const Occupancy& occupancy, const GpuConfig& config) {
  LtEstimate e;
  e.occupancy = occupancy;
  if (counts.ctas == 0) return e;
  const SmConfig& sm = config.sm;
  e.ctas_on_busiest_sm = (counts.ctas + config.num_sms - 1) / config.num_sms;
  const uint64_t per_sm = std::max<uint32_t>(occupancy.ctas_per_sm, 1);
  e.waves = (e.ctas_on_busiest_sm + per_sm - 1) / per_sm;

  // Issue: the busiest SM's share of the instructions over its issue slots,
  // each taking its pipeline's initiation interval; or its LD/ST unit, which
  // sends one line (or one shared-memory bank cycle) per cycle.
  double slots = 0, chain = 0;
  for (size_t p = 0; p < LtLaunchCounts::kPipes; ++p) {
    const UnitTiming t = sm::pipe_timing(sm::Pipe(p), sm);
    slots += double(counts.warp_insts[p]) * t.initiation_interval;
    if (sm::Pipe(p) != sm::Pipe::Mem) chain += double(counts.warp_insts[p]) * t.latency;
  }
  slots /= double(sm.num_schedulers) * sm.issue_width;
  const double ldst = double(counts.global_lines + counts.shared_bank_cycles);
  const double share = double(e.ctas_on_busiest_sm) / double(counts.ctas);
  e.issue_bound = share * std::max(slots, ldst);

  // Latency: one warp's instructions run back to back, each waiting for the
  // one before; once per wave.
  const uint64_t mem = counts.warp_insts[size_t(sm::Pipe::Mem)];
  const uint64_t other_mem = mem - std::min(mem, counts.global_loads + counts.shared_accesses);
  chain += double(counts.global_loads) * lt_global_load_latency(config) +
           double(counts.shared_accesses) * sm.shared_latency + double(other_mem) * sm.ldst.latency;
  const double warps = double(counts.ctas) * std::max<uint32_t>(counts.warps_per_cta, 1);
  e.latency_bound = double(e.waves) * chain / warps;

  // Bandwidth: every sector once through DRAM at peak.
  e.bandwidth_bound = double(counts.global_sectors) * 32.0 / lt_dram_bytes_per_cycle(config);

  const LtConfig& k = config.lt;
  const double bound = std::max({k.issue_scale * e.issue_bound, k.latency_scale * e.latency_bound,
                                 k.bandwidth_scale * e.bandwidth_bound});
  const double cycles = k.launch_cycles + k.wave_cycles * double(e.waves) + bound;
  e.cycles = std::max<uint64_t>(1, uint64_t(std::llround(cycles)));
  return e;
}

}  // namespace tlmgpu::platform
