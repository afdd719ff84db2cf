// libFuzzer target fuzz_mmio: register reads and writes on the GPU peripheral's mmio socket.
// What one input does is in fuzz/fuzz_inputs.h.
#include <cstddef>
#include <cstdint>

#include "fuzz/fuzz_inputs.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  tlmgpu::fuzz::mmio_input(data, size);
  return 0;
}
