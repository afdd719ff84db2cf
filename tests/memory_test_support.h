// Small SystemC stand-ins for the memory-system tests: an SM that offers
// accesses to a cache at given cycles, an initiator that sends TLM requests at
// given cycles, and a fixed-latency memory.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <type_traits>
#include <unordered_map>
#include <vector>

#include <gtest/gtest.h>
#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>

#include "core/stats_provider.h"
#include "engine/clock_domain.h"
#include "memory/l1_cache.h"
#include "memory/memory_interfaces.h"
#include "memory/payload_pool.h"
#include "memory/timed_queue.h"
#include "platform/config_keys.h"
#include "platform/memory_system.h"

namespace tlmgpu_memtest {

using tlmgpu::memory::AccessKind;
using tlmgpu::memory::LineAccess;
using tlmgpu::memory::MemRequestExtension;

/// A module's statistic by name (throws when it reports no such one).
inline double stat_of(const tlmgpu::core::StatsProvider& p, const char* name) {
  return tlmgpu::core::values_of(p).at(name);
}

inline const sc_core::sc_time& period() {
  static const sc_core::sc_time p(1, sc_core::SC_NS);
  return p;
}
inline uint64_t now_cycle() { return tlmgpu::memory::current_cycle(period()); }
inline void run_cycles(uint64_t n) { sc_core::sc_start(tlmgpu::memory::cycles_delay(n, period())); }

/// The memory modules under test run as inside the GPU: their clocks bound
/// to one sc_clock, whose clock domain (at the top level, so it runs every
/// module on that clock) evaluates them at the cycles they ask for. One
/// clock and domain per test process (SystemC elaborates once).
struct TestClockDomain {
  sc_core::sc_clock clock{"test_clock", period()};
  tlmgpu::engine::ClockDomain domain{"test_domain", period()};
  TestClockDomain() { domain.clk.bind(clock); }
};
inline TestClockDomain& test_clock_domain() {
  static TestClockDomain* d = new TestClockDomain;
  return *d;
}
/// Puts `module` (a clocked module or a MemorySystem) on the test clock.
template <class Module>
void on_test_clock(Module& module) {
  if constexpr (std::is_base_of_v<tlmgpu::engine::ClockedModule, Module>)
    module.clk.bind(test_clock_domain().clock);
  else
    module.bind_clock(test_clock_domain().clock);
}

/// Idle modules sleep: no module on the test clock asks for a cycle (the
/// clock itself keeps SystemC busy, so sc_pending_activity cannot tell).
inline bool no_module_scheduled() {
  return test_clock_domain().domain.earliest_wake_below_stage(tlmgpu::memory::kAfterMemoryStages) ==
         tlmgpu::engine::ClockDomain::kNever;
}

/// A memory test: the modules' clock domain drives them.
class MemoryDriver : public ::testing::Test {};

inline LineAccess line_access(uint64_t id, AccessKind kind, uint64_t line, uint32_t mask = 0xf) {
  LineAccess a;
  a.id = id;
  a.kind = kind;
  a.line_addr = line;
  a.sector_mask = mask;
  a.bypass_l1 = kind == AccessKind::Atomic;
  return a;
}

/// Offers scripted accesses to a cache at given cycles (one try each) and
/// records completions.
class TestSm : public sc_core::sc_module, public tlmgpu::memory::CacheResponseIf {
 public:
  sc_core::sc_port<tlmgpu::memory::CacheAccessIf> cache{"cache"};
  struct Step {
    uint64_t cycle;
    LineAccess access;
  };
  std::vector<Step> script;
  std::vector<bool> accepted;
  /// A refused access is offered again every cycle until taken (the steps
  /// after it wait), as an SM's LD/ST unit does.
  bool retry_until_taken = false;
  std::map<uint64_t, uint64_t> done;  ///< id -> completion cycle
  int not_in_future = 0, duplicates = 0;

  SC_HAS_PROCESS(TestSm);
  explicit TestSm(sc_core::sc_module_name name) : sc_module(name) { SC_THREAD(run); }

  void access_done(uint64_t id, uint64_t cycle) override {
    if (cycle <= now_cycle()) ++not_in_future;
    if (done.count(id)) ++duplicates;
    done[id] = cycle;
  }
  std::vector<uint64_t> releases;  ///< release_at cycles, in call order
  void release_at(uint64_t cycle) override { releases.push_back(cycle); }

