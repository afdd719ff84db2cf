// A tiny trace-driven issue model for checking policies by hand: one warp
// scheduler, at most one issue per cycle, in-order warps whose instructions
// wait on a register scoreboard (RAW and WAW) and complete after their
// latency. Rules in docs/SCHEDULERS.md ("Trace issue harness").
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "model/trace/warp_trace.h"
#include "schedulers/issue_arbiter.h"
#include "schedulers/policy_registry.h"

namespace tlmgpu::schedulers {

struct TraceIssue {
  uint64_t cycle = 0;
  uint32_t warp_id = 0;       ///< the trace's warp number
  uint32_t instruction = 0;   ///< index in that warp's list
  bool operator==(const TraceIssue& o) const {
    return cycle == o.cycle && warp_id == o.warp_id && instruction == o.instruction;
  }
};

struct TraceRunResult {
  /// Cycle after the last completion: every instruction issued at cycle t
  /// with latency L has completed by cycle t + L.
  uint64_t total_cycles = 0;
  std::vector<TraceIssue> issues;  ///< in issue order
  uint64_t issued = 0, idle = 0, scoreboard = 0, pipeline = 0;  ///< per-cycle classes over total_cycles
  /// Issue cycles per warp, as "w1: 0 10 20 26" lines.
  std::string issue_table() const;
  /// One row per warp, one character per cycle: the class letter when it
  /// issues (L long memory, S short / alu, F sfu, D dp, M shared, B bar,
  /// E exit, N nop), '-' while an instruction of it is in flight, '.' else.
  std::string timeline(const trace::WarpTrace& trace) const;
};

class TraceIssueModel {
 public:
  TraceIssueModel(const trace::WarpTrace& trace, std::unique_ptr<WarpSchedulerPolicy> policy);

  /// Runs to completion; throws std::runtime_error after `max_cycles`
  /// (a deadlock in a trace or a policy that never issues).
  TraceRunResult run(uint64_t max_cycles = 1000000);

 private:
  const trace::WarpTrace& trace_;
  IssueArbiter arbiter_;
};

/// Convenience: make_policy(spec) with one scheduler, then run.
TraceRunResult run_trace(const trace::WarpTrace& trace, const std::string& policy_spec);

}  // namespace tlmgpu::schedulers
