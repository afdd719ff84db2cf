#include "platform/launch_file.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <iomanip>
#include <limits>
#include <map>
#include <sstream>

#include <nlohmann/json.hpp>

#include "model/ptx/ptx_ir.h"

namespace tlmgpu::platform {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

enum class Elem : uint8_t { U8, S8, U16, S16, U32, S32, U64, S64, F32, F64 };

struct ElemInfo {
  const char* name;
  unsigned bytes;
  bool is_signed;
  bool is_float;
};

// Indexed by Elem.
constexpr ElemInfo kElems[] = {
    {"u8", 1, false, false},  {"s8", 1, true, false},  {"u16", 2, false, false},
    {"s16", 2, true, false},  {"u32", 4, false, false}, {"s32", 4, true, false},
    {"u64", 8, false, false}, {"s64", 8, true, false},  {"f32", 4, false, true},
    {"f64", 8, false, true},
};

const ElemInfo& info(Elem e) { return kElems[static_cast<size_t>(e)]; }

std::string elem_names() {
  std::string s;
  for (const ElemInfo& e : kElems) s += std::string(s.empty() ? "" : ", ") + e.name;
  return s;
}

uint64_t width_mask(Elem e) {
  unsigned bits = info(e).bytes * 8;
  return bits == 64 ? ~0ull : (1ull << bits) - 1;
}

// Little-endian element access, independent of the host's byte order.
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

// Numeric order of two values of type e (-1, 0, 1); NaN sorts after everything.
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

// The type a sum of elements of type e is taken in: f64, s64 or u64.
Elem sum_type(Elem e) { return info(e).is_float ? Elem::F64 : info(e).is_signed ? Elem::S64 : Elem::U64; }

// Fault kinds as launch files name them.
constexpr std::pair<exec::FaultKind, const char*> kFaultKinds[] = {
    {exec::FaultKind::OutOfBounds, "out_of_bounds"},
    {exec::FaultKind::Misaligned, "misaligned"},
    {exec::FaultKind::Trap, "trap"},
    {exec::FaultKind::Deadlock, "deadlock"},
    {exec::FaultKind::NoForwardProgress, "no_forward_progress"},
    {exec::FaultKind::Unsupported, "unsupported"},
};

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

// Where element values come from: a buffer's init, an expectation, a symbol.
struct Source {
  enum class Kind { Zeros, Constant, Random, Sequence, Bytes } kind = Kind::Zeros;
  uint64_t constant = 0;           // bits
  uint64_t seed = 1, lo = 0, hi = 0;  // random: bits of min and max
  uint64_t start = 0, step = 0;    // sequence: bits of the first element and the increment
  std::vector<uint8_t> bytes;      // values or file contents
  std::optional<uint64_t> count;   // implied by values or a file
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

std::string key_path(const std::string& parent, const std::string& key) {
  return parent.empty() ? key : parent + "." + key;
}

std::string index_path(const std::string& parent, size_t i) {
  return parent + "[" + std::to_string(i) + "]";
}

std::string quote(const std::string& s) { return "'" + s + "'"; }

// Reads JSON values with messages that name the launch file and the key path.
class Checker {
 public:
  Checker(std::string file, std::string base_dir)
      : file_(std::move(file)), base_dir_(std::move(base_dir)) {}

  [[noreturn]] void fail(const std::string& path, const std::string& message) const {
    throw LaunchFileError("launch file " + file_ + ": " + (path.empty() ? "" : path + ": ") + message);
  }

  const json& object(const json& v, const std::string& path) const {
    if (!v.is_object()) fail(path, std::string("expected an object, got ") + v.type_name());
    return v;
  }

  const json& array(const json& v, const std::string& path) const {
    if (!v.is_array()) fail(path, std::string("expected an array, got ") + v.type_name());
    return v;
  }

  const json* find(const json& obj, const char* key) const {
    auto it = obj.find(key);
    return it == obj.end() ? nullptr : &*it;
  }

  const json& require(const json& obj, const char* key, const std::string& path) const {
    const json* v = find(obj, key);
    if (!v) fail(path, "missing key " + quote(key));
    return *v;
  }

  // Unknown keys are errors: a misspelt optional key would otherwise be
  // silently ignored. "comment" is allowed everywhere.
  void allow_keys(const json& obj, const std::string& path,
                  std::initializer_list<const char*> keys) const {
    for (auto it = obj.begin(); it != obj.end(); ++it) {
      if (it.key() == "comment") continue;
      bool known = false;
      for (const char* k : keys) known = known || it.key() == k;
      if (known) continue;
      std::string list;
      for (const char* k : keys) list += std::string(list.empty() ? "" : ", ") + k;
      fail(path, "unknown key " + quote(it.key()) + " (expected one of: " + list + ")");
    }
  }

  std::string string(const json& v, const std::string& path) const {
    if (!v.is_string()) fail(path, std::string("expected a string, got ") + v.type_name());
    return v.get<std::string>();
  }

  uint64_t unsigned_int(const json& v, const std::string& path, uint64_t min, uint64_t max) const {
    uint64_t u = 0;
    if (v.is_number_unsigned()) {
      u = v.get<uint64_t>();
    } else if (v.is_number_float() && is_integral(v.get<double>()) && v.get<double>() >= 0 &&
               v.get<double>() < 0x1p64) {
      u = uint64_t(v.get<double>());
    } else {
      fail(path, "expected a non-negative integer, got " + describe(v));
    }
    if (u < min || u > max)
      fail(path, v.dump() + " is out of range [" + std::to_string(min) + ", " + std::to_string(max) + "]");
    return u;
  }

  double number(const json& v, const std::string& path) const {
    if (!v.is_number()) fail(path, std::string("expected a number, got ") + describe(v));
    return v.get<double>();
  }

  Elem elem(const json& v, const std::string& path) const {
    std::string s = string(v, path);
    for (size_t i = 0; i < std::size(kElems); ++i)
      if (s == kElems[i].name) return static_cast<Elem>(i);
    fail(path, "unknown element type " + quote(s) + " (expected one of: " + elem_names() + ")");
  }

  exec::Dim3 dim3(const json& v, const std::string& path) const {
    constexpr uint64_t kMax = std::numeric_limits<uint32_t>::max();
    exec::Dim3 d;
    if (v.is_number()) {
      d.x = uint32_t(unsigned_int(v, path, 1, kMax));
      return d;
    }
    if (!v.is_array() || v.empty() || v.size() > 3)
      fail(path, "expected a number or an array of 1 to 3 numbers, got " + describe(v));
    uint32_t* parts[] = {&d.x, &d.y, &d.z};
    for (size_t i = 0; i < v.size(); ++i) *parts[i] = uint32_t(unsigned_int(v[i], index_path(path, i), 1, kMax));
    return d;
  }

  // One element value as bits in the element's width.
  uint64_t value_bits(const json& v, Elem e, const std::string& path) const {
    const ElemInfo& ei = info(e);
    if (ei.is_float) {
      if (v.is_number()) return from_double(e, v.get<double>());
      if (v.is_string()) {
        std::string s = v.get<std::string>();
        if (s == "nan") return from_double(e, std::numeric_limits<double>::quiet_NaN());
        if (s == "inf" || s == "+inf") return from_double(e, std::numeric_limits<double>::infinity());
        if (s == "-inf") return from_double(e, -std::numeric_limits<double>::infinity());
      }
      fail(path, std::string("expected a number (or \"nan\", \"inf\", \"-inf\") for ") + ei.name +
                     ", got " + describe(v));
    }
    const uint64_t mask = width_mask(e);
    const uint64_t umax = ei.is_signed ? mask >> 1 : mask;
    const int64_t smin = ei.is_signed ? -int64_t(umax) - 1 : 0;
    auto out_of_range = [&](const std::string& shown) {
      fail(path, shown + " is out of range for " + ei.name);
    };
    if (v.is_number_unsigned()) {
      uint64_t u = v.get<uint64_t>();
      if (u > umax) out_of_range(v.dump());
      return u;
    }
    if (v.is_number_integer()) {  // negative
      int64_t s = v.get<int64_t>();
      if (s < smin) out_of_range(v.dump());
      return uint64_t(s) & mask;
    }
    if (v.is_number_float()) {
      double d = v.get<double>();
      if (!is_integral(d)) fail(path, std::string("expected an integer for ") + ei.name + ", got " + v.dump());
      if (d < double(smin) || d >= std::ldexp(1.0, ei.is_signed ? ei.bytes * 8 - 1 : ei.bytes * 8))
        out_of_range(v.dump());
      return d < 0 ? uint64_t(int64_t(d)) & mask : uint64_t(d);
    }
    if (v.is_string()) {
      // Hex strings give exact bit patterns: "0xdeadbeef".
      std::string s = v.get<std::string>();
      if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X') && s.size() <= 18 &&
          s.find_first_not_of("0123456789abcdefABCDEF", 2) == std::string::npos) {
        uint64_t u = std::stoull(s.substr(2), nullptr, 16);
        if (u > mask) out_of_range(s);
        return u;
      }
    }
    fail(path, std::string("expected an integer (or a \"0x...\" string) for ") + ei.name + ", got " +
                   describe(v));
  }

  std::string resolve(const std::string& p) const {
    fs::path fp(p);
    return fp.is_absolute() ? p : (fs::path(base_dir_) / fp).lexically_normal().string();
  }

  std::vector<uint8_t> read_file(const json& v, const std::string& path) const {
    std::string name = string(v, path);
    std::string full = resolve(name);
    std::error_code ec;
    if (!fs::is_regular_file(full, ec)) fail(path, "file not found: " + full);
    std::ifstream in(full, std::ios::binary);
    if (!in) fail(path, "cannot open " + full + ": " + std::strerror(errno));
    return std::vector<uint8_t>(std::istreambuf_iterator<char>(in), {});
  }

  const std::string& file() const { return file_; }
  const std::string& base_dir() const { return base_dir_; }

 private:
  static bool is_integral(double d) { return std::isfinite(d) && d == std::floor(d); }
  static std::string describe(const json& v) {
    std::string s = v.dump();
    if (s.size() > 40) s = s.substr(0, 37) + "...";
    return std::string(v.type_name()) + " " + s;
  }

