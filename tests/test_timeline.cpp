// `tlmgpu run --timeline`, run as a user would: the file's structure, and
// that its spans and counters agree with the statistics of the same run.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <algorithm>
#include <array>
#include <cstdlib>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "scratch_dir.h"

namespace {

using json = nlohmann::json;

const std::array<std::string, 4> kSlotClasses = {"issued", "idle", "pipeline", "scoreboard"};
constexpr int kFirstSmPid = 10;  // the recorder's SM processes: pid 10 + SM index

std::string read_text(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), {});
}

class Timeline : public ::testing::Test {
 protected:
  struct Run {
    int status = -1;
    std::string err;
  };

  Run run(const std::string& args) const {
    const std::string cmd = "timeout 300 '" + std::string(TLMGPU_CLI) + "' run " + args + " >'" +
                            (dir_.path() / "out.txt").string() + "' 2>'" + (dir_.path() / "err.txt").string() + "'";
    const int rc = std::system(cmd.c_str());
    Run r;
    r.status = WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
    r.err = read_text(dir_.path() / "err.txt");
    return r;
  }

  std::string path(const std::string& name) const { return (dir_.path() / name).string(); }
  json load(const std::string& name) const { return json::parse(read_text(dir_.path() / name)); }

  /// Runs `what` in timing mode with --stats s.json and --timeline t.json (plus `extra`).
  void run_with_timeline(const std::string& what, const std::string& extra = "") {
    const Run r = run(what + " --mode timing --stats '" + path("s.json") + "' --timeline '" + path("t.json") + "' " +
                      extra);
    ASSERT_EQ(r.status, 0) << r.err;
    stats_ = load("s.json");
    trace_ = load("t.json");
  }

  std::vector<json> events(const std::string& ph) const {
    std::vector<json> out;
    for (const json& e : trace_["traceEvents"])
      if (e["ph"] == ph) out.push_back(e);
    return out;
  }
  std::vector<json> spans(const std::string& category) const {
    std::vector<json> out;
    for (const json& e : events("X"))
      if (e["cat"] == category) out.push_back(e);
    return out;
  }
  /// The launch spans in time order.
  std::vector<json> launch_spans() const {
    std::vector<json> l = spans("launch");
    std::sort(l.begin(), l.end(), [](const json& a, const json& b) { return a["ts"] < b["ts"]; });
    return l;
  }

  /// (SM, scheduler) of every warp scheduler in the statistics.
  std::set<std::pair<int, int>> schedulers() const {
    std::set<std::pair<int, int>> out;
    for (const auto& [key, value] : stats_["modules"].items()) {
      int sm = 0, sched = 0;
      char rest[64];
      if (std::sscanf(key.c_str(), "gpu.sm%d.sched%d.%63s", &sm, &sched, rest) == 3 && std::string(rest) == "issued")
        out.insert({sm, sched});
    }
    return out;
  }

  ScratchDir dir_{"tlmgpu_timeline"};
  json stats_, trace_;
};

// Every scheduler's samples summed over the run are its statistics.
void expect_slot_sums_match(const json& trace, const json& stats, size_t expected_schedulers) {
  std::map<std::pair<int, std::string>, std::map<std::string, uint64_t>> sums;
  for (const json& e : trace["traceEvents"]) {
    if (e["ph"] != "C") continue;
    const std::string name = e["name"];
    if (name.find(" issue slots") == std::string::npos) continue;
    auto& s = sums[{e["pid"].get<int>() - kFirstSmPid, name.substr(0, name.find(' '))}];
    for (const std::string& c : kSlotClasses) s[c] += e["args"][c].get<uint64_t>();
  }
  ASSERT_EQ(sums.size(), expected_schedulers);
  for (const auto& [key, s] : sums) {
    const std::string prefix = "gpu.sm" + std::to_string(key.first) + "." + key.second + ".";
    uint64_t total = 0;
    for (const std::string& c : kSlotClasses) {
      EXPECT_EQ(s.at(c), stats["modules"][prefix + c].get<uint64_t>()) << prefix + c;
      total += s.at(c);
    }
    // Every scheduler accounts every cycle of every launch.
    EXPECT_EQ(total, stats["sim_cycles"].get<uint64_t>()) << prefix;
  }
}

