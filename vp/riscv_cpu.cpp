#include "vp/riscv_cpu.h"

#include <algorithm>
#include <optional>
#include <cstring>
#include <iostream>
#include <sstream>
#include <stdexcept>

namespace tlmgpu::vp {
namespace {

constexpr uint64_t kPageBytes = 4096;
// The part of the address space the hart sees through the bus (32-bit SoC).
constexpr uint64_t kMappedSpaceEnd = 1ull << 32;
constexpr uint64_t kMstatusMie = 1u << 3;
constexpr uint64_t kMstatusMpie = 1u << 7;
constexpr uint64_t kMstatusMpp = 3u << 11;
constexpr uint64_t kMieMeie = 1u << 11;
constexpr uint64_t kMachineExternalInterrupt = 11;
constexpr uint64_t kInterruptBit = 1ull << 63;
constexpr uint64_t kLoadAccessFault = 5;
constexpr uint64_t kStoreAccessFault = 7;
constexpr uint32_t kWfiEncoding = 0x10500073;
// Unicorn's thread runs TCG translation and the generated code on this stack.
constexpr std::size_t kThreadStackBytes = 8u << 20;

std::string hex(uint64_t value) {
  std::ostringstream s;
  s << "0x" << std::hex << value;
  return s.str();
}

const char* exception_name(uint32_t cause) {
  switch (cause) {
  case 0: return "instruction address misaligned";
  case 1: return "instruction access fault";
  case 2: return "illegal instruction";
  case 3: return "breakpoint (ebreak)";
  case 4: return "load address misaligned";
  case 5: return "load access fault";
  case 6: return "store address misaligned";
  case 7: return "store access fault";
  case 8: case 9: case 11: return "environment call (ecall)";
  case 12: return "instruction page fault";
  case 13: return "load page fault";
  case 15: return "store page fault";
  default: return "exception";
  }
}

int64_t sign_extend(uint64_t value, unsigned bits) {
  const uint64_t sign = 1ull << (bits - 1);
  return static_cast<int64_t>((value ^ sign) - sign);
}

// A load, store or AMO: its base register, offset and access size. The
// RV64GC encodings (32-bit and compressed) that address memory.
struct MemoryOperand {
  unsigned base;
  int64_t offset;
  unsigned size;
};

std::optional<MemoryOperand> decode_memory_operand(uint32_t insn) {
  if ((insn & 3) == 3) {
    const uint32_t opcode = insn & 0x7F;
    const uint32_t funct3 = (insn >> 12) & 7;
    const unsigned rs1 = (insn >> 15) & 31;
    const int64_t i_imm = sign_extend(insn >> 20, 12);
    const int64_t s_imm = sign_extend(((insn >> 25) << 5) | ((insn >> 7) & 31), 12);
    switch (opcode) {
    case 0x03: return funct3 == 7 ? std::nullopt : std::optional<MemoryOperand>({rs1, i_imm, 1u << (funct3 & 3)});
    case 0x07: return funct3 == 2 || funct3 == 3 ? std::optional<MemoryOperand>({rs1, i_imm, 1u << funct3}) : std::nullopt;
    case 0x23: return funct3 <= 3 ? std::optional<MemoryOperand>({rs1, s_imm, 1u << funct3}) : std::nullopt;
    case 0x27: return funct3 == 2 || funct3 == 3 ? std::optional<MemoryOperand>({rs1, s_imm, 1u << funct3}) : std::nullopt;
    case 0x2F: return funct3 == 2 || funct3 == 3 ? std::optional<MemoryOperand>({rs1, 0, 1u << funct3}) : std::nullopt;
    default: return std::nullopt;
    }
  }
  const uint32_t h = insn & 0xFFFF;
  const uint32_t funct3 = h >> 13;
  const unsigned rs1_prime = 8 + ((h >> 7) & 7);
  const auto bits = [h](unsigned hi, unsigned lo) { return (h >> lo) & ((1u << (hi - lo + 1)) - 1); };
  if ((h & 3) == 0) { // quadrant 0: register-relative
    const int64_t word_offset = (bits(12, 10) << 3) | (bits(6, 6) << 2) | (bits(5, 5) << 6);
    const int64_t double_offset = (bits(12, 10) << 3) | (bits(6, 5) << 6);
    switch (funct3) {
    case 1: case 3: case 5: case 7: return MemoryOperand{rs1_prime, double_offset, 8};
    case 2: case 6: return MemoryOperand{rs1_prime, word_offset, 4};
    default: return std::nullopt;
    }
  }
  if ((h & 3) == 2) { // quadrant 2: stack-relative
    switch (funct3) {
    case 2: return MemoryOperand{2, (bits(12, 12) << 5) | (bits(6, 4) << 2) | (bits(3, 2) << 6), 4};
    case 1: case 3: return MemoryOperand{2, (bits(12, 12) << 5) | (bits(6, 5) << 3) | (bits(4, 2) << 6), 8};
    case 6: return MemoryOperand{2, (bits(12, 9) << 2) | (bits(8, 7) << 6), 4};
    case 5: case 7: return MemoryOperand{2, (bits(12, 10) << 3) | (bits(9, 7) << 6), 8};
    default: return std::nullopt;
    }
  }
  return std::nullopt;
}

void check(uc_err err, const char* what) {
  if (err != UC_ERR_OK) {
    throw std::runtime_error(std::string("riscv_cpu: ") + what + ": " + uc_strerror(err));
  }
}

} // namespace

RiscvCpu::RiscvCpu(sc_core::sc_module_name name, const Config& config)
    : sc_core::sc_module(name), config_(config), pc_(config.reset_pc) {
  if (config_.clock_period == sc_core::SC_ZERO_TIME) {
    throw std::invalid_argument("riscv_cpu: the clock period must be positive");
  }
  check(uc_open(UC_ARCH_RISCV, UC_MODE_RISCV64, &uc_), "uc_open");
  uc_hook hook;
  check(uc_hook_add(uc_, &hook, UC_HOOK_BLOCK, reinterpret_cast<void*>(&RiscvCpu::on_block), this, 1, 0),
        "block hook");
  check(uc_hook_add(uc_, &hook, UC_HOOK_MEM_UNMAPPED, reinterpret_cast<void*>(&RiscvCpu::on_unmapped), this, 1, 0),
        "unmapped-memory hook");
  check(uc_hook_add(uc_, &hook, UC_HOOK_INTR, reinterpret_cast<void*>(&RiscvCpu::on_exception), this, 1, 0),
        "exception hook");
  // Floating point on from reset (mstatus.FS = initial) so firmware's
  // start-up code need not enable it before touching an FP register.
  uint64_t mstatus = 1u << 13;
  check(uc_reg_write(uc_, UC_RISCV_REG_MSTATUS, &mstatus), "mstatus");

  socket.register_invalidate_direct_mem_ptr(this, &RiscvCpu::invalidate_direct_mem_ptr);
  tlm_utils::tlm_quantumkeeper::set_global_quantum(config_.quantum);
  SC_HAS_PROCESS(RiscvCpu);
  SC_THREAD(run);
  set_stack_size(kThreadStackBytes);
}

RiscvCpu::~RiscvCpu() {
  if (uc_ != nullptr) {
    uc_close(uc_);
  }
}

uint64_t RiscvCpu::read_register(int unicorn_register) const {
  uint64_t value = 0;
  uc_reg_read(uc_, unicorn_register, &value);
  return value;
}

uint64_t RiscvCpu::current_pc() const { return read_register(UC_RISCV_REG_PC); }

const uint8_t* RiscvCpu::host_address(uint64_t address) const {
  for (const DmiMapping& m : dmi_) {
    if (address >= m.start && address < m.end) {
      return m.host + (address - m.start);
    }
  }
  return nullptr;
}

uint64_t RiscvCpu::count_instructions(uint64_t from, uint64_t to) const {
  uint64_t count = 0;
  for (uint64_t a = from; a < to; ++count) {
    const uint8_t* p = host_address(a);
    // Code outside DMI memory cannot execute (fetches there fault), so this is
    // only reached for a block that straddles the end of a mapping.
    const bool full = p == nullptr || (p[0] & 3) == 3;
    a += full ? 4 : 2;
  }
  return count;
}

uint64_t RiscvCpu::instruction_before(uint64_t end) const {
  if (end <= block_start_ || end > block_start_ + block_size_) {
    return end;
  }
  uint64_t a = block_start_;
  uint64_t previous = end;
  while (a < end) {
    previous = a;
    const uint8_t* p = host_address(a);
    a += (p == nullptr || (p[0] & 3) == 3) ? 4 : 2;
  }
  return previous;
}

std::optional<RiscvCpu::AccessSite> RiscvCpu::find_access(uint64_t address, unsigned size) {
  // Unicorn keeps the PC at the block's start while a block runs, but the
  // registers are current at a memory access: find the block's load or
  // store that addresses `address`, after the one the previous access of
  // this block run matched.
  const uint64_t block_end = block_start_ + block_size_;
  uint64_t a = block_start_;
  while (a < block_end) {
    const uint8_t* p = host_address(a);
    if (p == nullptr) {
      break;
    }
    uint32_t insn = 0;
    const unsigned length = (p[0] & 3) == 3 ? 4 : 2;
    std::memcpy(&insn, p, length);
    if (a >= next_access_search_) {
      const std::optional<MemoryOperand> op = decode_memory_operand(insn);
      if (op && op->size == size &&
          read_register(UC_RISCV_REG_X0 + static_cast<int>(op->base)) + static_cast<uint64_t>(op->offset) == address) {
        next_access_search_ = a + length;
        return AccessSite{a, length};
      }
    }
    a += length;
  }
  return std::nullopt;
}

uint64_t RiscvCpu::retired_before(uint64_t pc) const {
  if (pc >= block_start_ && pc < block_start_ + block_size_) {
    return instructions_before_block_ + count_instructions(block_start_, pc);
  }
  return instructions_;
}

bool RiscvCpu::interrupt_enabled() const {
  return (read_register(UC_RISCV_REG_MSTATUS) & kMstatusMie) != 0 &&
         (read_register(UC_RISCV_REG_MIE) & kMieMeie) != 0;
}

void RiscvCpu::on_block(uc_engine* uc, uint64_t address, uint32_t size, void* opaque) {
  auto* self = static_cast<RiscvCpu*>(opaque);
  const uint64_t count = self->count_instructions(address, address + size);
  const bool started = self->instructions_ != self->instructions_at_call_;
  // Stop before the block (it then does not run, and is not counted) when the
  // quantum is used up or an enabled interrupt is pending. Every call runs at
  // least one block, so the hart always progresses.
  if (started && self->instructions_ + count > self->budget_end_) {
    self->stop_reason_ = StopReason::quantum_end;
    uc_emu_stop(uc);
    return;
  }
  // Stops asked for inside a block (Unicorn's PC is only right at block
  // boundaries when a call is stopped from a memory callback).
  if (self->stop_request_ != StopReason::none) {
    self->stop_reason_ = self->stop_request_;
    uc_emu_stop(uc);
    return;
  }
  if (started && self->external_interrupt.read() && self->interrupt_enabled()) {
    self->stop_reason_ = StopReason::interrupt;
    uc_emu_stop(uc);
    return;
  }
  self->block_start_ = address;
  self->block_size_ = size;
  self->next_access_search_ = address;
  self->instructions_before_block_ = self->instructions_;
  self->instructions_ += count;
}

void RiscvCpu::on_exception(uc_engine* uc, uint32_t cause, void* opaque) {
  auto* self = static_cast<RiscvCpu*>(opaque);
  // Unicorn has stepped the PC by 4 past the instruction before it calls
  // the hook (whatever the instruction's length).
  const uint64_t pc = self->current_pc() - 4;
  self->stop_reason_ = StopReason::fault;
  self->fault_ = std::string("CPU exception: ") + exception_name(cause) + " (cause " + std::to_string(cause) +
                 ") at PC " + hex(pc) + "; exceptions are not delivered to the firmware's trap handler";
  uc_emu_stop(uc);
}

void RiscvCpu::map_range(uint64_t from, uint64_t to) {
  // Walk [from, to) with DMI requests: the bus answers each with the extent
  // of the region (or hole) holding the address. DMI memory is mapped by
  // host pointer; every other stretch becomes one MMIO mapping whose
  // accesses are transactions, so holes answer the bus's address error.
  uint64_t mmio_start = from;
  uint64_t address = from;
  auto map_mmio = [this](uint64_t first, uint64_t end) {
    if (end <= first) {
      return;
    }
    mmio_ranges_.push_back({this, first});
    check(uc_mmio_map(uc_, first, end - first, &RiscvCpu::on_mmio_read, &mmio_ranges_.back(), &RiscvCpu::on_mmio_write,
                      &mmio_ranges_.back()),
          "mapping MMIO");
  };
  while (address < to) {
    tlm::tlm_generic_payload request;
    tlm::tlm_dmi dmi;
    request.set_address(address);
    request.set_command(tlm::TLM_READ_COMMAND);
    const bool granted = socket->get_direct_mem_ptr(request, dmi);
    uint64_t next = std::min<uint64_t>(dmi.get_end_address(), to - 1) + 1;
    if (dmi.get_end_address() < address) {
      next = address + kPageBytes; // a target that answered nonsense
    }
    // Unicorn maps whole pages; a DMI grant that is not page aligned stays MMIO.
    if (granted && dmi.is_read_write_allowed() && dmi.get_start_address() <= address &&
        address % kPageBytes == 0 && next % kPageBytes == 0) {
      map_mmio(mmio_start, address);
      uint8_t* host = dmi.get_dmi_ptr() + (address - dmi.get_start_address());
      check(uc_mem_map_ptr(uc_, address, next - address, UC_PROT_ALL, host), "mapping DMI memory");
      dmi_.push_back({address, next, host});
      mmio_start = next;
    }
    address = (next + kPageBytes - 1) & ~(kPageBytes - 1);
  }
  map_mmio(mmio_start, to);
}

bool RiscvCpu::on_unmapped(uc_engine*, uc_mem_type type, uint64_t address, int size, int64_t, void* opaque) {
  auto* self = static_cast<RiscvCpu*>(opaque);
  const char* what = type == UC_MEM_FETCH_UNMAPPED ? "instruction fetch from "
                     : type == UC_MEM_WRITE_UNMAPPED ? "store to "
                                                     : "load from ";
  uint64_t pc = address;
  if (type != UC_MEM_FETCH_UNMAPPED) {
    const std::optional<AccessSite> site = self->find_access(address, static_cast<unsigned>(size));
    pc = site ? site->pc : self->block_start_;
  }
  self->stop_reason_ = StopReason::fault;
  self->fault_ = std::string("CPU fault: ") + what + hex(address) + " (" + std::to_string(size) +
                 " bytes), outside the platform's address space, at PC " + hex(pc);
  return false;
}

bool RiscvCpu::transport(tlm::tlm_command command, uint64_t address, unsigned size, uint64_t& value) {
  ++mmio_accesses_;
  const std::optional<AccessSite> site = find_access(address, size);
  last_access_ = site;
  const uint64_t pc = site ? site->pc : block_start_;
  uint8_t data[8] = {};
  if (command == tlm::TLM_WRITE_COMMAND) {
    std::memcpy(data, &value, size); // little-endian host and guest
  }
  payload_.set_command(command);
  payload_.set_address(address);
  payload_.set_data_ptr(data);
  payload_.set_data_length(size);
  payload_.set_streaming_width(size);
  payload_.set_byte_enable_ptr(nullptr);
  payload_.set_dmi_allowed(false);
  payload_.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
  // The access happens after the instructions before it in this quantum.
  const sc_core::sc_time issued = quantum_keeper_.get_local_time() + transport_delay_ +
                                  config_.clock_period * static_cast<double>(retired_before(pc) - instructions_at_call_);
  sc_core::sc_time delay = issued;
  socket->b_transport(payload_, delay);
  if (delay > issued) {
    transport_delay_ += delay - issued;
  }
  if (payload_.is_response_error()) {
    if (stop_reason_ == StopReason::none &&
        (stop_request_ == StopReason::none || stop_request_ == StopReason::sync_after_write)) {
      bus_error_cause_ = command == tlm::TLM_READ_COMMAND ? kLoadAccessFault : kStoreAccessFault;
      bus_error_address_ = address;
      if (site) {
        // Stopped from a memory callback, Unicorn ends the call before this
        // instruction completes (a load's register is not written): a
        // precise fault at its PC.
        stop_reason_ = StopReason::bus_error;
        resume_pc_ = site->pc;
        uc_emu_stop(uc_);
      } else {
        stop_request_ = StopReason::bus_error; // at the block's end, imprecise
      }
    }
    ++bus_errors_;
    last_bus_error_ = std::string("CPU bus error: ") + (command == tlm::TLM_READ_COMMAND ? "load from " : "store to ") +
             hex(address) + " (" + std::to_string(size) + " bytes) at PC " + hex(pc) + ": " +
             payload_.get_response_string();
    return false;
  }
  value = 0;
  if (command == tlm::TLM_READ_COMMAND) {
    std::memcpy(&value, data, size);
  }
  return true;
}

uint64_t RiscvCpu::on_mmio_read(uc_engine*, uint64_t offset, unsigned size, void* opaque) {
  auto* page = static_cast<MmioRange*>(opaque);
  uint64_t value = 0;
  page->cpu->transport(tlm::TLM_READ_COMMAND, page->base + offset, size, value);
  return value;
}

void RiscvCpu::on_mmio_write(uc_engine* uc, uint64_t offset, unsigned size, uint64_t value, void* opaque) {
  auto* page = static_cast<MmioRange*>(opaque);
  RiscvCpu* self = page->cpu;
  if (self->transport(tlm::TLM_WRITE_COMMAND, page->base + offset, size, value) &&
      self->stop_reason_ == StopReason::none && self->stop_request_ == StopReason::none) {
    // A store can change what the platform signals back (an acknowledged
    // interrupt line falls, a doorbell starts the GPU): end the call right
    // after it (at the block's end when the store was not found) so the hart
    // synchronizes and sees it.
    if (self->last_access_) {
      self->stop_reason_ = StopReason::sync_after_write;
      self->resume_pc_ = self->last_access_->pc + self->last_access_->length;
      uc_emu_stop(uc);
    } else {
      self->stop_request_ = StopReason::sync_after_write;
    }
  }
}

void RiscvCpu::invalidate_direct_mem_ptr(sc_dt::uint64 start, sc_dt::uint64 end) {
  bool any = false;
  for (DmiMapping& m : dmi_) {
    if (start < m.end && end >= m.start) {
      m.stale = true;
      any = true;
    }
  }
  // Unicorn's mappings can only change between calls.
  if (any && stop_request_ == StopReason::none) {
    stop_request_ = StopReason::dmi_invalidated;
  }
}

void RiscvCpu::remap_stale_dmi() {
  std::vector<std::pair<uint64_t, uint64_t>> stale;
  for (auto it = dmi_.begin(); it != dmi_.end();) {
    if (it->stale) {
      uc_mem_unmap(uc_, it->start, it->end - it->start);
      stale.emplace_back(it->start, it->end);
      it = dmi_.erase(it);
    } else {
      ++it;
    }
  }
  // Ask again: the target may grant a new pointer, else the range is MMIO.
  for (const auto& [start, end] : stale) {
    map_range(start, end);
  }
}

bool RiscvCpu::executed_wfi() const {
  if (instructions_ == instructions_at_call_ || instruction_before(pc_) != pc_ - 4) {
    return false;
  }
  uint32_t word = 0;
  const uint8_t* p = host_address(pc_ - 4);
  if (p != nullptr) {
    std::memcpy(&word, p, sizeof word);
  }
  return word == kWfiEncoding;
}

void RiscvCpu::take_interrupt() {
  take_trap(kInterruptBit | kMachineExternalInterrupt, 0);
  ++interrupts_taken_;
}

void RiscvCpu::take_trap(uint64_t mcause, uint64_t mtval) {
  uint64_t mstatus = read_register(UC_RISCV_REG_MSTATUS);
  const uint64_t mtvec = read_register(UC_RISCV_REG_MTVEC);
  mstatus = (mstatus & ~(kMstatusMpie | kMstatusMie | kMstatusMpp)) | ((mstatus & kMstatusMie) ? kMstatusMpie : 0) |
            kMstatusMpp; // previous privilege: machine
  uc_reg_write(uc_, UC_RISCV_REG_MEPC, &pc_);
  uc_reg_write(uc_, UC_RISCV_REG_MCAUSE, &mcause);
  uc_reg_write(uc_, UC_RISCV_REG_MTVAL, &mtval);
  uc_reg_write(uc_, UC_RISCV_REG_MSTATUS, &mstatus);
  // Vectored mode (mtvec[1:0] == 1) enters interrupts at base + 4 * cause.
  const bool vectored = (mtvec & 3) == 1 && (mcause & kInterruptBit) != 0;
  pc_ = (mtvec & ~uint64_t{3}) + (vectored ? 4 * (mcause & 0xFF) : 0);
}

void RiscvCpu::wait_for_interrupt() {
  waiting_for_interrupt_ = true;
  while (!(external_interrupt.read() && (read_register(UC_RISCV_REG_MIE) & kMieMeie) != 0)) {
    sc_core::wait(external_interrupt.value_changed_event());
  }
  waiting_for_interrupt_ = false;
  // Time restarts from here: the quantum keeper's local time is zero after sync.
  quantum_keeper_.reset();
}

void RiscvCpu::halt(const std::string& message) {
  fault_ = message;
  sc_core::sc_stop();
}

void RiscvCpu::run() {
  map_range(0, kMappedSpaceEnd);
  quantum_keeper_.reset();
  for (;;) {
    remap_stale_dmi();
    if (external_interrupt.read() && interrupt_enabled()) {
      take_interrupt();
    }
    const sc_core::sc_time to_boundary = tlm::tlm_global_quantum::instance().compute_local_quantum();
    const sc_core::sc_time local = quantum_keeper_.get_local_time();
    const uint64_t budget =
        to_boundary > local ? std::max<uint64_t>(1, static_cast<uint64_t>((to_boundary - local) / config_.clock_period))
                            : 1;
    instructions_at_call_ = instructions_;
    budget_end_ = instructions_ + budget;
    if (config_.max_instructions != 0) {
      budget_end_ = std::min(budget_end_, config_.max_instructions);
    }
    block_start_ = 0;
    block_size_ = 0;
    transport_delay_ = sc_core::SC_ZERO_TIME;
    stop_reason_ = StopReason::none;
    stop_request_ = StopReason::none;

    const uc_err err = uc_emu_start(uc_, pc_, 0, 0, 0);
    pc_ = current_pc();
    if (stop_reason_ == StopReason::bus_error || stop_reason_ == StopReason::sync_after_write) {
      // Stopped from a memory callback: Unicorn's PC is the block's start.
      pc_ = resume_pc_;
      instructions_ = retired_before(pc_);
    } else if (stop_reason_ == StopReason::none) {
      // The call ended inside a block: count only what ran of it.
      instructions_ = retired_before(pc_);
    }
    quantum_keeper_.inc(config_.clock_period * static_cast<double>(instructions_ - instructions_at_call_) +
                        transport_delay_);

    if (stop_reason_ == StopReason::bus_error || (stop_request_ == StopReason::bus_error && !fault_)) {
      // An error response: reported here, and delivered to the firmware as
      // an access fault when it has a trap vector; without one it halts.
      if (read_register(UC_RISCV_REG_MTVEC) == 0) {
        fault_ = last_bus_error_;
      } else {
        std::cerr << name() << ": " << last_bus_error_ << "; delivered as "
                  << exception_name(static_cast<uint32_t>(bus_error_cause_)) << " at mepc " << hex(pc_) << "\n";
        take_trap(bus_error_cause_, bus_error_address_);
        continue;
      }
    }
    if (fault_) {
      quantum_keeper_.sync();
      halt(*fault_);
      return;
    }
    if (err != UC_ERR_OK) {
      quantum_keeper_.sync();
      if (err == UC_ERR_FETCH_PROT || err == UC_ERR_FETCH_UNMAPPED) {
        halt("CPU fault: instruction fetch from " + hex(pc_) + ", which is not memory");
      } else {
        halt(std::string("CPU fault: ") + uc_strerror(err) + " at PC " + hex(pc_));
      }
      return;
    }
    if (config_.max_instructions != 0 && instructions_ >= config_.max_instructions) {
      quantum_keeper_.sync();
      halt("CPU stopped: the limit of " + std::to_string(config_.max_instructions) +
           " instructions was reached at PC " + hex(pc_));
      return;
    }
    // Unicorn returns by itself after wfi (the PC is then past it); a stop
    // deferred to the block's end may also have run on into a wfi.
    if (stop_reason_ == StopReason::none && executed_wfi()) {
      quantum_keeper_.sync();
      wait_for_interrupt();
      continue;
    }
    if (stop_reason_ == StopReason::none) {
      quantum_keeper_.sync();
      halt("CPU stopped unexpectedly at PC " + hex(pc_));
      return;
    }
    if (stop_reason_ != StopReason::interrupt || quantum_keeper_.need_sync()) {
      quantum_keeper_.sync();
    }
  }
}

} // namespace tlmgpu::vp
