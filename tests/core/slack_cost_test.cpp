// slack's cost test (rubato/core/tempo/slack_cost.hpp): the raise's cost and
// the break-even wait by hand, and the engine lowering a wait only once its
// saving has paid for the raise at its wake-up.
#include <catch2/catch.hpp>

#include <cmath>

#include "engine_fixture.hpp"
#include "rubato/core/tempo/slack_cost.hpp"

using namespace rubato;
using namespace rubato::test;

namespace {
constexpr std::uint64_t kMs = 1'000'000;

// 2 GHz / 1 GHz; busy 10 W / 3 W, idle 4 W / 1 W; β 1; a raise lands 100 us
// after it is asked for.
CostModel model(double uncore_w) {
  CostModel m({10, 3}, uncore_w, 1.0);
  m.idle_w = {4, 1};
  m.raise_latency_s = 100e-6;
  return m;
}

SlackContext among(int workers) {
  SlackContext c;
  c.workers = workers;
  return c;
}

EngineOptions slack_with_cost(double uncore_w) {
  EngineOptions o;
  o.policy.slack = true;
  o.ladder = TempoLadder({2e9, 1e9});
  o.max_workers = 2;
  o.slack_dwell_ns = kMs;
  o.cost = model(uncore_w);
  return o;
}

// Worker 1 works throughout; worker 0 starts waiting at 1 ms. From the
// sweep then on, one worker is active beside the waiting one: a raise's lost
// work is shared by two (m = 2).
void one_waits(EngineFixture& f) {
  f.engine.worker_begin(0);
  f.engine.worker_begin(1);
  f.engine.task_begin(1);
  f.clock.advance(kMs);
  f.engine.run_end(0);
  f.engine.slack_sweep(f.clock.now_ns());
}
}  // namespace

TEST_CASE("Core.SlackCost.RaiseCostAndBreakEvenByHand", "[core][slack]") {
  // At 1 GHz β-1 work takes twice as long (s = 2): in the 100 us before the
  // raise lands the worker does 50 us of work, the run waits 50 us longer.
  // Among 2 workers, uncore 20 W:
  //   ΔE = 3 x 100 us - 10 x 50 us + (20 + 1 x 4) x 50 us = 1.0 mJ
  //   time, at the run's power 2 x 10 + 20 = 40 W: 40 W x 50 us = 2.0 mJ
  // C = 3 mJ; ΔP = 4 - 1 = 3 W: lowering pays once the wait has lasted
  // 100 us + 3 mJ / 3 W = 1.1 ms.
  const SlackCost cost(TempoLadder({2e9, 1e9}), model(20));
  REQUIRE(cost.enabled());
  CHECK(cost.saving_w(0) == Approx(3.0));
  CHECK(cost.raise_cost_j(0, among(2)) == Approx(3e-3));
  CHECK(cost.lower_after_s(0, among(2)) == Approx(1.1e-3));
  // Uncore 200 W: ΔE = 0.3 - 0.5 + 204 x 0.05 = 10.0 mJ, time 220 W x 50 us
  // = 11 mJ: C = 21 mJ, pays after 100 us + 7 ms.
  const SlackCost dear(TempoLadder({2e9, 1e9}), model(200));
  CHECK(dear.raise_cost_j(0, among(2)) == Approx(21e-3));
  CHECK(dear.lower_after_s(0, among(2)) == Approx(7.1e-3));
  // More workers wait for the slowed work and pay for the run's time: among
  // 4, ΔE = 0.3 - 0.5 + (20 + 3 x 4) x 0.05 = 1.4 mJ, time 60 W x 50 us = 3 mJ.
  CHECK(cost.raise_cost_j(0, among(4)) == Approx(4.4e-3));
  CHECK(cost.raise_cost_j(0, among(0)) == cost.raise_cost_j(0, among(1)));
  // β 0.5: s = 1.5, 66.7 us of work done, 33.3 us lost:
  // ΔE = 0.3 - 10 x 66.67 us + 24 x 33.33 us = 0.4333 mJ, time 40 W x 33.33 us.
  SlackContext half = among(2);
  half.work = WorkSensitivity{0.5, 0};
  const double lost = 100e-6 / 3;
  CHECK(cost.raise_cost_j(0, half) == Approx(3 * 100e-6 - 10 * (100e-6 - lost) + 24 * lost + 40 * lost));
  // Shared by both workers (m = 2): the run lasts 25 us longer;
  // ΔE = (3 - 10) x 100 us + 10 x 50 us + 20 x 25 us = 0.3 mJ, which is the
  // guard's E' - E for the 50 us of work (m = n), and 40 W x 25 us = 1 mJ.
  SlackContext shared = among(2);
  shared.sharing = 2;
  CHECK(cost.raise_cost_j(0, shared) == Approx(1.3e-3));
  const CostGuard guard(TempoLadder({2e9, 1e9}), model(20));
  const double work_energy = (10 + 20 / 2.0) * 50e-6;
  CHECK(cost.raise_cost_j(0, shared) - 40 * 25e-6 == Approx(work_energy * (guard.energy_ratio(0, 1, 2) - 1)));
  shared.sharing = 5;  // no more than the run's workers
  CHECK(cost.raise_cost_j(0, shared) == Approx(1.3e-3));
  // A worker already at the slowest level has nothing to save: never lowered.
  CHECK(cost.saving_w(1) == 0);
  CHECK(std::isinf(cost.lower_after_s(1, among(2))));
}