  std::string file_;
  std::string base_dir_;
};

// Reads one of the keys `values`, `file`, `constant`, `random` of `obj`
// (exactly one must be present among those allowed).
Source parse_source(const Checker& ck, const json& obj, const std::string& path, Elem e,
                    std::initializer_list<const char*> allowed) {
  const char* which = nullptr;
  for (const char* k : allowed) {
    if (!ck.find(obj, k)) continue;
    if (which) ck.fail(path, std::string("give only one of '") + which + "' and '" + k + "'");
    which = k;
  }
  if (!which) {
    std::string list;
    for (const char* k : allowed) list += std::string(list.empty() ? "'" : ", '") + k + "'";
    ck.fail(path, "missing the data: one of " + list);
  }
  const std::string kp = key_path(path, which);
  const json& v = obj.at(which);
  const unsigned w = info(e).bytes;
  Source src;
  std::string key = which;
  if (key == "constant") {
    src.kind = Source::Kind::Constant;
    src.constant = ck.value_bits(v, e, kp);
  } else if (key == "values") {
    ck.array(v, kp);
    src.kind = Source::Kind::Bytes;
    src.bytes.resize(v.size() * w);
    for (size_t i = 0; i < v.size(); ++i) store_bits(&src.bytes[i * w], w, ck.value_bits(v[i], e, index_path(kp, i)));
    src.count = v.size();
  } else if (key == "file") {
    src.kind = Source::Kind::Bytes;
    src.bytes = ck.read_file(v, kp);
    if (src.bytes.size() % w != 0)
      ck.fail(kp, "file has " + std::to_string(src.bytes.size()) + " bytes, not a multiple of " +
                      std::to_string(w) + " (" + info(e).name + ")");
    src.count = src.bytes.size() / w;
  } else if (key == "sequence") {
    ck.object(v, kp);
    ck.allow_keys(v, kp, {"start", "step"});
    src.kind = Source::Kind::Sequence;
    if (const json* s = ck.find(v, "start")) src.start = ck.value_bits(*s, e, key_path(kp, "start"));
    src.step = ck.value_bits(ck.require(v, "step", kp), e, key_path(kp, "step"));
  } else {  // random
    ck.object(v, kp);
    ck.allow_keys(v, kp, {"seed", "min", "max"});
    src.kind = Source::Kind::Random;
    if (const json* s = ck.find(v, "seed")) src.seed = ck.unsigned_int(*s, key_path(kp, "seed"), 0, ~0ull);
    src.lo = ck.value_bits(ck.require(v, "min", kp), e, key_path(kp, "min"));
    src.hi = ck.value_bits(ck.require(v, "max", kp), e, key_path(kp, "max"));
    bool ordered = info(e).is_float ? to_double(e, src.lo) <= to_double(e, src.hi)
                   : info(e).is_signed ? to_signed(e, src.lo) <= to_signed(e, src.hi)
                                       : src.lo <= src.hi;
    if (!ordered) ck.fail(kp, "min is greater than max");
    if (info(e).is_float && !(std::isfinite(to_double(e, src.lo)) && std::isfinite(to_double(e, src.hi))))
      ck.fail(kp, "min and max must be finite");
  }
  return src;
}

// ---- Struct types (the top-level "types" section) ----

// One field of a declared struct: a scalar or a nested struct, optionally a
// fixed-size array of them.
struct StructField {
  std::string name;
  Elem elem = Elem::U8;
  int struct_type = -1;  // index into the type table; -1: a scalar of type `elem`
  uint64_t count = 1;    // array length (1 and !is_array: a single value)
  bool is_array = false;
  uint64_t offset = 0;   // bytes from the start of the struct
};

// A struct laid out as C/CUDA does: each field at the next multiple of its
// alignment (or at an explicit offset), the struct aligned to its most
// aligned field, its size rounded up to that alignment (tail padding).
struct StructType {
  std::string name;
  uint64_t size = 0;
  uint64_t align = 1;
  std::vector<StructField> fields;
};

// A scalar reached through nested structs and arrays, e.g. "pos.y" or
// "cells[2].t": `count` elements of `elem`, the first at `offset` bytes into
// the struct, the next ones adjacent.
struct FieldLeaf {
  std::string name;
  Elem elem = Elem::U8;
  uint64_t offset = 0;
  uint64_t count = 1;
};

class StructTable {
 public:
  void parse(const Checker& ck, const json& v, const std::string& path) {
    ck.array(v, path);
    for (size_t i = 0; i < v.size(); ++i) parse_type(ck, v[i], index_path(path, i));
  }

  // -1 when `name` is no declared struct.
  int find(const std::string& name) const {
    auto it = index_.find(name);
    return it == index_.end() ? -1 : int(it->second);
  }
  const StructType& type(size_t i) const { return types_[i]; }
  bool empty() const { return types_.empty(); }

  // Every scalar of struct `t`, nested structs and arrays of structs flattened.
  std::vector<FieldLeaf> leaves(size_t t) const {
    std::vector<FieldLeaf> out;
    flatten(t, "", 0, out);
    return out;
  }

  // The scalar field `name` of struct `t`: a leaf ("pos.y", "tags"), or one
  // element of a scalar array ("tags[3]").
  FieldLeaf leaf(const Checker& ck, size_t t, const std::string& name, const std::string& path) const {
    std::vector<FieldLeaf> all = leaves(t);
    for (const FieldLeaf& l : all)
      if (l.name == name) return l;
    // "tags[3]": one element of a scalar array field.
    if (size_t open = name.rfind('['); open != std::string::npos && name.back() == ']') {
      std::string base = name.substr(0, open), idx = name.substr(open + 1, name.size() - open - 2);
      for (const FieldLeaf& l : all) {
        if (l.name != base || idx.empty() || idx.find_first_not_of("0123456789") != std::string::npos) continue;
        uint64_t k = std::stoull(idx);
        if (k >= l.count)
          ck.fail(path, "index " + idx + " is out of range for field " + quote(base) + " of " + std::to_string(l.count) +
                            " elements");
        return FieldLeaf{name, l.elem, l.offset + k * info(l.elem).bytes, 1};
      }
    }
    std::string list;
    for (const FieldLeaf& l : all) list += (list.empty() ? "" : ", ") + l.name;
    ck.fail(path, "struct " + quote(types_[t].name) + " has no scalar field " + quote(name) + " (fields: " + list + ")");
  }

 private:
  void parse_type(const Checker& ck, const json& v, const std::string& path) {
    ck.object(v, path);
    ck.allow_keys(v, path, {"name", "fields", "align"});
    StructType st;
    st.name = ck.string(ck.require(v, "name", path), key_path(path, "name"));
    if (st.name.empty()) ck.fail(key_path(path, "name"), "empty type name");
    for (const ElemInfo& e : kElems)
      if (st.name == e.name) ck.fail(key_path(path, "name"), quote(st.name) + " is an element type name");
    if (index_.count(st.name)) ck.fail(key_path(path, "name"), "duplicate type " + quote(st.name));
    const std::string fp = key_path(path, "fields");
    const json& fields = ck.array(ck.require(v, "fields", path), fp);
    if (fields.empty()) ck.fail(fp, "a struct needs at least one field");
    uint64_t end = 0;
    for (size_t i = 0; i < fields.size(); ++i) {
      StructField f = parse_field(ck, fields[i], index_path(fp, i), st, end);
      end = f.offset + f.count * field_size(f);
      st.align = std::max(st.align, field_align(f));
      st.fields.push_back(std::move(f));
    }
    if (const json* a = ck.find(v, "align")) {
      // Like __align__(n): may raise the alignment, never lower it.
      uint64_t al = ck.unsigned_int(*a, key_path(path, "align"), 1, 4096);
      if ((al & (al - 1)) != 0) ck.fail(key_path(path, "align"), "alignment " + std::to_string(al) + " is not a power of two");
      if (al < st.align)
        ck.fail(key_path(path, "align"), "alignment " + std::to_string(al) + " is below the natural alignment " +
                                             std::to_string(st.align) + " of its fields");
      st.align = al;
    }
    st.size = (end + st.align - 1) / st.align * st.align;
    index_[st.name] = types_.size();
    types_.push_back(std::move(st));
  }

  StructField parse_field(const Checker& ck, const json& v, const std::string& path, const StructType& st,
                          uint64_t end) const {
    ck.object(v, path);
    ck.allow_keys(v, path, {"name", "type", "count", "offset"});
    StructField f;
    f.name = ck.string(ck.require(v, "name", path), key_path(path, "name"));
    if (f.name.empty() || f.name.find_first_of(".[]") != std::string::npos)
      ck.fail(key_path(path, "name"), "field names must be non-empty and free of '.', '[' and ']'");
    for (const StructField& g : st.fields)
      if (g.name == f.name) ck.fail(key_path(path, "name"), "duplicate field " + quote(f.name));
    const std::string tp = key_path(path, "type");
    const std::string tname = ck.string(ck.require(v, "type", path), tp);
    f.struct_type = find(tname);
    if (f.struct_type < 0) {
      bool scalar = false;
      for (const ElemInfo& e : kElems) scalar = scalar || tname == e.name;
      // Only earlier types can be nested, so a struct cannot contain itself.
      if (!scalar)
        ck.fail(tp, "unknown type " + quote(tname) + " (an element type: " + elem_names() +
                        "; or a struct declared earlier in 'types')");
      f.elem = ck.elem(ck.require(v, "type", path), tp);
    }
    if (const json* c = ck.find(v, "count")) {
      f.count = ck.unsigned_int(*c, key_path(path, "count"), 1, 1ull << 24);
      f.is_array = true;
    }
    const uint64_t al = field_align(f);
    const uint64_t natural = (end + al - 1) / al * al;
    if (const json* o = ck.find(v, "offset")) {
      f.offset = ck.unsigned_int(*o, key_path(path, "offset"), 0, 1ull << 32);
      if (f.offset % al != 0)
        ck.fail(key_path(path, "offset"), "offset " + std::to_string(f.offset) + " is not a multiple of the field's alignment " +
                                              std::to_string(al));
      if (f.offset < end)
        ck.fail(key_path(path, "offset"), "offset " + std::to_string(f.offset) + " overlaps the previous field, which ends at " +
                                              std::to_string(end));
    } else {
      f.offset = natural;
    }
    return f;
  }

  uint64_t field_size(const StructField& f) const {
    return f.struct_type >= 0 ? types_[size_t(f.struct_type)].size : info(f.elem).bytes;
  }
  uint64_t field_align(const StructField& f) const {
    return f.struct_type >= 0 ? types_[size_t(f.struct_type)].align : info(f.elem).bytes;
  }

  void flatten(size_t t, const std::string& prefix, uint64_t base, std::vector<FieldLeaf>& out) const {
    for (const StructField& f : types_[t].fields) {
      if (f.struct_type < 0) {
        out.push_back(FieldLeaf{prefix + f.name, f.elem, base + f.offset, f.count});
        continue;
      }
      const uint64_t sz = types_[size_t(f.struct_type)].size;
      for (uint64_t k = 0; k < f.count; ++k) {
        std::string p = prefix + f.name + (f.is_array ? "[" + std::to_string(k) + "]" : "") + ".";
        flatten(size_t(f.struct_type), p, base + f.offset + k * sz, out);
      }
    }
  }

