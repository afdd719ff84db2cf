// A tiny SoC around the GPU peripheral for its tests: a memory that may grant
// or refuse DMI and answers errors for chosen ranges, a driver that makes
// register accesses on `mmio` (any width, byte enables, debug), and helpers
// that place launch descriptors, PTX images and parameters in memory.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>

#include "platform/soc/gpu_peripheral.h"
#include "platform/soc/gpu_registers.h"

namespace tlmgpu_soctest {

/// SoC memory at address 0: b_transport, transport_dbg and DMI. Ranges in
/// `error_ranges` answer TLM_ADDRESS_ERROR_RESPONSE (debug transport: 0
/// bytes) and are never inside a DMI grant; so is anything past the end.
class SocMemory : public sc_core::sc_module {
 public:
  tlm_utils::simple_target_socket<SocMemory> socket{"socket"};
  std::vector<uint8_t> bytes;
  bool grant_dmi = true;
  std::vector<std::pair<uint64_t, uint64_t>> error_ranges;  // [start, end) answered with an error
  std::vector<std::pair<uint64_t, uint64_t>> read_only_ranges;  // [start, end): writes answered with an error
  uint64_t dmi_grants = 0, dmi_refusals = 0, debug_accesses = 0, transport_accesses = 0;
  /// b_transport only: the latency it annotates (or waits, with
  /// wait_in_transport), and ranges it refuses while DMI and debug
  /// transport still serve them.
  sc_core::sc_time latency = sc_core::SC_ZERO_TIME;
  bool wait_in_transport = false;
  std::vector<std::pair<uint64_t, uint64_t>> timed_error_ranges;
  uint64_t timed_reads = 0, timed_writes = 0;

  SocMemory(sc_core::sc_module_name name, uint64_t size) : sc_core::sc_module(name), bytes(size, 0) {
    socket.register_b_transport(this, &SocMemory::b_transport);
    socket.register_transport_dbg(this, &SocMemory::transport_dbg);
    socket.register_get_direct_mem_ptr(this, &SocMemory::get_direct_mem_ptr);
  }

  bool refused(uint64_t addr, uint64_t len, bool write = false) const {
    if (addr + len > bytes.size() || addr + len < addr) return true;
    for (const auto& [s, e] : error_ranges)
      if (addr < e && s < addr + len) return true;
    for (const auto& [s, e] : read_only_ranges)
      if (write && addr < e && s < addr + len) return true;
    return false;
  }
  /// Withdraws every DMI grant (as a memory that remaps would).
  void invalidate_all_dmi() { socket->invalidate_direct_mem_ptr(0, ~sc_dt::uint64(0)); }

  template <typename T>
  void put(uint64_t addr, const T* data, size_t count) {
    std::memcpy(bytes.data() + addr, data, count * sizeof(T));
  }
  template <typename T>
  std::vector<T> get(uint64_t addr, size_t count) const {
    std::vector<T> out(count);
    std::memcpy(out.data(), bytes.data() + addr, count * sizeof(T));
    return out;
  }

