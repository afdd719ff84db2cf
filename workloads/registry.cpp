#include <algorithm>
#include <map>

#include "workloads/workload.h"

namespace tlmgpu::workloads {
namespace {
// A function-local static: registration runs from other files' static
// initialisers, in an order the language leaves open.
std::map<std::string, WorkloadInfo>& registry() {
  static std::map<std::string, WorkloadInfo> workloads;
  return workloads;
}
}  // namespace

bool register_workload(WorkloadInfo info) {
  std::string name = info.name;
  return registry().emplace(std::move(name), std::move(info)).second;
}

std::vector<const WorkloadInfo*> all_workloads() {
  std::vector<const WorkloadInfo*> out;
  for (const auto& [name, info] : registry()) out.push_back(&info);
  return out;
}

const char* size_name(Size size) {
  switch (size) {
    case Size::Small: return "small";
    case Size::Default: return "default";
    case Size::Paper: return "paper";
  }
  return "default";
}

bool parse_size(const std::string& name, Size& out) {
  for (Size s : {Size::Small, Size::Default, Size::Paper})
    if (name == size_name(s)) {
      out = s;
      return true;
    }
  return false;
}

const WorkloadInfo* find_workload(const std::string& name) {
  auto it = registry().find(name);
  return it == registry().end() ? nullptr : &it->second;
}

}  // namespace tlmgpu::workloads
