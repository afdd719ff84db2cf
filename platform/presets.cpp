#include "platform/presets.h"

namespace tlmgpu::platform {

// The functional engine needs only the SM count; the cycle-level presets
// (gtx480, titanx_pascal, vortex_1sm) come with the timing model.
std::vector<PresetDescription> preset_descriptions() {
  return {{"functional", "functional execution on 15 SMs (no timing)"}};
}

}  // namespace tlmgpu::platform
