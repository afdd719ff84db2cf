// How host threads wait for each other when the wait is usually short (the
// SMs of one cycle on several threads), and the time-stamp counter the
// phase profile reads.
#pragma once

#include <chrono>
#include <cstdint>
#include <thread>

#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#endif

namespace tlmgpu::core {

/// The host's time-stamp counter, for profiles: a few cycles to read.
inline uint64_t host_time_stamp() {
#if defined(__x86_64__) || defined(__i386__)
  return __rdtsc();
#else
  return uint64_t(std::chrono::steady_clock::now().time_since_epoch().count());
#endif
}

/// One step of a wait: the first `spin_limit` steps spin, later ones yield
/// the core, in case the thread waited for shares it (more threads than free
/// cores, or the host put both on one): spinning alone would then wait for
/// the kernel's time slice. `spins` counts the steps.
inline void wait_step(uint32_t& spins, uint32_t spin_limit) {
  if (spins++ < spin_limit) {
#if defined(__x86_64__) || defined(__i386__)
    _mm_pause();
#endif
  } else {
    std::this_thread::yield();
  }
}

}  // namespace tlmgpu::core
