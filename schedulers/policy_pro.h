// pro: progress-aware warp scheduling (seed 000, Anantpur & Govindarajan).
// Declared in a header so that tests and reports can read the CTA order the
// policy keeps (seed 000 Table IV). Rules in docs/SCHEDULERS.md ("pro").
#pragma once

#include <cstdint>
#include <iosfwd>
#include <vector>

#include "schedulers/policy_registry.h"

namespace tlmgpu::schedulers {

class ProPolicy final : public WarpSchedulerPolicy {
 public:
  /// Seed 000 section III.B / Fig. 3. NoWait, BarrierWait and FinishWait
  /// belong to fastTBPhase; FinishNoWait and BarrierWait1 to slowTBPhase.
  enum class CtaState : uint8_t { NoWait, BarrierWait, FinishWait, FinishNoWait, BarrierWait1, Finish };

  /// The CTA order (cta ids, highest priority first) right after a re-sort.
  struct SortRecord {
    uint64_t cycle = 0;
    std::vector<uint64_t> cta_ids;
  };

  ProPolicy(uint64_t threshold, const PolicyContext& context);

  std::string name() const override { return "pro"; }
  void order(const SchedulerView& view, std::vector<uint32_t>& order) override;
  void on_warp_start(uint32_t slot, uint64_t cycle) override;
  void report_stats(core::StatReport& out) const override;
  /// "STATS.pro_order.csv": write_order_csv() under "# scheduler", when it re-sorted.
  void write_extra_outputs(const std::string& scheduler, PolicyOutputFiles& files) const override;
  bool wants_cta_view() const override { return true; }
  // Completions do not move PRO's order (progress counts issues).
  bool order_follows_completions() const override { return false; }
  /// The next re-sort on the `threshold` grid.
  uint64_t next_reorder_cycle(uint64_t now) const override;

  // ---- for tests and reports
  bool fast_phase() const { return fast_; }
  uint64_t threshold() const { return threshold_; }
  uint64_t resorts() const { return resorts_; }
  /// State of the CTA with this id (Finish when it is not resident).
  CtaState state_of(uint64_t cta_id) const;
  /// Resident CTAs (ids), highest priority first, as the last order() used them.
  std::vector<uint64_t> cta_order() const;
  /// The re-sorts so far (seed 000 Table IV rows); the first 10000 are kept.
  const std::vector<SortRecord>& sort_history() const { return history_; }
  /// Table IV as CSV: "cycle,1,2,..." then one row per re-sort.
  void write_order_csv(std::ostream& out) const;
  /// The paper's name of a state ("noWait", "barrierWait1", ...).
  static const char* state_name(CtaState s);

 private:
  struct Cta {
    bool present = false;
    bool touched = false;          ///< seen in the current view
    uint64_t id = 0;
    uint64_t serial = 0;           ///< unique per CTA instance (ids restart per kernel)
    CtaState state = CtaState::NoWait;
    uint32_t seen_finished = 0;    ///< warps_finished at the last look
    uint32_t seen_at_barrier = 0;  ///< warps_at_barrier at the last look
    uint32_t now_finished = 0;     ///< warps_finished in the current view
    uint32_t now_at_barrier = 0;   ///< warps_at_barrier in the current view
    uint32_t warps = 0;
    uint64_t progress = 0;
    // Ranks within a priority group, fixed when that group was last sorted
    // (seed 000 sorts at events and every `threshold` cycles, not every cycle).
    uint32_t finish_rank = 0;
    uint32_t barrier_rank = 0;
    uint32_t rem_rank = 0;
    bool rem_ranked = false;            ///< false: joined after the last re-sort
    std::vector<uint32_t> warp_order;   ///< this scheduler's warp slots, highest priority first
  };

  Cta* find_cta(uint32_t cta_slot, uint64_t cta_id);
  void track_ctas(const SchedulerView& view, bool fast);
  void list_warps(const SchedulerView& view);
  void switch_phase(const SchedulerView& view, bool fast);
  void process_events(const SchedulerView& view);  ///< insertFinishWarp / insertBarrierWarp / releases
  void sort_warps(const SchedulerView& view, Cta& cta, bool increasing);
  void sort_finish_wait_ctas();
  void sort_barrier_wait_ctas();
  void sort_remaining_ctas(const SchedulerView& view, uint64_t cycle);
  void rebuild_cta_order();

  uint64_t threshold_;
  bool fast_ = true;
  bool seen_view_ = false;
  uint64_t last_sort_cycle_ = 0;
  bool order_dirty_ = true;
  std::vector<Cta> ctas_;            ///< by CTA slot
  std::vector<uint32_t> cta_order_;  ///< CTA slots, highest priority first
  std::vector<uint32_t> scratch_;    ///< sorting space, reused
  std::vector<int> view_index_;      ///< warp slot -> index in the current view, or -1
  std::vector<uint64_t> listed_serial_;  ///< warp slot -> serial of the CTA it is listed under (0: none)
  std::vector<bool> emitted_;        ///< view index -> already in the order
  std::vector<SortRecord> history_;
  uint64_t next_serial_ = 0;
  uint64_t resorts_ = 0;
  uint64_t phase_switches_ = 0;
  uint64_t finish_wait_entries_ = 0;
  uint64_t barrier_wait_entries_ = 0;
};

}  // namespace tlmgpu::schedulers
