// Golden statistics: every run of tests/golden/runs.txt (timing mode, --size
// small) must give exactly the statistics committed beside it, so that any
// change to a simulated number is seen. scripts/update_golden.sh rewrites
// them; a commit that does must say why. One test per run, named
// Golden.<run name with '.' as '_'>, and the same runs again with the SMs
// evaluated on two and on four host threads (GoldenThreads2.*,
// GoldenThreads4.*), which must give the same statistics to the bit.
#include <gtest/gtest.h>

#include <sys/wait.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <set>
#include <stdexcept>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "scratch_dir.h"

namespace {

using Json = nlohmann::json;
const std::string kGoldenDir = std::string(TLMGPU_SOURCE_DIR) + "/tests/golden";

struct GoldenRun {
  std::string name, args;
};

std::vector<GoldenRun> golden_runs() {
  std::vector<GoldenRun> runs;
  std::ifstream in(kGoldenDir + "/runs.txt");
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '#') continue;
    const std::size_t space = line.find(' ');
    runs.push_back({line.substr(0, space), space == std::string::npos ? "" : line.substr(space + 1)});
  }
  return runs;
}

Json read_json(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot read " + path);
  return Json::parse(in);
}

// What the host did, not what the model simulated (scripts/update_golden.sh
// leaves the same out).
void drop_host_numbers(Json& stats) {
  stats.erase("host_seconds");
  stats.erase("warp_insts_per_host_second");
  if (!stats.contains("modules")) return;
  Json& modules = stats["modules"];
  std::vector<std::string> host;
  for (auto it = modules.begin(); it != modules.end(); ++it) {
    const std::string& k = it.key();
    const std::string suffix = "evaluated_cycles";
    if (k.size() >= suffix.size() && k.compare(k.size() - suffix.size(), suffix.size(), suffix) == 0)
      host.push_back(k);
  }
  for (const std::string& k : host) modules.erase(k);
}

void flatten(const Json& j, const std::string& path, std::map<std::string, std::string>& out) {
  if (j.is_object()) {
    for (auto it = j.begin(); it != j.end(); ++it) flatten(*it, path.empty() ? it.key() : path + "." + it.key(), out);
  } else if (j.is_array()) {
    for (std::size_t i = 0; i < j.size(); ++i) flatten(j[i], path + "[" + std::to_string(i) + "]", out);
  } else {
    out[path] = j.dump();
  }
}

// The first differences, key by key, for the failure message.
std::string differences(const Json& expected, const Json& actual) {
  std::map<std::string, std::string> e, a;
  flatten(expected, "", e);
  flatten(actual, "", a);
  std::ostringstream out;
  int shown = 0, total = 0;
  auto note = [&](const std::string& key, const std::string& want, const std::string& got) {
    if (++total <= 12) out << "  " << key << ": golden " << want << ", now " << got << '\n';
  };
  for (const auto& [key, value] : e) {
    auto it = a.find(key);
    if (it == a.end())
      note(key, value, "(absent)");
    else if (it->second != value)
      note(key, value, it->second);
  }
  for (const auto& [key, value] : a)
    if (!e.count(key)) note(key, "(absent)", value);
  shown = std::min(total, 12);
  out << total << " difference(s)" << (total > shown ? ", the first " + std::to_string(shown) + " above" : "");
  return out.str();
}

class GoldenTest : public ::testing::Test {
 public:
  GoldenTest(GoldenRun run, unsigned threads) : run_(std::move(run)), threads_(threads) {}
  void TestBody() override {
    ScratchDir dir("tlmgpu_golden");
    const std::string stats = (dir.path() / "stats.json").string(), log = (dir.path() / "log.txt").string();
    const std::string args = run_.args + (threads_ > 1 ? " --threads " + std::to_string(threads_) : "");
    const std::string cmd = "SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1 timeout 600 '" + std::string(TLMGPU_CLI) +
                            "' run --mode timing --size small " + args + " --stats '" + stats + "' >'" + log +
                            "' 2>&1";
    const int rc = std::system(cmd.c_str());
    ASSERT_TRUE(WIFEXITED(rc) && WEXITSTATUS(rc) == 0) << cmd;
    Json actual = read_json(stats);
    drop_host_numbers(actual);
    const Json expected = read_json(kGoldenDir + "/" + run_.name + ".json");
    EXPECT_TRUE(actual == expected) << "tlmgpu run --mode timing --size small " << args
                                    << " no longer gives tests/golden/" << run_.name << ".json:\n"
                                    << differences(expected, actual)
                                    << (threads_ > 1 ? "\nOne host thread gives the golden statistics: what "
                                                       "differs depends on the SMs' evaluation order."
                                                     : "\nIf the change is intended, run scripts/update_golden.sh " +
                                                           run_.name + " and say why in the commit message.");
  }

 private:
  GoldenRun run_;
  unsigned threads_;
};

// Registered before main() runs, so that gtest_discover_tests lists them.
const bool kRegistered = [] {
  for (const GoldenRun& run : golden_runs()) {
    std::string test_name = run.name;
    for (char& c : test_name)
      if (c == '.' || c == '-') c = '_';
    for (const auto& [suite, threads] : {std::pair<const char*, unsigned>{"Golden", 1},
                                         {"GoldenThreads2", 2}, {"GoldenThreads4", 4}}) {
      const unsigned n = threads;
      ::testing::RegisterTest(suite, test_name.c_str(), nullptr, nullptr, __FILE__, __LINE__,
                              [run, n]() -> ::testing::Test* { return new GoldenTest(run, n); });
    }
  }
  return true;
}();

TEST(GoldenRuns, EveryRunHasItsStatisticsAndEveryFileItsRun) {
  const std::vector<GoldenRun> runs = golden_runs();
  EXPECT_GE(runs.size(), 40u);
  std::set<std::string> names;
  for (const GoldenRun& r : runs) {
    EXPECT_TRUE(names.insert(r.name).second) << "run " << r.name << " listed twice";
    std::ifstream f(kGoldenDir + "/" + r.name + ".json");
    EXPECT_TRUE(f.good()) << "no tests/golden/" << r.name << ".json (run scripts/update_golden.sh " << r.name << ")";
  }
  for (const auto& entry : std::filesystem::directory_iterator(kGoldenDir)) {
    if (entry.path().extension() != ".json") continue;
    EXPECT_TRUE(names.count(entry.path().stem().string())) << entry.path() << " belongs to no run of runs.txt";
  }
}

}  // namespace
