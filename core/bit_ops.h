// Small bit helpers for the memory system's and the SM's hot paths.
#pragma once

#include <cstdint>

#include "core/int_ops.h"

namespace tlmgpu::core {

/// Set bits of a mask (the executor's count, without the libgcc call).
using intops::popcount32;

/// x / d and x mod d for a divisor fixed when a model is built (an address
/// map, a clock period, a bank count): a shift and a mask for a power of
/// two, else a multiply by a precomputed reciprocal and one correction step,
/// exact for every 64-bit x. The hot paths then never wait for a hardware
/// divide (tens of cycles, several per memory request).
class FixedDivisor {
 public:
  explicit FixedDivisor(uint64_t d = 1) : d_(d ? d : 1) {
    pow2_ = (d_ & (d_ - 1)) == 0;
    shift_ = uint32_t(__builtin_ctzll(d_));
    // reciprocal_ = floor((2^64 - 1) / d): the high half of x * reciprocal_ is
    // floor(x / d) or one less (the error x * (1 + (2^64 - 1) mod d) / (d * 2^64) is below 1).
    reciprocal_ = pow2_ ? 0 : ~uint64_t(0) / d_;
  }
  uint64_t div(uint64_t x) const {
    if (pow2_) return x >> shift_;
    uint64_t q = uint64_t((static_cast<unsigned __int128>(x) * reciprocal_) >> 64);
    if (x - q * d_ >= d_) ++q;
    return q;
  }
  uint64_t mod(uint64_t x) const { return pow2_ ? x & (d_ - 1) : x - div(x) * d_; }
  uint64_t divisor() const { return d_; }

 private:
  uint64_t d_;
  uint64_t reciprocal_ = 0;
  uint32_t shift_ = 0;
  bool pow2_ = true;
};

/// Bits first..last of a 32-bit mask (first <= last <= 31).
inline uint32_t bit_range(uint32_t first, uint32_t last) {
  return ((2u << last) - 1) & ~((1u << first) - 1);  // 2u << 31 wraps to 0: all bits
}

}  // namespace tlmgpu::core