 private:
  void run() {
    for (const Step& s : script) {
      if (s.cycle > now_cycle()) sc_core::wait(tlmgpu::memory::cycles_delay(s.cycle - now_cycle(), period()));
      bool taken = cache->try_access(s.access, retry_until_taken ? std::max(s.cycle, now_cycle()) : s.cycle);
      while (!taken && retry_until_taken) {
        sc_core::wait(period());
        taken = cache->try_access(s.access, now_cycle());
      }
      accepted.push_back(taken);
    }
  }
};

/// Sends scripted requests so that they arrive at the target at the given
/// cycle; records the cycle each response is ready.
class TestInitiator : public sc_core::sc_module {
 public:
  tlm_utils::simple_initiator_socket<TestInitiator> socket{"socket"};
  static constexpr uint64_t kDefault = ~uint64_t(0);
  struct Send {
    uint64_t arrive;
    uint64_t addr;
    uint32_t mask;
    AccessKind kind;
    uint64_t send_at = kDefault;  ///< cycle it is sent (default: the cycle before it arrives)
    uint64_t id = kDefault;       ///< request id (default: its index in the script)
  };
  std::vector<Send> script;                 ///< in sending order
  std::vector<uint64_t> response_ready;     ///< per script entry, 0 = none

  SC_HAS_PROCESS(TestInitiator);
  explicit TestInitiator(sc_core::sc_module_name name) : sc_module(name) {
    socket.register_nb_transport_bw(this, &TestInitiator::nb_transport_bw);
    SC_THREAD(run);
  }

 private:
  void run() {
    response_ready.assign(script.size(), 0);
    for (size_t i = 0; i < script.size(); ++i) {
      const Send& s = script[i];
      const uint64_t at = s.send_at != kDefault ? s.send_at : s.arrive - 1;
      if (at > now_cycle()) sc_core::wait(tlmgpu::memory::cycles_delay(at - now_cycle(), period()));
      payloads_.push_back(std::make_unique<Owned>());
      tlm::tlm_generic_payload& p = payloads_.back()->payload;
      auto* ext = new MemRequestExtension;
      ext->kind = s.kind;
      ext->id = s.id != kDefault ? s.id : i;
      ext->sector_mask = s.mask;
      p.set_extension(ext);
      // As an L1 or L2 slice sends it: the span of the requested units.
      tlmgpu::memory::set_sector_span(p, s.addr, s.mask, payloads_.back()->data, payloads_.back()->enables);
      p.set_command(s.kind == AccessKind::Store ? tlm::TLM_WRITE_COMMAND : tlm::TLM_READ_COMMAND);
      index_[&p] = i;
      sc_core::sc_time delay = tlmgpu::memory::cycles_delay(s.arrive - now_cycle(), period());
      tlm::tlm_phase phase = tlm::BEGIN_REQ;
      socket->nb_transport_fw(p, phase, delay);
    }
  }
  tlm::tlm_sync_enum nb_transport_bw(tlm::tlm_generic_payload& p, tlm::tlm_phase& phase, sc_core::sc_time& delay) {
    if (phase == tlm::BEGIN_RESP) response_ready[index_.at(&p)] = now_cycle() + delay.value() / period().value();
    return tlm::TLM_COMPLETED;
  }

  struct Owned {
    tlm::tlm_generic_payload payload;
    uint8_t data[1024] = {}, enables[1024] = {};
  };
  std::vector<std::unique_ptr<Owned>> payloads_;
  std::unordered_map<const tlm::tlm_generic_payload*, size_t> index_;
};

/// Answers every request `latency` cycles after it arrives; records arrivals.
class TestMemory : public sc_core::sc_module {
 public:
  tlm_utils::simple_target_socket<TestMemory> socket{"socket"};
  struct Seen {
    uint64_t cycle;
    uint64_t addr;
    uint32_t mask;
    AccessKind kind;
    uint32_t source;
    uint64_t first_byte = 0;       ///< the payload's address
    uint32_t length = 0;           ///< its data length
    std::vector<uint8_t> enables;  ///< its byte enables (empty: none)
    std::vector<uint8_t> data;     ///< a write's data as it arrived
  };
  std::vector<Seen> seen;

  SC_HAS_PROCESS(TestMemory);
  TestMemory(sc_core::sc_module_name name, uint32_t latency) : sc_module(name), latency_(latency) {
    socket.register_nb_transport_fw(this, &TestMemory::nb_transport_fw);
    SC_METHOD(respond);
    sensitive << wake_;
    dont_initialize();
  }

