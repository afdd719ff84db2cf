// The LaunchFile facade: launch_file_parser.cpp turns the text into a checked
// plan, launch_file_runner.cpp runs it on a device.
#include "platform/launch_file.h"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "platform/launch_file_parser.h"
#include "platform/launch_file_plan.h"
#include "platform/launch_file_runner.h"

namespace tlmgpu::platform {

namespace fs = std::filesystem;

LaunchFile::LaunchFile(std::unique_ptr<launch_file::LaunchPlan> plan) : plan_(std::move(plan)) {}
LaunchFile::LaunchFile(LaunchFile&&) noexcept = default;
LaunchFile& LaunchFile::operator=(LaunchFile&&) noexcept = default;
LaunchFile::~LaunchFile() = default;

LaunchFile LaunchFile::load(const std::string& path) {
  std::error_code ec;
  if (!fs::is_regular_file(path, ec)) throw LaunchFileError("launch file " + path + ": file not found");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw LaunchFileError("launch file " + path + ": cannot open: " + std::strerror(errno));
  std::string text((std::istreambuf_iterator<char>(in)), {});
  std::string dir = fs::path(path).parent_path().string();
  return parse(text, path, dir.empty() ? "." : dir);
}

LaunchFile LaunchFile::parse(const std::string& text, const std::string& display_name, const std::string& base_dir) {
  return LaunchFile(
      std::make_unique<launch_file::LaunchPlan>(launch_file::parse_launch_plan(text, display_name, base_dir)));
}

std::optional<exec::DivergenceMode> LaunchFile::divergence() const { return plan_->divergence; }
const std::string& LaunchFile::ptx_path() const { return plan_->ptx_path; }
const std::string& LaunchFile::display_name() const { return plan_->display_name; }

LaunchFileResult LaunchFile::run(GpuDevice& device, const LaunchFileOptions& options) const {
  return launch_file::run_launch_plan(*plan_, device, options);
}

}  // namespace tlmgpu::platform
