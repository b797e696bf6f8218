// The callback -> event mapping, driven by callback sequences recorded from
// libomp 16 (OMP_TOOL_LIBRARIES with a printing tool), without a runtime.
#include <catch2/catch.hpp>

#include <deque>
#include <filesystem>

#include "engine_fixture.hpp"
#include "rubato/core/config/settings.hpp"
#include "rubato/core/io/trace.hpp"
#include "rubato/power/session/session.hpp"
#include "task_event_mapper.hpp"

using namespace rubato;
using namespace rubato::ompt;

namespace {

// A Session over a local engine: what the mapper needs, nothing of the platform.
class TestSession final : public Session {
 public:
  explicit TestSession(EngineOptions o, bool stretch = false)
      : engine_(std::move(o), clock, stretched(actuator, clock, stretch)) {}
  Engine& engine() noexcept override { return engine_; }
  const Settings& settings() const noexcept override { return settings_; }
  void worker_started(WorkerId w) noexcept override {
    started.push_back(w);
    engine_.worker_begin(w);
  }
  void worker_stopped(WorkerId w) noexcept override {
    stopped.push_back(w);
    engine_.worker_end(w);
  }
  void before_task(WorkerId) noexcept override { ++before; }
  void after_task(WorkerId) noexcept override { ++after; }
  void note(std::string line) noexcept override { notes.push_back(std::move(line)); }
  void count_error() noexcept override { ++errors; }
  const Report& finish() noexcept override { return report_; }
  static TempoActuator& stretched(test::RecordingActuator& a, ManualClock& c, bool stretch) {
    if (stretch) a.stretch_clock = &c;
    return a;
  }

  ManualClock clock;
  test::RecordingActuator actuator;
  std::vector<WorkerId> started, stopped;
  std::vector<std::string> notes;
  int before = 0, after = 0, errors = 0;

 private:
  Engine engine_;
  Settings settings_;
  Report report_;
};

EngineOptions options(TempoPolicy policy = TempoPolicy::baseline, std::size_t workers = 8) {
  return test::options_for(policy, 2, workers);
}

// Task and thread data the way libomp hands them out: stable addresses.
struct Rig {
  explicit Rig(EngineOptions o = options(), TraceFileWriter* trace = nullptr, MapperOptions mo = {},
               bool stretch = false)
      : session(std::move(o), stretch), mapper(session, trace, session.clock, 0, mo) {}
  ompt_data_t* task() { return &tasks.emplace_back(ompt_data_t{0}); }
  ompt_data_t* thread() { return &threads.emplace_back(ompt_data_t{0}); }

  // A worker thread that joined a team as OpenMP thread `index` and waits at its barrier.
  ompt_data_t* worker_at_barrier(unsigned index, ompt_data_t*& implicit) {
    ompt_data_t* th = thread();
    mapper.thread_begin(ompt_thread_worker, th);
    implicit = task();
    mapper.implicit_task(th, ompt_scope_begin, implicit, index, ompt_task_implicit);
    mapper.sync_region_wait(th, ompt_sync_region_barrier_implicit, ompt_scope_begin, implicit);
    return th;
  }
  // The initial thread inside a parallel region as OpenMP thread 0.
  ompt_data_t* master(ompt_data_t*& implicit) {
    ompt_data_t* th = thread();
    mapper.thread_begin(ompt_thread_initial, th);
    mapper.implicit_task(th, ompt_scope_begin, task(), 1, ompt_task_initial);
    implicit = task();
    mapper.implicit_task(th, ompt_scope_begin, implicit, 0, ompt_task_implicit);
    return th;
  }
  ompt_data_t* create(ompt_data_t* th, ompt_data_t* parent, int flags = ompt_task_explicit) {
    ompt_data_t* t = task();
    mapper.task_create(th, parent, t, flags);
    return t;
  }
  WorkerStats stats(WorkerId w) {
    for (const auto& s : session.engine().worker_stats())
      if (s.id == w) return s;
    FAIL("worker " << w << " not seen");
    return {};
  }

  std::deque<ompt_data_t> tasks, threads;
  TestSession session;
  TaskEventMapper mapper;
};

constexpr auto kSwitch = ompt_task_switch;
constexpr auto kComplete = ompt_task_complete;

}  // namespace