TEST_F(Timeline, FileHasTheTraceEventStructure) {
  run_with_timeline("--workload vector_add --size small");
  ASSERT_TRUE(trace_.is_object());
  ASSERT_TRUE(trace_["traceEvents"].is_array());
  EXPECT_TRUE(trace_["displayTimeUnit"].is_string());
  EXPECT_EQ(trace_["otherData"]["interval_cycles"], 100);  // the default
  EXPECT_NE(trace_["otherData"]["time_unit"].get<std::string>().find("1 GPU core cycle"), std::string::npos);

  // One process per SM, the GPU's and DRAM's, each named and sorted.
  std::map<int, std::string> names;
  std::set<int> sorted;
  for (const json& e : events("M")) {
    ASSERT_TRUE(e.contains("pid") && e.contains("args")) << e;
    if (e["name"] == "process_name") names[e["pid"].get<int>()] = e["args"]["name"].get<std::string>();
    if (e["name"] == "process_sort_index") sorted.insert(e["pid"].get<int>());
  }
  std::set<int> sms;
  for (const auto& [sm, sched] : schedulers()) sms.insert(sm);
  ASSERT_FALSE(sms.empty());
  for (int sm : sms) EXPECT_EQ(names[kFirstSmPid + sm], "SM " + std::to_string(sm));
  EXPECT_EQ(names[1], "GPU");
  EXPECT_EQ(names[2], "DRAM");
  EXPECT_EQ(names.size(), sms.size() + 2);
  EXPECT_EQ(sorted.size(), names.size());

  for (const json& e : events("X"))
    for (const char* k : {"name", "cat", "ts", "dur", "pid", "tid", "args"}) EXPECT_TRUE(e.contains(k)) << k << e;
  // Every CTA span sits on a named thread of its SM's process.
  std::set<std::pair<int, int>> threads;
  for (const json& e : events("M"))
    if (e["name"] == "thread_name") threads.insert({e["pid"].get<int>(), e["tid"].get<int>()});
  for (const json& e : spans("cta")) EXPECT_TRUE(threads.count({e["pid"].get<int>(), e["tid"].get<int>()})) << e;

  // Counters: the four slot classes per scheduler, depth and max per DRAM channel.
  std::set<std::pair<int, std::string>> counters;
  for (const json& e : events("C")) {
    ASSERT_TRUE(e.contains("ts") && e.contains("pid") && e.contains("name")) << e;
    counters.insert({e["pid"].get<int>(), e["name"].get<std::string>()});
    if (e["pid"] == 2) {
      EXPECT_TRUE(e["args"].contains("depth") && e["args"].contains("max")) << e;
      EXPECT_GE(e["args"]["max"].get<uint64_t>(), e["args"]["depth"].get<uint64_t>()) << e;
    } else {
      for (const std::string& c : kSlotClasses) EXPECT_TRUE(e["args"].contains(c)) << c << e;
    }
  }
  for (const auto& [sm, sched] : schedulers())
    EXPECT_TRUE(counters.count({kFirstSmPid + sm, "sched" + std::to_string(sched) + " issue slots"})) << sm;
  size_t channels = 0;
  for (const auto& [key, value] : stats_["modules"].items())
    if (key.rfind("gpu.dram", 0) == 0 && key.find(".reads") != std::string::npos) ++channels;
  ASSERT_GT(channels, 0u);
  for (size_t c = 0; c < channels; ++c)
    EXPECT_TRUE(counters.count({2, "channel " + std::to_string(c) + " queue depth"})) << c;
}

