// The cost guard inside the engine (rubato's own, beyond the papers): a
// slowing decision of the tempo policy goes through only where the model
// predicts that the run's energy-delay product falls.
#include <catch2/catch.hpp>

#include "engine_fixture.hpp"

using namespace rubato;
using namespace rubato::test;

namespace {
// hermes + guarded on 2.4 / 2.0 GHz; busy power per level and uncore given.
EngineOptions guarded(std::vector<double> busy_w, double uncore_w, double beta) {
  EngineOptions o = options_for(TempoPolicy::hermes, 2);
  o.policy.guarded = true;
  o.cost = CostModel{std::move(busy_w), uncore_w, beta};
  return o;
}

void steal_once(Engine& e) {
  e.worker_begin(0);
  e.worker_begin(1);
  e.task_begin(0);
  e.push(0);
  e.idle(1);
  e.steal(1, 0);
}
}  // namespace

TEST_CASE("Engine.Guard.HoldsAThiefWhereSlowingCostsEnergy", "[core][engine][guard]") {
  // 10 W -> 8 W for 1.2x the time at beta 1, with 40 W of uncore over 2
  // workers: (8 + 20) x 1.2 / 30 = 1.12 > 1. The thief keeps its tempo.
  EngineFixture f(guarded({10, 8}, 40, 1.0));
  steal_once(f.engine);
  CHECK(f.engine.level(1) == 0);
  CHECK(f.engine.immediacy().next(0) == 1);  // still the victim's thief: the relay works as before
  CHECK(f.engine.worker_stats()[1].guard_holds == 1);
}

TEST_CASE("Engine.Guard.LetsAThiefSlowWhereItSaves", "[core][engine][guard]") {
  // 10 W -> 5 W, no uncore, beta 1: 5 x 1.2 / 10 = 0.6 for 1.2x the time,
  // EDP ratio 0.8 < 1. As hermes.
  EngineFixture f(guarded({10, 5}, 0, 1.0));
  steal_once(f.engine);
  CHECK(f.engine.level(1) == 1);
  CHECK(f.engine.worker_stats()[1].guard_holds == 0);
  // The same decision at beta 0: slowing costs no time and saves power.
  EngineFixture g(guarded({10, 8}, 40, 0.0));
  steal_once(g.engine);
  CHECK(g.engine.level(1) == 1);
}

TEST_CASE("Engine.Guard.UncoreShareComesFromTheActiveWorkers", "[core][engine][guard]") {
  // 10 W -> 2 W, beta 1 (1.2x the time), 40 W uncore: the EDP ratio
  // (2 + s) x 1.2 / (10 + s) + 0.2 is below 1 only when the share s is below
  // 14 W: more than 2.9 active workers.
  EngineOptions o = guarded({10, 2}, 40, 1.0);
  o.policy.slack = true;  // the sweep counts the active workers
  o.max_workers = 32;
  EngineFixture f(o);
  for (WorkerId w = 2; w < 32; ++w) {
    f.engine.worker_begin(w);
    f.engine.serial_begin(w);
  }
  steal_once(f.engine);  // 32 seen, none swept yet: the share is 40 / 32
  CHECK(f.engine.level(1) == 1);
  // 30 of them wait: 2 active, share 20 W: the next slowing is held.
  for (WorkerId w = 2; w < 32; ++w) f.engine.run_end(w);
  f.engine.slack_sweep(f.clock.now_ns());
  f.engine.idle(0);  // the relay raises the thief back to the fastest level
  REQUIRE(f.engine.level(1) == 0);
  f.engine.push(0);
  f.engine.idle(1);
  f.engine.steal(1, 0);
  CHECK(f.engine.worker_stats()[1].guard_holds >= 1);
}

namespace {
// eco's guard on opteron-6378 (power/profiles): 2.4 GHz 5.391 W, 1.4 GHz
// 1.769 W, uncore 57.5 W, beta 0.3; `workers` seen and working.
EngineOptions opteron_beta03(std::size_t workers) {
  EngineOptions o = guarded({5.391, 1.769}, 57.5, 0.3);
  o.ladder = TempoLadder({2.4e9, 1.4e9});
  o.max_workers = workers;
  return o;
}
}  // namespace