TEST_CASE("Ompt.Mapper.WorkerIndexIsTheFirstTeamThreadNumber", "[ompt][mapper]") {
  Rig rig;
  ompt_data_t *i0 = nullptr, *i2 = nullptr, *i1 = nullptr;
  rig.master(i0);
  // Workers begin in any order; each gets its OpenMP thread number.
  rig.worker_at_barrier(2, i2);
  rig.worker_at_barrier(1, i1);
  CHECK(rig.session.started == std::vector<WorkerId>{0, 2, 1});
  // An inner team's thread 1 finds index 1 taken and gets the lowest free one.
  ompt_data_t* inner = nullptr;
  rig.worker_at_barrier(1, inner);
  CHECK(rig.session.started.back() == 3);
}

TEST_CASE("Ompt.Mapper.ThreadsBeyondMaxWorkersAreCountedNotObserved", "[ompt][mapper]") {
  Rig rig(options(TempoPolicy::baseline, 2));
  ompt_data_t *i0 = nullptr, *i1 = nullptr, *i2 = nullptr;
  ompt_data_t* m = rig.master(i0);
  rig.worker_at_barrier(1, i1);
  ompt_data_t* extra = rig.worker_at_barrier(2, i2);
  CHECK(rig.session.started == std::vector<WorkerId>{0, 1});
  // The third thread steals a task of worker 0: the engine cannot attribute it.
  ompt_data_t* t = rig.create(m, i0);
  rig.mapper.task_schedule(extra, i2, kSwitch, t);
  rig.mapper.task_schedule(extra, t, kComplete, i2);
  CHECK(rig.session.engine().dropped_events() == 1);
  rig.mapper.finish();
  REQUIRE(rig.session.notes.size() == 1);
  CHECK(rig.session.notes[0].find("1 threads found all 2 worker slots taken") != std::string::npos);
}

TEST_CASE("Ompt.Mapper.WorkerIdentitySurvivesRegions", "[ompt][mapper]") {
  Rig rig;
  ompt_data_t* i0 = nullptr;
  ompt_data_t* m = rig.master(i0);
  ompt_data_t* w1 = rig.thread();
  rig.mapper.thread_begin(ompt_thread_worker, w1);
  for (int region = 0; region < 300; ++region) {
    ompt_data_t* imp = rig.task();
    // A hot-team worker gets a different thread number in a later team: it keeps its index.
    rig.mapper.implicit_task(w1, ompt_scope_begin, imp, region == 0 ? 1 : 3, ompt_task_implicit);
    ompt_data_t* t = rig.create(m, i0);
    rig.mapper.task_schedule(w1, imp, kSwitch, t);
    rig.mapper.task_schedule(w1, t, kComplete, imp);
    rig.mapper.implicit_task(w1, ompt_scope_end, imp, 0, ompt_task_implicit);
  }
  CHECK(rig.session.started == std::vector<WorkerId>{0, 1});
  CHECK(rig.stats(1).steals == 300);
  CHECK(rig.stats(0).stolen_from == 300);
  CHECK(rig.session.errors == 0);
}

