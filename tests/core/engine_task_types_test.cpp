// The engine's task-type durations (rubato/core/tempo/task_type_stats.hpp):
// every segment by its type and the level it ran at, chained segments each
// their own, a segment across a level change left out, the emulator's
// stretch included; and the per-type core ceilings the closed loop sets.
#include <catch2/catch.hpp>

#include "engine_fixture.hpp"

using namespace rubato;
using namespace rubato::test;

namespace {

EngineOptions typed(int levels = 3, std::size_t workers = 2) {
  EngineOptions o = options_for(TempoPolicy::baseline, levels, workers);
  o.policy.min_energy = true;  // the whole ladder, and ceilings
  o.task_type_stats = true;
  return o;
}

const TaskTypeCell* cell(const std::vector<TaskTypeCell>& cells, TaskType t, Level l) {
  for (const TaskTypeCell& c : cells)
    if (c.type == t && c.level == l) return &c;
  return nullptr;
}

}  // namespace

TEST_CASE("Engine.TaskTypes.SegmentsByTypeAndLevel", "[core][engine][task-types]") {
  EngineFixture f(typed());
  Engine& e = f.engine;
  e.worker_begin(0);
  e.worker_begin(1);
  for (int i = 0; i < 3; ++i) {
    e.set_task_type(0, 7);
    e.task_begin(0);
    f.clock.advance(1000);
    e.task_end(0);
  }
  e.set_task_type(1, 9);
  e.task_begin(1);
  f.clock.advance(5000);
  e.task_end(1);
  e.set_task_type(0, 9);
  e.task_begin(0);
  f.clock.advance(3000);
  e.task_end(0);
  const auto cells = e.task_type_stats();  // merged over the workers
  REQUIRE(cell(cells, 7, 0));
  CHECK(cell(cells, 7, 0)->segments == 3);
  CHECK(cell(cells, 7, 0)->ns == 3000);
  CHECK(cell(cells, 7, 0)->sq_us == Approx(3.0));
  REQUIRE(cell(cells, 9, 0));
  CHECK(cell(cells, 9, 0)->segments == 2);
  CHECK(cell(cells, 9, 0)->ns == 8000);
}

TEST_CASE("Engine.TaskTypes.ChainedSegmentsEachAndLevelChangesLeftOut", "[core][engine][task-types]") {
  EngineFixture f(typed());
  Engine& e = f.engine;
  e.worker_begin(0);
  // Chained segments read the clock at every end when types are recorded.
  for (int i = 0; i < 4; ++i) {
    e.set_task_type(0, 3);
    e.segment_begin(0);
    f.clock.advance(2000);
    e.segment_end(0, true);
  }
  f.clock.advance(500);  // the worker looks for work: dispatch code, no type's segment
  e.run_end(0);
  auto cells = e.task_type_stats();
  REQUIRE(cell(cells, 3, 0));
  CHECK(cell(cells, 3, 0)->segments == 4);
  CHECK(cell(cells, 3, 0)->ns == 8000);
  // A segment across a ceiling change ran at two levels: not recorded; the next one at level 1 is.
  e.set_task_type(0, 3);
  e.task_begin(0);
  f.clock.advance(1000);
  e.set_core_ceiling(1);
  f.clock.advance(1000);
  e.task_end(0);
  e.set_task_type(0, 3);
  e.task_begin(0);
  f.clock.advance(1500);
  e.task_end(0);
  cells = e.task_type_stats();
  CHECK(cell(cells, 3, 0)->segments == 4);
  REQUIRE(cell(cells, 3, 1));
  CHECK(cell(cells, 3, 1)->segments == 1);
  CHECK(cell(cells, 3, 1)->ns == 1500);
}

TEST_CASE("Engine.TaskTypes.TheEmulatorsStretchCounts", "[core][engine][task-types]") {
  // A back-end that stretches a segment (the emulator) keeps the worker busy
  // after its end: the duration measured is the stretched one, as on real DVFS.
  ManualClock clock;
  RecordingActuator actuator;
  actuator.stretch_clock = &clock;  // doubles every segment
  Engine e(typed(), clock, actuator);
  e.worker_begin(0);
  e.set_task_type(0, 2);
  e.task_begin(0);
  clock.advance(1000);
  e.task_end(0);
  const auto cells = e.task_type_stats();
  REQUIRE(cell(cells, 2, 0));
  CHECK(cell(cells, 2, 0)->ns == 2000);
}

TEST_CASE("Engine.TaskTypes.PerTypeCeilings", "[core][engine][task-types]") {
  EngineFixture f(typed());
  Engine& e = f.engine;
  e.worker_begin(0);
  e.worker_begin(1);
  e.set_type_ceilings({0, 0, 2}, 1);  // type 2 at the slowest, types 0 and 1 at the fastest, others at 1
  e.set_task_type(0, 2);
  CHECK(e.domain_level(0) == 2);
  e.set_task_type(1, 1);
  CHECK(e.domain_level(1) == 0);
  e.set_task_type(0, 5);
  CHECK(e.domain_level(0) == 1);
  e.set_task_type(0, kMaxTaskTypes + 4);  // beyond the types a front-end may give: untyped
  CHECK(e.domain_level(0) == 0);
  e.clear_type_ceilings(1);
  CHECK(e.domain_level(0) == 1);
  CHECK(e.domain_level(1) == 1);
  e.set_task_type(1, 2);  // no per-type ceilings any more
  CHECK(e.domain_level(1) == 1);
}

TEST_CASE("Engine.TaskTypes.NotRecordedUnlessAsked", "[core][engine][task-types]") {
  EngineFixture f(options_for(TempoPolicy::baseline, 2, 1));
  Engine& e = f.engine;
  CHECK_FALSE(e.records_task_types());
  e.worker_begin(0);
  e.set_task_type(0, 4);
  e.task_begin(0);
  f.clock.advance(1000);
  e.task_end(0);
  CHECK(e.task_type_stats().empty());
}

TEST_CASE("Engine.TaskTypes.TableOverflowIsCounted", "[core][engine][task-types]") {
  TaskTypeTable table;
  for (TaskType t = 0; t < 200; ++t) table.record(t, 0, 10);
  std::vector<TaskTypeCell> cells;
  table.append_to(cells);
  CHECK(cells.size() + table.overflowed() == 200);
  CHECK(cells.size() <= TaskTypeTable::kCells);
  CHECK(table.overflowed() >= 200 - TaskTypeTable::kCells);
}
