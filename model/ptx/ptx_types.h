// The few PTX facts the layers below the executor need (the memory system's
// view of an access): the warp size and the state spaces. The whole decoded
// IR is model/ptx/ptx_ir.h, which includes this.
#pragma once

#include <cstdint>

namespace tlmgpu::ptx {

constexpr int kWarpSize = 32;

enum class StateSpace : uint8_t {
  Generic, Global, Shared, Local, Param /* kernel parameters */, Const, Reg,
};

}  // namespace tlmgpu::ptx
