// kaws: seed 002's kernel-aware warp scheduling. Until the CTA dispatcher has
// issued the last CTA of the kernel, the base policy orders the warps; from
// then on CTAs are prioritised by progress: the CTA that has issued the
// fewest warp instructions first (the younger, less advanced CTAs, so the
// kernel's tail shortens), ties to the younger CTA (larger launch id), and
// inside a CTA the base policy's order.
//
// The warp-sharing half of the paper (a scheduler issuing another
// scheduler's warp into its own free operand collector) is a pipeline
// mechanism: the policy only switches it on (sharing=on, the default) and the
// SM does it (StreamingMultiprocessor::share_warps).
#include <algorithm>
#include <stdexcept>

#include "schedulers/policy_factories.h"

namespace tlmgpu::schedulers {

namespace {

class KernelAwarePolicy final : public WarpSchedulerPolicy {
 public:
  KernelAwarePolicy(std::unique_ptr<WarpSchedulerPolicy> base, bool sharing, const PolicyContext& context)
      : base_(std::move(base)), sharing_(sharing) {
    base_order_.reserve(context.max_warps_per_scheduler);
    rank_.reserve(context.max_warps_per_scheduler);
  }

  std::string name() const override { return "kaws"; }
  bool wants_cta_view() const override { return true; }
  bool shares_warps() const override { return sharing_; }
  uint64_t next_reorder_cycle(uint64_t now) const override { return base_->next_reorder_cycle(now); }

  void order(const SchedulerView& view, std::vector<uint32_t>& order) override {
    base_order_.clear();
    base_->order(view, base_order_);
    if (!view.last_cta_dispatched) {
      order.insert(order.end(), base_order_.begin(), base_order_.end());
      return;
    }
    if (!switched_) {
      switched_ = true;
      switch_cycle_ = view.cycle;
    }
    // Stable sort of the base order by the CTA's progress: the base order
    // breaks ties inside a CTA.
    rank_.clear();
    for (uint32_t pos = 0; pos < base_order_.size(); ++pos) {
      const WarpView& w = view.warps[base_order_[pos]];
      uint64_t progress = 0;
      if (w.cta_slot < view.ctas.size() && view.ctas[w.cta_slot].valid) progress = view.ctas[w.cta_slot].insts_issued;
      rank_.push_back({progress, w.cta_id, pos, base_order_[pos]});
    }
    std::sort(rank_.begin(), rank_.end(), [](const Rank& a, const Rank& b) {
      if (a.progress != b.progress) return a.progress < b.progress;
      if (a.cta_id != b.cta_id) return a.cta_id > b.cta_id;
      return a.pos < b.pos;
    });
    for (const Rank& r : rank_) order.push_back(r.index);
  }

  void on_issue(const IssueEvent& e) override { base_->on_issue(e); }
  void on_complete(const CompleteEvent& e) override { base_->on_complete(e); }
  bool order_follows_completions() const override { return base_->order_follows_completions(); }
  void on_warp_start(uint32_t slot, uint64_t cycle) override {
    // A new kernel's first warps: back to the base policy until its last CTA.
    if (switched_ && !any_live_) switched_ = false;
    ++live_;
    any_live_ = true;
    base_->on_warp_start(slot, cycle);
  }
  void on_warp_finish(uint32_t slot, uint64_t cycle) override {
    if (live_ > 0 && --live_ == 0) any_live_ = false;
    base_->on_warp_finish(slot, cycle);
  }
  void report_stats(core::StatReport& out) const override {
    base_->report_stats(out);
    out.add("kaws_switch_cycle", switched_ ? double(switch_cycle_) : -1.0, core::Unit::Cycles,
            "cycle at which the kernel's last CTA was dispatched and KAWS began ordering by CTA progress (-1: not yet)");
  }

 private:
  struct Rank {
    uint64_t progress;
    uint64_t cta_id;
    uint32_t pos;
    uint32_t index;
  };
  std::unique_ptr<WarpSchedulerPolicy> base_;
  bool sharing_;
  std::vector<uint32_t> base_order_;
  std::vector<Rank> rank_;
  bool switched_ = false;
  uint64_t switch_cycle_ = 0;
  uint32_t live_ = 0;
  bool any_live_ = false;
};

}  // namespace

std::unique_ptr<WarpSchedulerPolicy> make_kaws_policy(const PolicyParams& params, const PolicyContext& context) {
  const auto it = params.find("base");
  const std::string base = it == params.end() ? "gto" : it->second;
  if (base != "gto" && base != "lrr")
    throw std::invalid_argument("scheduler policy 'kaws': base=" + base + " (allowed: gto, lrr)");
  const auto sh = params.find("sharing");
  const std::string sharing = sh == params.end() ? "on" : sh->second;
  if (sharing != "on" && sharing != "off")
    throw std::invalid_argument("scheduler policy 'kaws': sharing=" + sharing + " (allowed: on, off)");
  return std::make_unique<KernelAwarePolicy>(make_policy(PolicySpec{base, {}}, context), sharing == "on", context);
}

}  // namespace tlmgpu::schedulers