 private:
  tlm::tlm_sync_enum nb_transport_fw(tlm::tlm_generic_payload& p, tlm::tlm_phase& phase, sc_core::sc_time& delay) {
    const uint64_t arrive = now_cycle() + delay.value() / period().value();
    const auto* ext = p.get_extension<MemRequestExtension>();
    // The line: a request starts at its first requested 32-byte unit.
    seen.push_back({arrive, p.get_address() - tlmgpu::memory::offset_in_line(ext), ext->sector_mask, ext->kind,
                    ext->source, p.get_address(), p.get_data_length(), {}, {}});
    if (p.get_byte_enable_ptr())
      seen.back().enables.assign(p.get_byte_enable_ptr(), p.get_byte_enable_ptr() + p.get_byte_enable_length());
    if (p.is_write() && p.get_data_ptr())
      seen.back().data.assign(p.get_data_ptr(), p.get_data_ptr() + p.get_data_length());
    pending_.push(arrive, 0, &p);
    tlmgpu::memory::notify_at_cycle(wake_, arrive, period());
    phase = tlm::END_REQ;
    return tlm::TLM_UPDATED;
  }
  void respond() {
    while (pending_.ready(now_cycle())) {
      tlm::tlm_generic_payload* p = pending_.pop();
      sc_core::sc_time delay = tlmgpu::memory::cycles_delay(latency_, period());
      tlm::tlm_phase phase = tlm::BEGIN_RESP;
      socket->nb_transport_bw(*p, phase, delay);
    }
    if (!pending_.empty()) tlmgpu::memory::notify_at_cycle(wake_, pending_.next_ready(), period());
  }

  uint32_t latency_;
  tlmgpu::memory::TimedQueue<tlm::tlm_generic_payload*> pending_;
  sc_core::sc_event wake_;
};

// The memory unit tests' hand-computed cycles were worked out on this
// memory system: the gtx480 preset before its latencies were calibrated
// (1-cycle L1D over 32-byte sectors, six 128 KB L2 slices answering in 10
// cycles without a ROP delay, an 8-cycle 32-byte crossbar), spelt out here
// so that the tests do not move when a preset does.
inline tlmgpu::core::GpuConfig unit_test_memory_config() {
  tlmgpu::core::GpuConfig c;
  // The L1s' miss queues and the crossbar's input buffers unbounded: the
  // tests that bound them say so.
  c.l1d = {16 * 1024, 4, 128, 32, 1, 32, 8, false, 0};
  c.l1i = {2 * 1024, 4, 128, 128, 3, 2, 32, false, 0};
  c.l2 = {128 * 1024, 8, 128, 32, 10, 32, 4, true, 0};
  c.l2_slices = 6;
  c.l2_interleave_bytes = 256;
  c.l2_rop_latency = 0;
  c.l2_fill_on_host_copy = false;
  c.icnt = {8, 32, 0};
  return c;
}

// The memory unit tests were worked out with a 4-cycle burst per sector (8 B
// per cycle, 4 transfers of one per cycle): long enough that bursts on the
// data bus visibly queue. The rest is DramConfig's defaults: DRAM clock =
// core clock, no bank groups, tCCD = tRRD = 1.
inline tlmgpu::core::DramConfig four_cycle_bursts(tlmgpu::core::DramConfig c = {}) {
  c.bus_bytes = 8;
  c.burst_length = 4;
  c.data_rate = 1;
  return c;
}

/// One SM's L1D and L1I on a memory system built from `config` (one SM),
/// each cache answering a scripted SM.
struct OneSmMemoryBench {
  tlmgpu::core::GpuConfig config;
  std::unique_ptr<tlmgpu::platform::MemorySystem> mem;
  std::unique_ptr<tlmgpu::memory::L1Cache> l1d, l1i;
  TestSm sm_d{"sm_d"}, sm_i{"sm_i"};
  explicit OneSmMemoryBench(const tlmgpu::core::GpuConfig& c) : config(c) {
    config.num_sms = 1;
    mem = std::make_unique<tlmgpu::platform::MemorySystem>(config, period());
    l1d = std::make_unique<tlmgpu::memory::L1Cache>("l1d", config.l1d, period());
    l1i = std::make_unique<tlmgpu::memory::L1Cache>("l1i", config.l1i, period());
    sm_d.cache.bind(l1d->access_export);
    sm_i.cache.bind(l1i->access_export);
    l1d->response_port.bind(sm_d);
    l1i->response_port.bind(sm_i);
    mem->bind_l1(0, *l1d, *l1i);
    on_test_clock(*mem);
  }
};

}  // namespace tlmgpu_memtest
