// Small bit helpers for the memory system's hot paths.
#pragma once

#include <cstdint>

namespace tlmgpu::memory {

/// Set bits of a sector mask. The build has no -mpopcnt, so __builtin_popcount
/// is a libgcc call; masks of one 128-byte line have 4 bits, counted with one
/// shift of a table of nibble counts, and wider ones take the usual SWAR sum.
inline uint32_t popcount32(uint32_t v) {
#ifdef __POPCNT__
  return uint32_t(__builtin_popcount(v));
#else
  if (v < 16) return uint32_t(0x4332322132212110ull >> (v * 4)) & 0xf;
  v = v - ((v >> 1) & 0x55555555u);
  v = (v & 0x33333333u) + ((v >> 2) & 0x33333333u);
  return (((v + (v >> 4)) & 0x0f0f0f0fu) * 0x01010101u) >> 24;
#endif
}

/// Bits first..last of a 32-bit mask (first <= last <= 31).
inline uint32_t bit_range(uint32_t first, uint32_t last) {
  return ((2u << last) - 1) & ~((1u << first) - 1);  // 2u << 31 wraps to 0: all bits
}

}  // namespace tlmgpu::memory
