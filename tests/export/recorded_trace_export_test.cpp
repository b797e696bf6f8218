// rubato trace export on a trace recorded from a real OpenMP program (the
// OMPT tests' fib, under librubato_ompt.so with RUBATO_TRACE): both exports
// against rubato's own reading of the trace (read_trace) — tasks, steals and
// their victims, waits, each worker's segments in order — and the task
// function's name (fib) in both.
#include <unistd.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "command_output.hpp"
#include "experiment/process.hpp"
#include "export/otf2_sink.hpp"
#include "export/trace_export.hpp"
#include "rubato/core/io/trace.hpp"

#ifdef RUBATO_OMPT_TOOL  // built with the OpenMP front-end and its test programs

using namespace rubato;
using namespace rubato::cli;
using rubato::test::run_output;
namespace fs = std::filesystem;

namespace {

struct Recorded {
  fs::path dir;
  std::string trace;
  Trace read;
};

// fib 14 on 2 threads, steal-first (at least one steal however the machine is loaded).
Recorded record_fib(const std::string& name) {
  Recorded r;
  r.dir = fs::temp_directory_path() / ("rubato-export-recorded-" + name + "-" + std::to_string(getpid()));
  fs::remove_all(r.dir);
  fs::create_directories(r.dir);
  r.trace = (r.dir / "fib.trace").string();
  const EnvOverrides env = {{"OMP_TOOL_LIBRARIES", RUBATO_OMPT_TOOL},
                            {"RUBATO_TRACE", r.trace},
                            {"RUBATO_REPORT", (r.dir / "report.json").string()},
                            {"RUBATO_BACKEND", "dry-run"},
                            {"RUBATO_POLICY", "hermes"}};
  const ChildResult run = run_child({RUBATO_FIB_PROGRAM, "14", "2", "steal-first"}, env,
                                    (r.dir / "stdout.txt").string(), (r.dir / "stderr.txt").string(), 120);
  REQUIRE(run.started);
  REQUIRE(run.exit_status == 0);
  std::string error;
  auto trace = read_trace(r.trace, error);
  INFO(error);
  REQUIRE(trace);
  r.read = std::move(*trace);
  return r;
}

struct Expected {
  std::size_t tasks = 0, ran = 0, steals = 0, waits = 0;  // ran: tasks with a segment (not the initial task)
  std::vector<std::vector<std::uint64_t>> order;          // per worker: task ids of its segments in time order
  std::vector<std::vector<std::uint64_t>> victims;        // per worker: the victim of each steal, in time order
};

Expected expected_from(const Trace& t) {
  using Key = std::tuple<std::uint64_t, std::uint64_t, std::uint64_t>;  // start, end, task: time order per worker
  std::vector<std::vector<std::pair<Key, std::uint64_t>>> segs(t.header.max_workers), steals(t.header.max_workers);
  Expected e;
  e.tasks = t.tasks.size();
  for (const TraceTask& task : t.tasks) {
    e.waits += task.waits.size();
    e.ran += task.segments.empty() ? 0 : 1;
    for (const TraceSegment& s : task.segments) {
      const Key key{s.start_ns, s.start_ns + s.duration_ns, task.id};
      segs[s.worker].emplace_back(key, task.id);
      if (s.start == SegmentStart::steal) steals[s.worker].emplace_back(key, task.creator);
    }
  }
  for (std::size_t w = 0; w < segs.size(); ++w) {
    std::sort(segs[w].begin(), segs[w].end());
    std::sort(steals[w].begin(), steals[w].end());
    e.order.emplace_back();
    e.victims.emplace_back();
    for (const auto& [key, id] : segs[w]) e.order.back().push_back(id);
    for (const auto& [key, victim] : steals[w]) e.victims.back().push_back(victim);
    e.steals += steals[w].size();
  }
  return e;
}

TraceExportResult export_as(const Recorded& r, ExportFormat format) {
  TraceExportOptions o;
  o.format = format;
  TraceExportResult result;
  std::string error;
  INFO(error);
  REQUIRE(export_trace(r.trace, o, result, error));
  return result;
}

// The program's task-creating function, as libdw names it ("fib(int) (fib.cpp:20)").
bool names_fib(const std::string& name) { return name.rfind("fib(int)", 0) == 0; }

}  // namespace

