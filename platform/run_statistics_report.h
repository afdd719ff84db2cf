// What `tlmgpu run` reports about a run: its statistics built once, as an
// ordered list of named values, and rendered twice, as the --stats JSON
// object and as the two-column summary printed after the run. A value added
// here appears in both unless its entry says otherwise.
#pragma once

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "platform/cli_support.h"
#include "platform/gpu_device.h"
#include "platform/launch_file.h"

namespace tlmgpu::platform {

class RunStatistics {
 public:
  using json = nlohmann::ordered_json;

  /// One statistic: a JSON key and value, and the table rows it shows as.
  /// By default one row named like the key: integers in full, other numbers
  /// with a few significant digits (cli::format_number), strings as they
  /// are, true/false as yes/no; arrays and objects have no row.
  class Entry {
   public:
    /// The row's name differs from the JSON key.
    Entry& labelled(std::string label);
    /// The row's text differs from the value's.
    Entry& shown_as(std::string text);
    /// These rows (any number) instead of the default one.
    Entry& shown_as_rows(cli::Rows rows);
    /// In the JSON only.
    Entry& json_only();

   private:
    friend class RunStatistics;
    std::string key_;
    std::optional<json> value_;  ///< none: a table row only
    std::optional<cli::Rows> rows_;  ///< none: the default row
  };

  /// Adds a statistic; the reference stays valid until the next add.
  Entry& add(const std::string& key, json value);
  /// A row derived from values the JSON already holds in another form
  /// (e.g. the last launch's CTA time, which the JSON has under "launches").
  void add_row(const std::string& label, const std::string& text);

  /// The JSON object, keys in the order added (a key added again keeps its
  /// first place and takes the new value).
  json to_json() const;
  /// The table's rows, in the order added.
  cli::Rows table_rows() const;

 private:
  static cli::Rows default_rows(const std::string& key, const json& value);
  std::vector<Entry> entries_;
};

/// Several runs as one table: a column per row of the first run's table
/// (its name the header), a line per run. The first `text_columns` columns
/// are left-aligned, the rest (numbers) right-aligned.
void print_statistics_columns(std::ostream& out, const std::vector<RunStatistics>& runs, size_t text_columns);

/// The device's totals and the host time: kernels_launched, ctas,
/// warp_insts, thread_insts, host_seconds, warp_insts_per_host_second.
void add_device_counters(RunStatistics& stats, const DeviceStats& counters, double host_seconds);

/// Timing mode: the cycle count, IPC, every module's statistics and each
/// launch of the process-wide GPU (occupancy, CTAs per SM).
void add_timing_statistics(RunStatistics& stats, const core::GpuConfig& config, const DeviceStats& counters);

/// What each statistic of a timing run counts, one line per statistic with
/// the indices of its module's and its own name as N (gpu.smN.l1d.hits):
/// the run totals, then every module statistic the process-wide GPU reports.
/// Throws std::logic_error naming a statistic reported without a description.
void print_statistics_descriptions(std::ostream& out);

/// LT mode: the cost model's estimate where timing mode has its cycle count,
/// marked as estimated, with each launch's counts and bounds.
void add_lt_statistics(RunStatistics& stats, const core::GpuConfig& config, const GpuDevice& device);

/// A launch file's run: kernels, repeat groups, dumped files, expectations
/// and the verdict's detail (its table row reads "verified yes (detail)").
void add_launch_file_result(RunStatistics& stats, const LaunchFileResult& result);

/// Except in functional mode: the effective configuration beside the
/// statistics (stats.json -> stats.config.ini), so that a result can be
/// reproduced, and what the warp scheduler policies write beside them
/// (WarpSchedulerPolicy::write_extra_outputs). Throws std::runtime_error when
/// the configuration cannot be written.
void write_files_beside_statistics(const std::string& stats_file, const DeviceOptions& device);

/// `stats_file` without ".json", plus `suffix`.
std::string beside_statistics(const std::string& stats_file, const std::string& suffix);

}  // namespace tlmgpu::platform
