// The GPU's global address space: allocations with bounds, as cudaMalloc sees it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace tlmgpu::memory {

/// Functional access to device (global) memory. The executor asks for a host
/// pointer to a byte range (as TLM DMI would give); nullptr means the range is
/// not accessible (outside every allocation, or refused by a SoC's memory).
/// The stand-alone GPU uses DeviceMemory; a SoC build implements this over an
/// initiator socket (platform/soc/tlm_global_memory.h).
///
/// Memory without a direct host pointer (a SoC target that refuses DMI) may
/// answer translate() with a staged copy: it then sets has_staged(), and the
/// executor calls commit_staged() after the instruction (or discard_staged()
/// when the instruction faulted), so the copy's pointer lives for one warp
/// instruction only.
class GlobalMemoryIf {
 public:
  virtual ~GlobalMemoryIf() = default;
  /// Host pointer to [addr, addr+bytes) or nullptr when not accessible as one range.
  virtual uint8_t* translate(uint64_t addr, uint64_t bytes) = 0;

  /// True while translate() has handed out staged copies.
  const bool& has_staged() const { return has_staged_; }
  /// Writes back what the instruction changed in staged copies; false, with
  /// the address, when the memory refused a write.
  virtual bool commit_staged(uint64_t* failed_address);
  virtual void discard_staged() { has_staged_ = false; }
  /// Whether translate() may hand out staged copies (one set for whoever
  /// calls): such a memory is accessed by one SM's instruction at a time, so
  /// the GPU then evaluates its SMs on one host thread.
  virtual bool may_stage() const { return false; }

  /// Host-side copies (module variables, a driver's data): false when some
  /// byte of the range is not accessible.
  virtual bool read(uint64_t addr, void* dst, uint64_t bytes);
  virtual bool write(uint64_t addr, const void* src, uint64_t bytes);
  /// What a fault report should add about addr ("" when nothing).
  virtual std::string describe(uint64_t addr) const;

 protected:
  bool has_staged_ = false;
};

/// Generic-address windows: global addresses are identity-mapped; shared,
/// local and const spaces appear at these bases in the generic space
/// (cvta.SPACE adds the base, cvta.to.SPACE subtracts it).
constexpr uint64_t kSharedWindowBase = 0x00007f0000000000ull;
constexpr uint64_t kLocalWindowBase = 0x00007e0000000000ull;
constexpr uint64_t kConstWindowBase = 0x00007d0000000000ull;
constexpr uint64_t kWindowBytes = 1ull << 32;
/// First address handed out by DeviceMemory::allocate.
constexpr uint64_t kGlobalHeapBase = 0x0000000100000000ull;

class DeviceMemory : public GlobalMemoryIf {
 public:
  DeviceMemory() = default;
  DeviceMemory(const DeviceMemory&) = delete;
  DeviceMemory& operator=(const DeviceMemory&) = delete;

  /// Allocates zeroed device memory; returns its device address (aligned to 256).
  uint64_t allocate(uint64_t bytes, const std::string& label = {});
  /// Makes host memory [host, host + bytes) device memory at the same
  /// address, without copying or owning it (the CUDA runtime's managed and
  /// mapped host memory: host and kernels see the same bytes). The range must
  /// not overlap an allocation; throws std::invalid_argument otherwise.
  void adopt_host_memory(uint8_t* host, uint64_t bytes, const std::string& label = {});
  /// Frees an allocation by its base address; throws std::invalid_argument otherwise.
  void free(uint64_t addr);

  uint8_t* translate(uint64_t addr, uint64_t bytes) override;

  /// Host <-> device copies; throw std::out_of_range outside an allocation.
  void copy_to_device(uint64_t dst, const void* src, uint64_t bytes);
  void copy_from_device(void* dst, uint64_t src, uint64_t bytes);
  void memset(uint64_t dst, uint8_t value, uint64_t bytes);

  /// Where addr lies relative to the nearest allocation at or below it
  /// ("12 bytes past the end of 'c' (64 bytes at 0x...)"): for fault messages.
  std::string describe(uint64_t addr) const override;
  uint64_t bytes_allocated() const { return bytes_allocated_; }

 private:
  /// Allocations come from calloc: large blocks arrive as fresh, already
  /// zero pages instead of being cleared byte by byte.
  struct CallocFree {
    CallocFree() : owned(true) {}
    explicit CallocFree(bool owns) : owned(owns) {}
    bool owned;  ///< false for adopted host memory
    void operator()(uint8_t* p) const;
  };
  struct Allocation {
    uint64_t base = 0;
    uint64_t bytes = 0;
    std::string label;
    std::unique_ptr<uint8_t[], CallocFree> data;
  };
  const Allocation* find(uint64_t addr) const;

  std::map<uint64_t, Allocation> allocations_;  // by base
  uint64_t next_base_ = kGlobalHeapBase;
  uint64_t bytes_allocated_ = 0;
  const Allocation* last_hit_ = nullptr;  // most accesses hit the same buffer again
};

}  // namespace tlmgpu::memory
