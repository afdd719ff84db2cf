// Every parameter of the cycle-level GPU, resolved once from a preset, INI
// files and --set overrides; modules take the parts they need by const&.
// The structs are the bottom layer's so that every module may include them;
// their keys, the INI reader and validation are the platform's
// (platform/config_keys.h). The namespace is the one every module already
// names them by.
#pragma once

#include <cstdint>
#include <string>

namespace tlmgpu::core {

/// An execution pipeline: cycles from issue to result, and cycles between two
/// issues into it (1 = fully pipelined; = latency for divide / sqrt).
struct UnitTiming {
  uint32_t latency = 4;
  uint32_t initiation_interval = 1;
};

struct CacheConfig {
  uint32_t size_bytes = 16 * 1024;
  uint32_t ways = 4;
  uint32_t line_bytes = 128;
  uint32_t sector_bytes = 32;
  uint32_t hit_latency = 1;     ///< cycles
  uint32_t mshrs = 32;          ///< outstanding line misses
  uint32_t mshr_merges = 8;     ///< requests merged into one MSHR
  /// Fermi L1D: write-evict on hit, no write-allocate, writes go through to L2.
  /// L2: write-back with write-allocate.
  bool write_back = false;
  /// L1s: requests waiting for the crossbar to take them (misses, stores,
  /// atomics, bypassing loads); while full, accesses that would send one are
  /// refused (0: unbounded). The L2 slices do not use it (l2_dram_queue).
  uint32_t miss_queue = 8;
  /// L1D: a store allocates its line without fetching it and makes the
  /// sectors it writes whole valid (Volta and later: write-through with
  /// allocation, GPGPU-Sim's lazy fetch on read); else Fermi's write-evict,
  /// no-allocate. Stores write through to the L2 either way.
  bool write_allocate = false;
};

struct SmConfig {
  uint32_t max_threads = 1536;
  uint32_t max_ctas = 8;
  uint32_t max_warps = 48;
  uint32_t registers = 32768;        ///< 32-bit registers per SM
  /// Registers one thread may use: ptxas spills beyond it (Fermi: 63).
  uint32_t max_regs_per_thread = 63;
  /// Registers are given to a warp in multiples of this (NVIDIA's occupancy
  /// calculator: 64 on compute capability 2.x, 256 on 3.x to 8.x).
  uint32_t register_allocation_unit = 64;
  uint32_t shared_bytes = 48 * 1024;
  /// One array for the L1D and shared memory (Volta and later), bytes; 0:
  /// the L1D keeps l1d.size_bytes. With it l1d.size_bytes is the whole
  /// array, and each launch takes the first of shared_carveouts_kb that
  /// holds the shared memory of its resident CTAs; the L1D keeps the rest
  /// (its sets stay, its ways shrink).
  uint32_t unified_l1_bytes = 0;
  std::string shared_carveouts_kb;   ///< ascending, comma-separated KB: "0,8,16,32,64,96"
  uint32_t num_schedulers = 2;       ///< warp w belongs to scheduler w mod N
  uint32_t ibuffer_depth = 2;        ///< decoded instructions buffered per warp
  uint32_t fetch_width = 1;          ///< warps fetched per cycle
  /// Instructions one fetch brings: 0 = the rest of the L1I line the buffer
  /// has room for; N = N instructions (a pipelined instruction cache that
  /// accepts a request per cycle, as Vortex's: seed 003).
  uint32_t fetch_instructions = 0;
  std::string fetch_policy = "lrr";  ///< lrr, gtlrr or gtlo (seed 003's fetch scheduler)
  /// Seed 003's oracle issue schedulers osched1 / osched2 beside each real one.
  bool oracle_schedulers = false;
  uint32_t decode_latency = 1;
  uint32_t issue_width = 1;          ///< instructions per scheduler per cycle
  /// Operand collector units per execution-unit class, per scheduler.
  uint32_t collectors_sp = 3, collectors_sfu = 4, collectors_mem = 1, collectors_dp = 1;
  uint32_t register_banks = 8;       ///< register-file banks (per scheduler's share)
  uint32_t shared_banks = 32;
  uint32_t shared_latency = 26;
  UnitTiming sp{4, 1};
  UnitTiming sfu{20, 4};
  UnitTiming dp{8, 8};               ///< units without DP hardware: a slow pipeline
  UnitTiming int_div{145, 8};        ///< integer div / rem
  UnitTiming fp_div_sqrt{39, 4};     ///< fdiv / fsqrt, f32 .rn (set ii = latency for a non-pipelined unit)
  UnitTiming ldst{1, 1};             ///< address generation; memory latency comes from the caches
  bool has_dp_unit = false;          ///< else DP instructions use the SFU-like dp timing on the SP pipe
  UnitTiming cvt{4, 1};              ///< cvt (int <-> float, float <-> float conversions) on the SP pipe
  /// A tensor-core pipe per scheduler (Volta and later) for wmma.mma; else
  /// wmma.mma runs on the SP pipe with the sp timing.
  bool has_tensor_cores = false;
  UnitTiming tensor{64, 64};         ///< wmma.mma on the tensor-core pipe (with has_tensor_cores)
};

struct InterconnectConfig {
  uint32_t latency = 5;              ///< cycles, each direction
  uint32_t bytes_per_cycle = 40;     ///< per port, each direction (one flit)
  /// Flits an upstream port's input link buffers ahead of its transmission;
  /// a request that does not fit has its END_REQ withheld (0: unbounded).
  uint32_t input_buffer_flits = 9;
};

/// One channel of GDDR-style DRAM. Its timings are in cycles of its own
/// command clock (`clock_mhz`); the rest of the GPU runs on the core clock.
/// The defaults reproduce the model before the DRAM clock domain: the core's
/// clock, one 32-byte transfer per cycle, no bank groups, no fixed latency.
struct DramConfig {
  uint32_t channels = 6;
  double clock_mhz = 700;            ///< command clock (GDDR5: CK; data moves at data_rate x CK)
  uint32_t latency = 0;              ///< core cycles from the L2 to the scheduler queue
  uint32_t banks = 16;
  uint32_t bank_groups = 1;          ///< bank group = bank mod bank_groups
  uint32_t row_bytes = 2048;
  /// Channel-local address bits, most significant first, in GPGPU-Sim's
  /// notation: R row, B bank, C column, S column (burst offset), 0 unused
  /// (leading only); bits above the pattern belong to the row.
  std::string address_mapping = "BBBB.CCCCCCCC.CCC";
  uint32_t bus_bytes = 32;           ///< data bus width per channel (bytes per transfer)
  uint32_t burst_length = 1;         ///< transfers per burst (one column command)
  uint32_t data_rate = 1;            ///< transfers per command-clock cycle (GDDR5: 4)
  uint32_t tRCD = 12, tRP = 12, tCL = 12, tRAS = 28;
  uint32_t tRC = 40;                 ///< activate to activate, same bank
  uint32_t tRRD = 1;                 ///< activate to activate, any bank
  uint32_t tCCD = 1;                 ///< column to column, different bank group
  uint32_t tCCDL = 1;                ///< column to column, same bank group
  uint32_t tWL = 12;                 ///< write command to write data
  uint32_t tWR = 0;                  ///< end of write data to precharge (write recovery)
  uint32_t tCDLR = 0;                ///< end of write data to read command
  uint32_t tRTPL = 0;                ///< read to precharge, same bank group
  uint32_t turnaround = 0;           ///< idle bus cycles from the end of read data to write data
  /// HBM: separate row and column command buses, so an activate or precharge
  /// and a read or write can issue in the same cycle (else one command a cycle).
  bool dual_command_bus = false;
  /// Requests the channel's FR-FCFS scheduler holds; while it is full the
  /// channel withholds END_REQ, so the L2 slices keep the next ones.
  uint32_t queue_depth = 32;
  uint32_t interleave_bytes = 256;   ///< address interleaving across channels
};

/// LT mode's cost model (platform/lt_cost_model.h): the coefficients that
/// turn a launch's counts into cycles. Fitted per preset against timing mode
/// by scripts/calibrate_lt.py (docs/LT_MODE.md); the defaults are gtx480's.
struct LtConfig {
  double launch_cycles = 778;   ///< fixed cycles per launch (start-up and drain)
  double wave_cycles = 361;        ///< cycles per wave of CTAs on the busiest SM
  double issue_scale = 1.23;    ///< multiplies the issue-throughput bound
  double latency_scale = 1.1;   ///< multiplies the one-warp dependence-chain bound
  double bandwidth_scale = 3.71; ///< multiplies the DRAM / L2-port bandwidth bound
  double contention_scale = 0.222;  ///< multiplies the bound of atomics serialised on one line
};

struct GpuConfig {
  std::string preset = "gtx480";
  /// One warp instruction per scheduler per cycle: for Fermi that is half the
  /// 1401 MHz shader clock (16-lane pipelines), as in GPGPU-Sim's GTX480.
  double core_clock_mhz = 700;
  uint32_t num_sms = 15;
  /// Device malloc heap (cudaLimitMallocHeapSize; CUDA's default is 8 MiB).
  uint32_t malloc_heap_bytes = 8u << 20;
  /// Host threads that evaluate the SMs of a cycle (host.threads). A setting
  /// of the host, not of the GPU: the results are the same for every value.
  uint32_t host_threads = 1;
  /// A TLM-2.0 base-protocol checker on every link inside the memory system
  /// (host.protocol_checkers; memory/protocol_checker.h): for tests.
  bool host_protocol_checkers = false;
  SmConfig sm;
  CacheConfig l1i{2 * 1024, 4, 128, 128, 3, 2, 32, false, 4};
  CacheConfig l1d{16 * 1024, 4, 128, 128, 35, 64, 8, false, 8};
  /// Per-SM read-only texture cache that tex/tld4 fetches go through (its
  /// misses go to the L2 like the L1D's). GPGPU-Sim SM2_GTX480
  /// -gpgpu_tex_cache:l1 4:128:24 (4 sets x 24 ways x 128 B lines = 12 KB),
  /// F:128:4 (128 MSHRs merging 4); the hit latency is the L1D's.
  CacheConfig tex{12 * 1024, 24, 128, 128, 35, 128, 4, false, 128};
  CacheConfig l2{768 * 1024 / 12, 8, 128, 32, 1, 256, 4, true, 0};  ///< per slice (miss_queue unused)
  uint32_t l2_slices = 12;
  uint32_t l2_interleave_bytes = 256;
  /// Cycles a request spends in the memory partition's raster-operations
  /// (ROP) pipeline between the interconnect and the L2 tag lookup
  /// (GPGPU-Sim's -gpgpu_l2_rop_latency); every kind of request pays it.
  uint32_t l2_rop_latency = 120;
  /// Cycles between two atomic updates of one address in an L2 slice's atomic
  /// unit (read-modify-write of the same word cannot overlap); updates of
  /// different addresses are pipelined.
  uint32_t l2_atomic_same_address_interval = 9;
  /// Requests past the ROP pipeline waiting for the slice's tag lookup
  /// (GPGPU-Sim's icnt-to-L2 queue, the first field of
  /// -gpgpu_dram_partition_queues). While it is full the slice withholds the
  /// crossbar's END_REQ, so the crossbar sends it nothing more. 0: unbounded.
  uint32_t l2_input_queue = 64;
  /// Requests to DRAM the channel has not accepted yet (GPGPU-Sim's L2-to-DRAM
  /// queue, the second field of -gpgpu_dram_partition_queues). While it is
  /// full the slice looks nothing up. 0: unbounded.
  uint32_t l2_dram_queue = 64;
  /// Host-to-device copies leave their data in the L2 (as dirty sectors, in
  /// copy order), as they pass through it on the hardware and as GPGPU-Sim's
  /// -gpgpu_perf_sim_memcpy does; else every kernel starts with a cold L2.
  bool l2_fill_on_host_copy = true;
  InterconnectConfig icnt;
  DramConfig dram;
  /// Where L2 misses and write-backs go: "internal", the GPU's own DRAM
  /// channels (a discrete GPU), or "soc", timed TLM transactions to the SoC's
  /// memory through the GPU peripheral's `mem` socket (docs/SOC.md).
  std::string soc_memory = "internal";
  std::string scheduler = "lrr";     ///< policy with parameters, e.g. "two_level:group=8"
  /// Divergence handling of runs that name none (--divergence): "workload"
  /// (each workload's own: IPDOM where it is safe, else ITS; ITS for launch
  /// files), or "ipdom" / "its" for every run (Volta and later: its).
  std::string divergence = "workload";
  LtConfig lt;
};

}  // namespace tlmgpu::core
