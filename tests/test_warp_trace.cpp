// The trace format and the trace-driven issue harness, including seed 004's
// Fig. 1 example under every baseline policy.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>

#include "model/trace/warp_trace.h"
#include "schedulers/policy_registry.h"
#include "schedulers/trace_issue_model.h"

namespace {

using namespace tlmgpu::trace;
using tlmgpu::ptx::UnitClass;
using tlmgpu::schedulers::run_trace;
using tlmgpu::schedulers::TraceRunResult;

const std::string kFig1Path = std::string(TLMGPU_SOURCE_DIR) + "/tests/traces/seed004_fig1.trace";

WarpTrace fig1() { return load_warp_trace(kFig1Path); }

std::string parse_error(const std::string& text) {
  try {
    parse_warp_trace(text, "t.trace");
  } catch (const TraceError& e) {
    return e.what();
  }
  return "(no error)";
}

// ------------------------------------------------------------------ parsing

TEST(TraceParse, Seed004Figure1) {
  const auto t = fig1();
  ASSERT_EQ(t.warps.size(), 6u);
  EXPECT_EQ(t.instruction_count(), 24u);
  for (uint32_t i = 0; i < 6; ++i) EXPECT_EQ(t.warps[i].id, i + 1);
  const auto& w1 = t.warps[0].instructions;
  ASSERT_EQ(w1.size(), 4u);
  EXPECT_EQ(w1[0].op, TraceOp::Long);
  EXPECT_EQ(w1[0].latency, 10u);
  EXPECT_EQ(w1[0].unit, UnitClass::MEM);
  EXPECT_EQ(w1[0].dst, (std::vector<uint32_t>{1}));
  EXPECT_EQ(w1[0].src, (std::vector<uint32_t>{0}));
  EXPECT_EQ(w1[2].op, TraceOp::Short);
  EXPECT_EQ(w1[2].latency, 1u);
  EXPECT_EQ(w1[2].unit, UnitClass::SP);
  EXPECT_EQ(t.warps[1].instructions[0].op, TraceOp::Short);
  EXPECT_EQ(t.warps[1].instructions[3].op, TraceOp::Long);
  EXPECT_EQ(w1[3].line, 5u);
  EXPECT_EQ(w1[0].column, 15u);
}

TEST(TraceParse, ClassesRegistersLatenciesAndIntervals) {
  const auto t = parse_warp_trace(
      "warp 7: alu:3 r1, p2 <- r2 r3 ; st.global <- r1, r2 ; sfu r4 <- r1 ; bar ; exit ;\n"
      "warp 7: ld.shared r5 <- r4   # a second line appends\n"
      "warps 2-3: dp r1 <- r0 ; nop\n"
      "latency sfu=20 ld.shared=30  # applies to earlier lines too\n"
      "interval sfu=4 dp=2\n");
  ASSERT_EQ(t.warps.size(), 3u);
  EXPECT_EQ(t.warps[0].id, 2u);
  EXPECT_EQ(t.warps[1].id, 3u);
  const auto& w7 = t.warps[2].instructions;
  ASSERT_EQ(w7.size(), 6u);
  EXPECT_EQ(w7[0].latency, 3u);
  EXPECT_EQ(w7[0].dst, (std::vector<uint32_t>{1, kPredicateRegister + 2}));
  EXPECT_EQ(w7[0].src, (std::vector<uint32_t>{2, 3}));
  EXPECT_TRUE(w7[1].dst.empty());
  EXPECT_EQ(w7[1].latency, default_latency(TraceOp::StGlobal));
  EXPECT_TRUE(is_store(w7[1].op));
  EXPECT_TRUE(is_long_memory(w7[1].op));
  EXPECT_EQ(w7[2].latency, 20u);
  EXPECT_EQ(w7[2].unit, UnitClass::SFU);
  EXPECT_EQ(w7[3].unit, UnitClass::BAR);
  EXPECT_EQ(w7[4].unit, UnitClass::CTRL);
  EXPECT_EQ(w7[5].latency, 30u);
  EXPECT_FALSE(is_long_memory(w7[5].op));
  EXPECT_EQ(t.warps[0].instructions[0].unit, UnitClass::DP);
  EXPECT_EQ(t.unit_interval[static_cast<size_t>(UnitClass::SFU)], 4u);
  EXPECT_EQ(t.unit_interval[static_cast<size_t>(UnitClass::DP)], 2u);
  EXPECT_EQ(t.unit_interval[static_cast<size_t>(UnitClass::SP)], 1u);
}

TEST(TraceParse, ErrorsNameFileLineAndColumn) {
  const std::pair<const char*, const char*> cases[] = {
      {"warp 1: lng r1 <- r0", "t.trace:1:9: unknown instruction class 'lng' (known: alu, bar,"},
      {"latency long=0", "t.trace:1:14: latency of 'long' must be at least 1"},
      {"latency long=3 long=4", "t.trace:1:16: latency of 'long' is set twice"},
      {"warp 2 long r1", "t.trace:1:8: expected ':' after the warp numbers"},
      {"warp 1: long r1 <- x5", "t.trace:1:20: expected source registers after '<-'"},
      {"warp 1: st.global r1 <- r2", "t.trace:1:19: 'st.global' writes no register"},
      {"warp 1: bar <- r2", "t.trace:1:16: 'bar' reads no register"},
      {"warp 1: long r1 <- r0 long r2", "t.trace:1:23: unexpected 'l' in an instruction"},
      {"warp 1: long r1x <- r0", "t.trace:1:14: bad register 'r1x'"},
      {"warp 1: long:0 r1", "t.trace:1:14: latency must be at least 1"},
      {"warp 1: long r1 ;; short", "t.trace:1:18: expected an instruction class"},
      {"warp 1:", "t.trace:1:8: expected an instruction"},
      {"warp 3-1: nop", "t.trace:1:8: warp range ends before it starts"},
      {"interval fpu=2", "t.trace:1:10: unknown unit 'fpu'"},
      {"bogus 1", "t.trace:1:1: unknown directive 'bogus'"},
      {"# comment only\n\nwarp 1: nop\n  warp x: nop", "t.trace:4:8: expected a warp number"},
      {"# nothing", "t.trace:0:0: the trace defines no warps"},
  };
  for (const auto& [text, expected] : cases) {
    const auto msg = parse_error(text);
    EXPECT_EQ(msg.rfind(expected, 0), 0u) << "input: " << text << "\n got: " << msg;
  }
}

TEST(TraceParse, ErrorCarriesLineAndColumn) {
  try {
    parse_warp_trace("warp 1: nop\nwarp 2: nop ; what", "x");
    FAIL();
  } catch (const TraceError& e) {
    EXPECT_EQ(e.line(), 2u);
    EXPECT_EQ(e.column(), 15u);
  }
}

TEST(TraceParse, MissingFileIsAnError) {
  EXPECT_THROW(load_warp_trace("/nonexistent/none.trace"), TraceError);
}

// ------------------------------------------------------------------ harness

TEST(TraceIssue, Seed004Figure1SrrTakes45Cycles) {
  const auto t = fig1();
  const auto r = run_trace(t, "srr");
  EXPECT_EQ(r.total_cycles, 45u) << r.timeline(t);
  // The turn waits for each warp in slot order: exactly the paper's Fig. 1(a).
  EXPECT_EQ(r.issue_table(),
            "w1: 0 10 20 26\nw2: 1 11 21 31\nw3: 2 12 22 32\n"
            "w4: 3 13 23 33\nw5: 4 14 24 34\nw6: 5 15 25 35\n");
  EXPECT_EQ(r.issued, 24u);
  EXPECT_EQ(r.total_cycles - r.issued, 21u);  // "generating 21 pipeline stops"
}

TEST(TraceIssue, Seed004Figure1GtoTakes41Cycles) {
  const auto t = fig1();
  const auto r = run_trace(t, "gto");
  EXPECT_EQ(r.total_cycles, 41u) << r.timeline(t);
  EXPECT_EQ(r.issue_table(),
            "w1: 0 10 20 21\nw2: 1 2 3 13\nw3: 4 14 24 25\n"
            "w4: 5 6 7 17\nw5: 8 18 28 29\nw6: 9 19 30 31\n");
  EXPECT_EQ(r.total_cycles - r.issued, 17u);  // "generates 17 pauses"
  EXPECT_EQ(r.timeline(t).substr(0, 47), "w1   L---------L---------SL---------..........\n");
}

// The paper's LRR, Fig. 1(b), takes 39 cycles. The plain reading of loose
// round robin (every cycle, the first ready warp after the last one that
// issued, looking at all six) takes 37: after warp 6's first long op (cycle
// 5) it finds warps 2 and 4 ready at cycles 6-9 and never waits. 39 cycles
// (15 idle) come out when the scheduler may look at only two warps a cycle
// — the turn warp, and the next one if the turn warp is hung — and its
// pointer moves past both when neither can issue: `lrr:probe=2`.
TEST(TraceIssue, Seed004Figure1LrrTakes37CyclesOr39WithTwoProbes) {
  const auto t = fig1();
  const auto plain = run_trace(t, "lrr");
  EXPECT_EQ(plain.total_cycles, 37u) << plain.timeline(t);
  EXPECT_EQ(plain.issue_table(),
            "w1: 0 10 20 21\nw2: 1 6 8 18\nw3: 2 12 22 23\n"
            "w4: 3 7 9 19\nw5: 4 14 24 26\nw6: 5 15 25 27\n");
  const auto paper = run_trace(t, "lrr:probe=2");
  EXPECT_EQ(paper.total_cycles, 39u) << paper.timeline(t);
  EXPECT_EQ(paper.total_cycles - paper.issued, 15u);  // "the pipeline is idle for 15 cycles"
}

TEST(TraceIssue, Seed004Figure1OtherBaselines) {
  const auto t = fig1();
  // gtlrr and oldest happen to produce gto's schedule here; gty starts
  // with warp 6 and finishes one cycle earlier.
  EXPECT_EQ(run_trace(t, "gtlrr").total_cycles, 41u);
  EXPECT_EQ(run_trace(t, "oldest").total_cycles, 41u);
  EXPECT_EQ(run_trace(t, "gty").total_cycles, 40u);
  // With all six warps in one active group two_level is loose round robin.
  const auto two = run_trace(t, "two_level");
  EXPECT_EQ(two.total_cycles, 37u);
  EXPECT_EQ(two.issue_table(), run_trace(t, "lrr").issue_table());
  const auto small = run_trace(t, "two_level:group=2");
  EXPECT_EQ(small.total_cycles, 41u) << small.timeline(t);
  EXPECT_EQ(small.issue_table(),
            "w1: 0 10 20 21\nw2: 1 4 6 16\nw3: 2 12 22 23\n"
            "w4: 3 5 7 17\nw5: 8 18 28 30\nw6: 9 19 29 31\n");
}

TEST(TraceIssue, EveryCycleHasOneClass) {
  const auto t = fig1();
  for (const char* spec : {"srr", "lrr", "gto", "gtlrr", "oldest", "gty", "two_level:group=2", "lrr:probe=2"}) {
    const auto r = run_trace(t, spec);
    EXPECT_EQ(r.issued, 24u) << spec;
    EXPECT_EQ(r.issued + r.idle + r.scoreboard + r.pipeline, r.total_cycles) << spec;
  }
  // srr: the turn warp waits on its operands while others are ready.
  const auto srr = run_trace(t, "srr");
  EXPECT_GT(srr.pipeline, 0u);
  EXPECT_EQ(run_trace(t, "gto").pipeline, 0u);
}

TEST(TraceIssue, ScoreboardCoversWriteAfterWrite) {
  const auto t = parse_warp_trace("latency long=10 short=1\nwarp 1: long r1 <- r0 ; short r1 <- r2");
  const auto r = run_trace(t, "lrr");
  ASSERT_EQ(r.issues.size(), 2u);
  EXPECT_EQ(r.issues[1].cycle, 10u);
  EXPECT_EQ(r.total_cycles, 11u);
  EXPECT_EQ(r.scoreboard, 9u);
}

TEST(TraceIssue, BusyUnitIsAPipelineStall) {
  const auto t = parse_warp_trace("latency sfu=1\ninterval sfu=4\nwarp 1: sfu r1 <- r0 ; sfu r2 <- r0");
  const auto r = run_trace(t, "gto");
  ASSERT_EQ(r.issues.size(), 2u);
  EXPECT_EQ(r.issues[1].cycle, 4u);
  EXPECT_EQ(r.pipeline, 3u);
  EXPECT_EQ(r.total_cycles, 5u);
}

// A bar reads no register, so it does not wait for the warp's own loads;
// warp 2 reaches it only after the short op that consumes its long load.
TEST(TraceIssue, BarrierWaitsForEveryLiveWarp) {
  const auto t = parse_warp_trace(
      "latency long=10 short=1\n"
      "warp 1: short r1 <- r0 ; bar ; short r2 <- r1\n"
      "warp 2: long r1 <- r0 ; short r2 <- r1 ; bar ; short r3 <- r2\n");
  const auto r = run_trace(t, "lrr");
  EXPECT_EQ(r.issue_table(), "w1: 0 2 13\nw2: 1 11 12 14\n");
  EXPECT_EQ(r.total_cycles, 15u);
  EXPECT_EQ(r.scoreboard, 8u);  // cycles 3..10: warp 1 at the barrier, warp 2 on its operands
}

TEST(TraceIssue, SameTraceTwiceGivesTheSameIssueOrder) {
  std::string text = "latency long=30 short=1 sfu=6\ninterval sfu=2\n";
  for (int w = 0; w < 12; ++w) {
    text += "warp " + std::to_string(w) + ":";
    for (int i = 0; i < 10; ++i) {
      const char* cls = (w + i) % 3 == 0 ? "long" : (w * i) % 4 == 1 ? "sfu" : "short";
      text += std::string(i ? " ;" : "") + " " + cls + " r" + std::to_string(i + 1) + " <- r" +
              std::to_string(i / 2);
    }
    text += "\n";
  }
  const auto t = parse_warp_trace(text);
  for (const char* spec : {"srr", "lrr", "gto", "gtlrr", "oldest", "gty", "two_level:group=4"}) {
    const auto a = run_trace(t, spec);
    const auto b = run_trace(t, spec);
    EXPECT_EQ(a.issues, b.issues) << spec;
    EXPECT_EQ(a.total_cycles, b.total_cycles) << spec;
    EXPECT_EQ(a.issues.size(), 120u) << spec;
  }
}

TEST(TraceIssue, RunawayIsReported) {
  const auto t = fig1();
  tlmgpu::schedulers::TraceIssueModel m(t, tlmgpu::schedulers::make_policy("gto", {}));
  try {
    m.run(5);
    FAIL();
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("no completion after 5 cycles under 'gto'"), std::string::npos)
        << e.what();
  }
}

}  // namespace
