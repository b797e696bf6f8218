// Recursive fib with rubato::tbb::task_group: the report's push / pop / steal
// counts equal what the program recorded itself, at 1, 2, 4 and 8 threads,
// and the result equals plain oneTBB's.
#include <catch2/catch.hpp>
#include <oneapi/tbb/task_group.h>

#include <vector>

#include "fib.hpp"
#include "ground_truth.hpp"
#include "rubato/tbb/task_group.hpp"

namespace {

using rubato::test::GroundTruth;

long fib_recorded(int n, GroundTruth& gt) {
  if (n < 2) return n;
  long a = 0, b = 0;
  rubato::tbb::task_group g;
  const std::size_t ia = gt.spawn();
  g.run([&, ia] {
    gt.ran(ia);
    a = fib_recorded(n - 1, gt);
  });
  const std::size_t ib = gt.spawn();
  g.run([&, ib] {
    gt.ran(ib);
    b = fib_recorded(n - 2, gt);
  });
  g.wait();
  return a + b;
}

// Tasks spawned by fib(n): 2 per call with n >= 2.
std::size_t fib_tasks(int n) { return n < 2 ? 0 : 2 + fib_tasks(n - 1) + fib_tasks(n - 2); }

}  // namespace

TEST_CASE("Tbb.GroundTruth.FibTaskGroup", "[tbb]") {
  const int threads = GENERATE(1, 2, 4, 8);
  const int n = 18;
  INFO(threads << " threads");
  GroundTruth gt(fib_tasks(n));
  long result = -1;
  const rubato::Report r =
      rubato::test::run_observed(threads, rubato::test::quiet_env(), [&] { result = fib_recorded(n, gt); });
  long plain = -1;
  {
    ::tbb::global_control limit(::tbb::global_control::max_allowed_parallelism, static_cast<std::size_t>(threads));
    ::tbb::task_arena arena(threads);
    arena.execute([&] { plain = rubato::test::fib<::tbb::task_group>(n); });
  }
  CHECK(result == plain);
  CHECK(result == 2584);
  REQUIRE(gt.tasks() == fib_tasks(n));
  rubato::test::check_exact(r, gt);
  CHECK(r.frontend == "tbb");
  CHECK(r.steals_observed);
  if (threads == 1) CHECK(gt.total_steals() == 0);
  CHECK(r.workers.size() <= static_cast<std::size_t>(threads));
}

// Each of the root's tasks waits until two workers have arrived, so steals
// certainly happen; the counts still agree exactly.
TEST_CASE("Tbb.GroundTruth.ForcedSteals", "[tbb]") {
  const int threads = GENERATE(2, 4);
  INFO(threads << " threads");
  const int roots = 8, n = 14;
  GroundTruth gt(static_cast<std::size_t>(roots) * (fib_tasks(n) + 1));
  rubato::test::Rendezvous meet(2);
  std::vector<long> results(roots, -1);
  const rubato::Report r = rubato::test::run_observed(threads, rubato::test::quiet_env(), [&] {
    rubato::tbb::task_group g;
    for (int i = 0; i < roots; ++i) {
      const std::size_t id = gt.spawn();
      g.run([&, i, id] {
        gt.ran(id);
        meet.arrive();
        results[static_cast<std::size_t>(i)] = fib_recorded(n, gt);
      });
    }
    g.wait();
  });
  for (long v : results) CHECK(v == 377);
  REQUIRE(meet.arrived() >= 2);
  CHECK(gt.total_steals() > 0);
  rubato::test::check_exact(r, gt);
}
