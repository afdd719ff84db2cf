// spin_backoff (issue 4, seed 001): wraps any base policy, detects warps that
// spin on a lock from their setp operands and keeps them out of the order for
// a fixed number of cycles. Declared here so tests can read its state.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "schedulers/policy_registry.h"

namespace tlmgpu::schedulers {

class SpinBackoffPolicy final : public WarpSchedulerPolicy {
 public:
  enum class Detector : uint8_t { History, Table };

  struct Options {
    Detector detector = Detector::History;
    uint64_t backoff = 1000;  ///< cycles a detected warp stays out of the order
    uint32_t window = 5;      ///< setp operand pairs per history row
    uint32_t confidence = 2;  ///< table detector: threshold of a branch's counter
  };

  SpinBackoffPolicy(std::unique_ptr<WarpSchedulerPolicy> base, const Options& options, const PolicyContext& context);

  std::string name() const override { return "spin_backoff"; }
  void order(const SchedulerView& view, std::vector<uint32_t>& order) override;
  void on_issue(const IssueEvent& e) override;
  void on_complete(const CompleteEvent& e) override { base_->on_complete(e); }
  bool order_follows_completions() const override { return base_->order_follows_completions(); }
  void on_warp_start(uint32_t slot, uint64_t cycle) override;
  void on_warp_finish(uint32_t slot, uint64_t cycle) override;
  void report_stats(core::StatReport& out) const override;
  bool wants_cta_view() const override { return base_->wants_cta_view(); }
  /// The earliest back-off to expire, or the base policy's own time rule.
  uint64_t next_reorder_cycle(uint64_t now) const override;

  /// For tests: is `slot` backed off at `cycle`, and until when (first cycle it may issue again).
  bool backed_off(uint32_t slot, uint64_t cycle) const;
  uint64_t wake_cycle(uint32_t slot) const;
  /// Table detector: the warp's spinning state and a branch's confidence counter.
  bool spinning(uint32_t slot) const;
  uint32_t branch_confidence(uint32_t pc) const;

 private:
  /// One history-table row of one warp (a setp PC): per lane, the last pair
  /// and how many consecutive times it was seen. "The last `window` pairs are
  /// all identical" is exactly "run >= window", so a run length replaces the
  /// ring of `window` pairs without changing the rule.
  struct Row {
    std::array<uint64_t, 32> a{};
    std::array<uint64_t, 32> b{};
    std::array<uint32_t, 32> run{};
  };
  struct WarpState {
    std::unordered_map<uint32_t, Row> rows;  ///< by setp PC
    uint64_t wake = 0;                       ///< backed off while cycle < wake
    bool spinning = false;                   ///< table detector's warp state
    // Lock ownership, for the false-positive count: words this warp's lanes
    // took with atom.cas and have not written since, and the words of its
    // latest failed atom.cas (the lock it spins for).
    std::vector<uint64_t> held;
    std::vector<uint64_t> wanted;
  };

  WarpState& state(uint32_t slot);
  /// Records a setp's pairs; true if every active lane now spins at its PC.
  bool record_setp(WarpState& w, const IssueEvent& e);
  void back_off(uint32_t slot, WarpState& w, uint64_t cycle);
  void track_locks(WarpState& w, const IssueEvent& e);
  void expire(uint64_t cycle);

  std::unique_ptr<WarpSchedulerPolicy> base_;
  Options options_;
  std::vector<WarpState> warps_;                    ///< by warp slot (grown on demand)
  std::set<std::pair<uint64_t, uint32_t>> queue_;  ///< (wake cycle, slot), earliest first
  std::unordered_map<uint32_t, uint32_t> table_;    ///< table detector: backward-branch PC -> confidence
  std::vector<uint32_t> base_order_;                ///< reused every cycle

  uint64_t detections_ = 0;
  uint64_t backoffs_ = 0;
  uint64_t backoff_cycles_ = 0;
  uint64_t false_positives_ = 0;
};

}  // namespace tlmgpu::schedulers
