// slack and eco (rubato's own, beyond the papers) through the OMPT tool on a
// real program: programs/phases.cpp alternates serial work on the initial
// thread with parallel regions of tasks, so the pool thread waits between
// regions far longer than the dwell. Under slack it is lowered there and raised
// when the next region gives it work; the initial thread's serial part is work
// and is never lowered. Results are unchanged under every policy.
#include <catch2/catch.hpp>

#include "fake_sysfs.hpp"
#include "read_report.hpp"
#include "reliability_paths.hpp"
#include "child_process.hpp"

using namespace rubato;

namespace {

// Serial phases far longer than the regions (a few ms, even under ASan): the
// initial thread's waits inside the regions (at the barrier, while the other
// thread ends the last task; longer when a loaded machine preempts that
// thread) stay well below its serial time, which is work.
constexpr int kRounds = 4, kSerialMs = 300;
const std::string kExpected = "total = 10336\n";  // 4 x fib(18)
constexpr double serial_s = kRounds * kSerialMs * 1e-3;
constexpr double pool_serial_s = (kRounds - 1) * kSerialMs * 1e-3;  // the serial phases after the first region

Report run_phases(const std::string& policy, test::TempDir& tmp) {
  const std::string report = tmp.path() + "/" + policy + ".json";
  const auto r = test::run_program({test::kPhases, std::to_string(kRounds), std::to_string(kSerialMs), "18"},
                                   {{"OMP_TOOL_LIBRARIES", test::kOmptTool},
                                    {"OMP_NUM_THREADS", "2"},
                                    {"RUBATO_POLICY", policy},
                                    {"RUBATO_BACKEND", "emulated"},
                                    {"RUBATO_PROFILE", "opteron-6378"},
                                    {"RUBATO_PROFILE_DIR", test::kProfilesDir},
                                    {"RUBATO_REPORT", report}},
                                   tmp.path() + "/" + policy);
  INFO(policy << ": " << r.status() << "\n" << r.err);
  REQUIRE(r.ok());
  CHECK(r.out == kExpected);
  CHECK(test::rubato_lines(r.err).empty());
  const auto rep = test::read_report(report);
  REQUIRE(rep);
  REQUIRE(rep->workers.size() == 2);
  return *rep;
}

const WorkerReport& initial(const Report& r) { return r.workers[0].id == 0 ? r.workers[0] : r.workers[1]; }
const WorkerReport& pool(const Report& r) { return r.workers[0].id == 0 ? r.workers[1] : r.workers[0]; }

}  // namespace

TEST_CASE("Ompt.Slack.WaitingIsCountedAndNothingLoweredUnderBaseline") {
  test::TempDir tmp;
  const Report r = run_phases("baseline", tmp);
  INFO("pool wait " << pool(r).wait_s << " s, initial wait " << initial(r).wait_s << " s");
  // The pool thread exists from the first region on: it waits through every serial phase after it.
  CHECK(pool(r).wait_s >= 0.8 * pool_serial_s);
  CHECK(initial(r).wait_s < 0.5 * serial_s);  // the initial thread works through them
  for (const auto& w : r.workers) {
    CHECK(w.wait_slowed_s == 0);
    CHECK(w.slowed_wakeups == 0);
  }
}

TEST_CASE("Ompt.Slack.PoolThreadLoweredBetweenRegionsSerialCodeNot") {
  test::TempDir tmp;
  const Report r = run_phases("slack", tmp);
  CHECK(r.policy == "slack");
  REQUIRE(r.frequencies_hz.size() == 2);  // the fastest and the slowest
  CHECK(r.parameters.count("slack_dwell_s") == 1);
  const WorkerReport& p = pool(r);
  INFO("pool: wait " << p.wait_s << " s, slowed " << p.wait_slowed_s << " s, wake-ups " << p.slowed_wakeups);
  CHECK(p.wait_slowed_s >= 0.7 * pool_serial_s);
  CHECK(p.wait_slowed_s <= p.wait_s);
  CHECK(p.slowed_wakeups >= kRounds - 1);  // lowered in every serial phase, raised by the next region
  CHECK(p.raise_delay_s == Approx(p.slowed_wakeups * 2e-5).margin(1e-9));  // the profile's latency each
  INFO("initial: wait " << initial(r).wait_s << " s, slowed " << initial(r).wait_slowed_s << " s");
  CHECK(initial(r).wait_slowed_s < 0.5 * serial_s);
  std::uint64_t transitions = 0;
  for (const auto& d : r.domains) transitions += d.transitions;
  CHECK(transitions >= 2 * (kRounds - 1));
}

TEST_CASE("Ompt.Slack.EcoGuardHoldsThievesWhereTheModelSaysSlowingCosts") {
  // opteron-6378 at 2 workers and beta 1: the uncore share (57.5 W / 2) makes
  // every thief slowing cost energy (tests/core/cost_guard_test.cpp), so eco
  // holds each one hermes makes; slack still lowers the waiting pool thread.
  test::TempDir tmp;
  const Report hermes = run_phases("hermes", tmp);
  const Report eco = run_phases("eco", tmp);
  CHECK(eco.policy == "eco");
  CHECK(eco.parameters.at("beta_source") == "profile:opteron-6378");
  std::uint64_t steals = 0, holds = 0;
  for (const auto& w : eco.workers) {
    steals += w.steals;
    holds += w.guard_holds;
  }
  REQUIRE(steals > 0);
  CHECK(holds > 0);
  CHECK(pool(eco).slowed_wakeups >= 1);
  for (const auto& w : hermes.workers) CHECK(w.guard_holds == 0);
}
