// The hart on Unicorn: instructions, DMI RAM, MMIO through the socket,
// unmapped accesses, wfi, the external interrupt trap and mret.
#include <gtest/gtest.h>

#include "tests/vp/vp_test_bench.h"

namespace tlmgpu::vp::test {
namespace {

// Encodings from riscv64-unknown-elf-as (-march=rv64imafd).
constexpr uint32_t kWfi = 0x10500073;

TEST(RiscvCpu, RunsInstructionsStoresToRamAndFinishes) {
  Bench bench({
      0x00001297, // auipc t0, 1          t0 = 0x80001000
      0x02a00313, // li t1, 42
      0x0062a023, // sw t1, 0(t0)
      0x001003b7, // lui t2, 0x100        the finisher
      0x00700513, // li a0, 7
      0x00a3a023, // sw a0, 0(t2)
      kWfi,
  });
  sc_core::sc_start();
  EXPECT_FALSE(bench.soc.cpu.fault().has_value());
  ASSERT_TRUE(bench.soc.finisher.exit_code().has_value());
  EXPECT_EQ(*bench.soc.finisher.exit_code(), 7u);
  EXPECT_EQ(bench.ram_word(0x80001000), 42u);
  EXPECT_EQ(bench.soc.cpu.read_register(UC_RISCV_REG_T1), 42u);
  // The hart stops right after the store to the finisher: six instructions.
  EXPECT_EQ(bench.soc.cpu.instructions(), 6u);
  EXPECT_EQ(bench.soc.cpu.mmio_accesses(), 1u);
}

TEST(RiscvCpu, MmioGoesThroughTheSocketToTheUart) {
  Bench bench({
      0x100002b7, // lui t0, 0x10000      the UART
      0x04800313, // li t1, 'H'
      0x00628023, // sb t1, 0(t0)
      0x00a00313, // li t1, '\n'
      0x00628023, // sb t1, 0(t0)
      0x0052c303, // lbu t1, 5(t0)       LSR
      0x001003b7, // lui t2, 0x100
      0x0063a023, // sw t1, 0(t2)        exit code = LSR
      kWfi,
  });
  sc_core::sc_start();
  EXPECT_EQ(bench.uart_output.str(), "H\n");
  ASSERT_TRUE(bench.soc.finisher.exit_code().has_value());
  EXPECT_EQ(*bench.soc.finisher.exit_code(), Uart::kLineStatusTransmitterEmpty);
  EXPECT_EQ(bench.soc.cpu.mmio_accesses(), 4u);
}

TEST(RiscvCpu, UnmappedLoadIsReportedWithItsPc) {
  Bench bench({
      0x00000013, // nop
      0x300002b7, // lui t0, 0x30000      nothing is mapped there
      0x0002a303, // lw t1, 0(t0)        at 0x80000008
      kWfi,
  });
  sc_core::sc_start();
  ASSERT_TRUE(bench.soc.cpu.fault().has_value());
  const std::string& fault = *bench.soc.cpu.fault();
  EXPECT_NE(fault.find("load from 0x30000000"), std::string::npos) << fault;
  EXPECT_NE(fault.find("PC 0x80000008"), std::string::npos) << fault;
  EXPECT_NE(fault.find("ADDRESS_ERROR"), std::string::npos) << fault;
  EXPECT_FALSE(bench.soc.finisher.exit_code().has_value());
}

TEST(RiscvCpu, BusErrorWithATrapVectorIsAPreciseLoadAccessFault) {
  std::vector<uint32_t> program = {
      0x00000297, // 0x00 auipc t0, 0
      0x10028293, // 0x04 addi t0, t0, 0x100   handler
      0x30529073, // 0x08 csrw mtvec, t0
      0x06300313, // 0x0c li t1, 99
      0x300002b7, // 0x10 lui t0, 0x30000
      0x0002a303, // 0x14 lw t1, 0(t0)        faults; t1 keeps 99
      0x00130313, // 0x18 addi t1, t1, 1       never runs
      kWfi,
  };
  program.resize(0x100 / 4, 0x00000013);
  for (uint32_t word : {0x342025f3u,   // csrr a1, mcause
                        0x34102673u,   // csrr a2, mepc
                        0x343026f3u,   // csrr a3, mtval
                        0x001003b7u,   // lui t2, 0x100
                        0x00500513u,   // li a0, 5
                        0x00a3a023u,   // sw a0, 0(t2)
                        kWfi}) {
    program.push_back(word);
  }
  Bench bench(program);
  sc_core::sc_start();
  EXPECT_FALSE(bench.soc.cpu.fault().has_value());
  ASSERT_TRUE(bench.soc.finisher.exit_code().has_value());
  EXPECT_EQ(*bench.soc.finisher.exit_code(), 5u);
  EXPECT_EQ(bench.soc.cpu.bus_errors(), 1u);
  EXPECT_EQ(bench.soc.cpu.read_register(UC_RISCV_REG_A1), 5u);           // load access fault
  EXPECT_EQ(bench.soc.cpu.read_register(UC_RISCV_REG_A2), 0x80000014u);  // the lw
  EXPECT_EQ(bench.soc.cpu.read_register(UC_RISCV_REG_A3), 0x30000000u);  // the address
  EXPECT_EQ(bench.soc.cpu.read_register(UC_RISCV_REG_T1), 99u);          // not written
}

TEST(RiscvCpu, FetchOutsideMemoryIsReported) {
  Bench bench({
      0x300002b7, // lui t0, 0x30000
      0x00028067, // jr t0
  });
  sc_core::sc_start();
  ASSERT_TRUE(bench.soc.cpu.fault().has_value());
  EXPECT_NE(bench.soc.cpu.fault()->find("fetch from 0x30000000"), std::string::npos)
      << *bench.soc.cpu.fault();
}

TEST(RiscvCpu, AccessOutsideTheAddressSpaceIsReportedWithItsPc) {
  Bench bench({
      0x00000013, // nop
      0x800002b7, // lui t0, 0x80000      sign-extends to 0xffffffff80000000
      0x0002a303, // lw t1, 0(t0)        at 0x80000008
  });
  sc_core::sc_start();
  ASSERT_TRUE(bench.soc.cpu.fault().has_value());
  EXPECT_NE(bench.soc.cpu.fault()->find("load from 0xffffffff80000000"), std::string::npos) << *bench.soc.cpu.fault();
  EXPECT_NE(bench.soc.cpu.fault()->find("PC 0x80000008"), std::string::npos) << *bench.soc.cpu.fault();
}

TEST(RiscvCpu, IllegalInstructionIsReportedWithItsPc) {
  Bench bench({
      0x00000013, // nop
      0x00000013, // nop
      0x00000000, // illegal, at 0x80000008
  });
  sc_core::sc_start();
  ASSERT_TRUE(bench.soc.cpu.fault().has_value());
  EXPECT_NE(bench.soc.cpu.fault()->find("illegal instruction"), std::string::npos) << *bench.soc.cpu.fault();
  EXPECT_NE(bench.soc.cpu.fault()->find("PC 0x80000008"), std::string::npos) << *bench.soc.cpu.fault();
}

// Sets up the trap vector and interrupt enables, asks the source for an
// interrupt 5 us later, sleeps in wfi. The handler records mcause and mepc
// in a1/a2, acknowledges, returns; the program then exits with code 9.
std::vector<uint32_t> interrupt_program(bool global_enable) {
  std::vector<uint32_t> p = {
      0x00000297, // 0x00 auipc t0, 0
      0x10028293, // 0x04 addi t0, t0, 0x100   handler
      0x30529073, // 0x08 csrw mtvec, t0
      0x00001337, // 0x0c lui t1, 1
      0x80030313, // 0x10 addi t1, t1, -2048   mie.MEIE
      0x30431073, // 0x14 csrw mie, t1
      global_enable ? 0x30046073u : 0x00000013u, // 0x18 csrsi mstatus, 8 (or nop)
      0x400002b7, // 0x1c lui t0, 0x40000      interrupt source
      0x00001337, // 0x20 lui t1, 1            4096 ns
      0x0062a023, // 0x24 sw t1, 0(t0)
      kWfi,       // 0x28
      0x001003b7, // 0x2c lui t2, 0x100
      0x00900513, // 0x30 li a0, 9
      0x00a3a023, // 0x34 sw a0, 0(t2)
      kWfi,       // 0x38
  };
  p.resize(0x100 / 4, 0x00000013);
  const std::vector<uint32_t> handler = {
      0x342025f3, // csrr a1, mcause
      0x34102673, // csrr a2, mepc
      0x40000537, // lui a0, 0x40000
      0x00052223, // sw zero, 4(a0)          acknowledge: the line falls
      0x30200073, // mret
  };
  p.insert(p.end(), handler.begin(), handler.end());
  return p;
}

TEST(RiscvCpu, WfiSleepsUntilTheInterruptWhichTrapsToMtvecAndMretReturns) {
  Bench bench(interrupt_program(true));
  sc_core::sc_start();
  EXPECT_FALSE(bench.soc.cpu.fault().has_value()) << *bench.soc.cpu.fault();
  ASSERT_TRUE(bench.soc.finisher.exit_code().has_value());
  EXPECT_EQ(*bench.soc.finisher.exit_code(), 9u);
  EXPECT_EQ(bench.soc.cpu.interrupts_taken(), 1u);
  EXPECT_EQ(bench.soc.cpu.read_register(UC_RISCV_REG_A1), 0x800000000000000bull); // machine external
  EXPECT_EQ(bench.soc.cpu.read_register(UC_RISCV_REG_A2), 0x8000002cull);         // after the wfi
  // mret restored mstatus.MIE from MPIE.
  EXPECT_NE(bench.soc.cpu.read_register(UC_RISCV_REG_MSTATUS) & 0x8, 0u);
  // The hart slept: the interrupt came 4096 ns after the store (10th instruction).
  EXPECT_GE(sc_core::sc_time_stamp(), sc_core::sc_time(4096 + 10, sc_core::SC_NS));
  EXPECT_LT(bench.soc.cpu.instructions(), 40u);
}

TEST(RiscvCpu, WfiWakesWithInterruptsDisabledWithoutTrapping) {
  Bench bench(interrupt_program(false));
  sc_core::sc_start();
  ASSERT_TRUE(bench.soc.finisher.exit_code().has_value());
  EXPECT_EQ(*bench.soc.finisher.exit_code(), 9u);
  EXPECT_EQ(bench.soc.cpu.interrupts_taken(), 0u);
}

TEST(RiscvCpu, WfiWithNothingToWakeItEndsTheSimulation) {
  Bench bench({0x00000013, kWfi});
  sc_core::sc_start();
  EXPECT_TRUE(bench.soc.cpu.waiting_for_interrupt());
  EXPECT_EQ(bench.soc.cpu.pc(), 0x80000008u);
  EXPECT_FALSE(bench.soc.cpu.fault().has_value());
}

TEST(RiscvCpu, InstructionLimitStopsAnEndlessLoop) {
  Bench bench({0x0000006f /* j . */}, 5000);
  sc_core::sc_start();
  ASSERT_TRUE(bench.soc.cpu.fault().has_value());
  EXPECT_NE(bench.soc.cpu.fault()->find("limit of 5000 instructions"), std::string::npos);
  EXPECT_EQ(bench.soc.cpu.instructions(), 5000u);
}

// A memory that grants DMI to one of two buffers and, when told, switches to
// the other and invalidates the pointer it gave out.
class SwitchingMemory : public sc_core::sc_module {
public:
  tlm_utils::simple_target_socket<SwitchingMemory> socket{"socket"};
  std::vector<uint8_t> first = std::vector<uint8_t>(4096, 0), second = std::vector<uint8_t>(4096, 0);
  bool use_second = false;
  unsigned grants = 0;

