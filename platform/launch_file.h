// Launch files: run any PTX kernel from a JSON description (struct types,
// buffers, symbols, launches, host loops and copies, dumps, expected output
// and expected faults) without writing C++.
// The schema is documented in docs/LAUNCH_FILE.md.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "model/exec/kernel_context.h"
#include "platform/gpu_device.h"

namespace tlmgpu::platform {

namespace launch_file {
struct LaunchPlan;  // platform/launch_file_plan.h
}

/// A mistake in a launch file: JSON syntax, a missing or unknown key, a wrong
/// type, an unknown buffer or kernel, a missing input file. Bad input (exit 2).
/// what() reads "launch file F: key.path[i]: message".
class LaunchFileError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// The launch file was valid but its run did not finish as described: a
/// repeat group reached max_iterations with its flag still set, or an
/// expected device fault did not happen (or a different one did). Exit 1.
class LaunchFileRunError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct LaunchFileResult;

struct LaunchFileOptions {
  /// Base directory for relative dump paths; empty: the launch file's directory.
  std::string output_dir;
  /// When set, also receives the result up to the point where run() throws
  /// (a fault nothing expects, a repeat limit), so the caller can report the
  /// launches that ran, the faulted one included.
  LaunchFileResult* result_on_error = nullptr;
};

/// Totals of one kernel over the whole run (a kernel in a repeat group is
/// launched once per iteration). A launch that ends in a device fault counts
/// as a launch, with the instructions it executed before the fault.
struct KernelRecord {
  std::string kernel;
  uint64_t launches = 0;
  uint64_t faulted = 0;  ///< of those launches, the ones that ended in a device fault
  uint64_t warp_insts = 0;
  uint64_t thread_insts = 0;
};

/// A device fault that happened as an `expect_fault` said.
struct ExpectedFaultRecord {
  std::string path;    ///< the expect_fault's key path, e.g. "launches[2].expect_fault"
  std::string kernel;
  std::string kind;    ///< the fault's kind, as expect_fault names it
  std::string what;    ///< the first line of the fault report
};

/// Iterations one repeat group ran (summed when the group sits inside another).
struct RepeatRecord {
  std::string path;  ///< key path of the group, e.g. "launches[1]" or "repeat"
  uint64_t iterations = 0;
};

struct LaunchFileResult {
  /// All expectations held (true when the file has none).
  bool verified = true;
  size_t expectations = 0;
  /// First mismatch, or a short summary.
  std::string detail;
  uint64_t kernel_launches = 0;
  /// Device faults that happened as an `expect_fault` said (the run passes).
  uint64_t expected_faults = 0;
  std::vector<ExpectedFaultRecord> faults_as_expected;  ///< those faults, in order
  std::vector<KernelRecord> kernels;   ///< in order of first launch
  std::vector<RepeatRecord> repeats;   ///< in file order
  std::vector<std::string> dumped;     ///< files written
};

/// A parsed and checked launch file. Every schema error is found by load() /
/// parse(), before anything runs; run() adds the checks that need the PTX
/// module (kernel names, argument count and sizes, symbol names).
class LaunchFile {
 public:
  /// Reads and checks a launch file. Throws LaunchFileError.
  static LaunchFile load(const std::string& path);
  /// Checks launch-file text. `display_name` names it in messages; relative
  /// paths inside are resolved against `base_dir`. Throws LaunchFileError.
  static LaunchFile parse(const std::string& text, const std::string& display_name,
                          const std::string& base_dir);

  LaunchFile(LaunchFile&&) noexcept;
  LaunchFile& operator=(LaunchFile&&) noexcept;
  ~LaunchFile();

  /// The file's "divergence" key, if any (the command line may override it).
  std::optional<exec::DivergenceMode> divergence() const;
  /// The PTX path, resolved against the launch file's directory.
  const std::string& ptx_path() const;
  const std::string& display_name() const;

  /// Loads the PTX into `device`, allocates and fills the buffers, writes the
  /// symbols, runs the launches, dumps and checks. Throws LaunchFileError (bad
  /// input, exit 2), ptx::PtxError (exit 2), exec::DeviceFault (exit 1) and
  /// LaunchFileRunError (exit 1). A failed expectation is not an exception:
  /// see LaunchFileResult::verified.
  LaunchFileResult run(GpuDevice& device, const LaunchFileOptions& options = {}) const;

 private:
  explicit LaunchFile(std::unique_ptr<launch_file::LaunchPlan> plan);
  std::unique_ptr<launch_file::LaunchPlan> plan_;
};

}  // namespace tlmgpu::platform