  std::vector<StructType> types_;
  std::map<std::string, size_t> index_;
};

// Writes a struct value given as a JSON object (field name -> value; nested
// structs as objects, arrays as arrays) into `out` at the declared layout.
// Fields left out are zero, like the rest of an aggregate initialiser in C.
void encode_struct(const Checker& ck, const StructTable& types, size_t t, const json& v, const std::string& path,
                   uint8_t* out) {
  const StructType& st = types.type(t);
  ck.object(v, path);
  for (auto it = v.begin(); it != v.end(); ++it) {
    if (it.key() == "comment") continue;
    const StructField* f = nullptr;
    for (const StructField& g : st.fields)
      if (g.name == it.key()) f = &g;
    if (!f) {
      std::string list;
      for (const StructField& g : st.fields) list += (list.empty() ? "" : ", ") + g.name;
      ck.fail(path, "struct " + quote(st.name) + " has no field " + quote(it.key()) + " (fields: " + list + ")");
    }
    const std::string fp = key_path(path, it.key());
    auto put = [&](const json& one, const std::string& ep, uint64_t k) {
      if (f->struct_type >= 0) {
        encode_struct(ck, types, size_t(f->struct_type), one, ep,
                      out + f->offset + k * types.type(size_t(f->struct_type)).size);
      } else {
        const unsigned w = info(f->elem).bytes;
        store_bits(out + f->offset + k * w, w, ck.value_bits(one, f->elem, ep));
      }
    };
    if (!f->is_array) {
      put(*it, fp, 0);
      continue;
    }
    ck.array(*it, fp);
    if (it->size() > f->count)
      ck.fail(fp, std::to_string(it->size()) + " values for an array of " + std::to_string(f->count));
    for (size_t k = 0; k < it->size(); ++k) put((*it)[k], index_path(fp, k), k);
  }
}

// One field's initialiser in a buffer of structs.
struct FieldInit {
  FieldLeaf leaf;
  Source source;
};

// What a buffer is filled with: `source` for scalar elements (or a raw file
// for structs), `fields` per field for structs (unnamed fields and padding 0).
struct InitSpec {
  Source source;
  std::vector<FieldInit> fields;
};

struct BufferSpec {
  std::string name;
  Elem type = Elem::U8;
  int struct_type = -1;     // a buffer of structs of this declared type
  uint64_t elem_bytes = 1;  // bytes per element (the struct size for structs)
  uint64_t count = 0;
  InitSpec init;
  std::string path;
};

// The buffer's bytes as `init` describes them.
std::vector<uint8_t> materialise_buffer(const BufferSpec& b, const InitSpec& init) {
  if (b.struct_type < 0) return materialise(init.source, b.type, b.count);
  if (init.source.kind == Source::Kind::Bytes) return init.source.bytes;
  std::vector<uint8_t> out(b.count * b.elem_bytes, 0);
  for (const FieldInit& f : init.fields) {
    const unsigned w = info(f.leaf.elem).bytes;
    std::vector<uint8_t> vals = materialise(f.source, f.leaf.elem, b.count * f.leaf.count);
    for (uint64_t i = 0; i < b.count; ++i)
      for (uint64_t k = 0; k < f.leaf.count; ++k)
        std::memcpy(&out[i * b.elem_bytes + f.leaf.offset + k * w], &vals[(i * f.leaf.count + k) * w], w);
  }
  return out;
}

struct SymbolSpec {
  std::string symbol;
  uint64_t offset = 0;
  int buffer = -1;            // write this buffer's device address
  std::vector<uint8_t> bytes;  // or these bytes
  std::string path;
};

struct ArgSpec {
  enum class Kind { Buffer, Scalar, Bytes, Texture } kind = Kind::Scalar;
  size_t buffer = 0;  ///< Buffer: buffers index; Texture: textures index
  Elem type = Elem::U32;
  int struct_type = -1;  // Bytes: a struct passed by value, laid out as this declared type
  uint64_t bits = 0;
  std::vector<uint8_t> bytes;
  std::string path;
};

// An expected device fault: its kind (any when unset) and a piece of its report.
struct FaultExpect {
  std::optional<exec::FaultKind> kind;
  std::string message_contains;
  std::string path;
};

/// A texture or surface object over a buffer (docs/LAUNCH_FILE.md, "Textures and surfaces").
struct TextureSpec {
  std::string name;
  bool surface = false;
  size_t buffer = 0;
  exec::TexResource resource;  ///< base filled in at run time from the buffer
  exec::TexSampler sampler;
  std::string path;
};

struct LaunchSpec {
  std::string kernel;
  exec::Dim3 grid, block;
  uint32_t shared_bytes = 0;
  uint32_t regs_per_thread = 0;  ///< 0: the PTX register estimate
  bool cooperative = false;      ///< cudaLaunchCooperativeKernel (grid barrier)
  std::vector<ArgSpec> args;
  std::optional<FaultExpect> expect_fault;  // the launch must end in this fault
  std::string path;
};

struct ResetSpec {
  size_t buffer = 0;
  bool fill = false;  // every element, else only the first
  uint64_t bits = 0;
};

struct RepeatSpec {
  std::optional<size_t> flag;  // until_zero; unset: a fixed number of iterations
  uint64_t times = 0;
  uint64_t max_iterations = 10000;
  std::vector<ResetSpec> resets;
  std::string path;
};

struct Group;

// Host-side copy between buffers of the same element type, in elements.
struct CopySpec {
  size_t from = 0, to = 0;
  uint64_t from_offset = 0, to_offset = 0, count = 0;
};

struct FillSpec {
  size_t buffer = 0;
  InitSpec init;
};

struct Step {
  enum class Kind { Launch, Group, Copy, Fill, Swap } kind = Kind::Launch;
  LaunchSpec launch;
  std::unique_ptr<Group> group;  // Kind::Group: a nested repeat group
  CopySpec copy;
  FillSpec fill;
  size_t swap[2] = {0, 0};       // Kind::Swap: exchange which storage these two names refer to
  std::string path;
};

struct Group {
  std::optional<RepeatSpec> repeat;
  std::vector<Step> steps;
  std::string path;
};

struct DumpSpec {
  size_t buffer = 0;
  std::string file;
  bool text = false;
  std::string path;
};

struct ExpectSpec {
  size_t buffer = 0;
  // Which values: elements start, start + stride, ... (count of them), of the
  // buffer or, for structs, of one field.
  uint64_t start = 0, count = 0, stride = 1;
  std::optional<FieldLeaf> field;
  Elem type = Elem::U8;  // of the checked values
  // How they are checked.
  enum class Check { Elementwise, Sorted, Range, Sum } check = Check::Elementwise;
  Source want;                             // Elementwise, Sorted
  std::optional<uint64_t> min, max;        // Range: bits
  uint64_t sum = 0;                        // Sum: bits (in the checked type; s64/u64/f64 for the total)
  double tolerance = 0, relative_tolerance = 0;
  std::string path;
};

}  // namespace

namespace detail {
struct LaunchPlan {
  std::string display_name;
  std::string base_dir;
  std::string ptx_path;
  std::optional<exec::DivergenceMode> divergence;
  std::vector<BufferSpec> buffers;
  std::map<std::string, size_t> buffer_index;
  std::vector<TextureSpec> textures;
  std::map<std::string, size_t> texture_index;
  std::vector<SymbolSpec> symbols;
  Group root;
  std::vector<DumpSpec> dumps;
  std::vector<ExpectSpec> expects;
  StructTable types;
  std::optional<FaultExpect> expect_fault;  // the run must end in this fault
};
}  // namespace detail

namespace {

class Parser {
 public:
  Parser(const Checker& ck, detail::LaunchPlan& plan) : ck_(ck), plan_(plan) {}

  void parse(const json& root) {
    if (!root.is_object()) ck_.fail("", std::string("expected a JSON object at the top level, got ") + root.type_name());
    ck_.allow_keys(root, "", {"ptx", "divergence", "types", "structs", "buffers", "textures", "symbols", "launches",
                              "repeat", "dump", "expect", "expect_fault"});

    const json& ptx = ck_.require(root, "ptx", "");
    plan_.ptx_path = ck_.resolve(ck_.string(ptx, "ptx"));
    std::error_code ec;
    if (!fs::is_regular_file(plan_.ptx_path, ec)) ck_.fail("ptx", "file not found: " + plan_.ptx_path);

    if (const json* d = ck_.find(root, "divergence")) {
      std::string s = ck_.string(*d, "divergence");
      if (s == "ipdom") plan_.divergence = exec::DivergenceMode::Ipdom;
      else if (s == "its") plan_.divergence = exec::DivergenceMode::Its;
      else ck_.fail("divergence", "unknown mode " + quote(s) + " (expected ipdom or its)");
    }

    // "structs" is another name for "types".
    if (ck_.find(root, "types") && ck_.find(root, "structs")) ck_.fail("", "give only one of 'types' and 'structs'");
    for (const char* key : {"types", "structs"})
      if (const json* t = ck_.find(root, key)) plan_.types.parse(ck_, *t, key);
    if (const json* b = ck_.find(root, "buffers")) {
      ck_.array(*b, "buffers");
      for (size_t i = 0; i < b->size(); ++i) parse_buffer((*b)[i], index_path("buffers", i));
    }
    if (const json* t = ck_.find(root, "textures")) parse_textures(*t);
    if (const json* s = ck_.find(root, "symbols")) {
      ck_.array(*s, "symbols");
      for (size_t i = 0; i < s->size(); ++i) parse_symbol((*s)[i], index_path("symbols", i));
    }
    parse_group(ck_.require(root, "launches", ""), "launches", plan_.root.steps);
    if (const json* r = ck_.find(root, "repeat")) plan_.root.repeat = parse_repeat(*r, "repeat");
    plan_.root.path = "repeat";
    if (const json* d = ck_.find(root, "dump")) {
      ck_.array(*d, "dump");
      for (size_t i = 0; i < d->size(); ++i) parse_dump((*d)[i], index_path("dump", i));
    }
    if (const json* e = ck_.find(root, "expect")) {
      ck_.array(*e, "expect");
      for (size_t i = 0; i < e->size(); ++i) parse_expect((*e)[i], index_path("expect", i));
    }
    if (const json* f = ck_.find(root, "expect_fault")) plan_.expect_fault = parse_fault_expect(*f, "expect_fault");
  }

 private:
  size_t buffer_ref(const json& v, const std::string& path) const {
    std::string name = ck_.string(v, path);
    auto it = plan_.buffer_index.find(name);
    if (it == plan_.buffer_index.end()) ck_.fail(path, "unknown buffer " + quote(name));
    return it->second;
  }

