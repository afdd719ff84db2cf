// libFuzzer target fuzz_launch_file: launch-file text: the JSON schema checks of LaunchFile::parse.
// What one input does is in fuzz/fuzz_inputs.h.
#include <cstddef>
#include <cstdint>

#include "fuzz/fuzz_inputs.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  tlmgpu::fuzz::launch_file_input(data, size);
  return 0;
}
