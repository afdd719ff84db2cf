// Every parameter of the cycle-level GPU, resolved once from a preset, INI
// files and --set overrides; modules take the parts they need by const&.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace tlmgpu::platform {

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
};

struct SmConfig {
  uint32_t max_threads = 1536;
  uint32_t max_ctas = 8;
  uint32_t max_warps = 48;
  uint32_t registers = 32768;        ///< 32-bit registers per SM
  uint32_t shared_bytes = 48 * 1024;
  uint32_t num_schedulers = 2;       ///< warp w belongs to scheduler w mod N
  uint32_t ibuffer_depth = 2;        ///< decoded instructions buffered per warp
  uint32_t fetch_width = 1;          ///< warps fetched per cycle
  std::string fetch_policy = "lrr";
  uint32_t decode_latency = 1;
  uint32_t issue_width = 1;          ///< instructions per scheduler per cycle
  /// Operand collector units per execution-unit class, per scheduler.
  uint32_t collectors_sp = 2, collectors_sfu = 1, collectors_mem = 1, collectors_dp = 1;
  uint32_t register_banks = 4;       ///< register-file banks (per scheduler's share)
  uint32_t shared_banks = 32;
  uint32_t shared_latency = 20;
  UnitTiming sp{4, 1};
  UnitTiming sfu{20, 4};
  UnitTiming dp{8, 8};               ///< units without DP hardware: a slow pipeline
  UnitTiming int_div{32, 32};        ///< integer div / rem (not pipelined)
  UnitTiming fp_div_sqrt{16, 16};    ///< fdiv / fsqrt (not pipelined), f32 .rn
  UnitTiming ldst{1, 1};             ///< address generation; memory latency comes from the caches
  bool has_dp_unit = false;          ///< else DP instructions use the SFU-like dp timing on the SP pipe
};

struct InterconnectConfig {
  uint32_t latency = 8;              ///< cycles, each direction
  uint32_t bytes_per_cycle = 32;     ///< per port, each direction
};

struct DramConfig {
  uint32_t channels = 6;
  uint32_t banks = 16;
  uint32_t row_bytes = 2048;
  uint32_t tRCD = 12, tRP = 12, tCL = 12, tRAS = 28;
  uint32_t burst_cycles = 4;         ///< data-bus cycles per 32-byte sector
  uint32_t bus_bytes = 8;
  uint32_t queue_depth = 32;         ///< requests per channel scheduler
  uint32_t interleave_bytes = 256;   ///< address interleaving across channels
};

struct GpuConfig {
  std::string preset = "gtx480";
  double core_clock_mhz = 1400;
  uint32_t num_sms = 15;
  SmConfig sm;
  CacheConfig l1i{2 * 1024, 4, 128, 128, 3, 8, 4, false};
  CacheConfig l1d{16 * 1024, 4, 128, 32, 1, 32, 8, false};
  CacheConfig l2{768 * 1024 / 6, 8, 128, 32, 10, 32, 8, true};  ///< per slice
  uint32_t l2_slices = 6;
  uint32_t l2_interleave_bytes = 256;
  InterconnectConfig icnt;
  DramConfig dram;
  std::string scheduler = "lrr";     ///< policy with parameters, e.g. "two_level:group=8"
};

/// A configuration key: "section.name", its description and allowed range.
struct ConfigKeyInfo {
  std::string key;
  std::string description;
  std::string allowed;  ///< e.g. "1..64" or "lrr, gto"
};

/// Every key that INI files and --set accept.
std::vector<ConfigKeyInfo> config_keys();

/// Applies `key=value` (e.g. "sm.num_schedulers=4"); throws ConfigError
/// naming the key and what is allowed for an unknown key or a bad value.
void set_config_value(GpuConfig& config, const std::string& key, const std::string& value);

/// Reads an INI file (`[sm]\nnum_schedulers = 2`) onto `config`.
void load_config_file(GpuConfig& config, const std::string& path);

/// The effective configuration as INI text (what --dump-config prints).
std::string dump_config(const GpuConfig& config);

/// A named preset ("gtx480", "titanx_pascal", "vortex_1sm"); throws
/// ConfigError listing the presets for an unknown name.
GpuConfig preset_config(const std::string& name);

/// Checks cross-key consistency (cache geometry, warps vs threads...).
void validate_config(const GpuConfig& config);

class ConfigError : public std::exception {
 public:
  explicit ConfigError(std::string message) : message_(std::move(message)) {}
  const char* what() const noexcept override { return message_.c_str(); }

 private:
  std::string message_;
};

}  // namespace tlmgpu::platform
