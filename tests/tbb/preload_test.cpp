// Preload mode: unmodified oneTBB programs run with
// LD_PRELOAD=librubato_tbb_preload.so. The task-level front-end (oneTBB's ITT
// notifications + interposed spawns) must agree exactly with what the programs
// record of their own tasks, leave their output unchanged, and fall back to
// thread-level observation (saying why) when the notifications are taken.
#include <catch2/catch.hpp>

#ifdef RUBATO_TBB_PRELOAD_LIBRARY  // the preload library is not built with sanitizers

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

#include "ground_truth.hpp"
#include "rubato/core/report.hpp"

namespace {

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

int run(const std::string& command) {
  const int status = std::system(command.c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define RUBATO_SANITIZED_TEST_BUILD 1
#endif
#endif

// In sanitizer builds the preload is instrumented and needs the program's
// runtime; the sanitizer's symbolizer, a child process, inherits LD_PRELOAD
// and cannot start. Reports there stay unsymbolized (module + offset, which is
// what the libtbb suppressions match) instead of failing the run.
#ifdef RUBATO_SANITIZED_TEST_BUILD
#define RUBATO_SANITIZER_OPTIONS \
  "TSAN_OPTIONS=\"$TSAN_OPTIONS symbolize=0\" ASAN_OPTIONS=\"$ASAN_OPTIONS symbolize=0\" "
#else
#define RUBATO_SANITIZER_OPTIONS ""
#endif

const std::string kPreload =
    RUBATO_SANITIZER_OPTIONS "LD_PRELOAD=" RUBATO_TBB_PRELOAD_LIBRARY " RUBATO_BACKEND=dry-run RUBATO_LOG=error ";

rubato::Report read_report(const std::string& path) {
  const std::string text = read_file(path);
  std::remove(path.c_str());
  REQUIRE_FALSE(text.empty());
  std::string error;
  auto r = rubato::report_from_json(text, error);
  INFO(error);
  REQUIRE(r);
  return *r;
}

// Totals over the workers (ground_truth.hpp), each busy only while alive.
rubato::test::ReportTotals totals(const rubato::Report& r) {
  for (const auto& w : r.workers) CHECK(w.busy_s <= w.alive_s + 1e-6);
  return rubato::test::totals(r);
}

bool has_note(const rubato::Report& r, const std::string& start) {
  for (const auto& n : r.notes)
    if (n.rfind(start, 0) == 0) return true;
  return false;
}

// name -> value from the ground-truth file ("tasks N" lines).
std::map<std::string, long> read_truth(const std::string& path) {
  std::map<std::string, long> out;
  std::ifstream in(path);
  std::string key;
  long value = 0;
  while (in >> key >> value) out[key] = value;
  std::remove(path.c_str());
  return out;
}

}  // namespace

TEST_CASE("Tbb.Preload.TasksMatchTheProgramsOwnCount", "[tbb]") {
  // task_group run / defer, in the implicit arena and in an explicit task_arena:
  // every task is the program's own, so counts must agree exactly.
  const std::string which = GENERATE(as<std::string>{}, "fib", "defer", "arena");
  INFO(which);
  const std::string program = std::string(RUBATO_TBB_GROUND_TRUTH_PROGRAM) + " " + which + " gt_truth.txt";
  REQUIRE(run(program + " > gt_plain.txt") == 0);
  std::remove("gt_truth.txt");
  REQUIRE(run(kPreload + "RUBATO_REPORT=gt_report.json " + program + " > gt_preload.txt") == 0);
  CHECK(read_file("gt_preload.txt") == read_file("gt_plain.txt"));
  const auto truth = read_truth("gt_truth.txt");
  const rubato::Report r = read_report("gt_report.json");
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
  const std::string program = std::string(RUBATO_TBB_GROUND_TRUTH_PROGRAM) + " " + which + " gt_truth2.txt";
  REQUIRE(run(program + " > gt_plain2.txt") == 0);
  REQUIRE(run(kPreload + "RUBATO_REPORT=gt_report2.json " + program + " > gt_preload2.txt") == 0);
  std::remove("gt_truth2.txt");
  CHECK(read_file("gt_preload2.txt") == read_file("gt_plain2.txt"));
  const rubato::Report r = read_report("gt_report2.json");
  const auto t = totals(r);
  CHECK(t.pushes > 0);
  CHECK(t.completed == t.pushes);
  CHECK(t.pops + t.steals == t.pushes);
  CHECK(t.stolen_from == t.steals);
}

TEST_CASE("Tbb.Preload.PoliciesActAndTheEmulatorStretches", "[tbb]") {
  // HERMES on the emulated back-end: the preload's task events change tempo,
  // and the emulator stretches the slowed tasks; the output stays the same.
  const std::string program = std::string(RUBATO_TBB_GROUND_TRUTH_PROGRAM) + " fib gt_truth3.txt";
  REQUIRE(run(program + " > gt_plain3.txt") == 0);
  REQUIRE(run(RUBATO_SANITIZER_OPTIONS "LD_PRELOAD=" RUBATO_TBB_PRELOAD_LIBRARY
                                       " RUBATO_BACKEND=emulated RUBATO_POLICY=hermes RUBATO_LOG=error "
                                       "RUBATO_REPORT=gt_report3.json " +
              program + " > gt_preload3.txt") == 0);
  std::remove("gt_truth3.txt");
  CHECK(read_file("gt_preload3.txt") == read_file("gt_plain3.txt"));
  const rubato::Report r = read_report("gt_report3.json");
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
  const std::string report = "tbb_preload_test_report.json";
  const std::string out = "tbb_preload_test_out.txt";
  std::remove(report.c_str());
  const std::string program = RUBATO_TBB_PLAIN_PROGRAM;
  REQUIRE(run(program + " > " + out) == 0);
  const std::string plain_output = read_file(out);
  REQUIRE(run(kPreload + "RUBATO_REPORT=" + report + " " + program + " > " + out) == 0);
  CHECK(read_file(out) == plain_output);
  std::remove(out.c_str());
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
  const std::string report = "tbb_preload_other_itt.json";
  const std::string program = RUBATO_TBB_PLAIN_PROGRAM;
  REQUIRE(run(kPreload +
              "RUBATO_POLICY=hermes INTEL_LIBITTNOTIFY64=/nonexistent/libittnotify_collector.so RUBATO_REPORT=" +
              report + " " + program + " > /dev/null 2> tbb_preload_other_itt.err") == 0);
  const std::string err = read_file("tbb_preload_other_itt.err");
  std::remove("tbb_preload_other_itt.err");
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
  const std::string report = "tbb_preload_disabled.json";
  std::remove(report.c_str());
  REQUIRE(run(kPreload + "RUBATO_ENABLE=0 TBB_VERSION=1 RUBATO_REPORT=" + report +
              " " RUBATO_TBB_PLAIN_PROGRAM " > /dev/null 2> tbb_preload_disabled.err") == 0);
  const std::string err = read_file("tbb_preload_disabled.err");
  std::remove("tbb_preload_disabled.err");
  CHECK(err.find("TOOLS SUPPORT\tdisabled") != std::string::npos);  // oneTBB's own banner: no collector loaded
  std::FILE* f = std::fopen(report.c_str(), "r");
  CHECK(f == nullptr);
  if (f) std::fclose(f);
}

#ifndef RUBATO_SANITIZED_TEST_BUILD
// /bin/true is not instrumented: a sanitizer build of the preload cannot load into it.
TEST_CASE("Tbb.Preload.ProcessesWithoutOneTbbAreLeftAlone", "[tbb]") {
  const std::string report = "tbb_preload_shell_report.json";
  std::remove(report.c_str());
  // /bin/true does not use oneTBB: no session, no report.
  REQUIRE(run("LD_PRELOAD=" RUBATO_TBB_PRELOAD_LIBRARY " RUBATO_REPORT=" + report + " /bin/true") == 0);
  std::FILE* f = std::fopen(report.c_str(), "r");
  CHECK(f == nullptr);
  if (f) std::fclose(f);
}
#endif

#endif  // RUBATO_TBB_PRELOAD_LIBRARY
