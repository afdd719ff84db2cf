// ArrivalQueue (the caches' and DRAM's arrival queue) must pop exactly what
// TimedQueue pops: simulated results depend on the order.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>

#include "memory/timed_queue.h"

namespace {

using tlmgpu::memory::ArrivalQueue;
using tlmgpu::memory::TimedQueue;

/// Pushes mostly in order (as the memory models do) with some out-of-order
/// items, ties on cycle, source and key, and pops interleaved with pushes.
void compare_orders(uint32_t seed, uint32_t out_of_order_percent) {
  std::mt19937 rng(seed);
  ArrivalQueue<uint32_t> fast;
  TimedQueue<uint32_t> reference;
  uint64_t now = 0;
  uint32_t next_item = 0;
  for (int step = 0; step < 20000; ++step) {
    now += rng() % 3;
    const uint32_t pushes = rng() % 3;
    for (uint32_t p = 0; p < pushes; ++p) {
      uint64_t ready = now + 4;
      if (rng() % 100 < out_of_order_percent) ready = now + 1 + rng() % 8;
      const uint32_t source = rng() % 3;
      const uint64_t key = rng() % 2;
      fast.push(ready, source, next_item, key);
      reference.push(ready, source, next_item, key);
      ++next_item;
    }
    ASSERT_EQ(fast.size(), reference.size());
    ASSERT_EQ(fast.empty(), reference.empty());
    if (!reference.empty()) {
      ASSERT_EQ(fast.next_ready(), reference.next_ready());
      ASSERT_EQ(fast.top(), reference.top());
    }
    while (reference.ready(now)) {
      ASSERT_TRUE(fast.ready(now));
      uint64_t fast_ready = 0, reference_ready = 0;
      const uint32_t item = fast.pop(&fast_ready);
      ASSERT_EQ(item, reference.pop(&reference_ready));
      ASSERT_EQ(fast_ready, reference_ready);
    }
    ASSERT_FALSE(fast.ready(now));
  }
}

TEST(ArrivalQueue, InOrderPushesPopLikeTimedQueue) { compare_orders(1, 0); }

TEST(ArrivalQueue, MostlyInOrderPushesPopLikeTimedQueue) { compare_orders(2, 10); }

TEST(ArrivalQueue, UnorderedPushesPopLikeTimedQueue) { compare_orders(3, 100); }

}  // namespace
