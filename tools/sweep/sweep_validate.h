// The checks only tlmgpu can answer: which workloads, presets and scheduler
// policies exist, and whether each scheduler's parameters and each [set]
// value are valid (tlmgpu's own --dump-config check). Done before any run, so
// that a typo costs seconds rather than a failed sweep.
#pragma once

#include <string>

#include "tools/sweep/sweep_spec.h"

namespace sweep {

// Throws SpecError naming the spec line, with tlmgpu's message where it gave
// one; std::runtime_error when tlmgpu itself cannot be asked.
void check_against_tlmgpu(const SweepSpec& spec, const std::string& tlmgpu);

// When the spec has programs: that this tlmgpu has the `exec` command that
// runs them. Throws SpecError naming the first program's line.
void check_exec(const SweepSpec& spec, const std::string& tlmgpu);

}  // namespace sweep
