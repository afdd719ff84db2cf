#include "model/exec/video_ops.h"

#include <algorithm>

namespace tlmgpu::exec::video {

using ptx::CmpOp;
using ptx::VideoForm;
using ptx::VideoOp;
using ptx::VideoSecondary;

uint32_t bmsk(uint32_t a, uint32_t b, bool clamp) {
  const uint32_t a1 = a & 31, b1 = b & 31;
  uint32_t low = ~0u << a1;  // bits at and above the start position
  const bool position_overflow = clamp && a >= 32;
  const bool width_overflow = clamp && b >= 32;
  if (position_overflow) low = 0;
  // high: bits at and above start+width, which the mask excludes.
  uint32_t high = a1 + b1 >= 32 ? 0 : (~0u << (a1 + b1));
  if (a1 + b1 >= 32 || position_overflow || width_overflow) {
    high = 0;
  } else if (b1 == 0) {
    high = ~0u;  // zero width: empty mask
  }
  return low & ~high;
}

uint32_t szext(uint32_t a, uint32_t b, bool clamp, bool is_signed) {
  const uint32_t n = b & 31;
  const bool too_large = clamp && b >= 32;  // clamped to 32 bits: a unchanged
  const uint32_t upper = too_large ? 0 : (~0u << n);
  const bool sign = n != 0 && !too_large && is_signed && ((a >> (n - 1)) & 1);
  return (a & ~upper) | (sign ? upper : 0);
}

namespace {

/// partSelectSignExtend: a byte, half-word or the word of x, extended by its signedness.
int64_t select_part(uint32_t x, uint8_t sel, bool is_signed) {
  if (sel <= 3) {
    const uint32_t v = (x >> (8 * sel)) & 0xff;
    return is_signed ? int64_t(int8_t(uint8_t(v))) : int64_t(v);
  }
  if (sel <= ptx::kVideoSelH1) {
    const uint32_t v = (x >> (16 * (sel - ptx::kVideoSelH0))) & 0xffff;
    return is_signed ? int64_t(int16_t(uint16_t(v))) : int64_t(v);
  }
  return is_signed ? int64_t(int32_t(x)) : int64_t(x);
}

int64_t clamp_to(int64_t v, int64_t lo, int64_t hi) { return std::min(std::max(v, lo), hi); }

/// optSaturate: the range of the destination part (byte, half-word or word) and sign.
int64_t saturate(int64_t v, bool is_signed, uint8_t dsel) {
  const unsigned bits = dsel <= 3 ? 8 : dsel <= ptx::kVideoSelH1 ? 16 : 32;
  if (is_signed) return clamp_to(v, -(int64_t(1) << (bits - 1)), (int64_t(1) << (bits - 1)) - 1);
  return clamp_to(v, 0, (int64_t(1) << bits) - 1);
}

bool compare(int64_t a, int64_t b, CmpOp cmp) {
  switch (cmp) {
    case CmpOp::Eq: return a == b;
    case CmpOp::Ne: return a != b;
    case CmpOp::Lt: return a < b;
    case CmpOp::Le: return a <= b;
    case CmpOp::Gt: return a > b;
    default: return a >= b;  // Ge: the decoder admits only these six
  }
}

/// The primary operation of the add/sub/absdiff/min/max/set family on extended values.
int64_t primary(VideoOp op, CmpOp cmp, int64_t a, int64_t b) {
  switch (op) {
    case VideoOp::Add: return a + b;
    case VideoOp::Sub: return a - b;
    case VideoOp::Absdiff: return a > b ? a - b : b - a;
    case VideoOp::Min: return std::min(a, b);
    case VideoOp::Max: return std::max(a, b);
    case VideoOp::Avrg: {
      // Halves rounded away from zero.
      const int64_t s = a + b;
      return s >= 0 ? (s + 1) >> 1 : s >> 1;
    }
    case VideoOp::Set: return compare(a, b, cmp) ? 1 : 0;
    default: return 0;
  }
}

/// vshl / vshr of the 33-bit extended a by n (already clamped or wrapped),
/// kept, as the ISA's intermediate, to a signed 34-bit value.
int64_t shift(bool left, int64_t a, uint32_t n) {
  if (!left) return a >> n;  // arithmetic for a signed source: a is sign-extended
  const uint64_t wide = n >= 64 ? 0 : uint64_t(a) << n;
  return int64_t(wide << 30) >> 30;
}

uint32_t merge(uint8_t dsel, uint32_t v, uint32_t c) {
  if (dsel <= 3) {
    const unsigned s = 8 * dsel;
    return ((v & 0xffu) << s) | (c & ~(0xffu << s));
  }
  if (dsel <= ptx::kVideoSelH1) {
    const unsigned s = 16 * (dsel - ptx::kVideoSelH0);
    return ((v & 0xffffu) << s) | (c & ~(0xffffu << s));
  }
  return v;
}

uint32_t scalar(const VideoForm& v, CmpOp cmp, bool sat, uint32_t a, uint32_t b, uint32_t c) {
  const int64_t ta = select_part(a, uint8_t(v.asel), v.a_signed);
  if (v.op == VideoOp::Mad) {
    const int64_t tb = select_part(b, uint8_t(v.bsel), v.b_signed);
    // The ISA's pseudo-code: c is sign-extended whenever the result is signed
    // (a signed source, a negated product or a negated c), else zero-extended.
    const bool signed_final = v.a_signed || v.b_signed || v.neg_product || v.neg_c;
    __int128 t = __int128(ta) * tb;
    __int128 tc = signed_final ? __int128(int32_t(c)) : __int128(c);
    int lsb = 0;
    // Negation is one's complement plus the carry-in bit, as the ISA writes it.
    if (v.plus_one) {
      lsb = 1;
    } else if (v.neg_product) {
      t = ~t;
      lsb = 1;
    } else if (v.neg_c) {
      tc = ~tc;
      lsb = 1;
    }
    // Scaling shifts the exact sum (sign-extending a signed result); .sat
    // clamps that value to the 32-bit range of the result's signedness.
    __int128 r = (t + tc + lsb) >> v.scale;
    if (sat) {
      const __int128 lo = signed_final ? __int128(INT32_MIN) : 0;
      const __int128 hi = signed_final ? __int128(INT32_MAX) : __int128(UINT32_MAX);
      r = r < lo ? lo : r > hi ? hi : r;
    }
    return uint32_t(uint64_t(r));
  }
  int64_t t;
  if (v.op == VideoOp::Shl || v.op == VideoOp::Shr) {
    uint32_t n = uint32_t(select_part(b, uint8_t(v.bsel), false));
    n = v.shift_clamp ? std::min<uint32_t>(n, 32) : (n & 31);
    t = shift(v.op == VideoOp::Shl, ta, n);
  } else {
    t = primary(v.op, cmp, ta, select_part(b, uint8_t(v.bsel), v.b_signed));
  }
  if (sat && v.op != VideoOp::Set) t = saturate(t, v.d_signed, v.dsel);
  const int64_t tc = v.d_signed ? int64_t(int32_t(c)) : int64_t(c);
  switch (v.op2) {
    case VideoSecondary::Add: return uint32_t(uint64_t(t + tc));
    case VideoSecondary::Min: return uint32_t(uint64_t(std::min(t, tc)));
    case VideoSecondary::Max: return uint32_t(uint64_t(std::max(t, tc)));
    case VideoSecondary::Merge: return merge(v.dsel, uint32_t(uint64_t(t)), c);
    default: return uint32_t(uint64_t(t));
  }
}

/// vop2/vop4/vset2/vset4: element-wise on bytes (lanes 4) or half-words (lanes 2).
uint32_t simd(const VideoForm& v, CmpOp cmp, bool sat, uint32_t a, uint32_t b, uint32_t c) {
  const unsigned n = v.lanes, bits = 32 / n;
  const uint64_t pair = (uint64_t(b) << 32) | a;  // parts 0..(2n-1) of {b, a}
  const uint32_t part_mask = bits == 8 ? 0xffu : 0xffffu;
  auto extend = [&](uint32_t x, bool is_signed) -> int64_t {
    if (!is_signed) return int64_t(x);
    return bits == 8 ? int64_t(int8_t(uint8_t(x))) : int64_t(int16_t(uint16_t(x)));
  };
  uint32_t d = v.simd_accumulate ? c : 0;
  for (unsigned i = 0; i < n; ++i) {
    const unsigned pa = (v.asel >> (4 * i)) & 15, pb = (v.bsel >> (4 * i)) & 15;
    const int64_t ea = extend(uint32_t(pair >> (bits * pa)) & part_mask, v.a_signed);
    const int64_t eb = extend(uint32_t(pair >> (bits * pb)) & part_mask, v.b_signed);
    int64_t t = primary(v.op, cmp, ea, eb);
    if (sat && v.op != VideoOp::Set) {
      t = v.d_signed ? clamp_to(t, -(int64_t(1) << (bits - 1)), (int64_t(1) << (bits - 1)) - 1)
                     : clamp_to(t, 0, (int64_t(1) << bits) - 1);
    }
    const bool written = (v.dsel >> i) & 1;
    if (v.simd_accumulate) {
      if (written) d += uint32_t(uint64_t(t));
    } else {
      const uint32_t part = written ? uint32_t(uint64_t(t)) & part_mask : (c >> (bits * i)) & part_mask;
      d |= part << (bits * i);
    }
  }
  return d;
}

}  // namespace

uint32_t execute(const VideoForm& v, CmpOp cmp, bool sat, uint32_t a, uint32_t b, uint32_t c) {
  return v.lanes == 1 ? scalar(v, cmp, sat, a, b, c) : simd(v, cmp, sat, a, b, c);
}

}  // namespace tlmgpu::exec::video
