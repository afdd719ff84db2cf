// tlmgpu_vp: the RISC-V virtual platform. Loads a firmware ELF into RAM, runs
// the hart from its entry point and exits with the code the firmware writes
// to the test finisher. docs/VP.md describes the platform and its options.
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <iostream>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>

#include <boost/program_options.hpp>
#include <systemc>

#include "memory/dram_channel.h"
#include "model/sm/streaming_multiprocessor.h"
#include "platform/cli_support.h"
#include "platform/gpu_top.h"
#include "platform/soc/gpu_registers.h"
#include "platform/systemc_banner.h"
#include "schedulers/policy_registry.h"
#include "vp/elf_loader.h"
#include "vp/soc_memory_map.h"
#include "vp/virtual_platform.h"

namespace {

namespace po = boost::program_options;

// The VP's own failures; firmware exit codes are its own business.
constexpr int kExitBadInput = 2;
constexpr int kExitCpuFault = 3;
constexpr int kExitNoFinish = 4;

struct Options {
  std::string firmware;
  std::string gpu_mode = "lt";
  std::string preset = "gtx480";
  std::string gpu1_preset; // "": no second GPU
  std::string scheduler;
  std::optional<std::string> watchdog; // none: the peripheral's default
  std::string divergence = "its";
  std::string vcd;
  uint64_t max_instructions = 0;
  double cpu_mhz = 1000;
  double quantum_us = 10;
  bool report = false;
};

constexpr const char* kUsage = "usage: tlmgpu_vp --firmware FILE.elf [options]\n";

Options parse(int argc, char* argv[]) {
  Options o;
  po::options_description desc("options");
  desc.add_options()
      ("help,h", "this text")
      ("firmware", po::value(&o.firmware), "RISC-V ELF executable to run (required)")
      ("gpu-mode", po::value(&o.gpu_mode)->default_value("lt"), "the GPU peripheral's mode: lt, timing or none")
      ("preset", po::value(&o.preset)->default_value("gtx480"), "GPU configuration preset (tlmgpu list presets)")
      ("gpu1-preset", po::value(&o.gpu1_preset),
       "add a second GPU of this preset at 0x20010000 (same mode and divergence; its preset's scheduler)")
      ("scheduler", po::value(&o.scheduler), "warp scheduler policy with parameters (default: the preset's)")
      ("watchdog", po::value<std::string>()->value_name("N|off"),
       "warp instructions without forward progress before a launch ends with the watchdog error (default: "
       "20000000; off: never)")
      ("divergence", po::value(&o.divergence)->default_value("its"), "the GPU's divergence model: ipdom or its")
      ("vcd", po::value(&o.vcd), "write a VCD trace: the interrupt line, the GPU's doorbell and STATUS, and in "
                                 "timing mode the GPU's own signals (docs/VP.md)")
      ("max-instructions", po::value(&o.max_instructions)->default_value(10'000'000'000ull),
       "stop with an error after this many guest instructions (0: no limit)")
      ("cpu-mhz", po::value(&o.cpu_mhz)->default_value(1000), "hart clock; one instruction per cycle")
      ("quantum-us", po::value(&o.quantum_us)->default_value(10), "TLM global quantum of the hart")
      ("report", po::bool_switch(&o.report), "print instructions, times and speeds to stderr at the end");
  po::variables_map vm;
  po::store(po::command_line_parser(argc, argv).options(desc).run(), vm);
  po::notify(vm);
  if (vm.count("help")) {
    std::cout << kUsage << desc << "\nExit code: the firmware's; the VP's own failures: " << kExitBadInput
              << " bad input, " << kExitCpuFault << " CPU fault, " << kExitNoFinish
              << " the firmware never wrote the finisher.\n";
    std::exit(0);
  }
  if (o.firmware.empty()) {
    throw po::error("--firmware is required");
  }
  if (o.gpu_mode != "lt" && o.gpu_mode != "timing" && o.gpu_mode != "none") {
    throw po::error("--gpu-mode must be lt, timing or none, not '" + o.gpu_mode + "'");
  }
  if (!tlmgpu::platform::cli::parse_divergence(o.divergence)) {
    throw po::error("--divergence must be ipdom or its, not '" + o.divergence + "'");
  }
  if (!(o.cpu_mhz > 0) || !(o.quantum_us > 0)) {
    throw po::error("--cpu-mhz and --quantum-us must be positive");
  }
  if (!o.gpu1_preset.empty() && o.gpu_mode == "none") {
    throw po::error("--gpu1-preset needs a first GPU: --gpu-mode lt or timing");
  }
  if (vm.count("watchdog")) {
    const std::string value = vm["watchdog"].as<std::string>();
    // Digits only: stoull would take "-1" and "12abc".
    const bool digits = !value.empty() && value.find_first_not_of("0123456789") == std::string::npos;
    if (value != "off" && (!digits || value.size() > 19 || std::stoull(value) == 0)) {
      throw po::error("--watchdog must be a positive number of warp instructions or off, not '" + value + "'");
    }
    o.watchdog = value;
  }
  return o;
}

// The --watchdog value as the peripheral's option.
uint64_t watchdog_instructions(const Options& o, uint64_t default_value) {
  if (!o.watchdog) {
    return default_value;
  }
  return *o.watchdog == "off" ? std::numeric_limits<uint64_t>::max() : std::stoull(*o.watchdog);
}

// A 64-bit counter (LO/HI registers) of the GPU at `base`, read by debug transport.
uint64_t gpu_counter(tlmgpu::vp::VirtualPlatform& soc, uint64_t base, uint32_t lo_offset) {
  uint64_t value = 0;
  tlm::tlm_generic_payload read;
  read.set_command(tlm::TLM_READ_COMMAND);
  read.set_data_ptr(reinterpret_cast<unsigned char*>(&value));
  for (uint32_t half = 0; half < 2; ++half) {
    read.set_address(base + lo_offset + 4 * half);
    read.set_data_ptr(reinterpret_cast<unsigned char*>(&value) + 4 * half);
    read.set_data_length(4);
    read.set_streaming_width(4);
    soc.bus.debug_transport(read);
  }
  return value;
}

void trace_dram_channels(sc_core::sc_trace_file* vcd, sc_core::sc_object& parent) {
  for (sc_core::sc_object* child : parent.get_child_objects()) {
    if (auto* channel = dynamic_cast<tlmgpu::memory::DramChannel*>(child)) {
      channel->trace(vcd);
    } else {
      trace_dram_channels(vcd, *child);
    }
  }
}

// The platform's signals under their hierarchical names; in timing mode also
// the GPU's own (the dispatcher's, each SM's with its schedulers' issued warp
// and stall class, the DRAM channels' queue depths).
sc_core::sc_trace_file* open_vcd(const std::string& path, tlmgpu::vp::VirtualPlatform& soc) {
  std::string base = path;
  if (base.size() > 4 && base.compare(base.size() - 4, 4, ".vcd") == 0) {
    base.resize(base.size() - 4);
  }
  sc_core::sc_trace_file* vcd = sc_core::sc_create_vcd_trace_file(base.c_str());
  sc_core::sc_trace(vcd, soc.interrupt_line, soc.interrupt_line.name());
  const std::pair<tlmgpu::vp::GpuRegisterProbe*, tlmgpu::GpuPeripheral*> gpus[] = {
      {soc.gpu_probe.get(), soc.gpu.get()}, {soc.gpu1_probe.get(), soc.gpu1.get()}};
  for (const auto& [probe, gpu] : gpus) {
    if (gpu == nullptr) {
      continue;
    }
    sc_core::sc_trace(vcd, probe->doorbell, probe->doorbell.name());
    sc_core::sc_trace(vcd, probe->status, probe->status.name());
    const std::string core_name = std::string(gpu->name()) + ".core";
    if (auto* top = dynamic_cast<tlmgpu::platform::GpuTop*>(sc_core::sc_find_object(core_name.c_str()))) {
      sc_core::sc_trace(vcd, top->dispatcher().ctas_waiting, top->dispatcher().ctas_waiting.name());
      sc_core::sc_trace(vcd, top->dispatcher().last_cta_dispatched, top->dispatcher().last_cta_dispatched.name());
      for (const auto& sm : top->sms()) {
        sm->trace(vcd);
      }
      trace_dram_channels(vcd, *top);
    }
  }
  if (soc.gpu1) {
    sc_core::sc_trace(vcd, soc.gpu_irq, soc.gpu_irq.name());
    sc_core::sc_trace(vcd, soc.gpu1_irq, soc.gpu1_irq.name());
  }
  if (soc.reset_controller) {
    sc_core::sc_trace(vcd, soc.gpu_reset, soc.gpu_reset.name());
    if (soc.gpu1) {
      sc_core::sc_trace(vcd, soc.gpu1_reset, soc.gpu1_reset.name());
    }
  }
  return vcd;
}

} // namespace

int sc_main(int argc, char* argv[]) {
  Options options;
  try {
    options = parse(argc, argv);
  } catch (const po::error& e) {
    std::cerr << "tlmgpu_vp: " << e.what() << "\n" << kUsage;
    return kExitBadInput;
  }
  // The finisher's sc_stop is the normal end, not news.
  sc_core::sc_report_handler::set_actions("/OSCI/SystemC", sc_core::SC_INFO, sc_core::SC_DO_NOTHING);
  // Femtoseconds: the GPU's 1400 MHz clock period is then exact enough.
  sc_core::sc_set_time_resolution(1, sc_core::SC_FS);
  tlmgpu::vp::VirtualPlatform::Config config;
  config.cpu.clock_period = sc_core::sc_time(1e6 / options.cpu_mhz, sc_core::SC_PS);
  config.cpu.quantum = sc_core::sc_time(options.quantum_us, sc_core::SC_US);
  config.cpu.max_instructions = options.max_instructions;
  try {
    if (options.gpu_mode != "none") {
      tlmgpu::vp::VirtualPlatform::GpuSetup gpu;
      gpu.config = tlmgpu::platform::preset_config(options.preset);
      if (!options.scheduler.empty()) {
        gpu.config.scheduler = options.scheduler;
      }
      // The policy name and its parameters are checked before anything runs.
      tlmgpu::schedulers::make_policy(gpu.config.scheduler, tlmgpu::schedulers::PolicyContext{});
      gpu.options.mode = options.gpu_mode == "timing" ? tlmgpu::GpuPeripheralMode::Timing : tlmgpu::GpuPeripheralMode::Lt;
      gpu.options.divergence = *tlmgpu::platform::cli::parse_divergence(options.divergence);
      gpu.options.watchdog_instructions = watchdog_instructions(options, gpu.options.watchdog_instructions);
      config.gpu = gpu;
      if (!options.gpu1_preset.empty()) {
        tlmgpu::vp::VirtualPlatform::GpuSetup gpu1;
        gpu1.config = tlmgpu::platform::preset_config(options.gpu1_preset);
        gpu1.options = gpu.options;
        config.gpu1 = gpu1;
      }
    }
  } catch (const std::exception& e) {
    std::cerr << "tlmgpu_vp: " << e.what() << "\n";
    return kExitBadInput;
  }
  tlmgpu::vp::VirtualPlatform soc("soc", config);
  try {
    const tlmgpu::vp::LoadedElf elf = tlmgpu::vp::load_elf(
        options.firmware, [&soc](uint64_t address, const uint8_t* data, uint64_t bytes) {
          return soc.write_ram(address, data, bytes);
        });
    soc.cpu.set_reset_pc(elf.entry);
  } catch (const std::exception& e) {
    std::cerr << "tlmgpu_vp: " << e.what() << "\n";
    return kExitBadInput;
  }
  sc_core::sc_trace_file* vcd = nullptr;
  if (!options.vcd.empty()) {
    vcd = open_vcd(options.vcd, soc);
  }

  const auto wall_start = std::chrono::steady_clock::now();
  try {
    sc_core::sc_start();
  } catch (const std::exception& e) {
    std::cout.flush();
    std::cerr << "tlmgpu_vp: simulation error: " << e.what() << "\n";
    return kExitCpuFault;
  }
  const double wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
  std::cout.flush();
  if (vcd != nullptr) {
    sc_core::sc_close_vcd_trace_file(vcd);
  }

  int exit_code = 0;
  if (soc.cpu.fault()) {
    std::cerr << "tlmgpu_vp: " << *soc.cpu.fault() << "\n";
    exit_code = kExitCpuFault;
  } else if (soc.finisher.exit_code()) {
    exit_code = static_cast<int>(*soc.finisher.exit_code() & 0xFF);
  } else if (soc.cpu.waiting_for_interrupt()) {
    std::cerr << "tlmgpu_vp: the firmware sleeps in wfi at PC 0x" << std::hex << soc.cpu.pc() << std::dec
              << " and nothing is left that could wake it\n";
    exit_code = kExitNoFinish;
  } else {
    std::cerr << "tlmgpu_vp: the simulation ended without the firmware writing the test finisher\n";
    exit_code = kExitNoFinish;
  }
  if (options.report) {
    const double instructions = static_cast<double>(soc.cpu.instructions());
    std::fprintf(stderr,
                 "vp: %.0f guest instructions, %.3f us simulated, %.3f s wall, %.1f million guest instructions/s, "
                 "%llu interrupts\n",
                 instructions, sc_core::sc_time_stamp().to_seconds() * 1e6, wall_seconds, instructions / wall_seconds / 1e6,
                 static_cast<unsigned long long>(soc.cpu.interrupts_taken()));
    const std::pair<const tlmgpu::GpuPeripheral*, uint64_t> gpus[] = {{soc.gpu.get(), VP_GPU_BASE},
                                                                         {soc.gpu1.get(), VP_GPU1_BASE}};
    for (const auto& [gpu, base] : gpus) {
      if (gpu == nullptr) {
        continue;
      }
      const double warp_insts = static_cast<double>(gpu_counter(soc, base, TLMGPU_REG_WARP_INSTS_LO));
      std::fprintf(stderr,
                   "vp: %s (%s, %s) %.0f warp instructions, %.0f cycles, %.1f thousand warp instructions/s\n",
                   gpu->basename(), gpu->config().preset.c_str(), options.gpu_mode.c_str(), warp_insts,
                   static_cast<double>(gpu_counter(soc, base, TLMGPU_REG_CYCLES_LO)), warp_insts / wall_seconds / 1e3);
    }
  }
  return exit_code;
}
