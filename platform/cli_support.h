// Pieces the command-line program shares with tools and tests: exit codes,
// error classification, aligned tables and JSON output.
#pragma once

#include <exception>
#include <optional>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "model/exec/kernel_context.h"

namespace tlmgpu::platform::cli {

/// Exit codes of every tlmgpu command.
enum ExitCode : int {
  kExitOk = 0,
  kExitFailure = 1,   ///< device fault, failed verification, a run that did not finish
  kExitBadInput = 2,  ///< usage, PTX errors, launch file, launch or configuration errors
};

/// The exit code an exception escaping a command stands for.
int exit_code_for(const std::exception& e);

/// The message for an exception; a ptx::PtxError gives every diagnostic, one
/// per line (with its source line).
std::string describe_error(const std::exception& e);

std::optional<exec::DivergenceMode> parse_divergence(const std::string& name);
const char* divergence_name(exec::DivergenceMode mode);
/// The divergence handling of a run that names none: the configuration's
/// `gpu.divergence`, or with "workload" IPDOM when `ipdom_safe`, else ITS.
exec::DivergenceMode default_divergence(const std::string& config_divergence, bool ipdom_safe);

/// Two columns, the first padded to its widest entry.
using Rows = std::vector<std::pair<std::string, std::string>>;
void print_rows(std::ostream& out, const Rows& rows, const std::string& indent = "");

/// Writes `j` pretty-printed. Throws std::runtime_error when the file cannot be written.
void write_json_file(const std::string& path, const nlohmann::ordered_json& j);

/// A rate or duration with a few significant digits ("1.23e+07", "0.0123").
std::string format_number(double value);

}  // namespace tlmgpu::platform::cli
