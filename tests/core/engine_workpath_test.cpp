// [HERMES] §3.1, Fig. 3: workpath-sensitive tempo control, snapshot by snapshot.
#include <catch2/catch.hpp>

#include "engine_fixture.hpp"

using namespace rubato;
using namespace rubato::test;

TEST_CASE("Engine.Workpath.Figure3", "[core][engine][workpath]") {
  // Workers 1, 2, 3 of the figure are indices 1, 2, 3; four levels so the
  // "thief's thief" can be further slower without hitting the floor.
  EngineFixture f(options_for(TempoPolicy::workpath, 4));
  Engine& e = f.engine;
  for (WorkerId w = 1; w <= 3; ++w) e.worker_begin(w);

  // (a) worker 1 starts with a task of 100 units; everyone at the fastest tempo.
  e.task_begin(1);
  CHECK(e.level(1) == 0);
  CHECK(e.level(2) == 0);
  CHECK(e.level(3) == 0);

  // (b) a task of 94 units is pushed and stolen by worker 2: thief procrastination.
  e.push(1);
  e.idle(2);
  e.steal(2, 1);
  CHECK(e.level(1) == 0);
  CHECK(e.level(2) == 1);
  CHECK(e.level(3) == 0);
  CHECK(e.immediacy().next(1) == 2);

  // (c) worker 3 steals from worker 2 (a thief's thief): slower still.
  e.push(2);
  e.idle(3);
  e.steal(3, 2);
  CHECK(e.level(1) == 0);
  CHECK(e.level(2) == 1);
  CHECK(e.level(3) == 2);

  // (d)-(e) worker 1 finishes all its tasks: immediacy relay raises worker 2
  // and, transitively, worker 2's thief; worker 1 keeps its tempo while idle.
  e.task_end(1);
  e.idle(1);
  CHECK(e.level(1) == 0);
  CHECK(e.level(2) == 0);
  CHECK(e.level(3) == 1);
  CHECK_FALSE(e.immediacy().linked(1));
  CHECK_FALSE(e.immediacy().has_predecessor(2));
  CHECK(e.immediacy().next(2) == 3);

  // (f) worker 1 steals again, from worker 2: it becomes worker 2's most
  // immediate thief, ahead of worker 3.
  e.push(2);
  e.steal(1, 2);
  CHECK(e.level(1) == 1);
  CHECK(e.level(2) == 0);
  CHECK(e.level(3) == 1);
  CHECK(e.immediacy().next(2) == 1);
  CHECK(e.immediacy().next(1) == 3);
  CHECK(e.immediacy().prev(3) == 1);
}

TEST_CASE("Engine.Workpath.TwoLevelsFloor", "[core][engine][workpath]") {
  // With N = 2 a thief's thief cannot go below f2: DOWN(w, v) with v at fN
  // leaves w where it is.
  EngineFixture f(options_for(TempoPolicy::workpath, 2));
  Engine& e = f.engine;
  e.push(0);
  e.steal(1, 0);
  CHECK(e.level(1) == 1);
  e.push(1);
  e.steal(2, 1);
  CHECK(e.level(2) == 0);  // victim at fN: thief stays at its current (fastest) level
}

TEST_CASE("Engine.Workpath.RelayIsTransitiveOneLevelEach", "[core][engine][workpath]") {
  EngineFixture f(options_for(TempoPolicy::workpath, 5));
  Engine& e = f.engine;
  // chain 0 -> 1 -> 2 -> 3 at levels 0,1,2,3
  for (WorkerId w = 1; w < 4; ++w) {
    e.push(w - 1);
    e.steal(w, w - 1);
  }
  CHECK(e.level(3) == 3);
  e.idle(1);  // the middle leaves: only the workers after it go up, one level each
  CHECK(e.level(0) == 0);
  CHECK(e.level(2) == 1);
  CHECK(e.level(3) == 2);
  CHECK(e.immediacy().next(0) == 2);
}

TEST_CASE("Engine.Workpath.IdleFailingToStealKeepsTempo", "[core][engine][workpath]") {
  EngineFixture f(options_for(TempoPolicy::workpath, 3));
  Engine& e = f.engine;
  e.push(0);
  e.steal(1, 0);
  REQUIRE(e.level(1) == 1);
  e.idle(1);  // out of work; steal attempts fail: no frequency change ([HERMES] §3.4)
  e.idle(1);
  CHECK(e.level(1) == 1);
  CHECK_FALSE(e.immediacy().linked(1));
}

TEST_CASE("Engine.Workpath.StealWithoutIdleEndsOldRelationship", "[core][engine][workpath]") {
  EngineFixture f(options_for(TempoPolicy::workpath, 3));
  Engine& e = f.engine;
  e.push(0);
  e.steal(1, 0);  // 0 -> 1
  e.push(1);
  e.steal(2, 1);  // 0 -> 1 -> 2
  e.push(0);
  REQUIRE(e.level(2) == 2);
  e.steal(1, 0);                      // worker 1 steals again without an idle event: relay first
  CHECK(e.level(2) == 1);             // relayed by worker 1 leaving
  CHECK(e.level(1) == 1);             // then procrastinated behind worker 0
  CHECK(e.immediacy().next(0) == 1);  // and more immediate than worker 2
  CHECK(e.immediacy().next(1) == 2);
}

TEST_CASE("Engine.Baseline.NeverChangesTempo", "[core][engine]") {
  EngineFixture f(options_for(TempoPolicy::baseline, 3));
  Engine& e = f.engine;
  REQUIRE(e.ladder().levels() == 1);
  e.push(0);
  e.steal(1, 0);
  e.idle(0);
  CHECK(e.level(1) == 0);
  CHECK(e.frequency_hz(1) == 2.4e9);
  CHECK(e.worker_stats().size() == 0);  // no worker_begin: nothing "seen"
}

TEST_CASE("Engine.Fixed.RunsAtItsFrequency", "[core][engine]") {
  auto o = options_for(TempoPolicy::fixed, 3);
  o.policy.fixed_hz = 1.4e9;
  EngineFixture f(o);
  f.engine.worker_begin(0);
  CHECK(f.engine.frequency_hz(0) == 1.4e9);
  REQUIRE_FALSE(f.actuator.changes.empty());
  CHECK(f.actuator.changes.front().hz == 1.4e9);
}
