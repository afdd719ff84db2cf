// Simulation speed: warp instructions per host second, per workload and
// divergence mode, in functional, timing or LT mode, at the workloads' default
// size. Prints a Markdown table for docs/PERFORMANCE.md.
//
//   build/tlmgpu_bench [--mode functional|timing|lt] [--size small|default|paper] [--repeat N]
//                      [--threads N] [--preset NAME] [workload...]
//
// Timing mode runs a preset (gtx480 unless --preset names another) under
// lrr, each workload in the preset's default divergence handling (SystemC
// elaborates one GPU per process, so every workload and repeat shares it); LT mode estimates
// the cycles of the same preset, and runs the same workloads by default, so
// that the two rates compare. Repeats must give the
// same warp instructions and cycles; the best host time counts, since the
// host's own speed drifts. The first line names the host: figures from
// different processors are not comparable. --threads N: timing mode's SMs
// evaluated on N host threads (host.threads).
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include <systemc>

#include "platform/cli_support.h"
#include "platform/config_keys.h"
#include "platform/presets.h"
#include "platform/systemc_banner.h"
#include "workloads/workload.h"

using namespace tlmgpu;

namespace {

constexpr const char* kUsage =
    "usage: tlmgpu_bench [--mode functional|timing|lt] [--size small|default|paper] [--repeat N] [--threads N] "
    "[--preset NAME] [workload...]";

int usage_error(const std::string& what) {
  std::fprintf(stderr, "tlmgpu_bench: %s\n%s\n", what.c_str(), kUsage);
  return 2;
}

// The processor's name as /proc/cpuinfo gives it ("unknown" elsewhere).
std::string host_processor() {
  std::ifstream in("/proc/cpuinfo");
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("model name", 0) != 0) continue;
    const size_t colon = line.find(':');
    if (colon != std::string::npos && colon + 2 <= line.size()) return line.substr(colon + 2);
  }
  return "unknown";
}

}  // namespace

int sc_main(int argc, char* argv[]) {
  workloads::Size size = workloads::Size::Default;
  int repeat = 3;
  uint32_t threads = 1;
  std::string preset = "gtx480";
  platform::SimulationMode sim_mode = platform::SimulationMode::Functional;
  std::vector<std::string> names;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--help") {
      std::puts(kUsage);
      return 0;
    } else if (a == "--size" || a == "--repeat" || a == "--mode" || a == "--threads" || a == "--preset") {
      if (i + 1 == argc) return usage_error(a + " needs a value");
      const std::string v = argv[++i];
      if (a == "--preset") {
        try {
          (void)platform::preset_config(v);
        } catch (const std::exception& e) {
          return usage_error(std::string("--preset: ") + e.what());
        }
        preset = v;
      } else if (a == "--size") {
        if (!workloads::parse_size(v, size)) return usage_error("--size " + v + ": allowed are small, default, paper");
      } else if (a == "--threads") {
        char* end = nullptr;
        const unsigned long n = std::strtoul(v.c_str(), &end, 10);
        if (v.empty() || *end != '\0' || n < 1 || n > 256)
          return usage_error("--threads " + v + ": allowed is a whole number from 1 to 256");
        threads = uint32_t(n);
      } else if (a == "--mode") {
        if (v != "functional" && v != "timing" && v != "lt")
          return usage_error("--mode " + v + ": allowed are functional, timing, lt");
        sim_mode = v == "timing" ? platform::SimulationMode::Timing
                   : v == "lt"   ? platform::SimulationMode::Lt
                                 : platform::SimulationMode::Functional;
      } else {
        char* end = nullptr;
        const long n = std::strtol(v.c_str(), &end, 10);
        if (v.empty() || *end != '\0' || n < 1 || n > 1000)
          return usage_error("--repeat " + v + ": allowed is a whole number from 1 to 1000");
        repeat = int(n);
      }
    } else if (a.rfind("--", 0) == 0) {
      return usage_error("unknown option " + a);
    } else {
      names.push_back(a);
    }
  }
  // Timing and LT modes report cycles and run one divergence mode per workload.
  const bool timed = sim_mode != platform::SimulationMode::Functional;
  const char* const mode_name = sim_mode == platform::SimulationMode::Timing ? "Timing"
                                : sim_mode == platform::SimulationMode::Lt ? "LT"
                                                                           : "Functional";
  if (names.empty()) {
    names = timed ? std::vector<std::string>{"vector_add", "transactions", "sgemm"}
                   : std::vector<std::string>{"vector_add", "transactions", "sgemm", "hotspot", "bfs", "blackscholes"};
  }

  if (threads > 1 && sim_mode != platform::SimulationMode::Timing)
    return usage_error("--threads applies to --mode timing only");
  if (preset != "gtx480" && !timed) return usage_error("--preset applies to --mode timing and lt only");
  const core::GpuConfig config = platform::preset_config(preset);
  const std::string preset_note = timed ? ", preset " + preset : "";
  std::printf("Host: %s, %u CPUs; %u used. %s mode%s, best of %d.\n\n", host_processor().c_str(),
              std::thread::hardware_concurrency(), threads, mode_name, preset_note.c_str(), repeat);
  std::printf("| workload | divergence | warp insts | %sbest host s in kernels | warp insts / s |\n",
              timed ? "cycles | " : "");
  std::printf("|---|---|---:|%s---:|---:|\n", timed ? "---:|" : "");
  for (const std::string& name : names) {
    const workloads::WorkloadInfo* info = workloads::find_workload(name);
    if (info == nullptr) {
      std::fprintf(stderr, "unknown workload '%s'\n", name.c_str());
      return 2;
    }
    const exec::DivergenceMode timed_mode = platform::cli::default_divergence(config.divergence, info->ipdom_safe);
    for (exec::DivergenceMode mode : {exec::DivergenceMode::Ipdom, exec::DivergenceMode::Its}) {
      if (mode == exec::DivergenceMode::Ipdom && !info->ipdom_safe) continue;
      if (timed && mode != timed_mode) continue;
      double best = 1e30;
      uint64_t insts = 0, cycles = 0;
      for (int r = 0; r < repeat; ++r) {
        platform::DeviceOptions options;
        options.divergence = mode;
        if (timed) {
          options.mode = sim_mode;
          options.config = config;
          options.config.host_threads = threads;
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
        const uint64_t run_insts = device.stats().warp_insts, run_cycles = device.stats().sim_cycles;
        if (r > 0 && (run_insts != insts || run_cycles != cycles)) {
          std::fprintf(stderr, "%s: repeat %d gave %llu warp instructions in %llu cycles, the first %llu in %llu\n",
                       name.c_str(), r + 1, static_cast<unsigned long long>(run_insts),
                       static_cast<unsigned long long>(run_cycles), static_cast<unsigned long long>(insts),
                       static_cast<unsigned long long>(cycles));
          return 1;
        }
        insts = run_insts;
        cycles = run_cycles;
      }
      std::printf("| %s | %s | %llu | ", name.c_str(), mode == exec::DivergenceMode::Ipdom ? "ipdom" : "its",
                  static_cast<unsigned long long>(insts));
      if (timed) std::printf("%llu | ", static_cast<unsigned long long>(cycles));
      std::printf("%.3f | %.3f M |\n", best, double(insts) / best / 1e6);
      std::fflush(stdout);
    }
  }
  return 0;
}
