#include "platform/config_keys.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <fstream>
#include <functional>
#include <limits>
#include <sstream>
#include <stdexcept>
#include <variant>

#include <boost/program_options/options_description.hpp>
#include <boost/program_options/parsers.hpp>

#include "memory/dram_address_map.h"
#include "platform/occupancy.h"
#include "schedulers/policy_registry.h"

namespace tlmgpu::platform {

// The configuration structs (core/gpu_config.h), named here on nearly every line.
using core::GpuConfig;
using core::SmConfig;
using core::CacheConfig;
using core::UnitTiming;
using core::InterconnectConfig;
using core::DramConfig;
using core::LtConfig;

namespace {

// ---------------------------------------------------------------------------
// The key table: one row per key, used by every function below, so a new field
// in core/gpu_config.h needs exactly one row here (and one line in CONFIGURATION.md).

/// Where a key's value lives inside a GpuConfig.
using FieldRef = std::variant<uint32_t*, double*, bool*, std::string*>;
using Locator = std::function<FieldRef(GpuConfig&)>;

enum class Rule { kRange, kPowerOfTwo, kReal, kBool, kChoice, kPolicy, kDramMapping, kCarveouts };

struct KeySpec {
  std::string key;  ///< "section.name"
  std::string description;
  std::string unit;
  Locator field;
  Rule rule = Rule::kRange;
  double min = 0, max = 0;           ///< kRange, kPowerOfTwo, kReal (inclusive)
  std::vector<std::string> choices;  ///< kChoice
};

template <class Member>
Locator top(Member GpuConfig::*member) {
  return [member](GpuConfig& c) -> FieldRef { return &(c.*member); };
}

template <class Section, class Member>
Locator at(Section GpuConfig::*section, Member Section::*member) {
  return [section, member](GpuConfig& c) -> FieldRef { return &((c.*section).*member); };
}

Locator timing(UnitTiming SmConfig::*unit, uint32_t UnitTiming::*member) {
  return [unit, member](GpuConfig& c) -> FieldRef { return &((c.sm.*unit).*member); };
}

KeySpec range(std::string key, std::string unit, double min, double max, Locator field,
              std::string description) {
  return {std::move(key), std::move(description), std::move(unit), std::move(field), Rule::kRange,
          min, max, {}};
}
KeySpec pow2(std::string key, std::string unit, double min, double max, Locator field,
             std::string description) {
  return {std::move(key), std::move(description), std::move(unit), std::move(field),
          Rule::kPowerOfTwo, min, max, {}};
}
KeySpec flag(std::string key, Locator field, std::string description) {
  return {std::move(key), std::move(description), "", std::move(field), Rule::kBool, 0, 0, {}};
}

std::vector<KeySpec> build_key_table() {
  const double kMaxCycles = 100000;
  std::vector<KeySpec> t;

  t.push_back(range("gpu.num_sms", "", 1, 1024, top(&GpuConfig::num_sms),
                    "streaming multiprocessors (SMs)"));
  t.push_back({"gpu.core_clock_mhz", "clock of the whole GPU: one warp instruction per scheduler per cycle",
               "MHz", top(&GpuConfig::core_clock_mhz), Rule::kReal, 1, 100000, {}});
  t.push_back(range("gpu.malloc_heap_bytes", "bytes", 0, 1u << 31, top(&GpuConfig::malloc_heap_bytes),
                    "device heap for malloc/free in kernels (cudaLimitMallocHeapSize)"));
  t.push_back({"gpu.scheduler",
               "warp-scheduling policy of every scheduler, with its parameters", "",
               top(&GpuConfig::scheduler), Rule::kPolicy, 0, 0, {}});
  t.push_back({"gpu.divergence",
               "divergence handling of runs that name none (`--divergence`): each workload's own (IPDOM where it "
               "is safe, else ITS; ITS for launch files), or IPDOM / independent thread scheduling for every run",
               "", top(&GpuConfig::divergence), Rule::kChoice, 0, 0, {"workload", "ipdom", "its"}});

  t.push_back(range("sm.max_threads", "", 32, 8192, at(&GpuConfig::sm, &SmConfig::max_threads),
                    "resident threads per SM (occupancy limit)"));
  t.push_back(range("sm.max_ctas", "", 1, 256, at(&GpuConfig::sm, &SmConfig::max_ctas),
                    "resident CTAs (thread blocks) per SM"));
  // 64: the SM keeps its warps in 64-bit masks, as many as any NVIDIA SM has.
  t.push_back(range("sm.max_warps", "", 1, 64, at(&GpuConfig::sm, &SmConfig::max_warps),
                    "warp slots per SM"));
  t.push_back(range("sm.registers", "", 256, 1 << 22, at(&GpuConfig::sm, &SmConfig::registers),
                    "32-bit registers per SM (occupancy limit)"));
  t.push_back(range("sm.max_regs_per_thread", "", 1, 1024, at(&GpuConfig::sm, &SmConfig::max_regs_per_thread),
                    "32-bit registers one thread may use; the PTX register estimate is capped at it"));
  t.push_back(pow2("sm.register_allocation_unit", "", 1, 1 << 16,
                   at(&GpuConfig::sm, &SmConfig::register_allocation_unit),
                   "registers are allocated to a warp in multiples of this (occupancy calculator granularity)"));
  t.push_back(range("sm.shared_bytes", "bytes", 0, 4 << 20, at(&GpuConfig::sm, &SmConfig::shared_bytes),
                    "shared memory per SM (occupancy limit)"));
  t.push_back(range("sm.unified_l1_bytes", "bytes", 0, 64u << 20, at(&GpuConfig::sm, &SmConfig::unified_l1_bytes),
                    "one array for the L1D and shared memory (Volta and later; 0: separate): l1d.size_bytes is the "
                    "whole array, and each launch gives shared memory the first of sm.shared_carveouts_kb that holds "
                    "its resident CTAs' and the L1D the rest"));
  t.push_back({"sm.shared_carveouts_kb",
               "the shared-memory sizes the unified array offers (with sm.unified_l1_bytes)", "KB",
               at(&GpuConfig::sm, &SmConfig::shared_carveouts_kb), Rule::kCarveouts, 0, 0, {}});
  t.push_back(range("sm.num_schedulers", "", 1, 8, at(&GpuConfig::sm, &SmConfig::num_schedulers),
                    "warp schedulers per SM; warp w belongs to scheduler w mod N"));
  t.push_back(range("sm.ibuffer_depth", "", 1, 16, at(&GpuConfig::sm, &SmConfig::ibuffer_depth),
                    "decoded instructions buffered per warp"));
  t.push_back(range("sm.fetch_width", "", 1, 8, at(&GpuConfig::sm, &SmConfig::fetch_width),
                    "warps fetched per cycle"));
  t.push_back(range("sm.fetch_instructions", "", 0, 16, at(&GpuConfig::sm, &SmConfig::fetch_instructions),
                    "instructions per fetch: 0 = the rest of the L1I line, N = N per request (pipelined L1I)"));
  t.push_back({"sm.fetch_policy",
               "the fetch scheduler (`gpu.smN.fetch`; also `--fetch-scheduler`): loose round robin, greedy then "
               "round robin / oldest",
               "",
               at(&GpuConfig::sm, &SmConfig::fetch_policy), Rule::kChoice, 0, 0,
               {"lrr", "gtlrr", "gtlo"}});
  t.push_back(flag("sm.oracle_schedulers", at(&GpuConfig::sm, &SmConfig::oracle_schedulers),
                   "seed 003's oracle issue schedulers osched1 / osched2 beside each scheduler (statistics "
                   "`discrepancies`, `errors`, `error_rate`)"));
  t.push_back(range("sm.decode_latency", "cycles", 1, 64, at(&GpuConfig::sm, &SmConfig::decode_latency),
                    "fetch to instruction buffer, after the L1I hit"));
  t.push_back(range("sm.issue_width", "", 1, 4, at(&GpuConfig::sm, &SmConfig::issue_width),
                    "instructions issued per scheduler per cycle"));
  t.push_back(range("sm.collectors_sp", "", 1, 64, at(&GpuConfig::sm, &SmConfig::collectors_sp),
                    "operand collector units for the SP pipeline, per scheduler"));
  t.push_back(range("sm.collectors_sfu", "", 1, 64, at(&GpuConfig::sm, &SmConfig::collectors_sfu),
                    "operand collector units for the SFU, per scheduler"));
  t.push_back(range("sm.collectors_mem", "", 1, 64, at(&GpuConfig::sm, &SmConfig::collectors_mem),
                    "operand collector units for the LD/ST unit, per scheduler"));
  t.push_back(range("sm.collectors_dp", "", 1, 64, at(&GpuConfig::sm, &SmConfig::collectors_dp),
                    "operand collector units for the DP unit, per scheduler (with sm.has_dp_unit)"));
  t.push_back(range("sm.register_banks", "", 1, 64, at(&GpuConfig::sm, &SmConfig::register_banks),
                    "register-file banks per scheduler; one read per bank per cycle"));
  t.push_back(pow2("sm.shared_banks", "", 1, 64, at(&GpuConfig::sm, &SmConfig::shared_banks),
                   "shared-memory banks (4 bytes wide)"));
  t.push_back(range("sm.shared_latency", "cycles", 1, kMaxCycles,
                    at(&GpuConfig::sm, &SmConfig::shared_latency),
                    "shared-memory access without bank conflicts"));
  t.push_back(flag("sm.has_dp_unit", at(&GpuConfig::sm, &SmConfig::has_dp_unit),
                   "a separate DP unit; else DP instructions run on the SP pipeline with the dp timing"));
  t.push_back(flag("sm.has_tensor_cores", at(&GpuConfig::sm, &SmConfig::has_tensor_cores),
                   "a tensor-core pipe per scheduler for wmma.mma (Volta and later); else wmma.mma runs on the SP "
                   "pipeline with the sp timing"));

  struct UnitRow {
    const char* name;
    UnitTiming SmConfig::*unit;
    const char* what;
  };
  const UnitRow units[] = {
      {"sp", &SmConfig::sp, "SP pipeline (integer and f32 add / mul / fma)"},
      {"sfu", &SmConfig::sfu, "SFU (sin, cos, ex2, lg2, rcp, rsqrt)"},
      {"dp", &SmConfig::dp, "f64 arithmetic"},
      {"int_div", &SmConfig::int_div, "integer div / rem"},
      {"fp_div_sqrt", &SmConfig::fp_div_sqrt, "f32 div / sqrt"},
      {"ldst", &SmConfig::ldst, "LD/ST address generation (memory latency comes from the caches)"},
      {"cvt", &SmConfig::cvt, "cvt conversions"},
      {"tensor", &SmConfig::tensor, "tensor-core pipe (wmma.mma), per scheduler, with sm.has_tensor_cores"},
  };
  for (const UnitRow& u : units) {
    const std::string base = std::string("sm.") + u.name;
    t.push_back(range(base + "_latency", "cycles", 1, kMaxCycles,
                      timing(u.unit, &UnitTiming::latency),
                      std::string(u.what) + ": issue to result"));
    t.push_back(range(base + "_ii", "cycles", 1, kMaxCycles,
                      timing(u.unit, &UnitTiming::initiation_interval),
                      std::string(u.what) + ": cycles between issues (1: pipelined; the latency: not pipelined)"));
  }

  struct CacheRow {
    const char* section;
    CacheConfig GpuConfig::*cache;
    const char* what;
  };
  const CacheRow caches[] = {{"l1i", &GpuConfig::l1i, "L1 instruction cache (per SM)"},
                             {"l1d", &GpuConfig::l1d, "L1 data cache (per SM)"},
                             {"tex", &GpuConfig::tex, "texture cache (per SM, read-only: tex/tld4 fetches)"},
                             {"l2", &GpuConfig::l2, "L2 slice"}};
  for (const CacheRow& c : caches) {
    const std::string s = std::string(c.section) + ".";
    const std::string w = c.what;
    t.push_back(range(s + "size_bytes", "bytes", 64, 64 << 20, at(c.cache, &CacheConfig::size_bytes),
                      w + ": capacity"));
    t.push_back(range(s + "ways", "", 1, 1024, at(c.cache, &CacheConfig::ways), w + ": associativity"));
    t.push_back(pow2(s + "line_bytes", "bytes", 32, 1024, at(c.cache, &CacheConfig::line_bytes),
                     w + ": line (tag) size"));
    t.push_back(pow2(s + "sector_bytes", "bytes", 4, 1024, at(c.cache, &CacheConfig::sector_bytes),
                     w + ": sector size (fill / valid granule)"));
    t.push_back(range(s + "hit_latency", "cycles", 1, kMaxCycles, at(c.cache, &CacheConfig::hit_latency),
                      w + ": hit latency"));
    t.push_back(range(s + "mshrs", "", 1, 4096, at(c.cache, &CacheConfig::mshrs),
                      w + ": MSHRs (outstanding line misses)"));
    t.push_back(range(s + "mshr_merges", "", 1, 1024, at(c.cache, &CacheConfig::mshr_merges),
                      w + ": requests merged into one MSHR"));
    if (c.cache != &GpuConfig::l2)
      t.push_back(range(s + "miss_queue", "entries", 0, 4096, at(c.cache, &CacheConfig::miss_queue),
                        w + ": requests waiting for the crossbar to take them; while full, accesses that would send "
                            "one are refused (0: unbounded)"));
    if (c.cache == &GpuConfig::l1d)
      t.push_back(flag(s + "write_allocate", at(c.cache, &CacheConfig::write_allocate),
                       w + ": a store allocates its line without a fetch and makes the sectors it writes whole "
                           "valid (write-through with allocation, Volta and later); else write-evict, no allocate"));
    t.push_back(flag(s + "write_back", at(c.cache, &CacheConfig::write_back),
                     w + ": write-back + write-allocate (else write-through, evict on write hit, no allocate)"));
  }
  t.push_back(range("l2.slices", "", 1, 256, top(&GpuConfig::l2_slices), "L2 slices (banks) on the interconnect"));
  t.push_back(pow2("l2.interleave_bytes", "bytes", 32, 1 << 20, top(&GpuConfig::l2_interleave_bytes),
                   "consecutive bytes mapped to one L2 slice"));
  t.push_back(range("l2.rop_latency", "cycles", 0, kMaxCycles, top(&GpuConfig::l2_rop_latency),
                    "raster-operations pipeline between the interconnect and the L2 lookup, every request"));
  t.push_back(range("l2.atomic_same_address_interval", "cycles", 1, kMaxCycles,
                    top(&GpuConfig::l2_atomic_same_address_interval),
                    "cycles between two atomic updates of one address in a slice's atomic unit"));
  t.push_back(range("l2.input_queue", "entries", 0, 4096, top(&GpuConfig::l2_input_queue),
                    "requests past the ROP pipeline waiting for a slice's lookup; while full, the slice takes "
                    "no request from the crossbar (0: unbounded)"));
  t.push_back(range("l2.dram_queue", "entries", 0, 4096, top(&GpuConfig::l2_dram_queue),
                    "a slice's requests to DRAM not yet accepted by its channel; while full, the slice looks "
                    "nothing up (0: unbounded)"));
  t.push_back(flag("l2.fill_on_host_copy", top(&GpuConfig::l2_fill_on_host_copy),
                   "host-to-device copies leave their data in the L2 (dirty, in copy order)"));

  t.push_back(range("icnt.latency", "cycles", 1, kMaxCycles, at(&GpuConfig::icnt, &InterconnectConfig::latency),
                    "crossbar latency, each direction"));
  t.push_back(range("icnt.bytes_per_cycle", "bytes", 1, 4096,
                    at(&GpuConfig::icnt, &InterconnectConfig::bytes_per_cycle),
                    "crossbar bandwidth per port, each direction"));
  t.push_back(range("icnt.input_buffer_flits", "flits", 0, 1 << 20,
                    at(&GpuConfig::icnt, &InterconnectConfig::input_buffer_flits),
                    "flits (icnt.bytes_per_cycle bytes each) an L1's input link buffers ahead of its transmission; "
                    "a request that does not fit waits in the L1's miss queue (0: unbounded)"));

  const auto dram = [](uint32_t DramConfig::*member) { return at(&GpuConfig::dram, member); };
  t.push_back(range("dram.channels", "", 1, 64, dram(&DramConfig::channels),
                    "DRAM channels (memory controllers), each with an FR-FCFS scheduler"));
  t.push_back({"dram.clock_mhz", "DRAM command clock; every dram.t* timing counts its cycles", "MHz",
               at(&GpuConfig::dram, &DramConfig::clock_mhz), Rule::kReal, 1, 100000, {}});
  t.push_back(range("dram.latency", "cycles", 0, kMaxCycles, dram(&DramConfig::latency),
                    "core cycles from the L2 to the channel's scheduler queue (fixed pipeline)"));
  t.push_back(pow2("dram.banks", "", 1, 64, dram(&DramConfig::banks), "banks per channel"));
  t.push_back(pow2("dram.bank_groups", "", 1, 64, dram(&DramConfig::bank_groups),
                   "bank groups per channel; bank b is in group b mod bank_groups"));
  t.push_back(pow2("dram.row_bytes", "bytes", 256, 1 << 16, dram(&DramConfig::row_bytes),
                   "row (page) size per bank, all chips of the channel together"));
  t.push_back({"dram.address_mapping",
               "channel-local address bits, most significant first: R row, B bank, C/S column, 0 unused "
               "(GPGPU-Sim notation, without dramid)",
               "", at(&GpuConfig::dram, &DramConfig::address_mapping), Rule::kDramMapping, 0, 0, {}});
  t.push_back(range("dram.bus_bytes", "bytes", 1, 256, dram(&DramConfig::bus_bytes),
                    "data bus width per channel: bytes per transfer"));
  t.push_back(range("dram.burst_length", "", 1, 64, dram(&DramConfig::burst_length),
                    "transfers per burst (one column command moves bus_bytes x burst_length)"));
  t.push_back(range("dram.data_rate", "", 1, 16, dram(&DramConfig::data_rate),
                    "data transfers per command-clock cycle (GDDR5: 4)"));
  struct TimingRow {
    const char* key;
    uint32_t DramConfig::*member;
    uint32_t min;
    const char* what;
  };
  const TimingRow timings[] = {
      {"dram.tRCD", &DramConfig::tRCD, 1, "activate to read / write"},
      {"dram.tRP", &DramConfig::tRP, 1, "precharge to activate"},
      {"dram.tCL", &DramConfig::tCL, 1, "read command to first data (CAS latency)"},
      {"dram.tRAS", &DramConfig::tRAS, 1, "activate to precharge"},
      {"dram.tRC", &DramConfig::tRC, 1, "activate to activate, same bank"},
      {"dram.tRRD", &DramConfig::tRRD, 1, "activate to activate, any bank"},
      {"dram.tCCD", &DramConfig::tCCD, 1, "column command to column command, different bank group"},
      {"dram.tCCDL", &DramConfig::tCCDL, 1, "column command to column command, same bank group"},
      {"dram.tWL", &DramConfig::tWL, 1, "write command to first write data (write latency)"},
      {"dram.tWR", &DramConfig::tWR, 0, "end of write data to precharge, same bank (write recovery)"},
      {"dram.tCDLR", &DramConfig::tCDLR, 0, "end of write data to read command (write to read turnaround)"},
      {"dram.tRTPL", &DramConfig::tRTPL, 0, "read command to precharge, same bank group"},
      {"dram.turnaround", &DramConfig::turnaround, 0,
       "idle data-bus cycles from the end of read data to write data (read to write turnaround)"},
  };
  for (const TimingRow& r : timings)
    t.push_back(range(r.key, "DRAM cycles", r.min, 1000, dram(r.member), r.what));
  t.push_back(flag("dram.dual_command_bus", at(&GpuConfig::dram, &DramConfig::dual_command_bus),
                   "separate row and column command buses (HBM): an activate or precharge and a read or write may "
                   "issue in the same DRAM cycle; false: one command per cycle"));
  t.push_back(range("dram.queue_depth", "", 1, 4096, dram(&DramConfig::queue_depth),
                    "requests the channel's scheduler can hold; while full, the channel accepts no request"));
  t.push_back(pow2("dram.interleave_bytes", "bytes", 32, 1 << 20, dram(&DramConfig::interleave_bytes),
                   "consecutive bytes mapped to one channel"));
  t.push_back({"soc.memory",
               "where L2 misses and write-backs go: the GPU's own DRAM channels, or timed transactions to the "
               "SoC's memory (only inside a SoC, through the GPU peripheral)",
               "", top(&GpuConfig::soc_memory), Rule::kChoice, 0, 0, {"internal", "soc"}});

  // Host settings: how the simulation runs, never what it computes.
  t.push_back(range("host.threads", "", 1, 256, top(&GpuConfig::host_threads),
                    "host threads that evaluate the SMs of a cycle in timing mode (the statistics are the same "
                    "for every value; --threads N)"));
  t.push_back(flag("host.protocol_checkers", top(&GpuConfig::host_protocol_checkers),
                   "a TLM-2.0 base-protocol checker on every link of the memory system (L1 to crossbar, crossbar "
                   "to L2, L2 to DRAM): a broken rule is an error naming the link"));

  // LT mode's cost model (docs/LT_MODE.md): fitted against timing mode.
  const auto lt = [](double LtConfig::*member) { return at(&GpuConfig::lt, member); };
  t.push_back({"lt.launch_cycles", "LT mode: fixed cycles per launch (start-up and drain)", "cycles",
               lt(&LtConfig::launch_cycles), Rule::kReal, 0, 1e9, {}});
  t.push_back({"lt.wave_cycles", "LT mode: cycles per wave of resident CTAs on the busiest SM", "cycles",
               lt(&LtConfig::wave_cycles), Rule::kReal, 0, 1e9, {}});
  t.push_back({"lt.issue_scale", "LT mode: factor on the issue-throughput bound (warp instructions over issue slots)",
               "", lt(&LtConfig::issue_scale), Rule::kReal, 0, 1000, {}});
  t.push_back({"lt.latency_scale",
               "LT mode: factor on the latency bound (one warp's instructions, each waiting for the last)", "",
               lt(&LtConfig::latency_scale), Rule::kReal, 0, 1000, {}});
  t.push_back({"lt.bandwidth_scale", "LT mode: factor on the bandwidth bound (L2-missing sectors over peak DRAM bytes per cycle, or all sectors over the L2 ports)",
               "", lt(&LtConfig::bandwidth_scale), Rule::kReal, 0, 1000, {}});
  t.push_back({"lt.contention_scale",
               "LT mode: factor on the contention bound (atomics on the busiest line, one L2 round trip each)", "",
               lt(&LtConfig::contention_scale), Rule::kReal, 0, 1000, {}});
  return t;
}

const std::vector<KeySpec>& key_table() {
  static const std::vector<KeySpec> table = build_key_table();
  return table;
}

const KeySpec* find_key(const std::string& key) {
  for (const KeySpec& k : key_table())
    if (k.key == key) return &k;
  return nullptr;
}

// ---------------------------------------------------------------------------
// Formatting and parsing of values.

std::string format_number(double v) {
  // Whole numbers in plain digits (to_chars' shortest form writes 1e+05).
  if (v == std::floor(v) && std::fabs(v) < 1e15) return std::to_string(static_cast<long long>(v));
  char buf[64];
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, r.ptr);
}

std::string allowed_text(const KeySpec& k) {
  switch (k.rule) {
    case Rule::kRange:
    case Rule::kReal:
      return format_number(k.min) + ".." + format_number(k.max);
    case Rule::kPowerOfTwo:
      return "power of two, " + format_number(k.min) + ".." + format_number(k.max);
    case Rule::kBool:
      return "true, false";
    case Rule::kChoice: {
      std::string s;
      for (const std::string& c : k.choices) s += (s.empty() ? "" : ", ") + c;
      return s;
    }
    case Rule::kPolicy: {
      std::string s;
      for (const auto& p : schedulers::registered_policies()) s += (s.empty() ? "" : ", ") + p.name;
      return s + "; optionally :param=value,...";
    }
    case Rule::kDramMapping:
      return "R, B, C, S, 0 per bit; '.' groups";
    case Rule::kCarveouts:
      return "ascending KB, comma-separated (empty: none)";
  }
  return "";
}

std::string trim(const std::string& s) {
  size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return s.substr(b, e - b);
}

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

/// An unsigned integer; byte-sized keys also accept K / KB / KiB and M / MB / MiB (x1024).
bool parse_unsigned(const std::string& text, bool bytes, uint64_t& out) {
  size_t digits = 0;
  while (digits < text.size() && std::isdigit(static_cast<unsigned char>(text[digits]))) ++digits;
  if (digits == 0 || digits > 18) return false;
  uint64_t v = std::stoull(text.substr(0, digits));
  const std::string suffix = lower(trim(text.substr(digits)));
  if (!suffix.empty()) {
    if (!bytes) return false;
    if (suffix == "k" || suffix == "kb" || suffix == "kib")
      v *= 1024;
    else if (suffix == "m" || suffix == "mb" || suffix == "mib")
      v *= 1024 * 1024;
    else
      return false;
  }
  out = v;
  return true;
}

bool parse_bool(const std::string& text, bool& out) {
  const std::string t = lower(text);
  if (t == "true" || t == "1" || t == "yes" || t == "on") {
    out = true;
    return true;
  }
  if (t == "false" || t == "0" || t == "no" || t == "off") {
    out = false;
    return true;
  }
  return false;
}

bool parse_real(const std::string& text, double& out) {
  if (text.empty()) return false;
  double v = 0;
  const auto r = std::from_chars(text.data(), text.data() + text.size(), v);
  if (r.ec != std::errc() || r.ptr != text.data() + text.size() || !std::isfinite(v)) return false;
  out = v;
  return true;
}

bool is_name_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-';
}

