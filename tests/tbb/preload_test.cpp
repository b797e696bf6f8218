// Preload mode: unmodified oneTBB programs run with
// LD_PRELOAD=librubato_tbb_preload.so. The task-level front-end (oneTBB's ITT
// notifications + interposed spawns) must agree exactly with what the programs
// record of their own tasks, leave their output unchanged, and fall back to
// thread-level observation (saying why) when the notifications are taken.
#include <catch2/catch.hpp>

#ifdef RUBATO_TBB_PRELOAD_LIBRARY  // the preload library is not built with sanitizers

#include <string>
#include <vector>

#include "preload_support.hpp"
#include "temp_dir.hpp"

namespace {

namespace test = rubato::test;
using test::read_file;
using test::preload::has_note;
using test::preload::preload_env;
using test::preload::read_report;
using test::preload::read_truth;
using test::preload::run;
using test::preload::tasks_not_ended;
using test::preload::totals;

// A ground-truth case run plain, then preloaded: the output must not change.
// Returns the preloaded run's report.
rubato::Report preloaded_run(const test::TempDir& tmp, const std::string& which) {
  const std::vector<std::string> program = {RUBATO_TBB_GROUND_TRUTH_PROGRAM, which, tmp.file("truth.txt")};
  REQUIRE(run(program, {}, tmp.file("plain.txt")) == 0);
  REQUIRE(run(program, preload_env({{"RUBATO_REPORT", tmp.file("report.json")}}), tmp.file("preload.txt")) == 0);
  CHECK(read_file(tmp.file("preload.txt")) == read_file(tmp.file("plain.txt")));
  return read_report(tmp.file("report.json"));
}

}  // namespace

TEST_CASE("Tbb.Preload.TasksMatchTheProgramsOwnCount", "[tbb]") {
  // task_group run / defer, in the implicit arena and in an explicit task_arena:
  // every task is the program's own, so counts must agree exactly.
  // serial: one thread, no steals of either kind.
  const std::string which = GENERATE(as<std::string>{}, "fib", "serial", "defer", "arena");
  INFO(which);
  const test::TempDir tmp;
  const std::vector<std::string> program = {RUBATO_TBB_GROUND_TRUTH_PROGRAM, which, tmp.file("truth.txt")};
  REQUIRE(run(program, {}, tmp.file("plain.txt")) == 0);
  std::remove(tmp.file("truth.txt").c_str());  // the preloaded run's count is the one compared
  REQUIRE(run(program, preload_env({{"RUBATO_REPORT", tmp.file("report.json")}}), tmp.file("preload.txt")) == 0);
  CHECK(read_file(tmp.file("preload.txt")) == read_file(tmp.file("plain.txt")));
  const auto truth = read_truth(tmp.file("truth.txt"));
  const rubato::Report r = read_report(tmp.file("report.json"));
  CHECK(r.frontend == "tbb-preload");
  CHECK(r.steals_observed);
  const auto t = totals(r);
  REQUIRE(truth.at("tasks") > 0);
  CHECK(truth.at("steals") == truth.at("slot_steals"));  // within one arena a thread keeps its slot
  CHECK(t.pushes == static_cast<std::uint64_t>(truth.at("tasks")));
  CHECK(t.completed == t.pushes);
  CHECK(t.steals == static_cast<std::uint64_t>(truth.at("steals")));
  CHECK(t.stolen_from == t.steals);
  CHECK(t.pops + t.steals == t.pushes);
  CHECK_FALSE(has_note(r, "tbb-preload: no task events"));
}

TEST_CASE("Tbb.Preload.AlgorithmsFlowGraphExceptionsCancellation", "[tbb]") {
  // Tasks made inside oneTBB's templates, tasks that throw (some from inside a
  // nested wait), a cancelled group: the program cannot count the tasks, but
  // every one created must be completed, and each start is a pop or a steal.
  const std::string which = GENERATE(as<std::string>{}, "parallel_for", "reduce", "invoke", "flow", "throw", "cancel");
  INFO(which);
  const test::TempDir tmp;
  const rubato::Report r = preloaded_run(tmp, which);
  const auto t = totals(r);
  CHECK(t.pushes > 0);
  // A task whose end has not arrived when the report is taken, after its
  // grace (one still inside oneTBB's dispatch at exit), is counted started and
  // noted; at most one a thread.
  CHECK(t.completed + tasks_not_ended(r) == t.pushes);
  CHECK(tasks_not_ended(r) <= r.workers.size());
  CHECK(t.pops + t.steals == t.pushes);
  CHECK(t.stolen_from == t.steals);
}

TEST_CASE("Tbb.Preload.ATaskRunningAtExitIsWaitedForOrSaidSo", "[tbb]") {
  // main returns while an enqueued task still runs on a worker. One that ends
  // within the report's grace is counted completed (oneTBB also releases a
  // waiter before the task's end notification, so any program's last task can
  // be in flight at exit); one that outlives it is counted started, and the
  // report says so. The program's output is unchanged either way.
  const bool long_task = GENERATE(false, true);
  const std::string which = long_task ? "exit_in_long_task" : "exit_in_task";
  INFO(which);
  const test::TempDir tmp;
  const rubato::Report r = preloaded_run(tmp, which);
  const auto t = totals(r);
  CHECK(t.pushes == 1);
  CHECK(t.pops + t.steals == 1);
  CHECK(tasks_not_ended(r) == (long_task ? 1u : 0u));
  CHECK(t.completed == (long_task ? 0u : 1u));
}

