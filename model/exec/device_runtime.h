// The CUDA device runtime functions nvcc calls as `.extern .func`: vprintf,
// malloc, free and __assertfail, run by the model as built-in calls.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "model/ptx/ptx_ir.h"

namespace tlmgpu::exec {

class Warp;

/// The device heap (cudaLimitMallocHeapSize): first fit over a free list
/// ordered by address, so the same calls in the same order give the same
/// addresses; blocks are 16-byte aligned and sized as malloc's alignment.
class DeviceHeap {
 public:
  static constexpr uint64_t kAlignment = 16;
  /// Heap at [base, base + bytes); forgets earlier blocks.
  void reset(uint64_t base, uint64_t bytes);
  bool ready() const { return bytes_ != 0; }
  uint64_t base() const { return base_; }
  uint64_t bytes() const { return bytes_; }
  /// Returns the block's address, or 0 when no free block is large enough
  /// (or `bytes` is 0).
  uint64_t allocate(uint64_t bytes);
  /// false when `address` is not a live block's start (free(0) is the caller's no-op).
  bool release(uint64_t address);
  uint64_t bytes_in_use() const { return in_use_; }

 private:
  uint64_t base_ = 0, bytes_ = 0, in_use_ = 0;
  std::map<uint64_t, uint64_t> free_;   // address -> size
  std::map<uint64_t, uint64_t> live_;   // address -> size
};

/// One printf's formatted text and who printed it.
struct PrintfRecord {
  uint64_t cta = 0;       ///< linear CTA id
  uint32_t thread = 0;    ///< linear thread id in the CTA
  uint64_t sequence = 0;  ///< execution order (keeps one thread's printfs in order)
  std::string text;
};

/// Device-side runtime state of a GpuDevice: the heap (kept across
/// launches, as CUDA's) and the printf records of the running launch.
class DeviceRuntime {
 public:
  DeviceHeap heap;
  void record_printf(uint64_t cta, uint32_t thread, std::string text);
  /// The launch's printf output in CUDA-like order: by linear CTA id, then
  /// linear thread id, then each thread's own order; clears the records.
  std::string take_launch_output();

 private:
  std::vector<PrintfRecord> records_;
  uint64_t next_sequence_ = 0;
};

/// Formats CUDA's printf: `format` with arguments read from `args` (the
/// argument buffer nvcc builds: each argument aligned to its size, float
/// promoted to double, char/short to int). `read_string(address)` reads a
/// %s argument. Returns the number of arguments consumed (vprintf's result).
int format_device_printf(const std::string& format, const std::vector<uint8_t>& args,
                         const std::function<std::string(uint64_t)>& read_string, std::string& out);

/// Runs a built-in call for the lanes in `mask` (lowest lane first).
/// Throws DeviceFault for an assertion, a bad free or a bad pointer.
void execute_builtin_call(const ptx::CallSite& site, uint32_t mask, Warp& warp);

}  // namespace tlmgpu::exec
