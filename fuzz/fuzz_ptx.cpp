// libFuzzer target fuzz_ptx: PTX text: lexer, parser, decoder, control-flow analysis, register estimate.
// What one input does is in fuzz/fuzz_inputs.h.
#include <cstddef>
#include <cstdint>

#include "fuzz/fuzz_inputs.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  tlmgpu::fuzz::ptx_input(data, size);
  return 0;
}
