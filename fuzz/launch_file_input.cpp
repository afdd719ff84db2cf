#include "fuzz/fuzz_inputs.h"

#include <string>

#include "platform/launch_file.h"

#ifndef TLMGPU_SOURCE_DIR
#error "TLMGPU_SOURCE_DIR must name the source tree (the launch-file seeds' PTX and data files)"
#endif

namespace tlmgpu::fuzz {

void launch_file_input(const uint8_t* data, size_t size) {
  try {
    platform::LaunchFile::parse(input_text(data, size), "fuzz.json", TLMGPU_SOURCE_DIR "/tests/launch");
  } catch (const platform::LaunchFileError& e) {
    require(std::string(e.what()).find("fuzz.json") != std::string::npos, "a launch-file error that names no file");
  }
}

}  // namespace tlmgpu::fuzz
