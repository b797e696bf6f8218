// Workers sharing a clock domain get its fastest requested level (docs/design.md "The engine").
#include <catch2/catch.hpp>

#include "engine_fixture.hpp"

using namespace rubato;
using namespace rubato::test;

TEST_CASE("Engine.Domain.SharedDomainRunsAtFastestRequest", "[core][engine][domain]") {
  auto o = options_for(TempoPolicy::workpath, 3, 4);
  o.worker_domain = {0, 0, 1, 1};
  EngineFixture f(o);
  Engine& e = f.engine;
  for (WorkerId w = 0; w < 4; ++w) e.worker_begin(w);
  f.actuator.changes.clear();

  e.push(0);
  e.steal(2, 0);  // worker 2 alone slows: domain 1 = {2, 3}, worker 3 still fastest
  CHECK(e.level(2) == 1);
  CHECK(e.domain_level(2) == 0);
  CHECK(e.frequency_hz(2) == 2.4e9);
  CHECK(f.actuator.changes.empty());

  e.push(0);
  e.steal(3, 0);  // now both members slow: the domain follows
  CHECK(e.domain_level(3) == 1);
  REQUIRE(f.actuator.changes.size() == 1);
  CHECK(f.actuator.changes[0].domain == 1);
  CHECK(f.actuator.changes[0].level == 1);

  auto ds = e.domain_stats();
  REQUIRE(ds.size() == 2);
  CHECK(ds[1].transitions == 1);
  CHECK(ds[1].workers == std::vector<WorkerId>{2, 3});
}

TEST_CASE("Engine.Domain.ConflictsCounted", "[core][engine][domain]") {
  auto o = options_for(TempoPolicy::workpath, 3, 4);
  o.worker_domain = {0, 0, 1, 1};
  EngineFixture f(o);
  Engine& e = f.engine;
  for (WorkerId w = 0; w < 4; ++w) e.worker_begin(w);
  e.push(0);
  e.steal(2, 0);
  e.push(0);
  e.steal(3, 0);  // 3 -> level 1, 2 -> level 1 ; domain 1 at 1
  e.push(3);
  e.steal(1, 3);  // worker 1 -> level 2 while worker 0 stays 0: domain 0 unchanged
  e.idle(0);      // relay: 3 -> 0, 2 -> 0 ... domain 1 changes with members agreeing
  auto ds = e.domain_stats();
  REQUIRE(ds.size() == 2);
  CHECK(ds[0].transitions == 0);
  CHECK(ds[1].transitions >= 2);
}

TEST_CASE("Engine.Domain.FirstWorkerPublishesStartingTempo", "[core][engine][domain]") {
  EngineFixture f(options_for(TempoPolicy::hermes, 2, 2));
  f.engine.worker_begin(0);
  f.engine.worker_begin(0);  // re-entry is idempotent
  REQUIRE(f.actuator.changes.size() == 1);
  CHECK(f.actuator.changes[0].level == 0);
  CHECK(f.actuator.changes[0].hz == 2.4e9);
}

TEST_CASE("Engine.Events.OutOfRangeWorkersAreDroppedAndCounted", "[core][engine]") {
  EngineFixture f(options_for(TempoPolicy::hermes, 2, 2));
  f.engine.push(5);
  f.engine.steal(0, 9);
  f.engine.steal(1, 1);
  CHECK(f.engine.dropped_events() == 3);
}

TEST_CASE("Engine.Time.BusyTimeAtEachLevel", "[core][engine]") {
  EngineFixture f(options_for(TempoPolicy::workpath, 2, 2));
  Engine& e = f.engine;
  e.worker_begin(0);
  e.worker_begin(1);
  e.task_begin(0);
  f.clock.advance(1000);
  e.task_end(0);
  e.push(0);
  e.steal(1, 0);
  e.task_begin(1);
  f.clock.advance(500);
  e.task_end(1, false);  // suspended: a segment, not a completed task
  auto st = e.worker_stats();
  REQUIRE(st.size() == 2);
  CHECK(st[0].busy_ns_at_level[0] == 1000);
  CHECK(st[1].busy_ns_at_level[1] == 500);
  CHECK(st[1].segments == 1);
  CHECK(st[1].tasks_completed == 0);
  CHECK(st[0].tasks_completed == 1);
}

// A relay raising a slowed thief mid-task: only the part before the raise ran
// slow (real DVFS changes the rest of the task, not what already ran).
TEST_CASE("Engine.Time.SegmentSpanningALevelChangeIsSplit", "[core][engine]") {
  EngineFixture f(options_for(TempoPolicy::hermes, 2, 2));
  Engine& e = f.engine;
  e.worker_begin(0);
  e.worker_begin(1);
  e.push(0);
  e.steal(1, 0);  // thief 1 procrastinates: level 1
  REQUIRE(e.domain_level(1) == 1);
  e.task_begin(1);
  f.clock.advance(300);
  e.idle(0);  // victim out of work: relay raises thief 1 to level 0 mid-segment
  REQUIRE(e.domain_level(1) == 0);
  f.clock.advance(700);
  e.task_end(1);
  auto st = e.worker_stats();
  CHECK(st[1].busy_ns_at_level[1] == 300);
  CHECK(st[1].busy_ns_at_level[0] == 700);
  CHECK(st[1].segments == 1);
}

// task_end says when the worker is free for its next segment (after the
// stretch: the front-ends start the next segment there), and a level the
// actuator never stretches is not handed to it at all.
TEST_CASE("Engine.Time.TaskEndReturnsWhenTheWorkerIsFree", "[core][engine]") {
  ManualClock clock;
  SlowLevelStretcher stretcher(clock);
  Engine e(options_for(TempoPolicy::hermes, 2, 2), clock, stretcher);
  e.worker_begin(0);
  e.worker_begin(1);
  e.push(0);
  e.steal(1, 0);  // thief 1 procrastinates: level 1
  REQUIRE(e.domain_level(1) == 1);
  clock.set(1000);
  e.task_begin(1);
  clock.advance(200);
  CHECK(e.task_end(1) == 1400);  // 200 ns at level 1, then 200 ns of stretch
  CHECK(stretcher.calls == 1);
  e.task_begin(0);
  clock.advance(100);
  CHECK(e.task_end(0) == 1500);  // the fastest level: no stretch, no call
  CHECK(stretcher.calls == 1);
  CHECK(e.worker_stats()[1].busy_ns_at_level[1] == 200);
}
