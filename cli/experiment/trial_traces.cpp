#include "experiment/trial_traces.hpp"

#include <algorithm>
#include <filesystem>

#include "commands/args.hpp"
#include "export/otf2_sink.hpp"

namespace rubato::cli {
namespace {

namespace fs = std::filesystem;

constexpr const char* kTraceExtension = ".trace";

// The traces a trial wrote (one per rank), in name order.
std::vector<fs::path> trial_traces(const fs::path& dir) {
  std::vector<fs::path> traces;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec))
    if (e.is_regular_file(ec) && e.path().extension() == kTraceExtension) traces.push_back(e.path());
  std::sort(traces.begin(), traces.end());
  return traces;
}

}  // namespace

std::string export_format_names() { return otf2_built() ? "otf2 | perfetto" : "perfetto"; }

bool parse_export_formats(const std::string& list, std::vector<ExportFormat>& formats, std::string& error) {
  formats.clear();
  for (const std::string& name : split(list, ',')) {
    ExportFormat f{};
    if (!parse_export_format(name, f)) {
      error = "--export-traces '" + list + "': '" + name +
              "' is not an export format; accepted: " + export_format_names() + " (comma-separated)";
      return false;
    }
    if (f == ExportFormat::otf2 && !otf2_built()) {
      error = "--export-traces '" + list + "': this rubato was built without the OTF2 library (" +
              "scripts/setup.sh installs it); accepted here: " + export_format_names();
      return false;
    }
    if (std::find(formats.begin(), formats.end(), f) == formats.end()) formats.push_back(f);
  }
  if (formats.empty()) {
    error = "--export-traces '" + list + "': no format given; accepted: " + export_format_names();
    return false;
  }
  return true;
}

std::string trace_pattern(const std::string& run_dir, bool launched) {
  return (fs::path(run_dir) / (launched ? "tasks.r%r.%h" : "tasks.r%r")).string() + kTraceExtension;
}

std::vector<std::string> export_trial_traces(const std::string& run_dir, const TrialTraceExports& exports) {
  std::vector<std::string> notes;
  if (exports.formats.empty()) return notes;
  const std::vector<fs::path> traces = trial_traces(run_dir);
  if (traces.empty()) {
    notes.push_back(
        "--export-traces: the trial recorded no task trace (only OpenMP programs under the rubato tool record "
        "one; the oneTBB front-ends write none): nothing exported");
    return notes;
  }
  for (const fs::path& trace : traces)
    for (ExportFormat format : exports.formats) {
      TraceExportOptions options;
      options.format = format;
      if (exports.profile != "auto") options.profile = exports.profile;
      TraceExportResult result;
      std::string error;
      if (!export_trace(trace.string(), options, result, error))
        notes.push_back("--export-traces " + std::string(export_format_name(format)) + ": " + error + "; not exported");
      for (const std::string& note : result.notes) notes.push_back("--export-traces: " + note);
    }
  return notes;
}

}  // namespace rubato::cli