  void parse_buffer(const json& v, const std::string& path) {
    ck_.object(v, path);
    ck_.allow_keys(v, path, {"name", "type", "count", "init"});
    BufferSpec b;
    b.path = path;
    b.name = ck_.string(ck_.require(v, "name", path), key_path(path, "name"));
    if (b.name.empty()) ck_.fail(key_path(path, "name"), "empty buffer name");
    if (plan_.buffer_index.count(b.name)) ck_.fail(key_path(path, "name"), "duplicate buffer " + quote(b.name));
    const json& type = ck_.require(v, "type", path);
    b.struct_type = type.is_string() ? plan_.types.find(type.get<std::string>()) : -1;
    if (b.struct_type >= 0) {
      b.elem_bytes = plan_.types.type(size_t(b.struct_type)).size;
    } else {
      b.type = ck_.elem(type, key_path(path, "type"));
      b.elem_bytes = info(b.type).bytes;
    }
    const uint64_t w = b.elem_bytes;
    if (const json* init = ck_.find(v, "init")) b.init = parse_init(*init, key_path(path, "init"), b);
    constexpr uint64_t kMaxBytes = 16ull << 30;
    if (const json* c = ck_.find(v, "count")) {
      b.count = ck_.unsigned_int(*c, key_path(path, "count"), 1, kMaxBytes / w);
      if (b.init.source.count && *b.init.source.count != b.count)
        ck_.fail(key_path(path, "count"), std::to_string(b.count) + " elements, but init gives " +
                                              std::to_string(*b.init.source.count));
      check_field_counts(b, b.init, key_path(path, "init"));
    } else if (b.init.source.count) {
      b.count = *b.init.source.count;
      if (b.count == 0) ck_.fail(key_path(path, "init"), "no elements");
    } else {
      ck_.fail(path, "missing key 'count'");
    }
    plan_.buffer_index[b.name] = plan_.buffers.size();
    plan_.buffers.push_back(std::move(b));
  }

  // A buffer's (or a fill step's) initialiser: "zeros", or an object with one
  // of constant, random, sequence, file, values; for a buffer of structs
  // "zeros", a file or {"fields": {field: initialiser, ...}}.
  InitSpec parse_init(const json& init, const std::string& ip, const BufferSpec& b) const {
    InitSpec out;
    if (init.is_string()) {
      if (init.get<std::string>() != "zeros")
        ck_.fail(ip, "unknown init " + quote(init.get<std::string>()) +
                         " (expected \"zeros\" or an object with constant, random, sequence, file or values" +
                         (b.struct_type >= 0 ? std::string(", or fields for structs)") : std::string(")")));
      return out;
    }
    ck_.object(init, ip);
    if (b.struct_type < 0) {
      ck_.allow_keys(init, ip, {"constant", "random", "sequence", "file", "values"});
      out.source = parse_source(ck_, init, ip, b.type, {"constant", "random", "sequence", "file", "values"});
      return out;
    }
    ck_.allow_keys(init, ip, {"fields", "file"});
    const std::string tname = plan_.types.type(size_t(b.struct_type)).name;
    if (const json* f = ck_.find(init, "file")) {
      if (ck_.find(init, "fields")) ck_.fail(ip, "give only one of 'fields' and 'file'");
      out.source.kind = Source::Kind::Bytes;
      out.source.bytes = ck_.read_file(*f, key_path(ip, "file"));
      if (out.source.bytes.empty() || out.source.bytes.size() % b.elem_bytes != 0)
        ck_.fail(key_path(ip, "file"), "file has " + std::to_string(out.source.bytes.size()) +
                                           " bytes, not a non-zero multiple of " + std::to_string(b.elem_bytes) +
                                           " (struct " + quote(tname) + ")");
      out.source.count = out.source.bytes.size() / b.elem_bytes;
      return out;
    }
    const std::string fp = key_path(ip, "fields");
    const json& fields = ck_.object(ck_.require(init, "fields", ip), fp);
    for (auto it = fields.begin(); it != fields.end(); ++it) {
      if (it.key() == "comment") continue;
      const std::string ep = key_path(fp, it.key());
      FieldInit fi;
      fi.leaf = plan_.types.leaf(ck_, size_t(b.struct_type), it.key(), ep);
      ck_.object(*it, ep);
      ck_.allow_keys(*it, ep, {"constant", "random", "sequence", "values"});
      fi.source = parse_source(ck_, *it, ep, fi.leaf.elem, {"constant", "random", "sequence", "values"});
      // Each byte has one initialiser ("tags" and "tags[1]" together would depend on key order).
      const uint64_t lo = fi.leaf.offset, hi = lo + fi.leaf.count * info(fi.leaf.elem).bytes;
      for (const FieldInit& g : out.fields) {
        const uint64_t glo = g.leaf.offset, ghi = glo + g.leaf.count * info(g.leaf.elem).bytes;
        if (lo < ghi && glo < hi) ck_.fail(ep, "overlaps field " + quote(g.leaf.name) + ", initialised too");
      }
      out.fields.push_back(std::move(fi));
    }
    return out;
  }

  // Per-field `values` give count x field-length elements.
  void check_field_counts(const BufferSpec& b, const InitSpec& init, const std::string& ip) const {
    for (const FieldInit& f : init.fields)
      if (f.source.count && *f.source.count != b.count * f.leaf.count)
        ck_.fail(key_path(key_path(ip, "fields"), f.leaf.name),
                 std::to_string(*f.source.count) + " values, but " + std::to_string(b.count) + " structs need " +
                     std::to_string(b.count * f.leaf.count));
  }

  std::string type_name(const BufferSpec& b) const {
    return b.struct_type >= 0 ? "struct " + quote(plan_.types.type(size_t(b.struct_type)).name)
                              : std::string(info(b.type).name);
  }

  void require_scalar(const BufferSpec& b, const std::string& path, const std::string& what) const {
    if (b.struct_type >= 0) ck_.fail(path, what + " needs a buffer of scalars; " + quote(b.name) + " holds " + type_name(b));
  }

  void parse_symbol(const json& v, const std::string& path) {
    ck_.object(v, path);
    ck_.allow_keys(v, path, {"symbol", "type", "values", "buffer", "offset"});
    SymbolSpec s;
    s.path = path;
    s.symbol = ck_.string(ck_.require(v, "symbol", path), key_path(path, "symbol"));
    if (const json* o = ck_.find(v, "offset")) s.offset = ck_.unsigned_int(*o, key_path(path, "offset"), 0, 1ull << 32);
    const json* buf = ck_.find(v, "buffer");
    const json* vals = ck_.find(v, "values");
    if (buf && vals) ck_.fail(path, "give only one of 'values' and 'buffer'");
    if (buf) {
      if (ck_.find(v, "type")) ck_.fail(key_path(path, "type"), "a buffer's address is always 64-bit; drop 'type'");
      s.buffer = int(buffer_ref(*buf, key_path(path, "buffer")));
    } else {
      Elem e = ck_.elem(ck_.require(v, "type", path), key_path(path, "type"));
      s.bytes = parse_source(ck_, v, path, e, {"values"}).bytes;
      if (s.bytes.empty()) ck_.fail(key_path(path, "values"), "no values");
    }
    plan_.symbols.push_back(std::move(s));
  }

  void parse_group(const json& v, const std::string& path, std::vector<Step>& steps) {
    ck_.array(v, path);
    for (size_t i = 0; i < v.size(); ++i) {
      const std::string sp = index_path(path, i);
      const json& item = ck_.object(v[i], sp);
      Step step;
      step.path = sp;
      if (ck_.find(item, "copy") || ck_.find(item, "fill") || ck_.find(item, "swap")) {
        parse_host_step(item, sp, step);
      } else if (ck_.find(item, "repeat") || (ck_.find(item, "launches") && !ck_.find(item, "kernel"))) {
        ck_.allow_keys(item, sp, {"repeat", "launches"});
        step.kind = Step::Kind::Group;
        step.group = std::make_unique<Group>();
        step.group->path = sp;
        parse_group(ck_.require(item, "launches", sp), key_path(sp, "launches"), step.group->steps);
        step.group->repeat = parse_repeat(ck_.require(item, "repeat", sp), key_path(sp, "repeat"));
      } else {
        step.launch = parse_launch(item, sp);
      }
      steps.push_back(std::move(step));
    }
  }

  // Host steps between launches: {"copy": {...}}, {"fill": name, "init": ...}, {"swap": [a, b]}.
  void parse_host_step(const json& item, const std::string& sp, Step& step) const {
    if (const json* c = ck_.find(item, "copy")) {
      ck_.allow_keys(item, sp, {"copy"});
      const std::string cp = key_path(sp, "copy");
      ck_.object(*c, cp);
      ck_.allow_keys(*c, cp, {"from", "to", "from_offset", "to_offset", "count"});
      step.kind = Step::Kind::Copy;
      CopySpec& x = step.copy;
      x.from = buffer_ref(ck_.require(*c, "from", cp), key_path(cp, "from"));
      x.to = buffer_ref(ck_.require(*c, "to", cp), key_path(cp, "to"));
      const BufferSpec& from = plan_.buffers[x.from];
      const BufferSpec& to = plan_.buffers[x.to];
      if (from.struct_type != to.struct_type || (from.struct_type < 0 && from.type != to.type))
        ck_.fail(cp, "buffers " + quote(from.name) + " (" + type_name(from) + ") and " + quote(to.name) + " (" +
                         type_name(to) + ") hold different element types");
      if (const json* o = ck_.find(*c, "from_offset"))
        x.from_offset = ck_.unsigned_int(*o, key_path(cp, "from_offset"), 0, from.count - 1);
      if (const json* o = ck_.find(*c, "to_offset"))
        x.to_offset = ck_.unsigned_int(*o, key_path(cp, "to_offset"), 0, to.count - 1);
      const uint64_t room = std::min(from.count - x.from_offset, to.count - x.to_offset);
      if (const json* n = ck_.find(*c, "count")) {
        x.count = ck_.unsigned_int(*n, key_path(cp, "count"), 1, ~0ull);
        if (x.count > room)
          ck_.fail(key_path(cp, "count"), std::to_string(x.count) + " elements do not fit: " + quote(from.name) + " has " +
                                              std::to_string(from.count - x.from_offset) + " after from_offset, " +
                                              quote(to.name) + " " + std::to_string(to.count - x.to_offset) +
                                              " after to_offset");
      } else {
        x.count = room;
      }
      return;
    }
    if (const json* f = ck_.find(item, "fill")) {
      ck_.allow_keys(item, sp, {"fill", "init"});
      step.kind = Step::Kind::Fill;
      step.fill.buffer = buffer_ref(*f, key_path(sp, "fill"));
      const BufferSpec& b = plan_.buffers[step.fill.buffer];
      step.fill.init = parse_init(ck_.require(item, "init", sp), key_path(sp, "init"), b);
      if (step.fill.init.source.count && *step.fill.init.source.count != b.count)
        ck_.fail(key_path(sp, "init"), "buffer " + quote(b.name) + " has " + std::to_string(b.count) +
                                           " elements, init gives " + std::to_string(*step.fill.init.source.count));
      check_field_counts(b, step.fill.init, key_path(sp, "init"));
      return;
    }
    const json& w = item.at("swap");
    ck_.allow_keys(item, sp, {"swap"});
    const std::string wp = key_path(sp, "swap");
    if (!w.is_array() || w.size() != 2) ck_.fail(wp, "expected an array of two buffer names");
    step.kind = Step::Kind::Swap;
    for (size_t i = 0; i < 2; ++i) step.swap[i] = buffer_ref(w[i], index_path(wp, i));
    const BufferSpec& a = plan_.buffers[step.swap[0]];
    const BufferSpec& b = plan_.buffers[step.swap[1]];
    if (step.swap[0] == step.swap[1]) ck_.fail(wp, "swaps " + quote(a.name) + " with itself");
    if (a.struct_type != b.struct_type || (a.struct_type < 0 && a.type != b.type) || a.count != b.count)
      ck_.fail(wp, "only buffers of the same element type and count can swap: " + quote(a.name) + " is " +
                       std::to_string(a.count) + " x " + type_name(a) + ", " + quote(b.name) + " " +
                       std::to_string(b.count) + " x " + type_name(b));
  }