bool is_power_of_two(uint64_t v) { return v != 0 && (v & (v - 1)) == 0; }

std::string quoted(const std::string& s) { return "'" + s + "'"; }

/// Checks a value already in the config (used by set and by validate_config);
/// returns the message for a bad one, else "".
std::string check_value(const KeySpec& k, GpuConfig& config, const std::string& as_written) {
  const FieldRef f = k.field(config);
  switch (k.rule) {
    case Rule::kRange:
    case Rule::kReal: {
      const double v = k.rule == Rule::kReal ? *std::get<double*>(f) : *std::get<uint32_t*>(f);
      if (v < k.min || v > k.max)
        return k.key + " = " + as_written + " is out of range (allowed: " + allowed_text(k) +
               (k.unit.empty() ? "" : " " + k.unit) + ")";
      return "";
    }
    case Rule::kPowerOfTwo: {
      const uint32_t v = *std::get<uint32_t*>(f);
      if (!is_power_of_two(v) || v < k.min || v > k.max)
        return k.key + " = " + as_written + ": must be a power of two between " + format_number(k.min) +
               " and " + format_number(k.max);
      return "";
    }
    case Rule::kBool:
      return "";
    case Rule::kChoice: {
      const std::string& v = *std::get<std::string*>(f);
      if (std::find(k.choices.begin(), k.choices.end(), v) == k.choices.end())
        return k.key + " = " + quoted(v) + " is not allowed (allowed: " + allowed_text(k) + ")";
      return "";
    }
    case Rule::kPolicy: {
      // The name and syntax here; the parameters need the final SM shape, so
      // validate_config checks them by building the policy.
      const std::string& v = *std::get<std::string*>(f);
      try {
        const std::string name = schedulers::parse_policy_spec(v).name;
        const auto known = schedulers::registered_policies();
        if (std::none_of(known.begin(), known.end(), [&](const auto& p) { return p.name == name; }))
          return k.key + " = " + quoted(v) + ": unknown policy '" + name + "' (allowed: " + allowed_text(k) + ")";
      } catch (const std::invalid_argument& e) {
        return k.key + ": " + e.what();
      }
      return "";
    }
    case Rule::kDramMapping: {
      const std::string& v = *std::get<std::string*>(f);
      memory::DramAddressMap map;
      std::string error;
      if (!map.parse(v, error)) return k.key + " = " + quoted(v) + ": " + error;
      return "";
    }
    case Rule::kCarveouts: {
      const std::string& v = *std::get<std::string*>(f);
      std::vector<uint32_t> kb;
      std::string error;
      if (!v.empty() && !parse_carveouts(v, kb, error)) return k.key + " = " + quoted(v) + ": " + error;
      return "";
    }
  }
  return "";
}

