#include "memory/protocol_checker.h"

#include <sstream>

namespace tlmgpu::memory {

namespace {
std::string describe(const tlm::tlm_generic_payload& p) {
  std::ostringstream s;
  s << "payload " << static_cast<const void*>(&p) << " (" << (p.is_write() ? "write" : p.is_read() ? "read" : "ignore")
    << " 0x" << std::hex << p.get_address() << std::dec << ", " << p.get_data_length() << " bytes)";
  return s.str();
}
}  // namespace

BaseProtocolChecker::BaseProtocolChecker(sc_core::sc_module_name name) : sc_module(name) {
  target.bind(*this);
  initiator.bind(*this);
}

void BaseProtocolChecker::violation(const char* rule, const tlm::tlm_generic_payload& p,
                                    const std::string& what) const {
  SC_REPORT_ERROR(name(), (std::string(rule) + ": " + what + " [" + describe(p) + "]").c_str());
}

void BaseProtocolChecker::check_acquired(const tlm::tlm_generic_payload& p, const char* where) const {
  if (!p.has_mm())
    violation("memory manager", p, std::string(where) + " of a payload without a memory manager");
  else if (p.get_ref_count() <= 0)
    violation("memory manager", p, std::string(where) + " of a payload nobody has acquired");
}

void BaseProtocolChecker::check_request_attributes(const tlm::tlm_generic_payload& p) const {
  if (!p.get_data_ptr()) violation("payload attributes", p, "BEGIN_REQ without a data pointer");
  if (p.get_data_length() == 0) violation("payload attributes", p, "BEGIN_REQ with data length 0");
  if (p.get_streaming_width() == 0) violation("payload attributes", p, "BEGIN_REQ with streaming width 0");
  if (p.get_byte_enable_ptr() && p.get_byte_enable_length() == 0)
    violation("payload attributes", p, "byte enables without a byte enable length");
  if (!p.get_byte_enable_ptr() && p.get_byte_enable_length() != 0)
    violation("payload attributes", p, "a byte enable length without byte enables");
  if (p.get_response_status() != tlm::TLM_INCOMPLETE_RESPONSE)
    violation("payload attributes", p, "BEGIN_REQ with a response status already set");
}

BaseProtocolChecker::Flight& BaseProtocolChecker::flight_of(const tlm::tlm_generic_payload& p, const char* phase) {
  auto it = flight_.find(&p);
  if (it == flight_.end()) {
    violation("phase sequence", p, std::string(phase) + " for a transaction not in flight on this link");
    // Reached when the report does not throw: go on with a fresh entry.
    return flight_[&p];
  }
  return it->second;
}

void BaseProtocolChecker::end_request(const tlm::tlm_generic_payload& p) {
  if (open_request_ == &p) open_request_ = nullptr;
}

BaseProtocolChecker::Flight& BaseProtocolChecker::begin_response(tlm::tlm_generic_payload& p, const char* where) {
  Flight& f = flight_of(p, where);
  check_acquired(p, where);
  if (f.stage == Stage::kResponse) violation("phase sequence", p, std::string(where) + " twice");
  if (f.stage == Stage::kRequest) end_request(p);  // BEGIN_RESP ends the request phase
  if (open_response_ && open_response_ != &p)
    violation("response exclusion rule", p,
              std::string(where) + " while the response of an earlier transaction has not ended");
  if (p.get_response_status() == tlm::TLM_INCOMPLETE_RESPONSE)
    violation("response status", p, std::string(where) + " with TLM_INCOMPLETE_RESPONSE");
  if (p.get_command() != f.command || p.get_address() != f.address || p.get_data_ptr() != f.data ||
      p.get_data_length() != f.length)
    violation("payload attributes", p, "command, address, data pointer or length changed before the response");
  f.stage = Stage::kResponse;
  return f;
}

void BaseProtocolChecker::complete(const tlm::tlm_generic_payload& p) {
  if (open_request_ == &p) open_request_ = nullptr;
  if (open_response_ == &p) open_response_ = nullptr;
  flight_.erase(&p);
  ++completed_;
}

tlm::tlm_sync_enum BaseProtocolChecker::nb_transport_fw(tlm::tlm_generic_payload& p, tlm::tlm_phase& phase,
                                                        sc_core::sc_time& delay) {
  if (phase == tlm::BEGIN_REQ) {
    check_acquired(p, "BEGIN_REQ");
    if (flight_.count(&p)) violation("phase sequence", p, "BEGIN_REQ for a transaction already in flight");
    if (open_request_)
      violation("request exclusion rule", p, "BEGIN_REQ while an earlier request has not had its END_REQ");
    check_request_attributes(p);
    flight_[&p] = Flight{Stage::kRequest, p.get_command(), p.get_address(), p.get_data_ptr(), p.get_data_length()};
    open_request_ = &p;
  } else if (phase == tlm::END_RESP) {
    Flight& f = flight_of(p, "END_RESP");
    check_acquired(p, "END_RESP");
    if (f.stage != Stage::kResponse || open_response_ != &p)
      violation("phase sequence", p, "END_RESP without a response in progress");
  } else {
    violation("phase sequence", p, "phase " + std::string(phase.get_name()) + " on the forward path");
  }

  const tlm::tlm_phase sent = phase;
  const tlm::tlm_sync_enum status = initiator->nb_transport_fw(p, phase, delay);

  if (sent == tlm::END_RESP) {
    if (status != tlm::TLM_COMPLETED && status != tlm::TLM_ACCEPTED)
      violation("phase sequence", p, "END_RESP answered TLM_UPDATED");
    complete(p);
    return status;
  }
  switch (status) {
    case tlm::TLM_ACCEPTED:
      ++late_end_req_;
      break;
    case tlm::TLM_UPDATED:
      if (phase == tlm::END_REQ) {
        flight_[&p].stage = Stage::kRequestEnded;
        end_request(p);
      } else if (phase == tlm::BEGIN_RESP) {
        begin_response(p, "BEGIN_RESP (returned)");
        open_response_ = &p;
      } else {
        violation("phase sequence", p, "BEGIN_REQ answered TLM_UPDATED with phase " + std::string(phase.get_name()));
      }
      break;
    case tlm::TLM_COMPLETED:
      begin_response(p, "TLM_COMPLETED");
      complete(p);
      break;
  }
  return status;
}

tlm::tlm_sync_enum BaseProtocolChecker::nb_transport_bw(tlm::tlm_generic_payload& p, tlm::tlm_phase& phase,
                                                        sc_core::sc_time& delay) {
  if (phase == tlm::END_REQ) {
    Flight& f = flight_of(p, "END_REQ");
    check_acquired(p, "END_REQ");
    if (f.stage != Stage::kRequest || open_request_ != &p)
      violation("phase sequence", p, "END_REQ for a request not waiting for it");
    f.stage = Stage::kRequestEnded;
    end_request(p);
  } else if (phase == tlm::BEGIN_RESP) {
    begin_response(p, "BEGIN_RESP");
    open_response_ = &p;
  } else {
    violation("phase sequence", p, "phase " + std::string(phase.get_name()) + " on the backward path");
  }

  const tlm::tlm_phase sent = phase;
  const tlm::tlm_sync_enum status = target->nb_transport_bw(p, phase, delay);

  if (sent == tlm::END_REQ) {
    if (status != tlm::TLM_ACCEPTED) violation("phase sequence", p, "END_REQ not answered TLM_ACCEPTED");
    return status;
  }
  if (status == tlm::TLM_COMPLETED || (status == tlm::TLM_UPDATED && phase == tlm::END_RESP))
    complete(p);
  else if (status == tlm::TLM_ACCEPTED)
    ++late_end_resp_;
  else
    violation("phase sequence", p, "BEGIN_RESP answered TLM_UPDATED with phase " + std::string(phase.get_name()));
  return status;
}

void BaseProtocolChecker::b_transport(tlm::tlm_generic_payload& p, sc_core::sc_time& delay) {
  check_request_attributes(p);
  initiator->b_transport(p, delay);
  if (p.get_response_status() == tlm::TLM_INCOMPLETE_RESPONSE)
    violation("response status", p, "b_transport returned with TLM_INCOMPLETE_RESPONSE");
}

bool BaseProtocolChecker::get_direct_mem_ptr(tlm::tlm_generic_payload& p, tlm::tlm_dmi& dmi) {
  return initiator->get_direct_mem_ptr(p, dmi);
}

unsigned int BaseProtocolChecker::transport_dbg(tlm::tlm_generic_payload& p) { return initiator->transport_dbg(p); }

void BaseProtocolChecker::invalidate_direct_mem_ptr(sc_dt::uint64 start, sc_dt::uint64 end) {
  target->invalidate_direct_mem_ptr(start, end);
}

}  // namespace tlmgpu::memory
