// Reads a trace as a stream (rubato/core/io/trace_stream.hpp) and hands its
// segments and waits to an ExportSink, each task named by its code. The one
// table that grows with the trace is that of live tasks — created and not
// yet completed — whose creator (a steal's victim) and code a later segment
// needs; a task leaves it when it completes.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "export/export_sink.hpp"
#include "rubato/core/io/trace_stream.hpp"
#include "rubato/power/energy/power_model.hpp"

namespace rubato::cli {

struct ExportCounts {
  std::uint64_t records = 0;
  std::uint64_t tasks = 0;          // task records
  std::uint64_t segments = 0;       // segment records
  std::uint64_t steals = 0;         // segments that began with a steal
  std::uint64_t waits = 0;          // wait begin records
  std::uint64_t names = 0;          // distinct task names
  std::uint64_t unknown_tasks = 0;  // segments of tasks without a record (no name, no victim)
  std::uint64_t most_live_tasks = 0;
};

struct ExportDriverOptions {
  bool resolve_names = true;        // false: tasks named by address (no symbolizer)
  std::optional<PowerModel> power;  // modelled power per worker
};

// Streams every record of `stream` into `sink`. False + `error` when the trace
// turns out bad part-way or the sink cannot write.
bool export_stream(TraceStream& stream, const ExportDriverOptions& options, ExportSink& sink, ExportCounts& counts,
                   std::vector<std::string>& notes, std::string& error);

}  // namespace rubato::cli
