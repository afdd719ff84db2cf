// The two columns that let a reader reproduce and compare a sweep's runs: the
// command line and the hash of the effective configuration. The run pool is
// gaining the same fields (RunResult::command, config_hash); until it fills
// them, tlmgpu_sweep does it here, in this one place.
#pragma once

#include <cstdint>
#include <string>

#include "tools/paper_comparison/paper_comparison.h"

namespace sweep {

// FNV-1a, 64 bit: a stable hash independent of the host and the library.
std::uint64_t fnv1a64(const std::string& text);
std::string hex64(std::uint64_t v);  // 16 lower-case hex digits

struct RunDescription {
  std::string command;      // `TLMGPU run ...` without --stats
  std::string config_hash;  // fnv1a64 of that command's --dump-config output
};

// Asks TLMGPU for the run's effective configuration. Throws
// std::runtime_error naming the command when --dump-config fails.
RunDescription describe_run(const std::string& tlmgpu, const paper_cmp::RunSpec& spec, const std::string& size);

}  // namespace sweep
