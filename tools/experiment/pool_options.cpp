#include "tools/experiment/pool_options.h"

#include <algorithm>
#include <filesystem>
#include <thread>

namespace experiment {

const char* const kPoolOptionsHelp =
    "  --jobs N            simulations at a time (default: number of cores; with\n"
    "                      --launcher slurm: array elements at a time, default no limit)\n"
    "  --threads N         host threads per run (tlmgpu --threads; the statistics are\n"
    "                      the same for every N; default: the cores left to each of\n"
    "                      --jobs runs, at most 4; with --launcher slurm: 1)\n"
    "  --force             rerun every run, also those an earlier invocation with\n"
    "                      this --out finished (default: resume, reusing them)\n"
    "  --launcher L        local (default) or slurm: one sbatch job array, waited for\n"
    "  --slurm-partition P sbatch --partition (default: the cluster's default)\n"
    "  --slurm-time T      sbatch --time per run, e.g. 30:00 or 2:00:00\n"
    "  --slurm-mem M       sbatch --mem per run, e.g. 2G\n"
    "  --slurm-account A   sbatch --account\n"
    "  --tlmgpu PATH       the tlmgpu binary (default: tlmgpu next to this program)\n"
    "  --dry-run           print the tlmgpu command lines and exit\n"
    "  --verbose           print each command line as it starts\n";

bool take_pool_option(int argc, char** argv, int& i, PoolOptions& o) {
  const std::string a = argv[i];
  auto value = [&]() -> std::string {
    if (i + 1 >= argc) throw UsageError(a + " needs a value");
    return argv[++i];
  };
  auto nonempty_value = [&]() -> std::string {
    std::string v = value();
    if (v.empty()) throw UsageError(a + " needs a non-empty value");
    return v;
  };
  if (a == "--jobs") {
    const std::string v = value();
    try {
      std::size_t used = 0;
      const long n = std::stol(v, &used);
      if (used != v.size() || n < 1 || n > 1024) throw std::invalid_argument(v);
      o.jobs = static_cast<unsigned>(n);
      o.jobs_given = true;
    } catch (const std::exception&) {
      throw UsageError("--jobs '" + v + "': expected a number 1..1024");
    }
  } else if (a == "--threads") {
    const std::string v = value();
    try {
      std::size_t used = 0;
      const long n = std::stol(v, &used);
      if (used != v.size() || n < 1 || n > 256) throw std::invalid_argument(v);
      o.threads = static_cast<unsigned>(n);
    } catch (const std::exception&) {
      throw UsageError("--threads '" + v + "': expected a number 1..256");
    }
  } else if (a == "--tlmgpu") {
    o.tlmgpu = value();
  } else if (a == "--force") {
    o.force = true;
  } else if (a == "--dry-run") {
    o.dry_run = true;
  } else if (a == "--verbose") {
    o.verbose = true;
  } else if (a == "--launcher") {
    o.launcher = value();
    if (o.launcher != "local" && o.launcher != "slurm")
      throw UsageError("--launcher '" + o.launcher + "': expected local or slurm");
  } else if (a == "--slurm-partition") {
    o.slurm.partition = nonempty_value();
    o.slurm_option = a;
  } else if (a == "--slurm-time") {
    o.slurm.time = nonempty_value();
    o.slurm_option = a;
  } else if (a == "--slurm-mem") {
    o.slurm.mem = nonempty_value();
    o.slurm_option = a;
  } else if (a == "--slurm-account") {
    o.slurm.account = nonempty_value();
    o.slurm_option = a;
  } else {
    return false;
  }
  return true;
}

void finish_pool_options(PoolOptions& o, const char* argv0) {
  if (!o.slurm_option.empty() && o.launcher != "slurm") throw UsageError(o.slurm_option + " needs --launcher slurm");
  if (o.launcher == "slurm" && o.jobs_given) o.slurm.array_limit = o.jobs;
  const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
  if (o.jobs == 0) o.jobs = cores;
  // Runs in parallel use the cores better than threads inside one run (whose
  // cycles synchronise the threads); threads take the cores the runs leave,
  // up to the point where more stop paying (docs/PERFORMANCE.md, "Parallel SMs").
  constexpr unsigned kMaxDefaultThreads = 4;
  if (o.threads == 0) o.threads = o.launcher == "slurm" ? 1 : std::clamp(cores / o.jobs, 1u, kMaxDefaultThreads);
  o.slurm.cpus_per_task = o.threads;
  if (o.tlmgpu.empty()) {
    // The build puts every program in one directory.
    namespace fs = std::filesystem;
    std::error_code ec;
    const fs::path self = fs::read_symlink("/proc/self/exe", ec);
    o.tlmgpu = ((ec ? fs::path(argv0) : self).parent_path() / "tlmgpu").string();
  }
}

}  // namespace experiment
