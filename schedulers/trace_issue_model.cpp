#include "schedulers/trace_issue_model.h"

#include <algorithm>
#include <map>
#include <sstream>
#include <stdexcept>

namespace tlmgpu::schedulers {

namespace {

using trace::TraceOp;

char timeline_letter(TraceOp op) {
  switch (trace::head_class_of(op)) {
    case core::HeadClass::LongMem: return 'L';
    case core::HeadClass::SharedMem: return 'M';
    case core::HeadClass::Sfu: return 'F';
    case core::HeadClass::Dp: return 'D';
    case core::HeadClass::Barrier: return 'B';
    case core::HeadClass::Control: return 'E';
    default: return op == TraceOp::Nop ? 'N' : 'S';
  }
}

struct WarpState {
  uint32_t next = 0;          ///< index of the head instruction
  bool at_barrier = false;
  bool done = false;          ///< every instruction issued
  std::map<uint32_t, uint64_t> ready_at;  ///< register -> cycle its pending write lands
};

struct Completion {
  uint64_t cycle;
  uint64_t sequence;  ///< issue order, so completions of one cycle are told in a fixed order
  uint32_t slot;
  uint32_t pc;
  ptx::UnitClass unit;
};

}  // namespace

TraceIssueModel::TraceIssueModel(const trace::WarpTrace& trace, std::unique_ptr<WarpSchedulerPolicy> policy)
    : trace_(trace), arbiter_(std::move(policy)) {}

TraceRunResult TraceIssueModel::run(uint64_t max_cycles) {
  const auto n = static_cast<uint32_t>(trace_.warps.size());
  std::vector<WarpState> warps(n);
  uint64_t unit_free_at[trace::kUnitClasses] = {};
  std::vector<Completion> in_flight;
  TraceRunResult result;
  SchedulerView view;
  view.warps.resize(n);
  uint64_t last_completion = 0;
  uint64_t sequence = 0;
  uint32_t remaining = n;

  for (uint32_t i = 0; i < n; ++i) {
    arbiter_.warp_started(i, 0);
    if (trace_.warps[i].instructions.empty()) {
      warps[i].done = true;
      --remaining;
      arbiter_.warp_finished(i, 0);
    }
  }

  const auto release_barrier_if_complete = [&]() {
    uint32_t waiting = 0;
    for (const auto& w : warps) waiting += w.at_barrier ? 1 : 0;
    if (waiting == 0 || waiting != remaining) return;
    for (auto& w : warps) w.at_barrier = false;
  };

  for (uint64_t t = 0;; ++t) {
    // Results that land this cycle are visible to this cycle's issue.
    std::sort(in_flight.begin(), in_flight.end(), [](const Completion& a, const Completion& b) {
      return a.cycle != b.cycle ? a.cycle < b.cycle : a.sequence < b.sequence;
    });
    size_t landed = 0;
    while (landed < in_flight.size() && in_flight[landed].cycle <= t) {
      const auto& c = in_flight[landed++];
      arbiter_.notify_complete({c.cycle, c.slot, c.pc, c.unit});
    }
    in_flight.erase(in_flight.begin(), in_flight.begin() + static_cast<std::ptrdiff_t>(landed));

    if (remaining == 0 && t >= last_completion) {
      result.total_cycles = t;
      break;
    }
    if (t >= max_cycles) {
      std::ostringstream msg;
      msg << trace_.source << ": no completion after " << max_cycles << " cycles under '"
          << arbiter_.policy().name() << "';";
      for (uint32_t i = 0; i < n; ++i)
        if (!warps[i].done)
          msg << " warp " << trace_.warps[i].id << " at instruction " << warps[i].next
              << (warps[i].at_barrier ? " (barrier)" : "");
      throw std::runtime_error(msg.str());
    }

    view.cycle = t;
    for (uint32_t i = 0; i < n; ++i) {
      const auto& state = warps[i];
      auto& w = view.warps[i];
      w.slot = i;
      w.age = i;
      w.cta_slot = 0;
      w.cta_id = 0;
      w.active_threads = 32;
      w.insts_issued = state.next;
      w.progress = uint64_t{state.next} * 32;
      if (state.done) {
        w.wait = WarpWait::Finished;
        w.head_class = core::HeadClass::None;
        continue;
      }
      const auto& inst = trace_.warps[i].instructions[state.next];
      w.head_unit = inst.unit;
      w.head_class = trace::head_class_of(inst.op);
      w.head_pc = state.next;
      if (state.at_barrier) {
        w.wait = WarpWait::Barrier;
        continue;
      }
      const auto pending = [&](uint32_t reg) {
        const auto it = state.ready_at.find(reg);
        return it != state.ready_at.end() && it->second > t;
      };
      const bool blocked = std::any_of(inst.src.begin(), inst.src.end(), pending) ||
                           std::any_of(inst.dst.begin(), inst.dst.end(), pending);
      if (blocked)
        w.wait = WarpWait::Scoreboard;
      else if (unit_free_at[static_cast<size_t>(inst.unit)] > t)
        w.wait = WarpWait::UnitBusy;
      else
        w.wait = WarpWait::Ready;
    }

    const int chosen = arbiter_.select(view);
    if (chosen < 0) continue;
    const auto slot = static_cast<uint32_t>(chosen);
    auto& state = warps[slot];
    const auto& inst = trace_.warps[slot].instructions[state.next];
    const uint64_t lands = t + inst.latency;
    for (const uint32_t reg : inst.dst) state.ready_at[reg] = lands;
    unit_free_at[static_cast<size_t>(inst.unit)] = t + trace_.unit_interval[static_cast<size_t>(inst.unit)];
    in_flight.push_back({lands, sequence++, slot, state.next, inst.unit});
    last_completion = std::max(last_completion, lands);
    result.issues.push_back({t, trace_.warps[slot].id, state.next});

    IssueEvent event;
    event.cycle = t;
    event.slot = slot;
    event.pc = state.next;
    event.unit = inst.unit;
    event.op = trace::opcode_of(inst.op);
    event.active_mask = 0xffffffffu;
    arbiter_.notify_issue(event);

    ++state.next;
    if (state.next == trace_.warps[slot].instructions.size()) {
      state.done = true;
      --remaining;
      arbiter_.warp_finished(slot, t);
    } else if (inst.op == TraceOp::Bar) {
      state.at_barrier = true;
    }
    release_barrier_if_complete();
  }

  result.issued = arbiter_.cycles(StallClass::Issued);
  result.idle = arbiter_.cycles(StallClass::Idle);
  result.scoreboard = arbiter_.cycles(StallClass::Scoreboard);
  result.pipeline = arbiter_.cycles(StallClass::Pipeline);
  return result;
}

std::string TraceRunResult::issue_table() const {
  std::map<uint32_t, std::vector<uint64_t>> by_warp;
  for (const auto& i : issues) by_warp[i.warp_id].push_back(i.cycle);
  std::ostringstream out;
  for (const auto& [id, cycles] : by_warp) {
    out << 'w' << id << ':';
    for (const auto c : cycles) out << ' ' << c;
    out << '\n';
  }
  return out.str();
}

std::string TraceRunResult::timeline(const trace::WarpTrace& trace) const {
  std::map<uint32_t, std::string> rows;
  for (const auto& w : trace.warps) rows[w.id] = std::string(total_cycles, '.');
  for (const auto& i : issues) {
    const auto it = std::find_if(trace.warps.begin(), trace.warps.end(),
                                 [&](const trace::TraceWarp& w) { return w.id == i.warp_id; });
    if (it == trace.warps.end() || i.instruction >= it->instructions.size()) continue;
    const auto& inst = it->instructions[i.instruction];
    auto& row = rows[i.warp_id];
    for (uint64_t c = i.cycle + 1; c < i.cycle + inst.latency && c < row.size(); ++c)
      if (row[c] == '.') row[c] = '-';
    if (i.cycle < row.size()) row[i.cycle] = timeline_letter(inst.op);
  }
  std::ostringstream out;
  for (const auto& [id, row] : rows) {
    std::string label = "w" + std::to_string(id);
    label.resize(std::max<size_t>(label.size() + 1, 5), ' ');
    out << label << row << '\n';
  }
  return out.str();
}

TraceRunResult run_trace(const trace::WarpTrace& trace, const std::string& policy_spec) {
  PolicyContext context;
  context.max_warps_per_scheduler = static_cast<uint32_t>(trace.warps.size());
  TraceIssueModel model(trace, make_policy(policy_spec, context));
  return model.run();
}

}  // namespace tlmgpu::schedulers
