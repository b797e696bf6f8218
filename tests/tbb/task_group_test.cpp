// rubato::tbb::task_group beyond run / wait: cancellation drops unrun tasks
// (counted, never completed), run_and_wait, exceptions, functors returning
// values, move-only functors.
#include <catch2/catch.hpp>

#include <atomic>
#include <memory>
#include <stdexcept>

#include "ground_truth.hpp"
#include "rubato/tbb/task_group.hpp"

TEST_CASE("Tbb.TaskGroup.CancelDropsUnrunTasks", "[tbb]") {
  std::atomic<int> ran{0};
  ::tbb::task_group_status status{};
  const rubato::Report r = rubato::test::run_observed(1, rubato::test::quiet_env(), [&] {
    rubato::tbb::task_group g;
    for (int i = 0; i < 100; ++i) g.run([&] { ++ran; });
    g.cancel();
    status = g.wait();
  });
  CHECK(status == ::tbb::canceled);
  CHECK(ran.load() == 0);
  const auto t = rubato::test::totals(r);
  CHECK(t.pushes == 100);
  CHECK(t.pops == 100);  // dropped on its spawner: it left the queue
  CHECK(t.completed == 0);
  bool noted = false;
  for (const auto& n : r.notes) noted = noted || n.find("100 spawned tasks were dropped") != std::string::npos;
  CHECK(noted);
}

TEST_CASE("Tbb.TaskGroup.RunAndWaitAndMoveOnlyFunctors", "[tbb]") {
  const int threads = GENERATE(1, 4);
  std::atomic<int> ran{0};
  const rubato::Report r = rubato::test::run_observed(threads, rubato::test::quiet_env(), [&] {
    rubato::tbb::task_group g;
    for (int i = 0; i < 20; ++i) {
      auto owned = std::make_unique<int>(i);
      g.run([&ran, p = std::move(owned)] { ran += *p >= 0 ? 1 : 0; });
    }
    CHECK(g.run_and_wait([&] { ++ran; }) == ::tbb::complete);
  });
  CHECK(ran.load() == 21);
  const auto t = rubato::test::totals(r);
  CHECK(t.pushes == 21);
  CHECK(t.pops + t.steals == 21);
  CHECK(t.completed == 21);
}

TEST_CASE("Tbb.TaskGroup.ExceptionReachesWait", "[tbb]") {
  std::atomic<int> ran{0};
  const rubato::Report r = rubato::test::run_observed(1, rubato::test::quiet_env(), [&] {
    rubato::tbb::task_group g;
    g.run([&] { ++ran; });
    g.run([] { throw std::runtime_error("task failed"); });
    CHECK_THROWS_AS(g.wait(), std::runtime_error);
  });
  const auto t = rubato::test::totals(r);
  CHECK(t.pushes == 2);
  CHECK(t.pops == 2);  // one thread: each task ran or was dropped on its spawner
  CHECK(t.completed == static_cast<std::uint64_t>(1 + ran.load()));
  CHECK(r.tool_errors == 0);
}
