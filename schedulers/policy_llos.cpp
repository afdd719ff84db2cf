// llos: long-latency operation-based scheduling (Do et al., J. Supercomputing
// 2020), as seed 004 section 2.1 describes it.
//
// - Guiding queue: a warp joins it when its next instruction is a long
//   memory operation (HeadClass::LongMem) and the scoreboard says its
//   operands are not ready (WarpWait::Scoreboard). It stays there until it
//   issues (in order, that is the long operation) or finishes. Membership
//   has to persist: a warp is only put there while it cannot issue, so a
//   per-cycle test would never let a guiding warp go first (seed 004's
//   criticism: "the long operation warp cannot be executed in the current
//   clock cycle").
// - Filling queue: every other warp, including long-operation warps whose
//   operands were ready at once.
// - The guiding queue is walked first, then the filling queue; each in
//   loose round robin: slot order, starting after the warp that issued last.
#include "schedulers/policy_factories.h"
#include "schedulers/policy_progress.h"
#include "schedulers/policy_support.h"

namespace tlmgpu::schedulers {

namespace {

class LongLatencyOperationBased final : public WarpSchedulerPolicy {
 public:
  explicit LongLatencyOperationBased(const PolicyContext& context) {
    guiding_.reserve(context.max_warps_per_scheduler);
  }

  std::string name() const override { return "llos"; }

  void order(const SchedulerView& view, std::vector<uint32_t>& order) override {
    for (const auto& w : view.warps) {
      grow(w.slot + 1);
      if (is_absent(w.wait)) {
        guiding_[w.slot] = false;
        continue;
      }
      if (!guiding_[w.slot] && w.wait == WarpWait::Scoreboard && w.head_class == core::HeadClass::LongMem) {
        guiding_[w.slot] = true;
        ++entries_;
      }
    }
    const auto n = static_cast<uint32_t>(view.warps.size());
    const uint32_t start = last_.valid() ? first_index_after_slot(view, last_.slot()) : 0;
    for (const bool guiding : {true, false}) {
      for (uint32_t k = 0; k < n; ++k) {
        const uint32_t i = (start + k) % n;
        const auto& w = view.warps[i];
        if (!is_absent(w.wait) && guiding_[w.slot] == guiding) order.push_back(i);
      }
    }
  }

  void on_issue(const IssueEvent& e) override {
    grow(e.slot + 1);
    last_.issued(e.slot);
    if (guiding_[e.slot]) {
      guiding_[e.slot] = false;  // its long operation is on its way
      ++guiding_issues_;
    }
  }
  // Completions do not move this policy's order.
  bool order_follows_completions() const override { return false; }
  void on_warp_start(uint32_t slot, uint64_t) override {
    grow(slot + 1);
    guiding_[slot] = false;
  }
  void on_warp_finish(uint32_t slot, uint64_t) override {
    grow(slot + 1);
    guiding_[slot] = false;
    last_.finished(slot);
  }

  void report_stats(core::StatReport& out) const override {
    out.add("llos_guiding_entries", double(entries_), core::Unit::Count,
            "warps that became guiding (waiting on the scoreboard with a long memory operation at their head)");
    out.add("llos_guiding_issues", double(guiding_issues_), core::Unit::Count, "issues of guiding warps");
  }

 private:
  void grow(size_t slots) {
    if (slots > guiding_.size()) guiding_.resize(slots, false);
  }

  std::vector<bool> guiding_;  ///< slot -> in the guiding queue
  LastIssuedWarp last_;  ///< the round-robin pointer of both queues
  uint64_t entries_ = 0;
  uint64_t guiding_issues_ = 0;
};

}  // namespace

std::unique_ptr<WarpSchedulerPolicy> make_llos_policy(const PolicyParams&, const PolicyContext& context) {
  return std::make_unique<LongLatencyOperationBased>(context);
}

}  // namespace tlmgpu::schedulers