// libomp 16, fib(3) on 2 threads (see the recorded sequence in the test name's
// scenario): worker 0 creates a and b, pops b, worker 1 steals a, creates two
// children, worker 0 steals one of them.
TEST_CASE("Ompt.Mapper.FibSequenceGivesPushPopStealAndIdle", "[ompt][mapper]") {
  Rig rig(options(TempoPolicy::hermes));
  ompt_data_t *i0 = nullptr, *i1 = nullptr;
  ompt_data_t* m = rig.master(i0);
  ompt_data_t* a = rig.create(m, i0);
  ompt_data_t* b = rig.create(m, i0);
  rig.mapper.sync_region_wait(m, ompt_sync_region_taskwait, ompt_scope_begin, i0);
  rig.mapper.task_schedule(m, i0, kSwitch, b);
  rig.mapper.task_schedule(m, b, kComplete, i0);
  CHECK(rig.stats(0).idles == 0);  // a is still queued on worker 0

  ompt_data_t* w = rig.worker_at_barrier(1, i1);
  CHECK(rig.stats(1).idles == 1);               // arrived at the barrier with nothing queued
  rig.mapper.task_schedule(w, i1, kSwitch, a);  // steal
  ompt_data_t* c1 = rig.create(w, a);
  ompt_data_t* c2 = rig.create(w, a);
  rig.mapper.sync_region_wait(w, ompt_sync_region_taskwait, ompt_scope_begin, a);
  rig.mapper.task_schedule(w, a, kSwitch, c2);   // pop
  rig.mapper.task_schedule(m, i0, kSwitch, c1);  // worker 0 steals while waiting for a
  rig.mapper.task_schedule(w, c2, kComplete, a);
  // Worker 1 is back in a's taskwait, nothing queued, and c1 runs elsewhere: idle.
  CHECK(rig.stats(1).idles == 2);
  rig.mapper.task_schedule(m, c1, kComplete, i0);
  CHECK(rig.stats(0).idles == 1);  // a (its child) runs on worker 1
  rig.mapper.sync_region_wait(w, ompt_sync_region_taskwait, ompt_scope_end, a);
  rig.mapper.task_schedule(w, a, kComplete, i1);
  CHECK(rig.stats(1).idles == 3);  // back at the barrier
  rig.mapper.sync_region_wait(m, ompt_sync_region_taskwait, ompt_scope_end, i0);

  const WorkerStats s0 = rig.stats(0), s1 = rig.stats(1);
  CHECK(s0.pushes == 2);
  CHECK(s0.pops == 1);
  CHECK(s0.steals == 1);
  CHECK(s0.stolen_from == 1);
  CHECK(s1.pushes == 2);
  CHECK(s1.pops == 1);
  CHECK(s1.steals == 1);
  CHECK(s1.stolen_from == 1);
  CHECK(s0.tasks_completed + s1.tasks_completed == 4);
  CHECK(rig.session.engine().depth(0) == 0);
  CHECK(rig.session.engine().depth(1) == 0);
  CHECK(rig.session.errors == 0);
}

TEST_CASE("Ompt.Mapper.TaskwaitWhoseChildrenRanHereIsNotIdle", "[ompt][mapper]") {
  Rig rig(options(TempoPolicy::hermes));
  ompt_data_t* i0 = nullptr;
  ompt_data_t* m = rig.master(i0);
  ompt_data_t* x = rig.create(m, i0);
  rig.mapper.task_schedule(m, i0, ompt_task_yield, x);
  ompt_data_t* c1 = rig.create(m, x);
  ompt_data_t* c2 = rig.create(m, x);
  rig.mapper.sync_region_wait(m, ompt_sync_region_taskwait, ompt_scope_begin, x);
  rig.mapper.task_schedule(m, x, kSwitch, c2);
  rig.mapper.task_schedule(m, c2, kComplete, x);
  rig.mapper.task_schedule(m, x, kSwitch, c1);
  rig.mapper.task_schedule(m, c1, kComplete, x);
  // Queue empty, but every child ran here and finished: the wait ends at once.
  CHECK(rig.stats(0).idles == 0);
  rig.mapper.sync_region_wait(m, ompt_sync_region_taskwait, ompt_scope_end, x);
  rig.mapper.task_schedule(m, x, kComplete, i0);
  CHECK(rig.stats(0).pops == 3);
  CHECK(rig.stats(0).tasks_completed == 3);
}

// clang's untied task: part 0 re-queues the task without running user code; the
// task's start is where the next part runs.
TEST_CASE("Ompt.Mapper.UntiedLaunchStubIsNotTheStart", "[ompt][mapper]") {
  Rig rig;
  ompt_data_t *i0 = nullptr, *i1 = nullptr;
  ompt_data_t* m = rig.master(i0);
  ompt_data_t* u = rig.create(m, i0, ompt_task_explicit | ompt_task_untied);
  rig.mapper.sync_region_wait(m, ompt_sync_region_barrier_implicit, ompt_scope_begin, i0);
  rig.mapper.task_schedule(m, i0, kSwitch, u);  // the launch stub on worker 0
  rig.mapper.task_schedule(m, u, kSwitch, i0);  // re-queued
  CHECK(rig.stats(0).pops == 0);
  CHECK(rig.session.engine().depth(0) == 1);
  ompt_data_t* w = rig.worker_at_barrier(1, i1);
  rig.mapper.task_schedule(w, i1, kSwitch, u);  // user code starts on worker 1: a steal
  ompt_data_t* child = rig.create(w, u);
  rig.mapper.task_schedule(w, u, kSwitch, i1);  // untied part ends, re-queued
  rig.mapper.task_schedule(m, i0, kSwitch, u);  // resumes on worker 0: not a start
  rig.mapper.task_schedule(m, u, kSwitch, i0);
  rig.mapper.task_schedule(w, i1, kSwitch, child);
  rig.mapper.task_schedule(w, child, kComplete, i1);
  rig.mapper.task_schedule(w, i1, kSwitch, u);
  rig.mapper.task_schedule(w, u, kComplete, i1);
  CHECK(rig.stats(1).steals == 1);
  CHECK(rig.stats(0).stolen_from == 1);
  CHECK(rig.stats(0).steals == 0);
  CHECK(rig.stats(1).pops == 1);
  CHECK(rig.stats(0).tasks_completed + rig.stats(1).tasks_completed == 2);
  CHECK(rig.session.errors == 0);
}

