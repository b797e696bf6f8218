// [HERMES] §3.2, Fig. 4: workload-sensitive tempo control with thresholds 1 and 3.
#include <catch2/catch.hpp>

#include "engine_fixture.hpp"

using namespace rubato;
using namespace rubato::test;

namespace {
EngineOptions fig4_options(TempoPolicy p) {
  auto o = options_for(p, 3);
  o.fixed_thresholds = {1, 3};
  return o;
}
}  // namespace

TEST_CASE("Engine.Workload.Figure4", "[core][engine][workload]") {
  EngineFixture f(fig4_options(TempoPolicy::workload));
  Engine& e = f.engine;
  // (a) bootstrap at the fastest tempo; worker 1 has spawned a few tasks.
  for (int i = 0; i < 4; ++i) e.push(1);
  CHECK(e.level(1) == 0);
  CHECK(e.level(2) == 0);
  CHECK(e.level(3) == 0);

  // (b) core 2 steals one task; its deque (0) is below the first threshold.
  e.steal(2, 1);
  CHECK(e.depth(1) == 3);
  CHECK(e.level(1) == 0);  // still at or above thld_2 = 3
  CHECK(e.level(2) == 2);
  CHECK(e.level(3) == 0);

  // (c) worker 2 pushes: deque 1 reaches the first threshold -> medium.
  e.push(2);
  CHECK(e.level(2) == 1);
  // (d) more pushes: deque 3 reaches the second threshold -> fastest.
  e.push(2);
  CHECK(e.level(2) == 1);
  e.push(2);
  CHECK(e.level(2) == 0);
  CHECK(e.level(1) == 0);
  CHECK(e.level(3) == 0);

  // (e) worker 2 is stolen from: deque 2 drops below 3 -> medium again.
  e.steal(3, 2);
  CHECK(e.level(2) == 1);
  CHECK(e.level(3) == 2);
  CHECK(e.level(1) == 0);

  // (f) worker 2 pops more: deque 0 drops below 1 -> slowest.
  e.pop(2);
  CHECK(e.level(2) == 1);  // deque 1, not below 1
  e.pop(2);
  CHECK(e.level(2) == 2);
  CHECK(e.level(1) == 0);
  CHECK(e.level(3) == 2);
}

TEST_CASE("Engine.Workload.OnlineProfilingSetsThresholdsFromMean", "[core][engine][workload]") {
  auto o = options_for(TempoPolicy::workload, 3);
  o.thresholds = 2;
  o.profile_window = 4;
  o.sample_interval_ns = 10;
  EngineFixture f(o);
  Engine& e = f.engine;
  e.worker_begin(0);
  for (int i = 0; i < 15; ++i) e.push(0);  // depth 15
  for (int s = 0; s < 4; ++s) {
    f.clock.advance(10);
    e.task_begin(0);  // samples the deque size
    e.task_end(0);
  }
  auto st = e.worker_stats();
  REQUIRE(st.size() == 1);
  CHECK(st[0].thresholds[0] == Approx(10));  // the paper's example: L = 15, K = 2
  CHECK(st[0].thresholds[1] == Approx(20));
  CHECK(st[0].depth_samples == 4);
  CHECK(st[0].mean_depth == Approx(15));
}

TEST_CASE("Engine.Hermes.HeadOfListNeverSlowedByWorkload", "[core][engine][hermes]") {
  EngineFixture f(fig4_options(TempoPolicy::hermes));
  Engine& e = f.engine;
  for (int i = 0; i < 4; ++i) e.push(0);  // worker 0: band 2
  e.steal(1, 0);                          // worker 0 heads the list 0 -> 1
  e.steal(2, 0);
  e.pop(0);
  e.pop(0);  // depth 0: far below both thresholds
  CHECK(e.depth(0) == 0);
  CHECK(e.level(0) == 0);  // head: no workload slow-down
  // Its thief has a predecessor: workload sensitivity may slow it.
  e.push(1);
  e.push(1);
  e.push(1);  // worker 1 reaches band 2 -> raised from its procrastinated level
  const Level raised = e.level(1);
  e.pop(1);
  e.pop(1);
  e.pop(1);
  CHECK(e.level(1) > raised);
}

TEST_CASE("Engine.Hermes.ThiefProcrastinationThenWorkloadRaise", "[core][engine][hermes]") {
  EngineFixture f(fig4_options(TempoPolicy::hermes));
  Engine& e = f.engine;
  e.push(0);
  e.steal(1, 0);
  CHECK(e.level(1) == 1);  // DOWN(w, v), not "slowest" as workload alone
  e.push(1);               // reaches thld_1 -> UP
  CHECK(e.level(1) == 0);
}

TEST_CASE("Engine.Hermes.BandFollowsTheDequeOfAWorkerWithoutPredecessor", "[core][engine][hermes]") {
  // The head is never slowed by workload sensitivity ([HERMES] §3.3), but its
  // band still follows its deque: once drained and filled again, its pushes
  // raise it (§3.2) — whatever left it slow while its band was up.
  EngineFixture f(fig4_options(TempoPolicy::hermes));
  Engine& e = f.engine;
  e.push(1);
  for (int i = 0; i < 4; ++i) e.push(0);  // worker 0 reaches band 2
  // It steals with its own queue deep (tasks it may not run: the front-end
  // reports the steal all the same) and is then judged out of work.
  e.steal(0, 1);
  REQUIRE(e.level(0) == 1);
  e.idle(0);
  REQUIRE_FALSE(e.immediacy().linked(0));
  for (int i = 0; i < 4; ++i) e.pop(0);
  CHECK(e.level(0) == 1);  // no predecessor: not slowed, nor raised, by the drain
  e.push(0);               // deque 1 reaches thld_1 again
  CHECK(e.level(0) == 0);
}
