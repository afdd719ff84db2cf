// A pass-through module that checks the TLM-2.0 base protocol on one link
// (IEEE 1666-2011 clause 15): inserted between an initiator and a target, it
// forwards every call unchanged and reports each rule a transaction breaks.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>

#include <systemc>
#include <tlm>

namespace tlmgpu::memory {

/// Bind the initiator to `target` and `initiator` to the target. Checked per
/// payload, on nb_transport (both directions and every return path):
/// - "phase sequence": BEGIN_REQ, END_REQ (or BEGIN_RESP: implicit END_REQ),
///   BEGIN_RESP, END_RESP (or TLM_COMPLETED / TLM_UPDATED with END_RESP), in
///   that order, for a payload in flight on this link;
/// - "request exclusion rule": no BEGIN_REQ while an earlier request on this
///   link has not ended;
/// - "response exclusion rule": no BEGIN_RESP while an earlier response on
///   this link has not ended;
/// - "memory manager": the payload has one and is acquired (reference count
///   above 0) at every phase while in flight;
/// - "payload attributes": a data pointer, a non-zero length and streaming
///   width, byte enables with a length (and a pointer with a length), an
///   incomplete response status at BEGIN_REQ, and command, address, data
///   pointer and length unchanged until the response;
/// - "response status": set (not TLM_INCOMPLETE_RESPONSE) when the response
///   is sent or the transaction completes.
/// A broken rule is an SC_REPORT_ERROR whose message type is the checker's
/// name (the link) and whose message starts with the rule.
class BaseProtocolChecker : public sc_core::sc_module,
                            public tlm::tlm_fw_transport_if<>,
                            public tlm::tlm_bw_transport_if<> {
 public:
  tlm::tlm_target_socket<> target{"target"};           ///< from the initiator
  tlm::tlm_initiator_socket<> initiator{"initiator"};  ///< to the target

  explicit BaseProtocolChecker(sc_core::sc_module_name name);

  /// Transactions that completed on this link.
  uint64_t completed() const { return completed_; }
  /// Requests that got TLM_ACCEPTED (their END_REQ came later), responses
  /// that got TLM_ACCEPTED (their END_RESP came later).
  uint64_t late_end_requests() const { return late_end_req_; }
  uint64_t late_end_responses() const { return late_end_resp_; }
  /// Transactions in flight on this link.
  size_t in_flight() const { return flight_.size(); }

  tlm::tlm_sync_enum nb_transport_fw(tlm::tlm_generic_payload& p, tlm::tlm_phase& phase,
                                     sc_core::sc_time& delay) override;
  tlm::tlm_sync_enum nb_transport_bw(tlm::tlm_generic_payload& p, tlm::tlm_phase& phase,
                                     sc_core::sc_time& delay) override;
  void b_transport(tlm::tlm_generic_payload& p, sc_core::sc_time& delay) override;
  bool get_direct_mem_ptr(tlm::tlm_generic_payload& p, tlm::tlm_dmi& dmi) override;
  unsigned int transport_dbg(tlm::tlm_generic_payload& p) override;
  void invalidate_direct_mem_ptr(sc_dt::uint64 start, sc_dt::uint64 end) override;

 private:
  enum class Stage : uint8_t { kRequest, kRequestEnded, kResponse };
  struct Flight {
    Stage stage = Stage::kRequest;
    tlm::tlm_command command = tlm::TLM_IGNORE_COMMAND;
    uint64_t address = 0;
    unsigned char* data = nullptr;
    uint32_t length = 0;
  };

  void violation(const char* rule, const tlm::tlm_generic_payload& p, const std::string& what) const;
  void check_acquired(const tlm::tlm_generic_payload& p, const char* where) const;
  void check_request_attributes(const tlm::tlm_generic_payload& p) const;
  /// A response (BEGIN_RESP on either path, or TLM_COMPLETED): the request
  /// phase ends if it had not, the status and attributes are checked.
  Flight& begin_response(tlm::tlm_generic_payload& p, const char* where);
  void end_request(const tlm::tlm_generic_payload& p);
  void complete(const tlm::tlm_generic_payload& p);
  /// The transaction's entry; a violation when it is not in flight.
  Flight& flight_of(const tlm::tlm_generic_payload& p, const char* phase);

  std::unordered_map<const tlm::tlm_generic_payload*, Flight> flight_;
  const tlm::tlm_generic_payload* open_request_ = nullptr;   ///< BEGIN_REQ without END_REQ yet
  const tlm::tlm_generic_payload* open_response_ = nullptr;  ///< BEGIN_RESP without END_RESP yet
  uint64_t completed_ = 0, late_end_req_ = 0, late_end_resp_ = 0;
};

}  // namespace tlmgpu::memory
