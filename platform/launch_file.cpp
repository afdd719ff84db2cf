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

// Where element values come from: a buffer's init, an expectation, a symbol.
struct Source {
  enum class Kind { Zeros, Constant, Random, Bytes } kind = Kind::Zeros;
  uint64_t constant = 0;           // bits
  uint64_t seed = 1, lo = 0, hi = 0;  // random: bits of min and max
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

struct BufferSpec {
  std::string name;
  Elem type = Elem::U8;
  uint64_t count = 0;
  Source init;
  std::string path;
};

struct SymbolSpec {
  std::string symbol;
  uint64_t offset = 0;
  int buffer = -1;            // write this buffer's device address
  std::vector<uint8_t> bytes;  // or these bytes
  std::string path;
};

struct ArgSpec {
  enum class Kind { Buffer, Scalar, Bytes } kind = Kind::Scalar;
  size_t buffer = 0;
  Elem type = Elem::U32;
  uint64_t bits = 0;
  std::vector<uint8_t> bytes;
  std::string path;
};

struct LaunchSpec {
  std::string kernel;
  exec::Dim3 grid, block;
  uint32_t shared_bytes = 0;
  uint32_t regs_per_thread = 0;  ///< 0: the PTX register estimate
  bool cooperative = false;      ///< cudaLaunchCooperativeKernel (grid barrier)
  std::vector<ArgSpec> args;
  std::string path;
};

struct ResetSpec {
  size_t buffer = 0;
  bool fill = false;  // every element, else only the first
  uint64_t bits = 0;
};

struct RepeatSpec {
  size_t flag = 0;
  uint64_t max_iterations = 10000;
  std::vector<ResetSpec> resets;
  std::string path;
};

struct Group;

struct Step {
  LaunchSpec launch;
  std::unique_ptr<Group> group;  // set: a nested repeat group instead of a launch
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
  Source want;
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
  std::vector<SymbolSpec> symbols;
  Group root;
  std::vector<DumpSpec> dumps;
  std::vector<ExpectSpec> expects;
};
}  // namespace detail

namespace {

class Parser {
 public:
  Parser(const Checker& ck, detail::LaunchPlan& plan) : ck_(ck), plan_(plan) {}

