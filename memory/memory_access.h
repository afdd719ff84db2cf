// What one warp memory instruction accessed, lane by lane: the executor
// records it (exec::Warp::last_access) and the coalescer turns it into line
// requests. Here, below the executor, so that the memory system needs
// nothing of it; it is expressed in the PTX state spaces and warp size
// (model/ptx/ptx_types.h, not the whole IR).
#pragma once

#include <array>
#include <cstdint>

#include "model/ptx/ptx_types.h"

namespace tlmgpu::memory {

/// Addresses of one warp memory instruction, per lane; the timing model's
/// coalescer reads it. Filled only when Warp::set_record_accesses(true).
struct MemAccess {
  ptx::StateSpace space = ptx::StateSpace::Global;  ///< resolved (never Generic)
  uint32_t mask = 0;          ///< lanes that accessed
  uint8_t bytes = 0;          ///< per lane (vector loads: total)
  bool is_store = false;
  bool is_atomic = false;
  /// Runs of `bytes` each lane accesses, the k-th at addr + k * segment_stride
  /// (more than one only for wmma fragments that are strided in memory).
  uint8_t segments = 1;
  uint64_t segment_stride = 0;
  std::array<uint64_t, ptx::kWarpSize> addr{};
};

}  // namespace tlmgpu::memory
