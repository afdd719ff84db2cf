// The class of the instruction at the head of a warp's buffer, as warp
// scheduler policies see it. In the bottom layer because both the policies
// and the instruction traces (model/trace) classify instructions this way;
// the namespace is the schedulers', who read it.
#pragma once

#include <cstdint>

namespace tlmgpu::core {

/// Long operations for LFWS (seed 004): global / local / texture loads and stores.
enum class HeadClass : uint8_t { None, ShortAlu, Sfu, Dp, SharedMem, LongMem, Control, Barrier };

}  // namespace tlmgpu::core