  void parse(const json& root) {
    if (!root.is_object()) ck_.fail("", std::string("expected a JSON object at the top level, got ") + root.type_name());
    ck_.allow_keys(root, "", {"ptx", "divergence", "buffers", "symbols", "launches", "repeat", "dump", "expect"});

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

    if (const json* b = ck_.find(root, "buffers")) {
      ck_.array(*b, "buffers");
      for (size_t i = 0; i < b->size(); ++i) parse_buffer((*b)[i], index_path("buffers", i));
    }
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
    b.type = ck_.elem(ck_.require(v, "type", path), key_path(path, "type"));
    const unsigned w = info(b.type).bytes;
    if (const json* init = ck_.find(v, "init")) {
      const std::string ip = key_path(path, "init");
      if (init->is_string()) {
        if (init->get<std::string>() != "zeros")
          ck_.fail(ip, "unknown init " + quote(init->get<std::string>()) +
                           " (expected \"zeros\" or an object with constant, random, file or values)");
      } else {
        ck_.object(*init, ip);
        ck_.allow_keys(*init, ip, {"constant", "random", "file", "values"});
        b.init = parse_source(ck_, *init, ip, b.type, {"constant", "random", "file", "values"});
      }
    }
    constexpr uint64_t kMaxBytes = 16ull << 30;
    if (const json* c = ck_.find(v, "count")) {
      b.count = ck_.unsigned_int(*c, key_path(path, "count"), 1, kMaxBytes / w);
      if (b.init.count && *b.init.count != b.count)
        ck_.fail(key_path(path, "count"), std::to_string(b.count) + " elements, but init gives " +
                                              std::to_string(*b.init.count));
    } else if (b.init.count) {
      b.count = *b.init.count;
      if (b.count == 0) ck_.fail(key_path(path, "init"), "no elements");
    } else {
      ck_.fail(path, "missing key 'count'");
    }
    plan_.buffer_index[b.name] = plan_.buffers.size();
    plan_.buffers.push_back(std::move(b));
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
      if (ck_.find(item, "repeat") || (ck_.find(item, "launches") && !ck_.find(item, "kernel"))) {
        ck_.allow_keys(item, sp, {"repeat", "launches"});
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

  LaunchSpec parse_launch(const json& v, const std::string& path) {
    ck_.allow_keys(v, path, {"kernel", "grid", "block", "shared_bytes", "regs_per_thread", "cooperative", "args"});
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
    } else if (const json* bytes = ck_.find(v, "bytes")) {
      ck_.allow_keys(v, path, {"bytes"});
      a.kind = ArgSpec::Kind::Bytes;
      ck_.array(*bytes, key_path(path, "bytes"));
      for (size_t i = 0; i < bytes->size(); ++i)
        a.bytes.push_back(uint8_t(ck_.value_bits((*bytes)[i], Elem::U8, index_path(key_path(path, "bytes"), i))));
      if (a.bytes.empty()) ck_.fail(key_path(path, "bytes"), "no bytes");
    } else if (ck_.find(v, "type") || ck_.find(v, "value")) {
      ck_.allow_keys(v, path, {"type", "value"});
      a.kind = ArgSpec::Kind::Scalar;
      a.type = ck_.elem(ck_.require(v, "type", path), key_path(path, "type"));
      a.bits = ck_.value_bits(ck_.require(v, "value", path), a.type, key_path(path, "value"));
    } else {
      ck_.fail(path, "expected {\"buffer\": name}, {\"type\": t, \"value\": v} or {\"bytes\": [...]}");
    }
    return a;
  }

  RepeatSpec parse_repeat(const json& v, const std::string& path) {
    ck_.object(v, path);
    ck_.allow_keys(v, path, {"until_zero", "max_iterations", "reset"});
    RepeatSpec r;
    r.path = path;
    r.flag = buffer_ref(ck_.require(v, "until_zero", path), key_path(path, "until_zero"));
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
    if (d.file.empty()) ck_.fail(key_path(path, "file"), "empty file name");
    if (const json* f = ck_.find(v, "format")) {
      std::string s = ck_.string(*f, key_path(path, "format"));
      if (s == "text") d.text = true;
      else if (s != "binary") ck_.fail(key_path(path, "format"), "unknown format " + quote(s) + " (expected binary or text)");
    }
    plan_.dumps.push_back(std::move(d));
  }

  void parse_expect(const json& v, const std::string& path) {
    ck_.object(v, path);
    ck_.allow_keys(v, path, {"buffer", "values", "file", "constant", "tolerance", "relative_tolerance"});
    ExpectSpec x;
    x.path = path;
    x.buffer = buffer_ref(ck_.require(v, "buffer", path), key_path(path, "buffer"));
    const BufferSpec& b = plan_.buffers[x.buffer];
    x.want = parse_source(ck_, v, path, b.type, {"values", "file", "constant"});
    if (x.want.count && *x.want.count != b.count)
      ck_.fail(path, "buffer " + quote(b.name) + " has " + std::to_string(b.count) + " elements, expected data has " +
                         std::to_string(*x.want.count));
    if (const json* t = ck_.find(v, "tolerance")) x.tolerance = ck_.number(*t, key_path(path, "tolerance"));
    if (const json* t = ck_.find(v, "relative_tolerance"))
      x.relative_tolerance = ck_.number(*t, key_path(path, "relative_tolerance"));
    if (x.tolerance < 0 || x.relative_tolerance < 0) ck_.fail(path, "tolerances must not be negative");
    plan_.expects.push_back(std::move(x));
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
      uint64_t bytes = b.count * info(b.type).bytes;
      uint64_t addr = device_.allocate(bytes, b.name);
      // Allocations start zeroed.
      if (b.init.kind != Source::Kind::Zeros) {
        std::vector<uint8_t> data = materialise(b.init, b.type, b.count);
        device_.copy_to_device(addr, data.data(), data.size());
      }
      address_.push_back(addr);
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
    const BufferSpec& flag = plan_.buffers[r.flag];
    const unsigned fw = info(flag.type).bytes;
    for (uint64_t it = 1;; ++it) {
      set_first(r.flag, 0);
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
      run_steps(g.steps, mod);
      record_iteration(g.path);
      uint8_t raw[8] = {};
      device_.copy_from_device(raw, address_[r.flag], fw);
      if (is_zero(flag.type, load_bits(raw, fw))) return;
      if (it == r.max_iterations)
        throw LaunchFileRunError("launch file " + ck_.file() + ": " + r.path + ": flag buffer " + quote(flag.name) +
                                 " is still non-zero after max_iterations (" + std::to_string(r.max_iterations) +
                                 ") iterations");
    }
  }

  void dump() {
    for (const DumpSpec& d : plan_.dumps) {
      const BufferSpec& b = plan_.buffers[d.buffer];
      const unsigned w = info(b.type).bytes;
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
      const BufferSpec& b = plan_.buffers[x.buffer];
      const unsigned w = info(b.type).bytes;
      std::vector<uint8_t> got(b.count * w);
      device_.copy_from_device(got.data(), address_[x.buffer], got.size());
      std::vector<uint8_t> want = materialise(x.want, b.type, b.count);
      uint64_t mismatches = 0, first = 0;
      for (uint64_t i = 0; i < b.count; ++i) {
        if (matches(b.type, load_bits(&got[i * w], w), load_bits(&want[i * w], w), x)) continue;
        if (mismatches++ == 0) first = i;
      }
      elements += b.count;
      if (mismatches && result_.verified) {
        result_.verified = false;
        std::ostringstream os;
        os << x.path << ": " << b.name << "[" << first << "] = " << to_text(b.type, load_bits(&got[first * w], w))
           << ", expected " << to_text(b.type, load_bits(&want[first * w], w));
        if (x.tolerance > 0 || x.relative_tolerance > 0)
          os << " (tolerance " << x.tolerance << ", relative " << x.relative_tolerance << ")";
        os << "; " << mismatches << " of " << b.count << " elements differ";
        result_.detail = os.str();
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

 private:
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

  void check_steps(const std::vector<Step>& steps, const ptx::Module& m) const {
    for (const Step& s : steps) {
      if (s.group) {
        check_steps(s.group->steps, m);
        continue;
      }
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
        uint64_t bytes = a.kind == ArgSpec::Kind::Buffer ? 8
                         : a.kind == ArgSpec::Kind::Bytes ? a.bytes.size()
                                                          : info(a.type).bytes;
        std::string what = a.kind == ArgSpec::Kind::Buffer ? std::string("a buffer address")
                           : a.kind == ArgSpec::Kind::Bytes ? std::string("raw bytes")
                                                            : std::string("type ") + info(a.type).name;
        std::string param = "parameter " + std::to_string(i) + " (" + p.name + ", ." + ptx::type_name(p.type) +
                            ", " + std::to_string(p.size) + " bytes)";
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
      if (s.group) {
        run_group(*s.group, mod);
        continue;
      }
      const LaunchSpec& l = s.launch;
      KernelArgs args;
      for (const ArgSpec& a : l.args) {
        if (a.kind == ArgSpec::Kind::Buffer) {
          args.ptr(address_[a.buffer]);
        } else if (a.kind == ArgSpec::Kind::Bytes) {
          args.raw(a.bytes);
        } else {
          std::vector<uint8_t> bytes(info(a.type).bytes);
          store_bits(bytes.data(), unsigned(bytes.size()), a.bits);
          args.raw(std::move(bytes));
        }
      }
      const DeviceStats before = device_.stats();
      try {
        if (l.cooperative)
          device_.launch_cooperative(mod, l.kernel, l.grid, l.block, l.shared_bytes, args, l.regs_per_thread);
        else
          device_.launch(mod, l.kernel, l.grid, l.block, l.shared_bytes, args, l.regs_per_thread);
      } catch (const LaunchError& e) {
        ck_.fail(l.path, e.what());
      }
      const DeviceStats& after = device_.stats();
      ++result_.kernel_launches;
      auto [it, fresh] = kernel_slot_.emplace(l.kernel, result_.kernels.size());
      if (fresh) result_.kernels.push_back(KernelRecord{l.kernel, 0, 0, 0});
      KernelRecord& k = result_.kernels[it->second];
      ++k.launches;
      k.warp_insts += after.warp_insts - before.warp_insts;
      k.thread_insts += after.thread_insts - before.thread_insts;
    }
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
  } catch (const json::parse_error& e) {
    std::string msg = e.what();
    // Drop nlohmann's "[json.exception.parse_error.101] " prefix; keep "parse error at line L, column C: ...".
    if (auto close = msg.find("] "); msg.rfind("[json.exception", 0) == 0 && close != std::string::npos)
      msg = msg.substr(close + 2);
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
  runner.write_symbols(mod);
  runner.run_group(p.root, mod);
  runner.dump();
  runner.verify();
  return result;
}

}  // namespace tlmgpu::platform