  FaultExpect parse_fault_expect(const json& v, const std::string& path) const {
    ck_.object(v, path);
    ck_.allow_keys(v, path, {"kind", "message_contains"});
    FaultExpect f;
    f.path = path;
    if (const json* k = ck_.find(v, "kind")) {
      const std::string s = ck_.string(*k, key_path(path, "kind"));
      f.kind = fault_kind_from_name(s);
      if (!f.kind)
        ck_.fail(key_path(path, "kind"), "unknown fault kind " + quote(s) + " (expected one of: " + fault_kind_names() + ")");
    }
    if (const json* m = ck_.find(v, "message_contains"))
      f.message_contains = ck_.string(*m, key_path(path, "message_contains"));
    return f;
  }

  LaunchSpec parse_launch(const json& v, const std::string& path) {
    ck_.allow_keys(v, path, {"kernel", "grid", "block", "shared_bytes", "regs_per_thread", "cooperative", "args",
                             "expect_fault"});
    LaunchSpec l;
    l.path = path;
    l.kernel = ck_.string(ck_.require(v, "kernel", path), key_path(path, "kernel"));
    l.grid = ck_.dim3(ck_.require(v, "grid", path), key_path(path, "grid"));
    l.block = ck_.dim3(ck_.require(v, "block", path), key_path(path, "block"));
    if (const json* s = ck_.find(v, "shared_bytes"))
      l.shared_bytes = uint32_t(ck_.unsigned_int(*s, key_path(path, "shared_bytes"), 0, std::numeric_limits<uint32_t>::max()));
    if (const json* r = ck_.find(v, "regs_per_thread"))
      l.regs_per_thread = uint32_t(ck_.unsigned_int(*r, key_path(path, "regs_per_thread"), 1, 1024));
    if (const json* c = ck_.find(v, "cooperative")) {
      if (!c->is_boolean()) ck_.fail(key_path(path, "cooperative"), "expected true or false");
      else l.cooperative = c->get<bool>();
    }
    if (const json* a = ck_.find(v, "args")) {
      const std::string ap = key_path(path, "args");
      ck_.array(*a, ap);
      for (size_t i = 0; i < a->size(); ++i) l.args.push_back(parse_arg((*a)[i], index_path(ap, i)));
    }
    if (const json* f = ck_.find(v, "expect_fault")) l.expect_fault = parse_fault_expect(*f, key_path(path, "expect_fault"));
    return l;
  }

  ArgSpec parse_arg(const json& v, const std::string& path) {
    ck_.object(v, path);
    ArgSpec a;
    a.path = path;
    if (const json* b = ck_.find(v, "buffer")) {
      ck_.allow_keys(v, path, {"buffer"});
      a.kind = ArgSpec::Kind::Buffer;
      a.buffer = buffer_ref(*b, key_path(path, "buffer"));
    } else if (const json* t = ck_.find(v, "texture")) {
      ck_.allow_keys(v, path, {"texture"});
      a.kind = ArgSpec::Kind::Texture;
      a.buffer = texture_ref(*t, key_path(path, "texture"));
    } else if (const json* bytes = ck_.find(v, "bytes")) {
      ck_.allow_keys(v, path, {"bytes"});
      a.kind = ArgSpec::Kind::Bytes;
      ck_.array(*bytes, key_path(path, "bytes"));
      for (size_t i = 0; i < bytes->size(); ++i)
        a.bytes.push_back(uint8_t(ck_.value_bits((*bytes)[i], Elem::U8, index_path(key_path(path, "bytes"), i))));
      if (a.bytes.empty()) ck_.fail(key_path(path, "bytes"), "no bytes");
    } else if (const json* st = ck_.find(v, "struct")) {
      // A struct by value: its bytes at the declared layout, padding zero.
      ck_.allow_keys(v, path, {"struct", "value"});
      a.kind = ArgSpec::Kind::Bytes;
      const std::string sp = key_path(path, "struct");
      const std::string name = ck_.string(*st, sp);
      a.struct_type = plan_.types.find(name);
      if (a.struct_type < 0) ck_.fail(sp, "unknown struct type " + quote(name) + " (declare it in 'types')");
      a.bytes.assign(plan_.types.type(size_t(a.struct_type)).size, 0);
      encode_struct(ck_, plan_.types, size_t(a.struct_type), ck_.require(v, "value", path), key_path(path, "value"),
                    a.bytes.data());
    } else if (ck_.find(v, "type") || ck_.find(v, "value")) {
      ck_.allow_keys(v, path, {"type", "value"});
      a.kind = ArgSpec::Kind::Scalar;
      a.type = ck_.elem(ck_.require(v, "type", path), key_path(path, "type"));
      a.bits = ck_.value_bits(ck_.require(v, "value", path), a.type, key_path(path, "value"));
    } else {
      ck_.fail(path, "expected {\"buffer\": name}, {\"texture\": name}, {\"type\": t, \"value\": v}, "
                     "{\"struct\": T, \"value\": {...}} or "
                     "{\"bytes\": [...]}");
    }
    return a;
  }

  size_t texture_ref(const json& v, const std::string& path) const {
    const std::string name = ck_.string(v, path);
    auto it = plan_.texture_index.find(name);
    if (it == plan_.texture_index.end()) ck_.fail(path, "unknown texture or surface " + quote(name));
    return it->second;
  }

  /// One of `names` (a string key of `v`), as its index; `fallback` when absent.
  size_t choice(const json& v, const char* key, const std::string& path, std::initializer_list<const char*> names,
                size_t fallback) const {
    const json* j = ck_.find(v, key);
    if (!j) return fallback;
    const std::string s = ck_.string(*j, key_path(path, key));
    size_t i = 0;
    std::string list;
    for (const char* n : names) {
      if (s == n) return i;
      list += std::string(list.empty() ? "" : ", ") + n;
      ++i;
    }
    ck_.fail(key_path(path, key), "unknown value " + quote(s) + " (expected " + list + ")");
  }

  void parse_textures(const json& arr) {
    ck_.array(arr, "textures");
    for (size_t i = 0; i < arr.size(); ++i) {
      const json& v = arr[i];
      const std::string path = index_path("textures", i);
      ck_.object(v, path);
      ck_.allow_keys(v, path, {"name", "kind", "buffer", "resource", "format", "channels", "width", "height", "depth",
                               "layers", "cubemap", "pitch_bytes", "address", "filter", "read",
                               "normalized_coords"});
      TextureSpec t;
      t.path = path;
      t.name = ck_.string(ck_.require(v, "name", path), key_path(path, "name"));
      if (t.name.empty() || plan_.texture_index.count(t.name))
        ck_.fail(key_path(path, "name"), "empty or duplicate texture name " + quote(t.name));
      t.surface = choice(v, "kind", path, {"texture", "surface"}, 0) == 1;
      t.buffer = buffer_ref(ck_.require(v, "buffer", path), key_path(path, "buffer"));
      exec::TexResource& r = t.resource;
      r.kind = exec::TexResourceKind(choice(v, "resource", path, {"linear", "pitch2d", "array"}, 2));
      r.format = exec::TexelFormat(
          choice(v, "format", path, {"u8", "s8", "u16", "s16", "u32", "s32", "f16", "f32"}, 7));
      auto dim = [&](const char* key, uint64_t lo, uint64_t dflt) {
        const json* j = ck_.find(v, key);
        return j ? uint32_t(ck_.unsigned_int(*j, key_path(path, key), lo, 1u << 30)) : uint32_t(dflt);
      };
      r.channels = uint8_t(dim("channels", 1, 1));
      r.width = uint32_t(ck_.unsigned_int(ck_.require(v, "width", path), key_path(path, "width"), 1, 1u << 30));
      r.height = dim("height", 1, 1);
      r.depth = dim("depth", 1, 1);
      r.layers = dim("layers", 0, 0);
      r.pitch_bytes = dim("pitch_bytes", 0, 0);
      if (const json* c = ck_.find(v, "cubemap")) {
        if (!c->is_boolean()) ck_.fail(key_path(path, "cubemap"), "expected true or false");
        r.cubemap = c->get<bool>();
      }
      if (const json* a = ck_.find(v, "address")) {
        // One mode for every axis, or one per axis (x, y, z).
        const std::string ap = key_path(path, "address");
        static const char* const modes[] = {"wrap", "clamp", "mirror", "border"};
        auto mode = [&](const json& m, const std::string& mp) {
          const std::string s = ck_.string(m, mp);
          for (unsigned k = 0; k < 4; ++k)
            if (s == modes[k]) return exec::TexAddressMode(k);
          ck_.fail(mp, "unknown address mode " + quote(s) + " (expected wrap, clamp, mirror, border)");
        };
        if (a->is_array()) {
          if (a->empty() || a->size() > 3) ck_.fail(ap, "expected 1 to 3 address modes");
          for (size_t k = 0; k < 3; ++k) t.sampler.address[k] = mode((*a)[std::min(k, a->size() - 1)], index_path(ap, std::min(k, a->size() - 1)));
        } else {
          t.sampler.address[0] = t.sampler.address[1] = t.sampler.address[2] = mode(*a, ap);
        }
      }
      t.sampler.filter = exec::TexFilterMode(choice(v, "filter", path, {"point", "linear"}, 0));
      t.sampler.read_mode = exec::TexReadMode(choice(v, "read", path, {"element", "normalized"}, 0));
      if (const json* n = ck_.find(v, "normalized_coords")) {
        if (!n->is_boolean()) ck_.fail(key_path(path, "normalized_coords"), "expected true or false");
        t.sampler.normalized_coords = n->get<bool>();
      }
      plan_.texture_index[t.name] = plan_.textures.size();
      plan_.textures.push_back(std::move(t));
    }
  }

