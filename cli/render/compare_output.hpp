// How `rubato compare` shows a Comparison: a text table per workload x
// workers for people, CSV (one row per policy) and JSON for scripts.
#pragma once

#include <string>
#include <vector>

#include "analysis/comparison.hpp"

namespace rubato::cli {

// "1.234 ± 0.012": the mean to two significant digits of its interval
// ("1.234" alone when the interval is unknown, "—" when the value is).
std::string format_mean_ci(double mean, double ci95);
// A workload as people call it: the program's file name and its arguments.
std::string display_workload(const std::string& workload);
// "1 worker", "2 workers".
std::string workers_text(int workers);

// What every view of a comparison says first: counts, method, backend,
// profile and energy source (and that an emulated run is a model).
std::vector<std::string> comparison_header(const Comparison& c);

// One workload x workers block as cells, shared by the text and HTML views.
struct WorkloadTable {
  std::string title;
  std::vector<std::string> header;
  std::vector<bool> numeric;  // right-aligned columns
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> notes;  // normalisation caveats, external figures
};
WorkloadTable workload_table(const Comparison& c, const WorkloadResult& w);
std::string failed_run_line(const FailedRun& f);

std::string comparison_text(const Comparison& c);
std::string comparison_csv(const Comparison& c);
std::string comparison_json(const Comparison& c);

}  // namespace rubato::cli
