// slack (rubato's own, beyond the papers) lowers workers that wait longer
// than the dwell and raises them on their own next event; waiting time is
// counted under every policy.
#include <catch2/catch.hpp>

#include <atomic>
#include <thread>

#include "engine_fixture.hpp"

using namespace rubato;
using namespace rubato::test;

namespace {
constexpr std::uint64_t kMs = 1'000'000;

EngineOptions slack_options(TempoPolicy tempo, int levels, std::size_t workers = 4) {
  EngineOptions o = options_for(tempo, levels, workers);
  o.policy.slack = true;
  o.slack_dwell_ns = 1 * kMs;
  return o;
}
}  // namespace

TEST_CASE("Engine.Slack.WaitBeyondTheDwellIsLoweredAndRaisedAtWork", "[core][engine][slack]") {
  EngineFixture f(slack_options(TempoPolicy::baseline, 3));
  Engine& e = f.engine;
  REQUIRE(e.ladder().levels() == 2);  // baseline + slack: the fastest and the slowest
  CHECK(e.ladder().hz(1) == Approx(1.6e9));
  e.worker_begin(0);
  e.task_begin(0);
  f.clock.advance(2 * kMs);
  e.task_end(0);
  e.run_end(0);  // waits from 2 ms
  f.clock.advance(kMs / 2);
  CHECK(e.slack_sweep(f.clock.now_ns()) == 3 * kMs);  // due at 3 ms
  CHECK(e.domain_level(0) == 0);
  f.clock.advance(kMs / 2);
  CHECK(e.slack_sweep(f.clock.now_ns()) == Engine::kNever);
  CHECK(e.domain_level(0) == 1);
  CHECK(f.actuator.changes.back().level == 1);
  CHECK(e.level(0) == 0);  // the policy's own level is untouched
  f.clock.advance(2 * kMs);
  e.task_begin(0);  // work at 5 ms: raised at once
  CHECK(e.domain_level(0) == 0);
  CHECK(f.actuator.changes.back().level == 0);
  e.task_end(0);
  const WorkerStats s = e.worker_stats().front();
  CHECK(s.wait_ns == 3 * kMs);
  CHECK(s.wait_slowed_ns == 2 * kMs);
  CHECK(s.slowed_wakeups == 1);
  CHECK(s.busy_ns_at_level[1] == 0);  // no raise latency here: no work ran slowed
}

TEST_CASE("Engine.Slack.ShortWaitsAndSerialCodeAreNeverLowered", "[core][engine][slack]") {
  EngineFixture f(slack_options(TempoPolicy::baseline, 2));
  Engine& e = f.engine;
  e.worker_begin(0);
  e.run_end(0);
  f.clock.advance(kMs / 2);
  e.slack_sweep(f.clock.now_ns());
  e.task_begin(0);  // back before the dwell
  f.clock.advance(kMs);
  e.task_end(0);
  e.run_end(0);
  f.clock.advance(kMs / 4);
  e.serial_begin(0);  // the initial thread back in the program's serial part: working
  f.clock.advance(10 * kMs);
  CHECK(e.slack_sweep(f.clock.now_ns()) == Engine::kNever);
  CHECK(e.domain_level(0) == 0);
  const WorkerStats s = e.worker_stats().front();
  CHECK(s.wait_ns == kMs / 2 + kMs / 4);
  CHECK(s.wait_slowed_ns == 0);
  CHECK(s.slowed_wakeups == 0);
}

TEST_CASE("Engine.Slack.WaitIsCountedWithoutSlackAndNothingIsLowered", "[core][engine][slack]") {
  EngineFixture f(options_for(TempoPolicy::hermes, 2));
  Engine& e = f.engine;
  CHECK_FALSE(e.sweeps());
  e.worker_begin(0);
  e.run_end(0);
  f.clock.advance(5 * kMs);
  e.slack_sweep(f.clock.now_ns());
  CHECK(e.domain_level(0) == 0);
  e.task_begin(0);
  CHECK(e.worker_stats().front().wait_ns == 5 * kMs);
  // A wait still under way counts up to the snapshot.
  e.task_end(0);
  e.run_end(0);
  f.clock.advance(kMs);
  CHECK(e.worker_stats().front().wait_ns == 6 * kMs);
}