  explicit SwitchingMemory(sc_core::sc_module_name name) : sc_core::sc_module(name) {
    socket.register_b_transport(this, &SwitchingMemory::b_transport);
    socket.register_get_direct_mem_ptr(this, &SwitchingMemory::get_direct_mem_ptr);
  }
  void switch_buffers() {
    use_second = true;
    socket->invalidate_direct_mem_ptr(0, 4095);
  }

private:
  void b_transport(tlm::tlm_generic_payload& trans, sc_core::sc_time&) {
    trans.set_response_status(tlm::TLM_GENERIC_ERROR_RESPONSE); // DMI only
  }
  bool get_direct_mem_ptr(tlm::tlm_generic_payload&, tlm::tlm_dmi& dmi) {
    ++grants;
    dmi.set_dmi_ptr((use_second ? second : first).data());
    dmi.set_start_address(0);
    dmi.set_end_address(4095);
    dmi.set_granted_access(tlm::tlm_dmi::DMI_ACCESS_READ_WRITE);
    return true;
  }
};

TEST(RiscvCpu, DmiInvalidationMapsTheNewPointer) {
  Bench bench({
      0x500002b7, // lui t0, 0x50000
      0x0002a303, // 1: lw t1, 0(t0)      DMI
      0xfe030ee3, // beqz t1, 1b
      0x001003b7, // lui t2, 0x100
      0x0063a023, // sw t1, 0(t2)        exit code = what was read
      kWfi,
  }, 10'000'000);
  SwitchingMemory memory("memory");
  bench.soc.bus.downstream.bind(memory.socket);
  bench.soc.bus.map_target("switching", 0x50000000, 4096, bench.soc.first_free_port() + 1);
  memory.second[0] = 33;
  sc_core::sc_spawn([&memory] {
    sc_core::wait(50, sc_core::SC_US);
    memory.switch_buffers();
  });
  sc_core::sc_start();
  EXPECT_FALSE(bench.soc.cpu.fault().has_value()) << *bench.soc.cpu.fault();
  ASSERT_TRUE(bench.soc.finisher.exit_code().has_value());
  EXPECT_EQ(*bench.soc.finisher.exit_code(), 33u);
  EXPECT_EQ(memory.grants, 2u);
  EXPECT_GE(sc_core::sc_time_stamp(), sc_core::sc_time(50, sc_core::SC_US));
}

TEST(RiscvCpu, QuantaAdvanceSimulatedTimeByTheClockPeriod) {
  // 1,000,000 iterations of a two-instruction loop, then exit.
  Bench bench({
      0x000f42b7, // lui t0, 0xf4         t0 = 0xf4000
      0x24028293, // addi t0, t0, 0x240   t0 = 1000000
      0xfff28293, // 1: addi t0, t0, -1
      0xfe029ee3, // bnez t0, 1b
      0x001003b7, // lui t2, 0x100
      0x0003a023, // sw zero, 0(t2)
      kWfi,
  }, 0);
  sc_core::sc_start();
  ASSERT_TRUE(bench.soc.finisher.exit_code().has_value());
  EXPECT_EQ(bench.soc.cpu.instructions(), 2u + 2'000'000u + 2u);
  // Time advanced one 1 ns period per instruction at each 10 us quantum; the
  // finisher stopped the simulation before the last partial quantum synced.
  EXPECT_EQ(sc_core::sc_time_stamp(), sc_core::sc_time(2, sc_core::SC_MS));
}

} // namespace
} // namespace tlmgpu::vp::test
