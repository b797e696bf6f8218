#include <catch2/catch.hpp>
#include <fstream>

#include "fake_sysfs.hpp"
#include "rubato/power/session/session.hpp"

using namespace rubato;

namespace {

Environment base_env(const test::TempDir& dir, const std::string& backend) {
  return {{"RUBATO_BACKEND", backend},
          {"RUBATO_SYSFS_ROOT", dir.path() + "/no-sysfs"},
          {"RUBATO_STATE_DIR", dir.path() + "/state"},
          {"RUBATO_PROFILE_DIR", RUBATO_TEST_PROFILES_DIR},
          {"RUBATO_REPORT", dir.path() + "/report-%p.json"},
          {"RUBATO_POLICY", "hermes"}};
}

void run_some_tasks(Session& s) {
  Engine& e = s.engine();
  s.worker_started(0);
  s.worker_started(1);
  for (int i = 0; i < 20; ++i) {
    e.push(0);
    e.steal(1, 0);
    s.before_task(1);
    e.task_begin(1);
    e.task_end(1);
    s.after_task(1);
    e.idle(1);
  }
  s.worker_stopped(1);
  s.worker_stopped(0);
}

}  // namespace

TEST_CASE("Power.Session.EmulatedRunWritesReport") {
  test::TempDir dir;
  auto s = Session::open(base_env(dir, "emulated"), {"test", "none", true});
  REQUIRE(s);
  run_some_tasks(*s);
  const Report& r = s->finish();
  CHECK(r.backend == "emulated");
  CHECK(r.profile == "generic");
  CHECK(r.policy == "hermes");
  CHECK(r.energy.available);
  CHECK(r.energy.source == "modeled:generic");
  CHECK(r.energy.joules > 0);
  CHECK(r.workers.size() == 2);
  CHECK(r.frontend == "test");
  CHECK(r.backend_note.find("emulated") != std::string::npos);
  // Idempotent: the same report, and the file exists.
  CHECK(&s->finish() == &r);
  std::ifstream in(dir.path() + "/report-" + std::to_string(r.pid) + ".json");
  CHECK(in.good());
}

TEST_CASE("Power.Session.AutoNeverEmulates") {
  // No real back-end: auto records decisions only, and the note says why each
  // real one is not usable. The emulator would slow the program unasked.
  test::TempDir dir;
  auto s = Session::open(base_env(dir, "auto"), {"test", "none", true});
  REQUIRE(s);
  run_some_tasks(*s);
  const Report& r = s->finish();
  CHECK(r.backend == "dry-run");
  CHECK(r.backend_note.find("sysfs not usable") != std::string::npos);
  CHECK(r.backend_note.find("likwid not usable") != std::string::npos);
  for (const auto& w : r.workers) CHECK(w.emulated_delay_s == 0);
}

TEST_CASE("Power.Session.DryRunCountsDecisions") {
  test::TempDir dir;
  auto s = Session::open(base_env(dir, "dry-run"), {"test", "none", true});
  REQUIRE(s);
  run_some_tasks(*s);
  const Report& r = s->finish();
  CHECK(r.backend == "dry-run");
  std::uint64_t requested = 0, applied = 0;
  for (const auto& d : r.domains) requested += d.transitions, applied += d.applied_transitions;
  CHECK(requested > 0);
  CHECK(applied == requested);
}

TEST_CASE("Power.Session.UnwritableReportDoesNotCrash") {
  test::TempDir dir;
  auto env = base_env(dir, "emulated");
  env.push_back({"RUBATO_REPORT", "/nonexistent-dir/x/report.json"});
  auto s = Session::open(env, {"test", "none", true});
  REQUIRE(s);
  CHECK(s->finish().backend == "emulated");
}

TEST_CASE("Power.Session.DisabledReturnsNull") {
  test::TempDir dir;
  auto env = base_env(dir, "emulated");
  env.push_back({"RUBATO_ENABLE", "0"});
  CHECK(Session::open(env, {"test", "none", true}) == nullptr);
}

TEST_CASE("Power.Session.StaticBindingPinsWorkers") {
  test::TempDir dir;
  auto env = base_env(dir, "emulated");
  env.push_back({"RUBATO_BINDING", "static"});
  auto s = Session::open(env, {"test", "none", true});
  REQUIRE(s);
  s->worker_started(0);
  s->worker_started(0);  // idempotent
  s->worker_stopped(0);
  const Report& r = s->finish();
  REQUIRE(r.workers.size() == 1);
  CHECK(r.workers[0].core == 0);
}

TEST_CASE("Power.Session.EmulatedWorkersOnDistinctDomainsFirst") {
  // opteron-6378: 32 cores, 2 per domain -> 16 domains. As in [HERMES]
  // §4.1, workers get a clock domain each; the 17th shares with the first.
  test::TempDir dir;
  Environment env = base_env(dir, "emulated");
  env.push_back({"RUBATO_PROFILE", "opteron-6378"});
  env.push_back({"RUBATO_MAX_WORKERS", "17"});
  auto s = Session::open(env, {"test", "none", true});
  REQUIRE(s);
  for (WorkerId w = 0; w < 17; ++w) s->worker_started(w);
  const Report& r = s->finish();
  REQUIRE(r.domains.size() == 16);
  for (const DomainReport& d : r.domains) {
    INFO("domain " << d.id);
    if (d.workers.front() == 0) CHECK(d.workers == std::vector<WorkerId>{0, 16});
    else CHECK(d.workers.size() == 1);
  }
}
