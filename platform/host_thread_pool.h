// Host threads that evaluate the SMs of one simulated cycle side by side
// (`--threads N`, key host.threads). A simulated cycle of a busy GPU is a
// few microseconds of host work, so the pool is built for many short
// rounds: the workers spin between rounds and park only after a while
// without work (a GPU waiting on memory or between launches).
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace tlmgpu::platform {

class HostThreadPool {
 public:
  using Task = void (*)(void* context, uint32_t index);

  /// `threads` host threads in all, the caller of run() included (1: no workers).
  explicit HostThreadPool(uint32_t threads);
  ~HostThreadPool();
  HostThreadPool(const HostThreadPool&) = delete;
  HostThreadPool& operator=(const HostThreadPool&) = delete;

  uint32_t threads() const { return uint32_t(workers_.size()) + 1; }

  /// Runs task(context, i) for every i in [0, count) and returns when all
  /// have returned. Indices are handed out in increasing order, so when task
  /// i runs, every task below i has started: a task may wait for lower ones
  /// (IssueOrderGate) without a deadlock. Tasks must not throw.
  void run(uint32_t count, Task task, void* context);

 private:
  void worker_loop();
  /// Takes indices of round `round` until none is left or a new round began.
  void work_on_round(uint32_t round);

  std::vector<std::thread> workers_;
  // One round: the task and its count (atomics: a worker late from the last
  // round may read them while run() writes the next round's, and then finds
  // the ticket closed), the ticket (round above the next index to hand out;
  // kClosed while run() writes the fields) and the tasks not yet done.
  std::atomic<Task> task_{nullptr};
  std::atomic<void*> context_{nullptr};
  std::atomic<uint32_t> count_{0};
  alignas(64) std::atomic<uint64_t> ticket_{0};
  alignas(64) std::atomic<uint32_t> unfinished_{0};
  // Bumped to start a round; the workers wait for it to change.
  alignas(64) std::atomic<uint64_t> round_{0};
  alignas(64) std::atomic<uint32_t> parked_{0};
  std::atomic<bool> stop_{false};
  std::mutex park_mutex_;
  std::condition_variable park_cv_;
};

}  // namespace tlmgpu::platform
