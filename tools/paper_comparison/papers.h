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
  std::vector<std::string> workloads;  // the paper's workloads after --workloads
  const std::map<std::string, RunResult>* results;
};

struct Paper {
  std::string name;    // --paper value and CSV file stem
  std::string title;   // for the summary
  std::string preset;
  std::vector<std::string> workloads;  // default workload list
  std::vector<RunSpec> (*plan)(const std::vector<std::string>& workloads);
  std::vector<Row> (*compare)(const CompareInput& in);
};

const std::vector<Paper>& papers();

}  // namespace paper_cmp
