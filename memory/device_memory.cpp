#include "memory/device_memory.h"

#include <cstdlib>
#include <cstring>
#include <iterator>
#include <new>
#include <sstream>
#include <stdexcept>

namespace tlmgpu::memory {

namespace {
constexpr uint64_t kAllocationAlign = 256;
// Gaps between allocations make an off-the-end access a fault instead of a
// silent hit in the neighbouring buffer.
constexpr uint64_t kGuardBytes = 256;
}  // namespace

bool GlobalMemoryIf::commit_staged(uint64_t*) {
  has_staged_ = false;
  return true;
}

bool GlobalMemoryIf::read(uint64_t addr, void* dst, uint64_t bytes) {
  if (bytes == 0) return true;
  const uint8_t* p = translate(addr, bytes);
  if (p == nullptr || has_staged_) {
    discard_staged();
    return false;
  }
  std::memcpy(dst, p, bytes);
  return true;
}

bool GlobalMemoryIf::write(uint64_t addr, const void* src, uint64_t bytes) {
  if (bytes == 0) return true;
  uint8_t* p = translate(addr, bytes);
  if (p == nullptr || has_staged_) {
    discard_staged();
    return false;
  }
  std::memcpy(p, src, bytes);
  return true;
}

std::string GlobalMemoryIf::describe(uint64_t) const { return {}; }

void DeviceMemory::CallocFree::operator()(uint8_t* p) const {
  if (owned) std::free(p);
}

void DeviceMemory::adopt_host_memory(uint8_t* host, uint64_t bytes, const std::string& label) {
  const uint64_t base = reinterpret_cast<uint64_t>(host);
  if (bytes == 0 || base + bytes < base) throw std::invalid_argument("adopt_host_memory: empty or wrapping range");
  auto next = allocations_.lower_bound(base);
  const bool overlaps_next = next != allocations_.end() && next->first < base + bytes;
  const bool overlaps_prev = next != allocations_.begin() && std::prev(next)->second.base + std::prev(next)->second.bytes > base;
  if (overlaps_next || overlaps_prev) throw std::invalid_argument("adopt_host_memory: range overlaps an allocation");
  Allocation a;
  a.base = base;
  a.bytes = bytes;
  a.label = label;
  a.data = std::unique_ptr<uint8_t[], CallocFree>(host, CallocFree{false});
  bytes_allocated_ += bytes;
  last_hit_ = nullptr;
  allocations_.emplace(base, std::move(a));
}

uint64_t DeviceMemory::allocate(uint64_t bytes, const std::string& label) {
  if (bytes == 0) bytes = 1;
  Allocation a;
  a.base = next_base_;
  a.bytes = bytes;
  a.label = label;
  a.data.reset(static_cast<uint8_t*>(std::calloc(bytes, 1)));
  if (!a.data) throw std::bad_alloc();
  next_base_ += (bytes + kGuardBytes + kAllocationAlign - 1) / kAllocationAlign * kAllocationAlign;
  bytes_allocated_ += bytes;
  uint64_t base = a.base;
  allocations_.emplace(base, std::move(a));
  return base;
}

void DeviceMemory::free(uint64_t addr) {
  auto it = allocations_.find(addr);
  if (it == allocations_.end()) {
    std::ostringstream os;
    os << "free of 0x" << std::hex << addr << ", which is not the start of an allocation";
    throw std::invalid_argument(os.str());
  }
  if (last_hit_ == &it->second) last_hit_ = nullptr;
  bytes_allocated_ -= it->second.bytes;
  allocations_.erase(it);
}

const DeviceMemory::Allocation* DeviceMemory::find(uint64_t addr) const {
  auto it = allocations_.upper_bound(addr);
  if (it == allocations_.begin()) return nullptr;
  --it;
  const Allocation& a = it->second;
  return addr - a.base < a.bytes ? &a : nullptr;
}

uint8_t* DeviceMemory::translate(uint64_t addr, uint64_t bytes) {
  const Allocation* a = last_hit_;
  if (a == nullptr || addr - a->base >= a->bytes) {
    a = find(addr);
    if (a == nullptr) return nullptr;
    last_hit_ = a;
  }
  uint64_t off = addr - a->base;
  if (bytes > a->bytes - off) return nullptr;
  return a->data.get() + off;
}

void DeviceMemory::copy_to_device(uint64_t dst, const void* src, uint64_t bytes) {
  if (bytes == 0) return;
  uint8_t* p = translate(dst, bytes);
  if (p == nullptr) throw std::out_of_range("copy to device: range " + describe(dst) + " +" + std::to_string(bytes) + " is outside every allocation");
  std::memcpy(p, src, bytes);
}

void DeviceMemory::copy_from_device(void* dst, uint64_t src, uint64_t bytes) {
  if (bytes == 0) return;
  uint8_t* p = translate(src, bytes);
  if (p == nullptr) throw std::out_of_range("copy from device: range " + describe(src) + " +" + std::to_string(bytes) + " is outside every allocation");
  std::memcpy(dst, p, bytes);
}

void DeviceMemory::memset(uint64_t dst, uint8_t value, uint64_t bytes) {
  if (bytes == 0) return;
  uint8_t* p = translate(dst, bytes);
  if (p == nullptr) throw std::out_of_range("memset: range " + describe(dst) + " +" + std::to_string(bytes) + " is outside every allocation");
  std::memset(p, value, bytes);
}

std::string DeviceMemory::describe(uint64_t addr) const {
  // Relative to the nearest allocation below, so "12 bytes past the end of
  // 'c'" is readable; its base and size say where the buffer really is.
  auto it = allocations_.upper_bound(addr);
  if (it == allocations_.begin()) return "below every allocation";
  --it;
  const Allocation& a = it->second;
  const std::string name = a.label.empty() ? "allocation" : "'" + a.label + "'";
  std::ostringstream os;
  if (addr - a.base < a.bytes)
    os << (addr - a.base) << " bytes into " << name;
  else
    os << (addr - a.base - a.bytes) << " bytes past the end of " << name;
  os << " (" << a.bytes << " bytes at 0x" << std::hex << a.base << ")";
  return os.str();
}

}  // namespace tlmgpu::memory
