// pro: progress-aware warp scheduling (seed 000). The CTA states, phases and
// priorities follow section III and Algorithm 1; docs/SCHEDULERS.md ("pro")
// lists where this reads the paper one way rather than another.
//
// The SM gives no events for barrier arrivals or finished warps, so the
// policy finds them by comparing each CtaView's warps_finished and
// warps_at_barrier with the previous call: an increase is insertFinishWarp /
// insertBarrierWarp, a drop of warps_at_barrier is the barrier's release.
// Every scheduler of an SM keeps its own copy of the CTA states; they agree
// because they are computed from the same SM-wide CtaViews.
#include "schedulers/policy_pro.h"

#include <algorithm>
#include <ostream>

#include "schedulers/policy_factories.h"
#include "schedulers/policy_progress.h"

namespace tlmgpu::schedulers {

namespace {

constexpr uint32_t kUnranked = ~uint32_t{0};
// Table IV needs the first few dozen re-sorts; the cap keeps a run with a
// tiny threshold from growing the history (and allocating) every cycle.
constexpr size_t kMaxHistory = 10000;

bool in_barrier_state(ProPolicy::CtaState s) {
  return s == ProPolicy::CtaState::BarrierWait || s == ProPolicy::CtaState::BarrierWait1;
}
bool in_remaining_state(ProPolicy::CtaState s) {
  return s == ProPolicy::CtaState::NoWait || s == ProPolicy::CtaState::FinishNoWait;
}

}  // namespace

ProPolicy::ProPolicy(uint64_t threshold, const PolicyContext& context) : threshold_(threshold) {
  const size_t warps = context.max_warps_per_scheduler * std::max<uint32_t>(1, context.num_schedulers);
  view_index_.reserve(warps);
  listed_serial_.reserve(warps);
  emitted_.reserve(context.max_warps_per_scheduler);
  scratch_.reserve(warps);
}

const char* ProPolicy::state_name(CtaState s) {
  switch (s) {
    case CtaState::NoWait: return "noWait";
    case CtaState::BarrierWait: return "barrierWait";
    case CtaState::FinishWait: return "finishWait";
    case CtaState::FinishNoWait: return "finishNoWait";
    case CtaState::BarrierWait1: return "barrierWait1";
    case CtaState::Finish: return "Finish";
  }
  return "?";
}

ProPolicy::Cta* ProPolicy::find_cta(uint32_t cta_slot, uint64_t cta_id) {
  if (cta_slot >= ctas_.size()) return nullptr;
  Cta& c = ctas_[cta_slot];
  return c.present && c.id == cta_id ? &c : nullptr;
}

void ProPolicy::on_warp_start(uint32_t slot, uint64_t) {
  // A new warp in this slot is listed again under its CTA at the next order().
  if (slot < listed_serial_.size()) listed_serial_[slot] = 0;
}

uint64_t ProPolicy::next_reorder_cycle(uint64_t now) const {
  if (!seen_view_) return UINT64_MAX;
  const uint64_t next = last_sort_cycle_ + threshold_;
  return next > now ? next : now + 1;
}

void ProPolicy::order(const SchedulerView& view, std::vector<uint32_t>& order) {
  // Warp slot -> view index.
  for (const auto& w : view.warps)
    if (w.slot >= view_index_.size()) {
      view_index_.resize(w.slot + 1, -1);
      listed_serial_.resize(w.slot + 1, 0);
    }
  std::fill(view_index_.begin(), view_index_.end(), -1);
  for (size_t i = 0; i < view.warps.size(); ++i) view_index_[view.warps[i].slot] = static_cast<int>(i);

  const bool fast = view.ctas_waiting;
  if (!seen_view_) {
    fast_ = fast;
    last_sort_cycle_ = view.cycle;
  }
  track_ctas(view, fast);
  list_warps(view);
  if (seen_view_ && fast != fast_) switch_phase(view, fast);
  seen_view_ = true;
  process_events(view);

  // Algorithm 1 line 57: the remaining CTAs and their warps are re-sorted
  // every `threshold` cycles, on a grid anchored at the first cycle seen
  // (the SM may skip cycles, so a late call does not shift the grid).
  if (view.cycle - last_sort_cycle_ >= threshold_) {
    last_sort_cycle_ = view.cycle - (view.cycle - last_sort_cycle_) % threshold_;
    sort_remaining_ctas(view, view.cycle);
  }
  if (order_dirty_) rebuild_cta_order();

  emitted_.assign(view.warps.size(), false);
  for (const uint32_t c : cta_order_) {
    const Cta& cta = ctas_[c];
    for (const uint32_t slot : cta.warp_order) {
      const int idx = view_index_[slot];
      if (idx < 0 || emitted_[idx]) continue;
      const auto& w = view.warps[idx];
      if (w.cta_slot != c || w.cta_id != cta.id || is_absent(w.wait)) continue;
      order.push_back(static_cast<uint32_t>(idx));
      emitted_[idx] = true;
    }
  }
  // Warps whose CTA the view does not describe come last, in slot order.
  for (size_t i = 0; i < view.warps.size(); ++i)
    if (!emitted_[i] && !is_absent(view.warps[i].wait)) order.push_back(static_cast<uint32_t>(i));
}

void ProPolicy::track_ctas(const SchedulerView& view, bool fast) {
  for (auto& c : ctas_) c.touched = false;
  for (const auto& v : view.ctas) {
    if (v.slot >= ctas_.size()) ctas_.resize(v.slot + 1);
    Cta& c = ctas_[v.slot];
    c.touched = true;
    const bool done = !v.valid || (v.warps > 0 && v.warps_finished >= v.warps);
    if (done) {
      if (c.present) order_dirty_ = true;  // Finish: the CTA leaves the order
      c.present = false;
      c.state = CtaState::Finish;
      continue;
    }
    if (!c.present || c.id != v.cta_id) {
      // A new CTA starts in noWait; one that arrives in slowTBPhase (the
      // last ones dispatched) starts in that phase's default, finishNoWait,
      // so that remTBs never holds both kinds.
      c = Cta{};
      c.present = true;
      c.id = v.cta_id;
      c.serial = ++next_serial_;
      c.state = fast ? CtaState::NoWait : CtaState::FinishNoWait;
      c.warp_order.reserve(view.warps.size());
      order_dirty_ = true;
    }
    c.touched = true;
    c.warps = v.warps;
    c.progress = v.progress;
    c.now_finished = v.warps_finished;
    c.now_at_barrier = v.warps_at_barrier;
  }
  for (auto& c : ctas_)
    if (!c.touched && c.present) {
      c.present = false;
      c.state = CtaState::Finish;
      order_dirty_ = true;
    }
}

void ProPolicy::list_warps(const SchedulerView& view) {
  for (const auto& w : view.warps) {
    if (is_absent(w.wait)) continue;
    Cta* c = find_cta(w.cta_slot, w.cta_id);
    if (!c || listed_serial_[w.slot] == c->serial) continue;
    c->warp_order.push_back(w.slot);  // new warps of a CTA join its list in slot order
    listed_serial_[w.slot] = c->serial;
  }
}

void ProPolicy::switch_phase(const SchedulerView& view, bool fast) {
  ++phase_switches_;
  fast_ = fast;
  for (auto& c : ctas_) {
    if (!c.present) continue;
    if (!fast) {
      // mergeFinishAndNoWaitTBs; barrierWait CTAs move to barrierWait1.
      if (c.state == CtaState::NoWait || c.state == CtaState::FinishWait) c.state = CtaState::FinishNoWait;
      if (c.state == CtaState::BarrierWait) c.state = CtaState::BarrierWait1;
    } else {
      // Back to fastTBPhase (a new kernel's CTAs wait): undo the merge.
      if (c.state == CtaState::FinishNoWait)
        c.state = c.seen_finished > 0 ? CtaState::FinishWait : CtaState::NoWait;
      if (c.state == CtaState::BarrierWait1) c.state = CtaState::BarrierWait;
    }
  }
  sort_finish_wait_ctas();
  // finishNoWait CTAs are ordered by increasing progress from the switch on.
  sort_remaining_ctas(view, view.cycle);
}

void ProPolicy::process_events(const SchedulerView& view) {
  bool finish_sort = false;
  bool barrier_sort = false;
  for (auto& c : ctas_) {
    if (!c.present) continue;
    // insertFinishWarp, once per newly finished warp.
    if (c.now_finished > c.seen_finished) {
      if (c.seen_finished == 0) {
        if (fast_ && c.state != CtaState::FinishWait) {
          c.state = CtaState::FinishWait;
          ++finish_wait_entries_;
        }
        sort_warps(view, c, /*increasing=*/true);
      }
      c.seen_finished = c.now_finished;
      finish_sort = true;
    }
    // insertBarrierWarp; a drop of the count is the release.
    const uint32_t live = c.warps > c.now_finished ? c.warps - c.now_finished : 0;
    if (c.now_at_barrier > c.seen_at_barrier) {
      if (c.seen_at_barrier == 0) {
        c.state = fast_ ? CtaState::BarrierWait : CtaState::BarrierWait1;
        ++barrier_wait_entries_;
        sort_warps(view, c, /*increasing=*/true);
      }
      barrier_sort = true;
    }
    const bool all_arrived = live > 0 && c.now_at_barrier >= live;
    if (in_barrier_state(c.state) && (all_arrived || c.now_at_barrier < c.seen_at_barrier)) {
      // Algorithm 1 lines 25-30. A CTA with finished warps goes back to
      // finishWait in fastTBPhase (the algorithm's test "all warps at the
      // barrier" can never hold for it).
      if (!fast_)
        c.state = CtaState::FinishNoWait;
      else
        c.state = c.seen_finished > 0 ? CtaState::FinishWait : CtaState::NoWait;
      finish_sort = finish_sort || c.state == CtaState::FinishWait;
      barrier_sort = true;
    }
    c.seen_at_barrier = c.now_at_barrier;
  }
  if (finish_sort) sort_finish_wait_ctas();
  if (barrier_sort) sort_barrier_wait_ctas();
}

void ProPolicy::sort_warps(const SchedulerView& view, Cta& c, bool increasing) {
  // Warps of the CTA not in this view (left already) sort last.
  const auto progress = [&](uint32_t slot, uint64_t& p, uint64_t& age) {
    const int idx = slot < view_index_.size() ? view_index_[slot] : -1;
    if (idx < 0) return false;
    p = view.warps[idx].progress;
    age = view.warps[idx].age;
    return true;
  };
  std::stable_sort(c.warp_order.begin(), c.warp_order.end(), [&](uint32_t a, uint32_t b) {
    uint64_t pa = 0, pb = 0, aa = 0, ab = 0;
    const bool ha = progress(a, pa, aa);
    const bool hb = progress(b, pb, ab);
    if (ha != hb) return ha;
    if (!ha) return false;
    if (pa != pb) return increasing ? pa < pb : pa > pb;
    return aa != ab ? aa < ab : a < b;  // ties: older warp, then lower slot
  });
}

void ProPolicy::sort_finish_wait_ctas() {
  // sortFinishWaitStateTBs: more finished warps first, then more progress, then lower id.
  scratch_.clear();
  for (uint32_t s = 0; s < ctas_.size(); ++s)
    if (ctas_[s].present && ctas_[s].state == CtaState::FinishWait) scratch_.push_back(s);
  std::sort(scratch_.begin(), scratch_.end(), [&](uint32_t a, uint32_t b) {
    const Cta& x = ctas_[a];
    const Cta& y = ctas_[b];
    if (x.seen_finished != y.seen_finished) return x.seen_finished > y.seen_finished;
    if (x.progress != y.progress) return x.progress > y.progress;
    return x.id < y.id;
  });
  for (uint32_t r = 0; r < scratch_.size(); ++r) ctas_[scratch_[r]].finish_rank = r;
  order_dirty_ = true;
}

void ProPolicy::sort_barrier_wait_ctas() {
  // sortBarrierWaitStateTBs: more warps at the barrier first, then more progress, then lower id.
  scratch_.clear();
  for (uint32_t s = 0; s < ctas_.size(); ++s)
    if (ctas_[s].present && in_barrier_state(ctas_[s].state)) scratch_.push_back(s);
  std::sort(scratch_.begin(), scratch_.end(), [&](uint32_t a, uint32_t b) {
    const Cta& x = ctas_[a];
    const Cta& y = ctas_[b];
    if (x.seen_at_barrier != y.seen_at_barrier) return x.seen_at_barrier > y.seen_at_barrier;
    if (x.progress != y.progress) return x.progress > y.progress;
    return x.id < y.id;
  });
  for (uint32_t r = 0; r < scratch_.size(); ++r) ctas_[scratch_[r]].barrier_rank = r;
  order_dirty_ = true;
}

void ProPolicy::sort_remaining_ctas(const SchedulerView& view, uint64_t cycle) {
  // sortTBs + sortWarps. Every resident CTA gets a rank, so one that comes
  // back from a barrier before the next re-sort has a place; only the CTAs
  // in noWait / finishNoWait have their warps re-sorted (as remTBs).
  // fastTBPhase: decreasing progress (noWait); slowTBPhase: increasing.
  scratch_.clear();
  for (uint32_t s = 0; s < ctas_.size(); ++s)
    if (ctas_[s].present) scratch_.push_back(s);
  const bool fast = fast_;
  std::sort(scratch_.begin(), scratch_.end(), [&](uint32_t a, uint32_t b) {
    const Cta& x = ctas_[a];
    const Cta& y = ctas_[b];
    if (x.progress != y.progress) return fast ? x.progress > y.progress : x.progress < y.progress;
    return x.id < y.id;
  });
  for (uint32_t r = 0; r < scratch_.size(); ++r) {
    Cta& c = ctas_[scratch_[r]];
    c.rem_rank = r;
    c.rem_ranked = true;
    if (in_remaining_state(c.state)) sort_warps(view, c, /*increasing=*/!fast);
  }
  ++resorts_;
  rebuild_cta_order();
  if (history_.size() >= kMaxHistory) return;
  SortRecord record;  // one allocation per re-sort, not per cycle
  record.cycle = cycle;
  record.cta_ids.reserve(cta_order_.size());
  for (const uint32_t s : cta_order_) record.cta_ids.push_back(ctas_[s].id);
  history_.push_back(std::move(record));
}

void ProPolicy::rebuild_cta_order() {
  // finishWait (H) by its rank, then the barrier states (M), then the
  // remaining CTAs (L) by the last re-sort; CTAs that joined since then
  // follow, by id.
  cta_order_.clear();
  for (uint32_t s = 0; s < ctas_.size(); ++s)
    if (ctas_[s].present && ctas_[s].state != CtaState::Finish) cta_order_.push_back(s);
  const auto key = [&](uint32_t s) {
    const Cta& c = ctas_[s];
    if (c.state == CtaState::FinishWait) return std::pair<uint32_t, uint32_t>{0, c.finish_rank};
    if (in_barrier_state(c.state)) return std::pair<uint32_t, uint32_t>{1, c.barrier_rank};
    return std::pair<uint32_t, uint32_t>{2, c.rem_ranked ? c.rem_rank : kUnranked};
  };
  std::sort(cta_order_.begin(), cta_order_.end(), [&](uint32_t a, uint32_t b) {
    const auto ka = key(a);
    const auto kb = key(b);
    return ka != kb ? ka < kb : ctas_[a].id < ctas_[b].id;
  });
  order_dirty_ = false;
}

ProPolicy::CtaState ProPolicy::state_of(uint64_t cta_id) const {
  for (const auto& c : ctas_)
    if (c.present && c.id == cta_id) return c.state;
  return CtaState::Finish;
}

std::vector<uint64_t> ProPolicy::cta_order() const {
  std::vector<uint64_t> ids;
  for (const uint32_t s : cta_order_)
    if (ctas_[s].present && ctas_[s].state != CtaState::Finish) ids.push_back(ctas_[s].id);
  return ids;
}

void ProPolicy::report_stats(core::StatReport& out) const {
  using core::Unit;
  out.add("pro_resorts", double(resorts_), Unit::Count, "re-sorts of the remaining CTAs by progress");
  out.add("pro_phase_switches", double(phase_switches_), Unit::Count,
          "switches between the fast-CTA phase and the finish phase");
  out.add("pro_finish_wait_entries", double(finish_wait_entries_), Unit::Count,
          "CTAs that entered finishWait (a first warp finished) in the fast phase");
  out.add("pro_barrier_wait_entries", double(barrier_wait_entries_), Unit::Count,
          "CTAs that entered barrierWait (a first warp reached a barrier)");
}

void ProPolicy::write_extra_outputs(const std::string& scheduler, PolicyOutputFiles& files) const {
  if (history_.empty()) return;
  std::ostream& csv = files.file(".pro_order.csv");
  csv << "# " << scheduler << "\n";
  write_order_csv(csv);
}

void ProPolicy::write_order_csv(std::ostream& out) const {
  size_t width = 0;
  for (const auto& r : history_) width = std::max(width, r.cta_ids.size());
  out << "cycle";
  for (size_t i = 1; i <= width; ++i) out << ',' << i;
  out << '\n';
  for (const auto& r : history_) {
    out << r.cycle;
    for (size_t i = 0; i < width; ++i) {
      out << ',';
      if (i < r.cta_ids.size()) out << r.cta_ids[i];
    }
    out << '\n';
  }
}

std::unique_ptr<WarpSchedulerPolicy> make_pro_policy(const PolicyParams& params, const PolicyContext& context) {
  const auto threshold = policy_param_uint("pro", params, "threshold", 1000, 1, uint64_t{1} << 32);
  return std::make_unique<ProPolicy>(threshold, context);
}

}  // namespace tlmgpu::schedulers