TEST_CASE("Engine.Guard.HoldsAThiefWhoseSavingCostsTheRunMoreTime", "[core][engine][guard]") {
  // Among 4 working workers a slowed thief saves 0.8 % of its work's energy
  // (its busy power and uncore share, 0.9918) for 21 % more time: the run's
  // EDP rises (1.206, Core.CostGuard.RefusesASavingThatCostsMoreTimeThanItSaves).
  // Among 32 it saves 40 % (0.6024) for the same 21 %: it pays.
  auto thief_level = [](std::size_t workers) {
    EngineFixture f(opteron_beta03(workers));
    for (WorkerId w = 2; w < workers; ++w) {
      f.engine.worker_begin(w);
      f.engine.serial_begin(w);
    }
    steal_once(f.engine);
    return std::make_pair(f.engine.level(1), f.engine.worker_stats()[1].guard_holds);
  };
  const auto [level4, holds4] = thief_level(4);
  CHECK(level4 == 0);
  CHECK(holds4 == 1);
  const auto [level32, holds32] = thief_level(32);
  CHECK(level32 == 1);
  CHECK(holds32 == 0);
}

TEST_CASE("Engine.Guard.UncoreShareIsOverTheWorkersActiveOnAverage", "[core][engine][guard]") {
  // opteron-6378 at beta 0.3: a thief's slowing pays among more than about
  // 12 active workers. The share is over the workers active on average since
  // the last sweep, not over those active at the sweep: a sweep comes when a
  // wait reaches the dwell, which says little of the time in between.
  constexpr std::uint64_t kMs = 1'000'000;
  auto thief_level = [](bool waited_most_of_the_window) {
    EngineFixture f(opteron_beta03(32));
    Engine& e = f.engine;
    for (WorkerId w = 0; w < 32; ++w) e.worker_begin(w);
    e.task_begin(0);
    e.push(0);
    e.slack_sweep(f.clock.now_ns());  // all 32 active; no time yet: the count
    if (waited_most_of_the_window) {
      for (WorkerId w = 2; w < 32; ++w) e.run_end(w);
      f.clock.advance(10 * kMs);
      for (WorkerId w = 2; w < 32; ++w) e.serial_begin(w);  // all active again at the sweep
      f.clock.advance(10'000);
    } else {
      f.clock.advance(10 * kMs);
      for (WorkerId w = 2; w < 32; ++w) e.run_end(w);  // 30 wait at the sweep, for 10 us of the window
      f.clock.advance(10'000);
    }
    e.slack_sweep(f.clock.now_ns());
    e.idle(1);
    e.steal(1, 0);
    return e.level(1);
  };
  // 2 workers active on average (share 28.75 W), 32 at the sweep: held.
  CHECK(thief_level(true) == 0);
  // 31.97 on average (share 1.8 W), 2 at the sweep: it pays (worker 0 still
  // holds queued work, so the thief is not on the critical path).
  CHECK(thief_level(false) == 1);
}

TEST_CASE("Engine.Guard.PolicyNames", "[core][guard][policy]") {
  std::string error;
  const auto eco = parse_policy("eco", error);
  REQUIRE(eco);
  CHECK(eco->tempo == TempoPolicy::hermes);
  CHECK(eco->guarded);
  CHECK(eco->slack);
  CHECK(eco->min_energy);
  CHECK(eco->name() == "eco");
  CHECK(parse_policy("hermes+guarded+slack+min-energy", error)->name() == "eco");
  CHECK(parse_policy("min-energy+slack+guarded+hermes", error)->name() == "eco");
  CHECK(parse_policy("hermes+guarded+slack", error)->name() == "hermes+guarded+slack");
  const auto min_energy = parse_policy("min-energy", error);
  REQUIRE(min_energy);
  CHECK(min_energy->tempo == TempoPolicy::baseline);
  CHECK(min_energy->min_energy);
  CHECK(min_energy->name() == "min-energy");
  CHECK(min_energy->changes_tempo());
  CHECK(parse_policy("hermes+min-energy", error)->name() == "hermes+min-energy");
  CHECK(parse_policy("slack+min-energy+efs", error)->name() == "slack+min-energy+efs");
  CHECK(parse_policy(parse_policy("fixed:1.9GHz+min-energy", error)->name(), error)->name() ==
        "fixed:1.9GHz+min-energy");
  CHECK_FALSE(parse_policy("min_energy", error));
  CHECK(error.find("min_energy") != std::string::npos);
  const auto slack = parse_policy("slack", error);
  REQUIRE(slack);
  CHECK(slack->tempo == TempoPolicy::baseline);
  CHECK(slack->name() == "slack");
  CHECK(slack->changes_tempo());
  CHECK(parse_policy("hermes+slack", error)->name() == "hermes+slack");
  CHECK(parse_policy("workpath+slack+efs", error)->name() == "workpath+slack+efs");
  CHECK(parse_policy("hermes+guarded", error)->name() == "hermes+guarded");
  CHECK(parse_policy("eco+efs", error)->name() == "eco+efs");
  CHECK_FALSE(parse_policy("eco+hermes", error));  // two tempo policies
  CHECK_FALSE(parse_policy("baseline", error)->changes_tempo());
}