std::string value_text(const KeySpec& k, GpuConfig& config) {
  const FieldRef f = k.field(config);
  return std::visit(
      [](auto* p) -> std::string {
        using T = std::remove_pointer_t<decltype(p)>;
        if constexpr (std::is_same_v<T, uint32_t>)
          return std::to_string(*p);
        else if constexpr (std::is_same_v<T, double>)
          return format_number(*p);
        else if constexpr (std::is_same_v<T, bool>)
          return *p ? "true" : "false";
        else
          return *p;
      },
      f);
}

size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = up;
    }
  }
  return row[b.size()];
}

const char* const kSections[] = {"gpu", "sm", "l1i", "l1d", "tex", "l2", "icnt", "dram", "soc", "lt"};

std::string unknown_key_message(const std::string& key) {
  const std::string wanted = lower(key);
  const bool has_section = key.find('.') != std::string::npos;
  std::vector<std::string> best;  // every key at the smallest distance
  size_t best_distance = std::numeric_limits<size_t>::max();
  for (const KeySpec& k : key_table()) {
    // A key given without its section is compared with the name alone.
    const std::string candidate = has_section ? k.key : k.key.substr(k.key.find('.') + 1);
    const size_t d = edit_distance(wanted, lower(candidate));
    if (d < best_distance) {
      best_distance = d;
      best.clear();
    }
    if (d == best_distance) best.push_back(k.key);
  }
  std::string msg = "unknown configuration key " + quoted(key);
  if (!best.empty() && best.size() <= 4 && best_distance <= 2 + key.size() / 8) {
    msg += " (did you mean ";
    for (size_t i = 0; i < best.size(); ++i)
      msg += (i == 0 ? "" : i + 1 == best.size() ? " or " : ", ") + quoted(best[i]);
    return msg + "?)";
  }
  msg += " (keys are section.name with sections";
  for (const char* s : kSections) msg += std::string(" ") + s;
  return msg + "; --dump-config lists them)";
}

