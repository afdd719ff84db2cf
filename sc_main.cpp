// The tlmgpu command line: list, run (a registered workload or a launch
// file), exec (a CUDA program on tlmgpu's libcudart.so.13), check-ptx.
#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <boost/program_options.hpp>
#include <nlohmann/json.hpp>
#include <systemc>

#include "fatbin/program_inspector.h"
#include "model/ptx/ptx_parser.h"
#include "model/trace/warp_trace.h"
#include "platform/cli_support.h"
#include "platform/config_keys.h"
#include "platform/gpu_device.h"
#include "platform/launch_file.h"
#include "platform/presets.h"
#include "platform/run_statistics_report.h"
#include "platform/systemc_banner.h"
#include "platform/timing_gpu.h"
#include "schedulers/policy_registry.h"
#include "workloads/workload.h"

namespace {

namespace po = boost::program_options;
namespace cli = tlmgpu::platform::cli;
using tlmgpu::exec::DivergenceMode;
using json = nlohmann::ordered_json;

constexpr const char* kUsage =
    "usage: tlmgpu <command> [options]\n"
    "\n"
    "commands:\n"
    "  list [workloads|schedulers|presets]  what the model can run\n"
    "  run --workload NAME | --launch FILE  run kernels on the model\n"
    "  exec [options] -- PROGRAM [ARGS]     run a CUDA program (nvcc -cudart shared) on the model\n"
    "  check-ptx FILE...                    parse and decode PTX files\n"
    "  help [COMMAND]                       this text, or a command's options\n"
    "\n"
    "Run 'tlmgpu COMMAND --help' for a command's options.\n"
    "Exit codes: 0 ok, 1 device fault or failed verification, 2 bad input.\n";

// A mistake on the command line: printed with the command's help, exit 2.
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct Command {
  const char* name;
  const char* synopsis;
  po::options_description options;
};

std::string help_text(const Command& c) {
  std::ostringstream os;
  os << "usage: " << c.synopsis << "\n\n" << c.options;
  return os.str();
}

// No prefix guessing: an abbreviation that works today breaks when an option is added.
constexpr int kStyle = po::command_line_style::default_style & ~po::command_line_style::allow_guessing;

// `positional_name` collects every non-option argument as a string list.
po::variables_map parse_options(const Command& c, const std::vector<std::string>& args,
                                const char* positional_name) {
  po::options_description hidden;
  hidden.add_options()(positional_name, po::value<std::vector<std::string>>());
  po::positional_options_description positional;
  positional.add(positional_name, -1);
  po::options_description all;
  all.add(c.options).add(hidden);
  po::variables_map vm;
  try {
    po::store(po::command_line_parser(args).options(all).positional(positional).style(kStyle).run(), vm);
    po::notify(vm);
  } catch (const po::error& e) {
    throw UsageError(e.what());
  }
  return vm;
}

std::string allowed_error(const std::string& option, const std::string& value, const std::string& allowed) {
  return "invalid value '" + value + "' for --" + option + " (allowed: " + allowed + ")";
}

uint64_t parse_u64(const std::string& option, const std::string& text, uint64_t min) {
  bool digits = !text.empty() && text.size() <= 20 && text.find_first_not_of("0123456789") == std::string::npos;
  if (digits) {
    errno = 0;
    unsigned long long v = std::strtoull(text.c_str(), nullptr, 10);
    if (errno == 0 && v >= min) return v;
  }
  throw UsageError("invalid value '" + text + "' for --" + option + " (expected an integer >= " +
                   std::to_string(min) + ")");
}

// Names and descriptions in aligned columns.
template <typename Item>
void print_listing(std::ostream& out, const std::vector<Item>& items, const std::string& indent) {
  cli::Rows rows;
  for (const auto& i : items) rows.emplace_back(i.name, i.description);
  cli::print_rows(out, rows, indent);
}

// ------------------------------------------------------------------ list

Command list_command() {
  Command c{"list", "tlmgpu list [workloads|schedulers|presets]", po::options_description("options")};
  c.options.add_options()("help,h", "show this help");
  return c;
}

int cmd_list(const std::vector<std::string>& args) {
  Command c = list_command();
  po::variables_map vm = parse_options(c, args, "group");
  if (vm.count("help")) {
    std::cout << help_text(c)
              << "\nWith no argument, lists all three groups.\n";
    return cli::kExitOk;
  }
  std::vector<std::string> groups;
  if (vm.count("group")) groups = vm["group"].as<std::vector<std::string>>();
  if (groups.size() > 1) throw UsageError("expected at most one group, got " + std::to_string(groups.size()));
  const std::string group = groups.empty() ? "" : groups[0];
  if (!group.empty() && group != "workloads" && group != "schedulers" && group != "presets")
    throw UsageError("unknown group '" + group + "' (allowed: workloads, schedulers, presets)");

  struct Item {
    std::string name, description;
  };
  std::vector<Item> workloads;
  for (const auto* w : tlmgpu::workloads::all_workloads()) workloads.push_back({w->name, w->description});
  const auto policies = tlmgpu::schedulers::registered_policies();
  const auto presets = tlmgpu::platform::preset_descriptions();

  if (!group.empty()) {
    if (group == "workloads") print_listing(std::cout, workloads, "");
    if (group == "schedulers") print_listing(std::cout, policies, "");
    if (group == "presets") print_listing(std::cout, presets, "");
    return cli::kExitOk;
  }
  std::cout << "workloads:\n";
  print_listing(std::cout, workloads, "  ");
  std::cout << "\nschedulers:\n";
  print_listing(std::cout, policies, "  ");
  std::cout << "\npresets:\n";
  print_listing(std::cout, presets, "  ");
  return cli::kExitOk;
}

// ------------------------------------------------------------------- run

Command run_command() {
  Command c{"run",
            "tlmgpu run --workload NAME [--size small|default|paper] [--seed N] [options]\n"
            "       tlmgpu run --launch FILE.json [options]\n"
            "       tlmgpu run --trace FILE.trace [--ctas N] [options]",
            po::options_description("options")};
  c.options.add_options()
      ("workload", po::value<std::string>()->value_name("NAME"),
       "a registered workload ('tlmgpu list workloads'), or 'all' for every one in a table")
      ("launch", po::value<std::string>()->value_name("FILE"), "a launch file (JSON; see docs/LAUNCH_FILE.md)")
      ("trace", po::value<std::string>()->value_name("FILE"),
       "an instruction trace run on the cycle-level SMs (format: docs/SCHEDULERS.md; implies --mode timing)")
      ("ctas", po::value<std::string>()->value_name("N"), "traces: CTAs to run, each with all the trace's warps (default: 1)")
      ("size", po::value<std::string>()->value_name("SIZE"), "small, default or paper (default: default)")
      ("seed", po::value<std::string>()->value_name("N"), "workload input seed (default: 1)")
      ("divergence", po::value<std::string>()->value_name("MODE"),
       "ipdom or its (default: ipdom if the workload is ipdom-safe, else its; "
       "launch files: its unless the file says)")
      ("mode", po::value<std::string>()->value_name("MODE"),
       "functional (in-order per warp, no timing), timing (the cycle-level GPU) or lt (functional, with cycles "
       "estimated per launch by a cost model calibrated against timing mode) (default: functional)")
      ("preset", po::value<std::string>()->value_name("NAME"), "GPU configuration ('tlmgpu list presets'; default: gtx480)")
      ("config", po::value<std::vector<std::string>>()->value_name("FILE")->composing(),
       "INI file applied on top of the preset (repeatable)")
      ("set", po::value<std::vector<std::string>>()->value_name("KEY=VALUE")->composing(),
       "override one configuration key, e.g. sm.num_schedulers=4 (repeatable)")
      ("scheduler", po::value<std::string>()->value_name("SPEC"),
       "warp scheduler policy with parameters, e.g. gto or two_level:group=8 (= --set gpu.scheduler=SPEC)")
      ("fetch-scheduler", po::value<std::string>()->value_name("POLICY"),
       "the fetch stage's policy: lrr, gtlrr or gtlo (= --set sm.fetch_policy=POLICY)")
      ("threads", po::value<std::string>()->value_name("N"),
       "timing mode: host threads that evaluate the SMs of each cycle (= --set host.threads=N; default: 1); "
       "the statistics are the same for every N")
      ("dump-config", "print the effective configuration as INI and exit")
      ("vcd", po::value<std::string>()->value_name("FILE"), "timing mode: write a VCD trace for GTKWave")
      ("timeline", po::value<std::string>()->value_name("FILE"),
       "timing mode: write a timeline (Chrome trace JSON for ui.perfetto.dev or chrome://tracing; "
       "1 us = 1 cycle): launches, CTAs per SM, issue slots per scheduler, DRAM queue depths")
      ("timeline-interval", po::value<std::string>()->value_name("N"),
       "cycles per timeline sample of the issue slots and DRAM queues (default: 100)")
      ("regs-per-thread", po::value<std::string>()->value_name("N"),
       "timing and lt modes: registers per thread for occupancy of every launch (default: a launch file's regs_per_thread, else the PTX register estimate)")
      ("watchdog", po::value<std::string>()->value_name("N"),
       "stop after N warp instructions without forward progress (default: 20000000)")
      ("starvation", po::value<std::string>()->value_name("N"),
       "timing mode: stop when a warp has been ready for N cycles without being chosen "
       "(default: 10000000; 0: never)")
      ("stats", po::value<std::string>()->value_name("FILE"), "write statistics as JSON to FILE")
      ("stats-describe", "timing mode: after the run, print what each statistic counts (unit and description)")
      ("output-dir", po::value<std::string>()->value_name("DIR"),
       "launch files: where relative dump paths go (default: the file's directory)")
      ("help,h", "show this help");
  return c;
}

struct RunSettings {
  std::string mode = "functional";
  std::optional<DivergenceMode> divergence;
  uint64_t watchdog = 0;
  std::string stats_file;
  bool describe_stats = false;  ///< --stats-describe
  std::string timeline_file;  ///< --timeline: written with the statistics
  /// Mode, GPU configuration, VCD: everything but the divergence mode.
  tlmgpu::platform::DeviceOptions device;
};

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// Prints the summary, writes --stats and --timeline, reports a fault; returns the exit code.
int finish_run(const RunSettings& rs, tlmgpu::platform::RunStatistics& stats, bool verified, const std::string& fault) {
  stats.add("verified", verified).json_only();
  if (!fault.empty()) stats.add("fault", fault).json_only();
  cli::print_rows(std::cout, stats.table_rows());
  if (rs.describe_stats) {
    std::cout << "\nstatistics (--stats JSON keys; N: an index):\n";
    tlmgpu::platform::print_statistics_descriptions(std::cout);
  }
  std::cout.flush();
  if (!rs.stats_file.empty()) {
    cli::write_json_file(rs.stats_file, stats.to_json());
    tlmgpu::platform::write_files_beside_statistics(rs.stats_file, rs.device);
  }
  // Also after a fault: the launches that completed show what led up to it.
  if (!rs.timeline_file.empty()) tlmgpu::platform::write_timeline(rs.timeline_file);
  if (!fault.empty()) {
    std::cerr << "tlmgpu: " << fault << '\n';
    return cli::kExitFailure;
  }
  return verified ? cli::kExitOk : cli::kExitFailure;
}

// The statistics every kind of run ends with: the device's totals, then
// what the simulation mode adds.
void add_run_totals(const RunSettings& rs, tlmgpu::platform::RunStatistics& stats,
                    const tlmgpu::platform::DeviceStats& counters, double host_seconds,
                    const tlmgpu::platform::GpuDevice* device) {
  namespace pf = tlmgpu::platform;
  pf::add_device_counters(stats, counters, host_seconds);
  if (rs.device.mode == pf::SimulationMode::Timing) pf::add_timing_statistics(stats, rs.device.config, counters);
  if (rs.device.mode == pf::SimulationMode::Lt && device) pf::add_lt_statistics(stats, rs.device.config, *device);
}

struct WorkloadInputs {
  tlmgpu::workloads::Size size = tlmgpu::workloads::Size::Default;
  std::string size_name = "default";
  uint64_t seed = 1;
};

// --size and --seed, shared by one workload and `--workload all`.
WorkloadInputs workload_inputs(const po::variables_map& vm) {
  WorkloadInputs in;
  if (vm.count("size")) {
    in.size_name = vm["size"].as<std::string>();
    if (!tlmgpu::workloads::parse_size(in.size_name, in.size))
      throw UsageError(allowed_error("size", in.size_name, "small, default, paper"));
  }
  if (vm.count("seed")) in.seed = parse_u64("seed", vm["seed"].as<std::string>(), 0);
  return in;
}

int run_all_workloads(const RunSettings& rs, const po::variables_map& vm);

int run_workload(const RunSettings& rs, const std::string& name, const po::variables_map& vm) {
  namespace wl = tlmgpu::workloads;
  if (name == "all") return run_all_workloads(rs, vm);
  const wl::WorkloadInfo* info = wl::find_workload(name);
  if (!info) {
    std::string known;
    for (const auto* w : wl::all_workloads()) known += (known.empty() ? "" : ", ") + w->name;
    throw std::invalid_argument("unknown workload '" + name + "' (known: " + (known.empty() ? "none" : known) + ")");
  }
  const WorkloadInputs in = workload_inputs(vm);
  const wl::Size size = in.size;
  const std::string& size_name = in.size_name;
  const uint64_t seed = in.seed;

  tlmgpu::platform::DeviceOptions options = rs.device;
  options.divergence = rs.divergence.value_or(cli::default_divergence(options.config.divergence, info->ipdom_safe));

  tlmgpu::platform::RunStatistics stats;
  stats.add("workload", name);
  stats.add("size", size_name);
  stats.add("divergence", cli::divergence_name(options.divergence));
  stats.add("seed", seed);
  stats.add("mode", rs.mode);
  stats.add("watchdog_instructions", rs.watchdog).json_only();
  stats.add("starvation_cycles", rs.device.starvation_cycles).json_only();

  tlmgpu::platform::GpuDevice device(options);
  std::unique_ptr<wl::Workload> workload = info->make();
  wl::WorkloadResult result;
  std::string fault;
  const auto t0 = std::chrono::steady_clock::now();
  try {
    result = workload->run(device, size, seed);
  } catch (const tlmgpu::exec::DeviceFault& f) {
    fault = f.what();
    result.detail = "device fault";
  }
  const double host_seconds = seconds_since(t0);
  stats.add("detail", result.detail)
      .labelled("verified")
      .shown_as(std::string(result.verified ? "yes" : "no") + (result.detail.empty() ? "" : " (" + result.detail + ")"));
  add_run_totals(rs, stats, device.stats(), host_seconds, &device);
  return finish_run(rs, stats, result.verified && fault.empty(), fault);
}

// `--workload all`: every workload in turn, one table row each (the main job
// of README's first command).
int run_all_workloads(const RunSettings& rs, const po::variables_map& vm) {
  namespace wl = tlmgpu::workloads;
  const WorkloadInputs in = workload_inputs(vm);
  const wl::Size size = in.size;
  const std::string& size_name = in.size_name;
  const uint64_t seed = in.seed;

  std::vector<tlmgpu::platform::RunStatistics> runs;
  bool all_ok = true;
  for (const wl::WorkloadInfo* info : wl::all_workloads()) {
    tlmgpu::platform::DeviceOptions options = rs.device;
    options.divergence = rs.divergence.value_or(cli::default_divergence(options.config.divergence, info->ipdom_safe));
    tlmgpu::platform::GpuDevice device(options);
    wl::WorkloadResult result;
    std::string fault;
    try {
      result = info->make()->run(device, size, seed);
    } catch (const tlmgpu::exec::DeviceFault& f) {
      fault = f.what();
    }
    const auto& st = device.stats();
    const double secs = st.kernel_host_seconds;
    const bool ok = result.verified && fault.empty();
    all_ok &= ok;
    tlmgpu::platform::RunStatistics& r = runs.emplace_back();
    r.add("workload", info->name);
    r.add("divergence", cli::divergence_name(options.divergence));
    r.add("verified", ok).shown_as(ok ? "yes" : (fault.empty() ? "NO" : "FAULT"));
    r.add("detail", fault.empty() ? result.detail : fault).json_only();
    r.add("kernels_launched", st.kernels_launched).labelled("kernels");
    r.add("ctas", st.ctas).labelled("CTAs");
    r.add("warp_insts", st.warp_insts).labelled("warp insts");
    r.add("thread_insts", st.thread_insts).labelled("thread insts");
    r.add("sim_cycles", st.sim_cycles).labelled("cycles");
    r.add_row("IPC", st.sim_cycles ? cli::format_number(double(st.thread_insts) / double(st.sim_cycles)) : "-");
    r.add("kernel_host_seconds", secs).labelled("host s");
    r.add_row("warp insts/s", cli::format_number(secs > 0 ? double(st.warp_insts) / secs : 0.0));
    if (!ok) std::cerr << "tlmgpu: " << info->name << ": " << (fault.empty() ? result.detail : fault) << '\n';
  }
  // Names left, numbers right.
  tlmgpu::platform::print_statistics_columns(std::cout, runs, 3);
  if (!rs.stats_file.empty()) {
    json run_list = json::array();
    for (const tlmgpu::platform::RunStatistics& r : runs) run_list.push_back(r.to_json());
    cli::write_json_file(rs.stats_file, json{{"size", size_name}, {"seed", seed}, {"mode", rs.mode}, {"runs", run_list}});
    tlmgpu::platform::write_files_beside_statistics(rs.stats_file, rs.device);
  }
  if (!rs.timeline_file.empty()) tlmgpu::platform::write_timeline(rs.timeline_file);
  return all_ok ? cli::kExitOk : cli::kExitFailure;
}

int run_launch_file(const RunSettings& rs, const std::string& path, const po::variables_map& vm) {
  namespace pf = tlmgpu::platform;
  pf::LaunchFile file = pf::LaunchFile::load(path);

  pf::DeviceOptions options = rs.device;
  // Launch files run arbitrary sm_75 PTX, which may rely on Volta's independent thread scheduling.
  options.divergence = rs.divergence.value_or(
      file.divergence().value_or(cli::default_divergence(options.config.divergence, false)));
  pf::LaunchFileOptions lf_options;
  if (vm.count("output-dir")) lf_options.output_dir = vm["output-dir"].as<std::string>();

  pf::RunStatistics stats;
  stats.add("launch_file", path);
  stats.add("ptx", file.ptx_path());
  stats.add("divergence", cli::divergence_name(options.divergence));
  stats.add("mode", rs.mode);
  stats.add("watchdog_instructions", rs.watchdog).json_only();
  stats.add("starvation_cycles", rs.device.starvation_cycles).json_only();

  pf::GpuDevice device(options);
  pf::LaunchFileResult result;
  // What ran before a fault or error still goes into the report.
  lf_options.result_on_error = &result;
  std::string fault;
  const auto t0 = std::chrono::steady_clock::now();
  try {
    result = file.run(device, lf_options);
  } catch (const tlmgpu::exec::DeviceFault& f) {
    fault = f.what();
    result.verified = false;
    result.detail = "device fault";
  } catch (const pf::LaunchFileRunError& e) {
    fault = e.what();
    result.verified = false;
    result.detail = "repeat limit reached";
  }
  const double host_seconds = seconds_since(t0);
  // Device printf output, launch by launch (also of a launch that faulted).
  const std::string printed = device.take_printf_output();
  if (!printed.empty()) {
    std::cout << printed;
    std::cout.flush();
  }

  pf::add_launch_file_result(stats, result);
  add_run_totals(rs, stats, device.stats(), host_seconds, &device);
  return finish_run(rs, stats, result.verified && fault.empty(), fault);
}

// --trace: the trace's warps on the SMs; prints the cycle counts and, per
// trace warp, the cycles its instructions issued at.
int run_trace_file(const RunSettings& rs, const std::string& path, const po::variables_map& vm) {
  const uint32_t ctas = vm.count("ctas") ? uint32_t(parse_u64("ctas", vm["ctas"].as<std::string>(), 1)) : 1;
  const tlmgpu::trace::WarpTrace trace = tlmgpu::trace::load_warp_trace(path);
  const auto t0 = std::chrono::steady_clock::now();
  const tlmgpu::platform::TimingLaunchStats ts = tlmgpu::platform::run_trace_launch(rs.device, trace, ctas);
  const double host = seconds_since(t0);
  tlmgpu::platform::RunStatistics stats;
  stats.add("trace", path)
      .shown_as(path + " (" + std::to_string(trace.warps.size()) + " warps, " +
                std::to_string(trace.instruction_count()) + " instructions)");
  tlmgpu::platform::DeviceStats s;
  s.kernels_launched = 1;
  s.ctas = ctas;
  s.warp_insts = ts.warp_insts;
  s.thread_insts = ts.thread_insts;
  s.sim_cycles = ts.sim_cycles;
  add_run_totals(rs, stats, s, host, nullptr);
  const auto& launch = tlmgpu::platform::timing_launches().back();
  for (size_t i = 0; i < launch.ctas.size(); ++i)
    stats.add_row("cta " + std::to_string(i) + " cycles",
                  std::to_string(launch.ctas[i].end - launch.ctas[i].start) + " (sm " +
                      std::to_string(launch.ctas[i].sm) + ")");
  return finish_run(rs, stats, true, "");
}

int cmd_run(const std::vector<std::string>& args) {
  Command c = run_command();
  po::variables_map vm = parse_options(c, args, "extra");
  if (vm.count("help")) {
    std::cout << help_text(c);
    return cli::kExitOk;
  }
  if (vm.count("extra")) throw UsageError("unexpected argument '" + vm["extra"].as<std::vector<std::string>>()[0] + "'");

  RunSettings rs;
  rs.watchdog = rs.device.watchdog_instructions;
  if (vm.count("trace")) {
    // A trace has no values to compute: it only runs on the cycle-level GPU.
    if (vm.count("mode") && vm["mode"].as<std::string>() != "timing")
      throw UsageError("--trace runs in --mode timing only");
    rs.mode = "timing";
    rs.device.mode = tlmgpu::platform::SimulationMode::Timing;
  }
  if (vm.count("mode")) {
    rs.mode = vm["mode"].as<std::string>();
    if (rs.mode == "timing") rs.device.mode = tlmgpu::platform::SimulationMode::Timing;
    else if (rs.mode == "lt") rs.device.mode = tlmgpu::platform::SimulationMode::Lt;
    else if (rs.mode != "functional") throw UsageError(allowed_error("mode", rs.mode, "functional, timing, lt"));
  }
  {
    const std::string preset = vm.count("preset") ? vm["preset"].as<std::string>() : "gtx480";
    std::vector<std::string> files, sets;
    if (vm.count("config")) files = vm["config"].as<std::vector<std::string>>();
    if (vm.count("set")) sets = vm["set"].as<std::vector<std::string>>();
    if (vm.count("scheduler")) sets.push_back("gpu.scheduler=" + vm["scheduler"].as<std::string>());
    if (vm.count("fetch-scheduler")) sets.push_back("sm.fetch_policy=" + vm["fetch-scheduler"].as<std::string>());
    if (vm.count("threads")) sets.push_back("host.threads=" + vm["threads"].as<std::string>());
    rs.device.config = tlmgpu::platform::resolve_config(preset, files, sets);
    // The policy name and its parameters are checked before anything runs.
    tlmgpu::schedulers::make_policy(rs.device.config.scheduler, tlmgpu::schedulers::PolicyContext{});
    if (vm.count("dump-config")) {
      std::cout << tlmgpu::platform::dump_config(rs.device.config);
      return cli::kExitOk;
    }
  }
  if (vm.count("vcd")) rs.device.vcd_path = vm["vcd"].as<std::string>();
  if (vm.count("regs-per-thread"))
    rs.device.regs_per_thread = uint32_t(parse_u64("regs-per-thread", vm["regs-per-thread"].as<std::string>(), 1));
  if (vm.count("timeline-interval") && !vm.count("timeline"))
    throw UsageError("--timeline-interval applies to --timeline only");
  if (rs.device.mode != tlmgpu::platform::SimulationMode::Timing) {
    if (vm.count("vcd")) throw UsageError("--vcd applies to --mode timing only");
    if (vm.count("threads")) throw UsageError("--threads applies to --mode timing only");
    if (vm.count("timeline")) throw UsageError("--timeline applies to --mode timing only");
    if (vm.count("stats-describe")) throw UsageError("--stats-describe applies to --mode timing only");
    if (rs.device.mode != tlmgpu::platform::SimulationMode::Lt && vm.count("regs-per-thread"))
      throw UsageError("--regs-per-thread applies to --mode timing and lt only");
  }
  if (vm.count("divergence")) {
    const std::string d = vm["divergence"].as<std::string>();
    rs.divergence = cli::parse_divergence(d);
    if (!rs.divergence) throw UsageError(allowed_error("divergence", d, "ipdom, its"));
  }
  if (vm.count("watchdog")) rs.watchdog = parse_u64("watchdog", vm["watchdog"].as<std::string>(), 1);
  rs.device.watchdog_instructions = rs.watchdog;
  if (vm.count("starvation"))
    rs.device.starvation_cycles = parse_u64("starvation", vm["starvation"].as<std::string>(), 0);
  if (vm.count("stats")) rs.stats_file = vm["stats"].as<std::string>();
  rs.describe_stats = vm.count("stats-describe") > 0;
  if (vm.count("timeline")) {
    const uint64_t interval =
        vm.count("timeline-interval") ? parse_u64("timeline-interval", vm["timeline-interval"].as<std::string>(), 1)
                                      : 100;
    rs.timeline_file = vm["timeline"].as<std::string>();
    // Found out now, not after a long run.
    if (rs.timeline_file.empty() || !std::ofstream(rs.timeline_file, std::ios::app))
      throw UsageError("--timeline: cannot write '" + rs.timeline_file + "'");
    tlmgpu::platform::record_timeline(interval);
  }

  const bool workload = vm.count("workload") != 0, launch = vm.count("launch") != 0;
  const bool trace = vm.count("trace") != 0;
  if (int(workload) + int(launch) + int(trace) != 1)
    throw UsageError("give exactly one of --workload, --launch and --trace");
  if (!trace && vm.count("ctas")) throw UsageError("--ctas applies to --trace only");
  if (trace) {
    for (const char* o : {"size", "seed", "divergence", "output-dir"})
      if (vm.count(o)) throw UsageError(std::string("--") + o + " does not apply to --trace");
    return run_trace_file(rs, vm["trace"].as<std::string>(), vm);
  }
  if (workload) {
    if (vm.count("output-dir")) throw UsageError("--output-dir applies to --launch only");
    return run_workload(rs, vm["workload"].as<std::string>(), vm);
  }
  for (const char* o : {"size", "seed"})
    if (vm.count(o)) throw UsageError(std::string("--") + o + " applies to --workload only");
  return run_launch_file(rs, vm["launch"].as<std::string>(), vm);
}

// ------------------------------------------------------------------ exec

Command exec_command() {
  Command c{"exec", "tlmgpu exec [options] [--] PROGRAM [ARGS...]", po::options_description("options")};
  c.options.add_options()
      ("mode", po::value<std::string>()->value_name("MODE"), "functional, timing or lt (default: functional)")
      ("preset", po::value<std::string>()->value_name("NAME"), "GPU configuration (default: gtx480)")
      ("config", po::value<std::vector<std::string>>()->value_name("FILE")->composing(),
       "INI file applied on top of the preset (repeatable)")
      ("set", po::value<std::vector<std::string>>()->value_name("KEY=VALUE")->composing(),
       "override one configuration key (repeatable)")
      ("scheduler", po::value<std::string>()->value_name("SPEC"), "warp scheduler policy, e.g. gto")
      ("fetch-scheduler", po::value<std::string>()->value_name("POLICY"), "the fetch stage's policy")
      ("threads", po::value<std::string>()->value_name("N"),
       "timing mode: host threads that evaluate the SMs of each cycle (= --set host.threads=N)")
      ("divergence", po::value<std::string>()->value_name("MODE"), "ipdom or its (default: its)")
      ("vcd", po::value<std::string>()->value_name("FILE"), "timing mode: a VCD trace of every launch")
      ("timeline", po::value<std::string>()->value_name("FILE"), "timing mode: a timeline of every launch")
      ("timeline-interval", po::value<std::string>()->value_name("N"), "cycles per timeline sample (default: 100)")
      ("regs-per-thread", po::value<std::string>()->value_name("N"),
       "timing and lt modes: registers per thread of every launch (default: the binary's ptxas counts)")
      ("watchdog", po::value<std::string>()->value_name("N"),
       "stop a launch after N warp instructions without forward progress (default: 20000000)")
      ("starvation", po::value<std::string>()->value_name("N"), "timing mode: starvation watchdog (default: 10000000)")
      ("stats", po::value<std::string>()->value_name("FILE"),
       "write the program's statistics as JSON: totals and one row per kernel launch")
      ("help,h", "show this help");
  return c;
}

/// The directory holding tlmgpu's libcudart.so.13: TLMGPU_CUDART_DIR, else
/// beside this program in the build tree, else where `cmake --install` puts it.
std::string cudart_directory() {
  if (const char* d = std::getenv("TLMGPU_CUDART_DIR"); d && *d) return d;
  char self[4096];
  const ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
  std::string dir = ".";
  if (n > 0) {
    self[n] = '\0';
    dir = std::string(self);
    dir = dir.substr(0, dir.find_last_of('/'));
  }
  for (const std::string& candidate : {dir + "/cudart", dir + "/" + TLMGPU_CUDART_INSTALL_RELDIR}) {
    if (access((candidate + "/libcudart.so.13").c_str(), R_OK) == 0) return candidate;
  }
  throw std::runtime_error("tlmgpu's libcudart.so.13 is neither in " + dir + "/cudart nor in " + dir + "/" +
                           TLMGPU_CUDART_INSTALL_RELDIR + " (build the target tlmgpu_cudart, or set TLMGPU_CUDART_DIR)");
}

/// PROGRAM as execvp finds it: a path with a '/', else a search of PATH.
std::string find_program(const std::string& program) {
  if (program.find('/') != std::string::npos) return program;
  const char* path = std::getenv("PATH");
  std::istringstream dirs(path ? path : "/usr/bin:/bin");
  std::string d;
  while (std::getline(dirs, d, ':')) {
    const std::string candidate = (d.empty() ? "." : d) + "/" + program;
    if (access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  return program;
}

int cmd_exec(const std::vector<std::string>& args) {
  // Our options end at "--" or at the first argument that is neither an
  // option nor an option's value: the rest is the program's command line.
  Command c = exec_command();
  size_t split = args.size();
  bool dashes = false;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--") {
      split = i;
      dashes = true;
      break;
    }
    if (a.rfind("-", 0) != 0) {
      split = i;
      break;
    }
    if (a != "-h" && a != "--help" && a.find('=') == std::string::npos) ++i;  // its value
  }
  const std::vector<std::string> ours(args.begin(), args.begin() + std::min(split, args.size()));
  std::vector<std::string> program(args.begin() + std::min(args.size(), split + (dashes ? 1 : 0)), args.end());
  po::variables_map vm = parse_options(c, ours, "extra");
  if (vm.count("help")) {
    std::cout << help_text(c)
              << "\nRuns PROGRAM with tlmgpu's libcudart.so.13 in place of NVIDIA's, so that its CUDA calls\n"
                 "run on the model. Build it with `nvcc -cudart shared -arch=sm_75`. The options reach the\n"
                 "library as TLMGPU_* environment variables (docs/CUDA_RUNTIME.md), which it also reads when\n"
                 "a program runs with LD_LIBRARY_PATH set by hand. Exit code: the program's own; 2 when the\n"
                 "options are wrong or the program cannot run on the model.\n";
    return cli::kExitOk;
  }
  if (vm.count("extra")) throw UsageError("unexpected argument '" + vm["extra"].as<std::vector<std::string>>()[0] + "'");
  if (program.empty()) throw UsageError("no program given (tlmgpu exec [options] -- PROGRAM [ARGS...])");

  // Everything is checked here, before the program starts.
  std::string mode = vm.count("mode") ? vm["mode"].as<std::string>() : "functional";
  if (mode != "functional" && mode != "timing" && mode != "lt")
    throw UsageError(allowed_error("mode", mode, "functional, timing, lt"));
  if (mode != "timing") {
    for (const char* o : {"vcd", "timeline", "timeline-interval", "starvation", "threads"})
      if (vm.count(o)) throw UsageError(std::string("--") + o + " applies to --mode timing only");
  }
  if (mode == "functional" && vm.count("regs-per-thread"))
    throw UsageError("--regs-per-thread applies to --mode timing and lt only");
  std::vector<std::string> files, sets;
  if (vm.count("config")) files = vm["config"].as<std::vector<std::string>>();
  if (vm.count("set")) sets = vm["set"].as<std::vector<std::string>>();
  for (const std::string& s : sets)
    if (s.find(';') != std::string::npos) throw UsageError("--set '" + s + "': a value cannot contain ';'");
  if (vm.count("threads")) sets.push_back("host.threads=" + vm["threads"].as<std::string>());
  for (const std::string& f : files)
    if (f.find(':') != std::string::npos) throw UsageError("--config '" + f + "': a path cannot contain ':'");
  std::vector<std::string> all_sets = sets;
  if (vm.count("scheduler")) all_sets.push_back("gpu.scheduler=" + vm["scheduler"].as<std::string>());
  if (vm.count("fetch-scheduler")) all_sets.push_back("sm.fetch_policy=" + vm["fetch-scheduler"].as<std::string>());
  const std::string preset = vm.count("preset") ? vm["preset"].as<std::string>() : "gtx480";
  const tlmgpu::core::GpuConfig config = tlmgpu::platform::resolve_config(preset, files, all_sets);
  tlmgpu::schedulers::make_policy(config.scheduler, tlmgpu::schedulers::PolicyContext{});
  if (vm.count("divergence") && !cli::parse_divergence(vm["divergence"].as<std::string>()))
    throw UsageError(allowed_error("divergence", vm["divergence"].as<std::string>(), "ipdom, its"));
  for (const char* o : {"watchdog", "regs-per-thread", "timeline-interval"})
    if (vm.count(o)) parse_u64(o, vm[o].as<std::string>(), 1);
  if (vm.count("starvation")) parse_u64("starvation", vm["starvation"].as<std::string>(), 0);

  const std::string path = find_program(program[0]);
  if (access(path.c_str(), X_OK) != 0) throw std::invalid_argument("cannot run '" + program[0] + "': not an executable file");
  const tlmgpu::fatbin::ProgramInfo info = tlmgpu::fatbin::inspect_program_file(path);
  if (!info.problem.empty()) throw std::invalid_argument(path + ": " + info.problem);

  // The library reads the same variables when a user sets them.
  auto set_env = [](const char* name, const std::string& value) { setenv(name, value.c_str(), 1); };
  auto join = [](const std::vector<std::string>& parts, char sep) {
    std::string out;
    for (const std::string& p : parts) out += (out.empty() ? "" : std::string(1, sep)) + p;
    return out;
  };
  set_env("TLMGPU_MODE", mode);
  set_env("TLMGPU_PRESET", preset);
  if (!files.empty()) set_env("TLMGPU_CONFIG", join(files, ':'));
  if (!sets.empty()) set_env("TLMGPU_SET", join(sets, ';'));
  const std::pair<const char*, const char*> passed[] = {
      {"scheduler", "TLMGPU_SCHEDULER"}, {"fetch-scheduler", "TLMGPU_FETCH_SCHEDULER"},
      {"divergence", "TLMGPU_DIVERGENCE"}, {"vcd", "TLMGPU_VCD"}, {"timeline", "TLMGPU_TIMELINE"},
      {"timeline-interval", "TLMGPU_TIMELINE_INTERVAL"}, {"regs-per-thread", "TLMGPU_REGS_PER_THREAD"},
      {"watchdog", "TLMGPU_WATCHDOG"}, {"starvation", "TLMGPU_STARVATION"}, {"stats", "TLMGPU_STATS"}};
  for (const auto& [option, variable] : passed)
    if (vm.count(option)) set_env(variable, vm[option].as<std::string>());
  const std::string stats_file = vm.count("stats") ? vm["stats"].as<std::string>() : "";
  if (!stats_file.empty()) std::remove(stats_file.c_str());
  const char* old_path = std::getenv("LD_LIBRARY_PATH");
  set_env("LD_LIBRARY_PATH", cudart_directory() + (old_path && *old_path ? std::string(":") + old_path : ""));
#ifdef TLMGPU_SANITIZER_PRELOAD
  // This build's library is sanitized; the program is not.
  const char* old_preload = std::getenv("LD_PRELOAD");
  set_env("LD_PRELOAD", std::string(TLMGPU_SANITIZER_PRELOAD) + (old_preload && *old_preload ? std::string(":") + old_preload : ""));
#endif

  std::vector<char*> argv;
  for (std::string& a : program) argv.push_back(a.data());
  argv.push_back(nullptr);
  std::cout.flush();
  pid_t pid = 0;
  if (const int e = posix_spawn(&pid, path.c_str(), nullptr, nullptr, argv.data(), environ); e != 0)
    throw std::invalid_argument("cannot run '" + path + "': " + std::strerror(e));
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  const int exit_status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  if (WIFSIGNALED(status)) std::cerr << "tlmgpu exec: " << path << " ended by signal " << WTERMSIG(status) << '\n';

  if (!stats_file.empty()) {
    // The library wrote the totals and launches; the command line and the
    // exit status are known here only.
    json stats = json::object();
    if (std::ifstream in(stats_file); in) {
      try {
        stats = json::parse(in);
      } catch (const json::exception&) {
        stats = json::object();
      }
    }
    if (stats.empty()) stats["program"] = path;  // no CUDA call reached the library
    stats["arguments"] = std::vector<std::string>(program.begin() + 1, program.end());
    stats["exit_status"] = exit_status;  // also when a signal ended it (the library could not say)
    cli::write_json_file(stats_file, stats);
  }
  return exit_status;
}

// ------------------------------------------------------------- check-ptx

Command check_command() {
  Command c{"check-ptx", "tlmgpu check-ptx FILE...", po::options_description("options")};
  c.options.add_options()("help,h", "show this help");
  return c;
}

int cmd_check_ptx(const std::vector<std::string>& args) {
  Command c = check_command();
  po::variables_map vm = parse_options(c, args, "file");
  if (vm.count("help")) {
    std::cout << help_text(c)
              << "\nParses and decodes each file; prints 'FILE: ok: K kernels, N instructions' or\n"
                 "every error. Exit code 0 only when every file is free of errors.\n";
    return cli::kExitOk;
  }
  if (!vm.count("file")) throw UsageError("no PTX files given");
  bool all_ok = true;
  for (const std::string& f : vm["file"].as<std::vector<std::string>>()) {
    try {
      tlmgpu::ptx::Module m = tlmgpu::ptx::parse_ptx_file(f);
      size_t kernels = 0;
      for (const auto& fn : m.functions) kernels += fn.is_entry ? 1 : 0;
      std::cout << f << ": ok: " << kernels << (kernels == 1 ? " kernel, " : " kernels, ") << m.code.size()
                << (m.code.size() == 1 ? " instruction" : " instructions") << '\n';
    } catch (const tlmgpu::ptx::PtxError& e) {
      all_ok = false;
      std::cout.flush();
      std::cerr << cli::describe_error(e) << '\n';
      const size_t n = std::max<size_t>(e.diagnostics().size(), 1);
      std::cerr << f << ": " << n << (n == 1 ? " error" : " errors") << '\n';
    } catch (const std::exception& e) {
      all_ok = false;
      std::cout.flush();
      std::cerr << f << ": error: " << e.what() << '\n';
    }
  }
  return all_ok ? cli::kExitOk : cli::kExitBadInput;
}

// ------------------------------------------------------------------ main

struct CommandEntry {
  const char* name;
  Command (*make)();
  int (*run)(const std::vector<std::string>&);
};

constexpr CommandEntry kCommands[] = {
    {"list", list_command, cmd_list},
    {"run", run_command, cmd_run},
    {"exec", exec_command, cmd_exec},
    {"check-ptx", check_command, cmd_check_ptx},
};

int run_named(const std::string& command, const std::vector<std::string>& args) {
  for (const CommandEntry& c : kCommands) {
    if (command != c.name) continue;
    try {
      return c.run(args);
    } catch (const UsageError& e) {
      std::cerr << "tlmgpu " << c.name << ": " << e.what() << "\n\n" << help_text(c.make());
      return cli::kExitBadInput;
    }
  }
  std::cerr << "tlmgpu: unknown " << (command.rfind('-', 0) == 0 ? "option" : "command") << " '" << command
            << "'\n\n" << kUsage;
  return cli::kExitBadInput;
}

int dispatch(const std::vector<std::string>& argv) {
  if (argv.empty()) {
    std::cerr << kUsage;
    return cli::kExitBadInput;
  }
  const std::string& command = argv[0];
  std::vector<std::string> args(argv.begin() + 1, argv.end());
  if (command == "-h" || command == "--help" || (command == "help" && args.empty())) {
    std::cout << kUsage;
    return cli::kExitOk;
  }
  if (command == "help") {
    if (args.size() > 1) {
      std::cerr << "tlmgpu help: expected at most one command\n\n" << kUsage;
      return cli::kExitBadInput;
    }
    return run_named(args[0], {"--help"});
  }
  return run_named(command, args);
}

}  // namespace

int sc_main(int argc, char* argv[]) {
  try {
    return dispatch(std::vector<std::string>(argv + (argc > 0 ? 1 : 0), argv + argc));
  } catch (const std::exception& e) {
    std::cout.flush();
    std::cerr << "tlmgpu: " << cli::describe_error(e) << '\n';
    return cli::exit_code_for(e);
  } catch (...) {
    std::cerr << "tlmgpu: unknown internal error\n";
    return cli::kExitBadInput;
  }
}
