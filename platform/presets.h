// Named GPU configurations (`--preset`). The values and the paper tables they
// come from are listed in docs/CONFIGURATION.md; configs/<name>.ini holds each
// preset as an INI file.
#pragma once

#include <string>
#include <vector>

namespace tlmgpu::platform {

struct PresetDescription {
  std::string name;
  std::string description;
};

/// Every preset, the default (gtx480) first. preset_config() in
/// platform/gpu_config.h builds one.
std::vector<PresetDescription> preset_descriptions();

}  // namespace tlmgpu::platform