  RepeatSpec parse_repeat(const json& v, const std::string& path) {
    ck_.object(v, path);
    ck_.allow_keys(v, path, {"until_zero", "times", "max_iterations", "reset"});
    RepeatSpec r;
    r.path = path;
    const json* until = ck_.find(v, "until_zero");
    const json* times = ck_.find(v, "times");
    if (until && times) ck_.fail(path, "give only one of 'until_zero' and 'times'");
    if (!until && !times) ck_.fail(path, "missing key 'until_zero' (or 'times')");
    if (times) {
      r.times = ck_.unsigned_int(*times, key_path(path, "times"), 0, ~0ull);
      if (ck_.find(v, "max_iterations")) ck_.fail(key_path(path, "max_iterations"), "applies to 'until_zero' only");
    } else {
      r.flag = buffer_ref(*until, key_path(path, "until_zero"));
      require_scalar(plan_.buffers[*r.flag], key_path(path, "until_zero"), "a flag");
    }
    if (const json* m = ck_.find(v, "max_iterations"))
      r.max_iterations = ck_.unsigned_int(*m, key_path(path, "max_iterations"), 1, ~0ull);
    if (const json* reset = ck_.find(v, "reset")) {
      const std::string rp = key_path(path, "reset");
      ck_.object(*reset, rp);
      for (auto it = reset->begin(); it != reset->end(); ++it) {
        const std::string ep = key_path(rp, it.key());
        auto bi = plan_.buffer_index.find(it.key());
        if (bi == plan_.buffer_index.end()) ck_.fail(ep, "unknown buffer " + quote(it.key()));
        ResetSpec rs;
        rs.buffer = bi->second;
        require_scalar(plan_.buffers[rs.buffer], ep, "reset");
        Elem e = plan_.buffers[rs.buffer].type;
        if (it->is_object()) {
          ck_.allow_keys(*it, ep, {"fill"});
          rs.fill = true;
          rs.bits = ck_.value_bits(ck_.require(*it, "fill", ep), e, key_path(ep, "fill"));
        } else {
          rs.bits = ck_.value_bits(*it, e, ep);
        }
        r.resets.push_back(rs);
      }
    }
    return r;
  }

  void parse_dump(const json& v, const std::string& path) {
    ck_.object(v, path);
    ck_.allow_keys(v, path, {"buffer", "file", "format"});
    DumpSpec d;
    d.path = path;
    d.buffer = buffer_ref(ck_.require(v, "buffer", path), key_path(path, "buffer"));
    d.file = ck_.string(ck_.require(v, "file", path), key_path(path, "file"));
    const BufferSpec& b = plan_.buffers[d.buffer];
    if (d.file.empty()) ck_.fail(key_path(path, "file"), "empty file name");
    if (const json* f = ck_.find(v, "format")) {
      std::string s = ck_.string(*f, key_path(path, "format"));
      if (s == "text") {
        d.text = true;
        require_scalar(b, key_path(path, "format"), "text format");
      }
      else if (s != "binary") ck_.fail(key_path(path, "format"), "unknown format " + quote(s) + " (expected binary or text)");
    }
    plan_.dumps.push_back(std::move(d));
  }

  void parse_expect(const json& v, const std::string& path) {
    ck_.object(v, path);
    ck_.allow_keys(v, path, {"buffer", "field", "start", "count", "stride", "values", "file", "constant", "sorted",
                             "min", "max", "sum", "tolerance", "relative_tolerance"});
    ExpectSpec x;
    x.path = path;
    x.buffer = buffer_ref(ck_.require(v, "buffer", path), key_path(path, "buffer"));
    const BufferSpec& b = plan_.buffers[x.buffer];
    parse_expect_selection(v, path, b, x);
    const uint64_t n = x.count * (x.field ? x.field->count : 1);

    const bool range = ck_.find(v, "min") || ck_.find(v, "max");
    const json* sum = ck_.find(v, "sum");
    const bool data = ck_.find(v, "values") || ck_.find(v, "file") || ck_.find(v, "constant");
    const int checks = int(range) + int(sum != nullptr) + int(data);
    if (checks != 1)
      ck_.fail(path, std::string(checks == 0 ? "missing the data" : "give only one check") +
                         ": one of 'values', 'file' or 'constant' (optionally 'sorted'), 'min'/'max', or 'sum'");
    if (const json* t = ck_.find(v, "tolerance")) x.tolerance = ck_.number(*t, key_path(path, "tolerance"));
    if (const json* t = ck_.find(v, "relative_tolerance"))
      x.relative_tolerance = ck_.number(*t, key_path(path, "relative_tolerance"));
    if (x.tolerance < 0 || x.relative_tolerance < 0) ck_.fail(path, "tolerances must not be negative");
    if (const json* s = ck_.find(v, "sorted")) {
      if (!s->is_boolean()) ck_.fail(key_path(path, "sorted"), "expected true or false");
      if (!data) ck_.fail(key_path(path, "sorted"), "applies to 'values', 'file' and 'constant' only");
      if (s->get<bool>()) x.check = ExpectSpec::Check::Sorted;
    }
    if (range) {
      if (ck_.find(v, "tolerance") || ck_.find(v, "relative_tolerance"))
        ck_.fail(path, "'min'/'max' take no tolerance");
      x.check = ExpectSpec::Check::Range;
      if (const json* m = ck_.find(v, "min")) x.min = ck_.value_bits(*m, x.type, key_path(path, "min"));
      if (const json* m = ck_.find(v, "max")) x.max = ck_.value_bits(*m, x.type, key_path(path, "max"));
      if (x.min && x.max && compare_values(x.type, *x.min, *x.max) > 0) ck_.fail(path, "min is greater than max");
    } else if (sum) {
      x.check = ExpectSpec::Check::Sum;
      x.sum = ck_.value_bits(*sum, sum_type(x.type), key_path(path, "sum"));
    } else {
      x.want = parse_source(ck_, v, path, x.type, {"values", "file", "constant"});
      if (x.want.count && *x.want.count != n)
        ck_.fail(path, (x.field || x.count != b.count ? "the selection has " : "buffer " + quote(b.name) + " has ") +
                           std::to_string(n) + " elements, expected data has " + std::to_string(*x.want.count));
    }
    plan_.expects.push_back(std::move(x));
  }

  // start/count/stride (elements of the buffer) and, for structs, the field.
  void parse_expect_selection(const json& v, const std::string& path, const BufferSpec& b, ExpectSpec& x) const {
    if (const json* f = ck_.find(v, "field")) {
      const std::string fp = key_path(path, "field");
      if (b.struct_type < 0) ck_.fail(fp, "buffer " + quote(b.name) + " holds " + type_name(b) + ", not structs");
      x.field = plan_.types.leaf(ck_, size_t(b.struct_type), ck_.string(*f, fp), fp);
      x.type = x.field->elem;
    } else if (b.struct_type >= 0) {
      ck_.fail(path, "buffer " + quote(b.name) + " holds " + type_name(b) + ": name the 'field' to check");
    } else {
      x.type = b.type;
    }
    if (const json* s = ck_.find(v, "start")) x.start = ck_.unsigned_int(*s, key_path(path, "start"), 0, b.count - 1);
    if (const json* s = ck_.find(v, "stride")) x.stride = ck_.unsigned_int(*s, key_path(path, "stride"), 1, ~0ull);
    const uint64_t available = (b.count - x.start + x.stride - 1) / x.stride;
    if (const json* c = ck_.find(v, "count")) {
      x.count = ck_.unsigned_int(*c, key_path(path, "count"), 1, ~0ull);
      if (x.count > available)
        ck_.fail(key_path(path, "count"), std::to_string(x.count) + " elements from start " + std::to_string(x.start) +
                                              " with stride " + std::to_string(x.stride) + " run past the end of " +
                                              quote(b.name) + " (" + std::to_string(b.count) + " elements; at most " +
                                              std::to_string(available) + " fit)");
    } else {
      x.count = available;
    }
  }

  const Checker& ck_;
  detail::LaunchPlan& plan_;
};

bool is_float_type(ptx::DataType t) { return t == ptx::DataType::F32 || t == ptx::DataType::F64 || t == ptx::DataType::F16; }
bool is_int_type(ptx::DataType t) {
  using D = ptx::DataType;
  return t == D::U8 || t == D::U16 || t == D::U32 || t == D::U64 || t == D::S8 || t == D::S16 || t == D::S32 ||
         t == D::S64;
}

std::string kernel_list(const ptx::Module& m) {
  std::string s;
  for (const ptx::Function& f : m.functions)
    if (f.is_entry) s += (s.empty() ? "" : ", ") + f.name;
  return s.empty() ? "none" : s;
}

// Runs a checked plan against one device.
class Runner {
 public:
  Runner(const Checker& ck, const detail::LaunchPlan& plan, GpuDevice& device, LaunchFileResult& result)
      : ck_(ck), plan_(plan), device_(device), result_(result) {}

  void check_module(const ptx::Module& m) const { check_steps(plan_.root.steps, m); }

  void check_symbols(const ptx::Module& m) const {
    for (const SymbolSpec& s : plan_.symbols) {
      const ptx::ModuleVariable* var = nullptr;
      for (const auto* list : {&m.globals, &m.consts})
        for (const ptx::ModuleVariable& v : *list)
          if (v.name == s.symbol) var = &v;
      if (!var)
        ck_.fail(key_path(s.path, "symbol"), "no .global or .const variable " + quote(s.symbol) + " in " + plan_.ptx_path);
      uint64_t bytes = s.buffer >= 0 ? 8 : s.bytes.size();
      if (s.offset + bytes > var->size)
        ck_.fail(s.path, "writes " + std::to_string(bytes) + " bytes at offset " + std::to_string(s.offset) +
                             " but " + quote(s.symbol) + " has " + std::to_string(var->size) + " bytes");
    }
  }

  void allocate() {
    for (const BufferSpec& b : plan_.buffers) {
      uint64_t bytes = b.count * b.elem_bytes;
      uint64_t addr = device_.allocate(bytes, b.name);
      // Allocations start zeroed.
      if (b.init.source.kind != Source::Kind::Zeros || !b.init.fields.empty()) {
        std::vector<uint8_t> data = materialise_buffer(b, b.init);
        device_.copy_to_device(addr, data.data(), data.size());
      }
      address_.push_back(addr);
    }
  }

  /// Texture and surface objects over the allocated buffers (the resource must fit in its buffer).
  void create_textures() {
    for (const TextureSpec& t : plan_.textures) {
      exec::TexResource r = t.resource;
      r.base = address_[t.buffer];
      const BufferSpec& b = plan_.buffers[t.buffer];
      try {
        exec::validate_tex_resource(r);
        if (r.size_bytes() > b.count * info(b.type).bytes)
          ck_.fail(t.path, "needs " + std::to_string(r.size_bytes()) + " bytes but buffer " + quote(b.name) + " has " +
                               std::to_string(b.count * info(b.type).bytes));
        handles_.push_back(t.surface ? device_.create_surface_object(r) : device_.create_texture_object(r, t.sampler));
      } catch (const std::invalid_argument& e) {
        ck_.fail(t.path, e.what());
      } catch (const LaunchError& e) {
        ck_.fail(t.path, e.what());
      }
    }
  }

