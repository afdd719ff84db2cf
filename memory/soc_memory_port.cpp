#include "memory/soc_memory_port.h"

#include <algorithm>

#include "core/bit_ops.h"
#include "memory/memory_interfaces.h"
#include "memory/sector_tags.h"

namespace tlmgpu::memory {

SocMemoryPort::SocMemoryPort(sc_core::sc_module_name name, const sc_core::sc_time& clock_period, uint32_t ports,
                             uint32_t line_bytes)
    : sc_module(name), period_(clock_period), line_bytes_(line_bytes), waker_(clock_period) {
  for (uint32_t p = 0; p < std::max<uint32_t>(ports, 1); ++p) {
    ports_.push_back(std::make_unique<TargetSocket>(("port" + std::to_string(p)).c_str()));
    ports_.back()->register_nb_transport_fw(this, &SocMemoryPort::nb_transport_fw, int(p));
    streams_.push_back(std::make_unique<Stream>());
    streams_.back()->buffer.resize(line_bytes_);
    sc_core::sc_spawn_options options;
    sc_core::sc_spawn([this, p] { port_thread(p); }, ("stream" + std::to_string(p)).c_str(), &options);
  }
  SC_METHOD(own_process);
  sensitive << waker_.event();
  dont_initialize();
}

SocMemoryPort::~SocMemoryPort() = default;

tlm::tlm_sync_enum SocMemoryPort::nb_transport_fw(int port, tlm::tlm_generic_payload& payload,
                                                  tlm::tlm_phase& phase, sc_core::sc_time& delay) {
  if (phase != tlm::BEGIN_REQ) return tlm::TLM_ACCEPTED;
  if (!soc_) SC_REPORT_FATAL(name(), "soc.memory = soc, but no SoC memory is connected to the GPU");
  const uint64_t now = waker_.now();
  Stream& stream = *streams_[uint32_t(port)];
  if (payload.has_mm()) payload.acquire();  // kept until answered (deliver)
  stream.queue.push_back({&payload, now + std::max<uint64_t>(waker_.cycles_in(delay), 1)});
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
    waker_.wake_at(ready - 1, current_cycle(period_));
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
  // calendar may already have run this cycle's deliveries, or not yet, and
  // neither may see this answer.
  const uint64_t end_value = (sc_core::sc_time_stamp() + delay).value();
  const uint64_t ready = std::max<uint64_t>((end_value + period_.value() - 1) / period_.value(),
                                            current_cycle(period_) + 2);
  latency_sum_ += ready - request.arrive;
  latency_max_ = std::max(latency_max_, ready - request.arrive);
  return ready;
}

void SocMemoryPort::deliver() {
  waker_.fired();
  const uint64_t now = waker_.now();
  while (answers_.ready(now + 1)) {
    const Answer a = answers_.pop();
    sc_core::sc_time delay = waker_.delay(a.ready > now ? a.ready - now : 1);
    tlm::tlm_phase phase = tlm::BEGIN_RESP;
    a.payload->set_response_status(tlm::TLM_OK_RESPONSE);
    (*ports_[a.port])->nb_transport_bw(*a.payload, phase, delay);
    if (a.payload->has_mm()) a.payload->release();
    --outstanding_;
  }
  if (!answers_.empty()) waker_.wake_at(answers_.next_ready() - 1, now);
}

void SocMemoryPort::own_process() { deliver(); }

void SocMemoryPort::report_stats(stats::StatMap& out) const {
  out["reads"] = double(reads_);
  out["writes"] = double(writes_);
  out["bytes"] = double(bytes_);
  out["error_responses"] = double(errors_);
  out["code_reads"] = double(code_reads_);
  const uint64_t done = reads_ + writes_;
  out["avg_latency"] = done ? double(latency_sum_) / double(done) : 0.0;
  out["max_latency"] = double(latency_max_);
}

}  // namespace tlmgpu::memory
