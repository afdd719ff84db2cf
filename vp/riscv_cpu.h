// An RV64GC hart (machine mode only) on the Unicorn engine, as a TLM-2.0
// initiator. It runs instructions in quanta under a tlm_quantumkeeper (one
// clock period per instruction); memory the bus grants DMI for (RAM) is
// mapped into Unicorn by host pointer, every other access becomes a
// b_transport through `socket` with the quantum's local time as its delay.
// `wfi` suspends the hart until `external_interrupt` is high and mie.MEIE is
// set; the interrupt is taken as a machine external interrupt (mcause
// 0x8000000000000000 | 11, mepc, mstatus.MPIE/MIE/MPP, pc = mtvec) when
// mstatus.MIE and mie.MEIE allow, at the next translated-block boundary.
// An error response to a load or store is reported (with the access's PC)
// and, when mtvec is set, delivered as a precise load/store access fault
// (mcause 5 / 7, mepc = the access, mtval = the address). Without a trap
// vector it halts the hart. A fetch outside memory or a synchronous exception
// (Unicorn does not deliver them to the guest) halts the hart with a report
// naming the PC; the simulation then stops.
#ifndef TLMGPU_VP_RISCV_CPU_H
#define TLMGPU_VP_RISCV_CPU_H

#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <vector>

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/tlm_quantumkeeper.h>
#include <unicorn/unicorn.h>

namespace tlmgpu::vp {

class RiscvCpu : public sc_core::sc_module {
public:
  struct Config {
    uint64_t reset_pc = 0;
    sc_core::sc_time clock_period{1, sc_core::SC_NS}; // one instruction per period
    sc_core::sc_time quantum{10, sc_core::SC_US};     // the TLM global quantum
    uint64_t max_instructions = 0;                    // 0: no limit; else a fault when reached
  };

  tlm_utils::simple_initiator_socket<RiscvCpu> socket{"socket"};
  sc_core::sc_in<bool> external_interrupt{"external_interrupt"};

  RiscvCpu(sc_core::sc_module_name name, const Config& config);
  ~RiscvCpu() override;
  RiscvCpu(const RiscvCpu&) = delete;
  RiscvCpu& operator=(const RiscvCpu&) = delete;

  void set_reset_pc(uint64_t pc) { pc_ = pc; }

  // Set when the hart halted on an error: what happened and at which PC.
  const std::optional<std::string>& fault() const { return fault_; }
  bool waiting_for_interrupt() const { return waiting_for_interrupt_; }
  uint64_t pc() const { return pc_; }
  uint64_t instructions() const { return instructions_; }
  uint64_t interrupts_taken() const { return interrupts_taken_; }
  uint64_t mmio_accesses() const { return mmio_accesses_; }
  uint64_t bus_errors() const { return bus_errors_; }
  // A Unicorn register (UC_RISCV_REG_*), for tests and reports.
  uint64_t read_register(int unicorn_register) const;

private:
  enum class StopReason { none, quantum_end, interrupt, sync_after_write, dmi_invalidated, bus_error, fault };
  struct DmiMapping {
    uint64_t start; // page aligned
    uint64_t end;   // exclusive, page aligned
    uint8_t* host;  // host address of start
    bool stale = false;
  };
  struct MmioRange {
    RiscvCpu* cpu;
    uint64_t base;
  };

  void run();
  void take_interrupt();
  void take_trap(uint64_t mcause, uint64_t mtval);
  // The call just made ended on a wfi (the PC is right after one it executed).
  bool executed_wfi() const;
  bool interrupt_enabled() const;
  void wait_for_interrupt();
  void halt(const std::string& message);
  // Unmaps DMI ranges the target invalidated and maps them again.
  void remap_stale_dmi();

  // Unicorn callbacks.
  static void on_block(uc_engine* uc, uint64_t address, uint32_t size, void* self);
  static bool on_unmapped(uc_engine* uc, uc_mem_type type, uint64_t address, int size, int64_t value, void* self);
  static void on_exception(uc_engine* uc, uint32_t cause, void* self);
  static uint64_t on_mmio_read(uc_engine* uc, uint64_t offset, unsigned size, void* page);
  static void on_mmio_write(uc_engine* uc, uint64_t offset, unsigned size, uint64_t value, void* page);

  // Maps [from, to) into Unicorn: DMI memory by pointer, the rest as MMIO.
  void map_range(uint64_t from, uint64_t to);
  // One TLM access for an MMIO load or store; false after an error response.
  bool transport(tlm::tlm_command command, uint64_t address, unsigned size, uint64_t& value);
  void invalidate_direct_mem_ptr(sc_dt::uint64 start, sc_dt::uint64 end);

  // Instructions in [from, to) of code in DMI memory (RVC-aware).
  uint64_t count_instructions(uint64_t from, uint64_t to) const;
  // Start of the instruction that ends at `end`, within the current block.
  uint64_t instruction_before(uint64_t end) const;
  const uint8_t* host_address(uint64_t address) const;
  struct AccessSite {
    uint64_t pc;
    unsigned length; // bytes of the instruction
  };
  // The load/store in the current block that accesses `address`, when found.
  std::optional<AccessSite> find_access(uint64_t address, unsigned size);
  // Instructions retired so far, exact to the instruction at `pc` inside the current block.
  uint64_t retired_before(uint64_t pc) const;
  uint64_t current_pc() const;

  Config config_;
  uc_engine* uc_ = nullptr;
  tlm_utils::tlm_quantumkeeper quantum_keeper_;
  std::vector<DmiMapping> dmi_;
  std::deque<MmioRange> mmio_ranges_;

  uint64_t pc_ = 0;
  uint64_t instructions_ = 0;       // retired (at block granularity while running)
  uint64_t instructions_at_call_ = 0; // at the start of the current uc_emu_start
  uint64_t budget_end_ = 0;         // instructions_ value that ends the quantum
  uint64_t block_start_ = 0;
  uint32_t block_size_ = 0;
  uint64_t instructions_before_block_ = 0;
  uint64_t next_access_search_ = 0; // find_access looks from here in the current block
  std::optional<AccessSite> last_access_; // of the current MMIO access
  uint64_t resume_pc_ = 0;          // after a stop from a memory callback
  sc_core::sc_time transport_delay_; // delay targets added during this call
  StopReason stop_reason_ = StopReason::none;  // why the last call ended
  StopReason stop_request_ = StopReason::none; // asked for inside a block, done at its end
  std::optional<std::string> fault_;
  bool waiting_for_interrupt_ = false;
  uint64_t interrupts_taken_ = 0;
  uint64_t mmio_accesses_ = 0;
  uint64_t bus_errors_ = 0;
  std::string last_bus_error_;
  uint64_t bus_error_cause_ = 0;
  uint64_t bus_error_address_ = 0;
  tlm::tlm_generic_payload payload_;
};

} // namespace tlmgpu::vp

#endif
