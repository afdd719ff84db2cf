// lpi: locality protected insertion (Zhang et al., FGCS 2018), as seed 004
// section 2.1 describes it.
//
// - Warps split into active and blocking groups, each ordered by warp ID
//   (dispatch age, ties: lower slot). Blocking = waiting on a long-latency
//   operation: a long load of it is still outstanding, or it waits at a
//   barrier, a membar or an atomic. Every other live warp is active.
// - The blocking warps are inserted among the active ones "at intervals":
//   each goes into the gap after the last active warp with a smaller ID,
//   but a gap takes at most one blocking warp, so a run of blocking warps
//   spreads over the following gaps; those left over go to the end.
// - The scheduler walks the merged queue from its head every cycle (the
//   original scheme issues oldest to youngest), so a blocking warp whose
//   independent instructions are ready issues between active warps.
#include "schedulers/policy_factories.h"
#include "schedulers/policy_progress.h"
#include "schedulers/policy_support.h"

namespace tlmgpu::schedulers {

namespace {

class LocalityProtectedInsertion final : public WarpSchedulerPolicy {
 public:
  explicit LocalityProtectedInsertion(const PolicyContext& context) {
    active_.reserve(context.max_warps_per_scheduler);
    blocking_.reserve(context.max_warps_per_scheduler);
    loads_.reserve(context.max_warps_per_scheduler);
  }

  std::string name() const override { return "lpi"; }

  void order(const SchedulerView& view, std::vector<uint32_t>& order) override {
    loads_.note_heads(view);
    active_.clear();
    blocking_.clear();
    for (const uint32_t i : ages_.oldest_first(view)) {
      const auto& w = view.warps[i];
      if (is_absent(w.wait)) continue;
      (blocks(w) ? blocking_ : active_).push_back(i);
    }
    // Merge: gap g is the place after the g-th active warp (gap 0 is before
    // the first). A blocking warp wants the gap after the active warps older
    // than it and takes the next free gap when that one is used. Both lists
    // are in ID order, so `want` only moves forward: O(warps).
    size_t a = 0;         // active warps emitted so far
    size_t want = 0;      // active warps older than the current blocking warp
    size_t next_gap = 0;  // first gap still free
    for (const uint32_t b : blocking_) {
      while (want < active_.size() && older(view, active_[want], b)) ++want;
      const size_t gap = std::max(want, next_gap);
      // gap > size happens only after gap == size was used, i.e. when every
      // active warp is already out: the rest simply follow in ID order.
      while (a < std::min(gap, active_.size())) order.push_back(active_[a++]);
      order.push_back(b);
      next_gap = gap + 1;
    }
    while (a < active_.size()) order.push_back(active_[a++]);
  }

  void on_issue(const IssueEvent& e) override { loads_.issued(e); }
  void on_complete(const CompleteEvent& e) override { loads_.completed(e); }
  void on_warp_start(uint32_t slot, uint64_t) override { loads_.reset(slot); }
  void on_warp_finish(uint32_t slot, uint64_t) override { loads_.reset(slot); }

 private:
  bool blocks(const WarpView& w) const {
    return w.wait == WarpWait::Barrier || w.wait == WarpWait::Membar || w.wait == WarpWait::Atomic ||
           loads_.outstanding(w.slot);
  }
  static bool older(const SchedulerView& view, uint32_t i, uint32_t j) {
    const auto& a = view.warps[i];
    const auto& b = view.warps[j];
    return a.age != b.age ? a.age < b.age : a.slot < b.slot;
  }
  AgeRanking ages_;
  LongLoadTracker loads_;
  std::vector<uint32_t> active_;    ///< view indices, ID order
  std::vector<uint32_t> blocking_;  ///< view indices, ID order
};

}  // namespace

std::unique_ptr<WarpSchedulerPolicy> make_lpi_policy(const PolicyParams&, const PolicyContext& context) {
  return std::make_unique<LocalityProtectedInsertion>(context);
}

}  // namespace tlmgpu::schedulers