  void write_symbols(ModuleHandle mod) {
    for (const SymbolSpec& s : plan_.symbols) {
      std::vector<uint8_t> bytes = s.bytes;
      if (s.buffer >= 0) {
        bytes.resize(8);
        store_bits(bytes.data(), 8, address_[size_t(s.buffer)]);
      }
      try {
        device_.write_symbol(mod, s.symbol, bytes.data(), bytes.size(), s.offset);
      } catch (const LaunchError& e) {
        ck_.fail(s.path, e.what());
      }
    }
  }

  void run_group(const Group& g, ModuleHandle mod) {
    if (!g.repeat) {
      run_steps(g.steps, mod);
      return;
    }
    const RepeatSpec& r = *g.repeat;
    if (!r.flag) {
      for (uint64_t it = 0; it < r.times; ++it) {
        apply_resets(r);
        run_steps(g.steps, mod);
        record_iteration(g.path);
      }
      return;
    }
    const BufferSpec& flag = plan_.buffers[*r.flag];
    const unsigned fw = info(flag.type).bytes;
    for (uint64_t it = 1;; ++it) {
      set_first(*r.flag, 0);
      apply_resets(r);
      run_steps(g.steps, mod);
      record_iteration(g.path);
      uint8_t raw[8] = {};
      device_.copy_from_device(raw, address_[*r.flag], fw);
      if (is_zero(flag.type, load_bits(raw, fw))) return;
      if (it == r.max_iterations)
        throw LaunchFileRunError("launch file " + ck_.file() + ": " + r.path + ": flag buffer " + quote(flag.name) +
                                 " is still non-zero after max_iterations (" + std::to_string(r.max_iterations) +
                                 ") iterations");
    }
  }

  void apply_resets(const RepeatSpec& r) {
    for (const ResetSpec& rs : r.resets) {
      if (rs.fill) {
        Source c;
        c.kind = Source::Kind::Constant;
        c.constant = rs.bits;
        const BufferSpec& b = plan_.buffers[rs.buffer];
        std::vector<uint8_t> data = materialise(c, b.type, b.count);
        device_.copy_to_device(address_[rs.buffer], data.data(), data.size());
      } else {
        set_first(rs.buffer, rs.bits);
      }
    }
  }

  void dump() {
    for (const DumpSpec& d : plan_.dumps) {
      const BufferSpec& b = plan_.buffers[d.buffer];
      const unsigned w = unsigned(b.elem_bytes);
      std::vector<uint8_t> data(b.count * w);
      device_.copy_from_device(data.data(), address_[d.buffer], data.size());
      fs::path out(d.file);
      if (!out.is_absolute()) out = fs::path(output_dir_.empty() ? plan_.base_dir : output_dir_) / out;
      std::error_code ec;
      if (out.has_parent_path()) fs::create_directories(out.parent_path(), ec);
      std::ofstream f(out, d.text ? std::ios::out : std::ios::binary);
      if (!f) ck_.fail(key_path(d.path, "file"), "cannot write " + out.string() + ": " + std::strerror(errno));
      if (d.text) {
        for (uint64_t i = 0; i < b.count; ++i) f << to_text(b.type, load_bits(&data[i * w], w)) << '\n';
      } else {
        f.write(reinterpret_cast<const char*>(data.data()), std::streamsize(data.size()));
      }
      f.close();
      if (!f) ck_.fail(key_path(d.path, "file"), "cannot write " + out.string());
      result_.dumped.push_back(out.string());
    }
  }

  void verify() {
    result_.expectations = plan_.expects.size();
    uint64_t elements = 0;
    for (const ExpectSpec& x : plan_.expects) {
      std::vector<uint64_t> got = selected_values(x);
      elements += got.size();
      std::string failure = check_expectation(x, got);
      if (!failure.empty() && result_.verified) {
        result_.verified = false;
        result_.detail = x.path + ": " + failure;
      }
    }
    if (result_.verified)
      result_.detail = plan_.expects.empty()
                           ? "no expectations"
                           : std::to_string(plan_.expects.size()) +
                                 (plan_.expects.size() == 1 ? " expectation holds (" : " expectations hold (") +
                                 std::to_string(elements) + " elements)";
  }

  void set_output_dir(std::string dir) { output_dir_ = std::move(dir); }

  // An expected fault happened: it must be of the expected kind and carry
  // the expected text, else the run fails (exit 1) saying what happened.
  void check_fault(const FaultExpect& want, const exec::DeviceFault& f) {
    const std::string report = f.what();
    const bool kind_ok = !want.kind || *want.kind == f.kind();
    const bool text_ok = report.find(want.message_contains) != std::string::npos;
    if (kind_ok && text_ok) {
      ++result_.expected_faults;
      return;
    }
    throw LaunchFileRunError("launch file " + ck_.file() + ": " + want.path + ": expected " + describe(want) +
                             ", got a fault of kind " + fault_kind_name(f.kind()) + ": " + report);
  }

  LaunchFileRunError missing_fault(const FaultExpect& want, const std::string& what) const {
    return LaunchFileRunError("launch file " + ck_.file() + ": " + want.path + ": expected " + describe(want) +
                              ", but " + what + " without a fault");
  }

 private:
  static std::string describe(const FaultExpect& f) {
    std::string s = f.kind ? std::string("a fault of kind ") + fault_kind_name(*f.kind) : std::string("a device fault");
    if (!f.message_contains.empty()) s += " whose report contains " + quote(f.message_contains);
    return s;
  }

  static bool matches(Elem e, uint64_t got, uint64_t want, const ExpectSpec& x) {
    if (x.tolerance == 0 && x.relative_tolerance == 0 && !info(e).is_float) return got == want;
    if (info(e).is_float) {
      double g = to_double(e, got), w = to_double(e, want);
      if (std::isnan(g) || std::isnan(w)) return std::isnan(g) && std::isnan(w);
      if (g == w) return true;  // also equal infinities
      return std::fabs(g - w) <= x.tolerance + x.relative_tolerance * std::fabs(w);
    }
    long double g = info(e).is_signed ? (long double)to_signed(e, got) : (long double)got;
    long double w = info(e).is_signed ? (long double)to_signed(e, want) : (long double)want;
    return std::fabs(g - w) <= x.tolerance + x.relative_tolerance * std::fabs(w);
  }

  // The values an expectation looks at, in selection order (struct i's
  // field elements adjacent), as bits of x.type.
  std::vector<uint64_t> selected_values(const ExpectSpec& x) const {
    const BufferSpec& b = plan_.buffers[x.buffer];
    std::vector<uint8_t> raw(b.count * b.elem_bytes);
    device_.copy_from_device(raw.data(), address_[x.buffer], raw.size());
    const unsigned w = info(x.type).bytes;
    const uint64_t per = x.field ? x.field->count : 1, base = x.field ? x.field->offset : 0;
    std::vector<uint64_t> out;
    out.reserve(x.count * per);
    for (uint64_t i = 0; i < x.count; ++i)
      for (uint64_t k = 0; k < per; ++k)
        out.push_back(load_bits(&raw[(x.start + i * x.stride) * b.elem_bytes + base + k * w], w));
    return out;
  }

  // "p[5].pos.y" / "a[7]" / "p[2].tags[1]" for the j-th selected value.
  std::string value_label(const ExpectSpec& x, uint64_t j) const {
    const uint64_t per = x.field ? x.field->count : 1;
    std::string s = plan_.buffers[x.buffer].name + "[" + std::to_string(x.start + (j / per) * x.stride) + "]";
    if (x.field) {
      s += "." + x.field->name;
      if (per > 1) s += "[" + std::to_string(j % per) + "]";
    }
    return s;
  }

  std::string tolerance_text(const ExpectSpec& x) const {
    if (x.tolerance == 0 && x.relative_tolerance == 0) return "";
    std::ostringstream os;
    os << " (tolerance " << x.tolerance << ", relative " << x.relative_tolerance << ")";
    return os.str();
  }

  // "" when the expectation holds, else what differs.
  std::string check_expectation(const ExpectSpec& x, const std::vector<uint64_t>& got) const {
    const Elem e = x.type;
    const uint64_t n = got.size();
    std::ostringstream os;
    if (x.check == ExpectSpec::Check::Sum) {
      const Elem st = sum_type(e);
      // Floats add up in double, in selection order; integers exactly (64-bit).
      uint64_t total = 0;
      double ftotal = 0;
      for (uint64_t v : got) {
        if (info(e).is_float) ftotal += to_double(e, v);
        else total += info(e).is_signed ? uint64_t(to_signed(e, v)) : v;
      }
      if (info(e).is_float) total = from_double(st, ftotal);
      if (matches(st, total, x.sum, x)) return "";
      os << "sum of " << n << " values " << (x.field ? "of field " + x.field->name + " " : std::string()) << "is "
         << to_text(st, total) << ", expected " << to_text(st, x.sum) << tolerance_text(x);
      return os.str();
    }
    if (x.check == ExpectSpec::Check::Range) {
      uint64_t bad = 0, first = 0;
      for (uint64_t j = 0; j < n; ++j) {
        const bool nan = info(e).is_float && std::isnan(to_double(e, got[j]));
        const bool ok = !nan && (!x.min || compare_values(e, got[j], *x.min) >= 0) &&
                        (!x.max || compare_values(e, got[j], *x.max) <= 0);
        if (!ok && bad++ == 0) first = j;
      }
      if (!bad) return "";
      os << value_label(x, first) << " = " << to_text(e, got[first]) << ", expected within ["
         << (x.min ? to_text(e, *x.min) : std::string("-inf")) << ", " << (x.max ? to_text(e, *x.max) : std::string("inf"))
         << "]; " << bad << " of " << n << " elements out of range";
      return os.str();
    }
    const std::vector<uint8_t> want_raw = materialise(x.want, e, n);
    const unsigned w = info(e).bytes;
    std::vector<uint64_t> want(n);
    for (uint64_t j = 0; j < n; ++j) want[j] = load_bits(&want_raw[j * w], w);
    std::vector<uint64_t> have = got;
    const bool sorted = x.check == ExpectSpec::Check::Sorted;
    if (sorted) {
      // Order-independent: compare the sorted contents with the sorted reference.
      auto less = [e](uint64_t a, uint64_t b) { return compare_values(e, a, b) < 0; };
      std::sort(have.begin(), have.end(), less);
      std::sort(want.begin(), want.end(), less);
    }
    uint64_t bad = 0, first = 0;
    for (uint64_t j = 0; j < n; ++j)
      if (!matches(e, have[j], want[j], x) && bad++ == 0) first = j;
    if (!bad) return "";
    if (sorted)
      os << "as a sorted multiset, element " << first << " of " << plan_.buffers[x.buffer].name
         << (x.field ? "." + x.field->name : std::string()) << " is " << to_text(e, have[first]) << ", expected "
         << to_text(e, want[first]);
    else
      os << value_label(x, first) << " = " << to_text(e, have[first]) << ", expected " << to_text(e, want[first]);
    os << tolerance_text(x) << "; " << bad << " of " << n << " elements differ";
    return os.str();
  }