TEST_CASE("Tbb.Preload.PoliciesActAndTheEmulatorStretches", "[tbb]") {
  // HERMES on the emulated back-end: the preload's task events change tempo,
  // and the emulator stretches the slowed tasks; the output stays the same.
  const test::TempDir tmp;
  const std::vector<std::string> program = {RUBATO_TBB_GROUND_TRUTH_PROGRAM, "fib", tmp.file("truth.txt")};
  REQUIRE(run(program, {}, tmp.file("plain.txt")) == 0);
  REQUIRE(run(program,
              preload_env({{"RUBATO_BACKEND", "emulated"},
                           {"RUBATO_POLICY", "hermes"},
                           {"RUBATO_REPORT", tmp.file("report.json")}}),
              tmp.file("preload.txt")) == 0);
  CHECK(read_file(tmp.file("preload.txt")) == read_file(tmp.file("plain.txt")));
  const rubato::Report r = read_report(tmp.file("report.json"));
  CHECK(r.backend == "emulated");
  std::uint64_t changes = 0;
  double delay = 0;
  for (const auto& w : r.workers) {
    changes += w.level_changes;
    delay += w.emulated_delay_s;
  }
  CHECK(changes > 0);
  CHECK(delay > 0);
  CHECK_FALSE(has_note(r, "policy hermes had nothing to act on"));
}

TEST_CASE("Tbb.Preload.UnmodifiedProgram", "[tbb]") {
  const test::TempDir tmp;
  const std::string report = tmp.file("report.json");
  const std::vector<std::string> program = {RUBATO_TBB_PLAIN_PROGRAM};
  REQUIRE(run(program, {}, tmp.file("plain.txt")) == 0);
  REQUIRE(run(program, preload_env({{"RUBATO_REPORT", report}}), tmp.file("preload.txt")) == 0);
  CHECK(read_file(tmp.file("preload.txt")) == read_file(tmp.file("plain.txt")));
  const rubato::Report r = read_report(report);
  CHECK(r.frontend == "tbb-preload");
  CHECK(r.steals_observed);
  const auto t = totals(r);
  CHECK(t.pushes >= 21890);  // fib(20)'s task_group tasks alone
  CHECK(t.completed == t.pushes);
}

TEST_CASE("Tbb.Preload.AnotherCollectorMeansThreadsOnly", "[tbb]") {
  // A profiler's ITT collector comes first: the preload says so and observes
  // threads only; the program still runs unchanged.
  const test::TempDir tmp;
  const std::string report = tmp.file("report.json");
  REQUIRE(run({RUBATO_TBB_PLAIN_PROGRAM},
              preload_env({{"RUBATO_POLICY", "hermes"},
                           {"INTEL_LIBITTNOTIFY64", "/nonexistent/libittnotify_collector.so"},
                           {"RUBATO_REPORT", report}}),
              "/dev/null", tmp.file("stderr.txt")) == 0);
  const std::string err = read_file(tmp.file("stderr.txt"));
  CHECK(err.find("rubato: tbb-preload observes threads only: INTEL_LIBITTNOTIFY64 names another ITT collector") !=
        std::string::npos);
  const rubato::Report r = read_report(report);
  CHECK_FALSE(r.steals_observed);
  CHECK(has_note(r, "steals are not observed in preload mode"));
  CHECK(has_note(r, "tbb-preload: no task events: INTEL_LIBITTNOTIFY64 names another ITT collector"));
  // HERMES had nothing to act on, and the report says so.
  CHECK(has_note(r, "policy hermes had nothing to act on: no task events"));
  const auto t = totals(r);
  CHECK(t.pushes == 0);
  double busy = 0;
  for (const auto& w : r.workers) busy += w.busy_s;
  CHECK(busy > 0);
}

TEST_CASE("Tbb.Preload.DisabledLeavesOneTbbAlone", "[tbb]") {
  const test::TempDir tmp;
  const std::string report = tmp.file("report.json");
  REQUIRE(run({RUBATO_TBB_PLAIN_PROGRAM},
              preload_env({{"RUBATO_ENABLE", "0"}, {"TBB_VERSION", "1"}, {"RUBATO_REPORT", report}}), "/dev/null",
              tmp.file("stderr.txt")) == 0);
  const std::string err = read_file(tmp.file("stderr.txt"));
  CHECK(err.find("TOOLS SUPPORT\tdisabled") != std::string::npos);  // oneTBB's own banner: no collector loaded
  CHECK_FALSE(test::path_exists(report));
}

#ifndef RUBATO_SANITIZED_TEST_BUILD
// /bin/true is not instrumented: a sanitizer build of the preload cannot load into it.
TEST_CASE("Tbb.Preload.ProcessesWithoutOneTbbAreLeftAlone", "[tbb]") {
  const test::TempDir tmp;
  const std::string report = tmp.file("report.json");
  // /bin/true does not use oneTBB: no session, no report.
  REQUIRE(run({"/bin/true"}, {{"LD_PRELOAD", RUBATO_TBB_PRELOAD_LIBRARY}, {"RUBATO_REPORT", report}}, "/dev/null") ==
          0);
  CHECK_FALSE(test::path_exists(report));
}
#endif

#endif  // RUBATO_TBB_PRELOAD_LIBRARY
