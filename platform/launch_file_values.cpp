#include "platform/launch_file_values.h"

#include <cmath>
#include <cstring>
#include <iomanip>
#include <sstream>
#include <utility>

namespace tlmgpu::platform::launch_file {
namespace {

// Fault kinds as launch files name them.
constexpr std::pair<exec::FaultKind, const char*> kFaultKinds[] = {
    {exec::FaultKind::OutOfBounds, "out_of_bounds"},
    {exec::FaultKind::Misaligned, "misaligned"},
    {exec::FaultKind::Trap, "trap"},
    {exec::FaultKind::Deadlock, "deadlock"},
    {exec::FaultKind::NoForwardProgress, "no_forward_progress"},
    {exec::FaultKind::Unsupported, "unsupported"},
    {exec::FaultKind::AssertionFailed, "assert"},
};

// SplitMix64: the same seed gives the same data on every host.
struct SplitMix64 {
  uint64_t state;
  uint64_t next() {
    uint64_t z = (state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
};

}  // namespace

std::string elem_names() {
  std::string s;
  for (const ElemInfo& e : kElems) s += std::string(s.empty() ? "" : ", ") + e.name;
  return s;
}

uint64_t width_mask(Elem e) {
  unsigned bits = info(e).bytes * 8;
  return bits == 64 ? ~0ull : (1ull << bits) - 1;
}

uint64_t load_bits(const uint8_t* p, unsigned bytes) {
  uint64_t v = 0;
  for (unsigned i = 0; i < bytes; ++i) v |= uint64_t(p[i]) << (8 * i);
  return v;
}

void store_bits(uint8_t* p, unsigned bytes, uint64_t v) {
  for (unsigned i = 0; i < bytes; ++i) p[i] = uint8_t(v >> (8 * i));
}

int64_t to_signed(Elem e, uint64_t bits) {
  unsigned shift = 64 - info(e).bytes * 8;
  return static_cast<int64_t>(bits << shift) >> shift;
}

double to_double(Elem e, uint64_t bits) {
  const ElemInfo& ei = info(e);
  if (e == Elem::F32) {
    uint32_t b = uint32_t(bits);
    float f;
    std::memcpy(&f, &b, 4);
    return f;
  }
  if (e == Elem::F64) {
    double d;
    std::memcpy(&d, &bits, 8);
    return d;
  }
  return ei.is_signed ? double(to_signed(e, bits)) : double(bits);
}

uint64_t from_double(Elem e, double d) {
  if (e == Elem::F32) {
    float f = float(d);
    uint32_t b;
    std::memcpy(&b, &f, 4);
    return b;
  }
  uint64_t b;
  std::memcpy(&b, &d, 8);
  return b;
}

std::string to_text(Elem e, uint64_t bits) {
  const ElemInfo& ei = info(e);
  if (!ei.is_float) return ei.is_signed ? std::to_string(to_signed(e, bits)) : std::to_string(bits);
  std::ostringstream os;
  // Enough digits to read the same value back.
  os << std::setprecision(e == Elem::F32 ? 9 : 17) << to_double(e, bits);
  return os.str();
}

bool is_zero(Elem e, uint64_t bits) {
  return info(e).is_float ? to_double(e, bits) == 0.0 : (bits & width_mask(e)) == 0;
}

int compare_values(Elem e, uint64_t a, uint64_t b) {
  const ElemInfo& ei = info(e);
  if (ei.is_float) {
    double x = to_double(e, a), y = to_double(e, b);
    if (std::isnan(x) || std::isnan(y)) return int(std::isnan(x)) - int(std::isnan(y));
    return x < y ? -1 : x > y ? 1 : 0;
  }
  if (ei.is_signed) {
    int64_t x = to_signed(e, a), y = to_signed(e, b);
    return x < y ? -1 : x > y ? 1 : 0;
  }
  a &= width_mask(e);
  b &= width_mask(e);
  return a < b ? -1 : a > b ? 1 : 0;
}

Elem sum_type(Elem e) { return info(e).is_float ? Elem::F64 : info(e).is_signed ? Elem::S64 : Elem::U64; }

std::optional<exec::FaultKind> fault_kind_from_name(const std::string& s) {
  for (const auto& [kind, name] : kFaultKinds)
    if (s == name) return kind;
  return std::nullopt;
}

const char* fault_kind_name(exec::FaultKind k) {
  for (const auto& [kind, name] : kFaultKinds)
    if (k == kind) return name;
  return "unknown";
}

std::string fault_kind_names() {
  std::string s;
  for (const auto& kn : kFaultKinds) s += std::string(s.empty() ? "" : ", ") + kn.second;
  return s;
}

std::vector<uint8_t> materialise(const Source& src, Elem e, uint64_t count) {
  const unsigned w = info(e).bytes;
  if (src.kind == Source::Kind::Bytes) return src.bytes;
  std::vector<uint8_t> out(count * w, 0);
  if (src.kind == Source::Kind::Constant) {
    for (uint64_t i = 0; i < count; ++i) store_bits(&out[i * w], w, src.constant);
  } else if (src.kind == Source::Kind::Random) {
    SplitMix64 rng{src.seed};
    const ElemInfo& ei = info(e);
    for (uint64_t i = 0; i < count; ++i) {
      uint64_t r = rng.next();
      uint64_t v;
      if (ei.is_float) {
        double lo = to_double(e, src.lo), hi = to_double(e, src.hi);
        v = from_double(e, lo + (hi - lo) * (double(r >> 11) * 0x1p-53));
      } else {
        // Unsigned arithmetic on the (sign-extended) bounds wraps correctly for both signednesses.
        uint64_t lo = ei.is_signed ? uint64_t(to_signed(e, src.lo)) : src.lo;
        uint64_t hi = ei.is_signed ? uint64_t(to_signed(e, src.hi)) : src.hi;
        uint64_t span = hi - lo;
        v = span == ~0ull ? r : lo + r % (span + 1);
      }
      store_bits(&out[i * w], w, v);
    }
  } else if (src.kind == Source::Kind::Sequence) {
    // start + i * step: computed in double for floats (then rounded to the
    // element type), in wrapping integer arithmetic for integers.
    const bool fp = info(e).is_float;
    for (uint64_t i = 0; i < count; ++i) {
      uint64_t v = fp ? from_double(e, to_double(e, src.start) + double(i) * to_double(e, src.step))
                      : (src.start + i * src.step) & width_mask(e);
      store_bits(&out[i * w], w, v);
    }
  }
  return out;
}

}  // namespace tlmgpu::platform::launch_file
