// RUBATO_TRACE under the preload: unmodified oneTBB programs leave a task
// trace (docs/trace-format.md, front-end tbb-preload) whose tasks and steals
// are the program's own count and the report's, in which every task completes
// once, and which `rubato simulate --trace` replays.
#include <catch2/catch.hpp>

#ifdef RUBATO_TBB_PRELOAD_LIBRARY

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "preload_support.hpp"
#include "rubato/core/io/trace.hpp"
#include "temp_dir.hpp"

namespace {

namespace test = rubato::test;
using test::preload::preload_env;
using test::preload::read_report;
using test::preload::read_truth;
using test::preload::run;

struct TraceCounts {
  std::uint64_t tasks = 0;
  std::uint64_t steals = 0;      // segments that began with a steal
  std::uint64_t unfinished = 0;  // segments still open at the end
  std::uint64_t not_completed_once = 0;
  std::uint64_t named = 0;  // tasks with a code address
  std::uint64_t waits = 0;
};

TraceCounts count(const rubato::Trace& trace) {
  TraceCounts c;
  for (const rubato::TraceTask& t : trace.tasks) {
    ++c.tasks;
    if (t.code != 0) ++c.named;
    c.waits += t.waits.size();
    int completed = 0;
    for (const rubato::TraceSegment& s : t.segments) {
      if (s.start == rubato::SegmentStart::steal) ++c.steals;
      if (s.end == rubato::SegmentEnd::completed) ++completed;
      if (s.end == rubato::SegmentEnd::unfinished) ++c.unfinished;
    }
    if (completed != 1) ++c.not_completed_once;
  }
  return c;
}

rubato::Trace read_trace_file(const std::string& path) {
  std::string error;
  auto trace = rubato::read_trace(path, error);
  INFO(error);
  REQUIRE(trace);
  return *trace;
}

// Runs the ground-truth program's `which` case under the preload with a trace.
struct TracedRun {
  rubato::Trace trace;
  rubato::Report report;
  std::map<std::string, long> truth;
};

TracedRun traced_run(const test::TempDir& tmp, const std::string& which) {
  const std::vector<std::string> program = {RUBATO_TBB_GROUND_TRUTH_PROGRAM, which, tmp.file("truth.txt")};
  REQUIRE(run(program,
              preload_env({{"RUBATO_REPORT", tmp.file("report.json")}, {"RUBATO_TRACE", tmp.file("tasks.trace")}}),
              tmp.file("out.txt"), tmp.file("err.txt")) == 0);
  INFO(test::read_file(tmp.file("err.txt")));
  return {read_trace_file(tmp.file("tasks.trace")), read_report(tmp.file("report.json")),
          read_truth(tmp.file("truth.txt"))};
}

}  // namespace

TEST_CASE("Tbb.Preload.Trace.TasksAndStealsAreTheProgramsOwn", "[tbb]") {
  // Every task is the program's own: the trace's tasks and steals equal its count.
  const std::string which = GENERATE(as<std::string>{}, "fib", "serial", "defer", "arena");
  INFO(which);
  const test::TempDir tmp;
  const TracedRun r = traced_run(tmp, which);
  const TraceCounts c = count(r.trace);
  const auto report = test::preload::totals(r.report);
  CHECK(r.trace.header.frontend == "tbb-preload");
  CHECK(r.trace.header.version == rubato::kTraceVersion);
  CHECK(r.trace.dropped == 0);
  REQUIRE(r.truth.at("tasks") > 0);
  CHECK(c.tasks == static_cast<std::uint64_t>(r.truth.at("tasks")));
  CHECK(c.steals == static_cast<std::uint64_t>(r.truth.at("steals")));
  CHECK(c.steals == report.steals);
  CHECK(c.tasks == report.pushes);
  CHECK(c.not_completed_once == 0);
  CHECK(c.unfinished == 0);
  CHECK(c.named == c.tasks);  // each by its task object's type
  CHECK(c.waits > 0);         // task_group::wait inside the tasks
  CHECK_FALSE(r.trace.modules.empty());
  for (const rubato::TraceTask& t : r.trace.tasks) {
    CHECK((t.flags & rubato::kTraceTaskExplicit) != 0);
    if (t.parent != 0) CHECK(r.trace.find(t.parent) != nullptr);
  }
}