TEST_F(Timeline, CtaSpansMatchTheStatistics) {
  run_with_timeline("--launch '" + std::string(TLMGPU_SOURCE_DIR) + "/tests/launch/bfs.json'");
  const std::vector<json> launches = launch_spans();
  const json& recorded = stats_["launches"];
  ASSERT_EQ(launches.size(), recorded.size());
  std::map<std::pair<uint64_t, uint64_t>, json> by_id;  // (launch, linear CTA id)
  for (const json& e : spans("cta")) by_id[{e["args"]["launch"].get<uint64_t>(), e["args"]["cta_linear"].get<uint64_t>()}] = e;
  size_t total = 0;
  for (size_t l = 0; l < recorded.size(); ++l) {
    const uint64_t t0 = launches[l]["ts"];
    EXPECT_EQ(launches[l]["args"]["launch"], l);
    EXPECT_EQ(launches[l]["name"], recorded[l]["kernel"]);
    const json& ctas = recorded[l]["ctas"];
    for (size_t i = 0; i < ctas.size(); ++i, ++total) {
      ASSERT_TRUE(by_id.count({l, i})) << "launch " << l << " cta " << i;
      const json& e = by_id[{l, i}];
      const uint64_t sm = ctas[i]["sm"], start = ctas[i]["start"], end = ctas[i]["end"];
      EXPECT_EQ(e["pid"], kFirstSmPid + sm);
      EXPECT_EQ(e["args"]["sm"], sm);
      EXPECT_EQ(e["ts"], t0 + start);
      EXPECT_EQ(e["dur"], end - start + 1);
      EXPECT_EQ(e["args"]["start_cycle"], start);
      EXPECT_EQ(e["args"]["end_cycle"], end);
      EXPECT_EQ(e["args"]["kernel"], recorded[l]["kernel"]);
      EXPECT_EQ(e["name"], recorded[l]["kernel"].get<std::string>() + " cta " + std::to_string(i));
      // Inside its launch.
      EXPECT_LE(e["ts"].get<uint64_t>() + e["dur"].get<uint64_t>(), t0 + launches[l]["dur"].get<uint64_t>());
    }
  }
  EXPECT_EQ(by_id.size(), total);
  // CTAs on one row of one SM never overlap (resident CTAs get rows of their own).
  std::map<std::pair<int, int>, std::vector<std::pair<uint64_t, uint64_t>>> rows;
  for (const json& e : spans("cta"))
    rows[{e["pid"].get<int>(), e["tid"].get<int>()}].push_back(
        {e["ts"].get<uint64_t>(), e["ts"].get<uint64_t>() + e["dur"].get<uint64_t>()});
  for (auto& [row, s] : rows) {
    std::sort(s.begin(), s.end());
    for (size_t i = 1; i < s.size(); ++i) EXPECT_LE(s[i - 1].second, s[i].first) << row.first << "/" << row.second;
  }
}

TEST_F(Timeline, LaunchSpansAddUpToTheRunsCycles) {
  for (const std::string& what : {std::string("--workload vector_add --size small"),
                                  "--launch '" + std::string(TLMGPU_SOURCE_DIR) + "/tests/launch/bfs.json'"}) {
    SCOPED_TRACE(what);
    run_with_timeline(what);
    const std::vector<json> launches = launch_spans();
    ASSERT_EQ(launches.size(), stats_["launches"].size());
    ASSERT_EQ(launches.size(), stats_["kernels_launched"].get<size_t>());
    uint64_t sum = 0, previous_end = 0;
    for (size_t l = 0; l < launches.size(); ++l) {
      const uint64_t ts = launches[l]["ts"], dur = launches[l]["dur"];
      EXPECT_EQ(dur, stats_["launches"][l]["cycles"].get<uint64_t>());
      EXPECT_EQ(launches[l]["args"]["start_cycle"], ts);
      EXPECT_GE(ts, previous_end);  // one after the other
      previous_end = ts + dur;
      sum += dur;
    }
    EXPECT_EQ(sum, stats_["sim_cycles"].get<uint64_t>());
  }
  EXPECT_GE(stats_["launches"].size(), 2u);
}

