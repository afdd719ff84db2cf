// libFuzzer target fuzz_fatbin: fat-binary sections and programs through the
// fat-binary reader and the program inspector.
// What one input does is in fuzz/fuzz_inputs.h.
#include <cstddef>
#include <cstdint>

#include "fuzz/fuzz_inputs.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  tlmgpu::fuzz::fatbin_input(data, size);
  return 0;
}
