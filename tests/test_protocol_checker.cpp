// The base-protocol checker (memory/protocol_checker.h): each rule broken on
// purpose by a scripted initiator or target is reported, a clean exchange
// with every phase is not, and workloads run clean with a checker on every
// link of the GPU's memory system (host.protocol_checkers).
#include <gtest/gtest.h>

#include <functional>
#include <string>

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>

#include "memory/protocol_checker.h"
#include "platform/gpu_device.h"
#include "platform/gpu_top.h"
#include "platform/memory_system.h"
#include "platform/presets.h"
#include "platform/timing_gpu.h"
#include "workloads/workload.h"

namespace {

using tlmgpu::memory::BaseProtocolChecker;
using Fn = std::function<tlm::tlm_sync_enum(tlm::tlm_generic_payload&, tlm::tlm_phase&, sc_core::sc_time&)>;

struct NoFree : tlm::tlm_mm_interface {
  void free(tlm::tlm_generic_payload*) override {}
};

/// A payload as the base protocol wants it: an mm, acquired, a data pointer.
struct Payload {
  tlm::tlm_generic_payload p;
  unsigned char data[64] = {};
  explicit Payload(NoFree& mm, uint64_t address = 0x100) {
    p.set_mm(&mm);
    p.acquire();
    p.set_command(tlm::TLM_READ_COMMAND);
    p.set_address(address);
    p.set_data_ptr(data);
    p.set_data_length(32);
    p.set_streaming_width(32);
    p.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
  }
};

struct Initiator : sc_core::sc_module {
  tlm_utils::simple_initiator_socket<Initiator> socket{"socket"};
  std::function<void(Initiator&)> script;
  Fn on_bw = [](tlm::tlm_generic_payload&, tlm::tlm_phase&, sc_core::sc_time&) { return tlm::TLM_COMPLETED; };
  SC_HAS_PROCESS(Initiator);
  explicit Initiator(sc_core::sc_module_name n) : sc_module(n) {
    socket.register_nb_transport_bw(this, &Initiator::bw);
    SC_THREAD(run);
  }
  tlm::tlm_sync_enum send(tlm::tlm_generic_payload& p, tlm::tlm_phase phase = tlm::BEGIN_REQ) {
    sc_core::sc_time t = sc_core::SC_ZERO_TIME;
    return socket->nb_transport_fw(p, phase, t);
  }
  void run() {
    if (script) script(*this);
  }
  tlm::tlm_sync_enum bw(tlm::tlm_generic_payload& p, tlm::tlm_phase& ph, sc_core::sc_time& t) { return on_bw(p, ph, t); }
};

struct Target : sc_core::sc_module {
  tlm_utils::simple_target_socket<Target> socket{"socket"};
  Fn on_fw = [](tlm::tlm_generic_payload& p, tlm::tlm_phase& ph, sc_core::sc_time&) {
    if (ph != tlm::BEGIN_REQ) return tlm::TLM_COMPLETED;
    p.set_response_status(tlm::TLM_OK_RESPONSE);
    return tlm::TLM_COMPLETED;
  };
  explicit Target(sc_core::sc_module_name n) : sc_module(n) { socket.register_nb_transport_fw(this, &Target::fw); }
  tlm::tlm_sync_enum send_back(tlm::tlm_generic_payload& p, tlm::tlm_phase phase) {
    sc_core::sc_time t = sc_core::SC_ZERO_TIME;
    return socket->nb_transport_bw(p, phase, t);
  }
  tlm::tlm_sync_enum fw(tlm::tlm_generic_payload& p, tlm::tlm_phase& ph, sc_core::sc_time& t) { return on_fw(p, ph, t); }
};

struct Link {
  NoFree mm;
  Initiator ini{"ini"};
  BaseProtocolChecker chk{"chk"};
  Target tgt{"tgt"};
  Link() {
    ini.socket.bind(chk.target);
    chk.initiator.bind(tgt.socket);
  }
  /// Runs the scripts; the checker's report, "" when none.
  std::string run() {
    try {
      sc_core::sc_start(1, sc_core::SC_US);
    } catch (const sc_core::sc_report& r) {
      return std::string(r.get_msg_type()) + " | " + r.get_msg();
    }
    return "";
  }
};

const auto accept = [](tlm::tlm_generic_payload&, tlm::tlm_phase&, sc_core::sc_time&) { return tlm::TLM_ACCEPTED; };
const auto end_request = [](tlm::tlm_generic_payload&, tlm::tlm_phase& ph, sc_core::sc_time&) {
  ph = tlm::END_REQ;
  return tlm::TLM_UPDATED;
};

TEST(ProtocolChecker, EveryPhaseInOrderIsClean) {
  Link l;
  Payload a(l.mm), b(l.mm);
  l.tgt.on_fw = [&](tlm::tlm_generic_payload& p, tlm::tlm_phase& ph, sc_core::sc_time&) {
    if (ph == tlm::END_RESP) return tlm::TLM_COMPLETED;
    if (&p == &b.p) {
      p.set_response_status(tlm::TLM_OK_RESPONSE);
      return tlm::TLM_COMPLETED;
    }
    return tlm::TLM_ACCEPTED;  // a: END_REQ and BEGIN_RESP come later
  };
  l.ini.on_bw = accept;  // a's response: END_RESP comes later
  l.ini.script = [&](Initiator& i) {
    EXPECT_EQ(i.send(a.p), tlm::TLM_ACCEPTED);
    sc_core::wait(5, sc_core::SC_NS);
    l.tgt.send_back(a.p, tlm::END_REQ);
    EXPECT_EQ(i.send(b.p), tlm::TLM_COMPLETED);
    sc_core::wait(5, sc_core::SC_NS);
    a.p.set_response_status(tlm::TLM_OK_RESPONSE);
    l.tgt.send_back(a.p, tlm::BEGIN_RESP);
    sc_core::wait(5, sc_core::SC_NS);
    i.send(a.p, tlm::END_RESP);
  };
  EXPECT_EQ(l.run(), "");
  EXPECT_EQ(l.chk.completed(), 2u);
  EXPECT_EQ(l.chk.late_end_requests(), 1u);
  EXPECT_EQ(l.chk.late_end_responses(), 1u);
  EXPECT_EQ(l.chk.in_flight(), 0u);
}

TEST(ProtocolChecker, PayloadWithoutMemoryManager) {
  Link l;
  tlm::tlm_generic_payload p;
  unsigned char data[32];
  p.set_data_ptr(data);
  p.set_data_length(32);
  p.set_streaming_width(32);
  l.ini.script = [&](Initiator& i) { i.send(p); };
  const std::string report = l.run();
  EXPECT_NE(report.find("chk | memory manager: BEGIN_REQ of a payload without a memory manager"), std::string::npos)
      << report;
}

TEST(ProtocolChecker, PayloadNotAcquired) {
  Link l;
  Payload a(l.mm);
  a.p.release();  // NoFree keeps it alive at a count of 0
  l.ini.script = [&](Initiator& i) { i.send(a.p); };
  EXPECT_NE(l.run().find("memory manager: BEGIN_REQ of a payload nobody has acquired"), std::string::npos);
}

TEST(ProtocolChecker, RequestExclusionRule) {
  Link l;
  Payload a(l.mm), b(l.mm);
  l.tgt.on_fw = accept;  // END_REQ never comes
  l.ini.script = [&](Initiator& i) {
    i.send(a.p);
    i.send(b.p);
  };
  EXPECT_NE(l.run().find("request exclusion rule"), std::string::npos);
}

TEST(ProtocolChecker, ResponseExclusionRule) {
  Link l;
  Payload a(l.mm), b(l.mm);
  l.tgt.on_fw = end_request;
  l.ini.on_bw = accept;  // a's END_RESP never comes
  l.ini.script = [&](Initiator& i) {
    i.send(a.p);
    i.send(b.p);
    a.p.set_response_status(tlm::TLM_OK_RESPONSE);
    b.p.set_response_status(tlm::TLM_OK_RESPONSE);
    l.tgt.send_back(a.p, tlm::BEGIN_RESP);
    l.tgt.send_back(b.p, tlm::BEGIN_RESP);
  };
  EXPECT_NE(l.run().find("response exclusion rule"), std::string::npos);
}

TEST(ProtocolChecker, PhaseSequenceEndRequestOfUnknownTransaction) {
  Link l;
  Payload a(l.mm);
  l.ini.script = [&](Initiator&) { l.tgt.send_back(a.p, tlm::END_REQ); };
  EXPECT_NE(l.run().find("phase sequence: END_REQ for a transaction not in flight"), std::string::npos);
}

TEST(ProtocolChecker, PhaseSequenceEndResponseWithoutResponse) {
  Link l;
  Payload a(l.mm);
  l.tgt.on_fw = accept;
  l.ini.script = [&](Initiator& i) {
    i.send(a.p);
    i.send(a.p, tlm::END_RESP);
  };
  EXPECT_NE(l.run().find("phase sequence: END_RESP without a response in progress"), std::string::npos);
}

TEST(ProtocolChecker, PayloadAttributesDataPointer) {
  Link l;
  Payload a(l.mm);
  a.p.set_data_ptr(nullptr);
  l.ini.script = [&](Initiator& i) { i.send(a.p); };
  EXPECT_NE(l.run().find("payload attributes: BEGIN_REQ without a data pointer"), std::string::npos);
}

TEST(ProtocolChecker, PayloadAttributesByteEnables) {
  Link l;
  Payload a(l.mm);
  unsigned char enables[32] = {};
  a.p.set_byte_enable_ptr(enables);
  a.p.set_byte_enable_length(0);
  l.ini.script = [&](Initiator& i) { i.send(a.p); };
  EXPECT_NE(l.run().find("payload attributes: byte enables without a byte enable length"), std::string::npos);
}

TEST(ProtocolChecker, PayloadAttributesChangedBeforeResponse) {
  Link l;
  Payload a(l.mm);
  l.tgt.on_fw = [](tlm::tlm_generic_payload& p, tlm::tlm_phase&, sc_core::sc_time&) {
    p.set_address(p.get_address() + 32);
    p.set_response_status(tlm::TLM_OK_RESPONSE);
    return tlm::TLM_COMPLETED;
  };
  l.ini.script = [&](Initiator& i) { i.send(a.p); };
  EXPECT_NE(l.run().find("payload attributes: command, address, data pointer or length changed"), std::string::npos);
}

TEST(ProtocolChecker, ResponseStatusUnset) {
  Link l;
  Payload a(l.mm);
  l.tgt.on_fw = [](tlm::tlm_generic_payload&, tlm::tlm_phase&, sc_core::sc_time&) { return tlm::TLM_COMPLETED; };
  l.ini.script = [&](Initiator& i) { i.send(a.p); };
  EXPECT_NE(l.run().find("response status: TLM_COMPLETED with TLM_INCOMPLETE_RESPONSE"), std::string::npos);
}

/// A small workload in timing mode on gtx480 with a checker on every link:
/// it verifies, no rule is broken (a report would throw out of the launch),
/// every link carried traffic and nothing is left in flight.
void run_under_checkers(const char* name) {
  tlmgpu::platform::DeviceOptions options;
  options.mode = tlmgpu::platform::SimulationMode::Timing;
  options.config = tlmgpu::platform::preset_config("gtx480");
  options.config.host_protocol_checkers = true;
  tlmgpu::platform::GpuDevice device(options);
  const tlmgpu::workloads::WorkloadInfo* info = tlmgpu::workloads::find_workload(name);
  ASSERT_NE(info, nullptr);
  const tlmgpu::workloads::WorkloadResult r = info->make()->run(device, tlmgpu::workloads::Size::Small, 1);
  EXPECT_TRUE(r.verified) << r.detail;
  auto& memory = tlmgpu::platform::timing_gpu_top(options.config).memory_system();
  const auto& checkers = memory.protocol_checkers();
  // 3 upstream links per SM (L1D, L1I, texture), then 2 per L2 slice.
  EXPECT_EQ(checkers.size(), 3 * options.config.num_sms + 2 * options.config.l2_slices);
  uint64_t completed = 0;
  uint32_t busy_links = 0;
  for (const auto& c : checkers) {
    completed += c->completed();
    busy_links += c->completed() > 0;
  }
  EXPECT_GT(completed, 0u);
  EXPECT_GE(busy_links, options.config.l2_slices);  // at least every crossbar-to-L2 link
}

TEST(ProtocolChecker, VectorAddRunsCleanUnderCheckers) { run_under_checkers("vector_add"); }
TEST(ProtocolChecker, SgemmRunsCleanUnderCheckers) { run_under_checkers("sgemm"); }
TEST(ProtocolChecker, TransactionsRunCleanUnderCheckers) { run_under_checkers("transactions"); }

}  // namespace