TEST_F(Timeline, SlotCountersSumToTheSchedulerStatistics) {
  run_with_timeline("--workload vector_add --size small", "--timeline-interval 64");
  expect_slot_sums_match(trace_, stats_, schedulers().size());
  run_with_timeline("--launch '" + std::string(TLMGPU_SOURCE_DIR) + "/tests/launch/bfs.json'",
                    "--timeline-interval 7 --scheduler gto");
  expect_slot_sums_match(trace_, stats_, schedulers().size());
}

TEST_F(Timeline, DramQueueDepthFollowsTheChannelsTraffic) {
  // Several launches whose requests queue at the DRAM: the inputs are not
  // left in the L2 by the host copies, so the first launch reads them there.
  run_with_timeline("--workload hotspot --size small", "--timeline-interval 10 --set l2.fill_on_host_copy=false");
  std::map<int, uint64_t> most;  // per channel, the deepest queue seen
  for (const json& e : events("C")) {
    if (e["pid"] != 2) continue;
    const std::string name = e["name"];
    int channel = -1;
    ASSERT_EQ(std::sscanf(name.c_str(), "channel %d", &channel), 1) << name;
    most[channel] = std::max(most[channel], e["args"]["max"].get<uint64_t>());
  }
  bool any_traffic = false;
  for (const auto& [channel, deepest] : most) {
    const std::string prefix = "gpu.dram" + std::to_string(channel) + ".";
    // The statistic averages the depth over the DRAM cycles anything was queued.
    const bool queued = stats_["modules"][prefix + "avg_queue_depth"].get<double>() > 0;
    any_traffic |= queued;
    EXPECT_EQ(deepest > 0, queued) << prefix;
  }
  EXPECT_TRUE(any_traffic);
}

TEST_F(Timeline, SamplesComeEveryInterval) {
  constexpr uint64_t kInterval = 37;
  run_with_timeline("--launch '" + std::string(TLMGPU_SOURCE_DIR) + "/tests/launch/bfs.json'",
                    "--timeline-interval " + std::to_string(kInterval));
  EXPECT_EQ(trace_["otherData"]["interval_cycles"], kInterval);
  std::map<std::pair<int, std::string>, std::vector<uint64_t>> times;
  for (const json& e : events("C")) times[{e["pid"].get<int>(), e["name"].get<std::string>()}].push_back(e["ts"].get<uint64_t>());
  ASSERT_FALSE(times.empty());
  const std::vector<json> launches = launch_spans();
  for (auto& [track, ts] : times) {
    std::sort(ts.begin(), ts.end());
    // Per launch: a sample at its start and every interval after, then the
    // end (a zero) unless the next launch starts there.
    std::vector<uint64_t> expected;
    for (size_t l = 0; l < launches.size(); ++l) {
      const uint64_t t0 = launches[l]["ts"], end = t0 + launches[l]["dur"].get<uint64_t>();
      for (uint64_t t = t0; t < end; t += kInterval) expected.push_back(t);
      if (l + 1 == launches.size() || launches[l + 1]["ts"].get<uint64_t>() > end) expected.push_back(end);
    }
    EXPECT_EQ(ts, expected) << track.second << " of " << track.first;
  }
}

TEST_F(Timeline, StatisticsAreTheSameWithAndWithoutTimeline) {
  const std::string bfs = "--launch '" + std::string(TLMGPU_SOURCE_DIR) + "/tests/launch/bfs.json' --mode timing";
  ASSERT_EQ(run(bfs + " --stats '" + path("plain.json") + "'").status, 0);
  ASSERT_EQ(run(bfs + " --stats '" + path("traced.json") + "' --timeline '" + path("t.json") + "' --timeline-interval 3")
                .status,
            0);
  json plain = load("plain.json"), traced = load("traced.json");
  for (json* j : {&plain, &traced})
    for (const char* host : {"host_seconds", "warp_insts_per_host_second"}) j->erase(host);
  EXPECT_EQ(plain, traced);
  EXPECT_EQ(read_text(path("plain.config.ini")), read_text(path("traced.config.ini")));
}

