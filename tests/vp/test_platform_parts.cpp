// The platform's simple parts: bus decoding and errors, the UART on stdout,
// the finisher, the ELF loader's errors.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include <tlm_utils/simple_initiator_socket.h>

#include "tests/vp/vp_test_bench.h"
#include "vp/elf_loader.h"
#include "vp/reset_controller.h"

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

// One register; bit n drives output n at the writer's annotated time.
struct Initiator : sc_core::sc_module {
  tlm_utils::simple_initiator_socket<Initiator> socket{"socket"};
  explicit Initiator(sc_core::sc_module_name name) : sc_core::sc_module(name) {}
};

TEST(ResetController, BitsDriveTheResetLinesAtTheWritersTime) {
  ResetController controller("reset_controller", 2);
  Initiator cpu("cpu");
  cpu.socket.bind(controller.socket);
  sc_core::sc_signal<bool> line0("line0"), line1("line1");
  controller.reset[0].bind(line0);
  controller.reset[1].bind(line1);
  sc_core::sc_start(sc_core::SC_ZERO_TIME);
  tlm::tlm_generic_payload t;
  uint32_t value = 0x7; // bit 2 has no line: dropped
  t.set_command(tlm::TLM_WRITE_COMMAND);
  t.set_address(0);
  t.set_data_ptr(reinterpret_cast<unsigned char*>(&value));
  t.set_data_length(4);
  t.set_streaming_width(4);
  sc_core::sc_time delay(5, sc_core::SC_NS);
  cpu.socket->b_transport(t, delay);
  EXPECT_TRUE(t.is_response_ok());
  EXPECT_EQ(controller.value(), 0x3u);
  sc_core::sc_start(sc_core::sc_time(4, sc_core::SC_NS));
  EXPECT_FALSE(line0.read()); // not before the writer's local time
  sc_core::sc_start(sc_core::sc_time(2, sc_core::SC_NS));
  EXPECT_TRUE(line0.read());
  EXPECT_TRUE(line1.read());
  value = 0x2;
  delay = sc_core::SC_ZERO_TIME;
  cpu.socket->b_transport(t, delay);
  sc_core::sc_start(sc_core::sc_time(1, sc_core::SC_NS));
  EXPECT_FALSE(line0.read());
  EXPECT_TRUE(line1.read());
  value = 0;
  t.set_command(tlm::TLM_READ_COMMAND);
  cpu.socket->b_transport(t, delay);
  EXPECT_EQ(value, 0x2u);
  // Anything but a 4-byte access at offset 0 is an address error.
  t.set_address(4);
  cpu.socket->b_transport(t, delay);
  EXPECT_EQ(t.get_response_status(), tlm::TLM_ADDRESS_ERROR_RESPONSE);
  t.set_address(0);
  t.set_data_length(2);
  t.set_streaming_width(2);
  cpu.socket->b_transport(t, delay);
  EXPECT_EQ(t.get_response_status(), tlm::TLM_ADDRESS_ERROR_RESPONSE);
}

TEST(ResetController, LineCountIsChecked) {
  EXPECT_THROW(ResetController("none", 0), std::invalid_argument);
  EXPECT_THROW(ResetController("too_many", 33), std::invalid_argument);
}

// The platform's map with two GPUs: each window and the reset controller.
TEST(VirtualPlatform, TwoGpusHaveTheirOwnWindows) {
  VirtualPlatform::Config config;
  std::ostringstream uart;
  config.uart_output = &uart;
  config.gpu = VirtualPlatform::GpuSetup{platform::preset_config("gtx480"), {}};
  config.gpu1 = VirtualPlatform::GpuSetup{platform::preset_config("titanx_pascal"), {}};
  VirtualPlatform soc("soc", config);
  ASSERT_NE(soc.bus.decode(VP_GPU_BASE), nullptr);
  EXPECT_EQ(soc.bus.decode(VP_GPU_BASE)->name, "gpu");
  ASSERT_NE(soc.bus.decode(VP_GPU1_BASE), nullptr);
  EXPECT_EQ(soc.bus.decode(VP_GPU1_BASE)->name, "gpu1");
  ASSERT_NE(soc.bus.decode(VP_RESET_CTRL_BASE), nullptr);
  EXPECT_EQ(soc.bus.decode(VP_RESET_CTRL_BASE)->name, "reset_controller");
  EXPECT_EQ(soc.gpu->config().preset, "gtx480");
  EXPECT_EQ(soc.gpu1->config().preset, "titanx_pascal");
  EXPECT_STREQ(soc.gpu1->name(), "soc.gpu1");
  EXPECT_EQ(soc.first_free_port(), 6u);
}

TEST(VirtualPlatform, SecondGpuWithoutAFirstIsRefused) {
  VirtualPlatform::Config config;
  config.gpu1 = VirtualPlatform::GpuSetup{platform::preset_config("titanx_pascal"), {}};
  EXPECT_THROW(VirtualPlatform("soc", config), std::invalid_argument);
}

} // namespace
} // namespace tlmgpu::vp::test
