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

LtLoadLatencies lt_load_latencies(const core::GpuConfig& c) {
  // The path a load takes in timing mode: the L1D; on a miss the crossbar
  // there and back, the ROP pipeline and the L2 lookup; on an L2 miss the
  // DRAM's fixed latency, activate and CAS (in DRAM clocks).
  LtLoadLatencies l;
  l.l1_hit = c.l1d.hit_latency;
  l.l2_hit = l.l1_hit + 2.0 * c.icnt.latency + c.l2_rop_latency + c.l2.hit_latency;
  l.dram = l.l2_hit + c.dram.latency + double(c.dram.tRCD + c.dram.tCL) * c.core_clock_mhz / c.dram.clock_mhz;
  return l;
}

double lt_dram_bytes_per_cycle(const core::GpuConfig& c) {
  const double dram_to_core = c.dram.clock_mhz / c.core_clock_mhz;
  return double(c.dram.channels) * c.dram.bus_bytes * c.dram.data_rate * dram_to_core;
}

LtEstimate estimate_lt_cycles(const LtLaunchCounts& counts, const Occupancy& occupancy, const core::GpuConfig& config) {
  LtEstimate e;
  e.occupancy = occupancy;
  const uint64_t total = counts.total_warp_insts();
  if (counts.ctas == 0 || total == 0) return e;
  const core::SmConfig& sm = config.sm;
  const uint32_t num_sms = config.num_sms;
  const uint64_t per_sm = std::max<uint32_t>(occupancy.ctas_per_sm, 1);
  e.ctas_on_busiest_sm = (counts.ctas + num_sms - 1) / num_sms;
  e.waves = (e.ctas_on_busiest_sm + per_sm - 1) / per_sm;

  // Per warp instruction, on average: issue slots (each instruction takes its
  // pipeline's initiation interval; the LD/ST unit sends one line or one
  // shared-memory bank cycle per cycle), and cycles of latency when every
  // instruction waits for the one before.
  const LtLoadLatencies lat = lt_load_latencies(config);
  double slots = 0, chain = 0;
  for (size_t p = 0; p < LtLaunchCounts::kPipes; ++p) {
    const core::UnitTiming t = sm::pipe_timing(sm::Pipe(p), sm);
    slots += double(counts.warp_insts[p]) * t.initiation_interval;
    if (sm::Pipe(p) != sm::Pipe::Mem) chain += double(counts.warp_insts[p]) * t.latency;
  }
  slots /= double(sm.num_schedulers) * sm.issue_width;
  slots = std::max(slots, double(counts.global_lines + counts.shared_bank_cycles));
  const uint64_t mem = counts.warp_insts[size_t(sm::Pipe::Mem)];
  const uint64_t other_mem = mem - std::min(mem, counts.global_loads + counts.shared_accesses);
  const uint64_t hits = std::min(counts.global_loads, counts.loads_l1_hit + counts.loads_l2_hit);
  chain += double(counts.loads_l1_hit) * lat.l1_hit + double(hits - std::min(hits, counts.loads_l1_hit)) * lat.l2_hit +
           double(counts.global_loads - hits) * lat.dram + double(counts.shared_accesses) * sm.shared_latency +
           double(other_mem) * sm.ldst.latency;
  const double slots_per_inst = slots / double(total), chain_per_inst = chain / double(total);

  // Per SM (CTA i runs on SM i mod SMs): issue is its CTAs' instructions;
  // latency is a wave's longest warp, once per wave of resident CTAs (or the
  // longest CTA alone, when one CTA outlasts the rest).
  std::vector<double> sm_insts(num_sms, 0), sm_chain(num_sms, 0), sm_longest(num_sms, 0);
  std::vector<uint64_t> sm_ctas(num_sms, 0);
  const bool per_cta = counts.cta_warp_insts.size() == counts.ctas && counts.cta_longest_warp.size() == counts.ctas;
  const double warps_per_cta = std::max<uint32_t>(counts.warps_per_cta, 1);
  for (uint64_t i = 0; i < counts.ctas; ++i) {
    const double insts = per_cta ? double(counts.cta_warp_insts[i]) : double(total) / double(counts.ctas);
    const double longest = per_cta ? double(counts.cta_longest_warp[i]) : insts / warps_per_cta;
    const size_t s = size_t(i % num_sms);
    sm_insts[s] += insts;
    sm_chain[s] += longest * chain_per_inst;
    sm_longest[s] = std::max(sm_longest[s], longest * chain_per_inst);
    ++sm_ctas[s];
  }
  for (uint32_t s = 0; s < num_sms; ++s) {
    if (sm_ctas[s] == 0) continue;
    e.issue_bound = std::max(e.issue_bound, sm_insts[s] * slots_per_inst);
    const double waves = double((sm_ctas[s] + per_sm - 1) / per_sm);
    e.latency_bound = std::max({e.latency_bound, sm_longest[s], waves * sm_chain[s] / double(sm_ctas[s])});
  }

  // Bandwidth: the L2 misses' sectors through DRAM, or every sector through
  // the L2 slices' crossbar ports, at peak.
  const double l2_bytes_per_cycle = double(config.l2_slices) * config.icnt.bytes_per_cycle;
  e.bandwidth_bound = std::max(double(counts.dram_sectors) * 32.0 / lt_dram_bytes_per_cycle(config),
                               double(counts.global_sectors) * 32.0 / l2_bytes_per_cycle);

  // Contention: atomics on one line are served one after another by its L2
  // slice, each a round trip for the warp that waits on it (spin locks).
  e.contention_bound = double(counts.hottest_line_atomics) * lat.l2_hit;

  const core::LtConfig& k = config.lt;
  const double bound = std::max({k.issue_scale * e.issue_bound, k.latency_scale * e.latency_bound,
                                 k.bandwidth_scale * e.bandwidth_bound, k.contention_scale * e.contention_bound});
  const double cycles = k.launch_cycles + k.wave_cycles * double(e.waves) + bound;
  e.cycles = std::max<uint64_t>(1, uint64_t(std::llround(cycles)));
  return e;
}

}  // namespace tlmgpu::platform
