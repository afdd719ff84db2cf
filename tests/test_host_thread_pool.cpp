// The host thread pool that evaluates the SMs of a cycle side by side, and
// the gate that keeps their accesses to shared functional state in SM order.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <thread>
#include <vector>

#include "core/issue_order_gate.h"
#include "platform/host_thread_pool.h"

namespace {

using tlmgpu::core::IssueOrderGate;
using tlmgpu::core::IssueOrderTicket;
using tlmgpu::platform::HostThreadPool;

struct CountingRound {
  std::vector<std::atomic<uint32_t>> runs;
  std::atomic<uint32_t> threads_seen{0};
  explicit CountingRound(uint32_t n) : runs(n) {}
  static void task(void* self, uint32_t i) { static_cast<CountingRound*>(self)->runs[i].fetch_add(1); }
};

TEST(HostThreadPool, EveryIndexRunsOnceInEveryRound) {
  for (uint32_t threads : {1u, 2u, 4u}) {
    HostThreadPool pool(threads);
    EXPECT_EQ(pool.threads(), threads);
    // Rounds of changing sizes, back to back: a worker late from one round
    // must never run an index of the next one twice or one past its end.
    for (uint32_t round = 0; round < 20000; ++round) {
      const uint32_t count = 1 + round % 17;
      CountingRound r(count);
      pool.run(count, &CountingRound::task, &r);
      for (uint32_t i = 0; i < count; ++i) ASSERT_EQ(r.runs[i].load(), 1u) << "round " << round << " index " << i;
    }
  }
}

TEST(HostThreadPool, ParkedWorkersWakeForTheNextRound) {
  HostThreadPool pool(3);
  for (int round = 0; round < 4; ++round) {
    // Longer than the workers spin before they park.
    std::this_thread::sleep_for(std::chrono::milliseconds(30));
    CountingRound r(8);
    pool.run(8, &CountingRound::task, &r);
    for (uint32_t i = 0; i < 8; ++i) EXPECT_EQ(r.runs[i].load(), 1u);
  }
}

// Workers may start after the pool has run rounds, or after its destructor
// began: they must still see the stop (this hung once).
TEST(HostThreadPool, PoolsDestroyedBeforeTheirWorkersStartJoin) {
  for (int i = 0; i < 300; ++i) {
    HostThreadPool pool(4);
    if (i % 2 == 0) {
      CountingRound r(6);
      pool.run(6, &CountingRound::task, &r);
    }
  }
}

// Task i waits until task i - 1 has started: the pool hands out indices in
// increasing order, so this never deadlocks, whatever the thread count.
struct ChainRound {
  std::vector<std::atomic<bool>> started;
  explicit ChainRound(uint32_t n) : started(n) {}
  static void task(void* self, uint32_t i) {
    auto& r = *static_cast<ChainRound*>(self);
    r.started[i] = true;
    if (i > 0)
      while (!r.started[i - 1]) std::this_thread::yield();
  }
};

TEST(HostThreadPool, ATaskMayWaitForLowerIndices) {
  HostThreadPool pool(4);
  for (int round = 0; round < 2000; ++round) {
    ChainRound r(15);
    pool.run(15, &ChainRound::task, &r);
  }
}

// Each task does some work of its own, then appends its index to a shared
// log behind the gate (as an SM touches global memory at issue), then more
// work: the log is in index order in every round.
struct GateRound {
  IssueOrderGate* gate;
  std::vector<uint32_t> log;
  std::vector<uint64_t> sink;
  explicit GateRound(IssueOrderGate* g, uint32_t n) : gate(g), sink(n) {}
  static void task(void* self, uint32_t i) {
    auto& r = *static_cast<GateRound*>(self);
    IssueOrderTicket ticket{r.gate, i};
    tlmgpu::core::current_issue_order_ticket = &ticket;
    uint64_t x = i;
    for (uint32_t k = 0; k < 200 * ((i * 7) % 5 + 1); ++k) x = x * 6364136223846793005ull + 1;
    if (i % 3 != 1) {  // some tasks touch nothing shared in a round
      tlmgpu::core::await_issue_order();
      r.log.push_back(i);
      tlmgpu::core::await_issue_order();  // a second access waits no more
      r.log.push_back(i);
    }
    tlmgpu::core::publish_issue_order();
    for (uint32_t k = 0; k < 100; ++k) x = x * 6364136223846793005ull + 1;
    r.sink[i] = x;
    tlmgpu::core::current_issue_order_ticket = nullptr;
  }
};

TEST(IssueOrderGate, SharedAccessesHappenInIndexOrder) {
  for (uint32_t threads : {2u, 4u}) {
    HostThreadPool pool(threads);
    IssueOrderGate gate;
    for (int round = 0; round < 3000; ++round) {
      const uint32_t count = 2 + round % 14;
      GateRound r(&gate, count);
      gate.begin_round(count);
      pool.run(count, &GateRound::task, &r);
      std::vector<uint32_t> expected;
      for (uint32_t i = 0; i < count; ++i)
        if (i % 3 != 1) expected.insert(expected.end(), {i, i});
      ASSERT_EQ(r.log, expected) << threads << " threads, round " << round;
    }
  }
}

}  // namespace
