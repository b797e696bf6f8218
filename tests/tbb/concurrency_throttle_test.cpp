// rubato::tbb::concurrency_throttle: limits clamp to 1..ceiling, the ceiling
// is the limit in force, and a lowered limit is followed by the next parallel
// regions (a raised one too).
#include <catch2/catch.hpp>
#include <oneapi/tbb/global_control.h>
#include <oneapi/tbb/parallel_for.h>
#include <oneapi/tbb/task_arena.h>

#include <chrono>
#include <functional>
#include <mutex>
#include <set>
#include <thread>

#include "rubato/tbb/concurrency_throttle.hpp"

namespace {

std::size_t limit_in_force() {
  return ::tbb::global_control::active_value(::tbb::global_control::max_allowed_parallelism);
}

// Distinct threads that ran a chunk of one short region (chunks sleep, so idle
// workers get a chance to join even on a loaded machine).
std::size_t threads_in_region(::tbb::task_arena& arena) {
  std::mutex m;
  std::set<int> seen;
  arena.execute([&] {
    ::tbb::parallel_for(::tbb::blocked_range<int>(0, 24, 1), [&](const ::tbb::blocked_range<int>&) {
      std::this_thread::sleep_for(std::chrono::microseconds(500));
      std::lock_guard<std::mutex> lock(m);
      seen.insert(::tbb::this_task_arena::current_thread_index());
    });
  });
  return seen.size();
}

// Runs regions until `done` holds of the last one's thread count, for at most
// 20 s (workers woken on a loaded machine can take long to join); that count.
std::size_t regions_until(::tbb::task_arena& arena, const std::function<bool(std::size_t)>& done) {
  const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  std::size_t now = threads_in_region(arena);
  while (!done(now) && std::chrono::steady_clock::now() < end) now = threads_in_region(arena);
  return now;
}

}  // namespace

TEST_CASE("Tbb.Throttle.ClampsToCeiling", "[tbb]") {
  ::tbb::global_control program_limit(::tbb::global_control::max_allowed_parallelism, 3);
  rubato::tbb::concurrency_throttle throttle;
  CHECK(throttle.ceiling() == 3);
  CHECK(throttle.limit() == 3);
  CHECK(throttle.set_limit(8) == 3);
  CHECK(limit_in_force() == 3);
  CHECK(throttle.set_limit(0) == 1);
  CHECK(limit_in_force() == 1);
  CHECK(throttle.set_limit(2) == 2);
  CHECK(limit_in_force() == 2);
  throttle.release();
  CHECK(throttle.limit() == 3);
  CHECK(limit_in_force() == 3);
  rubato::tbb::concurrency_throttle narrower(2);
  CHECK(narrower.ceiling() == 2);
  rubato::tbb::concurrency_throttle wider(16);
  CHECK(wider.ceiling() == 3);
}

TEST_CASE("Tbb.Throttle.RegionsFollowTheLimit", "[tbb]") {
  ::tbb::global_control program_limit(::tbb::global_control::max_allowed_parallelism, 4);
  ::tbb::task_arena arena(4);
  rubato::tbb::concurrency_throttle throttle;
  REQUIRE(throttle.ceiling() == 4);
  const auto several = [](std::size_t n) { return n >= 2; };
  REQUIRE(regions_until(arena, several) >= 2);  // unthrottled, workers join

  throttle.set_limit(1);
  // A lowered limit acts when workers come back for work: within a few regions.
  CHECK(regions_until(arena, [](std::size_t n) { return n == 1; }) == 1);
  for (int i = 0; i < 5; ++i) CHECK(threads_in_region(arena) == 1);

  throttle.set_limit(4);
  CHECK(regions_until(arena, several) >= 2);
}