/// Parses `value` into a copy of the field, checks it, then stores it.
void set_value(const KeySpec& k, GpuConfig& config, const std::string& raw) {
  const std::string value = trim(raw);
  const FieldRef f = k.field(config);
  GpuConfig probe = config;  // checked on a copy so a bad value leaves `config` untouched
  const FieldRef pf = k.field(probe);
  if (auto* p = std::get_if<uint32_t*>(&pf)) {
    uint64_t v = 0;
    if (!parse_unsigned(value, k.unit == "bytes", v))
      throw ConfigError(k.key + " = " + quoted(value) + ": expected an unsigned integer" +
                        (k.unit == "bytes" ? " (optionally with K or M)" : "") +
                        " (allowed: " + allowed_text(k) + ")");
    if (v > std::numeric_limits<uint32_t>::max())
      throw ConfigError(k.key + " = " + value + " is out of range (allowed: " + allowed_text(k) + ")");
    **p = static_cast<uint32_t>(v);
  } else if (auto* d = std::get_if<double*>(&pf)) {
    if (!parse_real(value, **d))
      throw ConfigError(k.key + " = " + quoted(value) + ": expected a number (allowed: " + allowed_text(k) + ")");
  } else if (auto* b = std::get_if<bool*>(&pf)) {
    if (!parse_bool(value, **b))
      throw ConfigError(k.key + " = " + quoted(value) + ": expected true or false");
  } else {
    *std::get<std::string*>(pf) = value;
  }
  const std::string error = check_value(k, probe, value);
  if (!error.empty()) throw ConfigError(error);
  std::visit([&](auto* target) { *target = *std::get<decltype(target)>(pf); }, f);
}

