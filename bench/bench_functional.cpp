// Functional-mode speed: warp instructions per host second, per workload and
// divergence mode, at the workloads' default size. Prints a Markdown table
// for docs/PERFORMANCE.md.
//
//   build/tlmgpu_bench [--mode functional|timing] [--size small|default] [--repeat N] [workload...]
//
// Timing mode runs the gtx480 preset under lrr, once per workload (SystemC
// elaborates one GPU per process, so every workload shares it).
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <systemc>

#include "platform/gpu_config.h"
#include "platform/systemc_banner.h"
#include "workloads/workload.h"

using namespace tlmgpu;

int sc_main(int argc, char* argv[]) {
  workloads::Size size = workloads::Size::Default;
  int repeat = 3;
  bool timing = false;
  std::vector<std::string> names;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--size" && i + 1 < argc) {
      size = std::string(argv[++i]) == "small" ? workloads::Size::Small : workloads::Size::Default;
    } else if (a == "--repeat" && i + 1 < argc) {
      repeat = std::max(1, std::atoi(argv[++i]));
    } else if (a == "--mode" && i + 1 < argc) {
      timing = std::string(argv[++i]) == "timing";
    } else if (a == "--help") {
      std::puts("usage: tlmgpu_bench [--mode functional|timing] [--size small|default] [--repeat N] [workload...]");
      return 0;
    } else {
      names.push_back(a);
    }
  }
  if (names.empty()) {
    names = timing ? std::vector<std::string>{"vector_add", "transactions", "sgemm"}
                   : std::vector<std::string>{"vector_add", "transactions", "sgemm", "hotspot", "bfs", "blackscholes"};
  }
  if (timing) repeat = 1;

  std::printf("| workload | divergence | warp insts | %sbest host s in kernels | warp insts / s |\n",
              timing ? "cycles | " : "");
  std::printf("|---|---|---:|%s---:|---:|\n", timing ? "---:|" : "");
  for (const std::string& name : names) {
    const workloads::WorkloadInfo* info = workloads::find_workload(name);
    if (info == nullptr) {
      std::fprintf(stderr, "unknown workload '%s'\n", name.c_str());
      return 2;
    }
    for (exec::DivergenceMode mode : {exec::DivergenceMode::Ipdom, exec::DivergenceMode::Its}) {
      if (mode == exec::DivergenceMode::Ipdom && !info->ipdom_safe) continue;
      if (timing && mode == exec::DivergenceMode::Its && info->ipdom_safe) continue;
      double best = 1e30;
      uint64_t insts = 0, cycles = 0;
      for (int r = 0; r < repeat; ++r) {
        platform::DeviceOptions options;
        options.divergence = mode;
        if (timing) {
          options.mode = platform::SimulationMode::Timing;
          options.config = platform::preset_config("gtx480");
        }
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
        cycles = device.stats().sim_cycles;
      }
      std::printf("| %s | %s | %llu | ", name.c_str(), mode == exec::DivergenceMode::Ipdom ? "ipdom" : "its",
                  static_cast<unsigned long long>(insts));
      if (timing) std::printf("%llu | ", static_cast<unsigned long long>(cycles));
      std::printf("%.3f | %.3f M |\n", best, double(insts) / best / 1e6);
      std::fflush(stdout);
    }
  }
  return 0;
}
