// A thread block (CTA): its warps, shared memory and named barriers.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "model/exec/warp.h"

namespace tlmgpu::exec {

class Cta {
 public:
  static constexpr int kNumBarriers = 16;

  Cta(const KernelContext& ctx, Dim3 ctaid, uint32_t sm_id);
  Cta(const Cta&) = delete;
  Cta& operator=(const Cta&) = delete;

  /// Reuses this CTA's storage for another CTA of the same launch.
  void restart(Dim3 ctaid, uint32_t sm_id);

  Dim3 ctaid() const { return ctaid_; }
  uint32_t sm_id() const { return sm_id_; }
  uint32_t num_warps() const { return uint32_t(warps_.size()); }
  Warp& warp(uint32_t i) { return *warps_[i]; }
  const Warp& warp(uint32_t i) const { return *warps_[i]; }
  std::vector<uint8_t>& shared_memory() { return shared_; }
  bool finished() const { return live_warps_ == 0; }

  /// A warp reached bar.sync / bar.arrive / bar.red on barrier `id`.
  /// `expected_threads` is the count operand (0: all threads of the CTA).
  /// Returns true when the warp must wait (the barrier has not completed).
  /// `red_votes` are the lanes whose bar.red predicate is true (0 otherwise).
  bool arrive(Warp& warp, unsigned id, uint32_t expected_threads, bool wait, uint32_t red_votes = 0);
  /// A warp's last lane exited: the CTA-wide barriers expect one warp fewer.
  void warp_finished();
  /// Barrier releases so far: the watchdog counts them as progress.
  uint64_t barrier_releases() const { return barrier_releases_; }
  /// "CTA (1,0,0)".
  std::string name() const;

 private:
  struct Barrier {
    uint32_t arrived_threads = 0;
    uint32_t expected_threads = 0;  // 0: all live warps
    std::vector<Warp*> waiting;
    // bar.red: over the threads that arrived.
    uint32_t votes_true = 0;
    uint32_t votes_cast = 0;
  };
  void try_release(unsigned id);

  const KernelContext& ctx_;
  Dim3 ctaid_;
  uint32_t sm_id_;
  std::vector<uint8_t> shared_;
  std::vector<std::unique_ptr<Warp>> warps_;
  uint32_t live_warps_ = 0;
  std::array<Barrier, kNumBarriers> barriers_{};
  uint64_t barrier_releases_ = 0;
};

}  // namespace tlmgpu::exec
