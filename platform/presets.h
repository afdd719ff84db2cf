// Named GPU configurations (`--preset`).
#pragma once

#include <string>
#include <vector>

namespace tlmgpu::platform {

struct PresetDescription {
  std::string name;
  std::string description;
};

/// Every preset, the default first.
std::vector<PresetDescription> preset_descriptions();

}  // namespace tlmgpu::platform