TEST_CASE("Engine.Slack.WakesToTheTempoPolicysLevel", "[core][engine][slack]") {
  // workpath + slack on 3 levels: a procrastinating thief (level 1) that then
  // waits is lowered to 2 and comes back to 1, its policy's level, not to 0.
  EngineFixture f(slack_options(TempoPolicy::workpath, 3));
  Engine& e = f.engine;
  e.worker_begin(0);
  e.worker_begin(1);
  e.task_begin(0);
  e.push(0);
  e.steal(1, 0);
  CHECK(e.level(1) == 1);
  e.task_begin(1);
  e.task_end(1);
  e.run_end(1);
  f.clock.advance(2 * kMs);
  e.slack_sweep(f.clock.now_ns());
  CHECK(e.domain_level(1) == 2);
  CHECK(e.domain_level(0) == 0);  // worker 0 works
  e.task_begin(1);
  CHECK(e.domain_level(1) == 1);
}

TEST_CASE("Engine.Slack.SharedDomainFollowsItsFastestMember", "[core][engine][slack]") {
  EngineOptions o = slack_options(TempoPolicy::baseline, 2);
  o.worker_domain = {0, 0};
  EngineFixture f(o);
  Engine& e = f.engine;
  e.worker_begin(0);
  e.worker_begin(1);
  e.run_end(1);  // worker 1 waits, worker 0 works (serial code)
  f.clock.advance(2 * kMs);
  e.slack_sweep(f.clock.now_ns());
  CHECK(e.domain_level(0) == 0);  // worker 0 keeps the shared domain fast
  e.run_end(0);
  f.clock.advance(2 * kMs);
  e.slack_sweep(f.clock.now_ns());
  CHECK(e.domain_level(0) == 1);  // both wait: the domain is lowered
  e.task_begin(1);
  CHECK(e.domain_level(0) == 0);
}

TEST_CASE("Engine.Slack.WorkBeforeTheRaiseLandsRunsSlowed", "[core][engine][slack]") {
  // A 100 us raise latency and an emulator-like actuator that stretches work
  // below the fastest level: a 40 us task right after the wake-up ends before
  // the raise lands (all of it slowed); the next one spans the landing.
  EngineOptions o = slack_options(TempoPolicy::baseline, 2);
  o.raise_latency_ns = 100'000;
  ManualClock clock;
  SlowLevelStretcher stretcher(clock);
  Engine e(o, clock, stretcher);
  e.worker_begin(0);
  e.run_end(0);
  clock.advance(2 * kMs);
  e.slack_sweep(clock.now_ns());
  REQUIRE(e.domain_level(0) == 1);
  e.task_begin(0);  // wake-up at 2 ms: the raise lands at 2.1 ms
  CHECK(e.domain_level(0) == 0);
  clock.advance(40'000);
  e.task_end(0);  // stretched by as much again: free at 2.08 ms
  CHECK(stretcher.calls == 1);
  e.task_begin(0);
  clock.advance(60'000);  // 2.08 .. 2.14: 20 us before the landing, 40 after
  e.task_end(0);
  CHECK(stretcher.calls == 2);
  const WorkerStats s = e.worker_stats().front();
  CHECK(s.busy_ns_at_level[1] == 40'000 + 20'000);
  CHECK(s.busy_ns_at_level[0] == 40'000);
  CHECK(s.raise_delay_ns == 100'000);
}

TEST_CASE("Engine.Slack.SweeperAndOwnerRaceLeavesAWorkerFast", "[core][engine][slack]") {
  // The sweeper lowers while the owner wakes, many times, on real threads:
  // whenever the owner works, its domain must end up at the fastest level.
  EngineOptions o = slack_options(TempoPolicy::baseline, 2);
  o.slack_dwell_ns = 1;  // every wait is due at once
  SteadyClock clock;
  RecordingActuator actuator;
  Engine e(o, clock, actuator);
  e.worker_begin(0);
  std::atomic<bool> stop{false};
  std::thread sweeper([&] {
    while (!stop.load(std::memory_order_relaxed)) e.slack_sweep(clock.now_ns());
  });
  int wrong = 0;
  for (int i = 0; i < 20000; ++i) {
    e.run_end(0);
    e.task_begin(0);
    wrong += e.domain_level(0) != 0;
    e.task_end(0);
  }
  stop = true;
  sweeper.join();
  CHECK(wrong == 0);
  const WorkerStats s = e.worker_stats().front();
  CHECK(s.slowed_wakeups <= 20000);
}