TEST_CASE("Core.SlackCost.TheUncoresLevelTurnsTheVerdict", "[core][slack]") {
  // With min-energy moving the uncore, the raise is paid at the uncore's
  // power at its level now: 200 W at the fast level, 20 W at the slow one
  // (b_u = 0: the stretch is the same at both).
  CostModel m = model(57.5);
  m.uncore_hz = {3e9, 1.5e9};
  m.uncore_level_w = {200, 20};
  const SlackCost cost(TempoLadder({2e9, 1e9}), m);
  SlackContext c = among(2);
  c.uncore_level = 0;
  CHECK(cost.lower_after_s(0, c) == Approx(7.1e-3));
  c.uncore_level = 1;
  CHECK(cost.lower_after_s(0, c) == Approx(1.1e-3));
  c.uncore_level = -1;  // not known: the profile's constant
  CHECK(cost.raise_cost_j(0, c) == Approx(0.3e-3 - 0.5e-3 + (57.5 + 4) * 50e-6 + (20 + 57.5) * 50e-6));
}

TEST_CASE("Core.SlackCost.NeedsAnIdlePowerPerLevel", "[core][slack]") {
  CostModel m = model(20);
  m.idle_w = {4};
  CHECK_THROWS_AS(SlackCost(TempoLadder({2e9, 1e9}), m), std::invalid_argument);
  CHECK(SlackCost().lower_after_s(0, among(2)) == 0);  // no model: the dwell alone decides
}

TEST_CASE("Engine.Slack.LoweredOnceTheSavingBeatsTheRaise", "[core][engine][slack]") {
  // Uncore 200 W, the lost 50 us shared by both workers: ΔE = (3 - 10) x
  // 100 us + 10 x 50 us + 200 x 25 us = 4.8 mJ, the time 220 W x 25 us =
  // 5.5 mJ; a lowered wait saves 3 W: lowering pays from 100 us + 10.3 mJ /
  // 3 W = 3.533 ms of waiting on, not at the 1 ms dwell.
  EngineFixture f(slack_with_cost(200));
  Engine& e = f.engine;
  REQUIRE(e.slack_cost().enabled());
  one_waits(f);
  f.clock.advance(kMs);  // the dwell: not yet
  CHECK(e.slack_sweep(f.clock.now_ns()) == kMs + 3'533'333);
  CHECK(e.domain_level(0) == 0);
  f.clock.advance(2'533'333);  // 3.533 ms of waiting
  CHECK(e.slack_sweep(f.clock.now_ns()) == Engine::kNever);
  CHECK(e.domain_level(0) == 1);
  f.clock.advance(3 * kMs);
  e.task_begin(0);
  CHECK(e.domain_level(0) == 0);
  const WorkerStats s = e.worker_stats().front();
  CHECK(s.wait_slowed_ns == 3 * kMs);
  CHECK(s.slowed_wakeups == 1);
}

TEST_CASE("Engine.Slack.HeldWhereTheRaiseCostsMoreThanTheWaitSaves", "[core][engine][slack]") {
  // Uncore 2 kW (an exaggeration that makes the raise dear): ΔE = -0.2 mJ +
  // 2000 W x 25 us = 49.8 mJ, the time 2020 W x 25 us = 50.5 mJ, paid back
  // only after 100 us + 100.3 mJ / 3 W = 33.533 ms of waiting. A wait of
  // 5 ms, well past the dwell, stays fast and its wake-up runs nothing slowed.
  EngineFixture f(slack_with_cost(2000));
  Engine& e = f.engine;
  one_waits(f);
  for (int ms = 1; ms <= 5; ++ms) {
    f.clock.advance(kMs);
    CHECK(e.slack_sweep(f.clock.now_ns()) == kMs + 33'533'333);
    CHECK(e.domain_level(0) == 0);
  }
  e.task_begin(0);
  const WorkerStats s = e.worker_stats().front();
  CHECK(s.wait_ns == 5 * kMs);
  CHECK(s.wait_slowed_ns == 0);
  CHECK(s.slowed_wakeups == 0);
}

TEST_CASE("Engine.Slack.NothingToSaveIsNeverLowered", "[core][engine][slack]") {
  EngineOptions o = slack_with_cost(20);
  o.cost.idle_w = {2, 2};  // a waiting core draws as much at both levels
  EngineFixture f(o);
  Engine& e = f.engine;
  one_waits(f);
  f.clock.advance(1000 * kMs);
  CHECK(e.slack_sweep(f.clock.now_ns()) == Engine::kNever);
  CHECK(e.domain_level(0) == 0);
}
