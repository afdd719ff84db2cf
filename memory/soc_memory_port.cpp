#include "memory/soc_memory_port.h"

#include <algorithm>

#include "core/bit_ops.h"
#include "memory/memory_interfaces.h"
#include "memory/sector_tags.h"

namespace tlmgpu::memory {

SocMemoryPort::SocMemoryPort(sc_core::sc_module_name name, const sc_core::sc_time& clock_period, uint32_t ports,
                             uint32_t line_bytes)
    : ClockedModule(name, kSocPortStage, clock_period), period_(clock_period), line_bytes_(line_bytes) {
  for (uint32_t p = 0; p < std::max<uint32_t>(ports, 1); ++p) {
    ports_.push_back(std::make_unique<TargetSocket>(("port" + std::to_string(p)).c_str()));
    ports_.back()->register_nb_transport_fw(this, &SocMemoryPort::nb_transport_fw, int(p));
    streams_.push_back(std::make_unique<Stream>());
    streams_.back()->buffer.resize(line_bytes_);
    sc_core::sc_spawn_options options;
    sc_core::sc_spawn([this, p] { port_thread(p); }, ("stream" + std::to_string(p)).c_str(), &options);
  }
}

SocMemoryPort::~SocMemoryPort() = default;

tlm::tlm_sync_enum SocMemoryPort::nb_transport_fw(int port, tlm::tlm_generic_payload& payload,
                                                  tlm::tlm_phase& phase, sc_core::sc_time& delay) {
  if (phase != tlm::BEGIN_REQ) return tlm::TLM_ACCEPTED;
  if (!soc_) SC_REPORT_FATAL(name(), "soc.memory = soc, but no SoC memory is connected to the GPU");
  const uint64_t now = this->now();
  Stream& stream = *streams_[uint32_t(port)];
  if (payload.has_mm()) payload.acquire();  // kept until answered (deliver)
  stream.queue.push_back({&payload, now + std::max<uint64_t>(cycles_in(delay), 1)});
  stream.queued.notify(sc_core::SC_ZERO_TIME);
  ++outstanding_;
  phase = tlm::END_REQ;
  return tlm::TLM_UPDATED;
}

void SocMemoryPort::port_thread(uint32_t port) {
  Stream& stream = *streams_[port];
  for (;;) {
    while (stream.queue.empty()) sc_core::wait(stream.queued);
    const Request request = stream.queue.front();
    const uint64_t now = current_cycle(period_);
    if (request.arrive > now) sc_core::wait(cycles_delay(request.arrive - now, period_));
    const uint64_t ready = transact(stream, request);
    stream.queue.pop_front();
    const auto* ext = request.payload->get_extension<MemRequestExtension>();
    answers_.push(ready, port, Answer{request.payload, port, ready}, ext ? ext->id : 0);
    // Delivered one cycle early with a one-cycle annotation: the slice takes
    // the data at `ready`, as from a DRAM channel.
    wake_at(ready - 1);
  }
}

uint64_t SocMemoryPort::transact(Stream& stream, const Request& request) {
  const tlm::tlm_generic_payload& from_l2 = *request.payload;
  const auto* ext = from_l2.get_extension<MemRequestExtension>();
  // One transaction over the requested sectors' span (the slice's payload
  // spans them already; without an extension, the whole line).
  uint64_t address = from_l2.get_address();
  uint32_t bytes = ext ? from_l2.get_data_length() : line_bytes_;
  const bool write = from_l2.is_write();
  if (address >= kCodeWindowBase && !write) {
    ++code_reads_;
    if (code_bytes_ < bytes) return current_cycle(period_) + 2;  // no image: no SoC traffic
    address = code_address_ + (address - kCodeWindowBase) % (code_bytes_ - bytes + 1);
  }

  tlm::tlm_generic_payload& p = stream.payload;
  p.set_command(write ? tlm::TLM_WRITE_COMMAND : tlm::TLM_READ_COMMAND);
  p.set_address(address);
  p.set_data_ptr(stream.buffer.data());
  p.set_data_length(bytes);
  p.set_streaming_width(bytes);
  p.set_byte_enable_ptr(nullptr);
  p.set_byte_enable_length(0);
  p.set_dmi_allowed(false);
  p.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
  bool ok = true;
  if (write) ok = soc_->soc_contents(address, stream.buffer.data(), bytes);
  sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
  if (ok) {
    soc_->soc_transport(p, delay);
    ok = p.is_response_ok();
  }
  if (!ok) {
    ++errors_;
    if (!failed_) {
      failed_ = true;
      failed_address_ = address;
      failed_response_ = p.get_response_string();
    }
  }
  (write ? writes_ : reads_) += 1;
  bytes_ += bytes;
  // The answer ends at the thread's time plus the annotation, rounded up to
  // a whole cycle; at the earliest two cycles after the thread's: the
  // port may already have delivered this cycle's answers, or not yet, and
  // neither may see this answer.
  const uint64_t end_value = (sc_core::sc_time_stamp() + delay).value();
  const uint64_t ready = std::max<uint64_t>((end_value + period_.value() - 1) / period_.value(),
                                            current_cycle(period_) + 2);
  latency_sum_ += ready - request.arrive;
  latency_max_ = std::max(latency_max_, ready - request.arrive);
  return ready;
}

void SocMemoryPort::evaluate(uint64_t now) {
  while (answers_.ready(now + 1)) {
    const Answer a = answers_.pop();
    sc_core::sc_time delay = cycle_delay(a.ready > now ? a.ready - now : 1);
    tlm::tlm_phase phase = tlm::BEGIN_RESP;
    a.payload->set_response_status(tlm::TLM_OK_RESPONSE);
    (*ports_[a.port])->nb_transport_bw(*a.payload, phase, delay);
    if (a.payload->has_mm()) a.payload->release();
    --outstanding_;
  }
  if (!answers_.empty()) wake_at(answers_.next_ready() - 1);
}

void SocMemoryPort::report_stats(core::StatReport& out) const {
  using core::Unit;
  out.add("reads", reads_, Unit::Count, "reads sent to the SoC's memory");
  out.add("writes", writes_, Unit::Count, "writes sent to the SoC's memory");
  out.add("bytes", bytes_, Unit::Bytes, "bytes read and written");
  out.add("error_responses", errors_, Unit::Count, "transactions the SoC answered with an error response");
  out.add("code_reads", code_reads_, Unit::Count, "instruction fetches answered by the port itself (no SoC access)");
  const uint64_t done = reads_ + writes_;
  out.add("avg_latency", core::StatReport::ratio(latency_sum_, done), Unit::Average,
          "core cycles from sending a transaction to its answer, averaged");
  out.add("max_latency", latency_max_, Unit::Cycles, "the longest of those latencies");
}

}  // namespace tlmgpu::memory
