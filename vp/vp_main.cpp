// tlmgpu_vp: the RISC-V virtual platform. Loads a firmware ELF into RAM, runs
// the hart from its entry point and exits with the code the firmware writes
// to the test finisher. docs/VP.md describes the platform and its options.
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <iostream>
#include <stdexcept>
#include <string>

#include <boost/program_options.hpp>
#include <systemc>

#include "platform/systemc_banner.h"
#include "vp/elf_loader.h"
#include "vp/virtual_platform.h"

namespace {

namespace po = boost::program_options;

// The VP's own failures; firmware exit codes are its own business.
constexpr int kExitBadInput = 2;
constexpr int kExitCpuFault = 3;
constexpr int kExitNoFinish = 4;

struct Options {
  std::string firmware;
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
  if (!(o.cpu_mhz > 0) || !(o.quantum_us > 0)) {
    throw po::error("--cpu-mhz and --quantum-us must be positive");
  }
  return o;
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
  sc_core::sc_set_time_resolution(1, sc_core::SC_PS);
  tlmgpu::vp::VirtualPlatform::Config config;
  config.cpu.clock_period = sc_core::sc_time(1e6 / options.cpu_mhz, sc_core::SC_PS);
  config.cpu.quantum = sc_core::sc_time(options.quantum_us, sc_core::SC_US);
  config.cpu.max_instructions = options.max_instructions;
  tlmgpu::vp::VirtualPlatform soc("soc", config);
  try {
    const tlmgpu::vp::LoadedElf elf = tlmgpu::vp::load_elf(options.firmware, soc.bus);
    soc.cpu.set_reset_pc(elf.entry);
  } catch (const std::exception& e) {
    std::cerr << "tlmgpu_vp: " << e.what() << "\n";
    return kExitBadInput;
  }

  const auto wall_start = std::chrono::steady_clock::now();
  sc_core::sc_start();
  const double wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
  std::cout.flush();

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
                 "vp: %.0f guest instructions, %.6f s simulated, %.3f s wall, %.1f million guest instructions/s, "
                 "%llu interrupts\n",
                 instructions, sc_core::sc_time_stamp().to_seconds(), wall_seconds, instructions / wall_seconds / 1e6,
                 static_cast<unsigned long long>(soc.cpu.interrupts_taken()));
  }
  return exit_code;
}