// ---------------------------------------------------------------------------
// Cross-key checks.

void check_cache(const GpuConfig& c, const CacheConfig GpuConfig::*member, const std::string& s,
                 std::vector<std::string>& errors) {
  const CacheConfig& cache = c.*member;
  const uint64_t set_bytes = uint64_t{cache.ways} * cache.line_bytes;
  if (set_bytes == 0 || cache.size_bytes % set_bytes != 0)
    errors.push_back(s + ".size_bytes = " + std::to_string(cache.size_bytes) + " is not a multiple of " + s +
                     ".ways x " + s + ".line_bytes = " + std::to_string(cache.ways) + " x " +
                     std::to_string(cache.line_bytes) + " = " + std::to_string(set_bytes) +
                     " (every set holds `ways` lines)");
  if (cache.sector_bytes > cache.line_bytes)
    errors.push_back(s + ".sector_bytes = " + std::to_string(cache.sector_bytes) + " must divide " + s +
                     ".line_bytes = " + std::to_string(cache.line_bytes));
}

uint32_t log2_of(uint64_t v) { return v ? uint32_t(63 - __builtin_clzll(v)) : 0; }

/// The DRAM keys against each other and against the L2 line.
void check_dram(const GpuConfig& c, std::vector<std::string>& errors) {
  const DramConfig& d = c.dram;
  const auto n = [](uint64_t v) { return std::to_string(v); };
  if (d.data_rate == 0 || d.burst_length % d.data_rate != 0)
    errors.push_back("dram.burst_length = " + n(d.burst_length) + " must be a multiple of dram.data_rate = " +
                     n(d.data_rate) + " (a burst occupies burst_length / data_rate whole DRAM cycles)");
  if (d.bank_groups > d.banks)
    errors.push_back("dram.bank_groups = " + n(d.bank_groups) + " must not exceed dram.banks = " + n(d.banks));
  if (d.tCCDL < d.tCCD)
    errors.push_back("dram.tCCDL = " + n(d.tCCDL) + " must be at least dram.tCCD = " + n(d.tCCD) +
                     " (same bank group is the slower case)");
  if (d.tRC < d.tRAS)
    errors.push_back("dram.tRC = " + n(d.tRC) + " must be at least dram.tRAS = " + n(d.tRAS));
  memory::DramAddressMap map;
  std::string error;
  if (!map.parse(d.address_mapping, error)) return;  // reported with the key's own check
  if ((uint64_t(1) << map.bank_bits()) != d.banks)
    errors.push_back("dram.address_mapping has " + n(map.bank_bits()) + " B bits (" + n(uint64_t(1) << map.bank_bits()) +
                     " banks) but dram.banks = " + n(d.banks));
  if (map.column_bits() >= 32 || (uint64_t(1) << map.column_bits()) != d.row_bytes)
    errors.push_back("dram.address_mapping has " + n(map.column_bits()) + " C/S bits (" +
                     (map.column_bits() < 32 ? n(uint64_t(1) << map.column_bits()) : std::string("too many")) +
                     "-byte rows) but dram.row_bytes = " + n(d.row_bytes));
  if (c.l2.line_bytes != 0 && map.first_non_column_bit() < log2_of(c.l2.line_bytes))
    errors.push_back("dram.address_mapping: the lowest " + n(log2_of(c.l2.line_bytes)) +
                     " bits (an l2.line_bytes = " + n(c.l2.line_bytes) +
                     " line) must be C or S bits (a line lies in one row of one bank)");
}

}  // namespace

