// Integer helpers for the PTX semantics: the bit-field, permute and
// division rules of the PTX ISA, without undefined behaviour in C++. In the
// bottom layer because the memory system's bit helpers (core/bit_ops.h)
// share its popcount.
#pragma once

#include <cstdint>
#ifdef __BMI2__
#include <immintrin.h>
#endif
#include <limits>
#include <type_traits>

namespace tlmgpu::core::intops {

template <typename T>
using U = std::make_unsigned_t<T>;

/// Wrapping arithmetic (signed overflow is defined in PTX, not in C++).
template <typename T>
inline T wrap_add(T a, T b) { return T(U<T>(U<T>(a) + U<T>(b))); }
template <typename T>
inline T wrap_sub(T a, T b) { return T(U<T>(U<T>(a) - U<T>(b))); }
template <typename T>
inline T wrap_mul(T a, T b) {
  // Promote 16-bit operands to unsigned int so the product cannot overflow int.
  using W = std::conditional_t<(sizeof(T) < sizeof(unsigned)), unsigned, U<T>>;
  return T(U<T>(W(U<T>(a)) * W(U<T>(b))));
}
template <typename T>
inline T wrap_neg(T a) { return T(U<T>(U<T>(0) - U<T>(a))); }

/// High half of the full product.
template <typename T>
inline T mul_hi(T a, T b) {
  if constexpr (sizeof(T) == 8) {
    using W = std::conditional_t<std::is_signed_v<T>, __int128, unsigned __int128>;
    return T(uint64_t((unsigned __int128)(W(a) * W(b)) >> 64));
  } else {
    using W = std::conditional_t<std::is_signed_v<T>, int64_t, uint64_t>;
    return T(U<T>(uint64_t(W(a) * W(b)) >> (8 * sizeof(T))));
  }
}

/// Saturating signed add for .sat.s32.
inline int32_t sat_add(int64_t wide) {
  if (wide > std::numeric_limits<int32_t>::max()) return std::numeric_limits<int32_t>::max();
  if (wide < std::numeric_limits<int32_t>::min()) return std::numeric_limits<int32_t>::min();
  return int32_t(wide);
}

/// div/rem never trap: x/0 is all ones (-1 for signed), x%0 is x, and
/// MIN/-1 wraps to MIN with remainder 0.
template <typename T>
inline T div(T a, T b) {
  if (b == 0) return T(~U<T>(0));
  if constexpr (std::is_signed_v<T>) {
    if (b == T(-1)) return wrap_neg(a);
  }
  return T(a / b);
}
template <typename T>
inline T rem(T a, T b) {
  if (b == 0) return a;
  if constexpr (std::is_signed_v<T>) {
    if (b == T(-1)) return 0;
  }
  return T(a % b);
}

template <typename T>
inline T abs(T a) { return a < 0 ? wrap_neg(a) : a; }

/// Shifts: amounts at or beyond the width give 0 (shl, shr.u) or the sign fill (shr.s).
template <typename T>
inline T shl(T a, uint32_t n) {
  return n >= 8 * sizeof(T) ? T(0) : T(U<T>(U<T>(a) << n));
}
template <typename T>
inline T shr(T a, uint32_t n) {
  constexpr uint32_t w = 8 * sizeof(T);
  if constexpr (std::is_signed_v<T>) return T(a >> (n >= w ? w - 1 : n));
  else return n >= w ? T(0) : T(a >> n);
}

/// The bits of x at the positions set in mask, packed towards bit 0 in
/// mask's order (BMI2's PEXT where the processor has it).
inline uint64_t gather_bits(uint64_t x, uint64_t mask) {
#ifdef __BMI2__
  return _pext_u64(x, mask);
#else
  uint64_t out = 0, bit = 1;
  for (uint64_t m = mask; m; m &= m - 1, bit <<= 1)
    if (x & m & (~m + 1)) out |= bit;
  return out;
#endif
}

// Population counts in plain arithmetic where the build targets x86-64
// without POPCNT (TLMGPU_NATIVE off), as __builtin_popcount is then a libgcc
// call. (The SM and the memory system use popcount32 too.)
inline uint32_t popcount32(uint32_t v) {
#ifdef __POPCNT__
  return uint32_t(__builtin_popcount(v));
#else
  v = v - ((v >> 1) & 0x55555555u);
  v = (v & 0x33333333u) + ((v >> 2) & 0x33333333u);
  v = (v + (v >> 4)) & 0x0f0f0f0fu;
  return (v * 0x01010101u) >> 24;
#endif
}

inline uint32_t popc(uint64_t v) {
  v = v - ((v >> 1) & 0x5555555555555555ull);
  v = (v & 0x3333333333333333ull) + ((v >> 2) & 0x3333333333333333ull);
  v = (v + (v >> 4)) & 0x0f0f0f0f0f0f0f0full;
  return uint32_t((v * 0x0101010101010101ull) >> 56);
}

template <typename T>
inline uint32_t clz(T v) {
  const uint64_t u = uint64_t(U<T>(v));
  constexpr uint32_t w = 8 * sizeof(T);
  return u == 0 ? w : uint32_t(__builtin_clzll(u)) - (64 - w);
}

template <typename T>
inline T brev(T v) {
  U<T> u = U<T>(v), r = 0;
  for (unsigned i = 0; i < 8 * sizeof(T); ++i) {
    r = U<T>((r << 1) | (u & 1));
    u = U<T>(u >> 1);
  }
  return T(r);
}

/// bfe: extract len bits at pos (both taken from their low 8 bits); signed
/// types replicate the field's top bit, also when pos is beyond the msb.
template <typename T>
inline T bfe(T a, uint32_t b, uint32_t c) {
  constexpr uint32_t w = 8 * sizeof(T);
  const uint32_t pos = b & 0xffu, len = c & 0xffu;
  const uint64_t u = uint64_t(U<T>(a));
  if (len == 0) return 0;
  uint64_t sbit = 0;
  if constexpr (std::is_signed_v<T>) {
    const uint32_t top = pos + len - 1 < w - 1 ? pos + len - 1 : w - 1;
    sbit = (u >> top) & 1;
  }
  const uint64_t field = pos >= w ? 0 : (u >> pos);
  const uint32_t avail = pos >= w ? 0 : w - pos;          // bits of a that exist above pos
  const uint32_t take = len < avail ? len : avail;        // bits copied from a
  const uint64_t keep = take >= 64 ? ~0ull : ((1ull << take) - 1);
  uint64_t r = field & keep;
  if (sbit && take < w) r |= ~0ull << take;
  return T(U<T>(r));
}

/// bfi: insert the low len bits of a into b at pos.
template <typename T>
inline T bfi(T a, T b, uint32_t c, uint32_t d) {
  constexpr uint32_t w = 8 * sizeof(T);
  const uint32_t pos = c & 0xffu, len = d & 0xffu;
  if (len == 0 || pos >= w) return b;
  const uint32_t n = len < w - pos ? len : w - pos;
  const uint64_t field = n >= 64 ? ~0ull : ((1ull << n) - 1);
  const uint64_t m = field << pos;
  const uint64_t r = (uint64_t(U<T>(b)) & ~m) | ((uint64_t(U<T>(a)) << pos) & m);
  return T(U<T>(r));
}

/// bfind: position of the most significant non-sign bit, 0xffffffff if none.
template <typename T>
inline uint32_t bfind(T a, bool shiftamt) {
  constexpr uint32_t msb = 8 * sizeof(T) - 1;
  uint64_t u = uint64_t(U<T>(a));
  if constexpr (std::is_signed_v<T>) {
    if (a < 0) u = uint64_t(U<T>(~U<T>(a)));
  }
  if (u == 0) return 0xffffffffu;
  const uint32_t pos = 63 - uint32_t(__builtin_clzll(u));
  return shiftamt ? msb - pos : pos;
}

/// prmt (generic form): each selector nibble of c picks one byte of {b, a};
/// bit 3 of the nibble replicates that byte's sign bit instead.
inline uint32_t prmt(uint32_t a, uint32_t b, uint32_t c) {
  const uint64_t src = (uint64_t(b) << 32) | a;
  uint32_t r = 0;
  for (unsigned i = 0; i < 4; ++i) {
    const uint32_t sel = (c >> (4 * i)) & 0xfu;
    uint32_t byte = uint32_t(src >> (8 * (sel & 7))) & 0xffu;
    if (sel & 8) byte = (byte & 0x80u) ? 0xffu : 0;
    r |= byte << (8 * i);
  }
  return r;
}

/// The specialised prmt modes: the two low bits of c steer the permute.
inline uint32_t prmt_mode(uint32_t a, uint32_t b, uint32_t c, int mode) {
  const uint64_t src = (uint64_t(b) << 32) | a;
  auto byte = [&](unsigned i) { return uint32_t(src >> (8 * (i & 7))) & 0xffu; };
  const unsigned s = c & 3;
  unsigned sel[4] = {0, 0, 0, 0};
  switch (mode) {
    case 1:  // f4e: forward 4 extract
      for (unsigned i = 0; i < 4; ++i) sel[i] = s + i;
      break;
    case 2:  // b4e: backward 4 extract
      for (unsigned i = 0; i < 4; ++i) sel[i] = (s + 8 - i) & 7;
      break;
    case 3:  // rc8: replicate byte s
      for (unsigned i = 0; i < 4; ++i) sel[i] = s;
      break;
    case 4:  // ecl: edge clamp left
      for (unsigned i = 0; i < 4; ++i) sel[i] = i >= s ? i : s;
      break;
    case 5:  // ecr: edge clamp right
      for (unsigned i = 0; i < 4; ++i) sel[i] = i <= s ? i : s;
      break;
    default:  // rc16: replicate half-word s&1
      sel[0] = sel[2] = (s & 1) * 2;
      sel[1] = sel[3] = (s & 1) * 2 + 1;
      break;
  }
  uint32_t r = 0;
  for (unsigned i = 0; i < 4; ++i) r |= byte(sel[i]) << (8 * i);
  return r;
}

}  // namespace tlmgpu::core::intops
