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

// The OMPT fast paths split segment_end: they ask segment_end_reads_clock and,
// when it says no, call count_segment_end, leaving every end that reads the
// clock to segment_end. The prediction must match what segment_end does — in
// the chained cadence, after a level change inside the run, at a level the
// actuator stretches — and the split end must count what segment_end counts.
namespace {

struct PredictedEnds {
  int reads = 0;  // ends predicted to read the clock (and found to)
  int quiet = 0;
};

// `n` segment ends of worker 1, alternating segment_end and count_segment_end
// where no read is predicted; checks each prediction against the clock.
void end_segments(Engine& e, CountingClock& clock, int n, PredictedEnds& p) {
  Engine::Slot& s = *e.slot_of(1);
  for (int i = 0; i < n; ++i) {
    e.segment_begin(s);
    clock.manual.advance(10);
    const bool predicted = e.segment_end_reads_clock(s);
    const int reads_before = clock.reads;
    if (predicted || i % 2 == 0) e.segment_end(1, s, true);
    else e.count_segment_end(s, true);
    INFO("segment end " << i << " of " << n);
    CHECK((clock.reads > reads_before) == predicted);
    ++(predicted ? p.reads : p.quiet);
  }
}

}  // namespace

TEST_CASE("Engine.Runs.SegmentEndReadsClockPredictsTheRead", "[core][engine]") {
  CountingClock clock;
  PredictedEnds p;
  SECTION("the chained cadence and a level change inside the run") {
    RecordingActuator actuator;  // stretches nothing
    Engine e(options_for(TempoPolicy::hermes, 2, 2), clock, actuator);
    e.worker_begin(0);
    e.worker_begin(1);
    end_segments(e, clock, 20, p);  // reads at ends 1, 3, 7, 15: the next one is 11 ends away
    CHECK(p.reads == 4);
    e.push(0);
    e.steal(1, 0);  // thief 1 slowed inside its run: only the change calls for a read
    REQUIRE(e.domain_level(1) == 1);
    end_segments(e, clock, 3, p);
    CHECK(p.reads == 5);
    e.run_end(1);
    const WorkerStats st = e.worker_stats()[1];
    CHECK(st.segments == 23);
    CHECK(st.tasks_completed == 23);
    CHECK(st.busy_ns_at_level[0] == 200);  // the run before the change
    CHECK(st.busy_ns_at_level[1] == 30);   // ... and after it
  }
  SECTION("a stretched level") {
    SlowLevelStretcher stretcher(clock.manual);
    Engine e(options_for(TempoPolicy::hermes, 2, 2), clock, stretcher);
    e.worker_begin(0);
    e.worker_begin(1);
    e.push(0);
    e.steal(1, 0);  // thief 1 at level 1, which is stretched: every end reads
    REQUIRE(e.domain_level(1) == 1);
    end_segments(e, clock, 6, p);
    CHECK(p.reads == 6);
    CHECK(stretcher.calls == 6);
  }
}
