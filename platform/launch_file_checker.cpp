#include "platform/launch_file_checker.h"

#include <cerrno>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>

#include "platform/launch_file.h"

namespace tlmgpu::platform::launch_file {
namespace {

namespace fs = std::filesystem;

bool is_integral(double d) { return std::isfinite(d) && d == std::floor(d); }

}  // namespace

std::string key_path(const std::string& parent, const std::string& key) {
  return parent.empty() ? key : parent + "." + key;
}

std::string index_path(const std::string& parent, size_t i) {
  return parent + "[" + std::to_string(i) + "]";
}

std::string quote(const std::string& s) { return "'" + s + "'"; }

void Checker::fail(const std::string& path, const std::string& message) const {
  throw LaunchFileError("launch file " + file_ + ": " + (path.empty() ? "" : path + ": ") + message);
}

const json& Checker::object(const json& v, const std::string& path) const {
  if (!v.is_object()) fail(path, std::string("expected an object, got ") + v.type_name());
  return v;
}

const json& Checker::array(const json& v, const std::string& path) const {
  if (!v.is_array()) fail(path, std::string("expected an array, got ") + v.type_name());
  return v;
}

const json& Checker::require(const json& obj, const char* key, const std::string& path) const {
  const json* v = find(obj, key);
  if (!v) fail(path, "missing key " + quote(key));
  return *v;
}

void Checker::allow_keys(const json& obj, const std::string& path, std::initializer_list<const char*> keys) const {
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

std::string Checker::string(const json& v, const std::string& path) const {
  if (!v.is_string()) fail(path, std::string("expected a string, got ") + v.type_name());
  return v.get<std::string>();
}

uint64_t Checker::unsigned_int(const json& v, const std::string& path, uint64_t min, uint64_t max) const {
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

double Checker::number(const json& v, const std::string& path) const {
  if (!v.is_number()) fail(path, std::string("expected a number, got ") + describe(v));
  return v.get<double>();
}

Elem Checker::elem(const json& v, const std::string& path) const {
  std::string s = string(v, path);
  for (size_t i = 0; i < std::size(kElems); ++i)
    if (s == kElems[i].name) return static_cast<Elem>(i);
  fail(path, "unknown element type " + quote(s) + " (expected one of: " + elem_names() + ")");
}

exec::Dim3 Checker::dim3(const json& v, const std::string& path) const {
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

uint64_t Checker::value_bits(const json& v, Elem e, const std::string& path) const {
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

std::string Checker::resolve(const std::string& p) const {
  fs::path fp(p);
  return fp.is_absolute() ? p : (fs::path(base_dir_) / fp).lexically_normal().string();
}

std::vector<uint8_t> Checker::read_file(const json& v, const std::string& path) const {
  std::string name = string(v, path);
  std::string full = resolve(name);
  std::error_code ec;
  if (!fs::is_regular_file(full, ec)) fail(path, "file not found: " + full);
  std::ifstream in(full, std::ios::binary);
  if (!in) fail(path, "cannot open " + full + ": " + std::strerror(errno));
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(in), {});
}

std::string Checker::describe(const json& v) {
  std::string s = v.dump();
  if (s.size() > 40) s = s.substr(0, 37) + "...";
  return std::string(v.type_name()) + " " + s;
}

}  // namespace tlmgpu::platform::launch_file
