#include "fuzz/fuzz_inputs.h"

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <string>

#include <systemc>
#include <tlm>

#include "platform/config_keys.h"
#include "platform/soc/gpu_peripheral.h"
#include "platform/soc/gpu_registers.h"
#include "tests/soc_test_support.h"

namespace tlmgpu::fuzz {

//
// Input format: a sequence of operations, each an opcode byte (taken modulo
// 6) and its fields, little-endian; a field cut off by the end of the input
// reads as zero.
//   0 write register   u16 offset, u32 value
//   1 read register    u16 offset
//   2 raw access       u8 flags, u16 offset, then `length` data bytes when writing
//                      flags: bit 0 write, bits 1-3 length - 1, bit 4 byte
//                      enables (alternate bytes), bit 5 streaming width 1,
//                      bit 6 debug transport instead of b_transport
//   3 memory word      u16 word index (address = index x 4), u32 value
//   4 memory bytes     u16 word index, u8 count, then `count` bytes
//   5 run              u16 n: the simulation runs (n + 1) x 100 ns
// At the end the simulation runs until the GPU is idle (at most 200 ms of
// simulated time), so that no launch outlives its input.

namespace {

constexpr uint64_t kMmioMemoryBytes = 1u << 20;  // what the harness may store into
constexpr size_t kMaxOperations = 512;
// LT mode: a kernel that loops forever ends at the watchdog, quickly.
constexpr uint64_t kWatchdogInstructions = 200'000;
constexpr uint32_t kMaxGridDim = 2;  // CTAs per grid dimension (clamp_queued_grids)

class InputReader {
 public:
  InputReader(const uint8_t* data, size_t size) : data_(data), size_(size) {}
  bool done() const { return pos_ >= size_; }
  uint64_t take(unsigned bytes) {
    uint64_t v = 0;
    for (unsigned i = 0; i < bytes; ++i, ++pos_)
      if (pos_ < size_) v |= uint64_t(data_[pos_]) << (8 * i);
    return v;
  }

 private:
  const uint8_t* data_;
  size_t size_;
  size_t pos_ = 0;
};

core::GpuConfig small_gpu() {
  core::GpuConfig c = platform::preset_config("gtx480");
  c.num_sms = 2;
  return c;
}

platform::soc::GpuPeripheralOptions fuzz_options() {
  platform::soc::GpuPeripheralOptions o;
  o.watchdog_instructions = kWatchdogInstructions;
  return o;
}

bool known_response(tlm::tlm_response_status s) {
  return s == tlm::TLM_OK_RESPONSE || s == tlm::TLM_ADDRESS_ERROR_RESPONSE || s == tlm::TLM_COMMAND_ERROR_RESPONSE ||
         s == tlm::TLM_BURST_ERROR_RESPONSE || s == tlm::TLM_BYTE_ENABLE_ERROR_RESPONSE ||
         s == tlm::TLM_GENERIC_ERROR_RESPONSE;
}

}  // namespace

struct MmioFuzzer::Soc {
  tlmgpu_soctest::Soc soc{small_gpu(), fuzz_options()};
  uint64_t stored_end = 0;  // harness stores since the last reset reach below this address
  uint64_t gpu_accesses = 0;

  uint64_t gpu_memory_traffic() const {
    const auto& m = soc.memory;
    return m.dmi_grants + m.dmi_refusals + m.debug_accesses + m.transport_accesses;
  }

