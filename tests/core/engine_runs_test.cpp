// Chained segments (Engine::segment_begin / segment_end / run_end): busy time
// per run with as few clock reads as the accounting allows, and the same
// figures as one segment at a time would give.
#include <catch2/catch.hpp>

#include "engine_fixture.hpp"

using namespace rubato;
using namespace rubato::test;

namespace {

// A manual clock that counts how often it is read.
class CountingClock final : public Clock {
 public:
  std::uint64_t now_ns() const noexcept override {
    ++reads;
    return manual.now_ns();
  }
  ManualClock manual;
  mutable int reads = 0;
};

}  // namespace

TEST_CASE("Engine.Runs.ChainedSegmentsReadTheClockOnlyWhereNeeded", "[core][engine]") {
  CountingClock clock;
  RecordingActuator actuator;
  Engine e(options_for(TempoPolicy::baseline, 2, 2), clock, actuator);
  e.worker_begin(0);
  const int before = clock.reads;
  std::uint64_t total = 0;
  for (int i = 1; i <= 40; ++i) {
    e.segment_begin(0);
    clock.manual.advance(static_cast<std::uint64_t>(i));
    total += static_cast<std::uint64_t>(i);
    e.segment_end(0, true);
  }
  e.run_end(0);
  const WorkerStats s = e.worker_stats()[0];
  CHECK(s.segments == 40);
  CHECK(s.tasks_completed == 40);
  CHECK(s.busy_ns == total);
  CHECK(s.busy_ns_at_level[0] == total);
  // One read opens the run, one ends it; in between the reads double their
  // spacing while segments are short (1, 2, 4, ... ends apart).
  CHECK(clock.reads - before <= 8);
}

TEST_CASE("Engine.Runs.RunEndLeavesTheWaitOut", "[core][engine]") {
  EngineFixture f(options_for(TempoPolicy::baseline, 2, 2));
  Engine& e = f.engine;
  e.worker_begin(0);
  e.segment_begin(0);
  f.clock.advance(100);
  e.segment_end(0, false);
  e.segment_begin(0);  // chained: the same run
  f.clock.advance(30);
  e.segment_end(0, true);
  e.run_end(0);
  f.clock.advance(5000);  // waiting
  e.run_end(0);           // no run open: nothing
  e.segment_begin(0);     // a new run
  f.clock.advance(50);
  e.segment_end(0, true);
  e.run_end(0);
  const WorkerStats s = e.worker_stats()[0];
  CHECK(s.busy_ns == 180);
  CHECK(s.segments == 3);
}

// A front-end may end the run while a segment is open (the thread turned out
// to wait): the segment's end then measures nothing and opens no run.
TEST_CASE("Engine.Runs.SegmentEndAfterRunEndOpensNothing", "[core][engine]") {
  EngineFixture f(options_for(TempoPolicy::baseline, 2, 2));
  Engine& e = f.engine;
  e.worker_begin(0);
  e.segment_begin(0);
  f.clock.advance(10);
  e.run_end(0);
  f.clock.advance(1000);
  e.segment_end(0, true);  // the first end after a begin reads the clock
  f.clock.advance(500);    // waiting
  e.run_end(0);
  const WorkerStats s = e.worker_stats()[0];
  CHECK(s.busy_ns == 10);
  CHECK(s.segments == 1);
}

// Level changes in the middle of a run: each part ran at its own level, as
// with one segment at a time. The segment end after a change reads the clock,
// so that a second change in the same run cannot hide the first.
TEST_CASE("Engine.Runs.RunSpanningLevelChangesIsSplit", "[core][engine]") {
  EngineFixture f(options_for(TempoPolicy::hermes, 2, 2));
  Engine& e = f.engine;
  e.worker_begin(0);
  e.worker_begin(1);
  for (int i = 0; i < 3; ++i) {  // the read spacing grows to 4 ends
    e.segment_begin(1);
    f.clock.advance(10);
    e.segment_end(1, true);
  }
  e.push(0);
  e.steal(1, 0);  // thief 1 procrastinates: level 1
  REQUIRE(e.domain_level(1) == 1);
  e.segment_begin(1);
  f.clock.advance(300);
  e.idle(0);  // the victim runs out of work: the relay raises thief 1
  REQUIRE(e.domain_level(1) == 0);
  f.clock.advance(700);
  e.segment_end(1, true);
  e.push(0);
  e.steal(1, 0);  // slowed again, in the same run
  REQUIRE(e.domain_level(1) == 1);
  e.segment_begin(1);
  f.clock.advance(200);
  e.segment_end(1, true);
  e.run_end(1);
  const WorkerStats s = e.worker_stats()[1];
  CHECK(s.busy_ns_at_level[0] == 30 + 700);
  CHECK(s.busy_ns_at_level[1] == 300 + 200);
}

// At a level the actuator stretches, every chained segment is handed to it
// with its own length, and its stretch is not part of the next segment.
TEST_CASE("Engine.Runs.StretchedLevelSeesEverySegment", "[core][engine]") {
  ManualClock clock;
  SlowLevelStretcher stretcher(clock);
  Engine e(options_for(TempoPolicy::hermes, 2, 2), clock, stretcher);
  e.worker_begin(0);
  e.worker_begin(1);
  e.push(0);
  e.steal(1, 0);  // thief 1 at level 1, which the stretcher stretches
  REQUIRE(e.domain_level(1) == 1);
  e.segment_begin(1);
  clock.advance(200);
  e.segment_end(1, true);
  CHECK(stretcher.calls == 1);
  e.segment_begin(1);
  clock.advance(100);
  e.segment_end(1, true);
  CHECK(stretcher.calls == 2);
  e.run_end(1);
  CHECK(e.worker_stats()[1].busy_ns_at_level[1] == 300);
  CHECK(stretcher.calls == 2);
}

// Depth samples are taken at the run's clock reads: fine-grained segments
// still give about one sample per interval, long ones one per segment end.
TEST_CASE("Engine.Runs.DepthSamplesFollowTheInterval", "[core][engine]") {
  auto o = options_for(TempoPolicy::baseline, 2, 2);
  o.sample_interval_ns = 100'000;
  SECTION("fine-grained") {
    EngineFixture f(o);
    Engine& e = f.engine;
    e.worker_begin(0);
    for (int i = 0; i < 20'000; ++i) {  // 2 ms of 100 ns segments: ~20 intervals
      e.segment_begin(0);
      f.clock.advance(100);
      e.segment_end(0, true);
    }
    e.run_end(0);
    const WorkerStats s = e.worker_stats()[0];
    CHECK(s.depth_samples >= 15);
    CHECK(s.depth_samples <= 25);
    CHECK(s.busy_ns == 2'000'000);
  }
  SECTION("long") {
    EngineFixture f(o);
    Engine& e = f.engine;
    e.worker_begin(0);
    for (int i = 0; i < 20; ++i) {  // 20 segments of 1 ms
      e.segment_begin(0);
      f.clock.advance(1'000'000);
      e.segment_end(0, true);
    }
    e.run_end(0);
    const WorkerStats s = e.worker_stats()[0];
    CHECK(s.depth_samples >= 19);
    CHECK(s.busy_ns == 20'000'000);
  }
}