// libomp reports an untied task's completion from the part that returns
// last (td_untied_count). Here worker 0's part re-queues the task and is
// still returning when worker 1's part ends the body: worker 1 returns
// silently, and worker 0 then reports the completion of a task whose frame it
// no longer has. The completion is worker 1's, revealed by its next callback.
TEST_CASE("Ompt.Mapper.UntiedLastPartEndsSilentlyElsewhere", "[ompt][mapper]") {
  Rig rig;
  ompt_data_t *i0 = nullptr, *i1 = nullptr;
  ompt_data_t* m = rig.master(i0);
  ompt_data_t* u = rig.create(m, i0, ompt_task_explicit | ompt_task_untied);
  rig.mapper.sync_region_wait(m, ompt_sync_region_barrier_implicit, ompt_scope_begin, i0);
  rig.mapper.task_schedule(m, i0, kSwitch, u);  // launch stub
  rig.mapper.task_schedule(m, u, kSwitch, i0);  // re-queued
  rig.mapper.task_schedule(m, i0, kSwitch, u);  // part 1 on worker 0: a pop
  rig.mapper.task_schedule(m, u, kSwitch, i0);  // re-queued; the part has not returned yet
  ompt_data_t* w = rig.worker_at_barrier(1, i1);
  rig.mapper.task_schedule(w, i1, kSwitch, u);    // the last part, on worker 1; returns silently
  rig.mapper.task_schedule(m, u, kComplete, i0);  // worker 0's part returns last
  CHECK(rig.stats(0).tasks_completed == 0);       // not worker 0's: the body ended on worker 1
  CHECK(rig.session.errors == 0);
  rig.mapper.sync_region_wait(w, ompt_sync_region_barrier_implicit, ompt_scope_end, i1);  // worker 1's next callback
  CHECK(rig.stats(1).tasks_completed == 1);
  CHECK(rig.stats(0).pops == 1);
  CHECK(rig.session.errors == 0);
  // Worker 1's stack is back to its implicit task: the region ends cleanly.
  rig.mapper.implicit_task(w, ompt_scope_end, i1, 1, ompt_task_implicit);
  rig.mapper.sync_region_wait(m, ompt_sync_region_barrier_implicit, ompt_scope_end, i0);
  rig.mapper.implicit_task(m, ompt_scope_end, i0, 0, ompt_task_implicit);
  CHECK(rig.session.errors == 0);
}

// A re-queue that cannot queue the task (a serialized team, final, a full
// deque) runs the next part at once, nested; libomp names the task twice
// (task_schedule(T, switch, T)) both for that start and for the nested part's
// own re-queue. Recorded from a one-thread team.
TEST_CASE("Ompt.Mapper.UntiedPartsRunNestedWhenNotQueued", "[ompt][mapper]") {
  Rig rig;
  ompt_data_t* i0 = nullptr;
  ompt_data_t* m = rig.master(i0);
  ompt_data_t* u = rig.create(m, i0, ompt_task_explicit | ompt_task_untied | ompt_task_undeferred);
  rig.mapper.task_schedule(m, i0, kSwitch, u);  // part 0 (the launch stub), undeferred
  rig.mapper.task_schedule(m, u, kSwitch, i0);  // its re-queue
  rig.mapper.task_schedule(m, u, kSwitch, u);   // not queued: part 1 runs nested
  ompt_data_t* c = rig.create(m, u, ompt_task_explicit | ompt_task_undeferred);
  rig.mapper.task_schedule(m, u, kSwitch, c);
  rig.mapper.task_schedule(m, c, kComplete, u);
  rig.mapper.task_schedule(m, u, kSwitch, u);  // part 1's re-queue
  rig.mapper.task_schedule(m, u, kSwitch, u);  // part 2, nested
  rig.mapper.sync_region_wait(m, ompt_sync_region_taskwait, ompt_scope_begin, u);
  rig.mapper.sync_region_wait(m, ompt_sync_region_taskwait, ompt_scope_end, u);
  rig.mapper.task_schedule(m, u, kSwitch, u);
  rig.mapper.task_schedule(m, u, kSwitch, u);     // the last part
  rig.mapper.task_schedule(m, u, kComplete, i0);  // the outermost part returns: complete
  CHECK(rig.session.errors == 0);
  CHECK(rig.stats(0).tasks_completed == 2);
  rig.mapper.sync_region_wait(m, ompt_sync_region_barrier_implicit, ompt_scope_begin, i0);
  rig.mapper.sync_region_wait(m, ompt_sync_region_barrier_implicit, ompt_scope_end, i0);
  rig.mapper.implicit_task(m, ompt_scope_end, i0, 0, ompt_task_implicit);
  CHECK(rig.session.errors == 0);
}

