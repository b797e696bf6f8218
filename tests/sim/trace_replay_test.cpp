// Trace replay: a hand-built trace becomes task scripts whose work, spawns
// and waits reproduce the recording, converted to the fastest level.
#include <catch2/catch.hpp>

#include "rubato/sim/trace_replay.hpp"
#include "sim_fixture.hpp"

using namespace rubato;
using namespace rubato::sim;
using namespace rubato::sim::test;

namespace {

TraceSegment seg(std::uint64_t start_us, std::uint64_t dur_us, std::uint8_t level, SegmentStart how, SegmentEnd end) {
  TraceSegment s;
  s.start_ns = start_us * 1000;
  s.duration_ns = dur_us * 1000;
  s.level = level;
  s.start = how;
  s.end = end;
  return s;
}

TraceTask task(std::uint64_t id, std::uint64_t parent, std::uint32_t flags, std::uint64_t created_us) {
  TraceTask t;
  t.id = id;
  t.parent = parent;
  t.flags = flags;
  t.created_ns = created_us * 1000;
  return t;
}

void link(Trace& tr) {
  for (std::size_t i = 0; i < tr.tasks.size(); ++i) tr.index[tr.tasks[i].id] = i;
  for (auto& t : tr.tasks)
    if (t.parent) tr.tasks[tr.index[t.parent]].children.push_back(t.id);
}

// An implicit task (the `single` thread) works 2 us, creates task 3, works
// 2 us, creates task 4, works 2 us, waits for both (taskwait 6-20 us), then
// works 5 us more. Task 3 runs 10 us at level 0; task 4 is stolen and runs
// 10 us at level 1 (1 GHz, half of level 0's 2 GHz).
Trace recorded(std::uint64_t second_region_us = 0) {
  Trace tr;
  tr.header.level_hz = {2e9, 1e9};
  tr.tasks.push_back(task(1, 0, kTraceTaskInitial, 0));
  TraceTask imp = task(2, 0, kTraceTaskImplicit, 0);
  imp.segments = {seg(0, 6, 0, SegmentStart::inline_, SegmentEnd::waiting),
                  seg(20, 5, 0, SegmentStart::resume, SegmentEnd::region_end)};
  imp.waits = {TraceWait{0, WaitKind::taskwait, 6000, 20000}};
  tr.tasks.push_back(imp);
  TraceTask a = task(3, 2, kTraceTaskExplicit | kTraceTaskDeferred, 2);
  a.segments = {seg(2, 10, 0, SegmentStart::pop, SegmentEnd::completed)};
  tr.tasks.push_back(a);
  TraceTask b = task(4, 2, kTraceTaskExplicit | kTraceTaskDeferred, 4);
  b.segments = {seg(5, 10, 1, SegmentStart::steal, SegmentEnd::completed)};
  tr.tasks.push_back(b);
  if (second_region_us) {
    // A second implicit task of the same region (overlapping: same phase) or
    // of a later region (a phase of its own).
    TraceTask c = task(5, 0, kTraceTaskImplicit, second_region_us);
    c.segments = {seg(second_region_us, 3, 0, SegmentStart::inline_, SegmentEnd::region_end)};
    tr.tasks.push_back(c);
  }
  link(tr);
  return tr;
}

SimResult replay(const Trace& tr, double beta, std::size_t workers, TraceProgramInfo* info = nullptr) {
  std::vector<std::string> notes;
  const Program prog = build_trace_program(tr, beta, notes, info);
  SimOptions o = options(two_level_profile(4), workers, "baseline");
  o.model = SpawnModel::omp;
  Simulation s(o, prog);
  return s.run();
}

}  // namespace

TEST_CASE("Sim.TraceReplay.OneWorkerRunsTheRecordedWork", "[sim][trace]") {
  TraceProgramInfo info;
  // 6 + 5 us of the implicit task, 10 us of task 3, and task 4's 10 us at
  // 1 GHz are 5 us at 2 GHz (beta = 1).
  const SimResult r = replay(recorded(), 1.0, 1, &info);
  CHECK(r.makespan_ns == 26000);
  CHECK(r.tasks == 4);  // root, the implicit task, tasks 3 and 4
  CHECK(info.explicit_tasks == 2);
  CHECK(info.top_level == 1);
  CHECK(info.phases == 1);
  CHECK(info.recorded_steals == 1);
  // beta = 0.5: only half of task 4 scales: 10 (0.5 x 0.5 + 0.5) = 7.5 us.
  CHECK(replay(recorded(), 0.5, 1).makespan_ns == 28500);
}

TEST_CASE("Sim.TraceReplay.TwoWorkersOverlapTheChildren", "[sim][trace]") {
  // Steal attempts of 1 us. w0 runs the implicit task: 2 us, pushes task 3 at
  // 2 (waking w1, whose attempt ends at 3), 2 us, pushes task 4 at 4, 2 us,
  // waits at 6 and pops task 4: 6-11. w1 steals task 3 at 3: 3-13. w0 parks at
  // 11; task 3's end wakes it, its attempt ends at 14: it resumes the implicit
  // task, 5 us more: 19 us.
  const SimResult r = replay(recorded(), 1.0, 2);
  CHECK(r.makespan_ns == 19000);
}

TEST_CASE("Sim.TraceReplay.RegionsBecomePhases", "[sim][trace]") {
  TraceProgramInfo same, later;
  replay(recorded(1), 1.0, 2, &same);  // overlaps the first implicit task: same region
  CHECK(same.phases == 1);
  CHECK(same.top_level == 2);
  const SimResult r = replay(recorded(100), 1.0, 1, &later);  // after it: the next region
  CHECK(later.phases == 2);
  CHECK(r.makespan_ns == 26000 + 3000);
}

TEST_CASE("Sim.TraceReplay.UncoreShareSlowsTheReplayBelowTheKnee", "[sim][trace][uncore]") {
  // The recording is taken to have run with the uncore at its fastest. With
  // b_c 0.5 and b_u 0.4: 28.5 us at the reference (as beta = 0.5 above); the
  // uncore pinned at 1 GHz, half the knee of 2 GHz, doubles the uncore part:
  // every segment takes 1 + 0.4 x (2 - 1) = 1.4 times as long.
  Trace tr = recorded();
  std::vector<std::string> notes;
  const Program prog = build_trace_program(tr, WorkSensitivity{0.5, 0.4}, notes);
  MachineProfile p = two_level_profile(4);
  p.uncore_power = {{3e9, 20.0}, {1e9, 10.0}};
  p.memory_bandwidth_knee_hz = 2e9;
  SimOptions o = options(p, 1, "baseline");
  o.model = SpawnModel::omp;
  o.uncore_hz = 3e9;
  CHECK(Simulation(o, prog).run().makespan_ns == 28500);
  o.uncore_hz = 1e9;
  CHECK(Simulation(o, prog).run().makespan_ns == 39900);
  CHECK_THROWS_AS(build_trace_program(tr, WorkSensitivity{0.7, 0.4}, notes), std::invalid_argument);
}