 private:
  void b_transport(tlm::tlm_generic_payload& t, sc_core::sc_time& delay) {
    ++transport_accesses;
    (t.is_write() ? timed_writes : timed_reads) += 1;
    bool timed_refusal = false;
    for (const auto& [s, e] : timed_error_ranges)
      timed_refusal |= t.get_address() < e && s < t.get_address() + t.get_data_length();
    if (timed_refusal || refused(t.get_address(), t.get_data_length(), t.is_write())) {
      t.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
      return;
    }
    if (wait_in_transport)
      sc_core::wait(latency);
    else
      delay += latency;
    copy(t);
    t.set_dmi_allowed(grant_dmi);
    t.set_response_status(tlm::TLM_OK_RESPONSE);
  }
  unsigned transport_dbg(tlm::tlm_generic_payload& t) {
    ++debug_accesses;
    if (refused(t.get_address(), t.get_data_length(), t.is_write())) return 0;
    copy(t);
    return t.get_data_length();
  }
  void copy(tlm::tlm_generic_payload& t) {
    uint8_t* p = bytes.data() + t.get_address();
    if (t.is_read())
      std::memcpy(t.get_data_ptr(), p, t.get_data_length());
    else if (t.is_write())
      std::memcpy(p, t.get_data_ptr(), t.get_data_length());
  }
  bool get_direct_mem_ptr(tlm::tlm_generic_payload& t, tlm::tlm_dmi& dmi) {
    const uint64_t a = t.get_address();
    // The largest range around `a` clear of error and read-only ranges
    // (the GPU only takes read-write grants).
    uint64_t lo = 0, hi = bytes.size() - 1;
    bool in_error = a >= bytes.size();
    std::vector<std::pair<uint64_t, uint64_t>> no_dmi = error_ranges;
    no_dmi.insert(no_dmi.end(), read_only_ranges.begin(), read_only_ranges.end());
    for (const auto& [s, e] : no_dmi) {
      if (a >= s && a < e) {
        in_error = true;
        lo = s;
        hi = e - 1;
        break;
      }
      if (e <= a) lo = std::max(lo, e);
      if (s > a) hi = std::min(hi, s - 1);
    }
    if (in_error || !grant_dmi) {
      ++dmi_refusals;
      if (!in_error) {
        dmi.set_start_address(0);
        dmi.set_end_address(~sc_dt::uint64(0));
      } else if (a < bytes.size()) {
        dmi.set_start_address(lo);
        dmi.set_end_address(hi);
      } else {
        dmi.set_start_address(bytes.size());
        dmi.set_end_address(~sc_dt::uint64(0));
      }
      return false;
    }
    ++dmi_grants;
    dmi.set_start_address(lo);
    dmi.set_end_address(hi);
    dmi.set_dmi_ptr(bytes.data() + lo);
    dmi.allow_read_write();
    return true;
  }
};

/// Register accesses on the peripheral's mmio socket, from outside any process.
class MmioDriver : public sc_core::sc_module {
 public:
  tlm_utils::simple_initiator_socket<MmioDriver> socket{"socket"};
  explicit MmioDriver(sc_core::sc_module_name name) : sc_core::sc_module(name) {
    socket.register_nb_transport_bw(this, &MmioDriver::nb_transport_bw);
  }
  /// The phases nb_transport_bw received (non-blocking accesses).
  std::vector<tlm::tlm_phase> backward_phases;

  tlm::tlm_response_status access(tlm::tlm_command cmd, uint64_t offset, uint8_t* data, unsigned len,
                                  unsigned streaming_width = 0, uint8_t* byte_enables = nullptr,
                                  unsigned be_len = 0) {
    tlm::tlm_generic_payload t;
    t.set_command(cmd);
    t.set_address(offset);
    t.set_data_ptr(data);
    t.set_data_length(len);
    t.set_streaming_width(streaming_width ? streaming_width : len);
    t.set_byte_enable_ptr(byte_enables);
    t.set_byte_enable_length(be_len);
    t.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
    sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
    socket->b_transport(t, delay);
    return t.get_response_status();
  }
  uint32_t read(uint32_t offset, tlm::tlm_response_status* status = nullptr) {
    uint8_t d[4] = {};
    const tlm::tlm_response_status s = access(tlm::TLM_READ_COMMAND, offset, d, 4);
    if (status) *status = s;
    return uint32_t(d[0]) | uint32_t(d[1]) << 8 | uint32_t(d[2]) << 16 | uint32_t(d[3]) << 24;
  }
  tlm::tlm_response_status write(uint32_t offset, uint32_t value) {
    uint8_t d[4] = {uint8_t(value), uint8_t(value >> 8), uint8_t(value >> 16), uint8_t(value >> 24)};
    return access(tlm::TLM_WRITE_COMMAND, offset, d, 4);
  }
  uint64_t read64(uint32_t lo_offset) { return read(lo_offset) | uint64_t(read(lo_offset + 4)) << 32; }
  void write64(uint32_t lo_offset, uint64_t value) {
    write(lo_offset, uint32_t(value));
    write(lo_offset + 4, uint32_t(value >> 32));
  }
  tlm::tlm_sync_enum nb_transport_bw(tlm::tlm_generic_payload&, tlm::tlm_phase& phase, sc_core::sc_time&) {
    backward_phases.push_back(phase);
    return tlm::TLM_ACCEPTED;
  }
  /// The ERROR_MESSAGE window as a string.
  std::string error_message() {
    std::string s;
    for (uint32_t i = 0; i < TLMGPU_ERROR_MESSAGE_BYTES; i += 4) {
      const uint32_t w = read(TLMGPU_REG_ERROR_MESSAGE + i);
      for (int b = 0; b < 4; ++b) {
        const char c = char(w >> (8 * b));
        if (c == '\0') return s;
        s.push_back(c);
      }
    }
    return s;
  }
};

/// The memory map the tests use.
constexpr uint64_t kMemoryBytes = 8u << 20;
constexpr uint64_t kQueueBase = 0x1000;       // up to 64 descriptors
constexpr uint64_t kNameBase = 0x2000;        // kernel names, 256 bytes each
constexpr uint64_t kParamBase = 0x4000;       // parameter blocks, 256 bytes each
constexpr uint64_t kHeapBase = 0x8000;
constexpr uint32_t kHeapBytes = 0x8000;
constexpr uint64_t kPtxBase = 0x10000;        // PTX images, 256 KiB each
constexpr uint64_t kDataBase = 0x100000;      // kernel data

/// A SoC: memory, driver, the GPU; with helpers that queue launches.
/// `prefix` starts every object's name (several in one simulation).
struct Soc {
  SocMemory memory;
  MmioDriver cpu;
  tlmgpu::GpuPeripheral gpu;
  sc_core::sc_signal<bool> irq;
  uint32_t next_descriptor = 0;  // ring slot of the next queued launch

