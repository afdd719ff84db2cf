#include "model/exec/device_runtime.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <sstream>

#include "core/issue_order_gate.h"
#include "model/exec/cta.h"
#include "model/exec/warp.h"

namespace tlmgpu::exec {

// ------------------------------------------------------------------ heap

void DeviceHeap::reset(uint64_t base, uint64_t bytes) {
  base_ = base;
  bytes_ = bytes & ~(kAlignment - 1);
  in_use_ = 0;
  free_.clear();
  live_.clear();
  if (bytes_) free_[base_] = bytes_;
}

uint64_t DeviceHeap::allocate(uint64_t bytes) {
  if (bytes == 0 || bytes > bytes_) return 0;
  const uint64_t size = (bytes + kAlignment - 1) & ~(kAlignment - 1);
  for (auto it = free_.begin(); it != free_.end(); ++it) {
    if (it->second < size) continue;
    const uint64_t address = it->first;
    const uint64_t rest = it->second - size;
    free_.erase(it);
    if (rest) free_[address + size] = rest;
    live_[address] = size;
    in_use_ += size;
    return address;
  }
  return 0;
}

bool DeviceHeap::release(uint64_t address) {
  auto it = live_.find(address);
  if (it == live_.end()) return false;
  uint64_t start = address, size = it->second;
  in_use_ -= size;
  live_.erase(it);
  // Merge with the free neighbours so the heap does not fragment for good.
  auto next = free_.lower_bound(start);
  if (next != free_.end() && next->first == start + size) {
    size += next->second;
    next = free_.erase(next);
  }
  if (next != free_.begin()) {
    auto prev = std::prev(next);
    if (prev->first + prev->second == start) {
      start = prev->first;
      size += prev->second;
      free_.erase(prev);
    }
  }
  free_[start] = size;
  return true;
}

// ------------------------------------------------------------------ printf

void DeviceRuntime::record_printf(uint64_t cta, uint32_t thread, std::string text) {
  records_.push_back(PrintfRecord{cta, thread, next_sequence_++, std::move(text)});
}

std::string DeviceRuntime::take_launch_output() {
  std::sort(records_.begin(), records_.end(), [](const PrintfRecord& a, const PrintfRecord& b) {
    if (a.cta != b.cta) return a.cta < b.cta;
    if (a.thread != b.thread) return a.thread < b.thread;
    return a.sequence < b.sequence;
  });
  std::string out;
  for (const PrintfRecord& r : records_) out += r.text;
  records_.clear();
  next_sequence_ = 0;
  return out;
}

namespace {

/// Reads argument `bytes` wide at the next offset aligned to its size.
bool next_argument(const std::vector<uint8_t>& args, size_t& offset, unsigned bytes, uint64_t& value) {
  offset = (offset + bytes - 1) / bytes * bytes;
  if (offset + bytes > args.size()) return false;
  value = 0;
  std::memcpy(&value, args.data() + offset, bytes);
  offset += bytes;
  return true;
}

// One conversion through the host's snprintf: the spec is rebuilt from the
// parsed flags, width, precision, length and conversion only, and `value`
// has the type that conversion takes, so the format is safe.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
template <typename T>
std::string host_format(const std::string& spec, T value) {
  const int n = std::snprintf(nullptr, 0, spec.c_str(), value);
  if (n <= 0) return {};
  std::string s(size_t(n) + 1, '\0');
  std::snprintf(&s[0], s.size(), spec.c_str(), value);
  s.resize(size_t(n));
  return s;
}
#pragma GCC diagnostic pop

}  // namespace

int format_device_printf(const std::string& format, const std::vector<uint8_t>& args,
                         const std::function<std::string(uint64_t)>& read_string, std::string& out) {
  int consumed = 0;
  size_t offset = 0;
  size_t i = 0;
  while (i < format.size()) {
    const char c = format[i];
    if (c != '%') {
      out += c;
      ++i;
      continue;
    }
    const size_t start = i++;
    std::string flags;
    while (i < format.size() && std::strchr("-+ #0", format[i])) flags += format[i++];
    std::string width, precision;
    while (i < format.size() && std::isdigit(static_cast<unsigned char>(format[i]))) width += format[i++];
    bool has_precision = false;
    if (i < format.size() && format[i] == '.') {
      has_precision = true;
      ++i;
      while (i < format.size() && std::isdigit(static_cast<unsigned char>(format[i]))) precision += format[i++];
    }
    std::string length;
    while (i < format.size() && std::strchr("hlLzjt", format[i])) length += format[i++];
    if (i >= format.size()) {
      out += format.substr(start);  // a lone '%' at the end is printed as written
      break;
    }
    const char conv = format[i++];
    const std::string spec_head = "%" + flags + width + (has_precision ? "." + precision : "");
    uint64_t v = 0;
    // 64-bit integers: l and ll (LP64), z, j, t; everything smaller is promoted to int.
    const bool wide = length == "l" || length == "ll" || length == "z" || length == "j" || length == "t";
    switch (conv) {
      case '%':
        out += '%';
        break;
      case 'd': case 'i': case 'u': case 'x': case 'X': case 'o': case 'c': {
        if (!next_argument(args, offset, wide ? 8 : 4, v)) return consumed;
        ++consumed;
        if (conv == 'c') {
          out += host_format(spec_head + "c", int(uint32_t(v)));
        } else if (wide) {
          out += host_format(spec_head + "ll" + conv, static_cast<long long>(v));
        } else {
          // h / hh narrow the promoted int as C's printf does.
          const std::string len = length == "h" || length == "hh" ? length : "";
          out += host_format(spec_head + len + conv, int(uint32_t(v)));
        }
        break;
      }
      case 'f': case 'F': case 'e': case 'E': case 'g': case 'G': case 'a': case 'A': {
        if (!next_argument(args, offset, 8, v)) return consumed;
        ++consumed;
        double d = 0;
        std::memcpy(&d, &v, 8);
        out += host_format(spec_head + conv, d);
        break;
      }
      case 's': {
        if (!next_argument(args, offset, 8, v)) return consumed;
        ++consumed;
        const std::string s = v ? read_string(v) : std::string("(null)");
        out += host_format(spec_head + "s", s.c_str());
        break;
      }
      case 'p': {
        if (!next_argument(args, offset, 8, v)) return consumed;
        ++consumed;
        out += host_format(spec_head + "p", reinterpret_cast<void*>(uintptr_t(v)));
        break;
      }
      default:
        // Not a conversion CUDA's printf supports (%n, '*' widths): printed as written.
        out += format.substr(start, i - start);
        break;
    }
  }
  return consumed;
}

// ------------------------------------------------------------------ built-in calls

namespace {

constexpr size_t kMaxDeviceString = 1 << 16;

uint64_t read_param(Warp& warp, const ptx::ParamCopy& block, unsigned lane) {
  uint64_t v = 0;
  std::memcpy(&v, warp.resolve(ptx::StateSpace::Local, block.from, block.bytes, 1, lane), block.bytes);
  return v;
}

void write_result(Warp& warp, const ptx::CallSite& site, uint64_t value, unsigned lane) {
  if (site.rets.empty()) return;
  const ptx::ParamCopy& r = site.rets[0];
  std::memcpy(warp.resolve(ptx::StateSpace::Local, r.to, r.bytes, 1, lane), &value, r.bytes);
}

/// A NUL-terminated string at a generic address; every byte is checked.
std::string read_device_string(Warp& warp, uint64_t address, unsigned lane) {
  std::string s;
  for (size_t k = 0; k < kMaxDeviceString; ++k) {
    const char ch = char(*warp.resolve(ptx::StateSpace::Generic, address + k, 1, 1, lane));
    if (ch == '\0') return s;
    s += ch;
  }
  warp.fault(FaultKind::OutOfBounds, "device string longer than 64 KiB (no terminating NUL)", lane, address);
}

uint32_t linear_thread(const Warp& warp, unsigned lane) {
  const KernelContext& ctx = warp.context();
  return uint32_t(warp.special(ptx::SpecialReg::TidX, lane) +
                  warp.special(ptx::SpecialReg::TidY, lane) * ctx.block.x +
                  warp.special(ptx::SpecialReg::TidZ, lane) * ctx.block.x * ctx.block.y);
}

}  // namespace

void execute_builtin_call(const ptx::CallSite& site, uint32_t mask, Warp& warp) {
  // The heap and the printf records are the device's, shared by the SMs.
  core::await_issue_order();
  const KernelContext& ctx = warp.context();
  for (uint32_t m = mask; m; m &= m - 1) {
    const unsigned lane = unsigned(__builtin_ctz(m));
    if (ctx.runtime == nullptr)
      warp.fault(FaultKind::Unsupported, "device runtime call without a device runtime", lane, 0);
    DeviceRuntime& rt = *ctx.runtime;
    switch (site.builtin) {
      case ptx::BuiltinFunction::Vprintf: {
        const uint64_t fmt = read_param(warp, site.args[0], lane);
        const uint64_t buffer = read_param(warp, site.args[1], lane);
        if (fmt == 0) {
          write_result(warp, site, uint64_t(int64_t(-1)), lane);  // CUDA: -1 for a NULL format
          break;
        }
        const std::string format = read_device_string(warp, fmt, lane);
        // The argument buffer: at most 8 bytes per conversion, read as far
        // as it is addressable (its size is not passed).
        std::vector<uint8_t> args;
        if (buffer != 0) {
          size_t conversions = 0;
          for (char ch : format) conversions += ch == '%';
          for (size_t k = 0; k < conversions * 8; ++k) {
            uint8_t* p = nullptr;
            try {
              p = warp.resolve(ptx::StateSpace::Generic, buffer + k, 1, 1, lane);
            } catch (const DeviceFault&) {
              break;
            }
            args.push_back(*p);
          }
        }
        std::string text;
        const int n = format_device_printf(
            format, args, [&](uint64_t a) { return read_device_string(warp, a, lane); }, text);
        const Dim3 c = warp.cta().ctaid();
        rt.record_printf(c.x + uint64_t(c.y) * ctx.grid.x + uint64_t(c.z) * ctx.grid.x * ctx.grid.y,
                         linear_thread(warp, lane), std::move(text));
        write_result(warp, site, uint64_t(int64_t(n)), lane);
        break;
      }
      case ptx::BuiltinFunction::Malloc: {
        const uint64_t bytes = read_param(warp, site.args[0], lane);
        write_result(warp, site, rt.heap.allocate(bytes), lane);
        break;
      }
      case ptx::BuiltinFunction::Free: {
        const uint64_t address = read_param(warp, site.args[0], lane);
        if (address != 0 && !rt.heap.release(address))
          warp.fault(FaultKind::OutOfBounds, "free() of a pointer malloc() did not return (or already freed)", lane,
                     address);
        if (address != 0) warp.note_progress();
        break;
      }
      case ptx::BuiltinFunction::AssertFail: {
        const std::string message = read_device_string(warp, read_param(warp, site.args[0], lane), lane);
        const std::string file = read_device_string(warp, read_param(warp, site.args[1], lane), lane);
        const uint64_t line = read_param(warp, site.args[2], lane);
        const std::string function = read_device_string(warp, read_param(warp, site.args[3], lane), lane);
        std::ostringstream os;
        os << "assertion `" << message << "` failed at " << file << ":" << uint32_t(line) << " in " << function;
        warp.fault(FaultKind::AssertionFailed, os.str(), lane, 0);
      }
      default:
        warp.fault(FaultKind::Unsupported, "unknown built-in call", lane, 0);
    }
  }
}

}  // namespace tlmgpu::exec
