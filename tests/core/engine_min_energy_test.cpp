// The engine's part of min-energy and of the guard's critical path: the core
// ceiling for working workers, the workers' activity, and a slowing that the
// program would wait for.
#include <catch2/catch.hpp>

#include "engine_fixture.hpp"

using namespace rubato;
using namespace rubato::test;

namespace {
constexpr std::uint64_t kMs = 1'000'000;

EngineOptions with_min_energy(TempoPolicy tempo, int levels, std::size_t workers = 4) {
  EngineOptions o = options_for(tempo, levels, workers);
  o.policy.min_energy = true;
  return o;
}

// hermes + guarded, no uncore and beta 1: every slowing pays (busy power drops 4x).
EngineOptions guarded_hermes(std::size_t workers) {
  EngineOptions o = options_for(TempoPolicy::hermes, 2, workers);
  o.policy.guarded = true;
  o.cost = CostModel({10, 2.5}, 0, 1.0);
  return o;
}
}  // namespace

TEST_CASE("Engine.MinEnergy.CeilingHoldsWorkingWorkersAtOrBelowIt", "[core][engine][min-energy]") {
  EngineFixture f(with_min_energy(TempoPolicy::hermes, 3));
  Engine& e = f.engine;
  e.worker_begin(0);
  e.worker_begin(1);
  REQUIRE(e.domain_level(0) == 0);
  e.set_core_ceiling(1);
  CHECK(e.core_ceiling(0) == 1);
  CHECK(e.domain_level(0) == 1);
  CHECK(e.domain_level(1) == 1);
  CHECK(f.actuator.changes.back().level == 1);
  CHECK(e.level(0) == 0);  // the tempo policy's own level is untouched
  // hermes acts beneath it: a thief one below its victim goes to level 2.
  e.push(0);
  e.steal(1, 0);
  CHECK(e.level(1) == 1);
  CHECK(e.domain_level(1) == 1);  // max(policy 1, ceiling 1)
  e.push(0);
  e.steal(1, 0);  // victim 0 at level 0 (its domain at 1): the thief one below the victim's own level
  e.set_core_ceiling(0);
  CHECK(e.domain_level(0) == 0);
  CHECK(e.domain_level(1) == e.level(1));
  e.set_core_ceiling(99);  // clamped to the slowest
  CHECK(e.core_ceiling(1) == 2);
  CHECK(e.domain_level(0) == 2);
  CHECK(e.frequency_hz(0) == Approx(1.6e9));
}

TEST_CASE("Engine.MinEnergy.BaselineWithMinEnergyUsesTheWholeLadder", "[core][engine][min-energy]") {
  EngineFixture f(with_min_energy(TempoPolicy::baseline, 4));
  CHECK(f.engine.ladder().levels() == 4);
  EngineOptions plain = options_for(TempoPolicy::baseline, 4);
  CHECK(Engine::ladder_for(plain).levels() == 1);
}

TEST_CASE("Engine.MinEnergy.SlackStillLowersAWaitingWorkerBeneathTheCeiling", "[core][engine][min-energy]") {
  EngineOptions o = with_min_energy(TempoPolicy::baseline, 3);
  o.policy.slack = true;
  o.slack_dwell_ns = kMs;
  EngineFixture f(o);
  Engine& e = f.engine;
  e.worker_begin(0);
  e.set_core_ceiling(1);
  CHECK(e.domain_level(0) == 1);
  e.run_end(0);
  f.clock.advance(2 * kMs);
  e.slack_sweep(f.clock.now_ns());
  CHECK(e.domain_level(0) == 2);  // waiting: the slowest
  e.task_begin(0);
  CHECK(e.domain_level(0) == 1);  // working again: at the ceiling, not the fastest
}

TEST_CASE("Engine.MinEnergy.ActivityCountsWorkingAndWaitingWorkers", "[core][engine][min-energy]") {
  EngineFixture f(with_min_energy(TempoPolicy::baseline, 2));
  Engine& e = f.engine;
  CHECK(e.activity().working == 0);
  e.worker_begin(0);
  e.worker_begin(1);
  e.worker_begin(2);
  CHECK(e.activity().working == 3);
  e.run_end(1);
  e.run_end(2);
  CHECK(e.activity().working == 1);
  CHECK(e.activity().waiting == 2);
  e.task_begin(2);
  CHECK(e.activity().working == 2);
}