// Nesting deeper than the frames a thread state holds: kept in frames grown
// on demand, so waits deep down are still seen (no note, no error).
TEST_CASE("Ompt.Mapper.NestingDeeperThanTheInlineFrames", "[ompt][mapper]") {
  Rig rig;
  ompt_data_t* i0 = nullptr;
  ompt_data_t* m = rig.master(i0);
  constexpr int kDepth = 3 * static_cast<int>(kMaxFrames) + 7;
  std::vector<ompt_data_t*> chain{i0};
  for (int d = 0; d < kDepth; ++d) {
    ompt_data_t* t = rig.create(m, chain.back());
    rig.mapper.sync_region_wait(m, ompt_sync_region_taskwait, ompt_scope_begin, chain.back());
    rig.mapper.task_schedule(m, chain.back(), kSwitch, t);
    chain.push_back(t);
  }
  for (int d = kDepth; d > 0; --d) {
    rig.mapper.task_schedule(m, chain[d], kComplete, chain[d - 1]);
    rig.mapper.sync_region_wait(m, ompt_sync_region_taskwait, ompt_scope_end, chain[d - 1]);
  }
  CHECK(rig.stats(0).tasks_completed == static_cast<std::uint64_t>(kDepth));
  CHECK(rig.stats(0).pops == static_cast<std::uint64_t>(kDepth));
  CHECK(rig.session.errors == 0);
  rig.mapper.finish();
  CHECK(rig.session.notes.empty());
}

TEST_CASE("Ompt.Mapper.UndeferredAndThrottledTasks", "[ompt][mapper]") {
  Rig rig;
  ompt_data_t* i0 = nullptr;
  ompt_data_t* m = rig.master(i0);
  // if(0) / final / serialized: never queued.
  ompt_data_t* u = rig.create(m, i0, ompt_task_explicit | ompt_task_undeferred);
  rig.mapper.task_schedule(m, i0, kSwitch, u);
  rig.mapper.task_schedule(m, u, kComplete, i0);
  // Deque full with throttling: created deferred (a push), run at once by its creator (a pop).
  ompt_data_t* t = rig.create(m, i0);
  rig.mapper.task_schedule(m, i0, kSwitch, t);
  rig.mapper.task_schedule(m, t, kComplete, i0);
  const WorkerStats s = rig.stats(0);
  CHECK(s.pushes == 1);
  CHECK(s.pops == 1);
  CHECK(s.tasks_completed == 2);
  CHECK(rig.session.engine().depth(0) == 0);
}

TEST_CASE("Ompt.Mapper.SegmentsCoverImplicitAndExplicitWork", "[ompt][mapper]") {
  MapperOptions mo;
  mo.dynamic_binding = true;
  Rig rig(options(), nullptr, mo);
  ompt_data_t* i0 = nullptr;
  ompt_data_t* m = rig.master(i0);  // implicit task: one segment open
  rig.session.clock.advance(100);
  ompt_data_t* t = rig.create(m, i0);
  rig.mapper.task_schedule(m, i0, kSwitch, t);  // implicit segment ends, t's begins
  rig.session.clock.advance(1000);
  rig.mapper.task_schedule(m, t, kComplete, i0);
  rig.session.clock.advance(10);
  rig.mapper.sync_region_wait(m, ompt_sync_region_barrier_implicit, ompt_scope_begin, i0);
  rig.session.clock.advance(5000);  // waiting: not busy
  rig.mapper.sync_region_wait(m, ompt_sync_region_barrier_implicit, ompt_scope_end, i0);
  rig.mapper.implicit_task(m, ompt_scope_end, i0, 0, ompt_task_implicit);
  const WorkerStats s = rig.stats(0);
  CHECK(s.busy_ns == 1110);
  CHECK(s.segments == 4);  // implicit, t, implicit, implicit (after the wait)
  CHECK(s.tasks_completed == 1);
  CHECK(rig.session.before == 4);
  CHECK(rig.session.after == 4);
}