TEST_F(Timeline, SameRunSameFile) {
  const std::string what = "--workload vector_add --size small --mode timing --timeline-interval 50 --timeline ";
  ASSERT_EQ(run(what + "'" + path("a.json") + "'").status, 0);
  ASSERT_EQ(run(what + "'" + path("b.json") + "'").status, 0);
  const std::string a = read_text(path("a.json"));
  EXPECT_GT(a.size(), 1000u);
  EXPECT_EQ(a, read_text(path("b.json")));
}

TEST_F(Timeline, BadUseIsAnErrorNamingTheOption) {
  const std::string wl = "--workload vector_add --size small ";
  const struct {
    std::string args, message;
  } cases[] = {
      {wl + "--timeline '" + path("t.json") + "'", "--timeline applies to --mode timing only"},
      {wl + "--mode lt --timeline '" + path("t.json") + "'", "--timeline applies to --mode timing only"},
      {wl + "--mode timing --timeline '" + path("t.json") + "' --timeline-interval 0",
       "invalid value '0' for --timeline-interval"},
      {wl + "--mode timing --timeline '" + path("t.json") + "' --timeline-interval x",
       "invalid value 'x' for --timeline-interval"},
      {wl + "--mode timing --timeline-interval 10", "--timeline-interval applies to --timeline only"},
      {wl + "--mode timing --timeline '" + path("no/such/dir/t.json") + "'", "--timeline: cannot write"},
      {wl + "--mode timing --timeline '" + dir_.path().string() + "'", "--timeline: cannot write"},
  };
  for (const auto& c : cases) {
    const Run r = run(c.args);
    EXPECT_EQ(r.status, 2) << c.args << "\n" << r.err;
    EXPECT_NE(r.err.find(c.message), std::string::npos) << c.args << "\n" << r.err;
  }
  EXPECT_FALSE(std::filesystem::exists(path("t.json")));
}

// The Python with matplotlib the report scripts use (as experiment::python_with_matplotlib).
std::string python_with_matplotlib() {
  for (const char* candidate : {"/usr/bin/python3", "python3"})
    if (std::system((std::string(candidate) + " -c 'import matplotlib' >/dev/null 2>&1").c_str()) == 0) return candidate;
  return {};
}

TEST_F(Timeline, PlotScriptDrawsTheFile) {
  const std::string python = python_with_matplotlib();
  if (python.empty()) GTEST_SKIP() << "no Python 3 with matplotlib (Debian: python3-matplotlib)";
  run_with_timeline("--workload hotspot --size small", "--timeline-interval 50");
  const std::string script = std::string(TLMGPU_SOURCE_DIR) + "/scripts/report/timeline_plot.py";
  const auto plot = [&](const std::string& in, const std::string& out) {
    const std::string cmd = "timeout 120 " + python + " '" + script + "' '" + in + "' '" + out + "' 2>'" +
                            path("plot_err.txt") + "'";
    const int rc = std::system(cmd.c_str());
    return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
  };
  ASSERT_EQ(plot(path("t.json"), path("t.png")), 0) << read_text(path("plot_err.txt"));
  const std::string png = read_text(path("t.png"));
  ASSERT_GT(png.size(), 10000u);
  EXPECT_EQ(png.substr(1, 3), "PNG");
  // Not a timeline: the statistics file, and a missing file.
  EXPECT_EQ(plot(path("s.json"), path("bad.png")), 2);
  EXPECT_NE(read_text(path("plot_err.txt")).find("not a trace event file"), std::string::npos);
  EXPECT_EQ(plot(path("missing.json"), path("bad.png")), 2);
  EXPECT_FALSE(std::filesystem::exists(path("bad.png")));
}

}  // namespace
