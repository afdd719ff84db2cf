#include "platform/presets.h"

#include <map>
#include <mutex>

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

const PresetEntry* find_entry(const std::string& name) {
  for (const PresetEntry& p : kPresets)
    if (name == p.name) return &p;
  return nullptr;
}

// Each embedded file is read when its preset is first asked for (a few
// million instructions of INI parsing, so a run pays only for its own and
// its base), then copied. nullptr: the file was not embedded.
const core::GpuConfig* parsed_preset(const PresetEntry& p) {
  static std::mutex lock;
  static std::map<std::string, core::GpuConfig> parsed;
  {
    std::lock_guard<std::mutex> hold(lock);
    auto it = parsed.find(p.name);
    if (it != parsed.end()) return &it->second;
  }
  auto file = embedded_preset_files().find(p.name);
  if (file == embedded_preset_files().end()) return nullptr;
  // Every key is in a complete file (tests/test_config.cpp checks), so the
  // default-constructed values underneath do not show through; a derived
  // preset's few keys go over its base.
  core::GpuConfig c;
  if (*p.base) {
    const PresetEntry* base = find_entry(p.base);
    const core::GpuConfig* base_config = base ? parsed_preset(*base) : nullptr;
    if (!base_config) return nullptr;
    c = *base_config;
  }
  load_config_text(c, file->second, "configs/" + std::string(p.name) + ".ini");
  c.preset = p.name;
  std::lock_guard<std::mutex> hold(lock);
  return &parsed.emplace(p.name, std::move(c)).first->second;  // (a racing first parse keeps the one in place)
}

}  // namespace

core::GpuConfig preset_config(const std::string& name) {
  if (const PresetEntry* p = find_entry(name)) {
    const core::GpuConfig* config = parsed_preset(*p);
    if (!config) throw ConfigError("preset '" + name + "': configs/" + name + ".ini was not embedded at build time");
    return *config;
  }
  std::string names;
  for (const PresetEntry& p : kPresets) names += (names.empty() ? "" : ", ") + std::string(p.name);
  throw ConfigError("unknown preset '" + name + "' (presets: " + names + ")");
}

}  // namespace tlmgpu::platform
