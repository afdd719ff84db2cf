// The memory manager of a TLM initiator inside the GPU: a pool of
// transactions, each a generic payload with its MemRequestExtension, its data
// buffer and its byte-enable buffer, reused once every holder released it.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <vector>

#include <tlm>

#include "memory/device_memory.h"
#include "memory/memory_interfaces.h"

namespace tlmgpu::memory {

/// The base protocol's memory management (IEEE 1666 TLM-2.0 "memory
/// management"): take() hands out an Item whose payload has this pool as its
/// mm and a reference count of 1 (the initiator's); every module that keeps
/// the payload after its nb_transport call returns acquires it and releases
/// it when done; the last release calls free(), which puts the Item back. The
/// extension is sticky: set once when the Item is made (its tag is the Item's
/// index, by which the owner finds the Item of an answer) and deleted with
/// the payload. Items are never freed before the pool, so steady state
/// allocates nothing.
///
/// A payload that knows its place in its pool (found without an extension lookup).
struct PooledPayload : tlm::tlm_generic_payload {
  uint32_t index = 0;
};

/// Item: a struct with `PooledPayload payload`, `MemRequestExtension* ext`
/// and `std::vector<uint8_t> data, byte_enables`.
template <class Item>
class PayloadPool final : public tlm::tlm_mm_interface {
 public:
  /// `buffer_bytes`: the largest data length of a payload (a cache line).
  explicit PayloadPool(uint32_t buffer_bytes) : buffer_bytes_(buffer_bytes) {}
  PayloadPool(const PayloadPool&) = delete;
  PayloadPool& operator=(const PayloadPool&) = delete;

  Item& take() {
    if (free_.empty()) grow();
    Item* item = free_.back();
    free_.pop_back();
    item->payload.acquire();
    return *item;
  }
  /// The Item of a payload this pool made, else nullptr.
  Item* find(const tlm::tlm_generic_payload& payload) const {
    const auto* ext = payload.get_extension<MemRequestExtension>();
    if (!ext || ext->tag >= items_.size() || &items_[ext->tag]->payload != &payload) return nullptr;
    return items_[ext->tag].get();
  }
  /// Called by the payload's last release() (only this pool's payloads have it as their mm).
  void free(tlm::tlm_generic_payload* payload) override {
    free_.push_back(items_[static_cast<PooledPayload*>(payload)->index].get());
  }
  uint32_t buffer_bytes() const { return buffer_bytes_; }

 private:
  void grow() {
    items_.push_back(std::make_unique<Item>());
    Item* item = items_.back().get();
    item->ext = new MemRequestExtension;
    item->ext->tag = uint32_t(items_.size() - 1);
    item->payload.index = item->ext->tag;
    item->payload.set_mm(this);
    item->payload.set_extension(item->ext);  // sticky: deleted with the payload
    item->data.assign(buffer_bytes_, 0);
    item->byte_enables.assign(buffer_bytes_, 0);
    free_.push_back(item);
  }

  uint32_t buffer_bytes_;
  std::vector<std::unique_ptr<Item>> items_;
  std::vector<Item*> free_;
};

/// Sets the byte range of a request for the 32-byte units `units` of the line
/// at `line_addr` (bit i: bytes [32 i, 32 i + 32)): the address of the first
/// unit, the length up to the last unit's end, and byte enables only when
/// units inside that span are not requested (TLM_BYTE_DISABLED there).
/// `data` and `byte_enables` hold at least the line.
inline void set_sector_span(tlm::tlm_generic_payload& p, uint64_t line_addr, uint32_t units, uint8_t* data,
                            uint8_t* byte_enables) {
  constexpr uint32_t kUnit = 32;
  const uint32_t first = units ? uint32_t(__builtin_ctz(units)) : 0;
  const uint32_t last = units ? 31 - uint32_t(__builtin_clz(units)) : 0;
  const uint32_t length = (last - first + 1) * kUnit;
  p.set_address(line_addr + uint64_t(first) * kUnit);
  p.set_data_ptr(data);
  p.set_data_length(length);
  p.set_streaming_width(length);
  const uint32_t span = units >> first;
  if (units == 0 || (span & (span + 1)) == 0) {  // contiguous
    p.set_byte_enable_ptr(nullptr);
    p.set_byte_enable_length(0);
    return;
  }
  for (uint32_t u = 0; u <= last - first; ++u)
    std::memset(byte_enables + u * kUnit, (span >> u) & 1 ? TLM_BYTE_ENABLED : TLM_BYTE_DISABLED, kUnit);
  p.set_byte_enable_ptr(byte_enables);
  p.set_byte_enable_length(length);
}

/// Write data: the bytes of [address, address + length) in functional memory
/// `source` as the request leaves (zero where source has none, or with no
/// source). `global_address` is where the payload's first byte lies in the
/// global address space (the payload's own address may be channel-local).
inline void copy_write_data(GlobalMemoryIf* source, uint64_t global_address, tlm::tlm_generic_payload& p) {
  uint8_t* data = p.get_data_ptr();
  const uint32_t length = p.get_data_length();
  if (source)
    if (const uint8_t* whole = source->translate(global_address, length)) {
      std::memcpy(data, whole, length);
      return;
    }
  // Part of the span may lie outside every allocation (the end of a buffer
  // whose size is not a multiple of the line): unit by unit.
  for (uint32_t off = 0; off < length; off += 32) {
    const uint8_t* unit = source ? source->translate(global_address + off, 32) : nullptr;
    if (unit)
      std::memcpy(data + off, unit, 32);
    else
      std::memset(data + off, 0, 32);
  }
}

}  // namespace tlmgpu::memory