  // A launch's work grows with its grid without bound (a GPU runs 2^31
  // CTAs if asked), and an LT launch runs to its end inside one sc_start.
  // So that one input stays well under libFuzzer's 1 s, every queued
  // descriptor's grid is clamped to at most kMaxGridDim per dimension before
  // the simulation runs (0 stays 0: an error the peripheral must report).
  void clamp_queued_grids() {
    auto& cpu = soc.cpu;
    const uint64_t base = cpu.read64(TLMGPU_REG_QUEUE_BASE_LO);
    const uint32_t size = std::min(cpu.read(TLMGPU_REG_QUEUE_SIZE), TLMGPU_QUEUE_MAX_ENTRIES);
    for (uint32_t i = 0; i < size; ++i) {
      const uint64_t at = base + uint64_t(i) * TLMGPU_DESCRIPTOR_BYTES + offsetof(tlmgpu_launch_descriptor, grid);
      if (at < base || at + 12 > soc.memory.bytes.size()) break;
      for (uint64_t d = 0; d < 3; ++d) {
        uint32_t v;
        std::memcpy(&v, soc.memory.bytes.data() + at + 4 * d, 4);
        v = std::min(v, kMaxGridDim);
        std::memcpy(soc.memory.bytes.data() + at + 4 * d, &v, 4);
      }
    }
  }

  void run(sc_core::sc_time t) {
    clamp_queued_grids();
    sc_core::sc_start(t);
  }

  void run_until_idle() {
    run(sc_core::sc_time(1, sc_core::SC_NS));
    for (int step = 0; step < 200 && soc.cpu.read(TLMGPU_REG_STATUS) == TLMGPU_STATUS_BUSY; ++step)
      run(sc_core::sc_time(1, sc_core::SC_MS));
  }

  // The state every input starts from: registers at their power-on values,
  // memory zero. Loaded PTX images and the counters stay (as a soft reset
  // keeps them); nothing a driver can observe depends on the first.
  void reset() {
    auto& cpu = soc.cpu;
    cpu.write(TLMGPU_REG_RESET, TLMGPU_RESET_MAGIC);
    for (uint32_t r : {TLMGPU_REG_HEAP_BASE_LO, TLMGPU_REG_HEAP_BASE_HI, TLMGPU_REG_HEAP_SIZE,
                       TLMGPU_REG_QUEUE_BASE_LO, TLMGPU_REG_QUEUE_BASE_HI, TLMGPU_REG_QUEUE_SIZE,
                       TLMGPU_REG_IRQ_ENABLE})
      cpu.write(r, 0);
    cpu.write(TLMGPU_REG_IRQ_STATUS, ~0u);
    run(sc_core::sc_time(1, sc_core::SC_NS));
    // The GPU may have written anywhere in memory; the harness only below stored_end.
    const uint64_t traffic = gpu_memory_traffic();
    const uint64_t dirty = traffic != gpu_accesses ? soc.memory.bytes.size() : stored_end;
    std::fill(soc.memory.bytes.begin(), soc.memory.bytes.begin() + std::ptrdiff_t(dirty), 0);
    gpu_accesses = traffic;
    stored_end = 0;
    require(cpu.read(TLMGPU_REG_STATUS) == TLMGPU_STATUS_IDLE, "STATUS is not idle after a soft reset");
  }

  void access(tlm::tlm_command cmd, uint32_t offset, uint8_t* buf, unsigned len, unsigned width, uint8_t* enables,
              unsigned enables_len, bool debug) {
    tlm::tlm_response_status status;
    if (debug) {
      tlm::tlm_generic_payload t;
      t.set_command(cmd);
      t.set_address(offset);
      t.set_data_ptr(buf);
      t.set_data_length(len);
      t.set_streaming_width(width ? width : len);
      t.set_byte_enable_ptr(enables);
      t.set_byte_enable_length(enables_len);
      const unsigned moved = soc.cpu.socket->transport_dbg(t);
      require(moved <= len, "debug transport moved more bytes than asked");
      return;
    }
    status = soc.cpu.access(cmd, offset, buf, len, width, enables, enables_len);
    require(known_response(status), "a register access left without a response status");
    if (status == tlm::TLM_OK_RESPONSE)
      require(offset < TLMGPU_MMIO_BYTES, "an access past the register window succeeded");
  }

