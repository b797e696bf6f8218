// The report page's links to the task traces `rubato run --export-traces`
// exported: one line per trial, each link relative to the page, and how to
// open them.
#pragma once

#include <string>
#include <vector>

namespace rubato::cli {

struct TraceExportLink {
  std::string format;  // "OTF2" or "Perfetto"
  std::string text;    // the file, relative to its trial's directory
  std::string href;    // relative to the page, URL-escaped
};

struct TrialTraceLinks {
  std::string trial;  // the trial's directory, relative to the results directory ("w2/hermes/trial-00")
  std::vector<TraceExportLink> links;
};

// The trials of the run indexes under `inputs` (directories searched
// recursively) that left exported traces, in index order; links relative to `page_dir`.
std::vector<TrialTraceLinks> find_trace_exports(const std::vector<std::string>& inputs, const std::string& page_dir);

// The page's "Task traces" section; "" when no trial left one.
std::string trace_links_html(const std::vector<TrialTraceLinks>& trials);

}  // namespace rubato::cli
