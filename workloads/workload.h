// A workload: a CUDA kernel's committed PTX, a host set-up with deterministic
// inputs, and a check of the device's output against a CPU reference.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "platform/gpu_device.h"

namespace tlmgpu::workloads {

/// Small: seconds in timing mode, for tests. Default: a realistic load for
/// studies. Paper: the grid, block and input size a seed paper states for
/// the benchmark (docs/SCHEDULERS.md lists each with its source); a workload
/// that no paper names runs its default size.
enum class Size { Small, Default, Paper };

/// "small", "default" or "paper".
const char* size_name(Size size);
/// Parses a --size value; false for an unknown name.
bool parse_size(const std::string& name, Size& out);

struct WorkloadResult {
  bool verified = false;
  std::string detail;  ///< on failure: first mismatch; on success: a short summary
};

class Workload {
 public:
  virtual ~Workload() = default;
  /// Loads the PTX, sets up inputs from `seed`, launches, checks the result.
  virtual WorkloadResult run(platform::GpuDevice& device, Size size, uint64_t seed) = 0;
};

struct WorkloadInfo {
  std::string name;
  std::string description;
  /// Runs correctly under the IPDOM stack (false for the spin-lock kernels whose
  /// nvcc -O3 shape livelocks with intra-warp contention).
  bool ipdom_safe = true;
  std::function<std::unique_ptr<Workload>()> make;
};

/// Every workload, sorted by name (the order `tlmgpu list workloads` prints).
std::vector<const WorkloadInfo*> all_workloads();
/// Called from a static initialiser in each workload's .cpp:
///   static const bool registered = register_workload({"name", "...", true, [] { ... }});
bool register_workload(WorkloadInfo info);
/// nullptr when there is no such workload.
const WorkloadInfo* find_workload(const std::string& name);

/// The committed PTX of a workload's .cu, embedded at build time
/// (workloads/<name>/<name>.ptx). Throws std::out_of_range for an unknown name.
const std::string& workload_ptx(const std::string& name);

}  // namespace tlmgpu::workloads
