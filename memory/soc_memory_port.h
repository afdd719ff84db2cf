// The GPU's memory side inside a SoC (soc.memory = soc): L2 misses and
// write-backs leave the GPU as timed TLM transactions to the SoC's memory
// instead of going to the GPU's own DRAM channels.
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_target_socket.h>

#include "core/stats_provider.h"
#include "memory/timed_queue.h"

namespace tlmgpu::memory {

/// What the port needs from the GPU's owner in the SoC (the peripheral).
class SocMemoryIf {
 public:
  virtual ~SocMemoryIf() = default;
  /// A timed access to SoC memory with b_transport's rules: it may wait, it
  /// adds its latency to `delay`, it sets the payload's response status.
  virtual void soc_transport(tlm::tlm_generic_payload& payload, sc_core::sc_time& delay) = 0;
  /// The functional contents of [address, address + bytes): a write-back
  /// carries the data the GPU's functional model already wrote there, so the
  /// timed write changes nothing. False when they cannot be read.
  virtual bool soc_contents(uint64_t address, uint8_t* out, uint32_t bytes) = 0;
};

/// Stands where the DRAM channels stand: L2 slice s binds its DRAM socket to
/// port(s) and sends BEGIN_REQ with the line's global (SoC) address. Each
/// port has its own thread, as each memory partition has its own request
/// stream: at the request's arrival cycle it sends one transaction covering
/// the requested sectors (their span) through SocMemoryIf and answers the
/// slice with BEGIN_RESP at the cycle the SoC's answer ends (the thread's
/// time after the call plus the annotated delay; at least two cycles after
/// the thread sent it). A port's transactions are sent in arrival order, one at a
/// time: a SoC target that waits inside b_transport thus serialises that
/// partition's traffic, one that only annotates its latency does not. The
/// answers reach the slices from the port's evaluation, in (cycle, port,
/// request) order, so results do not depend on SystemC's process order.
class SocMemoryPort : public engine::ClockedModule, public core::StatsProvider {
 public:
  using TargetSocket = tlm_utils::simple_target_socket_tagged<SocMemoryPort>;

  SocMemoryPort(sc_core::sc_module_name name, const sc_core::sc_time& clock_period, uint32_t ports,
                uint32_t line_bytes);
  ~SocMemoryPort() override;

  TargetSocket& port(uint32_t index) { return *ports_[index]; }
  uint32_t ports() const { return uint32_t(ports_.size()); }
  /// The SoC side; must be set before the first request arrives.
  void connect(SocMemoryIf* soc) { soc_ = soc; }
  bool connected() const { return soc_ != nullptr; }
  /// Hands the slices the answers due now.
  void evaluate(uint64_t now) override;
  /// Where the running program lies in SoC memory: instruction-fetch lines
  /// (memory::kCodeWindowBase + 8 x instruction index) are read from there,
  /// wrapping within `bytes` (the decoded program has no binary image of its
  /// own; the PTX image it came from stands in for it). Without one they
  /// are answered at once, without SoC traffic.
  void set_code_image(uint64_t address, uint64_t bytes) {
    code_address_ = address;
    code_bytes_ = bytes;
  }
  /// Nothing queued, in flight or waiting to be answered.
  bool idle() const { return outstanding_ == 0; }

  /// The first transaction the SoC answered with an error response, if any
  /// (the owner turns it into a device fault naming the address).
  bool failed() const { return failed_; }
  uint64_t failed_address() const { return failed_address_; }
  std::string failed_response() const { return failed_response_; }
  void clear_failure() { failed_ = false; }

  void report_stats(core::StatReport& out) const override;

 private:
  struct Request {
    tlm::tlm_generic_payload* payload = nullptr;
    uint64_t arrive = 0;  ///< core cycle the request reaches the port
  };
  /// A port's own stream: each waits wait independently inside the SoC.
  struct Stream {
    std::deque<Request> queue;
    sc_core::sc_event queued;
    tlm::tlm_generic_payload payload;
    std::vector<uint8_t> buffer;
  };
  struct Answer {
    tlm::tlm_generic_payload* payload = nullptr;
    uint32_t port = 0;
    uint64_t ready = 0;  ///< core cycle the data is back at the slice
  };

  tlm::tlm_sync_enum nb_transport_fw(int port, tlm::tlm_generic_payload& payload, tlm::tlm_phase& phase,
                                     sc_core::sc_time& delay);
  void port_thread(uint32_t port);
  /// Sends one request to the SoC; returns the cycle its data is back.
  uint64_t transact(Stream& stream, const Request& request);

  sc_core::sc_time period_;
  uint32_t line_bytes_;
  std::vector<std::unique_ptr<TargetSocket>> ports_;
  std::vector<std::unique_ptr<Stream>> streams_;
  TimedQueue<Answer> answers_;
  SocMemoryIf* soc_ = nullptr;
  uint64_t outstanding_ = 0;
  uint64_t code_address_ = 0, code_bytes_ = 0;

  bool failed_ = false;
  uint64_t failed_address_ = 0;
  std::string failed_response_;

  uint64_t reads_ = 0, writes_ = 0, bytes_ = 0, errors_ = 0, code_reads_ = 0;
  uint64_t latency_sum_ = 0, latency_max_ = 0;
};

}  // namespace tlmgpu::memory
