// The GPU's global memory when it sits in a SoC: every functional access goes
// to SoC memory through the peripheral's TLM-2.0 initiator socket, by DMI
// where the target grants it and by debug transport otherwise.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <systemc>
#include <tlm>

#include "memory/device_memory.h"

namespace tlmgpu::platform::soc {

/// memory::GlobalMemoryIf over a TLM-2.0 initiator socket. Global addresses
/// are SoC physical addresses (identity).
///
/// - DMI: the first access to an address asks the target for a DMI pointer;
///   read-write regions are cached and used as the executor's host pointers.
///   Refusals are cached too (over the range the target says it refuses), so
///   memory without DMI is asked once, not on every access. The socket's
///   owner forwards invalidate_direct_mem_ptr here; both caches drop the range.
/// - Without DMI, translate() returns a staged copy read by transport_dbg; the
///   executor commits it after the instruction (the changed bytes are written
///   back by transport_dbg) or discards it after a fault.
/// - A target that transfers fewer bytes than asked or sets an error
///   response status is an error: translate() returns nullptr (the executor
///   reports a device fault at that address) and last_error() names it.
class TlmGlobalMemory : public memory::GlobalMemoryIf {
 public:
  explicit TlmGlobalMemory(tlm::tlm_initiator_socket<>& socket) : socket_(socket) {}

  uint8_t* translate(uint64_t addr, uint64_t bytes) override;
  bool commit_staged(uint64_t* failed_address) override;
  void discard_staged() override;
  /// Staged copies, and DMI requests and debug transports into the SoC's
  /// models: the GPU evaluates its SMs on the SystemC thread alone.
  bool may_stage() const override { return true; }
  bool read(uint64_t addr, void* dst, uint64_t bytes) override;
  bool write(uint64_t addr, const void* src, uint64_t bytes) override;
  std::string describe(uint64_t addr) const override;

  /// The target withdrew DMI for [start, end] (inclusive, as TLM gives it).
  void invalidate_direct_mem_ptr(uint64_t start, uint64_t end);
  /// Forgets every DMI grant and refusal (soft reset).
  void invalidate_all();

  /// The last access the SoC refused (an error response or a short transfer).
  struct Error {
    bool valid = false;
    bool write = false;
    uint64_t address = 0;
    uint64_t bytes = 0;
    tlm::tlm_response_status status = tlm::TLM_INCOMPLETE_RESPONSE;
  };
  const Error& last_error() const { return last_error_; }
  void clear_error() { last_error_ = Error{}; }
  /// Whether [addr, addr+bytes) overlaps the last refused access.
  bool error_covers(uint64_t addr) const;

  // For tests and statistics.
  uint64_t debug_transactions() const { return debug_transactions_; }
  uint64_t dmi_requests() const { return dmi_requests_; }
  size_t dmi_regions() const { return granted_.size(); }

 private:
  struct DmiRegion {
    uint64_t start = 0, end = 0;  // inclusive
    uint8_t* ptr = nullptr;       // host address of start
  };
  struct Staged {
    uint64_t addr = 0;
    std::vector<uint8_t> data, original;
  };
  /// Largest range staged at once: a warp's whole range is staged when it is
  /// small; a larger one makes the executor go lane by lane.
  static constexpr uint64_t kMaxStagedBytes = 4096;
  /// Refusals remembered before the GPU stops asking for DMI at all (a
  /// target that refuses address by address would make every lookup slow).
  static constexpr size_t kMaxRefusals = 64;

  uint8_t* translate_slow(uint64_t addr, uint64_t last);
  /// Host pointer for [addr, last] from a cached or newly granted DMI region.
  uint8_t* dmi_pointer(uint64_t addr, uint64_t last);
  uint8_t* stage(uint64_t addr, uint64_t bytes);
  bool debug_transport(tlm::tlm_command command, uint64_t addr, uint8_t* data, uint64_t bytes);

  tlm::tlm_initiator_socket<>& socket_;
  std::vector<DmiRegion> granted_;
  size_t last_region_ = 0;
  std::vector<std::pair<uint64_t, uint64_t>> refused_;  // inclusive ranges without DMI
  bool dmi_given_up_ = false;                           // kMaxRefusals reached: no more requests
  std::vector<Staged> staged_;
  size_t staged_count_ = 0;  // entries of staged_ in use (their buffers are reused)
  Error last_error_;
  uint64_t debug_transactions_ = 0, dmi_requests_ = 0;
};

}  // namespace tlmgpu::platform::soc
