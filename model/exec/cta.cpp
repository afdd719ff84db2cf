#include "model/exec/cta.h"

#include <algorithm>
#include <sstream>

#include "core/int_ops.h"

namespace tlmgpu::exec {

Cta::Cta(const KernelContext& ctx, Dim3 ctaid, uint32_t sm_id)
    : ctx_(ctx), ctaid_(ctaid), sm_id_(sm_id), shared_(std::max(ctx.shared_bytes, ctx.shared_window_bytes), 0) {
  const uint64_t threads = ctx.block.count();
  const uint32_t warps = uint32_t((threads + ptx::kWarpSize - 1) / ptx::kWarpSize);
  warps_.reserve(warps);
  for (uint32_t w = 0; w < warps; ++w) warps_.push_back(std::make_unique<Warp>(ctx, *this, w));
  live_warps_ = warps;
}

void Cta::restart(Dim3 ctaid, uint32_t sm_id) {
  ctaid_ = ctaid;
  sm_id_ = sm_id;
  // Shared memory starts zeroed so results never depend on which CTA ran here before.
  std::fill(shared_.begin(), shared_.end(), 0);
  for (auto& w : warps_) w->restart();
  live_warps_ = uint32_t(warps_.size());
  barriers_ = {};
  barrier_releases_ = 0;
}

std::string Cta::name() const {
  std::ostringstream os;
  os << "CTA (" << ctaid_.x << "," << ctaid_.y << "," << ctaid_.z << ")";
  return os.str();
}

bool Cta::arrive(Warp& warp, unsigned id, uint32_t expected_threads, bool wait, uint32_t red_votes) {
  Barrier& b = barriers_[id];
  // Hardware counts barrier arrivals per warp, in units of the warp size.
  b.arrived_threads += ptx::kWarpSize;
  if (expected_threads != 0) b.expected_threads = expected_threads;
  b.votes_true += core::intops::popcount32(red_votes);
  b.votes_cast += core::intops::popcount32(warp.live_mask());
  if (wait) b.waiting.push_back(&warp);
  try_release(id);
  return wait && warp.at_barrier();
}

void Cta::warp_finished() {
  --live_warps_;
  for (unsigned id = 0; id < unsigned(kNumBarriers); ++id)
    if (barriers_[id].arrived_threads != 0) try_release(id);
}

void Cta::try_release(unsigned id) {
  Barrier& b = barriers_[id];
  const uint32_t expected = b.expected_threads != 0 ? b.expected_threads : live_warps_ * ptx::kWarpSize;
  if (b.arrived_threads < expected) return;
  // Reset before waking: a released warp may arrive again at once.
  std::vector<Warp*> waiting;
  waiting.swap(b.waiting);
  const uint32_t votes_true = b.votes_true, votes_cast = b.votes_cast;
  b = Barrier{};
  ++barrier_releases_;
  for (Warp* w : waiting) w->barrier_released(votes_true, votes_cast);
}

}  // namespace tlmgpu::exec
