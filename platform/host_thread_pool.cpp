#include "platform/host_thread_pool.h"

#include "core/host_wait.h"

namespace tlmgpu::platform {

namespace {

// Spins before a waiting thread yields its core (core::wait_step).
constexpr uint32_t kSpinsBeforeYield = 1u << 10;

// Waits (spins, then yields) a worker makes before it parks: milliseconds,
// far longer than the serial part of a cycle (the memory modules, the
// dispatcher, the commit) and far shorter than a GPU idling between launches.
constexpr uint32_t kSpinsBeforePark = 1u << 14;

// A ticket no round has: run() writes the next round's fields behind it.
constexpr uint64_t kClosed = ~uint64_t(0);

}  // namespace

HostThreadPool::HostThreadPool(uint32_t threads) {
  for (uint32_t i = 1; i < threads; ++i) workers_.emplace_back([this] { worker_loop(); });
}

HostThreadPool::~HostThreadPool() {
  {
    std::lock_guard<std::mutex> lock(park_mutex_);
    stop_.store(true, std::memory_order_release);
    round_.fetch_add(1);
  }
  park_cv_.notify_all();
  for (std::thread& w : workers_) w.join();
}

void HostThreadPool::work_on_round(uint32_t round) {
  for (;;) {
    const uint32_t count = count_.load();
    uint64_t ticket = ticket_.load();
    if (uint32_t(ticket >> 32) != round) return;  // the round is over (or closed for the next)
    const uint32_t i = uint32_t(ticket);
    if (i >= count) return;
    // Claiming an index of this round: fails when another thread took it or
    // run() closed the round, and `count` was this round's while it holds.
    if (!ticket_.compare_exchange_weak(ticket, ticket + 1)) continue;
    // The round cannot end (and its fields change) before this task is done.
    task_.load()(context_.load(), i);
    unfinished_.fetch_sub(1, std::memory_order_acq_rel);
  }
}

void HostThreadPool::run(uint32_t count, Task task, void* context) {
  if (count == 0) return;
  if (workers_.empty() || count == 1) {
    for (uint32_t i = 0; i < count; ++i) task(context, i);
    return;
  }
  const uint32_t round = uint32_t(round_.load(std::memory_order_relaxed) + 1);
  ticket_.store(kClosed);
  task_.store(task);
  context_.store(context);
  count_.store(count);
  unfinished_.store(count);
  ticket_.store(uint64_t(round) << 32);
  round_.fetch_add(1);
  if (parked_.load() != 0) {
    std::lock_guard<std::mutex> lock(park_mutex_);
    park_cv_.notify_all();
  }
  work_on_round(round);
  uint32_t spins = 0;
  while (unfinished_.load(std::memory_order_acquire) != 0) core::wait_step(spins, kSpinsBeforeYield);
}

void HostThreadPool::worker_loop() {
  // A worker may start after rounds (or the destructor) have begun: it
  // takes the current round as seen and watches stop_ while it waits.
  uint64_t seen = round_.load(std::memory_order_acquire);
  for (;;) {
    uint32_t spins = 0;
    uint64_t now = round_.load(std::memory_order_acquire);
    while (now == seen) {
      if (stop_.load(std::memory_order_acquire)) return;
      if (spins < kSpinsBeforePark) {
        core::wait_step(spins, kSpinsBeforeYield);
      } else {
        std::unique_lock<std::mutex> lock(park_mutex_);
        parked_.fetch_add(1);
        // run() reads parked_ after bumping round_: either it sees this
        // worker parked and notifies under the mutex, or the worker sees the
        // new round here before it sleeps.
        park_cv_.wait(lock, [&] { return round_.load() != seen || stop_.load(); });
        parked_.fetch_sub(1, std::memory_order_acq_rel);
        spins = 0;
      }
      now = round_.load(std::memory_order_acquire);
    }
    seen = now;
    if (stop_.load(std::memory_order_acquire)) return;
    work_on_round(uint32_t(now));
  }
}

}  // namespace tlmgpu::platform
