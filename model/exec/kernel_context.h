// What every warp of one kernel launch shares, and the device fault it can raise.
#pragma once

#include <array>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "memory/device_memory.h"
#include "model/ptx/ptx_ir.h"

namespace tlmgpu::exec {

class TextureTable;
class DeviceRuntime;

struct Dim3 {
  uint32_t x = 1, y = 1, z = 1;
  uint64_t count() const { return uint64_t(x) * y * z; }
  bool operator==(const Dim3& o) const { return x == o.x && y == o.y && z == o.z; }
};

enum class DivergenceMode : uint8_t {
  Ipdom,  ///< SIMT reconvergence stack at immediate post-dominators (Fermi-era)
  Its,    ///< independent thread scheduling (Volta and later)
};

/// Set up once per launch by the platform; read-only while warps run.
struct KernelContext {
  const ptx::Module* module = nullptr;
  const ptx::Function* kernel = nullptr;
  const uint8_t* params = nullptr;            ///< kernel parameter buffer
  memory::GlobalMemoryIf* global = nullptr;
  const uint8_t* const_bank = nullptr;
  uint32_t const_bytes = 0;
  Dim3 grid, block;
  /// Shared memory a CTA is charged (limits, occupancy): the kernel's own
  /// static shared memory + the launch's dynamic.
  uint32_t shared_bytes = 0;
  /// The CTA's shared address space: the module's static layout (every
  /// kernel's variables) + dynamic. At least shared_bytes.
  uint32_t shared_window_bytes = 0;
  uint32_t local_bytes_per_thread = 0;
  /// cudaFuncAttributePreferredSharedMemoryCarveout: percent of the largest
  /// shared-memory carve-out the kernel prefers (0..100); -1: none, the
  /// carve-out follows the kernel's shared memory (platform/occupancy.h).
  int preferred_shared_carveout = -1;
  DivergenceMode divergence = DivergenceMode::Ipdom;
  uint32_t num_sms = 1;
  uint32_t grid_id = 0;
  const uint64_t* clock = nullptr;            ///< current cycle for %clock (nullptr: instruction count)
  const TextureTable* textures = nullptr;     ///< the device's texture/surface objects (tex, suld, sust)
  /// printf records and the malloc heap (model/exec/device_runtime.h);
  /// nullptr: device runtime calls fault.
  DeviceRuntime* runtime = nullptr;
  /// %envreg0..31. A cooperative launch puts its grid-barrier workspace's
  /// address in %envreg1 (high word) and %envreg2 (low word), where the
  /// code nvcc emits for cooperative_groups::this_grid() reads it; 0 otherwise.
  std::array<uint32_t, 32> envreg{};
  /// cudaLaunchCooperativeKernel: every CTA of the grid is resident at once.
  bool cooperative = false;
};

enum class FaultKind : uint8_t { OutOfBounds, Misaligned, Trap, Deadlock, NoForwardProgress, Unsupported, AssertionFailed };

/// Where a fault of one thread happened (a peripheral's error registers).
struct FaultSite {
  bool known = false;    ///< false for faults of the whole kernel (deadlock, watchdog)
  uint64_t address = 0;  ///< the faulting address (0 when the fault has none)
  uint32_t pc = 0;       ///< instruction index x 8, as reports print it
  uint64_t cta = 0;      ///< linear CTA id in the grid
  uint32_t thread = 0;   ///< linear thread id in the CTA
};

/// A fault that ends the kernel (exit code 1). what() is the full report.
class DeviceFault : public std::runtime_error {
 public:
  DeviceFault(FaultKind kind, const std::string& report, const FaultSite& site = {})
      : std::runtime_error(report), kind_(kind), site_(site) {}
  FaultKind kind() const { return kind_; }
  const FaultSite& site() const { return site_; }
  /// What the launch executed before it ended, every warp's instructions
  /// counted (the engine that ran it fills them in on the way out), so that
  /// statistics report what ran.
  uint64_t executed_warp_insts() const { return executed_warp_insts_; }
  uint64_t executed_thread_insts() const { return executed_thread_insts_; }
  void set_executed(uint64_t warp_insts, uint64_t thread_insts) {
    executed_warp_insts_ = warp_insts;
    executed_thread_insts_ = thread_insts;
  }
  /// Timing and LT modes: the cycles the launch ran (or was estimated to
  /// run) up to the fault.
  uint64_t executed_cycles() const { return executed_cycles_; }
  void set_executed_cycles(uint64_t cycles) { executed_cycles_ = cycles; }

 private:
  FaultKind kind_;
  FaultSite site_;
  uint64_t executed_warp_insts_ = 0, executed_thread_insts_ = 0;
  uint64_t executed_cycles_ = 0;
};

}  // namespace tlmgpu::exec
