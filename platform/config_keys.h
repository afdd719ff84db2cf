// The configuration's key table (every key's range, unit and meaning), the
// INI reader, --set and validation, over core/gpu_config.h's structs. They
// live in the platform: checking a scheduler policy builds it, and the DRAM
// address mapping and occupancy checks use those modules.
#pragma once

#include <exception>
#include <string>
#include <utility>
#include <vector>

#include "core/gpu_config.h"

namespace tlmgpu::platform {

/// A configuration key: "section.name", its description and allowed range.
struct ConfigKeyInfo {
  std::string key;
  std::string description;
  std::string allowed;  ///< e.g. "1..64" or "lrr, gto"
  std::string unit;     ///< "cycles", "bytes", "MHz" or empty
};

/// Every key that INI files and --set accept.
std::vector<ConfigKeyInfo> config_keys();

/// Applies `key=value` (e.g. "sm.num_schedulers=4"); throws ConfigError
/// naming the key and what is allowed for an unknown key or a bad value.
void set_config_value(core::GpuConfig& config, const std::string& key, const std::string& value);

/// Applies one `key=value` assignment as given to --set; throws ConfigError
/// when there is no '=' or the key / value is bad.
void apply_config_assignment(core::GpuConfig& config, const std::string& assignment);

/// The value of `key` as the INI text would write it; ConfigError for an unknown key.
std::string get_config_value(const core::GpuConfig& config, const std::string& key);

/// Every key with its value, in config_keys() order (for the stats JSON).
std::vector<std::pair<std::string, std::string>> config_values(const core::GpuConfig& config);

/// Reads an INI file (`[sm]\nnum_schedulers = 2`) onto `config`. Errors name
/// the file and line.
void load_config_file(core::GpuConfig& config, const std::string& path);

/// As load_config_file, from text; `source_name` names it in errors.
void load_config_text(core::GpuConfig& config, const std::string& text, const std::string& source_name);

/// The effective configuration as INI text (what --dump-config prints).
std::string dump_config(const core::GpuConfig& config);

/// A named preset ("gtx480", "titanx_pascal", "vortex_1sm"); throws
/// ConfigError listing the presets for an unknown name.
core::GpuConfig preset_config(const std::string& name);

/// Checks every key's range and the cross-key consistency (cache geometry,
/// warps vs threads...); throws ConfigError naming the keys.
void validate_config(const core::GpuConfig& config);

/// What the CLI runs: the preset (empty = gtx480), then the INI files in
/// order, then the `key=value` overrides, then validate_config.
core::GpuConfig resolve_config(const std::string& preset, const std::vector<std::string>& ini_files,
                         const std::vector<std::string>& set_overrides);

class ConfigError : public std::exception {
 public:
  explicit ConfigError(std::string message) : message_(std::move(message)) {}
  const char* what() const noexcept override { return message_.c_str(); }

 private:
  std::string message_;
};

}  // namespace tlmgpu::platform
