// Functional-mode speed: warp instructions per host second, per workload and
// divergence mode, at the workloads' default size. Prints a Markdown table
// for docs/PERFORMANCE.md.
//
//   build/tlmgpu_bench [--size small|default] [--repeat N] [workload...]
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <systemc>

#include "workloads/workload.h"

using namespace tlmgpu;

int sc_main(int argc, char* argv[]) {
  workloads::Size size = workloads::Size::Default;
  int repeat = 3;
  std::vector<std::string> names;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--size" && i + 1 < argc) {
      size = std::string(argv[++i]) == "small" ? workloads::Size::Small : workloads::Size::Default;
    } else if (a == "--repeat" && i + 1 < argc) {
      repeat = std::max(1, std::atoi(argv[++i]));
    } else if (a == "--help") {
      std::puts("usage: tlmgpu_bench [--size small|default] [--repeat N] [workload...]");
      return 0;
    } else {
      names.push_back(a);
    }
  }
  if (names.empty()) names = {"vector_add", "transactions", "sgemm", "hotspot", "bfs", "blackscholes"};

  std::printf("| workload | divergence | warp insts | best host s in kernels | warp insts / s |\n");
  std::printf("|---|---|---:|---:|---:|\n");
  for (const std::string& name : names) {
    const workloads::WorkloadInfo* info = workloads::find_workload(name);
    if (info == nullptr) {
      std::fprintf(stderr, "unknown workload '%s'\n", name.c_str());
      return 2;
    }
    for (exec::DivergenceMode mode : {exec::DivergenceMode::Ipdom, exec::DivergenceMode::Its}) {
      if (mode == exec::DivergenceMode::Ipdom && !info->ipdom_safe) continue;
      double best = 1e30;
      uint64_t insts = 0;
      for (int r = 0; r < repeat; ++r) {
        platform::DeviceOptions options;
        options.divergence = mode;
        platform::GpuDevice device(options);
        auto w = info->make();
        const workloads::WorkloadResult res = w->run(device, size, 1);
        const double s = device.stats().kernel_host_seconds;
        if (!res.verified) {
          std::fprintf(stderr, "%s failed verification: %s\n", name.c_str(), res.detail.c_str());
          return 1;
        }
        best = std::min(best, s);
        insts = device.stats().warp_insts;
      }
      std::printf("| %s | %s | %llu | %.3f | %.1f M |\n", name.c_str(),
                  mode == exec::DivergenceMode::Ipdom ? "ipdom" : "its", static_cast<unsigned long long>(insts),
                  best, double(insts) / best / 1e6);
      std::fflush(stdout);
    }
  }
  return 0;
}
