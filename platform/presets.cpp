#include "platform/presets.h"

#include "platform/gpu_config.h"

namespace tlmgpu::platform {
namespace {

// Every value below is either from the seed paper's configuration table or
// marked with where else it comes from; docs/CONFIGURATION.md has the table.

// Seed 000 Table I and seed 004 Table 1 (both GPGPU-Sim 3.2.2's GTX480);
// what the tables leave out is GPGPU-Sim's GTX480 configuration: the memory
// system and latencies as GPGPU-Sim 4.2's SM2_GTX480, which the calibration
// compares with (docs/CALIBRATION.md), the rest as 3.2.2's.
GpuConfig gtx480() {
  GpuConfig c;
  c.preset = "gtx480";
  c.num_sms = 15;            // seed 004 (seed 000 lists 14)
  c.core_clock_mhz = 700;    // GPGPU-Sim: 1401 MHz shader clock / 2 (16-lane pipes)
  c.scheduler = "lrr";

  SmConfig& sm = c.sm;
  sm.max_threads = 1536;     // both tables
  sm.max_warps = 48;         // 1536 / 32
  sm.max_ctas = 8;           // both tables
  sm.registers = 32768;      // both tables
  sm.max_regs_per_thread = 63;        // compute capability 2.x (CUDA C Programming Guide)
  sm.register_allocation_unit = 64;   // CUDA occupancy calculator, CC 2.x: 64 per warp
  sm.shared_bytes = 48 * 1024;
  sm.num_schedulers = 2;     // seed 000
  sm.ibuffer_depth = 2;
  sm.fetch_width = 1;
  sm.fetch_policy = "lrr";
  sm.decode_latency = 1;
  sm.issue_width = 1;
  // GPGPU-Sim's 6 SP / 8 SFU / 2 MEM collector units and 16 register banks
  // per SM, shared out over the two schedulers.
  sm.collectors_sp = 3;
  sm.collectors_sfu = 4;
  sm.collectors_mem = 1;
  sm.collectors_dp = 1;
  sm.register_banks = 8;
  sm.shared_banks = 32;
  sm.shared_latency = 26;    // GPGPU-Sim 4.2 SM2_GTX480: -gpgpu_smem_latency 26
  sm.sp = {4, 1};            // GPGPU-Sim f32 add / mul latency 4, pipelined
  sm.sfu = {20, 4};          // 4 SFU lanes: a warp every 4 core cycles
  sm.dp = {8, 8};            // GPGPU-Sim f64 latency 8, ii 8; no DP unit
  sm.int_div = {145, 8};     // GPGPU-Sim integer div
  sm.fp_div_sqrt = {39, 4};  // GPGPU-Sim f32 div
  sm.ldst = {1, 1};
  sm.cvt = {4, 1};
  sm.has_dp_unit = false;

  // 16 KB L1D (both tables): 32 sets x 4 ways x 128 B. GPGPU-Sim 4.2's
  // SM2_GTX480 (-gpgpu_cache:dl1 N:32:128:4,...,S:64:8): whole-line (not
  // sectored) fills, 64 MSHRs merging 8; -gpgpu_l1_latency 35 for every
  // access (a miss pays it too: the answer passes the same pipeline).
  c.l1d = {16 * 1024, 4, 128, 128, 35, 64, 8, false};
  // 12 KB texture cache: SM2_GTX480's -gpgpu_tex_cache:l1 4:128:24,...,F:128:4
  // (4 sets x 24 ways x 128 B, 128 MSHRs merging 4). GPGPU-Sim gives it no
  // latency of its own: a hit costs the L1D's.
  c.tex = {12 * 1024, 24, 128, 128, 35, 128, 4, false};
  // 2 KB L1I (seed 004): 4 sets x 4 ways x 128 B, 2 MSHRs merging 32.
  c.l1i = {2 * 1024, 4, 128, 128, 3, 2, 32, false};
  // 768 KB L2 (both tables) as GPGPU-Sim 4.2 builds it: 12 sub-partitions,
  // two per memory channel, each 64 sets x 8 ways x 128 B, sectored,
  // write-back, 256 MSHRs merging 4 (-gpgpu_cache:dl2 S:64:128:8,...,A:256:4).
  // A request waits -gpgpu_l2_rop_latency 120 in the ROP pipeline before the
  // lookup; a hit then answers at once (1 cycle).
  c.l2 = {768 * 1024 / 12, 8, 128, 32, 1, 256, 4, true};
  c.l2_slices = 12;
  c.l2_interleave_bytes = 256;
  c.l2_rop_latency = 120;
  c.l2_fill_on_host_copy = true;  // -gpgpu_perf_sim_memcpy 1
  // NVIDIA's GK110 white paper: Kepler "improved by 9x to one operation per
  // clock" the atomic throughput to a common global address, so Fermi's L2
  // updates one address once every 9 cycles. (GPGPU-Sim does not serialise
  // same-address atomics.)
  c.l2_atomic_same_address_interval = 9;

  // GPGPU-Sim's config_fermi_islip.icnt: one-stage butterfly (fly, n = 1) at
  // the core clock with 40-byte flits; a packet crosses an input channel,
  // virtual-channel and switch allocation (1 cycle each), the switch and an
  // output channel: 5 cycles, one flit per cycle per port.
  c.icnt = {5, 40};

  // GPGPU-Sim 4.2's SM2_GTX480 (gpgpusim.config), facts only: 6 channels
  // (-gpgpu_n_mem 6), each two x32 GDDR5 chips (-gpgpu_n_mem_per_ctrlr 2,
  // -gpgpu_dram_buswidth 4) at a 924 MHz command clock
  // (-gpgpu_clock_domains ...:924.0), burst length 8, 4 transfers per clock
  // (-dram_data_command_freq_ratio 4): a 64-byte burst every 2 DRAM cycles,
  // 29.6 GB/s per channel, 177 GB/s in all. Timing: the Hynix H5GQ1H24AFR
  // line of -gpgpu_dram_timing_opt, in DRAM cycles. The read to write
  // turnaround is GPGPU-Sim's tRTW = CL + BL / 4 + 2 - WL: 2 idle bus cycles.
  DramConfig& d = c.dram;
  d.channels = 6;
  d.clock_mhz = 924;
  d.latency = 100;           // -dram_latency 100 (core cycles)
  d.banks = 16;              // nbk=16
  d.bank_groups = 4;         // nbkgrp=4; -dram_bnkgrp_indexing_policy 1: group = bank mod 4
  // -gpgpu_mem_addr_mapping dramid@8;...0000RRRR.RRRRRRRR.BBBCCCCB.CCSSSSSS
  // (its low 32 bits; the dramid part is the L2 slice's job here): 12 column
  // bits, so 4 KB rows (2 KB per chip); bank bit 0 is address bit 8, so
  // consecutive 256-byte chunks of a channel alternate bank groups.
  d.address_mapping = "0000RRRR.RRRRRRRR.BBBCCCCB.CCSSSSSS";
  d.row_bytes = 4096;
  d.bus_bytes = 8;           // 2 chips x 4 bytes
  d.burst_length = 8;        // -gpgpu_dram_burst_length 8
  d.data_rate = 4;           // -dram_data_command_freq_ratio 4 (GDDR5)
  d.tRCD = 12;
  d.tRP = 12;
  d.tCL = 12;
  d.tRAS = 28;
  d.tRC = 40;
  d.tRRD = 6;
  d.tCCD = 2;
  d.tCCDL = 3;
  d.tWL = 4;
  d.tWR = 12;
  d.tCDLR = 5;
  d.tRTPL = 2;
  d.turnaround = 2;
  d.queue_depth = 64;        // -gpgpu_frfcfs_dram_sched_queue_size 64
  d.interleave_bytes = 256;  // dramid@8
  // LT mode's cost model, fitted against this preset's timing mode by
  // scripts/calibrate_lt.py --size small (docs/LT_MODE.md).
  c.lt = {1325, 0, 0.603, 1.02, 3.93, 0.231};
  return c;
}

// Seed 002's Pascal TITAN X table; what it leaves out is the GP102 chip's
// published figures, else gtx480's.
GpuConfig titanx_pascal() {
  GpuConfig c = gtx480();
  c.preset = "titanx_pascal";
  c.num_sms = 28;            // "SIMT 28 cores"
  c.core_clock_mhz = 1417;   // "1417 (core)"

  SmConfig& sm = c.sm;
  sm.max_ctas = 32;          // "Max. # of CTA per SM 32"
  sm.max_threads = 2048;     // GP102
  sm.max_warps = 64;
  sm.registers = 65536;      // GP102
  sm.max_regs_per_thread = 255;       // compute capability 6.x
  sm.register_allocation_unit = 256;  // CUDA occupancy calculator, CC 6.x: 256 per warp
  sm.shared_bytes = 96 * 1024;
  sm.num_schedulers = 4;     // "# of warps scheduler per SM 4"
  // Seed 002's warp-sharing figure: one operand collector unit per execution
  // unit type per scheduler.
  sm.collectors_sp = 1;
  sm.collectors_sfu = 1;
  sm.collectors_mem = 1;
  sm.collectors_dp = 1;
  sm.has_dp_unit = true;     // GP102: 4 DP lanes per SM, one per scheduler
  sm.dp = {8, 32};           // one lane: a warp every 32 cycles

  // "24 kB, 48-way": 4 sets. Latency, sectors and MSHRs from GPGPU-Sim 4.2's
  // SM6_TITANX (-gpgpu_l1_latency 82, -gpgpu_cache:dl1 S:4:128:96,...,A:256:8).
  c.l1d = {24 * 1024, 48, 128, 32, 82, 256, 8, false};
  // 48 KB texture cache: SM6_TITANX's -gpgpu_tex_cache:l1 N:16:128:24,...,T:128:4
  // (16 sets x 24 ways x 128 B, 128 MSHRs merging 4); hit latency as the L1D's.
  c.tex = {48 * 1024, 24, 128, 128, 82, 128, 4, false};
  sm.shared_latency = 24;    // SM6_TITANX: -gpgpu_smem_latency 24
  // "4 kB, 48-way" cannot be: 4 KB holds 32 lines of 128 B. 4 ways, as gtx480.
  c.l1i = {4 * 1024, 4, 128, 128, 3, 2, 32, false};
  // "L2 cache 3 MB", "# of memory controllers 12": as SM6_TITANX builds it,
  // 24 sub-partitions (two per controller) of 64 sets x 16 ways x 128 B,
  // 256 MSHRs merging 64 (-gpgpu_cache:dl2 S:64:128:16,...,A:256:64), ROP
  // latency 120 as gtx480.
  c.l2 = {3 * 1024 * 1024 / 24, 16, 128, 32, 1, 256, 64, true};
  c.l2_slices = 24;
  // Kepler and later: one atomic per clock to a common address (GK110 white paper).
  c.l2_atomic_same_address_interval = 1;

  // GPGPU-Sim 4.2's SM6_TITANX, facts only: 12 channels of one x32 GDDR5X
  // chip (-gpgpu_n_mem 12, -gpgpu_n_mem_per_ctrlr 1, buswidth 4) at a
  // 2500 MHz command clock, burst length 8, 4 transfers per clock: a 32-byte
  // burst every 2 DRAM cycles, 40 GB/s per channel, 480 GB/s in all (GP102's
  // 10 Gb/s per pin on 384 bits). Timing: its -gpgpu_dram_timing_opt line.
  DramConfig& d = c.dram;
  d.channels = 12;
  d.clock_mhz = 2500;
  d.latency = 100;           // -dram_latency 100
  d.banks = 16;
  d.bank_groups = 4;
  // dramid@8;...0000RRRR.RRRRRRRR.RBBBCCCC.BCCSSSSS: 11 column bits (2 KB
  // rows); bank bit 0 is address bit 7, so consecutive 128-byte lines
  // alternate bank groups.
  d.address_mapping = "0000RRRR.RRRRRRRR.RBBBCCCC.BCCSSSSS";
  d.row_bytes = 2048;
  d.bus_bytes = 4;
  d.burst_length = 8;
  d.data_rate = 4;
  d.tRCD = 16;
  d.tRP = 16;
  d.tCL = 16;
  d.tRAS = 37;
  d.tRC = 52;
  d.tRRD = 8;
  d.tCCD = 2;
  d.tCCDL = 4;
  d.tWL = 6;
  d.tWR = 16;
  d.tCDLR = 7;
  d.tRTPL = 3;
  d.turnaround = 2;          // tRTW = CL + BL / 4 + 2 - WL
  d.queue_depth = 64;        // -gpgpu_frfcfs_dram_sched_queue_size 64
  c.lt = {792, 506, 1, 0.972, 5.89, 0.206};  // scripts/calibrate_lt.py --size small (docs/LT_MODE.md)
  return c;
}

// Seed 003's Vortex (one SM, RTL simulation); the memory side is not
// described there and is gtx480's.
GpuConfig vortex_1sm() {
  GpuConfig c = gtx480();
  c.preset = "vortex_1sm";
  c.num_sms = 1;             // "a single SM"

  SmConfig& sm = c.sm;
  sm.max_warps = 32;         // "at most 32 warps of 32 threads"
  sm.max_threads = 1024;
  sm.max_ctas = 32;          // not a limit: one CTA per warp slot
  sm.registers = 65536;      // Vortex: 32 integer + 32 FP registers per thread
  // Each warp slot owns a fixed register file of 64 registers per thread
  // (32 integer + 32 FP): every warp takes 64 x 32, whatever its kernel needs,
  // and no kernel is ever short of registers (it would spill to fit 64).
  sm.max_regs_per_thread = 64;
  sm.register_allocation_unit = 2048;
  sm.num_schedulers = 1;     // "a single warp scheduler per SM"
  sm.ibuffer_depth = 4;      // "instruction queues ... t_F + 1 = 4"
  sm.decode_latency = 1;     // "decode 1"
  sm.fetch_instructions = 1; // "requests one instruction per cycle to the instruction cache"
  sm.oracle_schedulers = true;  // seed 003 section VI-A.4
  sm.sp = {4, 1};            // "4 cycles for fmadd, fmul and fadd"
  sm.cvt = {5, 1};           // "5 cycles for fcvt"
  sm.fp_div_sqrt = {16, 16}; // "16 cycles for fsqrt and fdiv", not pipelined
  // One scheduler gets all of gtx480's per-SM collector units and banks.
  sm.collectors_sp = 6;
  sm.collectors_sfu = 8;
  sm.collectors_mem = 2;
  sm.register_banks = 16;

  c.l1i.hit_latency = 3;     // "i-cache hit latency 3"
  // The DRAM stays gtx480's GDDR5 (924 MHz, GPGPU-Sim's timing and mapping):
  // seed 003 describes no memory side, and its caches and crossbar are
  // gtx480's too, so the memory hierarchy stays one calibrated whole.
  c.lt = {782, 0, 1.23, 1.15, 1, 0.326};  // scripts/calibrate_lt.py --size small (docs/LT_MODE.md)
  return c;
}

struct PresetEntry {
  const char* name;
  const char* description;
  GpuConfig (*build)();
};

const PresetEntry kPresets[] = {
    {"gtx480",
     "NVIDIA Fermi GTX480 as in GPGPU-Sim (memory as its 4.2 SM2_GTX480): 15 SMs, 2 schedulers each, 6 GDDR5 "
     "channels (default)",
     gtx480},
    {"titanx_pascal", "NVIDIA Pascal TITAN X: 28 SMs, 4 schedulers each, 3 MB L2, 12 memory controllers (seed 002)",
     titanx_pascal},
    {"vortex_1sm", "Vortex RISC-V GPU: 1 SM, 32 warps, 1 scheduler, 4-deep instruction queues (seed 003)",
     vortex_1sm},
};

}  // namespace

std::vector<PresetDescription> preset_descriptions() {
  std::vector<PresetDescription> list;
  for (const PresetEntry& p : kPresets) list.push_back({p.name, p.description});
  return list;
}

GpuConfig preset_config(const std::string& name) {
  for (const PresetEntry& p : kPresets)
    if (name == p.name) return p.build();
  std::string names;
  for (const PresetEntry& p : kPresets) names += (names.empty() ? "" : ", ") + std::string(p.name);
  throw ConfigError("unknown preset '" + name + "' (presets: " + names + ")");
}

}  // namespace tlmgpu::platform
