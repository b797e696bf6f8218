// `rubato run --export-traces otf2,perfetto`: every trial records its task
// trace (RUBATO_TRACE) into its own directory, and after the trial each trace
// is exported beside it (cli/export/). What could not be recorded or exported
// becomes one note in the trial's reports; it never fails the trial.
#pragma once

#include <string>
#include <vector>

#include "export/trace_export.hpp"

namespace rubato::cli {

struct TrialTraceExports {
  std::vector<ExportFormat> formats;  // empty: the trials record no trace
  std::string profile;                // modelled power in the exports ("" or "auto": none)
};

// What --export-traces accepts: "otf2 | perfetto" (otf2 only where the OTF2 library was built in).
std::string export_format_names();
// "otf2,perfetto": each format once. False and one line in `error` naming the
// value and what is accepted (otf2 where this rubato was built without OTF2).
bool parse_export_formats(const std::string& list, std::vector<ExportFormat>& formats, std::string& error);

// The RUBATO_TRACE pattern of a run: <run dir>/tasks.r%r.trace (launched
// through MPI / Slurm: tasks.r%r.%h.trace); exported as tasks.r0.trace.json and
// the archive tasks.r0.trace.otf2/traces.otf2.
std::string trace_pattern(const std::string& run_dir, bool launched = false);

// Exports every trace the trial left in `run_dir` (*.trace) in each format;
// returns the notes for the trial's reports (a trial that recorded no trace,
// an export that failed), one line each.
std::vector<std::string> export_trial_traces(const std::string& run_dir, const TrialTraceExports& exports);

}  // namespace rubato::cli
