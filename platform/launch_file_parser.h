// Launch files: from JSON text to a checked plan. Every schema error (JSON
// syntax, missing or unknown keys, wrong types, unknown buffers, missing
// input files) is found here, before anything runs; the checks that need the
// PTX module are the runner's.
#pragma once

#include <string>

#include "platform/launch_file_plan.h"

namespace tlmgpu::platform::launch_file {

/// Parses and checks launch-file text. `display_name` names it in messages;
/// relative paths inside are resolved against `base_dir`. Throws
/// LaunchFileError.
LaunchPlan parse_launch_plan(const std::string& text, const std::string& display_name, const std::string& base_dir);

}  // namespace tlmgpu::platform::launch_file
