// Reads what experiments left behind: every report under the given
// directories (or files), joined with the run indexes `rubato run` wrote, into
// one record per process run. Unreadable reports and runs that wrote no report
// become failed records (kept and listed, never averaged).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "rubato/core/io/report.hpp"

namespace rubato::cli {

struct RunRecord {
  std::string file;              // the report (or the index, for a run without a report)
  std::optional<Report> report;  // absent when unreadable or never written
  std::string error;             // why it failed: "file: offset 12: ...", "no report written", ...
  bool unreadable = false;       // the file is there but damaged (compare then exits non-zero)
  // Identity: from the report, or from the index entry when the report is missing.
  std::string workload;
  std::string policy;
  int workers = 0;
  std::string series;              // the index it belongs to ("" when none): trials are numbered per series
  std::optional<int> series_skip;  // the index's --skip: how many first trials its run meant to drop
  std::optional<int> trial;
  std::optional<int> rank;
  std::string host;
  std::string started_at;
  int exit_status = 0;

  bool identified() const { return !policy.empty(); }
  bool ok() const { return report.has_value() && exit_status == 0 && error.empty(); }
};

// `paths`: directories (searched recursively for *.json) or files. Throws
// std::runtime_error when a path does not exist or nothing was found.
std::vector<RunRecord> load_run_records(const std::vector<std::string>& paths);

// What `workload` a report belongs to when rubato run did not label it.
std::string workload_of(const Report& r);
int workers_of(const Report& r);

}  // namespace rubato::cli
