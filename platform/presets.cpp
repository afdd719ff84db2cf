#include "platform/presets.h"

#include "platform/config_keys.h"

namespace tlmgpu::platform {
namespace {

struct PresetEntry {
  const char* name;
  const char* description;
  const char* base;  // "" or an earlier entry
};

const PresetEntry kPresets[] = {
    {"gtx480",
     "NVIDIA Fermi GTX480 as in GPGPU-Sim (memory as its 4.2 SM2_GTX480): 15 SMs, 2 schedulers each, 6 GDDR5 "
     "channels (default)", ""},
    {"titanx_pascal", "NVIDIA Pascal TITAN X: 28 SMs, 4 schedulers each, 3 MB L2, 12 memory controllers (seed 002)",
     ""},
    {"vortex_1sm", "Vortex RISC-V GPU: 1 SM, 32 warps, 1 scheduler, 4-deep instruction queues (seed 003)", ""},
    {"gtx480_14sm", "gtx480 with 14 SMs, as seed 000 (PRO) configures GPGPU-Sim in its Table I", "gtx480"},
    {"qv100",
     "NVIDIA Volta V100 (GV100) as GPGPU-Sim 4.2's SM7_QV100: 80 SMs of 4 sub-cores with tensor cores, 6 MB L2, "
     "32 HBM2 channels; independent thread scheduling", ""},
    {"rtx2060",
     "NVIDIA Turing RTX 2060 (TU106) as GPGPU-Sim 4.2's SM75_RTX2060: 30 SMs of 4 sub-cores, 3 MB L2, 12 GDDR6 "
     "channels", ""},
    {"rtx3070",
     "NVIDIA Ampere RTX 3070 (GA104) as GPGPU-Sim 4.2's SM86_RTX3070: 46 SMs of 4 sub-cores, 4 MB L2, 16 GDDR6 "
     "channels", ""},
};

}  // namespace

std::vector<PresetDescription> preset_descriptions() {
  std::vector<PresetDescription> list;
  for (const PresetEntry& p : kPresets) list.push_back({p.name, p.description, p.base});
  return list;
}

namespace {

// Each embedded file is read once per process (a few million instructions
// of INI parsing), then copied.
const std::map<std::string, core::GpuConfig>& parsed_presets() {
  static const std::map<std::string, core::GpuConfig> parsed = [] {
    std::map<std::string, core::GpuConfig> m;
    for (const PresetEntry& p : kPresets) {
      auto file = embedded_preset_files().find(p.name);
      if (file == embedded_preset_files().end()) continue;  // reported by preset_config
      // Every key is in a complete file (tests/test_config.cpp checks), so
      // the default-constructed values underneath do not show through; a
      // derived preset's few keys go over its base, parsed before it.
      core::GpuConfig c;
      if (*p.base) {
        auto base = m.find(p.base);
        if (base == m.end()) continue;  // reported by preset_config
        c = base->second;
      }
      load_config_text(c, file->second, "configs/" + std::string(p.name) + ".ini");
      c.preset = p.name;
      m.emplace(p.name, std::move(c));
    }
    return m;
  }();
  return parsed;
}

}  // namespace

core::GpuConfig preset_config(const std::string& name) {
  for (const PresetEntry& p : kPresets) {
    if (name != p.name) continue;
    auto it = parsed_presets().find(name);
    if (it == parsed_presets().end())
      throw ConfigError("preset '" + name + "': configs/" + name + ".ini was not embedded at build time");
    return it->second;
  }
  std::string names;
  for (const PresetEntry& p : kPresets) names += (names.empty() ? "" : ", ") + std::string(p.name);
  throw ConfigError("unknown preset '" + name + "' (presets: " + names + ")");
}

}  // namespace tlmgpu::platform