  explicit Soc(const tlmgpu::core::GpuConfig& config, const tlmgpu::GpuPeripheralOptions& options = {},
               const std::string& prefix = "")
      : memory((prefix + "memory").c_str(), kMemoryBytes),
        cpu((prefix + "cpu").c_str()),
        gpu((prefix + "gpu").c_str(), config, options),
        irq((prefix + "irq").c_str()) {
    cpu.socket.bind(gpu.mmio);
    gpu.mem.bind(memory.socket);
    gpu.irq(irq);
  }

  /// Places `ptx` at image slot `slot` and returns its address and size.
  std::pair<uint64_t, uint32_t> put_ptx(const std::string& ptx, unsigned slot = 0) {
    const uint64_t at = kPtxBase + uint64_t(slot) * 0x40000;
    memory.put(at, ptx.data(), ptx.size());
    return {at, uint32_t(ptx.size())};
  }
  uint64_t put_name(const std::string& name, unsigned slot) {
    const uint64_t at = kNameBase + uint64_t(slot) * 256;
    memory.put(at, name.c_str(), name.size() + 1);
    return at;
  }
  /// Sets the queue registers for `entries` descriptors at kQueueBase.
  void setup_queue(uint32_t entries = 16) {
    cpu.write64(TLMGPU_REG_QUEUE_BASE_LO, kQueueBase);
    cpu.write(TLMGPU_REG_QUEUE_SIZE, entries);
  }
  /// Writes `d` at the next ring slot and advances TAIL (no doorbell).
  uint32_t queue(const tlmgpu_launch_descriptor& d) {
    const uint32_t size = cpu.read(TLMGPU_REG_QUEUE_SIZE);
    const uint32_t slot = cpu.read(TLMGPU_REG_QUEUE_TAIL);
    memory.put(kQueueBase + uint64_t(slot) * TLMGPU_DESCRIPTOR_BYTES, &d, 1);
    cpu.write(TLMGPU_REG_QUEUE_TAIL, (slot + 1) % size);
    return slot;
  }
  void doorbell() { cpu.write(TLMGPU_REG_DOORBELL, 1); }
  /// Runs the simulation until the GPU is no longer busy (at most `limit`).
  void run_until_idle(sc_core::sc_time limit = sc_core::sc_time(1, sc_core::SC_SEC)) {
    const sc_core::sc_time step(10, sc_core::SC_US);
    sc_core::sc_start(sc_core::sc_time(1, sc_core::SC_NS));
    const sc_core::sc_time end = sc_core::sc_time_stamp() + limit;
    while (cpu.read(TLMGPU_REG_STATUS) == TLMGPU_STATUS_BUSY && sc_core::sc_time_stamp() < end) sc_core::sc_start(step);
  }
};

/// A descriptor for `kernel` of the image at (ptx address, bytes).
inline tlmgpu_launch_descriptor descriptor(std::pair<uint64_t, uint32_t> ptx, uint64_t name_address,
                                           uint32_t grid, uint32_t block, uint64_t params_address,
                                           uint32_t params_bytes, uint32_t flags = 0) {
  tlmgpu_launch_descriptor d{};
  d.ptx_address = ptx.first;
  d.ptx_bytes = ptx.second;
  d.kernel_name_address = name_address;
  d.grid[0] = grid;
  d.grid[1] = d.grid[2] = 1;
  d.block[0] = block;
  d.block[1] = d.block[2] = 1;
  d.params_address = params_address;
  d.params_bytes = params_bytes;
  d.flags = flags;
  return d;
}

}  // namespace tlmgpu_soctest
