// OTF2 (the format of Score-P, read by Vampir and the OTF2 tools), through
// the OTF2 library: one location (CPU thread) per worker; a task segment is
// its task's region entered and left (one region per task name, role task);
// a wait is a region of its own (taskwait, taskgroup, barrier: role task wait
// or barrier); a steal is a ParameterUnsignedInt event "stolen from worker"
// carrying the victim, on the thief's location just inside the stolen
// segment's region (a thread-to-thread message needs its send on the victim's
// location at the creation time, which a stream has already written when it
// learns of the steal, and MPI message records would make Vampir count steals
// as MPI traffic); the tempo level, its frequency and, with a profile, the
// modelled power are metrics of each location. Timestamps are the trace's
// nanoseconds with the run's steady-clock origin as the global offset.
// Built only when CMake finds the OTF2 library (RUBATO_HAVE_OTF2).
#pragma once

#include <memory>
#include <string>

#include "export/export_sink.hpp"

namespace rubato::cli {

// Whether this build has the OTF2 exporter.
bool otf2_built() noexcept;

// Writes the archive `directory`/traces.otf2 (with traces.def and traces/).
// Without OTF2 at build time, begin() fails saying so.
std::unique_ptr<ExportSink> make_otf2_sink(const std::string& directory);

}  // namespace rubato::cli