  void check_steps(const std::vector<Step>& steps, const ptx::Module& m) const {
    for (const Step& s : steps) {
      if (s.kind == Step::Kind::Group) {
        check_steps(s.group->steps, m);
        continue;
      }
      if (s.kind != Step::Kind::Launch) continue;
      const LaunchSpec& l = s.launch;
      auto fi = m.function_index.find(l.kernel);
      if (fi == m.function_index.end() || !m.functions[fi->second].is_entry)
        ck_.fail(key_path(l.path, "kernel"), "no kernel " + quote(l.kernel) + " in " + plan_.ptx_path +
                                                 " (kernels: " + kernel_list(m) + ")");
      const ptx::Function& f = m.functions[fi->second];
      if (f.params.size() != l.args.size())
        ck_.fail(key_path(l.path, "args"), "kernel " + quote(l.kernel) + " takes " + std::to_string(f.params.size()) +
                                               " argument" + (f.params.size() == 1 ? "" : "s") + ", got " +
                                               std::to_string(l.args.size()));
      for (size_t i = 0; i < l.args.size(); ++i) {
        const ArgSpec& a = l.args[i];
        const ptx::KernelParam& p = f.params[i];
        uint64_t bytes = a.kind == ArgSpec::Kind::Buffer || a.kind == ArgSpec::Kind::Texture ? 8
                         : a.kind == ArgSpec::Kind::Bytes ? a.bytes.size()
                                                          : info(a.type).bytes;
        std::string what = a.kind == ArgSpec::Kind::Buffer    ? std::string("a buffer address")
                           : a.kind == ArgSpec::Kind::Texture ? std::string("a texture handle")
                           : a.kind == ArgSpec::Kind::Bytes ? std::string("raw bytes")
                                                            : std::string("type ") + info(a.type).name;
        std::string param = "parameter " + std::to_string(i) + " (" + p.name + ", " + ptx::type_name(p.type) +
                            ", " + std::to_string(p.size) + " bytes)";
        if (a.struct_type >= 0) {
          const StructType& st = plan_.types.type(size_t(a.struct_type));
          what = "struct " + quote(st.name) + " (" + std::to_string(st.size) + " bytes, alignment " +
                 std::to_string(st.align) + ")";
          // nvcc passes a struct as .param .align A .b8 name[size]: a layout
          // that disagrees with the kernel's is a wrong declaration.
          if (bytes != p.size || (p.type == ptx::DataType::B8 && p.align != st.align))
            ck_.fail(a.path, what + " does not match " + param + " (.align " + std::to_string(p.align) + ")");
        }
        if (bytes != p.size)
          ck_.fail(a.path, what + " is " + std::to_string(bytes) + " bytes but " + param + " is not");
        if (a.kind == ArgSpec::Kind::Scalar &&
            ((info(a.type).is_float && is_int_type(p.type)) || (!info(a.type).is_float && is_float_type(p.type))))
          ck_.fail(a.path, what + " does not match " + param);
      }
    }
  }

  void run_steps(const std::vector<Step>& steps, ModuleHandle mod) {
    for (const Step& s : steps) {
      switch (s.kind) {
        case Step::Kind::Group:
          run_group(*s.group, mod);
          break;
        case Step::Kind::Copy:
          run_copy(s.copy);
          break;
        case Step::Kind::Fill: {
          const BufferSpec& b = plan_.buffers[s.fill.buffer];
          std::vector<uint8_t> data = materialise_buffer(b, s.fill.init);
          device_.copy_to_device(address_[s.fill.buffer], data.data(), data.size());
          break;
        }
        case Step::Kind::Swap:
          // Names are bindings to storage: swapping exchanges the storage, so
          // later arguments, flags, dumps and expectations follow it.
          std::swap(address_[s.swap[0]], address_[s.swap[1]]);
          break;
        case Step::Kind::Launch:
          run_launch(s.launch, mod);
          break;
      }
    }
  }

  void run_copy(const CopySpec& c) {
    const uint64_t w = plan_.buffers[c.from].elem_bytes;
    std::vector<uint8_t> data(c.count * w);
    device_.copy_from_device(data.data(), address_[c.from] + c.from_offset * w, data.size());
    device_.copy_to_device(address_[c.to] + c.to_offset * w, data.data(), data.size());
  }

  // A launch; with expect_fault it must end in that fault (the run goes on).
  void run_launch(const LaunchSpec& l, ModuleHandle mod) {
    KernelArgs args;
    for (const ArgSpec& a : l.args) {
      if (a.kind == ArgSpec::Kind::Buffer) {
        args.ptr(address_[a.buffer]);
      } else if (a.kind == ArgSpec::Kind::Texture) {
        args.add<uint64_t>(handles_[a.buffer]);
      } else if (a.kind == ArgSpec::Kind::Bytes) {
        args.raw(a.bytes);
      } else {
        std::vector<uint8_t> bytes(info(a.type).bytes);
        store_bits(bytes.data(), unsigned(bytes.size()), a.bits);
        args.raw(std::move(bytes));
      }
    }
    const DeviceStats before = device_.stats();
    bool faulted = false;
    try {
      if (l.cooperative)
        device_.launch_cooperative(mod, l.kernel, l.grid, l.block, l.shared_bytes, args, l.regs_per_thread);
      else
        device_.launch(mod, l.kernel, l.grid, l.block, l.shared_bytes, args, l.regs_per_thread);
    } catch (const LaunchError& e) {
      ck_.fail(l.path, e.what());
    } catch (const exec::DeviceFault& f) {
      if (!l.expect_fault) throw;
      check_fault(*l.expect_fault, f);
      faulted = true;
    }
    if (l.expect_fault && !faulted) throw missing_fault(*l.expect_fault, "kernel " + quote(l.kernel) + " completed");
    const DeviceStats& after = device_.stats();
    ++result_.kernel_launches;
    auto [it, fresh] = kernel_slot_.emplace(l.kernel, result_.kernels.size());
    if (fresh) result_.kernels.push_back(KernelRecord{l.kernel, 0, 0, 0});
    KernelRecord& k = result_.kernels[it->second];
    ++k.launches;
    k.warp_insts += after.warp_insts - before.warp_insts;
    k.thread_insts += after.thread_insts - before.thread_insts;
  }

  void set_first(size_t buffer, uint64_t bits) {
    uint8_t raw[8];
    // (Elements are at most 8 bytes; the bound lets the compiler see it.)
    const unsigned w = std::min<unsigned>(info(plan_.buffers[buffer].type).bytes, sizeof raw);
    store_bits(raw, w, bits);
    device_.copy_to_device(address_[buffer], raw, w);
  }

  void record_iteration(const std::string& path) {
    auto [it, fresh] = repeat_slot_.emplace(path, result_.repeats.size());
    if (fresh) result_.repeats.push_back(RepeatRecord{path, 0});
    ++result_.repeats[it->second].iterations;
  }

  const Checker& ck_;
  const detail::LaunchPlan& plan_;
  GpuDevice& device_;
  LaunchFileResult& result_;
  std::vector<uint64_t> address_;
  std::vector<uint64_t> handles_;  ///< per plan_.textures entry
  std::string output_dir_;
  std::map<std::string, size_t> kernel_slot_;
  std::map<std::string, size_t> repeat_slot_;
};

}  // namespace

LaunchFile::LaunchFile(std::unique_ptr<detail::LaunchPlan> plan) : plan_(std::move(plan)) {}
LaunchFile::LaunchFile(LaunchFile&&) noexcept = default;
LaunchFile& LaunchFile::operator=(LaunchFile&&) noexcept = default;
LaunchFile::~LaunchFile() = default;

LaunchFile LaunchFile::load(const std::string& path) {
  std::error_code ec;
  if (!fs::is_regular_file(path, ec)) throw LaunchFileError("launch file " + path + ": file not found");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw LaunchFileError("launch file " + path + ": cannot open: " + std::strerror(errno));
  std::string text((std::istreambuf_iterator<char>(in)), {});
  std::string dir = fs::path(path).parent_path().string();
  return parse(text, path, dir.empty() ? "." : dir);
}

LaunchFile LaunchFile::parse(const std::string& text, const std::string& display_name, const std::string& base_dir) {
  json root;
  try {
    // Comments (// and /* */) are allowed: launch files are written by hand.
    root = json::parse(text, nullptr, true, true);
  } catch (const json::exception& e) {
    // A syntax error (parse_error, with its line and column) or a number
    // too large for a double (out_of_range 406, found by fuzz_launch_file).
    std::string msg = e.what();
    // Drop nlohmann's "[json.exception.parse_error.101] " prefix; keep "parse error at line L, column C: ...".
    if (auto close = msg.find("] "); msg.rfind("[json.exception", 0) == 0 && close != std::string::npos)
      msg = msg.substr(close + 2);
    // The overflow names the number but not where it is: give its line.
    if (const size_t open = msg.find('\''), close = msg.rfind('\'');
        e.id == 406 && open != std::string::npos && close > open + 1) {
      const size_t at = text.find(msg.substr(open + 1, close - open - 1));
      if (at != std::string::npos)
        msg += " at line " + std::to_string(1 + std::count(text.begin(), text.begin() + std::ptrdiff_t(at), '\n'));
    }
    throw LaunchFileError("launch file " + display_name + ": JSON " + msg);
  }
  auto plan = std::make_unique<detail::LaunchPlan>();
  plan->display_name = display_name;
  plan->base_dir = base_dir;
  Checker ck(display_name, base_dir);
  Parser(ck, *plan).parse(root);
  return LaunchFile(std::move(plan));
}

std::optional<exec::DivergenceMode> LaunchFile::divergence() const { return plan_->divergence; }
const std::string& LaunchFile::ptx_path() const { return plan_->ptx_path; }
const std::string& LaunchFile::display_name() const { return plan_->display_name; }

LaunchFileResult LaunchFile::run(GpuDevice& device, const LaunchFileOptions& options) const {
  const detail::LaunchPlan& p = *plan_;
  Checker ck(p.display_name, p.base_dir);
  LaunchFileResult result;
  Runner runner(ck, p, device, result);
  runner.set_output_dir(options.output_dir);

  ModuleHandle mod = device.load_module_file(p.ptx_path);
  const ptx::Module& m = device.module(mod);
  runner.check_module(m);
  runner.check_symbols(m);

  runner.allocate();
  runner.create_textures();
  runner.write_symbols(mod);
  if (!p.expect_fault) {
    runner.run_group(p.root, mod);
  } else {
    // The file as a whole expects a fault: the run ends at it, then dumps
    // and expectations describe the memory the fault left behind.
    bool faulted = false;
    try {
      runner.run_group(p.root, mod);
    } catch (const exec::DeviceFault& f) {
      runner.check_fault(*p.expect_fault, f);
      faulted = true;
    }
    if (!faulted) throw runner.missing_fault(*p.expect_fault, "every launch completed");
  }
  runner.dump();
  runner.verify();
  return result;
}

}  // namespace tlmgpu::platform
