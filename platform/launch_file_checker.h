// Launch files: reading JSON values with messages that name the launch file
// and the key path ("launch file F: buffers[1].count: ..."). Every schema
// error the parser and the runner report goes through a Checker.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/exec/kernel_context.h"
#include "platform/launch_file_values.h"

namespace tlmgpu::platform::launch_file {

using json = nlohmann::json;

/// "parent.key", or "key" at the top level.
std::string key_path(const std::string& parent, const std::string& key);
/// "parent[i]".
std::string index_path(const std::string& parent, size_t i);
/// "'s'".
std::string quote(const std::string& s);

class Checker {
 public:
  /// `file` names the launch file in messages; relative file names inside it
  /// are resolved against `base_dir`.
  Checker(std::string file, std::string base_dir) : file_(std::move(file)), base_dir_(std::move(base_dir)) {}

  /// Throws LaunchFileError("launch file F: path: message").
  [[noreturn]] void fail(const std::string& path, const std::string& message) const;

  const json& object(const json& v, const std::string& path) const;
  const json& array(const json& v, const std::string& path) const;

  const json* find(const json& obj, const char* key) const {
    auto it = obj.find(key);
    return it == obj.end() ? nullptr : &*it;
  }

  const json& require(const json& obj, const char* key, const std::string& path) const;

  // Unknown keys are errors: a misspelt optional key would otherwise be
  // silently ignored. "comment" is allowed everywhere.
  void allow_keys(const json& obj, const std::string& path, std::initializer_list<const char*> keys) const;

  std::string string(const json& v, const std::string& path) const;
  uint64_t unsigned_int(const json& v, const std::string& path, uint64_t min, uint64_t max) const;
  double number(const json& v, const std::string& path) const;
  Elem elem(const json& v, const std::string& path) const;
  exec::Dim3 dim3(const json& v, const std::string& path) const;

  // One element value as bits in the element's width.
  uint64_t value_bits(const json& v, Elem e, const std::string& path) const;

  /// `p` resolved against the base directory (absolute paths as given).
  std::string resolve(const std::string& p) const;
  /// The contents of the file the string `v` names.
  std::vector<uint8_t> read_file(const json& v, const std::string& path) const;

  const std::string& file() const { return file_; }
  const std::string& base_dir() const { return base_dir_; }

 private:
  static std::string describe(const json& v);

  std::string file_;
  std::string base_dir_;
};

}  // namespace tlmgpu::platform::launch_file