// ---------------------------------------------------------------------------

std::vector<ConfigKeyInfo> config_keys() {
  std::vector<ConfigKeyInfo> keys;
  for (const KeySpec& k : key_table()) keys.push_back({k.key, k.description, allowed_text(k), k.unit});
  return keys;
}

void set_config_value(GpuConfig& config, const std::string& key, const std::string& value) {
  const std::string name = trim(key);
  const KeySpec* k = find_key(name);
  if (!k) throw ConfigError(unknown_key_message(name));
  set_value(*k, config, value);
}

void apply_config_assignment(GpuConfig& config, const std::string& assignment) {
  const size_t eq = assignment.find('=');
  if (eq == std::string::npos)
    throw ConfigError("expected key=value (e.g. sm.num_schedulers=4), got " + quoted(assignment));
  set_config_value(config, assignment.substr(0, eq), assignment.substr(eq + 1));
}

std::string get_config_value(const GpuConfig& config, const std::string& key) {
  const KeySpec* k = find_key(key);
  if (!k) throw ConfigError(unknown_key_message(key));
  GpuConfig copy = config;  // locators hand out mutable pointers
  return value_text(*k, copy);
}

std::vector<std::pair<std::string, std::string>> config_values(const GpuConfig& config) {
  GpuConfig copy = config;
  std::vector<std::pair<std::string, std::string>> values;
  for (const KeySpec& k : key_table()) values.emplace_back(k.key, value_text(k, copy));
  return values;
}

