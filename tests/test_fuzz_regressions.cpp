// Every input a fuzzer found a problem with (tests/fuzz_regressions/TARGET/)
// and every hand-made seed (fuzz/corpus/TARGET/), fed through the fuzz
// target's own entry point (fuzz/fuzz_inputs.h) in the normal build: each
// must end cleanly, accepted or rejected with the project's error, never with
// another exception, a broken property or a crash. docs/RELIABILITY.md lists
// the findings.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "fuzz/fuzz_inputs.h"
#include "platform/launch_file.h"
#include "tests/soc_test_support.h"

namespace fs = std::filesystem;

namespace {

/// The files of fuzz/corpus/TARGET and tests/fuzz_regressions/TARGET, sorted.
std::vector<fs::path> inputs_of(const std::string& target) {
  std::vector<fs::path> files;
  for (const std::string dir : {"fuzz/corpus/", "tests/fuzz_regressions/"}) {
    const fs::path d = fs::path(TLMGPU_SOURCE_DIR) / (dir + target);
    if (!fs::is_directory(d)) continue;
    for (const auto& e : fs::directory_iterator(d))
      if (e.is_regular_file() && e.path().filename().string()[0] != '.') files.push_back(e.path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

std::vector<uint8_t> bytes_of(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

template <typename Entry>
void feed_all(const std::string& target, Entry entry) {
  const std::vector<fs::path> files = inputs_of(target);
  ASSERT_FALSE(files.empty()) << "no inputs for " << target;
  for (const fs::path& f : files) {
    SCOPED_TRACE(f.string());
    const std::vector<uint8_t> data = bytes_of(f);
    EXPECT_NO_THROW(entry(data.data(), data.size()));
  }
}

}  // namespace

TEST(FuzzRegressions, PtxInputsEndCleanly) { feed_all("ptx", tlmgpu::fuzz::ptx_input); }
TEST(FuzzRegressions, LaunchFileInputsEndCleanly) { feed_all("launch_file", tlmgpu::fuzz::launch_file_input); }
TEST(FuzzRegressions, ConfigInputsEndCleanly) { feed_all("config", tlmgpu::fuzz::config_input); }
TEST(FuzzRegressions, MmioInputsEndCleanly) { feed_all("mmio", tlmgpu::fuzz::mmio_input); }
TEST(FuzzRegressions, FatbinInputsEndCleanly) { feed_all("fatbin", tlmgpu::fuzz::fatbin_input); }

// fuzz_launch_file's first finding: a number too large for a double escaped
// the launch-file reader as nlohmann's out_of_range exception (no file, no
// line). It is a LaunchFileError naming the file and the number's line.
TEST(FuzzRegressions, LaunchFileNumberOverflowNamesFileAndLine) {
  try {
    tlmgpu::platform::LaunchFile::parse("{\n  \"ptx\": \"k.ptx\",\n  \"x\": 1e999\n}\n", "big.json", ".");
    FAIL() << "no error";
  } catch (const tlmgpu::platform::LaunchFileError& e) {
    EXPECT_STREQ(e.what(), "launch file big.json: JSON number overflow parsing '1e999' at line 3");
  }
}

// fuzz_mmio's finding: a PTX image whose range runs past the top of the
// 64-bit address space wrapped around to address 0 inside the DMI region
// and was read from before the region's start (UBSan: pointer overflow). It
// is a memory error naming the address.
TEST(FuzzRegressions, PtxImageAtTheTopOfTheAddressSpaceIsAMemoryError) {
  using namespace tlmgpu_soctest;
  tlmgpu::core::GpuConfig config = tlmgpu::preset("gtx480");
  config.num_sms = 2;
  Soc soc(config);
  soc.setup_queue();
  const uint64_t top = ~uint64_t(0) - 7;
  soc.queue(descriptor({top, 16}, soc.put_name("k", 0), 1, 32, kParamBase, 0));
  soc.doorbell();
  soc.run_until_idle();
  EXPECT_EQ(soc.cpu.read(TLMGPU_REG_STATUS), TLMGPU_STATUS_ERROR);
  EXPECT_EQ(soc.cpu.read(TLMGPU_REG_ERROR_CODE), TLMGPU_ERROR_MEMORY) << soc.cpu.error_message();
  EXPECT_EQ(soc.cpu.read64(TLMGPU_REG_ERROR_ADDRESS_LO), top);
}