TEST_CASE("Engine.MinEnergy.WorkSensitivityIsReadAsOnePair", "[core][engine][min-energy]") {
  EngineFixture f(with_min_energy(TempoPolicy::baseline, 2));
  CHECK_FALSE(f.engine.work_sensitivity());
  f.engine.set_work_sensitivity({0.25, 0.5});
  REQUIRE(f.engine.work_sensitivity());
  CHECK(f.engine.work_sensitivity()->core == 0.25);
  CHECK(f.engine.work_sensitivity()->uncore == 0.5);
}

TEST_CASE("Engine.Guard.RefusesASlowingThatTheOthersWaitFor", "[core][engine][guard]") {
  // Worker 1 steals from 0 and fills its own queue; then 0 and 2 wait. When 1
  // drains its queue, workload sensitivity would slow it (it has a
  // predecessor): a saving by the model, but the program waits for it.
  auto run = [](bool others_wait) {
    EngineFixture f(guarded_hermes(3));
    Engine& e = f.engine;
    for (WorkerId w = 0; w < 3; ++w) e.worker_begin(w);
    e.task_begin(0);
    e.push(0);
    e.steal(1, 0);
    REQUIRE(e.level(1) == 1);  // thief procrastination: it pays
    e.task_begin(1);
    for (int i = 0; i < 3; ++i) e.push(1);  // band 2: raised
    REQUIRE(e.level(1) == 0);
    if (others_wait) {
      e.run_end(0);
      e.run_end(2);
    }
    e.slack_sweep(f.clock.now_ns());
    for (int i = 0; i < 3; ++i) e.pop(1);  // below both thresholds again
    return std::make_pair(e.level(1), e.worker_stats()[1].guard_holds);
  };
  const auto [level_alone, holds_alone] = run(true);
  CHECK(level_alone == 0);
  CHECK(holds_alone >= 1);
  const auto [level_shared, holds_shared] = run(false);
  CHECK(level_shared == 1);
  CHECK(holds_shared == 0);
}

TEST_CASE("Engine.Guard.SweepRaisesASlowedWorkerEveryoneWaitsFor", "[core][engine][guard]") {
  EngineFixture f(guarded_hermes(2));
  Engine& e = f.engine;
  e.worker_begin(0);
  e.worker_begin(1);
  e.task_begin(0);
  e.push(0);
  e.steal(1, 0);
  REQUIRE(e.level(1) == 1);
  e.slack_sweep(f.clock.now_ns());  // both work: nothing to raise
  CHECK(e.level(1) == 1);
  e.task_end(0);
  e.run_end(0);  // 0 waits for the work 1 took (no idle: no relay)
  e.slack_sweep(f.clock.now_ns());
  CHECK(e.level(1) == 0);
  CHECK(e.domain_level(1) == 0);
  CHECK(e.worker_stats()[1].critical_raises == 1);
  e.slack_sweep(f.clock.now_ns());  // already fast: counted once
  CHECK(e.worker_stats()[1].critical_raises == 1);
}

TEST_CASE("Engine.Guard.WeighsWithTheUncoreLevelTheControllerSet", "[core][engine][guard]") {
  // 10 W -> 3 W for twice the core part; uncore 3 GHz 30 W or 1.5 GHz 20 W;
  // b_c 0.2, b_u 0.6 (Core.CostGuard.TheUncoreLevelChangesTheVerdict): with 2
  // active workers the thief's slowing costs at the fast uncore, pays at the slow one.
  auto thief_level = [](int uncore_level) {
    EngineOptions o = options_for(TempoPolicy::hermes, 2, 2);
    o.ladder = TempoLadder({2e9, 1e9});
    o.policy.guarded = true;
    o.cost = CostModel({10, 3}, 30, 0.2);
    o.cost.uncore_sensitivity = 0.6;
    o.cost.uncore_hz = {3e9, 1.5e9};
    o.cost.uncore_level_w = {30, 20};
    o.cost.initial_uncore_level = 0;
    EngineFixture f(o);
    Engine& e = f.engine;
    CHECK(e.uncore_level() == 0);
    e.set_uncore_level(uncore_level);
    e.worker_begin(0);
    e.worker_begin(1);
    e.task_begin(0);
    e.push(0);
    e.steal(1, 0);
    return e.level(1);
  };
  CHECK(thief_level(0) == 0);
  CHECK(thief_level(1) == 1);
}
