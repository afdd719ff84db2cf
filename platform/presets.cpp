#include "platform/presets.h"

#include "platform/gpu_config.h"

namespace tlmgpu::platform {
namespace {

// Every value below is either from the seed paper's configuration table or
// marked with where else it comes from; docs/CONFIGURATION.md has the table.

// Seed 000 Table I and seed 004 Table 1 (both GPGPU-Sim 3.2.2's GTX480);
// what the tables leave out is GPGPU-Sim 3.2.2's GTX480 configuration.
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
  sm.shared_latency = 20;
  sm.sp = {4, 1};            // GPGPU-Sim f32 add / mul latency 4, pipelined
  sm.sfu = {20, 4};          // 4 SFU lanes: a warp every 4 core cycles
  sm.dp = {8, 8};            // GPGPU-Sim f64 latency 8, ii 8; no DP unit
  sm.int_div = {145, 8};     // GPGPU-Sim integer div
  sm.fp_div_sqrt = {39, 4};  // GPGPU-Sim f32 div
  sm.ldst = {1, 1};
  sm.cvt = {4, 1};
  sm.has_dp_unit = false;

  // 16 KB L1D (both tables): 32 sets x 4 ways x 128 B, 32 MSHRs merging 8.
  c.l1d = {16 * 1024, 4, 128, 32, 1, 32, 8, false};
  // 2 KB L1I (seed 004): 4 sets x 4 ways x 128 B, 2 MSHRs merging 32.
  c.l1i = {2 * 1024, 4, 128, 128, 3, 2, 32, false};
  // 768 KB L2 (both tables), one 128 KB 8-way write-back slice per channel.
  c.l2 = {768 * 1024 / 6, 8, 128, 32, 10, 32, 4, true};
  c.l2_slices = 6;
  c.l2_interleave_bytes = 256;

  c.icnt = {8, 32};

  // Seed 004: FR-FCFS, 6 channels, "48 B/cycle": the 384-bit bus moves 48 B
  // per data transfer, at GDDR5's 3696 MT/s (924 MHz x 4): 177 GB/s, 253 B
  // per 700 MHz core cycle, 42 B per channel. A sector per core cycle per
  // channel (32 B, 134 GB/s) is the nearest whole burst. Timing: GPGPU-Sim's
  // GDDR5 nbk=16, RCD=12, RP=12, CL=12, RAS=28.
  DramConfig& d = c.dram;
  d.channels = 6;
  d.banks = 16;
  d.row_bytes = 2048;
  d.tRCD = 12;
  d.tRP = 12;
  d.tCL = 12;
  d.tRAS = 28;
  d.bus_bytes = 32;
  d.burst_cycles = 1;        // one 32-byte sector per core cycle
  d.queue_depth = 32;        // GPGPU-Sim: 16 per chip, 2 chips per controller
  d.interleave_bytes = 256;
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

  c.l1d = {24 * 1024, 48, 128, 32, 1, 32, 8, false};  // "24 kB, 48-way": 4 sets
  // "4 kB, 48-way" cannot be: 4 KB holds 32 lines of 128 B. 4 ways, as gtx480.
  c.l1i = {4 * 1024, 4, 128, 128, 3, 2, 32, false};
  // "L2 cache 3 MB", "# of memory controllers 12": a 256 KB 16-way slice each.
  c.l2 = {3 * 1024 * 1024 / 12, 16, 128, 32, 10, 32, 4, true};
  c.l2_slices = 12;

  c.dram.channels = 12;
  // GP102: 384-bit GDDR5X at 10 Gb/s per pin, 480 GB/s: 339 B per 1417 MHz
  // core cycle, 28 B per controller; one 32-byte sector per cycle (544 GB/s)
  // is the nearest whole burst.
  c.dram.bus_bytes = 32;
  c.dram.burst_cycles = 1;
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
  return c;
}

struct PresetEntry {
  const char* name;
  const char* description;
  GpuConfig (*build)();
};

const PresetEntry kPresets[] = {
    {"gtx480", "NVIDIA Fermi GTX480 as in GPGPU-Sim 3.2.2: 15 SMs, 2 schedulers each, 6 DRAM channels (default)",
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