// The emulator burns its stretch after a segment's end was read: the next
// segment must not start at that (reused) stamp, or it would contain the burn
// and be stretched again — compounding the requested slowdown.
TEST_CASE("Ompt.Mapper.EmulatedStretchIsNotPartOfTheNextSegment", "[ompt][mapper]") {
  std::uint64_t busy[2] = {};
  for (bool stretch : {false, true}) {
    Rig rig(options(), nullptr, {}, stretch);
    ompt_data_t* i0 = nullptr;
    ompt_data_t* m = rig.master(i0);
    rig.session.clock.advance(100);
    ompt_data_t* t = rig.create(m, i0);
    ompt_data_t* u = rig.create(m, i0);
    rig.mapper.task_schedule(m, i0, kSwitch, t);  // implicit segment ends (stretched), t's starts
    rig.session.clock.advance(1000);
    rig.mapper.task_schedule(m, t, kComplete, i0);
    rig.mapper.task_schedule(m, i0, kSwitch, u);
    rig.session.clock.advance(300);
    rig.mapper.task_schedule(m, u, kComplete, i0);
    rig.mapper.implicit_task(m, ompt_scope_end, i0, 0, ompt_task_implicit);
    busy[stretch] = rig.stats(0).busy_ns;
  }
  CHECK(busy[0] == 1400);
  CHECK(busy[1] == busy[0]);
}

TEST_CASE("Ompt.Mapper.NestedRegionSuspendsTheEnclosingSegment", "[ompt][mapper]") {
  Rig rig;
  ompt_data_t* i0 = nullptr;
  ompt_data_t* m = rig.master(i0);
  ompt_data_t* inner = rig.task();
  rig.session.clock.advance(10);
  rig.mapper.implicit_task(m, ompt_scope_begin, inner, 0, ompt_task_implicit);
  rig.session.clock.advance(20);
  rig.mapper.implicit_task(m, ompt_scope_end, inner, 0, ompt_task_implicit);
  rig.session.clock.advance(30);
  rig.mapper.implicit_task(m, ompt_scope_end, i0, 0, ompt_task_implicit);
  CHECK(rig.stats(0).busy_ns == 60);
  CHECK(rig.stats(0).segments == 3);
  CHECK(rig.session.errors == 0);
}

TEST_CASE("Ompt.Mapper.UnexpectedSequencesAreCountedNotFatal", "[ompt][mapper]") {
  Rig rig;
  ompt_data_t* i0 = nullptr;
  ompt_data_t* m = rig.master(i0);
  ompt_data_t* stranger = rig.task();
  rig.mapper.sync_region_wait(m, ompt_sync_region_taskwait, ompt_scope_begin, stranger);
  CHECK(rig.mapper.inconsistencies() == 1);
  CHECK(rig.session.errors == 1);
  rig.mapper.finish();
  REQUIRE_FALSE(rig.session.notes.empty());
  CHECK(rig.session.notes.back().find("did not match") != std::string::npos);
}

