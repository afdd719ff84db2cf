#include "engine/clock_domain.h"

#include <algorithm>
#include <string>

#include "core/host_wait.h"

namespace tlmgpu::engine {

// ------------------------------------------------------------ clocked module

ClockedModule::ClockedModule(sc_core::sc_module_name name, uint32_t stage, const sc_core::sc_time& period)
    : sc_core::sc_module(name), stage_(stage), period_(period), period_div_(period.value()) {
  for (uint64_t n = 0; n < kCachedDelays; ++n) delays_[n] = sc_core::sc_time::from_value(period.value() * n);
}

void ClockedModule::commit(uint64_t) {}

void ClockedModule::start_of_simulation() {
  if (domain_) return;
  const auto* clock = dynamic_cast<const sc_core::sc_object*>(clk.get_interface());
  SC_REPORT_ERROR(name(), ("no clock domain runs it: none over it is bound to " +
                           std::string(clock ? clock->name() : "its clock"))
                              .c_str());
}

// -------------------------------------------------------------- clock domain

ClockDomain::ClockDomain(sc_core::sc_module_name name, const sc_core::sc_time& period)
    : sc_core::sc_module(name), period_(period), period_div_(period.value()) {
  SC_HAS_PROCESS(ClockDomain);
  SC_METHOD(tick);
  sensitive << clk.pos();
  dont_initialize();
}

namespace {

void collect(sc_core::sc_object* obj, const sc_core::sc_interface* clock, std::vector<ClockedModule*>& out) {
  if (auto* m = dynamic_cast<ClockedModule*>(obj); m && m->clk.get_interface() == clock) out.push_back(m);
  for (sc_core::sc_object* child : obj->get_child_objects()) collect(child, clock, out);
}

}  // namespace

void ClockDomain::end_of_elaboration() {
  const sc_core::sc_interface* clock = clk.get_interface();
  if (const auto* c = dynamic_cast<const sc_core::sc_clock*>(clock)) {
    if (c->period() != period_)
      SC_REPORT_ERROR(name(), ("its clock " + std::string(c->name()) + " has period " + c->period().to_string() +
                               ", the domain " + period_.to_string())
                                  .c_str());
    // Rising edges at multiples of the period: a cycle's edge is known from
    // the time alone, so the domain can sleep through idle cycles by time.
    timed_ = c->posedge_first() && period_div_.mod(c->start_time().value()) == 0;
  }
  // The modules of its parent's subtree (the whole design at the top level)
  // on its clock, in construction order, then sorted by stage.
  std::vector<ClockedModule*> found;
  if (sc_core::sc_object* parent = get_parent_object())
    collect(parent, clock, found);
  else
    for (sc_core::sc_object* top : sc_core::sc_get_top_level_objects()) collect(top, clock, found);
  std::stable_sort(found.begin(), found.end(),
                   [](const ClockedModule* a, const ClockedModule* b) { return a->stage() < b->stage(); });
  for (ClockedModule* m : found) {
    if (m->domain_)
      SC_REPORT_ERROR(name(), (std::string(m->name()) + " is already run by " + m->domain_->name() +
                               " (two domains on one clock over the same modules)")
                                  .c_str());
    if (m->period() != period_)
      SC_REPORT_ERROR(name(), (std::string(m->name()) + " counts cycles of " + m->period().to_string() +
                               ", its clock domain of " + period_.to_string())
                                  .c_str());
    m->domain_ = this;
    m->slot_ = uint32_t(modules_.size());
    modules_.push_back(m);
    wakes_.push_back(m->pending_wake_);
    next_ = std::min(next_, m->pending_wake_);
    if (stages_.empty() || stages_.back().number != m->stage())
      stages_.push_back({kNever, m->stage(), m->slot_, m->slot_, false, false, nullptr});
    stages_.back().end = m->slot_ + 1;
    stages_.back().next = std::min(stages_.back().next, m->pending_wake_);
    stage_of_.push_back(uint32_t(stages_.size() - 1));
    stages_.back().follows |= m->follows_earlier_stages_;
    stages_.back().commits |= m->has_commit_;
  }
  stage_index_.assign(stages_.empty() ? 0 : stages_.back().number + 1, kNoStage);
  for (uint32_t i = 0; i < stages_.size(); ++i) stage_index_[stages_[i].number] = i;
  due_.assign(modules_.size(), nullptr);
  elaborated_ = true;
  apply_executors();
  stage_ticks_.assign(stages_.empty() ? 0 : stages_.back().number + 1, 0);
}

uint64_t ClockDomain::earliest_wake_below_stage(uint32_t stage) const {
  uint64_t earliest = kNever;
  for (const Stage& st : stages_)
    if (st.number < stage)
      for (uint32_t i = st.begin; i < st.end; ++i) earliest = std::min(earliest, wakes_[i]);
  return earliest;
}

void ClockDomain::set_stage_executor(uint32_t stage, StageExecutor* executor) {
  executors_.emplace_back(stage, executor);
  if (elaborated_) apply_executors();
}

void ClockDomain::apply_executors() {
  for (const auto& [number, executor] : executors_) {
    Stage* found = nullptr;
    for (Stage& st : stages_)
      if (st.number == number) found = &st;
    if (!found)
      SC_REPORT_ERROR(name(), ("a stage executor for stage " + std::to_string(number) +
                               ", which no module on its clock has")
                                  .c_str());
    else
      found->executor = executor;
  }
  executors_.clear();
}

void ClockDomain::notify_external(uint64_t cycle) {
  armed_ = cycle;
  // To the edge of that cycle (the caller may be between edges).
  external_.notify(sc_core::sc_time::from_value(period_.value() * cycle) - sc_core::sc_time_stamp());
}

void ClockDomain::tick() {
  const uint64_t t = sc_core::sc_time_stamp().value();
  const uint64_t now = period_div_.div(t);
  // Woken between edges (an external wake-up), by the timed wake-up and the
  // clock's edge both, or on a clock it cannot sleep on: run at rising edges only.
  const bool edge = timed_ ? period_div_.mod(t) == 0 : clk.posedge();
  if (!edge || now == last_run_) {
    armed_ = now + 1;
    next_trigger(clk.posedge_event());
    return;
  }
  run(now);
  // Sleep until the earliest cycle asked for, or an external wake-up.
  const uint64_t at = next_;
  armed_ = at;
  if (at == now + 1 || !timed_) return;  // the next edge (static sensitivity)
  if (at == kNever)
    next_trigger(external_);
  else
    next_trigger(sc_core::sc_time::from_value(period_.value() * (at - now)), external_);
}

void ClockDomain::run(uint64_t now) {
  in_run_ = true;
  now_ = now;
  last_run_ = now;
  armed_ = 0;  // no external notification while it runs: it reschedules at its end
  // One pass over the stages. A stage none of whose modules is due is
  // skipped; in one that runs, a scan of the wake-up array collects the due
  // modules (their wake-ups cleared), which are then evaluated and the ones
  // that asked committed. A wake-up asked for during the stage, by a module
  // for itself or for another, lowers the stage's next through lower_wake.
  uint64_t* const wakes = wakes_.data();
  ClockedModule* const* const modules = modules_.data();
  ClockedModule** const due = due_.data();
  bool ran_any = false;
  next_ = kNever;
  stage_running_ = 0;
  Stage* const first = stages_.data();
  for (Stage* const end = first + stages_.size(), *st = first; st != end; ++st) {
    Stage& stage = *st;
    const bool follow = stage.follows && ran_any;
    if (stage.next > now && !follow) {
      next_ = std::min(next_, stage.next);
      continue;
    }
    const uint64_t t0 = profile_ ? core::host_time_stamp() : 0;
    stage.next = kNever;
    stage_running_ = uint32_t(st - first);
    uint64_t next = kNever;
    uint32_t count = 0;
    if (follow) {
      for (uint32_t i = stage.begin; i < stage.end; ++i) {
        if (wakes[i] <= now || modules[i]->follows_earlier_stages_) {
          wakes[i] = kNever;
          due[count++] = modules[i];
        } else {
          next = std::min(next, wakes[i]);
        }
      }
    } else {
      for (uint32_t i = stage.begin; i < stage.end; ++i) {
        const uint64_t wake = wakes[i];
        if (wake <= now) {
          wakes[i] = kNever;
          due[count++] = modules[i];
        } else {
          next = std::min(next, wake);
        }
      }
    }
    if (count != 0) {
      ran_any = true;
      if (stage.executor) {
        // Its modules ask for wake-ups in their own slots only: read back
        // once it has returned.
        executor_running_ = true;
        stage.executor->evaluate_stage(due, count, now);
        executor_running_ = false;
        for (uint32_t k = 0; k < count; ++k) next = std::min(next, wakes[due[k]->slot_]);
      } else {
        for (uint32_t k = 0; k < count; ++k) due[k]->evaluate(now);
      }
      if (stage.commits)
        for (uint32_t k = 0; k < count; ++k) {
          ClockedModule* const m = due[k];
          if (m->commit_due_) {
            m->commit_due_ = false;
            m->commit(now);
          }
        }
    }
    stage.next = std::min(stage.next, next);
    next_ = std::min(next_, stage.next);
    if (profile_) stage_ticks_[stage.number] += core::host_time_stamp() - t0;
  }
  ++cycles_run_;
  in_run_ = false;
}

}  // namespace tlmgpu::engine
