// `rubato trace export TRACE --format otf2|perfetto [-o PATH]`: a RUBATO_TRACE
// recording in the field's own viewers (cli/export/, docs/trace-format.md
// "Exporting"): Vampir and the OTF2 tools, Perfetto UI and chrome://tracing.
#include <cstdio>
#include <string>

#include "commands/args.hpp"
#include "commands/commands.hpp"
#include "export/trace_export.hpp"

namespace rubato::cli {

const CommandSpec& trace_spec() {
  static const CommandSpec spec{
      "trace",
      "export a RUBATO_TRACE recording to OTF2 (Vampir) or Trace Event JSON (Perfetto)",
      "export TRACE",
      "",
      {
          {"format", kOutputFormat, "what to write", "F", "", "otf2 | perfetto (required)"},
          {"out", kWhereResultsGo, "the output: a JSON file, or the OTF2 archive's directory", "PATH",
           "TRACE.json | TRACE.otf2", "a path", false, 'o'},
          {"profile", kHowToMeasure, "add each worker's modelled power (modeled:<profile>)", "NAME", "no power track",
           "a name from power/profiles or a JSON file"},
          {"no-names", kOutputFormat, "name tasks by address (no symbol lookup)", "", "", ""},
          {"quiet", kOutputFormat, "no summary on standard output", "", "", ""},
      },
      "Tasks are named by the function (file:line with debug information) whose task construct created them,\n"
      "resolved from the trace's module table (version 2 traces; version 1 tasks are named \"task\").\n"
      "Open TRACE.json in https://ui.perfetto.dev or chrome://tracing, TRACE.otf2/traces.otf2 in Vampir.",
  };
  return spec;
}

namespace {

struct TraceCommandOptions {
  std::string trace;
  TraceExportOptions exporter;
  bool quiet = false;
};

TraceCommandOptions setup(const std::vector<std::string>& argv) {
  Args a(argv, trace_spec());
  const auto& pos = a.positionals();
  if (pos.empty() || pos[0] != "export")
    throw UsageError("the only trace subcommand is 'export': rubato trace export TRACE --format otf2|perfetto");
  if (pos.size() != 2) throw UsageError("give one trace file: rubato trace export TRACE --format otf2|perfetto");
  TraceCommandOptions o;
  o.trace = pos[1];
  const auto format = a.value("format");
  if (!format) throw UsageError("give --format otf2 or --format perfetto");
  if (!parse_export_format(*format, o.exporter.format))
    throw UsageError("--format '" + *format + "': expected otf2 or perfetto");
  o.exporter.out = a.value_or("out", "");
  o.exporter.profile = a.value_or("profile", "");
  o.exporter.resolve_names = !a.flag("no-names");
  o.quiet = a.flag("quiet");
  return o;
}

}  // namespace

int run_trace(const std::vector<std::string>& argv) {
  const TraceCommandOptions o = setup(argv);
  TraceExportResult r;
  std::string error;
  if (!export_trace(o.trace, o.exporter, r, error)) {
    std::fprintf(stderr, "rubato trace export: %s\n", error.c_str());
    return 1;
  }
  for (const std::string& note : r.notes) std::fprintf(stderr, "rubato trace export: note: %s\n", note.c_str());
  if (o.quiet) return 0;
  const ExportCounts& c = r.counts;
  std::printf("%s\n", r.out.c_str());
  std::printf(
      "%llu records (%llu tasks, %llu segments, %llu steals, %llu waits), %llu task names, in %.3f s (%.0f "
      "records/s)\n",
      static_cast<unsigned long long>(c.records), static_cast<unsigned long long>(c.tasks),
      static_cast<unsigned long long>(c.segments), static_cast<unsigned long long>(c.steals),
      static_cast<unsigned long long>(c.waits), static_cast<unsigned long long>(c.names), r.seconds,
      r.seconds > 0 ? static_cast<double>(c.records) / r.seconds : 0.0);
  return 0;
}

}  // namespace rubato::cli
