// The firmware programs on the whole platform (tlmgpu_vp as a child process):
// each GPU program must print PASS and exit 0 under both GPU modes.
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <fstream>
#include <set>
#include <vector>
#include <sstream>
#include <string>
#include <sys/wait.h>

namespace {

struct RunResult {
  int exit_code;
  std::string output; // stdout and stderr
};

RunResult run_vp(const std::string& arguments) {
  const std::string command = std::string(TLMGPU_VP_CLI) + " " + arguments + " 2>&1";
  FILE* pipe = popen(command.c_str(), "r");
  RunResult result{-1, ""};
  if (pipe == nullptr) {
    return result;
  }
  std::array<char, 4096> buffer;
  size_t n;
  while ((n = fread(buffer.data(), 1, buffer.size(), pipe)) > 0) {
    result.output.append(buffer.data(), n);
  }
  const int status = pclose(pipe);
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return result;
}

std::string firmware(const std::string& program) {
  return std::string(TLMGPU_FIRMWARE_DIR) + "/" + program + ".elf";
}

class FirmwareOnGpu : public ::testing::TestWithParam<std::tuple<std::string, std::string>> {};

TEST_P(FirmwareOnGpu, PassesItsCpuCheck) {
  const auto& [program, mode] = GetParam();
  const RunResult r = run_vp("--firmware " + firmware(program) + " --gpu-mode " + mode);
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find(program + ": PASS"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("FAIL"), std::string::npos) << r.output;
}

INSTANTIATE_TEST_SUITE_P(Programs, FirmwareOnGpu,
                         ::testing::Combine(::testing::Values("vector_add", "sgemm", "histogram", "transactions",
                                                              "errors"),
                                            ::testing::Values("lt", "timing")),
                         [](const auto& param_info) { return std::get<0>(param_info.param) + "_" + std::get<1>(param_info.param); });

// The VP's --report lines: "vp: <gpu> (<preset>, <mode>) N warp instructions, C cycles, ...".
struct GpuReport {
  bool present = false;
  std::string preset;
  double warp_insts = 0, cycles = 0;
};
GpuReport gpu_report(const std::string& output, const std::string& gpu) {
  GpuReport r;
  const std::string key = "vp: " + gpu + " (";
  const size_t at = output.find(key);
  if (at == std::string::npos) {
    return r;
  }
  std::istringstream line(output.substr(at + key.size(), output.find('\n', at) - at - key.size()));
  std::string mode, unit;
  std::getline(line, r.preset, ',');
  line >> mode >> r.warp_insts >> unit >> unit >> r.cycles;
  r.present = !line.fail();
  return r;
}

// Two GPUs of different presets in one SoC: sgemm on one, vector_add on the
// other at the same time; both verified by the firmware, and the VP's
// statistics show both GPUs' work.
class TwoGpus : public ::testing::TestWithParam<std::string> {};

TEST_P(TwoGpus, RunSgemmAndVectorAddAtOnce) {
  const RunResult r = run_vp("--firmware " + firmware("two_gpus") + " --gpu-mode " + GetParam() +
                             " --preset gtx480 --gpu1-preset titanx_pascal --report");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("two_gpus: GPU 0 is gtx480, GPU 1 is titanx_pascal"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("two_gpus: both GPUs busy at once: ok"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("two_gpus: PASS"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("FAIL"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("WRONG"), std::string::npos) << r.output;
  const GpuReport first = gpu_report(r.output, "gpu"), second = gpu_report(r.output, "gpu1");
  ASSERT_TRUE(first.present) << r.output;
  ASSERT_TRUE(second.present) << r.output;
  EXPECT_EQ(first.preset, "gtx480");
  EXPECT_EQ(second.preset, "titanx_pascal");
  EXPECT_GT(first.warp_insts, 0) << r.output;
  EXPECT_GT(first.cycles, 0) << r.output;
  EXPECT_GT(second.warp_insts, 0) << r.output;
  EXPECT_GT(second.cycles, 0) << r.output;
  // Different kernels: sgemm's instructions are not vector_add's.
  EXPECT_NE(first.warp_insts, second.warp_insts);
}

INSTANTIATE_TEST_SUITE_P(Modes, TwoGpus, ::testing::Values("lt", "timing"));

// A kernel that hangs; the firmware resets the GPU through the reset
// controller, sees the registers at power-on and no interrupt, and runs
// vector_add after it.
class HungGpu : public ::testing::TestWithParam<std::string> {};

TEST_P(HungGpu, ResetThroughTheResetControllerAndGoOn) {
  const RunResult r =
      run_vp("--firmware " + firmware("hung_gpu") + " --gpu-mode " + GetParam() + " --watchdog off --report");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  for (const char* check : {"the GPU hangs (still busy): ok",
                            "held in reset: the registers read their power-on values: ok",
                            "held in reset: writes change nothing: ok",
                            "released: IRQ_STATUS stays 0, the aborted launch does not complete: ok",
                            "no interrupt from the reset: ok", "vector_add after the reset matches the CPU: ok",
                            "hung_gpu: PASS"}) {
    EXPECT_NE(r.output.find(check), std::string::npos) << check << "\n" << r.output;
  }
  EXPECT_EQ(r.output.find("WRONG"), std::string::npos) << r.output;
  // The counters restarted at the reset: only vector_add's work is left in them.
  const GpuReport gpu = gpu_report(r.output, "gpu");
  ASSERT_TRUE(gpu.present) << r.output;
  EXPECT_GT(gpu.warp_insts, 0);
}

INSTANTIATE_TEST_SUITE_P(Modes, HungGpu, ::testing::Values("lt", "timing"));

TEST(VpCommand, SecondGpuOptionsAreChecked) {
  // The two-GPU program on a one-GPU platform says what is missing.
  RunResult r = run_vp("--firmware " + firmware("two_gpus"));
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("no second GPU"), std::string::npos) << r.output;
  r = run_vp("--firmware " + firmware("hello") + " --gpu-mode none --gpu1-preset gtx480");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("--gpu1-preset"), std::string::npos) << r.output;
  r = run_vp("--firmware " + firmware("hello") + " --gpu1-preset no_such_preset");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("no_such_preset"), std::string::npos) << r.output;
  for (const char* bad : {"0", "-1", "12abc", "", "99999999999999999999"}) {
    r = run_vp("--firmware " + firmware("hello") + " --watchdog '" + bad + "'");
    EXPECT_EQ(r.exit_code, 2) << bad << ": " << r.output;
    EXPECT_NE(r.output.find("--watchdog"), std::string::npos) << bad << ": " << r.output;
  }
}

TEST(VpCommand, VcdShowsBothGpusAndTheResetLines) {
  const std::string vcd = testing::TempDir() + "vp_two_gpus.vcd";
  const RunResult r = run_vp("--firmware " + firmware("two_gpus") + " --gpu1-preset vortex_1sm --vcd " + vcd);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  std::ifstream in(vcd);
  std::stringstream text;
  text << in.rdbuf();
  for (const char* signal : {"interrupt_line", "gpu_irq", "gpu1_irq", "gpu_reset", "gpu1_reset"}) {
    EXPECT_NE(text.str().find(" " + std::string(signal) + " "), std::string::npos) << signal;
  }
  EXPECT_NE(text.str().find("gpu1_probe"), std::string::npos);
}

TEST(VpCommand, HelloRunsWithoutAGpu) {
  const RunResult r = run_vp("--firmware " + firmware("hello") + " --gpu-mode none");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(r.output, "hello from the RISC-V hart\n");
}

TEST(VpCommand, GpuProgramWithoutAGpuFailsWithItsExitCode) {
  // gpu_init reads the ID register where no GPU is: the bus error is
  // reported with its PC and reaches the firmware's trap handler as a load
  // access fault, which it did not expect: it prints FAIL and exits 100.
  const RunResult r = run_vp("--firmware " + firmware("vector_add") + " --gpu-mode none");
  EXPECT_EQ(r.exit_code, 100) << r.output;
  EXPECT_NE(r.output.find("load from 0x20000000"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("FAIL: unexpected trap, mcause 0x5"), std::string::npos) << r.output;
}

TEST(VpCommand, BadInputIsAClearError) {
  RunResult r = run_vp("--firmware /nonexistent.elf");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("cannot be opened"), std::string::npos) << r.output;
  r = run_vp("--firmware " + firmware("hello") + " --gpu-mode fast");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("--gpu-mode"), std::string::npos) << r.output;
  r = run_vp("--firmware " + firmware("hello") + " --scheduler no_such_policy");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  r = run_vp("");
  EXPECT_EQ(r.exit_code, 2);
}

