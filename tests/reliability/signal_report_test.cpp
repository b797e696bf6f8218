// How a run ends, and what its report says (tests/RELIABILITY.md, "How a
// run ends"): a program stopped by a termination signal still writes
// its report, marked with the signal, before the program's own handler or the
// default action; a crash writes none and says so; the report's exit_status
// is the one a shell would report (exit()'s status, 128 + the signal), left out
// where the program's own handler decides; the report's command is the line
// the program started with even when it rewrites its argv; the trace is named
// at start.
#include <signal.h>

#include <cstdlib>
#include <fstream>
#include <memory>

#include "fault_scene.hpp"
#include "read_report.hpp"

using namespace rubato;

namespace {

std::uint64_t tasks_completed(const Report& r) {
  std::uint64_t n = 0;
  for (const auto& w : r.workers) n += w.tasks_completed;
  return n;
}

// An unmodified oneTBB program (programs/tbb_ticker.cpp) under the preload,
// dry run: started and computing once it has created its ".started" file.
struct PreloadTicker {
  test::TempDir tmp;
  std::string stop = tmp.path() + "/stop", report = tmp.path() + "/report.json";
  std::unique_ptr<test::RunningProgram> program;

  test::RunningProgram& start(const std::string& end = "") {
    test::EnvList env = {{"LD_PRELOAD", test::kTbbPreload},
                         {"RUBATO_BACKEND", "dry-run"},
                         {"RUBATO_REPORT", report},
                         {"RUBATO_PROFILE_DIR", test::kProfilesDir}};
    // Sanitizer builds: the symbolizer, a child, would inherit LD_PRELOAD and fail (tests/tbb/preload_test.cpp).
    for (const char* name : {"TSAN_OPTIONS", "ASAN_OPTIONS"}) {
      const char* before = std::getenv(name);
      env.emplace_back(name, std::string(before ? before : "") + " symbolize=0");
    }
    std::vector<std::string> argv = {test::kTbbTicker, "22", stop, "60"};
    if (!end.empty()) argv.push_back(end);
    program = std::make_unique<test::RunningProgram>(argv, env, tmp.path() + "/run");
    if (!test::wait_until([&] { return test::path_exists(stop + ".started"); }))
      FAIL("the oneTBB ticker did not start; stderr:\n" << program->err_so_far());
    return *program;
  }
};

}  // namespace

TEST_CASE("Reliability.SignalReport.EachTerminationSignalWritesTheReport") {
  // The stop requests, and the signals whose default action ends a program
  // (the ticker leaves them at it).
  const std::pair<int, const char*> signals[] = {{SIGTERM, "SIGTERM"}, {SIGINT, "SIGINT"},   {SIGHUP, "SIGHUP"},
                                                 {SIGQUIT, "SIGQUIT"}, {SIGUSR1, "SIGUSR1"}, {SIGUSR2, "SIGUSR2"},
                                                 {SIGALRM, "SIGALRM"}, {SIGPIPE, "SIGPIPE"}, {SIGXCPU, "SIGXCPU"}};
  for (const auto& [sig, name] : signals) {
#if defined(__has_feature)
#if __has_feature(thread_sanitizer)
    // ThreadSanitizer delivers SIGPIPE synchronously (its is_sync_signal), at
    // once, even inside its own runtime holding its locks, which the report
    // and the restore then wait for: under TSan alone the program can hang.
    if (sig == SIGPIPE) continue;
#endif
#endif
    test::TickerOnFakeTree scene;
    auto& p = scene.start();
    p.signal(sig);
    const auto r = p.wait(30);
    INFO(name << ": " << r.status() << "\n" << r.err);
    CHECK(r.signal == sig);  // then the default action, as without rubato
    CHECK(scene.restored());
    CHECK_FALSE(scene.state_left());
    const auto report = test::read_report(scene.report);
    REQUIRE(report);
    CHECK(report->ended == std::string("signal ") + name);
    CHECK(report->exit_status == 128 + sig);  // as a shell reports death by `sig`
    CHECK(report->backend == "sysfs");
    CHECK(tasks_completed(*report) > 0);  // what rubato observed until then
  }
}

TEST_CASE("Reliability.SignalReport.NormalEndSaysExit") {
  test::TickerOnFakeTree scene;
  scene.start();
  const auto r = scene.stop(30);
  INFO(r.status() << "\n" << r.err);
  CHECK(r.ok());
  const auto report = test::read_report(scene.report);
  REQUIRE(report);
  CHECK(report->ended == "exit");
  CHECK(report->exit_status == 0);
}

TEST_CASE("Reliability.SignalReport.ExitStatusIsTheProgramsOwn") {
  // exit(3) from main: glibc's on_exit hands the tool the status.
  test::TickerOnFakeTree scene;
  scene.start({.end = "exit3"});
  const auto r = scene.stop(30);
  INFO(r.status() << "\n" << r.err);
  CHECK((r.exited && r.exit_code == 3));
  const auto report = test::read_report(scene.report);
  REQUIRE(report);
  CHECK(report->ended == "exit");
  CHECK(report->exit_status == 3);
}

