// spin_backoff: seed 001's greedy spin detection and back-off around any base
// policy (see docs/SCHEDULERS.md, "spin_backoff").
//
// history: per thread, a row per setp PC of the last `window` operand pairs;
// a thread spins at that PC when the row is full of identical pairs, the warp
// when all its active lanes of that setp spin. The warp is then backed off.
// table: the same warp state feeds a prediction table of backward branches
// (DDOS/BoWS as seed 001 describes it); the back-off happens at the branch.
#include "schedulers/policy_spin_backoff.h"

#include <algorithm>
#include <stdexcept>

#include "schedulers/policy_factories.h"

namespace tlmgpu::schedulers {

namespace {
constexpr uint32_t kLanes = 32;
constexpr uint32_t kMaxConfidence = 255;  // an 8-bit saturating counter
}  // namespace

SpinBackoffPolicy::SpinBackoffPolicy(std::unique_ptr<WarpSchedulerPolicy> base, const Options& options,
                                     const PolicyContext& context)
    : base_(std::move(base)), options_(options) {
  base_order_.reserve(context.max_warps_per_scheduler);
}

SpinBackoffPolicy::WarpState& SpinBackoffPolicy::state(uint32_t slot) {
  if (slot >= warps_.size()) warps_.resize(slot + 1);
  return warps_[slot];
}

void SpinBackoffPolicy::expire(uint64_t cycle) {
  while (!queue_.empty() && queue_.begin()->first <= cycle) queue_.erase(queue_.begin());
}

uint64_t SpinBackoffPolicy::next_reorder_cycle(uint64_t now) const {
  uint64_t next = base_->next_reorder_cycle(now);
  for (const auto& [wake, slot] : queue_) {
    if (wake <= now) continue;  // expires at the next order()
    next = std::min(next, wake);
    break;
  }
  return next;
}

bool SpinBackoffPolicy::backed_off(uint32_t slot, uint64_t cycle) const {
  return slot < warps_.size() && warps_[slot].wake > cycle;
}

uint64_t SpinBackoffPolicy::wake_cycle(uint32_t slot) const { return slot < warps_.size() ? warps_[slot].wake : 0; }

bool SpinBackoffPolicy::spinning(uint32_t slot) const { return slot < warps_.size() && warps_[slot].spinning; }

uint32_t SpinBackoffPolicy::branch_confidence(uint32_t pc) const {
  const auto it = table_.find(pc);
  return it == table_.end() ? 0 : it->second;
}

void SpinBackoffPolicy::order(const SchedulerView& view, std::vector<uint32_t>& order) {
  expire(view.cycle);
  base_order_.clear();
  base_->order(view, base_order_);
  if (queue_.empty()) {
    order.insert(order.end(), base_order_.begin(), base_order_.end());
    return;
  }
  // Backed-off warps are left out only while some live warp is not backed
  // off: with all of them waiting, skipping them would just idle the scheduler.
  const bool any_awake = std::any_of(view.warps.begin(), view.warps.end(), [&](const WarpView& w) {
    return w.wait != WarpWait::Finished && w.wait != WarpWait::Unused && !backed_off(w.slot, view.cycle);
  });
  for (const uint32_t i : base_order_)
    if (!any_awake || !backed_off(view.warps[i].slot, view.cycle)) order.push_back(i);
}

bool SpinBackoffPolicy::record_setp(WarpState& w, const IssueEvent& e) {
  Row& row = w.rows[e.pc];
  bool all_spin = e.active_mask != 0;
  for (uint32_t lane = 0; lane < kLanes; ++lane) {
    if (!(e.active_mask >> lane & 1u)) continue;  // inactive lanes keep their history
    const uint64_t a = e.setp_a[lane], b = e.setp_b[lane];
    if (row.run[lane] != 0 && row.a[lane] == a && row.b[lane] == b) {
      // Saturate at the window: only "at least window repeats" matters.
      row.run[lane] = std::min(row.run[lane] + 1, options_.window);
    } else {
      row.a[lane] = a;
      row.b[lane] = b;
      row.run[lane] = 1;
    }
    all_spin = all_spin && row.run[lane] >= options_.window;
  }
  return all_spin;
}

void SpinBackoffPolicy::track_locks(WarpState& w, const IssueEvent& e) {
  if (!e.addresses || !e.writes_memory) return;
  auto contains = [](const std::vector<uint64_t>& v, uint64_t a) { return std::find(v.begin(), v.end(), a) != v.end(); };
  if (e.atom == ptx::AtomOp::Cas) {
    // Lanes that swapped took the word; the others wait for it.
    w.wanted.clear();
    for (uint32_t m = e.address_mask; m; m &= m - 1) {
      const unsigned lane = unsigned(__builtin_ctz(m));
      const uint64_t a = e.addresses[lane];
      if (e.cas_written >> lane & 1u) {
        if (!contains(w.held, a)) w.held.push_back(a);
      } else if (!contains(w.wanted, a)) {
        w.wanted.push_back(a);
      }
    }
    return;
  }
  // Any other write of a held word (st, atom.exch, red) releases it.
  if (w.held.empty()) return;
  for (uint32_t m = e.address_mask; m; m &= m - 1) {
    const uint64_t a = e.addresses[__builtin_ctz(m)];
    w.held.erase(std::remove(w.held.begin(), w.held.end(), a), w.held.end());
  }
}

void SpinBackoffPolicy::back_off(uint32_t slot, WarpState& w, uint64_t cycle) {
  ++backoffs_;
  // A false positive: some lane of the warp holds a word the spinning lanes wait for.
  for (const uint64_t a : w.wanted)
    if (std::find(w.held.begin(), w.held.end(), a) != w.held.end()) {
      ++false_positives_;
      break;
    }
  backoff_cycles_ += options_.backoff;
  if (options_.backoff == 0) return;  // detection only
  if (w.wake > cycle) queue_.erase({w.wake, slot});
  w.wake = cycle + options_.backoff + 1;  // out for cycles cycle+1 .. cycle+backoff
  queue_.insert({w.wake, slot});
}

void SpinBackoffPolicy::on_issue(const IssueEvent& e) {
  base_->on_issue(e);
  WarpState& w = state(e.slot);
  track_locks(w, e);
  if (e.is_setp && e.setp_a && e.setp_b) {
    const bool spins = record_setp(w, e);
    if (spins) ++detections_;
    if (options_.detector == Detector::History) {
      if (spins) back_off(e.slot, w, e.cycle);
    } else {
      // The table detector's warp state follows the latest setp it issued.
      w.spinning = spins;
    }
  }
  if (options_.detector == Detector::Table && e.is_branch && e.taken && e.backward) {
    if (w.spinning) {
      uint32_t& conf = table_[e.pc];
      conf = std::min(conf + 1, kMaxConfidence);
      if (conf >= options_.confidence) back_off(e.slot, w, e.cycle);
    } else {
      // Only rows already in the table lose confidence.
      const auto it = table_.find(e.pc);
      if (it != table_.end() && it->second > 0) --it->second;
    }
  }
}

void SpinBackoffPolicy::on_warp_start(uint32_t slot, uint64_t cycle) {
  base_->on_warp_start(slot, cycle);
  WarpState& w = state(slot);
  if (w.wake > 0) queue_.erase({w.wake, slot});
  w = WarpState{};  // a new warp in the slot starts with no history
}

void SpinBackoffPolicy::on_warp_finish(uint32_t slot, uint64_t cycle) {
  base_->on_warp_finish(slot, cycle);
  WarpState& w = state(slot);
  if (w.wake > 0) queue_.erase({w.wake, slot});
  w = WarpState{};
}

void SpinBackoffPolicy::report_stats(core::StatReport& out) const {
  using core::Unit;
  base_->report_stats(out);
  out.add("spin_detections", double(detections_), Unit::Count, "spin loops the detector found");
  out.add("spin_backoffs", double(backoffs_), Unit::Count, "times a warp was held back from issue as spinning");
  out.add("backoff_cycles", double(backoff_cycles_), Unit::Cycles, "cycles of backoff given to warps (backoffs x the backoff length)");
  out.add("false_positive_backoffs", double(false_positives_), Unit::Count,
          "backoffs of warps one of whose lanes held a word the spinning lanes waited for (false positives)");
}

std::unique_ptr<WarpSchedulerPolicy> make_spin_backoff_policy(const PolicyParams& params,
                                                              const PolicyContext& context) {
  SpinBackoffPolicy::Options options;
  const auto text = [&](const std::string& key, const std::string& fallback) {
    const auto it = params.find(key);
    return it == params.end() ? fallback : it->second;
  };
  const std::string detector = text("detector", "history");
  if (detector == "history") {
    options.detector = SpinBackoffPolicy::Detector::History;
  } else if (detector == "table") {
    options.detector = SpinBackoffPolicy::Detector::Table;
  } else {
    throw std::invalid_argument("scheduler policy 'spin_backoff': detector=" + detector +
                                " must be history or table");
  }
  // At most a million cycles, well below the watchdog's default starvation
  // limit (a warp held ready that long without being chosen; docs/ARCHITECTURE.md).
  options.backoff = policy_param_uint("spin_backoff", params, "backoff", 1000, 0, 1000000);
  options.window = static_cast<uint32_t>(policy_param_uint("spin_backoff", params, "window", 5, 1, 1024));
  options.confidence = static_cast<uint32_t>(policy_param_uint("spin_backoff", params, "confidence", 2, 1, 255));
  if (params.count("confidence") && options.detector != SpinBackoffPolicy::Detector::Table)
    throw std::invalid_argument("scheduler policy 'spin_backoff': confidence applies only to detector=table");

  const std::string base = text("base", "gto");
  // A spin_backoff base would detect twice and back off twice; refuse it.
  if (base == "spin_backoff")
    throw std::invalid_argument("scheduler policy 'spin_backoff': base=spin_backoff is not allowed");
  std::unique_ptr<WarpSchedulerPolicy> base_policy;
  try {
    base_policy = make_policy(PolicySpec{base, {}}, context);
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument("scheduler policy 'spin_backoff': base=" + base + ": " + e.what());
  }
  return std::make_unique<SpinBackoffPolicy>(std::move(base_policy), options, context);
}

}  // namespace tlmgpu::schedulers
