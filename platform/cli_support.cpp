#include "platform/cli_support.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "model/ptx/ptx_parser.h"
#include "platform/launch_file.h"

namespace tlmgpu::platform::cli {

int exit_code_for(const std::exception& e) {
  if (dynamic_cast<const exec::DeviceFault*>(&e) || dynamic_cast<const LaunchFileRunError*>(&e))
    return kExitFailure;
  return kExitBadInput;
}

std::string describe_error(const std::exception& e) {
  if (const auto* pe = dynamic_cast<const ptx::PtxError*>(&e); pe && !pe->diagnostics().empty()) {
    std::string out;
    for (const ptx::PtxDiagnostic& d : pe->diagnostics()) {
      if (!out.empty()) out += '\n';
      out += d.format();
    }
    return out;
  }
  return e.what();
}

std::optional<exec::DivergenceMode> parse_divergence(const std::string& name) {
  if (name == "ipdom") return exec::DivergenceMode::Ipdom;
  if (name == "its") return exec::DivergenceMode::Its;
  return std::nullopt;
}

const char* divergence_name(exec::DivergenceMode mode) {
  return mode == exec::DivergenceMode::Its ? "its" : "ipdom";
}

exec::DivergenceMode default_divergence(const std::string& config_divergence, bool ipdom_safe) {
  if (auto mode = parse_divergence(config_divergence)) return *mode;
  return ipdom_safe ? exec::DivergenceMode::Ipdom : exec::DivergenceMode::Its;
}

void print_rows(std::ostream& out, const Rows& rows, const std::string& indent) {
  size_t width = 0;
  for (const auto& r : rows) width = std::max(width, r.first.size());
  for (const auto& [key, value] : rows) {
    out << indent << key;
    if (!value.empty()) out << std::string(width - key.size() + 2, ' ') << value;
    out << '\n';
  }
}

void write_json_file(const std::string& path, const nlohmann::ordered_json& j) {
  std::ofstream f(path);
  if (!f) throw std::runtime_error("cannot write " + path + ": " + std::strerror(errno));
  f << j.dump(2) << '\n';
  f.close();
  if (!f) throw std::runtime_error("cannot write " + path);
}

std::string format_number(double value) {
  std::ostringstream os;
  os.precision(value >= 1e6 ? 3 : 4);
  if (value >= 1e6) os << std::scientific;
  os << value;
  return os.str();
}

}  // namespace tlmgpu::platform::cli