TEST_CASE("Reliability.SignalReport.BeforeTheProgramsOwnHandler") {
  // The ticker's own SIGTERM handler ends it with _exit(7): no atexit, so the
  // report can only come from rubato's handler, which runs first and then
  // hands the signal on.
  test::TickerOnFakeTree scene;
  auto& p = scene.start({.end = "handler"});
  p.signal(SIGTERM);
  const auto r = p.wait(30);
  INFO(r.status() << "\n" << r.err);
  CHECK((r.exited && r.exit_code == 7));
  CHECK(scene.restored());
  const auto report = test::read_report(scene.report);
  REQUIRE(report);
  CHECK(report->ended == "signal SIGTERM");
  // The program's handler decided how it ended, after the report: not known, so left out.
  CHECK_FALSE(report->exit_status.has_value());
}

TEST_CASE("Reliability.SignalReport.CrashWritesNoReport") {
  // A crash leaves the process in a state nothing can be trusted in (a
  // corrupted heap makes abort() too): the machine is restored, no report is
  // written, and one line says so.
  for (const std::string end : {"segv", "abort"}) {
    test::TickerOnFakeTree scene;
    scene.start({.end = end});
    const auto r = scene.stop(30);
    INFO(end << ": " << r.status() << "\n" << r.err);
    CHECK_FALSE(r.ok());
    CHECK(scene.restored());
    CHECK_FALSE(test::path_exists(scene.report));
    CHECK(r.err.find("no report is written") != std::string::npos);
  }
}

TEST_CASE("Reliability.RunIdentity.CommandReadBeforeArgvRewrite") {
  // Loaded with the program (LD_PRELOAD), the tool reads the command line
  // before main rewrites it. (From OMP_TOOL_LIBRARIES alone libomp loads it
  // at the first OpenMP construct: docs/ompt.md says what the report shows then.)
  test::TempDir tmp;
  const std::string report = tmp.path() + "/report.json";
  // Under TSan the preset preloads the Archer bridge, which must stay the tool
  // libomp finds first (it starts rubato as its client): the tool goes after it.
  const char* inherited = std::getenv("LD_PRELOAD");
  const std::string preload =
      inherited && *inherited ? std::string(inherited) + ":" + test::kOmptTool : std::string(test::kOmptTool);
  const auto r = test::run_program({test::kArgvRewrite, "-x", "abc", "-n", "5"},
                                   {{"LD_PRELOAD", preload},
                                    {"OMP_TOOL_LIBRARIES", test::kOmptTool},
                                    {"OMP_NUM_THREADS", "2"},
                                    {"RUBATO_BACKEND", "dry-run"},
                                    {"RUBATO_REPORT", report}},
                                   tmp.path() + "/run");
  INFO(r.status() << "\n" << r.err);
  CHECK(r.ok());
  CHECK(r.out == "sum = 5000050000\n");
  const auto rep = test::read_report(report);
  REQUIRE(rep);
  CHECK(rep->command == std::string(test::kArgvRewrite) + " -x abc -n 5");
}

TEST_CASE("Reliability.Logging.TraceNamedAtStart") {
  // RUBATO_LOG=info names the trace file while the program runs, as it names
  // the report at the end.
  test::TickerOnFakeTree scene;
  const std::string pattern = scene.tmp.path() + "/trace-%p.bin";
  auto& p = scene.start({.env = {{"RUBATO_LOG", "info"}, {"RUBATO_TRACE", pattern}}, .backend = "dry-run"});
  const std::string trace = scene.tmp.path() + "/trace-" + std::to_string(p.pid()) + ".bin";
  const std::string early = p.err_so_far();
  INFO(early);
  CHECK(early.find("rubato: trace recorded to " + trace + "\n") != std::string::npos);
  const auto r = scene.stop(30);
  CHECK(r.ok());
  CHECK(test::path_exists(trace));
  CHECK(r.err.find("rubato: report written to " + scene.report + "\n") != std::string::npos);
}

TEST_CASE("Reliability.SignalReport.PreloadReportsHowTheProgramEnded") {
  if (*test::kTbbPreload == '\0') {
    WARN("the oneTBB preload is not built: nothing to check");
    return;
  }
  SECTION("exit 3") {
    PreloadTicker t;
    auto& p = t.start("exit3");
    std::ofstream(t.stop) << "stop\n";
    const auto r = p.wait(60);
    INFO(r.status() << "\n" << r.err);
    CHECK((r.exited && r.exit_code == 3));
    const auto report = test::read_report(t.report);
    REQUIRE(report);
    CHECK(report->frontend == "tbb-preload");
    CHECK(report->ended == "exit");
    CHECK(report->exit_status == 3);
  }
  SECTION("SIGTERM") {
    PreloadTicker t;
    auto& p = t.start();
    p.signal(SIGTERM);
    const auto r = p.wait(60);
    INFO(r.status() << "\n" << r.err);
    CHECK(r.signal == SIGTERM);
    const auto report = test::read_report(t.report);
    REQUIRE(report);
    CHECK(report->ended == "signal SIGTERM");
    CHECK(report->exit_status == 128 + SIGTERM);
  }
}
