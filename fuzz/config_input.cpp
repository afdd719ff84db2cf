#include "fuzz/fuzz_inputs.h"

#include <sstream>
#include <string>

#include "platform/config_keys.h"

namespace tlmgpu::fuzz {

void config_input(const uint8_t* data, size_t size) {
  const std::string text = input_text(data, size);
  // INI text, then (after a line "%%") --set assignments.
  std::string ini = text, assignments;
  const size_t split = text.find("\n%%\n");
  if (split != std::string::npos) {
    ini = text.substr(0, split + 1);
    assignments = text.substr(split + 4);
  }
  core::GpuConfig config = platform::preset_config("gtx480");
  try {
    platform::load_config_text(config, ini, "fuzz.ini");
    std::istringstream lines(assignments);
    for (std::string line; std::getline(lines, line);) platform::apply_config_assignment(config, line);
    platform::validate_config(config);
  } catch (const platform::ConfigError&) {
    return;
  }
  // What --dump-config prints must load back to the same configuration.
  const std::string dumped = platform::dump_config(config);
  core::GpuConfig reloaded = platform::preset_config(config.preset.empty() ? "gtx480" : config.preset);
  try {
    platform::load_config_text(reloaded, dumped, "dumped.ini");
    platform::validate_config(reloaded);
  } catch (const platform::ConfigError& e) {
    throw FuzzPropertyError(std::string("the dumped configuration does not load: ") + e.what());
  }
  require(platform::dump_config(reloaded) == dumped, "the dumped configuration loads as a different one");
}

}  // namespace tlmgpu::fuzz