void load_config_text(GpuConfig& config, const std::string& text, const std::string& source_name) {
  // Boost's parser reports neither line numbers nor which section is unknown,
  // so one pass over the lines (with Boost's rules: '#' starts a comment,
  // blanks are trimmed) checks the syntax and remembers each assignment's line.
  std::vector<int> assignment_lines;
  {
    std::istringstream in(text);
    std::string line;
    int number = 0;
    while (std::getline(in, line)) {
      ++number;
      const std::string where = source_name + ":" + std::to_string(number) + ": ";
      std::string s = line.substr(0, line.find('#'));
      s = trim(s);
      if (s.empty()) continue;
      if (s.front() == '[') {
        const std::string section = s.back() == ']' ? s.substr(1, s.size() - 2) : "";
        if (section.empty() || !std::all_of(section.begin(), section.end(), is_name_char))
          throw ConfigError(where + "bad section header " + quoted(s) + " (expected [name], e.g. [sm])");
        const bool known = std::any_of(std::begin(kSections), std::end(kSections),
                                       [&](const char* k) { return section == k; });
        if (!known) {
          std::string list;
          for (const char* k : kSections) list += (list.empty() ? "" : ", ") + std::string(k);
          throw ConfigError(where + "unknown section [" + section + "] (sections: " + list + ")");
        }
        continue;
      }
      const size_t eq = s.find('=');
      if (eq == std::string::npos)
        throw ConfigError(where + "expected 'key = value' or '[section]', got " + quoted(s));
      if (trim(s.substr(0, eq)).empty()) throw ConfigError(where + "missing key before '=' in " + quoted(s));
      assignment_lines.push_back(number);
    }
  }

  namespace po = boost::program_options;
  po::parsed_options parsed(nullptr);
  try {
    std::istringstream in(text);
    const po::options_description no_registered_options;
    parsed = po::parse_config_file(in, no_registered_options, /*allow_unregistered=*/true);
  } catch (const po::error& e) {
    throw ConfigError(source_name + ": " + e.what());
  }
  size_t index = 0;
  for (const po::option& option : parsed.options) {
    const int line = index < assignment_lines.size() ? assignment_lines[index] : 0;
    ++index;
    const std::string value = option.value.empty() ? std::string() : option.value.front();
    try {
      set_config_value(config, option.string_key, value);
    } catch (const ConfigError& e) {
      throw ConfigError(source_name + ":" + std::to_string(line) + ": " + e.what());
    }
  }
}

void load_config_file(GpuConfig& config, const std::string& path) {
  std::ifstream in(path);
  if (!in) throw ConfigError("cannot read configuration file " + quoted(path));
  std::ostringstream text;
  text << in.rdbuf();
  load_config_text(config, text.str(), path);
}

std::string dump_config(const GpuConfig& config) {
  GpuConfig copy = config;
  std::ostringstream out;
  out << "# tlmgpu configuration (base preset: " << config.preset << ")\n"
      << "# Timings in core-clock cycles (dram.t*: DRAM command-clock cycles); sizes in bytes.\n"
      << "# Load with --config FILE.\n";
  std::string section;
  for (const KeySpec& k : key_table()) {
    const size_t dot = k.key.find('.');
    const std::string this_section = k.key.substr(0, dot);
    // The dump names the GPU that was simulated: how many host threads
    // simulated it changes no result (and no configuration hash).
    if (this_section == "host") continue;
    if (this_section != section) {
      section = this_section;
      out << "\n[" << section << "]\n";
    }
    out << "# " << k.description << " (" << (k.unit.empty() ? "" : k.unit + "; ") << allowed_text(k) << ")\n"
        << k.key.substr(dot + 1) << " = " << value_text(k, copy) << "\n";
  }
  return out.str();
}

