// The platform's simple parts: bus decoding and errors, the UART on stdout,
// the finisher, the ELF loader's errors.
#include <gtest/gtest.h>

#include <fstream>

#include "tests/vp/vp_test_bench.h"
#include "vp/elf_loader.h"

namespace tlmgpu::vp::test {
namespace {

TEST(Bus, OverlappingRegionsAreRefused) {
  Bus bus("bus");
  bus.map_target("a", 0x1000, 0x1000, 0);
  EXPECT_THROW(bus.map_target("b", 0x1800, 0x1000, 1), std::invalid_argument);
  EXPECT_THROW(bus.map_target("c", 0x0, 0, 1), std::invalid_argument);
  bus.map_target("d", 0x2000, 0x10, 1);
  ASSERT_NE(bus.decode(0x2000), nullptr);
  EXPECT_EQ(bus.decode(0x2000)->name, "d");
  EXPECT_EQ(bus.decode(0x1fff)->name, "a");
  EXPECT_EQ(bus.decode(0x2010), nullptr);
  EXPECT_EQ(bus.decode(0xfff), nullptr);
}

TEST(Uart, WritesGoToStdout) {
  Uart uart("uart"); // default output: std::cout
  tlm::tlm_generic_payload t;
  sc_core::sc_time delay;
  uint8_t byte = 'x';
  t.set_command(tlm::TLM_WRITE_COMMAND);
  t.set_address(Uart::kTransmitHolding);
  t.set_data_ptr(&byte);
  t.set_data_length(1);
  t.set_streaming_width(1);
  testing::internal::CaptureStdout();
  uart.socket.get_base_interface().b_transport(t, delay);
  byte = '\n';
  uart.socket.get_base_interface().b_transport(t, delay);
  EXPECT_EQ(testing::internal::GetCapturedStdout(), "x\n");
  EXPECT_TRUE(t.is_response_ok());
  EXPECT_EQ(uart.bytes_written(), 2u);
  t.set_address(Uart::kRegisterBytes); // past the registers
  uart.socket.get_base_interface().b_transport(t, delay);
  EXPECT_EQ(t.get_response_status(), tlm::TLM_ADDRESS_ERROR_RESPONSE);
}

TEST(TestFinisher, RecordsTheFirstExitCode) {
  TestFinisher finisher("finisher");
  tlm::tlm_generic_payload t;
  sc_core::sc_time delay;
  uint32_t code = 42;
  t.set_command(tlm::TLM_WRITE_COMMAND);
  t.set_address(TestFinisher::kExitCode);
  t.set_data_ptr(reinterpret_cast<unsigned char*>(&code));
  t.set_data_length(4);
  t.set_streaming_width(4);
  EXPECT_FALSE(finisher.exit_code().has_value());
  finisher.socket.get_base_interface().b_transport(t, delay);
  ASSERT_TRUE(finisher.exit_code().has_value());
  EXPECT_EQ(*finisher.exit_code(), 42u);
  code = 5;
  finisher.socket.get_base_interface().b_transport(t, delay);
  EXPECT_EQ(*finisher.exit_code(), 42u);
  t.set_data_length(2);
  finisher.socket.get_base_interface().b_transport(t, delay);
  EXPECT_EQ(t.get_response_status(), tlm::TLM_ADDRESS_ERROR_RESPONSE);
}

TEST(ElfLoader, RejectsWhatIsNotARiscvExecutable) {
  const auto writer = [](uint64_t, const uint8_t*, uint64_t) { return true; };
  EXPECT_THROW(load_elf("/nonexistent.elf", writer), std::runtime_error);
  const std::string path = testing::TempDir() + "not_elf.bin";
  std::ofstream(path) << "just some text, long enough to look like a header............................";
  try {
    load_elf(path, writer);
    FAIL() << "no error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("not an ELF file"), std::string::npos) << e.what();
  }
}

TEST(ElfLoader, LoadsTheFirmwareSegmentsAndEntry) {
  uint64_t lowest = ~0ull, bytes = 0;
  const LoadedElf elf = load_elf(std::string(TLMGPU_FIRMWARE_DIR) + "/hello.elf",
                                 [&](uint64_t address, const uint8_t*, uint64_t n) {
                                   lowest = std::min(lowest, address);
                                   bytes += n;
                                   return true;
                                 });
  EXPECT_EQ(elf.entry, VP_RAM_BASE);
  EXPECT_EQ(lowest, VP_RAM_BASE);
  EXPECT_EQ(bytes, elf.bytes_loaded);
  EXPECT_THROW(load_elf(std::string(TLMGPU_FIRMWARE_DIR) + "/hello.elf",
                        [](uint64_t, const uint8_t*, uint64_t) { return false; }),
               std::runtime_error);
}

} // namespace
} // namespace tlmgpu::vp::test
