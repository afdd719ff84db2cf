// The five seed papers' experiments: which runs each needs, and how their
// statistics become CSV rows beside the paper's headline numbers. Where each
// headline number comes from is listed in docs/SCHEDULERS.md ("Comparing with
// the papers") and in every row's paper_source column.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "tools/paper_comparison/paper_comparison.h"

namespace paper_cmp {

struct CompareInput {
  std::string size;
  std::string preset;                  // Paper::preset_for(size)
  std::vector<std::string> workloads;  // the paper's workloads after --workloads
  const std::map<std::string, RunResult>* results;
};

struct Paper {
  std::string name;    // --paper value and CSV file stem
  std::string title;   // for the summary
  std::string preset;  // --size small / default
  // --size paper: the paper's own configuration table (docs/SCHEDULERS.md).
  std::string paper_preset;
  // --size small / default: workloads that exercise the paper's mechanism
  // at sizes that run in seconds to minutes.
  std::vector<std::string> workloads;
  // --size paper: the benchmarks the paper's own tables name, at the sizes
  // they state.
  std::vector<std::string> paper_workloads;
  std::vector<RunSpec> (*plan)(const std::vector<std::string>& workloads, const std::string& preset);
  std::vector<Row> (*compare)(const CompareInput& in);

  const std::string& preset_for(const std::string& size) const { return size == "paper" ? paper_preset : preset; }
  const std::vector<std::string>& workloads_for(const std::string& size) const {
    return size == "paper" ? paper_workloads : workloads;
  }
};

const std::vector<Paper>& papers();

}  // namespace paper_cmp