void validate_config(const GpuConfig& config) {
  std::vector<std::string> errors;
  GpuConfig copy = config;
  for (const KeySpec& k : key_table()) {
    const std::string error = check_value(k, copy, value_text(k, copy));
    if (!error.empty()) errors.push_back(error);
  }
  const bool ranges_ok = errors.empty();

  check_cache(config, &GpuConfig::l1i, "l1i", errors);
  check_cache(config, &GpuConfig::l1d, "l1d", errors);
  check_cache(config, &GpuConfig::tex, "tex", errors);
  if (config.tex.write_back) errors.push_back("tex.write_back = true: the texture cache is read-only");
  if (config.tex.line_bytes != config.l2.line_bytes)
    errors.push_back("tex.line_bytes = " + std::to_string(config.tex.line_bytes) + " must equal l2.line_bytes = " +
                     std::to_string(config.l2.line_bytes) + " (the texture cache fills whole L2 lines)");
  check_cache(config, &GpuConfig::l2, "l2", errors);
  if (config.l1i.write_back) errors.push_back("l1i.write_back = true: the instruction cache is read-only");

  const SmConfig& sm = config.sm;
  if (sm.max_threads % 32 != 0)
    errors.push_back("sm.max_threads = " + std::to_string(sm.max_threads) +
                     " must be a multiple of 32 (threads come in warps of 32)");
  if (uint64_t{sm.max_warps} * 32 < sm.max_threads)
    errors.push_back("sm.max_warps x 32 = " + std::to_string(sm.max_warps) + " x 32 is less than sm.max_threads = " +
                     std::to_string(sm.max_threads) + " (need sm.max_warps >= " +
                     std::to_string((sm.max_threads + 31) / 32) + ")");
  if (sm.register_allocation_unit != 0) {
    const uint64_t unit = sm.register_allocation_unit;
    const uint64_t warp_regs = registers_per_warp(sm, sm.max_regs_per_thread);
    if (warp_regs > sm.registers)
      errors.push_back("sm.max_regs_per_thread = " + std::to_string(sm.max_regs_per_thread) +
                       " needs " + std::to_string(warp_regs) + " registers for one warp (x 32, rounded up to " +
                       "sm.register_allocation_unit = " + std::to_string(unit) + "), more than sm.registers = " +
                       std::to_string(sm.registers));
  }
  if (sm.num_schedulers != 0 && sm.max_warps % sm.num_schedulers != 0)
    errors.push_back("sm.num_schedulers = " + std::to_string(sm.num_schedulers) +
                     " must divide sm.max_warps = " + std::to_string(sm.max_warps) +
                     " (warp w belongs to scheduler w mod N; every scheduler gets the same share)");
  if (sm.unified_l1_bytes != 0) {
    std::vector<uint32_t> kb;
    std::string error;
    const auto n = [](uint64_t v) { return std::to_string(v); };
    if (config.l1d.size_bytes != sm.unified_l1_bytes)
      errors.push_back("l1d.size_bytes = " + n(config.l1d.size_bytes) + " must equal sm.unified_l1_bytes = " +
                       n(sm.unified_l1_bytes) + " (the L1D's size is the whole unified array's)");
    if (!parse_carveouts(sm.shared_carveouts_kb, kb, error)) {
      errors.push_back("sm.shared_carveouts_kb = '" + sm.shared_carveouts_kb +
                       "': a unified L1D / shared array (sm.unified_l1_bytes) needs its carve-outs");
    } else {
      if (uint64_t(kb.back()) * 1024 < sm.shared_bytes)
        errors.push_back("sm.shared_carveouts_kb: the largest, " + n(kb.back()) + " KB, must hold sm.shared_bytes = " +
                         n(sm.shared_bytes));
      if (config.l1d.ways != 0 && carveout_l1_ways(config, kb.back()) < 1)
        errors.push_back("sm.shared_carveouts_kb: the largest, " + n(kb.back()) + " KB, leaves the L1D no way of " +
                         n(config.l1d.ways));
    }
  }

  const uint32_t line = config.l2.line_bytes;
  if (line != 0 && config.l2_interleave_bytes % line != 0)
    errors.push_back("l2.interleave_bytes = " + std::to_string(config.l2_interleave_bytes) +
                     " must be a multiple of l2.line_bytes = " + std::to_string(line) +
                     " (a line lives in one slice)");
  if (line != 0 && config.dram.interleave_bytes % line != 0)
    errors.push_back("dram.interleave_bytes = " + std::to_string(config.dram.interleave_bytes) +
                     " must be a multiple of l2.line_bytes = " + std::to_string(line) +
                     " (a line lives in one channel)");
  if (config.l2_slices < config.dram.channels)
    errors.push_back("l2.slices = " + std::to_string(config.l2_slices) + " is less than dram.channels = " +
                     std::to_string(config.dram.channels) + " (a channel without a slice in front of it stays idle)");
  check_dram(config, errors);
  if (config.dram.row_bytes < config.l2.line_bytes)
    errors.push_back("dram.row_bytes = " + std::to_string(config.dram.row_bytes) +
                     " must be at least l2.line_bytes = " + std::to_string(config.l2.line_bytes));

  if (ranges_ok && sm.max_warps % sm.num_schedulers == 0) {
    try {
      schedulers::PolicyContext context;
      context.num_schedulers = sm.num_schedulers;
      context.max_warps_per_scheduler = sm.max_warps / sm.num_schedulers;
      schedulers::make_policy(config.scheduler, context);
    } catch (const std::invalid_argument& e) {
      errors.push_back("gpu.scheduler = " + quoted(config.scheduler) + ": " + e.what());
    }
  }

  if (errors.empty()) return;
  std::string message = "invalid configuration:";
  for (const std::string& e : errors) message += "\n  " + e;
  throw ConfigError(message);
}

GpuConfig resolve_config(const std::string& preset, const std::vector<std::string>& ini_files,
                         const std::vector<std::string>& set_overrides) {
  GpuConfig config = preset_config(preset.empty() ? "gtx480" : preset);
  for (const std::string& file : ini_files) load_config_file(config, file);
  for (const std::string& assignment : set_overrides) {
    try {
      apply_config_assignment(config, assignment);
    } catch (const ConfigError& e) {
      throw ConfigError(std::string("--set: ") + e.what());
    }
  }
  validate_config(config);
  return config;
}

}  // namespace tlmgpu::platform