TEST_CASE("Export.Recorded.FibPerfettoMatchesTheTrace", "[export]") {
  const Recorded r = record_fib("perfetto");
  const Expected e = expected_from(r.read);
  REQUIRE(e.steals >= 1);
  const TraceExportResult x = export_as(r, ExportFormat::perfetto);
  CHECK(x.counts.tasks == e.tasks);
  CHECK(x.counts.steals == e.steals);
  CHECK(x.counts.waits == e.waits);
  std::ifstream in(x.out);
  const auto doc = nlohmann::json::parse(in);
  using Key = std::tuple<double, double, std::uint64_t>;
  std::vector<std::vector<Key>> slices(r.read.header.max_workers);
  std::set<std::uint64_t> ids;
  std::set<std::string> names;
  std::size_t waits = 0, flows = 0;
  std::vector<std::vector<std::uint64_t>> victims(r.read.header.max_workers);
  for (const auto& ev : doc["traceEvents"]) {
    if (ev["ph"] == "f") ++flows;
    if (ev["ph"] != "X") continue;
    if (ev["cat"] == "wait") ++waits;
    if (ev["cat"] != "task") continue;
    const std::uint64_t id = ev["args"]["task"];
    const double ts = ev["ts"], dur = ev["dur"];
    slices[ev["tid"].get<std::size_t>()].emplace_back(ts, ts + dur, id);
    ids.insert(id);
    names.insert(ev["name"].get<std::string>());
    if (ev["args"].contains("victim")) victims[ev["tid"].get<std::size_t>()].push_back(ev["args"]["victim"]);
  }
  CHECK(ids.size() == e.ran);
  CHECK(waits == e.waits);
  CHECK(flows == e.steals);
  for (std::size_t w = 0; w < slices.size(); ++w) {
    std::sort(slices[w].begin(), slices[w].end());
    std::vector<std::uint64_t> order;
    for (const auto& s : slices[w]) order.push_back(std::get<2>(s));
    INFO("worker " << w);
    CHECK(order == e.order[w]);
    CHECK(victims[w] == e.victims[w]);
  }
#ifdef RUBATO_NAMES_RESOLVED
  CHECK(std::any_of(names.begin(), names.end(), names_fib));
#endif
  fs::remove_all(r.dir);
}

TEST_CASE("Export.Recorded.FibOtf2MatchesTheTrace", "[export]") {
  if (!otf2_built()) {
    WARN("built without OTF2: nothing to check");
    return;
  }
  const Recorded r = record_fib("otf2");
  const Expected e = expected_from(r.read);
  REQUIRE(e.steals >= 1);
  // The Perfetto export names each task id; the OTF2 regions must carry the same names in the trace's order.
  std::map<std::uint64_t, std::string> name_of;
  std::set<std::string> wait_names;
  {
    std::ifstream in(export_as(r, ExportFormat::perfetto).out);
    const auto doc = nlohmann::json::parse(in);
    for (const auto& ev : doc["traceEvents"])
      if (ev["ph"] == "X" && ev["cat"] == "task") name_of[ev["args"]["task"]] = ev["name"];
      else if (ev["ph"] == "X" && ev["cat"] == "wait") wait_names.insert(ev["name"].get<std::string>());
  }
  const TraceExportResult x = export_as(r, ExportFormat::otf2);
  CHECK(x.counts.tasks == e.tasks);
  CHECK(x.counts.steals == e.steals);
  const std::string anchor = (fs::path(x.out) / "traces.otf2").string();
  const std::string summary = run_output(std::string(RUBATO_PYTHON) + " " + RUBATO_OTF2_SUMMARY + " " + anchor);
  INFO(summary.substr(0, 2000));
  REQUIRE(summary.rfind("FAILED", 0) != 0);
  const auto s = nlohmann::json::parse(summary);
  std::size_t waits = 0;
  for (std::size_t w = 0; w < e.order.size(); ++w) {
    const std::string location = "worker " + std::to_string(w);
    if (!s["locations"].contains(location)) {  // max_workers is a bound: a worker may have run nothing
      CHECK(e.order[w].empty());
      continue;
    }
    const auto& loc = s["locations"][location];
    std::vector<std::string> tasks, expected;
    for (const auto& enter : loc["enters"])
      if (wait_names.count(enter.get<std::string>())) ++waits;
      else tasks.push_back(enter);
    for (std::uint64_t id : e.order[w]) expected.push_back(name_of[id]);
    INFO("worker " << w);
    CHECK(tasks == expected);
    CHECK(loc["victims"].get<std::vector<std::uint64_t>>() == e.victims[w]);
    CHECK(loc["ordered"] == true);
  }
  CHECK(waits == e.waits);
#ifdef RUBATO_NAMES_RESOLVED
  const std::vector<std::string> regions = s["regions"];
  CHECK(std::any_of(regions.begin(), regions.end(), names_fib));
  const std::string printed = run_output(std::string(RUBATO_OTF2_PRINT) + " " + anchor + " 2>&1");
  CHECK(printed.find("fib(int)") != std::string::npos);
#endif
  fs::remove_all(r.dir);
}

#endif  // RUBATO_OMPT_TOOL