  void store(uint64_t address, const uint8_t* bytes, size_t count) {
    address = std::min<uint64_t>(address, kMmioMemoryBytes);
    count = std::min<size_t>(count, size_t(kMmioMemoryBytes - address));
    std::memcpy(soc.memory.bytes.data() + address, bytes, count);
    stored_end = std::max<uint64_t>(stored_end, address + count);
  }

  void run_input(const uint8_t* data, size_t size) {
    reset();
    InputReader in(data, size);
    sc_core::sc_time ran = sc_core::SC_ZERO_TIME;
    const sc_core::sc_time max_run(20, sc_core::SC_MS);
    for (size_t op = 0; op < kMaxOperations && !in.done(); ++op) {
      switch (in.take(1) % 6) {
        case 0: {
          const uint32_t offset = uint32_t(in.take(2));
          const uint32_t value = uint32_t(in.take(4));
          uint8_t b[4] = {uint8_t(value), uint8_t(value >> 8), uint8_t(value >> 16), uint8_t(value >> 24)};
          access(tlm::TLM_WRITE_COMMAND, offset, b, 4, 0, nullptr, 0, false);
          break;
        }
        case 1: {
          const uint32_t offset = uint32_t(in.take(2));
          uint8_t b[4] = {};
          access(tlm::TLM_READ_COMMAND, offset, b, 4, 0, nullptr, 0, false);
          if (offset == TLMGPU_REG_STATUS) {
            const uint32_t v = uint32_t(b[0]) | uint32_t(b[1]) << 8 | uint32_t(b[2]) << 16 | uint32_t(b[3]) << 24;
            require(v <= TLMGPU_STATUS_ERROR, "STATUS reads as no status");
          }
          break;
        }
        case 2: {
          const unsigned flags = unsigned(in.take(1));
          const uint32_t offset = uint32_t(in.take(2));
          const bool write = flags & 1;
          const unsigned len = ((flags >> 1) & 7) + 1;
          uint8_t buf[8] = {};
          if (write)
            for (unsigned i = 0; i < len; ++i) buf[i] = uint8_t(in.take(1));
          uint8_t enables[8] = {0xff, 0, 0xff, 0, 0xff, 0, 0xff, 0};
          const bool with_enables = flags & 16;
          access(write ? tlm::TLM_WRITE_COMMAND : tlm::TLM_READ_COMMAND, offset, buf, len, (flags & 32) ? 1 : 0,
                 with_enables ? enables : nullptr, with_enables ? len : 0, flags & 64);
          break;
        }
        case 3: {
          const uint64_t address = in.take(2) * 4;
          const uint32_t value = uint32_t(in.take(4));
          const uint8_t b[4] = {uint8_t(value), uint8_t(value >> 8), uint8_t(value >> 16), uint8_t(value >> 24)};
          store(address, b, 4);
          break;
        }
        case 4: {
          const uint64_t address = in.take(2) * 4;
          const size_t count = size_t(in.take(1));
          uint8_t b[256];
          for (size_t i = 0; i < count; ++i) b[i] = uint8_t(in.take(1));
          store(address, b, count);
          break;
        }
        default: {
          const sc_core::sc_time t = sc_core::sc_time(100, sc_core::SC_NS) * double(in.take(2) + 1);
          if (ran + t > max_run) break;
          ran += t;
          run(t);
          break;
        }
      }
    }
    run_until_idle();
  }
};

MmioFuzzer::MmioFuzzer() : soc_(std::make_unique<Soc>()) {}
MmioFuzzer::~MmioFuzzer() = default;

void MmioFuzzer::run(const uint8_t* data, size_t size) { soc_->run_input(data, size); }

void mmio_input(const uint8_t* data, size_t size) {
  // Never destroyed: SystemC's objects live until the process ends.
  static MmioFuzzer* fuzzer = new MmioFuzzer();
  fuzzer->run(data, size);
}

}  // namespace tlmgpu::fuzz