TEST_CASE("Ompt.Mapper.TraceRecordsTasksSegmentsWaitsAndSteals", "[ompt][mapper][trace]") {
  const auto path = std::filesystem::temp_directory_path() / "rubato-mapper-trace-test.bin";
  TraceHeader h;
  h.max_workers = 8;
  h.level_hz = {2.4e9, 2.0e9};
  h.frontend = "ompt";
  std::string err;
  auto writer = TraceFileWriter::create(path.string(), h, err);
  REQUIRE(writer);
  MapperOptions mo;
  mo.trace_block_bytes = 100;  // force many block flushes
  {
    Rig rig(options(), writer.get(), mo);
    ompt_data_t *i0 = nullptr, *i1 = nullptr;
    ompt_data_t* m = rig.master(i0);
    ompt_data_t* a = rig.create(m, i0);
    ompt_data_t* b = rig.create(m, i0);
    rig.mapper.sync_region_wait(m, ompt_sync_region_taskwait, ompt_scope_begin, i0);
    ompt_data_t* w = rig.worker_at_barrier(1, i1);
    rig.mapper.task_schedule(w, i1, kSwitch, a);
    rig.session.clock.advance(700);
    rig.mapper.task_schedule(w, a, kComplete, i1);
    rig.mapper.task_schedule(m, i0, kSwitch, b);
    rig.session.clock.advance(300);
    rig.mapper.task_schedule(m, b, kComplete, i0);
    rig.mapper.sync_region_wait(m, ompt_sync_region_taskwait, ompt_scope_end, i0);
    rig.mapper.finish();  // worker 1 still waits at its barrier: closed at finish
  }
  REQUIRE(writer->close(err));
  auto t = read_trace(path.string(), err);
  INFO(err);
  REQUIRE(t);
  std::size_t explicit_tasks = 0, steals = 0, pops = 0;
  for (const TraceTask& task : t->tasks) {
    if (!(task.flags & kTraceTaskExplicit)) continue;
    ++explicit_tasks;
    REQUIRE(task.segments.size() == 1);
    CHECK(task.segments[0].end == SegmentEnd::completed);
    steals += task.segments[0].start == SegmentStart::steal;
    pops += task.segments[0].start == SegmentStart::pop;
    CHECK(task.creator == 0);
    CHECK(task.segments[0].duration_ns == (task.segments[0].worker == 1 ? 700 : 300));
  }
  CHECK(explicit_tasks == 2);
  CHECK(steals == 1);
  CHECK(pops == 1);
  // The master's implicit task: two children, one finished wait.
  const TraceTask* implicit0 = nullptr;
  for (const TraceTask& task : t->tasks)
    if ((task.flags & kTraceTaskImplicit) && task.creator == 0) implicit0 = &task;
  REQUIRE(implicit0);
  CHECK(implicit0->children.size() == 2);
  REQUIRE(implicit0->waits.size() == 1);
  CHECK(implicit0->waits[0].kind == WaitKind::taskwait);
  std::filesystem::remove(path);
}

