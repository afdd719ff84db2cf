// A standard TLM-2.0 target of a few lines in place of DRAM channel 0 of a
// gtx480 (MemorySystem::bind_foreign_channel): workloads still verify with a
// base-protocol checker on every link, the target's simple socket answers
// TLM_ACCEPTED and then BEGIN_RESP from its own thread between clock edges,
// and the bytes written back to it are those of device memory.
#include <gtest/gtest.h>

#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_target_socket.h>

#include "memory/interconnect.h"
#include "platform/gpu_device.h"
#include "platform/gpu_top.h"
#include "platform/memory_system.h"
#include "platform/timing_gpu.h"
#include "workloads/workload.h"

namespace {

/// The foreign memory: b_transport only, a sparse byte map, 41 ns a request.
/// Each write is compared with device memory at the global address it stands for.
struct ForeignMemory : sc_core::sc_module {
  using Socket = tlm_utils::simple_target_socket_tagged<ForeignMemory>;
  std::vector<std::unique_ptr<Socket>> ports;
  std::map<uint64_t, uint8_t> bytes;
  uint64_t reads = 0, writes = 0, compared = 0, mismatched = 0;
  tlmgpu::memory::GlobalMemoryIf* device = nullptr;
  std::function<uint64_t(uint64_t)> global_of;  ///< channel-local address -> global

  ForeignMemory(sc_core::sc_module_name n, uint32_t count) : sc_module(n) {
    for (uint32_t i = 0; i < count; ++i) {
      ports.push_back(std::make_unique<Socket>(("port" + std::to_string(i)).c_str()));
      ports.back()->register_b_transport(this, &ForeignMemory::b_transport, int(i));
    }
  }
  void b_transport(int, tlm::tlm_generic_payload& p, sc_core::sc_time& delay) {
    const unsigned char* enables = p.get_byte_enable_ptr();
    for (uint32_t i = 0; i < p.get_data_length(); ++i) {
      if (enables && enables[i % p.get_byte_enable_length()] == TLM_BYTE_DISABLED) continue;
      const uint64_t a = p.get_address() + i;
      if (p.is_write()) {
        bytes[a] = p.get_data_ptr()[i];
        uint8_t now = 0;
        if (device && device->read(global_of(a), &now, 1)) {
          ++compared;
          mismatched += now != p.get_data_ptr()[i];
        }
      } else {
        auto it = bytes.find(a);
        p.get_data_ptr()[i] = it == bytes.end() ? 0 : it->second;
      }
    }
    (p.is_write() ? writes : reads) += 1;
    delay += sc_core::sc_time(41, sc_core::SC_NS);  // not a whole number of GPU cycles
    p.set_response_status(tlm::TLM_OK_RESPONSE);
  }
};

/// `compare_writes`: each byte written back must equal device memory's;
/// `expect_writes`: and some must be (the workload's output is evicted).
void run_with_foreign_channel(const char* workload, bool compare_writes, bool expect_writes) {
  tlmgpu::platform::DeviceOptions options;
  options.mode = tlmgpu::platform::SimulationMode::Timing;
  options.config = tlmgpu::platform::preset_config("gtx480");
  options.config.host_protocol_checkers = true;
  // A small L2 (2 KB a slice) that host copies do not fill: the kernels'
  // loads miss and their stores are written back.
  options.config.l2.size_bytes = 2 * 1024;
  options.config.l2_fill_on_host_copy = false;
  const tlmgpu::core::GpuConfig& config = options.config;
  tlmgpu::platform::GpuTop& top = tlmgpu::platform::timing_gpu_top(config);
  tlmgpu::platform::MemorySystem& memory = top.memory_system();
  const std::vector<uint32_t> slices = memory.slices_of_channel(0);
  ASSERT_EQ(slices.size(), 2u);
  ForeignMemory foreign("foreign", uint32_t(slices.size()));
  std::vector<tlm::tlm_target_socket<>*> sockets;
  for (auto& s : foreign.ports) sockets.push_back(s.get());
  memory.bind_foreign_channel(0, sockets);
  // Channel-local address -> global: the inverse of L2Slice::dram_address
  // for the slices sharing the channel, then of the L2 interleave.
  const tlmgpu::memory::L2AddressMap map(config.l2_slices, config.l2_interleave_bytes);
  foreign.global_of = [&](uint64_t a) {
    const uint64_t chunk = a / config.l2_interleave_bytes;
    const uint32_t slice = slices[chunk % slices.size()];
    const uint64_t local = chunk / slices.size() * config.l2_interleave_bytes + a % config.l2_interleave_bytes;
    return map.global_address(slice, local);
  };

  tlmgpu::platform::GpuDevice device(options);
  if (compare_writes) foreign.device = &device.global_memory();
  const tlmgpu::workloads::WorkloadInfo* info = tlmgpu::workloads::find_workload(workload);
  ASSERT_NE(info, nullptr);
  const tlmgpu::workloads::WorkloadResult r = info->make()->run(device, tlmgpu::workloads::Size::Small, 1);
  EXPECT_TRUE(r.verified) << r.detail;
  EXPECT_GT(foreign.reads, 0u);
  // The GPU's own channel 0 saw nothing; channel 1 did.
  const tlmgpu::core::StatMap dram0 = tlmgpu::core::values_of(memory.dram_channel(0));
  const tlmgpu::core::StatMap dram1 = tlmgpu::core::values_of(memory.dram_channel(1));
  EXPECT_EQ(dram0.at("reads") + dram0.at("writes"), 0.0);
  EXPECT_GT(dram1.at("reads"), 0.0);
  // The simple socket's nb-to-b adapter accepted each request and answered
  // later from its own thread; the checkers on the two links saw it.
  uint64_t late_requests = 0, late_responses = 0, completed = 0;
  for (const auto& c : memory.protocol_checkers()) {
    for (uint32_t s : slices)
      if (std::string(c->basename()) == "check_dram_" + std::to_string(s)) {
        late_requests += c->late_end_requests();
        late_responses += c->late_end_responses();
        completed += c->completed();
      }
  }
  // Every request was accepted and ended later; every answer came between
  // clock edges and got its END_RESP at the slice's next edge. (Write-backs
  // of the last cycles may still be inside the target.)
  EXPECT_GT(completed, 0u);
  EXPECT_LE(completed, foreign.reads + foreign.writes);
  EXPECT_GE(late_requests, foreign.reads + foreign.writes);
  EXPECT_EQ(late_responses, completed);
  if (compare_writes) {
    EXPECT_EQ(foreign.mismatched, 0u);
  }
  if (expect_writes) {
    EXPECT_GT(foreign.writes, 0u);
    EXPECT_GT(foreign.compared, 0u);
  }
}

TEST(ForeignChannel, VectorAddVerifiesAndWriteBacksCarryDeviceMemory) {
  run_with_foreign_channel("vector_add", true, true);
}
// Small sgemm's result stays in the L2: only its loads reach the target.
TEST(ForeignChannel, SgemmVerifies) { run_with_foreign_channel("sgemm", true, false); }
// Lock words change after their write-backs left: only the protocol is checked.
TEST(ForeignChannel, TransactionsVerify) { run_with_foreign_channel("transactions", false, false); }

}  // namespace