TEST(VpCommand, VcdShowsThePlatformAndTheGpuSignals) {
  const std::string vcd = testing::TempDir() + "vp_vector_add.vcd";
  const RunResult r = run_vp("--firmware " + firmware("vector_add") + " --gpu-mode timing --vcd " + vcd);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  std::ifstream in(vcd);
  std::stringstream text;
  text << in.rdbuf();
  for (const char* signal : {"interrupt_line", "doorbell", "status", "ctas_waiting", "stall_class", "issued_warp",
                             "queue_depth"}) {
    EXPECT_NE(text.str().find(signal), std::string::npos) << signal;
  }
}

// Every signal the shipped GTKWave save file shows exists in a timing-mode
// VCD under that hierarchical name, and the stall-class filter it names exists.
TEST(VpCommand, GtkwaveSaveFileMatchesTheVcd) {
  const std::string vcd = testing::TempDir() + "vp_histogram.vcd";
  const RunResult r = run_vp("--firmware " + firmware("histogram") + " --gpu-mode timing --vcd " + vcd);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  std::set<std::string> names;
  std::vector<std::string> scope;
  std::ifstream in(vcd);
  for (std::string word; in >> word;) {
    if (word == "$scope") {
      std::string kind, name;
      in >> kind >> name;
      scope.push_back(name);
    } else if (word == "$upscope") {
      scope.pop_back();
    } else if (word == "$var") {
      std::string kind, width, id, name;
      in >> kind >> width >> id >> name;
      std::string full;
      for (const std::string& s : scope) full += s + ".";
      names.insert(full + name);
    } else if (word == "$enddefinitions") {
      break;
    }
  }
  std::ifstream save(std::string(TLMGPU_SOURCE_DIR) + "/vp/tlmgpu_vp.gtkw");
  ASSERT_TRUE(save.good());
  unsigned signals = 0, filters = 0;
  for (std::string line; std::getline(save, line);) {
    if (line.rfind("SystemC.", 0) == 0) {
      const std::string name = line.substr(0, line.find('['));
      EXPECT_EQ(names.count(name), 1u) << name;
      ++signals;
    } else if (line.rfind("^1 ", 0) == 0) {
      EXPECT_TRUE(std::ifstream(std::string(TLMGPU_SOURCE_DIR) + "/" + line.substr(3)).good()) << line;
      ++filters;
    }
  }
  EXPECT_GE(signals, 10u);
  EXPECT_GE(filters, 1u);
}

TEST(VpCommand, ReportGivesSpeeds) {
  const RunResult r = run_vp("--firmware " + firmware("vector_add") + " --gpu-mode lt --report");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("guest instructions/s"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("warp instructions/s"), std::string::npos) << r.output;
}

} // namespace
