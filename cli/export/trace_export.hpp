// `rubato trace export`: a RUBATO_TRACE file as an OTF2 archive or a Trace
// Event JSON file (Perfetto), written under a temporary name and renamed into
// place at the end, so that a bad or truncated trace leaves no output behind.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "export/export_driver.hpp"

namespace rubato::cli {

enum class ExportFormat { otf2, perfetto };

struct TraceExportOptions {
  ExportFormat format = ExportFormat::perfetto;
  std::string out;      // empty: default_export_path
  std::string profile;  // machine profile for modelled power; empty: no power track
  bool resolve_names = true;
};

struct TraceExportResult {
  std::string out;  // the JSON file, or the OTF2 archive's directory (open out/traces.otf2)
  ExportCounts counts;
  std::vector<std::string> notes;
  double seconds = 0;
};

// "perfetto" / "otf2"; throws nothing: false for anything else.
bool parse_export_format(const std::string& text, ExportFormat& format);
const char* export_format_name(ExportFormat format);
// TRACE.json, or the directory TRACE.otf2 (holding traces.otf2).
std::string default_export_path(const std::string& trace, ExportFormat format);

// False + one line in `error` (nothing written) when the trace cannot be
// read whole, the profile is unknown or the output cannot be written.
bool export_trace(const std::string& trace, const TraceExportOptions& options, TraceExportResult& result,
                  std::string& error);

}  // namespace rubato::cli
