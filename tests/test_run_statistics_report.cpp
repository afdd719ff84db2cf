// A run's statistics, built once and rendered as --stats JSON and as the
// summary table: what shows where, and the report pieces `tlmgpu run` adds.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

#include "platform/config_keys.h"
#include "platform/run_statistics_report.h"
#include "scratch_dir.h"

namespace {

namespace pf = tlmgpu::platform;
namespace cli = tlmgpu::platform::cli;
using json = pf::RunStatistics::json;

TEST(RunStatisticsReport, AValueShowsInTheJsonAndAsARowByDefault) {
  pf::RunStatistics s;
  s.add("workload", "sgemm");
  s.add("seed", uint64_t(7));
  s.add("offset", int64_t(-3));
  s.add("ipc", 245.1234567);
  s.add("big", 1.5e7);
  s.add("ok", true);
  s.add("launches", json::array({1, 2}));  // structures: JSON only
  EXPECT_EQ(s.to_json().dump(),
            R"({"workload":"sgemm","seed":7,"offset":-3,"ipc":245.1234567,"big":15000000.0,"ok":true,"launches":[1,2]})");
  EXPECT_EQ(s.table_rows(), (cli::Rows{{"workload", "sgemm"},
                                       {"seed", "7"},
                                       {"offset", "-3"},
                                       {"ipc", "245.1"},
                                       {"big", "1.500e+07"},
                                       {"ok", "yes"}}));
}

TEST(RunStatisticsReport, EntriesChooseTheirRows) {
  pf::RunStatistics s;
  s.add("watchdog_instructions", uint64_t(100)).json_only();
  s.add("detail", "3 values").labelled("verified").shown_as("yes (3 values)");
  s.add("warp_insts_per_host_second", 2.0).labelled("warp_insts/host_s");
  s.add("sim_cycles", uint64_t(40)).shown_as("40 (estimated)");
  s.add("trace", "t.trace").shown_as("t.trace (2 warps)").labelled("input");
  s.add("dumped", json::array({"a.bin", "b.bin"})).shown_as_rows({{"dumped", "a.bin"}, {"dumped", "b.bin"}});
  s.add_row("last_cta_execution_time", "-");
  s.add("sim_cycles", uint64_t(41));  // a key added again keeps its place in the JSON
  EXPECT_EQ(s.to_json().dump(),
            R"({"watchdog_instructions":100,"detail":"3 values","warp_insts_per_host_second":2.0,"sim_cycles":41,)"
            R"("trace":"t.trace","dumped":["a.bin","b.bin"]})");
  EXPECT_EQ(s.table_rows(), (cli::Rows{{"verified", "yes (3 values)"},
                                       {"warp_insts/host_s", "2"},
                                       {"sim_cycles", "40 (estimated)"},
                                       {"input", "t.trace (2 warps)"},
                                       {"dumped", "a.bin"},
                                       {"dumped", "b.bin"},
                                       {"last_cta_execution_time", "-"},
                                       {"sim_cycles", "41"}}));
}

TEST(RunStatisticsReport, SeveralRunsPrintAsColumnsUnderTheFirstRunsLabels) {
  std::vector<pf::RunStatistics> runs(2);
  runs[0].add("workload", "bfs");
  runs[0].add("kernels_launched", uint64_t(14)).labelled("kernels");
  runs[0].add("detail", "ok").json_only();
  runs[0].add_row("IPC", "-");
  runs[1].add("workload", "nn");
  runs[1].add("kernels_launched", uint64_t(2)).labelled("kernels");
  runs[1].add("detail", "ok").json_only();
  runs[1].add_row("IPC", "12.5");
  std::ostringstream out;
  pf::print_statistics_columns(out, runs, 1);
  EXPECT_EQ(out.str(),
            "workload  kernels   IPC\n"
            "bfs            14     -\n"
            "nn              2  12.5\n");
}

TEST(RunStatisticsReport, DeviceCountersAndHostRate) {
  pf::DeviceStats c;
  c.kernels_launched = 2;
  c.ctas = 20;
  c.warp_insts = 43080;
  c.thread_insts = 1323760;
  pf::RunStatistics s;
  pf::add_device_counters(s, c, 0.5);
  EXPECT_EQ(s.to_json().dump(), R"({"kernels_launched":2,"ctas":20,"warp_insts":43080,"thread_insts":1323760,)"
                                R"("host_seconds":0.5,"warp_insts_per_host_second":86160.0})");
  EXPECT_EQ(s.table_rows(), (cli::Rows{{"kernels_launched", "2"},
                                       {"ctas", "20"},
                                       {"warp_insts", "43080"},
                                       {"thread_insts", "1323760"},
                                       {"host_seconds", "0.5"},
                                       {"warp_insts/host_s", "8.616e+04"}}));
  pf::RunStatistics idle;
  pf::add_device_counters(idle, c, 0);
  EXPECT_EQ(idle.to_json()["warp_insts_per_host_second"].get<double>(), 0.0);
}

TEST(RunStatisticsReport, LaunchFileResultRowsPerKernelRepeatAndDump) {
  pf::LaunchFileResult r;
  r.expectations = 2;
  r.detail = "2 expectations hold (8 elements)";
  r.kernels = {{"saxpy", 1, 30, 900}, {"countdown", 5, 10, 160}};
  r.repeats = {{"launches[1]", 1}, {"repeat", 3}};
  r.dumped = {"/tmp/y.bin"};
  pf::RunStatistics s;
  pf::add_launch_file_result(s, r);
  EXPECT_EQ(s.table_rows(), (cli::Rows{{"kernel saxpy", "1 launch, 30 warp insts"},
                                       {"kernel countdown", "5 launches, 10 warp insts"},
                                       {"repeat launches[1]", "1 iteration"},
                                       {"repeat repeat", "3 iterations"},
                                       {"dumped", "/tmp/y.bin"},
                                       {"verified", "yes (2 expectations hold (8 elements))"}}));
  const json j = s.to_json();
  EXPECT_EQ(j["kernels"][1].dump(), R"({"kernel":"countdown","launches":5,"warp_insts":10,"thread_insts":160,"faulted":0})");
  EXPECT_EQ(j["repeats"][1].dump(), R"({"path":"repeat","iterations":3})");
  EXPECT_EQ(j["expectations"], 2);
  EXPECT_EQ(j["expected_faults"], 0);
  EXPECT_EQ(j["detail"], r.detail);
  r.verified = false;
  pf::RunStatistics failed;
  pf::add_launch_file_result(failed, r);
  EXPECT_EQ(failed.table_rows().back().second, "no (2 expectations hold (8 elements))");
}

TEST(RunStatisticsReport, ConfigurationGoesBesideTheStatisticsOutsideFunctionalMode) {
  EXPECT_EQ(pf::beside_statistics("out/run.json", ".config.ini"), "out/run.config.ini");
  EXPECT_EQ(pf::beside_statistics("run.stats", ".config.ini"), "run.stats.config.ini");
  ScratchDir dir("tlmgpu_stats_report");
  const std::string stats = (dir.path() / "run.json").string();
  pf::DeviceOptions options;
  options.config = pf::resolve_config("gtx480", {}, {"sm.num_schedulers=4"});
  pf::write_files_beside_statistics(stats, options);  // functional: nothing
  EXPECT_FALSE(std::filesystem::exists(dir.path() / "run.config.ini"));
  options.mode = pf::SimulationMode::Lt;
  pf::write_files_beside_statistics(stats, options);
  std::ifstream in(dir.path() / "run.config.ini");
  const std::string text((std::istreambuf_iterator<char>(in)), {});
  EXPECT_EQ(text, pf::dump_config(options.config));
  EXPECT_NE(text.find("num_schedulers = 4"), std::string::npos);
  options.mode = pf::SimulationMode::Timing;
  EXPECT_THROW(pf::write_files_beside_statistics((dir.path() / "none/run.json").string(), options),
               std::runtime_error);
}

}  // namespace
