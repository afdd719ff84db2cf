// Small bit helpers for the memory system's hot paths.
#pragma once

#include <cstdint>

#include "model/exec/int_ops.h"

namespace tlmgpu::memory {

/// Set bits of a mask (the executor's count, without the libgcc call).
using exec::intops::popcount32;

/// Bits first..last of a 32-bit mask (first <= last <= 31).
inline uint32_t bit_range(uint32_t first, uint32_t last) {
  return ((2u << last) - 1) & ~((1u << first) - 1);  // 2u << 31 wraps to 0: all bits
}

}  // namespace tlmgpu::memory
