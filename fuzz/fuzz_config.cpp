// libFuzzer target fuzz_config: INI text and --set assignments, then validate_config.
// What one input does is in fuzz/fuzz_inputs.h.
#include <cstddef>
#include <cstdint>

#include "fuzz/fuzz_inputs.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  tlmgpu::fuzz::config_input(data, size);
  return 0;
}