namespace {

// Two workers running a fib-like tree with steals, undeferred tasks, a task
// resumed after its child outside any wait, taskwaits with and without a
// stolen child, and a pop after a park ended the thread's run; the clock
// advances between events so that busy time counts.
void fast_path_scenario(Rig& rig) {
  auto tick = [&rig](std::uint64_t ns) { rig.session.clock.advance(ns); };
  ompt_data_t *i0 = nullptr, *i1 = nullptr;
  ompt_data_t* m = rig.master(i0);
  tick(10);
  ompt_data_t* a = rig.create(m, i0);
  ompt_data_t* b = rig.create(m, i0);
  tick(20);
  rig.mapper.sync_region_wait(m, ompt_sync_region_taskwait, ompt_scope_begin, i0);
  rig.mapper.end_run(*static_cast<ThreadState*>(m->ptr));  // as efs parks a waiting thread
  tick(5);
  rig.mapper.task_schedule(m, i0, kSwitch, b);  // own pop inside a wait, its run ended
  tick(30);
  ompt_data_t* u = rig.create(m, b, ompt_task_explicit | ompt_task_undeferred);
  rig.mapper.task_schedule(m, b, kSwitch, u);  // undeferred child on top of a running task
  tick(35);
  ompt_data_t* v = rig.create(m, u, ompt_task_explicit | ompt_task_undeferred);
  rig.mapper.task_schedule(m, u, kSwitch, v);  // and its own (u's end is worker 0's third: a clock read)
  tick(5);
  rig.mapper.task_schedule(m, v, kComplete, u);
  tick(40);
  rig.mapper.task_schedule(m, u, kComplete, b);  // back into b, not waiting: b resumes
  tick(50);
  rig.mapper.task_schedule(m, b, kComplete, i0);  // back into the taskwait, a still queued
  tick(7);
  ompt_data_t* w = rig.worker_at_barrier(1, i1);
  tick(9);
  rig.mapper.task_schedule(w, i1, kSwitch, a);  // steal
  tick(60);
  ompt_data_t* c1 = rig.create(w, a);
  ompt_data_t* c2 = rig.create(w, a);
  rig.mapper.sync_region_wait(w, ompt_sync_region_taskwait, ompt_scope_begin, a);
  rig.mapper.task_schedule(w, a, kSwitch, c2);  // own pop
  tick(70);
  rig.mapper.task_schedule(m, i0, kSwitch, c1);  // worker 0 steals while it waits
  tick(80);
  rig.mapper.task_schedule(w, c2, kComplete, a);  // back into a's wait: idle, c1 runs elsewhere
  tick(90);
  rig.mapper.task_schedule(m, c1, kComplete, i0);
  tick(100);
  rig.mapper.sync_region_wait(w, ompt_sync_region_taskwait, ompt_scope_end, a);  // its child was stolen
  tick(110);
  rig.mapper.task_schedule(w, a, kComplete, i1);
  rig.mapper.sync_region_wait(m, ompt_sync_region_taskwait, ompt_scope_end, i0);
  tick(120);
  ompt_data_t* x = rig.create(m, i0);
  rig.mapper.task_schedule(m, i0, ompt_task_yield, x);
  ompt_data_t* d = rig.create(m, x);
  ompt_data_t* e = rig.create(m, x);
  rig.mapper.sync_region_wait(m, ompt_sync_region_taskwait, ompt_scope_begin, x);
  rig.mapper.task_schedule(m, x, kSwitch, e);
  tick(130);
  rig.mapper.task_schedule(m, e, kComplete, x);
  rig.mapper.task_schedule(m, x, kSwitch, d);
  tick(140);
  rig.mapper.task_schedule(m, d, kComplete, x);                                  // every child ran here: not idle
  rig.mapper.sync_region_wait(m, ompt_sync_region_taskwait, ompt_scope_end, x);  // nothing stolen
  tick(145);
  rig.mapper.task_schedule(m, x, kComplete, i0);
  tick(150);
  rig.mapper.sync_region_wait(m, ompt_sync_region_barrier_implicit, ompt_scope_begin, i0);
  rig.mapper.implicit_task(m, ompt_scope_end, i0, 0, ompt_task_implicit);
}

}  // namespace

// The inline fast paths (task switches and taskwaits, taken when nothing is
// traced or bound per task) must count exactly what the general path counts:
// per-task binding forces the general path for the same sequence.
TEST_CASE("Ompt.Mapper.FastPathsCountAsTheGeneralPath", "[ompt][mapper]") {
  MapperOptions general;
  general.dynamic_binding = true;
  for (TempoPolicy policy : {TempoPolicy::baseline, TempoPolicy::hermes}) {
    Rig fast(options(policy));
    Rig slow(options(policy), nullptr, general);
    fast_path_scenario(fast);
    fast_path_scenario(slow);
    CHECK(slow.session.before > 0);  // the general path really ran
    for (WorkerId w : {0u, 1u}) {
      INFO("policy " << static_cast<int>(policy) << ", worker " << w);
      const WorkerStats f = fast.stats(w), s = slow.stats(w);
      CHECK(f.pushes == s.pushes);
      CHECK(f.pops == s.pops);
      CHECK(f.steals == s.steals);
      CHECK(f.stolen_from == s.stolen_from);
      CHECK(f.idles == s.idles);
      CHECK(f.segments == s.segments);
      CHECK(f.tasks_completed == s.tasks_completed);
      CHECK(f.max_depth == s.max_depth);
      CHECK(f.busy_ns == s.busy_ns);
      CHECK(f.level_changes == s.level_changes);
      CHECK(fast.session.engine().depth(w) == slow.session.engine().depth(w));
      // The same clock reads: the fast paths leave each end that reads it to
      // the general path (Engine::segment_end_reads_clock), and the chained
      // cadence goes on as there.
      const Engine::Slot& fs = *fast.session.engine().slot_of(w);
      const Engine::Slot& ss = *slow.session.engine().slot_of(w);
      CHECK(fs.chained_ends_left == ss.chained_ends_left);
      CHECK(fs.chained_read_every == ss.chained_read_every);
      CHECK(fs.run_start_ns == ss.run_start_ns);
    }
    CHECK(fast.stats(0).tasks_completed + fast.stats(1).tasks_completed == 9);
    CHECK(fast.stats(0).busy_ns > 0);
    CHECK(fast.session.errors == 0);
    CHECK(slow.session.errors == 0);
  }
}