TEST_CASE("Tbb.Preload.Trace.AlgorithmsFlowGraphExceptionsCancellation", "[tbb]") {
  // Tasks made inside oneTBB's templates and libtbb itself, tasks that throw,
  // a cancelled group: the trace holds every task the report counted, each
  // completed once, and the report's steals.
  const std::string which = GENERATE(as<std::string>{}, "parallel_for", "reduce", "invoke", "flow", "throw", "cancel");
  INFO(which);
  const test::TempDir tmp;
  const TracedRun r = traced_run(tmp, which);
  const TraceCounts c = count(r.trace);
  const auto report = test::preload::totals(r.report);
  CHECK(c.tasks > 0);
  CHECK(c.tasks == report.pushes);
  CHECK(c.steals == report.steals);
  CHECK(c.not_completed_once == 0);
  CHECK(c.unfinished == 0);
}

TEST_CASE("Tbb.Preload.Trace.ATaskRunningAtExitEndsInTheTrace", "[tbb]") {
  // main returns while a worker is still inside a task (oneTBB also lets a
  // wait return inside its last task's execute()): the close waits for that
  // task's end, which is recorded, not cut off as unfinished.
  const test::TempDir tmp;
  const TracedRun r = traced_run(tmp, "exit_in_task");
  const TraceCounts c = count(r.trace);
  CHECK(c.tasks >= 1);
  CHECK(c.unfinished == 0);
  CHECK(c.not_completed_once == 0);
}

#ifdef RUBATO_CLI_BINARY
TEST_CASE("Tbb.Preload.Trace.ReplaysInTheSimulator", "[tbb]") {
  const test::TempDir tmp;
  const TracedRun r = traced_run(tmp, "fib");
  const std::vector<std::string> simulate = {RUBATO_CLI_BINARY,
                                             "simulate",
                                             "--profile",
                                             "generic",
                                             "--workers",
                                             "2",
                                             "--policy",
                                             "hermes",
                                             "--quiet",
                                             "--trace",
                                             tmp.file("tasks.trace"),
                                             "-o",
                                             tmp.file("sim.json")};
  REQUIRE(run(simulate, {{"RUBATO_PROFILE_DIR", RUBATO_TBB_TEST_PROFILES_DIR}}, tmp.file("sim.txt"),
              tmp.file("sim_err.txt")) == 0);
  const rubato::Report sim = read_report(tmp.file("sim.json"));
  // The replay runs every recorded task (and its own root).
  CHECK(test::totals(sim).completed >= r.trace.tasks.size());
}

#ifdef RUBATO_NAMES_RESOLVED
// `rubato trace export` names a oneTBB task by its task object's type: the
// code address the preload records is its vtable pointer.
TEST_CASE("Tbb.Preload.Trace.ExportNamesTasksByTheirType", "[tbb]") {
  const test::TempDir tmp;
  traced_run(tmp, "fib");
  const std::vector<std::string> exporter = {RUBATO_CLI_BINARY, "trace",    "export", tmp.file("tasks.trace"),
                                             "--format",        "perfetto", "-o",     tmp.file("t.json")};
  REQUIRE(run(exporter, {}, tmp.file("export.txt"), tmp.file("export_err.txt")) == 0);
  const std::string json = test::read_file(tmp.file("t.json"));
  INFO(test::read_file(tmp.file("export_err.txt")));
  // The ground-truth program's fib lambdas, inside oneTBB's task type.
  CHECK(json.find("function_task<") != std::string::npos);
  CHECK(json.find("fib(int)") != std::string::npos);
  CHECK(json.find("vtable for ") == std::string::npos);
}
#endif
#endif

#endif  // RUBATO_TBB_PRELOAD_LIBRARY
